/* bench_float64.c - `make bench-float64`: the door in float64 (cholesky_options.dtype) against
 * cuSOLVER's float64 in the same run, on the same matrices.
 *   batched   n = 20 .. 128 at 1024 matrices (the classroom size, in L2) and at 1 GiB (past the L2):
 *             every float64 cyclic configuration (the float64 sweep: threads per matrix x matrices per
 *             block) and the tensor-core kernel, the plan's own choice, cusolverDnDpotrfBatched and
 *             the copy roofline
 *   large     one matrix of n = 256 .. 32768 (and gpu-mode's batched large shapes): the whole-GPU tile
 *             tasks against cusolverDnDpotrf, with the FP64 rate each reaches
 * Protocol (common/timing.h): the input restored from a pristine copy before each run, median of 7
 * after 2 warm-ups, device events. The plan's result is verified after timing: every info 0 and
 * up to 4 matrices against the long double reference (n <= 1024), else sampled residuals against
 * float64's bound. Rows go to $BENCH_CSV (stage "float64"). BENCH_MAX_N=N leaves out larger n;
 * BENCH_PART=batched|large runs one part; BENCH_NS and BENCH_SIZES choose the batched part's shapes.
 *
 *   make build/06_tuning/bench_float64 && build/06_tuning/bench_float64 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cusolverDn.h>
#include "checks.h"
#include "cholesky_plan_internal.h"
#include "cli.h"
#include "cuda_check.h"
#include "cyclic_f64.h"
#include "dmma_batched_f64.h"
#include "family.h"
#include "generator.h"
#include "host_alloc.h"
#include "report.h"
#include "timing.h"

typedef struct {
    cholesky_plan *plan;
    void *d_work;
    double *d_A, **d_ptrs, *d_lwork;
    int *d_info, n, lwork;
    size_t batch;
    cusolverDnHandle_t handle;
} run_ctx;

static void run_plan(void *p)
{
    run_ctx *c = p;
    if (cholesky_execute_f64(c->plan, c->d_A, c->d_A, c->d_info, c->d_work, cudaStreamLegacy) != CHOLESKY_SUCCESS) {
        fprintf(stderr, "cholesky_execute_f64: %s\n", cholesky_last_error());
        exit(2);
    }
}

/* cuSOLVER's float64 (row-major lower = column-major upper, as common/cusolver_oracle.c explains). */
static void run_cusolver(void *p)
{
    run_ctx *c = p;
    if (c->batch == 1)
        CUSOLVER_CHECK(
            cusolverDnDpotrf(c->handle, CUBLAS_FILL_MODE_UPPER, c->n, c->d_A, c->n, c->d_lwork, c->lwork, c->d_info));
    else
        CUSOLVER_CHECK(cusolverDnDpotrfBatched(c->handle, CUBLAS_FILL_MODE_UPPER, c->n, c->d_ptrs, c->n, c->d_info,
                                               (int)c->batch));
}

/* `batch` float64 SPD matrices (the generator's, widened, with float64 noise below float32's last bit). */
static double *make_host(int n, size_t batch)
{
    const size_t nn = (size_t)n * n;
    float *f = host_alloc(batch * nn * sizeof(float), "the float matrices");
    double *A = host_alloc(batch * nn * sizeof(double), "the float64 matrices");
    const gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    gen_batch_host(&p, n, 0, batch, f);
#pragma omp parallel for
    for (long long e = 0; e < (long long)(batch * nn); e++) {
        const size_t i = (size_t)e % nn / n, j = (size_t)e % n;
        A[e] = f[e] + (i == j ? 0.0 : 1e-9 / (double)(1 + i + j));
    }
    free(f);
    return A;
}

/* Every info 0 and the first and last matrix: against the long double reference up to n = 1024, by
 * sampled residuals beyond. */
