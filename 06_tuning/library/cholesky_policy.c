/* cholesky_policy.c - see cholesky_policy.h. */
#include <stdio.h>
#include <stdlib.h>
#include "cholesky_plan.h" /* cholesky_precision */
#include "cholesky_policy.h"
#include "cyclic_f64.h"
#include "dmma_batched_f64.h"
#include "cyclic_kernel.h"
#include "family.h"
#include "tuned.h"

size_t grid_group_size(int n, size_t batch)
{
    const size_t one = grid_batched_workspace_bytes(n, 1);
    if (!one || one * batch <= GRID_WORK_CAP) return batch;
    return GRID_WORK_CAP / one ? GRID_WORK_CAP / one : 1;
}

int cholesky_policy_choose(int n, size_t batch, size_t chunk, const batched_config *given, size_t given_kchunk,
                           int precision, const grid_overrides *forced, cholesky_choice *out, char *err, size_t len)
{
    out->why[0] = '\0';
    if (given) {
        out->cfg = *given;
        out->kchunk = given_kchunk ? given_kchunk : chunk;
        snprintf(out->why, sizeof out->why, "given");
    } else {
        const char *notice, *error;
        const tuned_table *t = tuned_table_load(&notice, &error);
        if (!t) {
            snprintf(err, len, "no tuned table could be read (06_tuning/tables; make tune writes one): %s", error);
            return -1;
        }
        if (tuned_choose(t, n, batch, chunk == 1, &out->cfg, &out->kchunk, out->why, sizeof out->why) != 0) {
            snprintf(err, len, "%s", out->why);
            return -1;
        }
    }
    /* The layout: 0 in the table means interleaved; a kernel that reads row-major only gets it; data
     * already in a layout of their own are factored in it (no conversion there and back). */
    if (out->kchunk == 0 || out->kchunk > batch) out->kchunk = batch;
    const batched_kernel_ops *ops = family_ops(out->cfg.kernel);
    if (ops && (ops->uses & BATCHED_ROWMAJOR_ONLY)) out->kchunk = 1;
    else if (chunk != 1 && out->kchunk != chunk) out->kchunk = chunk;
    if (family_config_check(&out->cfg, n, err, len) != 0) return -1;
    /* The cyclic kernel's variant, when not given: its rules' choice for this batch. */
    if (out->cfg.kernel == BATCHED_CYCLIC && out->cfg.unroll == 0)
        out->cfg.unroll = cyclic_variant_choose(out->cfg.threads, out->cfg.per_block, n, batch);
    if (out->cfg.kernel == BATCHED_GRID) {
        out->group = grid_group_size(n, batch);
        grid_policy_choose(n, out->group, forced, &out->grid);
        /* Precision high: the one-pass TF32 updates where the tensor cores would run three products; fp32
         * updates stay (the smaller shapes, where they are the faster path anyway). Medium: the
         * same, with the warpgroup bulk in fp16 where there is one (else high's). */
        if (precision != CHOLESKY_PRECISION_HIGHEST && grid_math_accurate_tensor(out->grid.math)) {
            const grid_math reduced =
                precision == CHOLESKY_PRECISION_MEDIUM && grid_split_workspace_bytes(GRID_F16, n, out->group, forced)
                    ? GRID_F16
                    : GRID_TF32;
            grid_policy_for(out->grid.mode, reduced, n, out->group, forced, &out->grid);
        }
    }
    return 0;
}

/* The float64 rule, from the float64 sweep (make bench-float64, H200; 06 README, "float64"): one matrix
 * a block, one warp a matrix (4 x 8 threads) up to n = 64 unless the 8 x 8 grid pads fewer columns
 * (n = 33..40 and 49..56: its slots end at 40 and 56, the warp's at 48 and 64), 8 x 8 threads at
 * n = 65..96 (A = 9..12: four to six matrices an SM where 8 x 16 threads fit two or three), 8 x 16
 * threads beyond in layouts other than row-major. Two or four matrices a block never won by more
 * than a few percent. Row-major n = 73..128 takes the tensor-core kernel (dmma_batched_f64.cu):
 * 1.02-1.5x the cyclic kernel there at 1 GiB; at n = 65..72 it is ahead at 1024 matrices only (from
 * 2048 on the cyclic kernel is, 0.85x at 1 GiB), so the cyclic kernel keeps those (06 LIMITS). */
