/* cholesky_policy.h - every decision of the one door, in one place: which configuration runs (the
 * tuned table's lookup, or the caller's), the layout it runs in, the cyclic kernel's variant, and for
 * the whole-GPU path its groups, schedule and arithmetic (stage 03's defaults, which its own driver
 * shares, with the overrides by hand). cholesky_plan.c asks once, when a plan is made; execute
 * decides nothing. The measurements behind each rule: 06_tuning/library/README.md. */
#ifndef CHOLESKY_POLICY_H
#define CHOLESKY_POLICY_H

#include <stddef.h>
#include "batched_cholesky.h"
#include "grid_cholesky.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    batched_config cfg; /* what runs */
    size_t kchunk;      /* the layout it runs in (1 row-major, >= batch interleaved, else chunked) */
    char why[256];      /* where cfg came from: "given", or the tuned table's entry */
    /* the whole-GPU path (cfg.kernel == BATCHED_GRID) */
    size_t group;     /* matrices a group (its padded copies take at most GRID_WORK_CAP) */
    grid_policy grid; /* a group's schedule, arithmetic, warpgroup MMA and launch rules */
} cholesky_choice;

/* The padded copies of one whole-GPU group take at most this (a larger batch goes in groups). */
#define GRID_WORK_CAP ((size_t)512 << 20)

/* The choice for n, batch and the caller's layout `chunk` (1 row-major); given: the caller's
 * configuration (NULL: the tuned table's) and its layout given_kchunk (0: the caller's); precision a
 * cholesky_precision (high: the whole-GPU updates in one TF32 pass where they would run 3xTF32;
 * medium: the same with the warpgroup bulk in fp16);
 * forced: the whole-GPU choices a program forces by hand (NULL: none). 0, or -1 with the reason in
 * err (no tuned table, no entry for this shape, a configuration refused). */
int cholesky_policy_choose(int n, size_t batch, size_t chunk, const batched_config *given, size_t given_kchunk,
                           int precision, const grid_overrides *forced, cholesky_choice *out, char *err, size_t len);

/* The choice for a float64 plan: the cyclic kernel in float64 (cyclic_f64.cu) for n <= 128 in any
 * layout but row-major n = 73..128 (the tensor-core kernel, dmma_batched_f64.cu), the whole-GPU tile
 * tasks (grid_f64.cu) beyond, row-major only. given: a configuration by
 * hand (a cyclic one whose threads take n, or the grid's), for the tests and the sweep. 0, or -1 with
 * the reason in err. */
int cholesky_policy_choose_f64(int n, size_t batch, size_t chunk, const batched_config *given, cholesky_choice *out,
                               char *err, size_t len);

/* The whole-GPU group size alone, for the registered grid kernel (family_grid.c) too. A group's
 * policy is stage 03's rule (grid_policy_choose, 03_left_right_top/grid_policy.c, with what the
 * plan's options force), asked here at plan time and kept in the choice. */
size_t grid_group_size(int n, size_t batch);

#ifdef __cplusplus
}
#endif

#endif
