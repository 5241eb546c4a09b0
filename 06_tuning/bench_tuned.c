/* bench_tuned.c - `make bench-stage-6`: the tuned choice (--kernel auto) at every n next to
 * cusolverDnSpotrfBatched, the copy roofline and the best fixed configuration of stage 05, at
 * both batch classes: 1 GiB of matrices (past the L2) and 1024 matrices (the classroom size), and
 * the application path: auto's choice for row-major data, row-major in and out, conversions (if
 * its layout needs any) included, next to cuSolverDx (NVIDIA's device-side solver, the strongest
 * peer) on the same row-major matrices: its suggested configuration and the best of a sweep.
 * Then the time against the batch size, 1024 matrices up to a quarter of the GPU's memory, for
 * three orders. Every row is verified after timing (all infos 0, sampled matrices against the
 * float64 reference); the library and the copy are timed in the same run on the same matrices.
 *
 *   BENCH_NS="20 100"   the orders (default 20 30 ... 100, 64, 128; up to 1024)
 *   BENCH_SWEEP=0       leave out the batch-size sweep
 *   BENCH_DX=0          leave out cuSolverDx (make cusolverdx fetches libmathdx)
 *   BENCH_CSV=FILE      where the rows go (default build/bench.csv) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "cusolverdx_peer.h"
#include "cholesky_plan_internal.h"
#include "family.h"
#include "generator.h"
#include "gpu_batch.h"
#include "host_alloc.h"
#include "report.h"
#include "timing.h"
#include "tuned.h"

typedef struct {
    const batched_config *cfg;
    int n;
    size_t batch, chunk;
    float *d_work;
    int *d_info;
} run_ctx;

static void run_factor(void *p)
{
    run_ctx *c = p;
    if (family_launch(c->cfg, c->n, c->batch, c->chunk, c->d_work, c->d_work, c->d_info, cudaStreamLegacy) != 0)
        exit(2);
}

/* auto, as a user runs it: through the one door (cholesky_plan.h), in place on d_work, on the
 * legacy stream the timer records on. For row-major data the plan's conversions to its layout and
 * back (if it needs any) are part of the call. */
typedef struct {
    cholesky_plan *plan;
    float *d_work;
    int *d_info;
    void *d_ws;
} plan_ctx;

static void run_plan(void *p)
{
    plan_ctx *c = p;
    if (cholesky_execute(c->plan, c->d_work, c->d_work, c->d_info, c->d_ws, cudaStreamLegacy) != CHOLESKY_SUCCESS) {
        fprintf(stderr, "cholesky_execute: %s\n", cholesky_last_error());
        exit(2);
    }
}

/* The plan of auto for (n, batch) on data in `chunk`'s layout (1: row-major), with its workspace. */
static plan_ctx plan_auto(int n, size_t batch, size_t chunk, float *d_work, int *d_info)
{
    cholesky_options opt = CHOLESKY_OPTIONS_INIT;
    opt.chunk = chunk;
    plan_ctx c = {NULL, d_work, d_info, NULL};
    char err[256];
    const grid_overrides forced = grid_overrides_env(); /* GRID_* by hand, to compare (grid_program.c) */
    const cholesky_internal_options in = {NULL, 0, 0, &forced};
    if (cholesky_plan_create_internal(&c.plan, n, batch, &opt, &in, err, sizeof err) != 0) {
        fprintf(stderr, "bench_tuned: %s\n", err);
        exit(2);
    }
    const size_t ws = cholesky_plan_workspace_bytes(c.plan);
    if (ws) CUDA_CHECK(cudaMalloc(&c.d_ws, ws));
    return c;
}

static void plan_free(plan_ctx *c)
{
    if (c->d_ws) CUDA_CHECK(cudaFree(c->d_ws));
    cholesky_plan_destroy(c->plan);
}

/* cuSolverDx's sweep: threads per block (0: its suggestion) x matrices per block, those whose
 * matrices take at most 64 KiB of shared memory (one matrix always). */