static int verify(int n, size_t batch, const double *A, const double *d_L, const int *d_info)
{
    const size_t nn = (size_t)n * n;
    int *info = host_alloc(batch * sizeof(int), "infos");
    CUDA_CHECK(cudaMemcpy(info, d_info, batch * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t b = 0; b < batch; b++)
        if (info[b]) {
            fprintf(stderr, "  result check: matrix %zu has info %d (all are SPD)\n", b, info[b]);
            free(info);
            return 0;
        }
    free(info);
    double *L = host_alloc(nn * sizeof(double), "a factor");
    int ok = 1;
    for (size_t k = 0; ok && k < (batch > 1 ? 2u : 1u); k++) {
        const size_t b = k ? batch - 1 : 0;
        char detail[256];
        CUDA_CHECK(cudaMemcpy(L, d_L + b * nn, nn * sizeof(double), cudaMemcpyDeviceToHost));
        if (n <= 1024) {
            factor_check r;
            check_factor_d(n, A + b * nn, L, 0, &r);
            ok = r.ok;
            snprintf(detail, sizeof detail, "%s", r.detail);
        } else ok = check_sampled_residual_d(n, A + b * nn, L, 4096, detail, sizeof detail, NULL);
        if (!ok) fprintf(stderr, "  result check: matrix %zu: %s\n", b, detail);
    }
    free(L);
    return ok;
}

/* Time one plan (given: a configuration by hand, NULL: the plan's own) on the context's matrices. */
static timing_stats time_plan(run_ctx *c, const batched_config *given, const double *d_pristine, size_t bytes,
                              char *name, size_t len)
{
    cholesky_options o = CHOLESKY_OPTIONS_INIT;
    o.dtype = CHOLESKY_FLOAT64;
    const cholesky_internal_options in = {given, 0, 0, NULL};
    char err[256];
    timing_stats t = {0};
    if (cholesky_plan_create_internal(&c->plan, c->n, c->batch, &o, &in, err, sizeof err) != CHOLESKY_SUCCESS) {
        snprintf(name, len, "refused: %.140s", err);
        return t;
    }
    const batched_config *cfg = cholesky_plan_config(c->plan, NULL);
    if (cfg->kernel == BATCHED_CYCLIC) snprintf(name, len, "cyclic T=%d x%d float64", cfg->threads, cfg->per_block);
    else if (cfg->kernel == BATCHED_DMMA) snprintf(name, len, "dmma float64");
    else snprintf(name, len, "whole GPU float64");
    c->d_work = NULL;
    if (cholesky_plan_workspace_bytes(c->plan))
        CUDA_CHECK(cudaMalloc(&c->d_work, cholesky_plan_workspace_bytes(c->plan)));
    t = time_gpu_restoring(run_plan, c, c->d_A, d_pristine, bytes);
    if (c->d_work) CUDA_CHECK(cudaFree(c->d_work));
    cholesky_plan_destroy(c->plan);
    return t;
}

static void bench_shape(const env_stamp *e, int n, size_t batch, int sweep)
{
    const size_t bytes = batch * (size_t)n * n * sizeof(double);
    run_ctx c = {0};
    c.n = n;
    c.batch = batch;
    double *A = make_host(n, batch), *d_pristine;
    CUDA_CHECK(cudaMalloc((void **)&d_pristine, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_info, batch * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_pristine, A, bytes, cudaMemcpyHostToDevice));
    const double t_copy = time_copy_roofline(bytes, 5).median_ms;
    /* cuSOLVER */
    CUSOLVER_CHECK(cusolverDnCreate(&c.handle));
    if (batch == 1) {
        CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(c.handle, CUBLAS_FILL_MODE_UPPER, n, c.d_A, n, &c.lwork));
        CUDA_CHECK(cudaMalloc((void **)&c.d_lwork, (size_t)(c.lwork > 0 ? c.lwork : 1) * sizeof(double)));
    } else {
        double **ptrs = host_alloc(batch * sizeof(double *), "pointer array");
        for (size_t b = 0; b < batch; b++) ptrs[b] = c.d_A + b * (size_t)n * n;
        CUDA_CHECK(cudaMalloc((void **)&c.d_ptrs, batch * sizeof(double *)));
        CUDA_CHECK(cudaMemcpy(c.d_ptrs, ptrs, batch * sizeof(double *), cudaMemcpyHostToDevice));
        free(ptrs);
    }
    timing_stats tc = time_gpu_restoring(run_cusolver, &c, c.d_A, d_pristine, bytes);
    tc.verified = TIMING_REFERENCE;
    report_row(e, "float64", batch == 1 ? "cusolverDnDpotrf" : "cusolverDnDpotrfBatched", n, batch, tc, tc.median_ms,
               t_copy);
    CUSOLVER_CHECK(cusolverDnDestroy(c.handle));
    if (c.d_lwork) CUDA_CHECK(cudaFree(c.d_lwork));
    if (c.d_ptrs) CUDA_CHECK(cudaFree(c.d_ptrs));
    char name[160], variant[200];
    double best = 0;
    char best_name[160] = "";
    if (sweep) /* every configuration the float64 cyclic kernel has for n */
        for (int T = 16; T <= 256; T *= 2)
            for (int per = 1; per * T <= 256; per *= 2) {
                if (cyclic_f64_max_n(T) < n) continue;
                const batched_config cfg = CYCLIC_CONFIG(T, per);
                timing_stats t = time_plan(&c, &cfg, d_pristine, bytes, name, sizeof name);
                if (!t.repeats) continue;
                t.verified = verify(n, batch, A, c.d_A, c.d_info) ? TIMING_VERIFIED : TIMING_WRONG;
                snprintf(variant, sizeof variant, "sweep %s", name);
                report_row(e, "float64", variant, n, batch, t, tc.median_ms, t_copy);
                if (t.verified == TIMING_VERIFIED && (!best || t.median_ms < best))
                    best = t.median_ms, snprintf(best_name, sizeof best_name, "%s", name);
            }
    if (sweep && n <= DMMA_F64_MAX_N) { /* and the tensor-core kernel */
        const batched_config cfg = DMMA_CONFIG;
        timing_stats t = time_plan(&c, &cfg, d_pristine, bytes, name, sizeof name);
        if (t.repeats) {
            t.verified = verify(n, batch, A, c.d_A, c.d_info) ? TIMING_VERIFIED : TIMING_WRONG;
            snprintf(variant, sizeof variant, "sweep %s", name);
            report_row(e, "float64", variant, n, batch, t, tc.median_ms, t_copy);
            if (t.verified == TIMING_VERIFIED && (!best || t.median_ms < best))
                best = t.median_ms, snprintf(best_name, sizeof best_name, "%s", name);
        }
    }
    timing_stats t = time_plan(&c, NULL, d_pristine, bytes, name, sizeof name);
    t.verified = t.repeats && verify(n, batch, A, c.d_A, c.d_info) ? TIMING_VERIFIED : TIMING_WRONG;
    snprintf(variant, sizeof variant, "auto (row-major) %s", name);
    report_row(e, "float64", variant, n, batch, t, tc.median_ms, t_copy);
    if (t.repeats)
        printf("  n = %d, %zu matrices: auto %.4f ms, %.2fx cuSOLVER, %.0f %% of the copy roofline, %.2f TFLOP/s%s%s\n",
               n, batch, t.median_ms, tc.median_ms / t.median_ms, 100 * t_copy / t.median_ms,
               potrf_flops(n) * batch / (t.median_ms * 1e9), best ? "; the sweep's best: " : "", best_name);
    CUDA_CHECK(cudaFree(d_pristine));
    CUDA_CHECK(cudaFree(c.d_A));
    CUDA_CHECK(cudaFree(c.d_info));
    free(A);
}

