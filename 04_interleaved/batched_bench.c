/* batched_bench.c - see batched_bench.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batched_bench.h"
#include "checks.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "gpu_batch.h"
#include "timing.h"
#include "cli.h"
#include "host_alloc.h"

typedef struct {
    const batched_config *cfg;
    int n;
    size_t batch, chunk;
    float *d_in, *d_out;
    int *d_info;
    layout_converter convert;
    const gen_params *gen; /* full-GPU mode: the untimed restore regenerates the batch */
} bench_ctx;

static void run_factor(void *p)
{
    bench_ctx *c = p;
    if (potrf_batched(c->cfg, c->n, c->batch, c->chunk, c->d_out, c->d_info) != 0) exit(2);
}

static void run_convert(void *p)
{
    bench_ctx *c = p;
    CALL_CHECK(c->convert(c->n, c->batch, c->chunk, c->d_in, c->d_out, cudaStreamLegacy));
}

static void layout_name(size_t chunk, char *buf, size_t len)
{
    if (chunk) snprintf(buf, len, "chunked c=%zu", chunk);
    else snprintf(buf, len, "interleaved");
}

static void nothing(void *p) { (void)p; }

static void regenerate(void *p)
{
    bench_ctx *c = p;
    gen_batch_device(c->gen, c->n, 0, c->batch, c->chunk, c->d_out);
}

/* A batch too large for the four copies below (cuSOLVER's row-major input, the layout, a work
 * copy, a scratch copy): only the layout fits, so each case is timed on a batch regenerated in
 * place before every run (untimed), and checked by sampling straight from the layout. This is
 * the load test's path: BENCH_BYTES=64424509440 (60 GiB) fills an 80 GB GPU. */
static void bench_full_gpu(const env_stamp *e, const char *stage, const bench_case *cases, int ncases, int n,
                           size_t batch, const gen_params *p)
{
    const size_t nn = (size_t)n * n, bytes = batch * nn * sizeof(float);
    printf(
        "# n=%d: the %.1f GiB batch leaves no room for a second copy: cuSOLVER, the copy roofline and the conversions"
        " are not timed; each case runs on the batch regenerated in place\n",
        n, bytes / 1073741824.0);
    float *d_lay;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_lay, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    for (int k = 0; k < ncases; k++) {
        size_t chunk = cases[k].chunk ? cases[k].chunk : batch;
        bench_ctx c = {&cases[k].cfg, n, batch, chunk, NULL, d_lay, d_info, NULL, p};
        timing_stats t = time_gpu(run_factor, regenerate, &c, 1, 3);
        /* 8 samples across the whole batch, past 2^32 elements */
        t.verified = verify_generated_batch(p, n, batch, chunk, d_lay, d_info, 8, "result check after timing")
                         ? TIMING_VERIFIED
                         : TIMING_WRONG;
        char lname[48], cname[64], variant[128];
        layout_name(cases[k].chunk, lname, sizeof lname);
        snprintf(variant, sizeof variant, "%s: %s", lname, batched_config_name(&cases[k].cfg, cname, sizeof cname));
        report_row(e, stage, variant, n, batch, t, 0, 0);
    }
    CUDA_CHECK(cudaFree(d_lay));
    CUDA_CHECK(cudaFree(d_info));
}