static const int dx_threads[] = {0, 32, 64, 128, 256};
static const int dx_bpbs[] = {1, 2, 4, 8};
enum {
    DX_THREADS = sizeof dx_threads / sizeof dx_threads[0],
    DX_BPBS = sizeof dx_bpbs / sizeof dx_bpbs[0],
    DX_MAX_N = 128
};

static int dx_fits(int n, int bpb) { return bpb == 1 || (size_t)bpb * n * n * sizeof(float) <= 64 * 1024; }

/* Generate every kernel of the sweep for these orders, in parallel, before any timing. */
static void dx_prepare_all(const int *ns, int count)
{
    enum { MOST = 16 * (1 + DX_THREADS * DX_BPBS) };
    int cn[MOST], ct[MOST], cb[MOST], total = 0;
    for (int s = 0; s < count; s++) {
        if (ns[s] > DX_MAX_N) continue;
        cn[total] = ns[s]; /* its suggestion: threads and matrices per block */
        ct[total] = cb[total] = 0;
        total++;
        for (int t = 0; t < DX_THREADS; t++)
            for (int b = 0; b < DX_BPBS; b++)
                if (dx_fits(ns[s], dx_bpbs[b])) {
                    cn[total] = ns[s];
                    ct[total] = dx_threads[t];
                    cb[total++] = dx_bpbs[b];
                }
    }
    printf("# cuSolverDx: %d configurations to load (generated once, in parallel, then cached on disk)\n", total);
    fflush(stdout);
    dx_potrf_prepare(total, cn, ct, cb);
}

typedef struct {
    const dx_potrf_kernel *k;
    float *d_a;
    size_t batch;
    int *d_info;
} dx_ctx;

static void run_dx(void *p)
{
    dx_ctx *c = p;
    dx_potrf_run(c->k, c->d_a, c->batch, c->d_info);
}

/* cuSolverDx on the row-major batch at d_pristine (restored into d_work before every run): its
 * suggested configuration, then the best of the sweep. Each timed result is verified. */
static void bench_dx(const env_stamp *e, const gen_params *p, int n, size_t batch, const char *label,
                     const float *d_pristine, float *d_work, int *d_info, double t_cusolver, double t_copy)
{
    char why[512], variant[160], sweep[1024] = "";
    timing_stats best = {0};
    int best_threads = 0, best_bpb = 0, used = 0;
    for (int b = 0; b < DX_BPBS; b++)
        for (int t = -1; t < DX_THREADS; t++) { /* t = -1: all of cuSolverDx's suggestion */
            if (t >= 0 && !dx_fits(n, dx_bpbs[b])) continue;
            if (t == -1 && b > 0) continue;
            dx_potrf_kernel *k = dx_potrf_build(n, t < 0 ? 0 : dx_threads[t], t < 0 ? 0 : dx_bpbs[b], why, sizeof why);
            if (!k) {
                if (t <= 0) printf("# cuSolverDx n = %d: %s\n", n, why);
                continue;
            }
            int threads, bpb;
            dx_potrf_describe(k, &threads, &bpb);
            dx_ctx c = {k, d_work, batch, d_info};
            timing_stats tm = time_gpu_restoring(run_dx, &c, d_work, d_pristine, batch * n * n * sizeof(float));
            tm.verified = verify_generated_batch(p, n, batch, 1, d_work, d_info, 4, "cuSolverDx check after timing")
                              ? TIMING_VERIFIED
                              : TIMING_WRONG;
            dx_potrf_free(k);
            if (t == -1) {
                snprintf(variant, sizeof variant, "cuSolverDx suggested: %d threads x %d %s", threads, bpb, label);
                report_row(e, "stage-6", variant, n, batch, tm, t_cusolver, t_copy);
            }
            if (tm.verified != TIMING_VERIFIED) continue;
            size_t len = strlen(sweep);
            snprintf(sweep + len, sizeof sweep - len, " %dx%d:%.3g", threads, bpb, tm.median_ms);
            if (!used || tm.median_ms < best.median_ms) {
                best = tm;
                best_threads = threads;
                best_bpb = bpb;
                used = 1;
            }
        }
    if (!used) return;
    printf("# cuSolverDx n = %d %s, threads x matrices per block: ms%s\n", n, label, sweep);
    snprintf(variant, sizeof variant, "cuSolverDx best: %d threads x %d %s", best_threads, best_bpb, label);
    report_row(e, "stage-6", variant, n, batch, best, t_cusolver, t_copy);
}

