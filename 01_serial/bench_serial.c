/* bench_serial.c - stage 01 benchmark: serial and OpenMP Cholesky on the CPU for n = 20..100,
 * and, when a GPU is present, cusolverDnSpotrfBatched on the same matrices in the same run (the
 * "x cuSOLVER" column is t_cuSOLVER / t; the copy roofline applies to GPU rows only).
 *
 *   build/01_serial/bench_serial [MB]     batch of about MB megabytes per n (default 64) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cholesky_serial.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "gpu_batch.h"
#include "harness.h"
#include "report.h"

typedef struct {
    int n;
    size_t count;
    float *pristine, *work;
    int *info;
    int omp;
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

typedef struct {
    oracle_batched o;
    float *d_pristine, *d_work;
    size_t bytes;
} gpu_ctx;

static void gpu_restore(void *p)
{
    gpu_ctx *g = p;
    CUDA_CHECK(cudaMemcpyAsync(g->d_work, g->d_pristine, g->bytes, cudaMemcpyDeviceToDevice, 0));
}

static void gpu_run(void *p) { oracle_batched_run(&((gpu_ctx *)p)->o); }

int main(int argc, char **argv)
{
    long long mb = 64;
    if (argc > 2 || (argc == 2 && !cli_parse_ll(argv[1], 1, 1 << 20, &mb))) {
        fprintf(stderr, "usage: bench_serial [MB per batch]\n");
        return 2;
    }
    char reason[256];
    int gpu = gpu_available(reason, sizeof reason);
    env_stamp e;
    env_stamp_read(&e);
    env_stamp_print(&e);
    if (!gpu) printf("# %s: cuSOLVER columns skipped\n", reason);
    printf("# stage 01: %lld MB of spd matrices per n (seed %u), %d OpenMP threads\n", mb, GEN_DEFAULT_SEED, omp_get_max_threads());
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    for (int n = 20; n <= 100; n += 10) {
        cpu_ctx c = {n, (size_t)(mb << 20) / ((size_t)n * n * sizeof(float)), NULL, NULL, NULL, 0};
        size_t bytes = c.count * n * n * sizeof(float);
        c.pristine = malloc(bytes);
        c.work = malloc(bytes);
        c.info = malloc(c.count * sizeof(int));
        gen_batch_host(&p, n, 0, c.count, c.pristine);
        double t_cus = 0, t_copy = 0;
        if (gpu) {
            gpu_ctx g;
            g.bytes = bytes;
            CUDA_CHECK(cudaMalloc((void **)&g.d_pristine, bytes));
            CUDA_CHECK(cudaMalloc((void **)&g.d_work, bytes));
            CUDA_CHECK(cudaMemcpy(g.d_pristine, c.pristine, bytes, cudaMemcpyHostToDevice));
            oracle_batched_setup(&g.o, n, g.d_work, c.count);
            timing_stats t = time_gpu(gpu_run, gpu_restore, &g, TIMING_WARMUP, TIMING_REPEATS);
            t_cus = t.median_ms;
            t_copy = time_copy_roofline(bytes, TIMING_REPEATS).median_ms;
            report_row(&e, "01", "cusolverDnSpotrfBatched", n, c.count, t, t_cus, t_copy);
            oracle_batched_teardown(&g.o);
            CUDA_CHECK(cudaFree(g.d_pristine));
            CUDA_CHECK(cudaFree(g.d_work));
        }
        timing_stats ts = time_host(cpu_run, cpu_restore, &c, 1, 5);
        report_row(&e, "01", "serial (CPU)", n, c.count, ts, t_cus, 0);
        c.omp = 1;
        timing_stats to = time_host(cpu_run, cpu_restore, &c, 1, 5);
        char variant[64];
        snprintf(variant, sizeof variant, "openmp x%d (CPU)", omp_get_max_threads());
        report_row(&e, "01", variant, n, c.count, to, t_cus, 0);
        printf("#   n=%d: OpenMP speedup over serial %.2fx\n", n, ts.median_ms / to.median_ms);
        free(c.pristine); free(c.work); free(c.info);
    }
    return 0;
}
