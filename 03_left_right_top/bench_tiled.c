/* bench_tiled.c - stage 03 benchmark: latency of one matrix, n = 16 .. 1024, for each looking
 * order and NB in {8, 16, 32}, against cusolverDnSpotrf on the same matrix (handle and workspace
 * set up outside the timed region) and the stage 01 serial code on the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "checks.h"
#include "cholesky_serial.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "harness.h"
#include "report.h"
#include "tiled_cholesky.h"
#include "host_alloc.h"

typedef struct {
    looking_order order;
    int nb, n;
    float *d_work;
    int *d_info;
} tiled_ctx;

static void run(void *p)
{
    tiled_ctx *c = p;
    if (potrf_tiled(c->order, c->nb, c->n, c->d_work, c->d_info) != 0) exit(2);
}

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv, "usage: bench_tiled   (stage 03 benchmark; BENCH_CSV=FILE appends its rows there)\n");
    env_stamp e;
    if (!bench_begin_gpu("stage-3", &e)) return 0;
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    const int ns[] = {16, 32, 64, 100, 128, 256, 512, 1024}, nbs[] = {8, 16, 32};
    for (int s = 0; s < 8; s++) {
        int n = ns[s];
        tiled_ctx c = {LOOK_RIGHT, 0, n, NULL, NULL};
        size_t bytes = (size_t)n * n * sizeof(float);
        float *A = host_alloc(bytes, "a test matrix"), *d_A;
        gen_batch_host(&p, n, 0, 1, A);
        CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
        CUDA_CHECK(cudaMalloc((void **)&c.d_work, bytes));
        CUDA_CHECK(cudaMalloc((void **)&c.d_info, sizeof(int)));
        CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
        timing_stats tc = oracle_time_potrf(n, A);
        report_row(&e, "03", "cusolverDnSpotrf", n, 1, tc, tc.median_ms, 0);
        report_row(&e, "03", "serial (CPU)", n, 1, time_spotrf_cpu(n, 1, A, 0, TIMING_REPEATS), tc.median_ms, 0);
        for (int o = 0; o < LOOK_COUNT; o++)
            for (int a = 0; a < 3; a++) {
                if (nbs[a] == 8 && n > 256) continue; /* 128 tiles a side: minutes, and nothing new to learn */
                c.order = (looking_order)o;
                c.nb = nbs[a];
                char variant[64];
                snprintf(variant, sizeof variant, "%s-looking NB=%d", looking_name(c.order), c.nb);
                timing_stats t = time_gpu_restoring(run, &c, c.d_work, d_A, bytes);
                t.verified = verify_sampled_device(n, 1, d_A, c.d_work, c.d_info) ? TIMING_VERIFIED : TIMING_WRONG;
                report_row(&e, "03", variant, n, 1, t, tc.median_ms, 0);
            }
        CUDA_CHECK(cudaFree(d_A));
        CUDA_CHECK(cudaFree(c.d_work));
        CUDA_CHECK(cudaFree(c.d_info));
        free(A);
    }
    return 0;
}