/* One (n, batch): cuSOLVER, the copy, the tuned choice and the stage-05 fixed configurations. */
static void bench_one(const env_stamp *e, const tuned_table *t, int n, size_t batch, const char *label, int fixed_too,
                      int with_dx)
{
    const size_t nn = (size_t)n * n, bytes = batch * nn * sizeof(float);
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    float *d_pristine, *d_work;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_pristine, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_work, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    gen_batch_device(&p, n, 0, batch, 1, d_pristine);
    timing_stats tc = oracle_time_potrf_batched(n, batch, d_pristine);
    const double t_copy = time_copy_roofline(bytes, TIMING_REPEATS).median_ms;
    char variant[160], name[96], why[256];
    snprintf(variant, sizeof variant, "cusolverDnSpotrfBatched %s", label);
    report_row(e, "stage-6", variant, n, batch, tc, tc.median_ms, t_copy);
    /* The best fixed configurations of stages 04/05 (make bench-stage-5), then auto. */
    batched_config cases[3] = {THREAD_CONFIG(4, 64, 2), THREAD_CONFIG(8, 32, 1)};
    size_t chunks[3] = {64, 32, 0};
    int first = fixed_too ? 0 : 2;
    if (tuned_choose(t, n, batch, 0, &cases[2], &chunks[2], why, sizeof why) != 0) {
        fprintf(stderr, "bench_tuned: %s\n", why);
        exit(2);
    }
    for (int k = first; k < 2; k++) {
        gen_batch_device(&p, n, 0, batch, chunks[k], d_pristine);
        run_ctx c = {&cases[k], n, batch, chunks[k], d_work, d_info};
        timing_stats tm = time_gpu_restoring(run_factor, &c, d_work, d_pristine, bytes);
        tm.verified = verify_generated_batch(&p, n, batch, chunks[k], d_work, d_info, 4, "result check after timing")
                          ? TIMING_VERIFIED
                          : TIMING_WRONG;
        tuned_format(&cases[k], chunks[k], name, sizeof name);
        snprintf(variant, sizeof variant, "fixed: %s %s", name, label);
        report_row(e, "stage-6", variant, n, batch, tm, tc.median_ms, t_copy);
    }
    /* auto, through the plan: first on data already in the layout it runs best in (the table's
     * choice for any layout), then the application path: row-major in and out, auto's choice for
     * row-major data, conversions (if any) timed with it. */
    for (int rowmajor = 0; rowmajor < 2; rowmajor++) {
        const size_t chunk = rowmajor ? 1 : chunks[2] ? chunks[2] : batch;
        plan_ctx c = plan_auto(n, batch, chunk, d_work, d_info);
        size_t kchunk;
        const batched_config *cfg = cholesky_plan_config(c.plan, &kchunk);
        gen_batch_device(&p, n, 0, batch, chunk, d_pristine);
        timing_stats tm = time_gpu_restoring(run_plan, &c, d_work, d_pristine, bytes);
        tm.verified = verify_generated_batch(&p, n, batch, chunk, d_work, d_info, 4, "result check after timing")
                          ? TIMING_VERIFIED
                          : TIMING_WRONG;
        tuned_format(cfg, kchunk >= batch ? 0 : kchunk, name, sizeof name);
        if (rowmajor)
            snprintf(variant, sizeof variant, "rowmajor auto: %s%s %s", name, kchunk == 1 ? "" : " +conversions",
                     label);
        else snprintf(variant, sizeof variant, "auto: %s %s", name, label);
        report_row(e, "stage-6", variant, n, batch, tm, tc.median_ms, t_copy);
        plan_free(&c);
    }
    gen_batch_device(&p, n, 0, batch, 1, d_pristine);
    if (with_dx) bench_dx(e, &p, n, batch, label, d_pristine, d_work, d_info, tc.median_ms, t_copy);
    CUDA_CHECK(cudaFree(d_pristine));
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_info));
}

