/* bench_grid.c - stage 03, part 2 benchmark: one matrix of order n = 16 .. 16384 on the whole GPU
 * (potrf_grid: every launch mode in fp32, and the look-ahead, pairs and quads with the tensor-core
 * updates, tf32x3) against cusolverDnSpotrf and cusolverDnXpotrf on the same matrix (handles and
 * workspaces set up outside the timed region) and, up to n = 1024, the single-block kernel of
 * part 1 (left-looking, NB = 32). Each result is checked after it was timed: float64 on 4 samples
 * up to n = 1024 (verify_sampled_device), check_sampled_residual (1024 entries of A - L L^T) at
 * every n; the worst of those residuals is printed per row, so both maths' accuracy shows.
 *   BENCH_NS="1024 8192"   the orders (default 16 32 64 100 128 256 512 1024 2048 4096 8192 16384)
 *   BENCH_CSV=FILE          where the rows go (default build/bench.csv) */
#include <stdio.h>
#include <stdlib.h>
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "grid_cholesky.h"
#include "grid_tasks.h"
#include "host_alloc.h"
#include "report.h"
#include "tiled_cholesky.h"

typedef struct {
    grid_mode mode;
    grid_math math;
    int n;
    float *d_L, *d_work;
    int *d_info;
} grid_ctx;

static void run_grid(void *p)
{
    grid_ctx *c = p;
    if (potrf_grid_math(c->mode, c->math, c->n, 1, c->d_L, c->d_work, c->d_info) != 0) exit(2);
}

static void run_single_block(void *p)
{
    grid_ctx *c = p;
    if (potrf_tiled(LOOK_LEFT, 32, c->n, c->d_L, c->d_info) != 0) exit(2);
}

/* Check what the last timed run left in d_L (input A on the host); print the worst sampled residual. */
static int verified(int n, const float *A, const float *d_A, const grid_ctx *c, const char *variant)
{
    if (!grid_math_reduced(c->math) && n <= 1024 && !verify_sampled_device(n, 1, d_A, c->d_L, c->d_info))
        return TIMING_WRONG;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *L = host_alloc(bytes, "the factor to check");
    int info;
    char detail[256];
    double worst = 0;
    CUDA_CHECK(cudaMemcpy(L, c->d_L, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&info, c->d_info, sizeof info, cudaMemcpyDeviceToHost));
    if (grid_math_reduced(
            c->math)) { /* precision high or medium: gpu-mode's normwise residual, not fp32's componentwise one */
        const double r = info ? -1 : residual_norm1_ratio(n, A, L, n <= 2048 ? 1 : n / 64 + 1);
        const int ok = info == 0 && r <= NORMWISE_BOUND(n);
        printf("  accuracy n=%d %s: ||A - L L^T||_1 / ||A||_1 = %.3g (= %.2f n eps; bound 20 n eps)%s\n", n, variant, r,
               r / (n * 1.1920929e-7), ok ? "" : " WRONG");
        free(L);
        return ok ? TIMING_VERIFIED : TIMING_WRONG;
    }
    int ok = info == 0 && check_sampled_residual(n, A, L, 1024, detail, sizeof detail, &worst);
    if (!ok) fprintf(stderr, "n = %d: info %d, %s\n", n, info, info ? "want 0" : detail);
    else
        printf("  accuracy n=%d %s: worst sampled |A - L L^T|_ij / (|l_i| |l_j|) = %.3g (= %.2f n eps)\n", n, variant,
               worst, worst / (n * 1.1920929e-7));
    free(L);
    return ok ? TIMING_VERIFIED : TIMING_WRONG;
}

/* The bulk update alone, as the quads run it from n = 4096 on: the trailing triangle from column
 * K minus the product of the panel of 4 tiles (K = 256; BENCH_UPDATE_PANELS for others), on the
 * tensor cores (tf32x3 and one pass), with mma.sync and, on a Hopper, with the warpgroup MMA (its
 * panel split included). TFLOP/s in fp32 terms: 2 K m (m + 1) / 2 flops for the m x m triangle.
 * The matrix is updated again at every run (the values do not change the time). */
typedef struct {
    grid_plan plan;
    int panels; /* K = panels T: 4 unless BENCH_UPDATE_PANELS says */
} update_ctx;

static void run_update(void *p)
{
    update_ctx *u = p;
    if (u->plan.split) grid_split_forget(u->plan.split); /* the split every time, as in a factorization */
    CALL_CHECK(launch_update_group_tasks(&u->plan, 0, u->panels, u->panels, u->plan.nt, cudaStreamLegacy));
}

