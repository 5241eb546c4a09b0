/* bench_gpumode.c - `make bench-gpumode`: every shape of the public benchmark for exactly our
 * problem, gpu-mode's reference-kernels linalg/cholesky_py (fp32, batch x n x n, row-major, ranked
 * by the geometric mean of the times over the grid), with `--kernel auto` against cuSOLVER in the
 * same run on the same matrices, through the one door (cholesky_plan.h) as every user goes: the
 * plan is made once per shape, outside the timing. frameworks.py --gpumode adds torch, cupy and jax to the same CSV,
 * and gpumode_table.py prints the table with the geometric means.
 *
 *   build/06_tuning/bench_gpumode                  the whole grid (n = 32 .. 32768)
 *   BENCH_MAX_N=4096 build/06_tuning/bench_gpumode  leave out the larger single matrices
 *
 * Protocol (common/timing.h): the input restored from a pristine copy and the L2 flushed before
 * each run, median of 7 after 2 warm-ups, device events. Every auto result is verified after
 * timing: every info 0 and, up to n = 1024, 4 matrices against the float64 reference; past it, the
 * first and the last matrix by 4096 sampled entries of A - L L^T (an O(n^3) float64 reference of
 * n = 32768 would take hours on the CPU). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cholesky_plan_internal.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "family.h"
#include "generator.h"
#include "gpu_batch.h"
#include "host_alloc.h"
#include "report.h"
#include "timing.h"
#include "tuned.h"

/* The grid of the leaderboard, as (batch, n). */
static const struct {
    size_t batch;
    int n;
} shapes[] = {
    {4096, 32}, {1024, 64}, {256, 128}, {64, 256}, {16, 512}, {640, 512}, {4, 1024},  {60, 1024},
    {2, 2048},  {8, 2048},  {1, 4096},  {2, 4096}, {1, 8192}, {1, 16384}, {1, 32768},
};
#define NSHAPES ((int)(sizeof shapes / sizeof *shapes))

typedef struct {
    cholesky_plan *plan;
    void *d_work;
    int n;
    size_t batch;
    float *d_A;
    int *d_info;
    oracle_batched ob;
    oracle_single os;
} run_ctx;

static void run_auto(void *p)
{
    run_ctx *c = p;
    if (cholesky_execute(c->plan, c->d_A, c->d_A, c->d_info, c->d_work, cudaStreamLegacy) != CHOLESKY_SUCCESS) {
        fprintf(stderr, "cholesky_execute: %s\n", cholesky_last_error());
        exit(2);
    }
}

static void run_cusolver(void *p)
{
    run_ctx *c = p;
    if (c->batch == 1) oracle_single_run(&c->os);
    else oracle_batched_run(&c->ob);
}

/* Every info 0, and the first and last matrix checked against the generator: fp32-accurate (high 0)
 * by sampled residuals, precision high (high 1) by gpu-mode's normwise residual (every row up to
 * n = 2048, then every (n/64+1)-th: a lower estimate), its worst in *worst. */
