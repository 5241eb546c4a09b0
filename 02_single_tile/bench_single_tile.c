/* bench_single_tile.c - stage 02 benchmark.
 *  1. Latency of one matrix in one tile (n = 16, 32) against cusolverDnSpotrf on the same matrix
 *     and the stage 01 serial code on the CPU.
 *  2. What shared-memory padding is worth: a grid of one block per matrix, 256 MB of matrices,
 *     with pad = 0 (row stride NB: bank conflicts) and pad = 1 (odd stride), beside
 *     cusolverDnSpotrfBatched and the copy roofline of the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "checks.h"
#include "cholesky_serial.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "gpu_batch.h"
#include "harness.h"
#include "report.h"
#include "single_tile.h"
#include "host_alloc.h"

typedef struct {
    int nb, pad, n;
    size_t count;
    float *d_work;
    int *d_info;
} tile_ctx;

static void run(void *p)
{
    tile_ctx *c = p;
    if (potrf_single_tile(c->nb, c->pad, c->n, c->d_work, c->count, c->d_info) != 0) exit(2);
}

static timing_stats time_tile(int nb, int pad, int n, size_t count, const float *d_pristine)
{
    tile_ctx c = {nb, pad, n, count, NULL, NULL};
    size_t bytes = count * n * n * sizeof(float);
    CUDA_CHECK(cudaMalloc((void **)&c.d_work, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.d_info, count * sizeof(int)));
    timing_stats t = time_gpu_restoring(run, &c, c.d_work, d_pristine, bytes);
    t.verified = verify_sampled_device(n, count, d_pristine, c.d_work, c.d_info) ? TIMING_VERIFIED : TIMING_WRONG;
    CUDA_CHECK(cudaFree(c.d_work));
    CUDA_CHECK(cudaFree(c.d_info));
    return t;
}

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv,
                     "usage: bench_single_tile   (stage 02 benchmark; BENCH_CSV=FILE appends its rows there)\n");
    env_stamp e;
    if (!bench_begin_gpu("stage-2", &e)) return 0;
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    char variant[64];
    for (int n = 16; n <= 32; n *= 2) { /* 1. one matrix: latency */
        float *A = host_alloc((size_t)n * n * sizeof(float), "a test matrix"), *d_A;
        gen_batch_host(&p, n, 0, 1, A);
        CUDA_CHECK(cudaMalloc((void **)&d_A, (size_t)n * n * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_A, A, (size_t)n * n * sizeof(float), cudaMemcpyHostToDevice));
        timing_stats tc = oracle_time_potrf(n, A);
        report_row(&e, "02", "cusolverDnSpotrf (1 matrix)", n, 1, tc, tc.median_ms, 0);
        snprintf(variant, sizeof variant, "single tile NB=%d", n);
        report_row(&e, "02", variant, n, 1, time_tile(n, 1, n, 1, d_A), tc.median_ms, 0);
        report_row(&e, "02", "serial (CPU, 1 matrix)", n, 1, time_spotrf_cpu(n, 1, A, 0, TIMING_REPEATS), tc.median_ms,
                   0);
        CUDA_CHECK(cudaFree(d_A));
        free(A);
    }
    for (int n = 16; n <= 32; n *= 2) { /* 2. many matrices: padding */
        size_t count = (256u << 20) / ((size_t)n * n * sizeof(float)), bytes = count * n * n * sizeof(float);
        float *d_A;
        CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
        gen_batch_device(&p, n, 0, count, 1, d_A);
        timing_stats tc = oracle_time_potrf_batched(n, count, d_A);
        double t_copy = time_copy_roofline(bytes, TIMING_REPEATS).median_ms;
        report_row(&e, "02", "cusolverDnSpotrfBatched", n, count, tc, tc.median_ms, t_copy);
        for (int pad = 0; pad <= 1; pad++) {
            snprintf(variant, sizeof variant, "tile per block NB=%d pad=%d", n, pad);
            report_row(&e, "02", variant, n, count, time_tile(n, pad, n, count, d_A), tc.median_ms, t_copy);
        }
        CUDA_CHECK(cudaFree(d_A));
    }
    return 0;
}
