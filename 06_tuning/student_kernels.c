/* student_kernels.c - see student_kernels.h. */
#include <stdio.h>
#include "batched_testing.h"
#include "family.h"
#include "student_kernels.h"

int student_kernels_work(char *what, size_t len)
{
    static const struct {
        batched_config cfg;
        int n;
        const char *whose;
    } probes[] = {
        {ROWS_CONFIG(8, 8, 0), 20, "your rows kernel ('rows kernel')"},
        {ROWS_CONFIG(64, 1, 1), 100, "your rows kernel ('rows kernel')"},
        {THREAD_CONFIG(4, 64, 2), 33, "your stage 04 thread kernel"},
        {TILES_CONFIG(LOOK_LEFT, 8, 16), 33, "your stage 04 tile kernel"},
        {GRID_CONFIG(1), 200, "your stage 03 schedule (the grid kernel)"},
    };
    for (size_t p = 0; p < sizeof probes / sizeof *probes; p++)
        if (!batched_kernel_works(family_ops, &probes[p].cfg, probes[p].n)) {
            snprintf(what, len, "%s at n = %d", probes[p].whose, probes[p].n);
            return 0;
        }
    return 1;
}
