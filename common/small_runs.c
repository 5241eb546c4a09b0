/* small_runs.c - see small_runs.h. */
#include <stdio.h>
#include "checks.h"
#include "generator.h"
#include "host_alloc.h"
#include "small_runs.h"

static int runs, wrong;

float *small_batch(int n, size_t count)
{
    float *A = host_alloc_array(count * (size_t)n * n, sizeof(float), "a small batch");
    gen_params p = gen_params_make(FAMILY_SPD, 99, 0, 0);
    gen_batch_host(&p, n, 0, count, A);
    return A;
}

int small_check(const char *what, int n, size_t count, const float *A, const float *L, const int *info)
{
    factor_check first;
    double resid, fwd;
    runs++;
    if (check_batch(n, count, A, L, info, NULL, &first, &resid, &fwd) == 0) return 1;
    wrong++;
    printf("FAILED %s: %s\n", what, first.detail);
    return 0;
}

int small_runs_end(const char *program)
{
    printf("%s: %d runs, %d wrong\n", program, runs, wrong);
    return wrong ? 1 : 0;
}