#define USAGE                                                                                      \
    "usage: bench_float64   (float64 through the door against cuSOLVER, set by the environment)\n" \
    "  BENCH_PART=batched|large   one part (default both)\n"                                       \
    "  BENCH_MAX_N=N              leave out larger n (default 32768)\n"                            \
    "  BENCH_NS=\"97 98\"           the batched part's orders, 1..128 (at most 40)\n"              \
    "  BENCH_SIZES=1|2|3          the batched part at 1024 matrices (1), 1 GiB (2) or both (3)\n"  \
    "  BENCH_CSV=FILE             append the rows there (default build/bench.csv)\n"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv, USAGE);
    env_stamp e;
    if (!bench_begin_gpu("float64", &e)) return 0;
    const long long max_n = cli_env_ll("BENCH_MAX_N", 1, 65536, 32768);
    const char *part = getenv("BENCH_PART");
    if (!part || !strcmp(part, "batched")) {
        static const int default_ns[] = {20, 24, 32, 40, 48, 56, 64, 72, 80, 96, 100, 112, 128};
        int ns[40], count = cli_env_ints("BENCH_NS", 1, 128, ns, 40);
        if (!count)
            for (size_t k = 0; k < sizeof default_ns / sizeof default_ns[0]; k++) ns[count++] = default_ns[k];
        const long long sizes = cli_env_ll("BENCH_SIZES", 1, 3, 3); /* 1: 1024 matrices, 2: 1 GiB, 3: both */
        for (int k = 0; k < count; k++) {
            if (ns[k] > max_n) continue;
            if (sizes & 1) bench_shape(&e, ns[k], 1024, 1);
            if (sizes & 2) bench_shape(&e, ns[k], ((size_t)1 << 30) / ((size_t)ns[k] * ns[k] * sizeof(double)), 1);
        }
    }
    if (!part || !strcmp(part, "large")) {
        static const struct {
            int n;
            size_t batch;
        } large[] = {{256, 64}, {512, 16}, {1024, 4}, {2048, 2}, {4096, 1}, {8192, 1}, {16384, 1}, {32768, 1}};
        for (size_t k = 0; k < sizeof large / sizeof large[0]; k++)
            if (large[k].n <= max_n) bench_shape(&e, large[k].n, large[k].batch, 0);
    }
    return 0;
}
