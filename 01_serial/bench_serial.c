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
#include "harness.h"
#include "report.h"
#include "host_alloc.h"

int main(int argc, char **argv)
{
    long long mb = 64;
    const char *usage = "usage: bench_serial [MB]   batch of about MB megabytes per n (default 64); BENCH_CSV=FILE\n";
    int args = cli_help_only(argc, argv, usage); /* -h, --help; refuses other options */
    if (args > 1) {
        fprintf(stderr, "bench_serial: one argument at most (MB), got %d\n", args);
        return 2;
    }
    if (args == 1 && !cli_parse_ll(argv[optind], 1, 1 << 20, &mb))
        cli_bad_value("bench_serial", "MB", argv[optind], "an integer 1..1048576");
    /* The batch and the benchmark's working copy: refuse what the machine cannot hold. */
    unsigned long long need = 2ull * (unsigned long long)mb << 20, have = cli_host_memory();
    if (have && need > have / 2) {
        fprintf(stderr,
                "bench_serial: %lld MB per batch needs %.1f GiB of host memory (the batch and a working copy); "
                "this machine has %.1f GiB, so at most %llu MB\n",
                mb, need / 1073741824.0, have / 1073741824.0, have / 4 >> 20);
        return 2;
    }
    char reason[256];
    int gpu = gpu_available(reason, sizeof reason);
    env_stamp e;
    env_stamp_read(&e);
    env_stamp_print(&e);
    if (!gpu) printf("# %s: cuSOLVER columns skipped\n", reason);
    printf("# stage 01: %lld MB of spd matrices per n (seed %u), %d OpenMP threads\n", mb, GEN_DEFAULT_SEED,
           omp_get_max_threads());
    gen_params p = gen_params_make(FAMILY_SPD, GEN_DEFAULT_SEED, 0, 0);
    for (int n = 20; n <= 100; n += 10) {
        size_t count = (size_t)(mb << 20) / ((size_t)n * n * sizeof(float)), bytes = count * n * n * sizeof(float);
        float *A = host_alloc(bytes, "the batch of matrices");
        gen_batch_host(&p, n, 0, count, A);
        double t_cus = 0;
        if (gpu) {
            float *d_A;
            CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
            CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
            timing_stats t = oracle_time_potrf_batched(n, count, d_A);
            t_cus = t.median_ms;
            report_row(&e, "01", "cusolverDnSpotrfBatched", n, count, t, t_cus,
                       time_copy_roofline(bytes, TIMING_REPEATS).median_ms);
            CUDA_CHECK(cudaFree(d_A));
        }
        timing_stats ts = time_spotrf_cpu(n, count, A, 0, 5);
        report_row(&e, "01", "serial (CPU)", n, count, ts, t_cus, 0);
        timing_stats to = time_spotrf_cpu(n, count, A, 1, 5);
        char variant[64];
        snprintf(variant, sizeof variant, "openmp x%d (CPU)", omp_get_max_threads());
        report_row(&e, "01", variant, n, count, to, t_cus, 0);
        printf("#   n=%d: OpenMP speedup over serial %.2fx\n", n, ts.median_ms / to.median_ms);
        free(A);
    }
    return 0;
}