#define USAGE                                                                                            \
    "usage: bench_tuned   (stage 06 benchmark, configured by the environment)\n"                         \
    "  BENCH_NS=\"20 60 100\"   the orders, 1..1024 (default 20 30 ... 100, 64, 128)\n"                  \
    "  BENCH_SWEEP=0           leave out the batch-size sweep (1024 .. a quarter of the GPU)\n"          \
    "  BENCH_DX=0              leave out cuSolverDx (make cusolverdx fetches it; CUSOLVERDX_LIB=FILE)\n" \
    "  BENCH_CSV=FILE          append the rows there (default build/bench.csv)\n"                        \
    "  TUNED_TABLE=FILE        the tuned table (default: this GPU's, see the README: One table per GPU)\n"

int main(int argc, char **argv)
{
    tuned_env_apply(); /* TUNED_TABLE, TUNED_TABLES: the tuned table by hand (tuned_env.c) */
    cli_no_arguments(argc, argv, USAGE);
    env_stamp e;
    if (!bench_begin_gpu("stage-6", &e)) return 0;
    const tuned_table *t = tuned_table_default();
    if (!t) return 2;
    printf("# tuned table %s, measured on %s (commit %s)%s\n", t->path, t->gpu, t->commit,
           strcmp(t->gpu, e.gpu) ? ": a different GPU from this one, run make tune for a table of its own" : "");
    int ns[16], count = 0;
    const char *env_ns = getenv("BENCH_NS");
    if (env_ns && *env_ns) {
        char *copy = strdup(env_ns), *tok = strtok(copy, " ,");
        for (; tok; tok = strtok(NULL, " ,")) {
            long long v;
            if (count == 16 || !cli_parse_ll(tok, 1, BATCHED_MAX_N, &v)) {
                fprintf(stderr, "bad value for BENCH_NS: '%s' (at most 16 orders, each 1..%d)\n", env_ns,
                        BATCHED_MAX_N);
                return 2;
            }
            ns[count++] = (int)v;
        }
        free(copy);
    } else {
        for (int n = 20; n <= 100; n += 10) ns[count++] = n;
        ns[count++] = 64;
        ns[count++] = 128;
    }
    char why[512] = "cuSolverDx: left out (BENCH_DX=0)";
    const int with_dx = cli_env_ll("BENCH_DX", 0, 1, 1) && dx_available(why, sizeof why);
    printf("# %s\n", why);
    if (with_dx) dx_prepare_all(ns, count);
    for (int cls = 2; cls >= 0; cls -= 2) /* 1 GiB, then 1024 matrices */
        for (int s = 0; s < count; s++)
            bench_one(&e, t, ns[s], tune_class_batch(cls, ns[s]), cls ? "(1 GiB)" : "(1024)", ns[s] <= 128,
                      with_dx && ns[s] <= DX_MAX_N);
    if (cli_env_ll("BENCH_SWEEP", 0, 1, 1)) {
        size_t free_b, total_b;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const int sweep_ns[3] = {20, 60, 100};
        for (int s = 0; s < 3; s++) {
            const size_t nn = (size_t)sweep_ns[s] * sweep_ns[s];
            for (size_t batch = 1024; batch * nn * sizeof(float) * 4 <= free_b; batch *= 4)
                bench_one(&e, t, sweep_ns[s], batch, "(batch sweep)", 0, 0);
        }
    }
    return 0;
}