/* 4 sampled matrices of two row-major batches on the device are bit-identical. */
static int same_samples(int n, size_t batch, const float *d_x, const float *d_y)
{
    size_t nn = (size_t)n * n;
    float *x = host_alloc(nn * sizeof(float), "benchmark buffers"),
          *y = host_alloc(nn * sizeof(float), "benchmark buffers");
    int ok = 1;
    for (int s = 0; s < 4 && ok; s++) {
        size_t b = (size_t)((double)(batch - 1) * s / 3);
        CUDA_CHECK(cudaMemcpy(x, d_x + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(y, d_y + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
        ok = memcmp(x, y, nn * sizeof(float)) == 0;
    }
    if (!ok) fprintf(stderr, "result check after timing: the conversion did not give back the input\n");
    free(x);
    free(y);
    return ok;
}

size_t bench_batched_env(int ns[16], int *count_out)
{
    int count = 0;
    const char *env_ns = getenv("BENCH_NS");
    if (env_ns && *env_ns) { /* every value checked: a typo must not run (or crash) a long benchmark */
        char *copy = strdup(env_ns), *tok = strtok(copy, " ,");
        for (; tok; tok = strtok(NULL, " ,")) {
            long long v;
            if (count == 16 || !cli_parse_ll(tok, 1, BATCHED_MAX_N, &v)) {
                fprintf(stderr, "bad value for BENCH_NS: '%s' (at most 16 orders, each 1..%d)\n", env_ns,
                        BATCHED_MAX_N);
                exit(2);
            }
            ns[count++] = (int)v;
        }
        free(copy);
    } else
        for (int n = 20; n <= 100; n += 10) ns[count++] = n;
    *count_out = count;
    return (size_t)cli_env_ll("BENCH_BYTES", 1 << 20, 1LL << 40, 1LL << 30);
}

void bench_batched(const env_stamp *e, const char *stage, const bench_case *cases, int ncases,
                   layout_converter to_layout, layout_converter to_rowmajor)
{
    const int custom = to_layout != NULL;
    if (!to_layout) to_layout = rowmajor_to_chunked_device;
    if (!to_rowmajor) to_rowmajor = chunked_to_rowmajor_device;
    int ns[16], count;
    const size_t target = bench_batched_env(ns, &count);
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    for (int s = 0; s < count; s++) {
        int n = ns[s];
        size_t nn = (size_t)n * n, batch = (target + nn * 4 - 1) / (nn * 4), bytes = batch * nn * sizeof(float);
        float *d_rm, *d_lay, *d_work, *d_scratch;
        int *d_info;
        size_t free_b, total_b;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (4 * bytes + batch * (sizeof(int) + sizeof(float *)) > free_b * 0.95) {
            if (bytes + batch * sizeof(int) > free_b * 0.95) {
                fprintf(stderr, "BENCH_BYTES: a batch of %.2f GiB does not fit in the %.2f GiB of GPU memory free\n",
                        bytes / 1073741824.0, free_b / 1073741824.0);
                exit(2);
            }
            bench_full_gpu(e, stage, cases, ncases, n, batch, &p);
            continue;
        }
        CUDA_CHECK(cudaMalloc((void **)&d_rm, bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_lay, bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_work, bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_scratch, bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
        gen_batch_device(&p, n, 0, batch, 1, d_rm);
        timing_stats tc = oracle_time_potrf_batched(n, batch, d_rm);
        double t_copy = time_copy_roofline(bytes, TIMING_REPEATS).median_ms;
        report_row(e, stage, "cusolverDnSpotrfBatched (row-major)", n, batch, tc, tc.median_ms, t_copy);
        size_t done_chunks[32];
        int ndone = 0;
        for (int k = 0; k < ncases; k++) {
            size_t chunk = cases[k].chunk ? cases[k].chunk : batch;
            char lname[48], cname[64], variant[128];
            layout_name(cases[k].chunk, lname, sizeof lname);
            int seen = 0;
            for (int d = 0; d < ndone; d++) seen |= done_chunks[d] == chunk;
            bench_ctx c = {&cases[k].cfg, n, batch, chunk, d_rm, d_lay, d_info, to_layout, NULL};
            if (!seen) { /* what converting costs; a converter is verified by the round trip */
                if (ndone < 32) done_chunks[ndone++] = chunk;
                timing_stats t = time_gpu(run_convert, nothing, &c, TIMING_WARMUP, TIMING_REPEATS);
                bench_ctx back = c;
                back.d_in = d_lay;
                back.d_out = d_scratch;
                back.convert = to_rowmajor;
                timing_stats tb = time_gpu(run_convert, nothing, &back, TIMING_WARMUP, TIMING_REPEATS);
                if (custom)
                    t.verified = tb.verified = same_samples(n, batch, d_rm, d_scratch) ? TIMING_VERIFIED : TIMING_WRONG;
                snprintf(variant, sizeof variant, "convert%s row-major -> %s", custom ? " (tiled)" : "", lname);
                report_row(e, stage, variant, n, batch, t, tc.median_ms, t_copy);
                snprintf(variant, sizeof variant, "convert%s %s -> row-major", custom ? " (tiled)" : "", lname);
                report_row(e, stage, variant, n, batch, tb, tc.median_ms, t_copy);
            }
            /* the pristine input, provided converter */
            CALL_CHECK(rowmajor_to_chunked_device(n, batch, chunk, d_rm, d_lay, cudaStreamLegacy));
            c.d_out = d_work;
            timing_stats t = time_gpu_restoring(run_factor, &c, d_work, d_lay, bytes);
            t.verified =
                verify_generated_batch(&p, n, batch, c.chunk, c.d_out, c.d_info, 4, "result check after timing")
                    ? TIMING_VERIFIED
                    : TIMING_WRONG;
            snprintf(variant, sizeof variant, "%s: %s", lname, batched_config_name(&cases[k].cfg, cname, sizeof cname));
            report_row(e, stage, variant, n, batch, t, tc.median_ms, t_copy);
        }
        CUDA_CHECK(cudaFree(d_rm));
        CUDA_CHECK(cudaFree(d_lay));
        CUDA_CHECK(cudaFree(d_work));
        CUDA_CHECK(cudaFree(d_scratch));
        CUDA_CHECK(cudaFree(d_info));
    }
}