static int verify_large(const gen_params *p, int n, size_t batch, const float *d_L, const int *d_info, int high,
                        double *worst)
{
    *worst = 0;
    size_t failed = count_nonzero_device(d_info, batch);
    if (failed) {
        fprintf(stderr, "  result check: %zu matrices report info != 0 (all are SPD)\n", failed);
        return 0;
    }
    const size_t nn = (size_t)n * n;
    float *A = host_alloc(nn * sizeof(float), "the sampled matrix"), *L = host_alloc(nn * sizeof(float), "its factor");
    int ok = 1;
    for (size_t k = 0; ok && k < (batch > 1 ? 2u : 1u); k++) {
        const size_t b = k ? batch - 1 : 0;
        char detail[256];
        gen_batch_host(p, n, b, 1, A);
        CUDA_CHECK(cudaMemcpy(L, d_L + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
        if (high) {
            const double r = residual_norm1_ratio(n, A, L, n <= 2048 ? 1 : n / 64 + 1);
            if (!(r <= *worst)) *worst = r;
            ok = r <= NORMWISE_BOUND(n);
            snprintf(detail, sizeof detail, "||A - L L^T||_1 / ||A||_1 = %.3g > %.3g", r, NORMWISE_BOUND(n));
        } else ok = check_sampled_residual(n, A, L, 4096, detail, sizeof detail, NULL);
        if (!ok) fprintf(stderr, "  result check: matrix %zu: %s\n", b, detail);
    }
    free(A);
    free(L);
    return ok;
}

static void bench_shape(const env_stamp *e, const tuned_table *t, int n, size_t batch)
{
    const size_t bytes = batch * (size_t)n * n * sizeof(float);
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.batch = batch;
    char why[256], variant[160], name[96];
    (void)t;
    const grid_overrides forced = grid_overrides_env(); /* GRID_* by hand, to compare (grid_program.c) */
    const cholesky_internal_options in = {NULL, 0, 0, &forced};
    if (cholesky_plan_create_internal(&c.plan, n, batch, NULL, &in, why, sizeof why) != 0) {
        printf("gpumode %zu x %d: no plan: %s\n", batch, n, why);
        return;
    }
    size_t kchunk;
    const batched_config *cfg = cholesky_plan_config(c.plan, &kchunk);
    printf("# %s\n", cholesky_plan_explain(c.plan));
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (2 * bytes + (256u << 20) > free_b) { /* the pristine copy, the work copy, cuSOLVER's workspace */
        printf("gpumode %zu x %d: %.2f GiB do not fit twice in the %.2f GiB free: skipped\n", batch, n,
               bytes / 1073741824.0, free_b / 1073741824.0);
        cholesky_plan_destroy(c.plan);
        return;
    }
    float *d_pristine;
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    CUDA_CHECK(cudaMalloc((void **)&d_pristine, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_info, batch * sizeof(int)));
    if (cholesky_plan_workspace_bytes(c.plan)) CUDA_CHECK(cudaMalloc(&c.d_work, cholesky_plan_workspace_bytes(c.plan)));
    gen_batch_device(&p, n, 0, batch, 1, d_pristine);
    const double t_copy = time_copy_roofline(bytes, 5).median_ms;

    if (batch == 1) oracle_single_setup(&c.os, n, c.d_A);
    else oracle_batched_setup(&c.ob, n, c.d_A, batch);
    timing_stats tc = time_gpu_restoring(run_cusolver, &c, c.d_A, d_pristine, bytes);
    tc.verified = TIMING_REFERENCE;
    if (batch == 1) oracle_single_teardown(&c.os);
    else oracle_batched_teardown(&c.ob);

    timing_stats ta = time_gpu_restoring(run_auto, &c, c.d_A, d_pristine, bytes);
    double worst;
    ta.verified = (n <= 1024 ? verify_generated_batch(&p, n, batch, 1, c.d_A, c.d_info, 4, "  result check")
                             : verify_large(&p, n, batch, c.d_A, c.d_info, 0, &worst))
                      ? TIMING_VERIFIED
                      : TIMING_WRONG;
    report_row(e, "gpumode", batch == 1 ? "cusolverDnSpotrf" : "cusolverDnSpotrfBatched", n, batch, tc, tc.median_ms,
               t_copy);
    snprintf(variant, sizeof variant, "auto (row-major) %s%s", family_config_name(cfg, name, sizeof name),
             kchunk == 1 ? "" : " converted");
    report_row(e, "gpumode", variant, n, batch, ta, tc.median_ms, t_copy);
    /* Precision high and medium, where they change what runs (the whole-GPU shapes with tensor-core
     * updates; medium: with the warpgroup bulk, on a Hopper GPU). */
    static const struct {
        cholesky_precision precision;
        const char *name, *runs;
    } reduced[] = {{CHOLESKY_PRECISION_HIGH, "high", "precision high: one TF32"},
                   {CHOLESKY_PRECISION_MEDIUM, "medium", "precision medium: the warpgroup bulk in fp16"}};
    for (int r = 0; r < 2; r++) {
        cholesky_options o = CHOLESKY_OPTIONS_INIT;
        o.precision = reduced[r].precision;
        cholesky_plan *fast = NULL;
        if (cholesky_plan_create_internal(&fast, n, batch, &o, &in, why, sizeof why) == 0 &&
            strstr(cholesky_plan_explain(fast), reduced[r].runs)) {
            void *fast_work = NULL;
            if (cholesky_plan_workspace_bytes(fast))
                CUDA_CHECK(cudaMalloc(&fast_work, cholesky_plan_workspace_bytes(fast)));
            run_ctx h = c;
            h.plan = fast;
            h.d_work = fast_work;
            timing_stats th = time_gpu_restoring(run_auto, &h, c.d_A, d_pristine, bytes);
            th.verified = verify_large(&p, n, batch, c.d_A, c.d_info, 1, &worst) ? TIMING_VERIFIED : TIMING_WRONG;
            printf("  precision %s: ||A - L L^T||_1 / ||A||_1 = %.3g (bound 20 n eps = %.3g), %.2fx the "
                   "fp32-accurate time\n",
                   reduced[r].name, worst, NORMWISE_BOUND(n), th.median_ms / ta.median_ms);
            snprintf(variant, sizeof variant, "precision %s (row-major) %s", reduced[r].name,
                     family_config_name(cfg, name, sizeof name));
            report_row(e, "gpumode", variant, n, batch, th, tc.median_ms, t_copy);
            if (fast_work) CUDA_CHECK(cudaFree(fast_work));
        }
        cholesky_plan_destroy(fast);
    }
    CUDA_CHECK(cudaFree(d_pristine));
    CUDA_CHECK(cudaFree(c.d_A));
    CUDA_CHECK(cudaFree(c.d_info));
    if (c.d_work) CUDA_CHECK(cudaFree(c.d_work));
    cholesky_plan_destroy(c.plan);
}

#define USAGE                                                                              \
    "usage: bench_gpumode   (the gpu-mode Cholesky grid, configured by the environment)\n" \
    "  BENCH_MAX_N=N     leave out the shapes of larger n (default: all, up to 32768)\n"   \
    "  BENCH_CSV=FILE    append the rows there (default build/bench.csv)\n"                \
    "  TUNED_TABLE=FILE  the tuned table (default: this GPU's)\n"

int main(int argc, char **argv)
{
    tuned_env_apply(); /* TUNED_TABLE, TUNED_TABLES: the tuned table by hand (tuned_env.c) */
    cli_no_arguments(argc, argv, USAGE);
    env_stamp e;
    if (!bench_begin_gpu("gpumode", &e)) return 0;
    const tuned_table *t = tuned_table_default();
    if (!t) return 2;
    const long long max_n = cli_env_ll("BENCH_MAX_N", 1, 65536, 65536);
    printf("# tuned table %s, measured on %s (commit %s)\n", t->path, t->gpu, t->commit);
    for (int s = 0; s < NSHAPES; s++)
        if (shapes[s].n <= max_n) bench_shape(&e, t, shapes[s].n, shapes[s].batch);
    return 0;
}
