/* bench_tuned.c - `make bench-stage-6`: the tuned choice (--kernel auto) at every n next to
 * cusolverDnSpotrfBatched, the copy roofline and the best fixed configuration of stage 05, at
 * both batch classes: 1 GiB of matrices (past the L2) and 1024 matrices (the classroom size), and
 * the application path: auto's choice for row-major data, row-major in and out, conversions (if
 * its layout needs any) included.
 * Then the time against the batch size, 1024 matrices up to a quarter of the GPU's memory, for
 * three orders. Every row is verified after timing (all infos 0, sampled matrices against the
 * float64 reference); the library and the copy are timed in the same run on the same matrices.
 *
 *   BENCH_NS="20 100"   the orders (default 20 30 ... 100, 64, 128; up to 1024)
 *   BENCH_SWEEP=0       leave out the batch-size sweep
 *   BENCH_CSV=FILE      where the rows go (default build/bench.csv) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "family.h"
#include "layout_convert.h"
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
    if (potrf_batched(c->cfg, c->n, c->batch, c->chunk, c->d_work, c->d_info) != 0) exit(2);
}

/* What a user with row-major data pays: the conversions to the layout and back (stage 05's tiled
 * converter) around the factorization, none when chunk = 1. d_work holds the row-major batch. */
typedef struct {
    run_ctx r;
    float *d_lay;
} rowmajor_ctx;

static void run_rowmajor(void *p)
{
    rowmajor_ctx *c = p;
    if (c->r.chunk == 1) { run_factor(&c->r); return; }
    rowmajor_to_chunked_tiled(c->r.n, c->r.batch, c->r.chunk, c->r.d_work, c->d_lay);
    if (potrf_batched(c->r.cfg, c->r.n, c->r.batch, c->r.chunk, c->d_lay, c->r.d_info) != 0) exit(2);
    chunked_to_rowmajor_tiled(c->r.n, c->r.batch, c->r.chunk, c->d_lay, c->r.d_work);
}


/* One (n, batch): cuSOLVER, the copy, the tuned choice and the stage-05 fixed configurations. */
static void bench_one(const env_stamp *e, const tuned_table *t, int n, size_t batch, const char *label, int fixed_too)
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
    batched_config cases[3] = {{BATCHED_THREAD, LOOK_LEFT, 4, 64, 2, 0}, {BATCHED_THREAD, LOOK_LEFT, 8, 32, 1, 0}};
    size_t chunks[3] = {64, 32, 0};
    int first = fixed_too ? 0 : 2;
    if (tuned_choose(t, n, batch, 0, &cases[2], &chunks[2], why, sizeof why) != 0) {
        fprintf(stderr, "bench_tuned: %s\n", why);
        exit(2);
    }
    for (int k = first; k < 3; k++) {
        const size_t chunk = chunks[k] ? chunks[k] : batch;
        gen_batch_device(&p, n, 0, batch, chunk, d_pristine);
        run_ctx c = {&cases[k], n, batch, chunk, d_work, d_info};
        timing_stats tm = time_gpu_restoring(run_factor, &c, d_work, d_pristine, bytes);
        tm.verified = verify_generated_batch(&p, n, batch, chunk, d_work, d_info, 4, "result check after timing") ? TIMING_VERIFIED : TIMING_WRONG;
        tuned_format(&cases[k], chunks[k], name, sizeof name);
        snprintf(variant, sizeof variant, "%s %s %s", k == 2 ? "auto:" : "fixed:", name, label);
        report_row(e, "stage-6", variant, n, batch, tm, tc.median_ms, t_copy);
    }
    /* The application path: row-major in and out, auto's choice for row-major data, conversions
     * (if any) timed with it. */
    batched_config rm_cfg;
    size_t rm_chunk;
    if (tuned_choose(t, n, batch, 1, &rm_cfg, &rm_chunk, why, sizeof why) != 0) {
        fprintf(stderr, "bench_tuned: %s\n", why);
        exit(2);
    }
    rowmajor_ctx rc = {{&rm_cfg, n, batch, rm_chunk ? rm_chunk : batch, d_work, d_info}, NULL};
    if (rc.r.chunk != 1) CUDA_CHECK(cudaMalloc((void **)&rc.d_lay, bytes));
    gen_batch_device(&p, n, 0, batch, 1, d_pristine);
    timing_stats tr = time_gpu_restoring(run_rowmajor, &rc, d_work, d_pristine, bytes);
    tr.verified = verify_generated_batch(&p, n, batch, 1, d_work, d_info, 4, "result check after timing") ? TIMING_VERIFIED : TIMING_WRONG;
    tuned_format(&rm_cfg, rm_chunk, name, sizeof name);
    snprintf(variant, sizeof variant, "rowmajor auto: %s%s %s", name, rc.r.chunk == 1 ? "" : " +conversions", label);
    report_row(e, "stage-6", variant, n, batch, tr, tc.median_ms, t_copy);
    if (rc.d_lay) CUDA_CHECK(cudaFree(rc.d_lay));
    CUDA_CHECK(cudaFree(d_pristine));
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_info));
}

#define USAGE                                                                                         \
    "usage: bench_tuned   (stage 06 benchmark, configured by the environment)\n"                          \
    "  BENCH_NS=\"20 60 100\"   the orders, 1..1024 (default 20 30 ... 100, 64, 128)\n"                              \
    "  BENCH_SWEEP=0           leave out the batch-size sweep (1024 .. a quarter of the GPU)\n"            \
    "  BENCH_CSV=FILE          append the rows there (default build/bench.csv)\n"                          \
    "  TUNED_TABLE=FILE        the tuned table (default: this GPU's, see the README: One table per GPU)\n"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv, USAGE);
    family_init();
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
                fprintf(stderr, "bad value for BENCH_NS: '%s' (at most 16 orders, each 1..%d)\n", env_ns, BATCHED_MAX_N);
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
    for (int cls = 2; cls >= 0; cls -= 2) /* 1 GiB, then 1024 matrices */
        for (int s = 0; s < count; s++)
            bench_one(&e, t, ns[s], tune_class_batch(cls, ns[s]), cls ? "(1 GiB)" : "(1024)", ns[s] <= 128);
    if (cli_env_ll("BENCH_SWEEP", 0, 1, 1)) {
        size_t free_b, total_b;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const int sweep_ns[3] = {20, 60, 100};
        for (int s = 0; s < 3; s++) {
            const size_t nn = (size_t)sweep_ns[s] * sweep_ns[s];
            for (size_t batch = 1024; batch * nn * sizeof(float) * 4 <= free_b; batch *= 4)
                bench_one(&e, t, sweep_ns[s], batch, "(batch sweep)", 0);
        }
    }
    return 0;
}