static int f64_threads(int n)
{
    if (n > 96) return 128;
    if (n > 64) return 64;
    const int warp = n <= 16 ? 16 : n <= 24 ? 24 : n <= 32 ? 32 : n <= 48 ? 48 : 64; /* 4 x 8: slots of 8 columns */
    const int grid = (n + 7) / 8 * 8;                                                /* 8 x 8: A = 5..8 */
    return n > 32 && grid < warp ? 64 : 32;
}

/* Two matrices a warp (4 x 4 threads each, two a block; four up to n = 12) at n <= 20, and at n <= 48
 * where the batch is several waves of blocks: each matrix then takes half the warp's steps, and large
 * batches of small n were short of steps, not bytes. On one wave (1024 matrices) a matrix's own chain
 * of steps is the time, and one warp a matrix keeps that shorter from n = 21 on. Row-major data only:
 * that is what was timed and tested. The measurements: 06 README, "float64", and
 * results/float64_small_n_scan_h200.csv. */
static batched_config f64_cyclic_config(int n, size_t batch, size_t chunk)
{
    if (chunk == 1 && (n <= 20 || (n <= 48 && batch >= 4096))) {
        const batched_config c = CYCLIC_CONFIG(16, n <= 12 ? 4 : 2);
        return c;
    }
    const batched_config c = CYCLIC_CONFIG(f64_threads(n), 1);
    return c;
}

int cholesky_policy_choose_f64(int n, size_t batch, size_t chunk, const batched_config *given, cholesky_choice *out,
                               char *err, size_t len)
{
    out->kchunk = chunk;
    out->group = 0;
    if (given) {
        out->cfg = *given;
        snprintf(out->why, sizeof out->why, "given");
    } else if (n > 72 && n <= DMMA_F64_MAX_N && chunk == 1) {
        const batched_config c = DMMA_CONFIG;
        out->cfg = c;
        snprintf(out->why, sizeof out->why,
                 "dmma in float64 (a matrix a block in shared memory, panels of 16 columns, the updates on the FP64 "
                 "tensor cores; the float64 rule: row-major n = 73 .. 128)");
    } else if (n <= cyclic_f64_max_n(128)) {
        out->cfg = f64_cyclic_config(n, batch, chunk);
        snprintf(out->why, sizeof out->why,
                 out->cfg.threads == 16
                     ? "cyclic T=16 x%d in float64 (the float64 rule: two matrices a warp where the batch is large or "
                       "n <= 20)"
                     : "cyclic T=%d x1 in float64 (the float64 rule: the grid that pads n least)",
                 out->cfg.threads == 16 ? out->cfg.per_block : out->cfg.threads);
    } else {
        const batched_config c = GRID_CONFIG(1);
        out->cfg = c;
        snprintf(out->why, sizeof out->why,
                 "whole GPU in float64: 64 x 64 tile tasks, right-looking, the panel as a product with the diagonal "
                 "tile's inverse, updates on the FP64 tensor cores");
    }
    if (out->cfg.kernel == BATCHED_CYCLIC) {
        const int t = out->cfg.threads, most = cyclic_f64_max_n(t);
        if (most < n || out->cfg.per_block < 1 || out->cfg.per_block * t > 256) {
            snprintf(err, len, "cyclic T=%d x%d in float64: takes n <= %d (T = 16, 32, 64, 128) and per_block T <= 256",
                     t, out->cfg.per_block, most);
            return -1;
        }
    } else if (out->cfg.kernel == BATCHED_GRID) {
        if (chunk != 1) {
            snprintf(err, len, "float64 at n = %d takes row-major data (chunk 0 or 1; the whole-GPU path)", n);
            return -1;
        }
    } else if (out->cfg.kernel == BATCHED_DMMA) {
        if (chunk != 1 || n > DMMA_F64_MAX_N) {
            snprintf(err, len, "dmma in float64: takes row-major data (chunk 0 or 1) and n <= %d", DMMA_F64_MAX_N);
            return -1;
        }
    } else {
        snprintf(err, len, "float64 runs the cyclic kernel, the dmma kernel or the whole-GPU path only");
        return -1;
    }
    return 0;
}
