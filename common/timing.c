/* timing.c - see timing.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuda_check.h"
#include "timing.h"
#include "host_alloc.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static timing_stats summarize(double *ms, int repeats)
{
    qsort(ms, (size_t)repeats, sizeof(double), cmp_double);
    timing_stats t;
    t.repeats = repeats;
    t.verified = TIMING_REFERENCE;
    t.min_ms = ms[0];
    t.median_ms = repeats % 2 ? ms[repeats / 2] : 0.5 * (ms[repeats / 2 - 1] + ms[repeats / 2]);
    return t;
}

void l2_flush(void)
{
    static void *buf = NULL;
    static size_t bytes = 0;
    if (!buf) {
        int dev, l2 = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        bytes = 2 * (size_t)(l2 > 0 ? l2 : (64 << 20));
        CUDA_CHECK(cudaMalloc(&buf, bytes));
    }
    CUDA_CHECK(cudaMemsetAsync(buf, 0x5a, bytes, 0));
}

timing_stats time_gpu(timed_fn run, timed_fn restore, void *ctx, int warmup, int repeats)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *ms = host_alloc((size_t)repeats * sizeof(double), "timing samples");
    for (int r = -warmup; r < repeats; r++) {
        if (restore) restore(ctx);
        l2_flush();
        CUDA_CHECK(cudaEventRecord(start, 0));
        run(ctx);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        if (r >= 0) ms[r] = t;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    timing_stats s = summarize(ms, repeats);
    free(ms);
    return s;
}

typedef struct {
    timed_fn run;
    void *ctx, *dst;
    const void *src;
    size_t bytes;
} restoring_ctx;

static void restoring_restore(void *p)
{
    restoring_ctx *r = p;
    CUDA_CHECK(cudaMemcpyAsync(r->dst, r->src, r->bytes, cudaMemcpyDeviceToDevice, 0));
}

static void restoring_run(void *p)
{
    restoring_ctx *r = p;
    r->run(r->ctx);
}

timing_stats time_gpu_restoring(timed_fn run, void *ctx, void *d_work, const void *d_pristine, size_t bytes)
{
    restoring_ctx r = {run, ctx, d_work, d_pristine, bytes};
    return time_gpu(restoring_run, restoring_restore, &r, TIMING_WARMUP, TIMING_REPEATS);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

timing_stats time_host(timed_fn run, timed_fn restore, void *ctx, int warmup, int repeats)
{
    double *ms = host_alloc((size_t)repeats * sizeof(double), "timing samples");
    for (int r = -warmup; r < repeats; r++) {
        if (restore) restore(ctx);
        double t0 = now_ms();
        run(ctx);
        double t1 = now_ms();
        if (r >= 0) ms[r] = t1 - t0;
    }
    timing_stats s = summarize(ms, repeats);
    free(ms);
    return s;
}

typedef struct {
    void *dst, *src;
    size_t bytes;
} copy_ctx;

static void run_copy(void *p)
{
    copy_ctx *c = p;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0));
}

timing_stats time_copy_roofline(size_t bytes, int repeats)
{
    copy_ctx c = {NULL, NULL, bytes};
    CUDA_CHECK(cudaMalloc(&c.src, bytes));
    CUDA_CHECK(cudaMalloc(&c.dst, bytes));
    CUDA_CHECK(cudaMemset(c.src, 1, bytes));
    timing_stats t = time_gpu(run_copy, NULL, &c, TIMING_WARMUP, repeats);
    CUDA_CHECK(cudaFree(c.src));
    CUDA_CHECK(cudaFree(c.dst));
    return t;
}