static void bench_update(int n, int panels, float *d_A, int *d_info)
{
    const int K = panels * GRID_TILE, m = n - K;
    const double flops = 2.0 * K * m * (m + 1.0) / 2;
    /* fp32-accurate (three TF32, three fp16 products), precision high, precision medium (fp16 on the
     * warpgroup MMA; TF32's mma.sync without) */
    static const grid_math maths[] = {GRID_TF32X3, GRID_F16X3, GRID_TF32, GRID_F16};
    for (int k = 0; k < 4; k++) {
        update_ctx u = {{d_A, (size_t)n, n / GRID_TILE, d_info, 1, (size_t)n * n, maths[k], NULL, grid_rules_current()},
                        panels};
        grid_split split;
        timing_stats t = time_gpu(run_update, NULL, &u, 2, 10);
        printf("  update n=%d K=%d (%s): mma.sync %.3f ms = %.1f TFLOP/s", n, K, grid_math_name(maths[k]), t.median_ms,
               flops / (t.median_ms * 1e9));
        if (grid_wgmma_available()) {
            CALL_CHECK(grid_split_create(&split, grid_split_bytes(n, 1, GRID_MAX_PANELS)));
            u.plan.split = &split;
            t = time_gpu(run_update, NULL, &u, 2, 10);
            printf("; warpgroup MMA %.3f ms = %.1f TFLOP/s", t.median_ms, flops / (t.median_ms * 1e9));
            grid_split_destroy(&split);
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    cli_no_arguments(
        argc, argv,
        "usage: bench_grid   (stage 03 whole-GPU benchmark)\n"
        "  BENCH_NS=\"1024 8192\"   the orders, 1..32768 (default 16 32 64 100 128 256 512 1024 2048 4096 8192 16384)\n"
        "  BENCH_CSV=FILE         append the rows there (default build/bench.csv)\n"
        "  BENCH_UPDATE_ONLY=1    only the bulk update's line of each n (from 4096)\n"
        "  BENCH_UPDATE_PANELS=\"4 8 16\"  its K in tiles of 64 (default 4: K = 256)\n");
    int ns[16] = {16, 32, 64, 100, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}, count = 12;
    int given = cli_env_ints("BENCH_NS", 1, 32768, ns, 16);
    if (given) count = given;
    env_stamp e;
    if (!bench_begin_gpu("stage-3", &e)) return 0;
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    int panels[8] = {4}, npanels = cli_env_ints("BENCH_UPDATE_PANELS", 1, GRID_MAX_PANELS, panels, 8);
    if (!npanels) npanels = 1;
    const char *only = getenv("BENCH_UPDATE_ONLY");
    const int update_only = only && !strcmp(only, "1");
    for (int s = 0; s < count; s++) {
        int n = ns[s];
        if (update_only) {
            if (n < 4096 || n % GRID_TILE) continue;
            float *d_L;
            int *d_info;
            CUDA_CHECK(cudaMalloc((void **)&d_L, (size_t)n * n * sizeof(float)));
            CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
            CUDA_CHECK(cudaMemset(d_L, 0, (size_t)n * n * sizeof(float))); /* the values do not change the time */
            for (int k = 0; k < npanels; k++)
                if (n > panels[k] * GRID_TILE) bench_update(n, panels[k], d_L, d_info);
            CUDA_CHECK(cudaFree(d_L));
            CUDA_CHECK(cudaFree(d_info));
            continue;
        }
        size_t bytes = (size_t)n * n * sizeof(float);
        float *A = host_alloc(bytes, "the test matrix"), *d_A;
        gen_batch_host(&p, n, 0, 1, A);
        grid_ctx c = {GRID_STREAM, GRID_FP32, n, NULL, NULL, NULL};
        CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
        CUDA_CHECK(cudaMalloc((void **)&c.d_L, bytes));
        CUDA_CHECK(cudaMalloc((void **)&c.d_info, sizeof(int)));
        CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
        timing_stats tc = oracle_time_potrf(n, A);
        report_row(&e, "03", "cusolverDnSpotrf", n, 1, tc, tc.median_ms, 0);
        report_row(&e, "03", "cusolverDnXpotrf", n, 1, oracle_time_xpotrf(n, A), tc.median_ms, 0);
        if (n <= 1024) {
            timing_stats t = time_gpu_restoring(run_single_block, &c, c.d_L, d_A, bytes);
            t.verified = verified(n, A, d_A, &c, "one block");
            report_row(&e, "03", "one block left-looking NB=32", n, 1, t, tc.median_ms, 0);
        }
        size_t work = grid_workspace_bytes(n);
        c.d_work = NULL;
        if (work) CUDA_CHECK(cudaMalloc((void **)&c.d_work, work));
        /* Every mode in fp32, then the three look-aheads with the tensor-core updates, then the default
         * mode with three fp16 products (f16x3), one TF32 pass (precision high) and fp16 (medium), from
         * n = 1024, where the updates are worth it. */
        static const grid_mode tensor_modes[] = {GRID_LOOKAHEAD, GRID_PAIRS, GRID_QUADS};
        static const grid_math default_mode_maths[] = {GRID_F16X3, GRID_TF32, GRID_F16};
        for (int v = 0; v < GRID_MODE_COUNT + 6; v++) {
            if (v >= GRID_MODE_COUNT + 3 && n < 1024) break;
            c.mode = v < GRID_MODE_COUNT       ? (grid_mode)v
                     : v < GRID_MODE_COUNT + 3 ? tensor_modes[v - GRID_MODE_COUNT]
                                               : grid_default_mode(n);
            c.math = v < GRID_MODE_COUNT       ? GRID_FP32
                     : v < GRID_MODE_COUNT + 3 ? GRID_TF32X3
                                               : default_mode_maths[v - GRID_MODE_COUNT - 3];
            const int is_default = c.mode == grid_default_mode(n) && c.math == grid_default_math(n, 1);
            char variant[64];
            snprintf(variant, sizeof variant, "grid %s%s%s%s", grid_mode_name(c.mode), c.math == GRID_FP32 ? "" : " ",
                     c.math == GRID_FP32 ? "" : grid_math_name(c.math), is_default ? " (default)" : "");
            timing_stats t = time_gpu_restoring(run_grid, &c, c.d_L, d_A, bytes);
            t.verified = verified(n, A, d_A, &c, variant);
            report_row(&e, "03", variant, n, 1, t, tc.median_ms, 0);
        }
        if (n >= 4096 && n % GRID_TILE == 0)
            for (int k = 0; k < npanels; k++)
                if (n > panels[k] * GRID_TILE) bench_update(n, panels[k], c.d_L, c.d_info);
        if (c.d_work) CUDA_CHECK(cudaFree(c.d_work));
        CUDA_CHECK(cudaFree(d_A));
        CUDA_CHECK(cudaFree(c.d_L));
        CUDA_CHECK(cudaFree(c.d_info));
        free(A);
    }
    return 0;
}
