/* serial_timing.c - time the stage 01 batch routines (for bench_serial and the later stages'
 * benchmarks, which show stage 01 beside their kernels). */
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cholesky_serial.h"
#include "host_alloc.h"

typedef struct {
    int n, omp;
    size_t count;
    const float *pristine;
    float *work;
    int *info;
} cpu_ctx;

static void cpu_restore(void *p)
{
    cpu_ctx *c = p;
    memcpy(c->work, c->pristine, c->count * c->n * c->n * sizeof(float));
}

static void cpu_run(void *p)
{
    cpu_ctx *c = p;
    if (c->omp) spotrf_batch_omp(c->n, c->count, c->work, c->info);
    else spotrf_batch_serial(c->n, c->count, c->work, c->info);
}

timing_stats time_spotrf_cpu(int n, size_t count, const float *A, int omp, int repeats)
{
    cpu_ctx c = {n,
                 omp,
                 count,
                 A,
                 host_alloc(count * n * n * sizeof(float), "the CPU benchmark buffers"),
                 host_alloc(count * sizeof(int), "the CPU benchmark buffers")};
    timing_stats t = time_host(cpu_run, cpu_restore, &c, 1, repeats);
    t.verified = verify_sampled_host(n, count, A, c.work, c.info) ? TIMING_VERIFIED : TIMING_WRONG;
    free(c.work);
    free(c.info);
    return t;
}
