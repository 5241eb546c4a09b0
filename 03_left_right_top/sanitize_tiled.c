/* sanitize_tiled.c - every stage 03 kernel once, small (make sanitize-stage-3 runs it under
 * compute-sanitizer): the three looking orders for NB = 4, 8, 16, 32 on n = 1, 7, 33 and 45
 * (remainder tiles, more than one tile row), and the whole-GPU factorization in every launch
 * mode on n = 1, 64, 130, 300 and 520 (in place, padded, 128 x 128 update blocks that stick out,
 * two-panel rounds with an odd number of tiles), with the fp32 updates and, on a GPU that has them,
 * the tensor-core ones (tf32x3). */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "cuda_check.h"
#include "host_alloc.h"
#include "small_runs.h"
#include "grid_cholesky.h"
#include "tiled_cholesky.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv,
                     "usage: sanitize_tiled   (small runs of every stage 03 kernel, for compute-sanitizer)\n");
    const int ns[] = {1, 7, 33, 45};
    float *d_A;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, 45 * 45 * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    for (int order = 0; order < LOOK_COUNT; order++)
        for (int nb = 4; nb <= 32; nb *= 2)
            for (int s = 0; s < 4; s++) {
                int n = ns[s], info;
                size_t bytes = (size_t)n * n * sizeof(float);
                float *A = small_batch(n, 1), *L = host_alloc(bytes, "factor");
                CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
                if (potrf_tiled((looking_order)order, nb, n, d_A, d_info) != 0) return 2;
                CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost));
                char what[64];
                snprintf(what, sizeof what, "%s-looking NB=%d n=%d", looking_name((looking_order)order), nb, n);
                small_check(what, n, 1, A, L, &info);
                free(A);
                free(L);
            }
    CUDA_CHECK(cudaFree(d_A));
    const int grid_ns[] = {1, 64, 130, 300, 520};
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    const int maths = grid_tensor_cores(device) ? GRID_MATH_COUNT : 1;
    for (int math = 0; math < maths; math++)
        for (int mode = 0; mode < GRID_MODE_COUNT; mode++)
            for (int s = 0; s < 5; s++) {
                int n = grid_ns[s], info;
                size_t bytes = (size_t)n * n * sizeof(float), work = grid_workspace_bytes(n);
                float *A = small_batch(n, 1), *L = host_alloc(bytes, "factor"), *d_work = NULL;
                CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
                if (work) CUDA_CHECK(cudaMalloc((void **)&d_work, work));
                CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
                if (potrf_grid_math((grid_mode)mode, (grid_math)math, n, 1, d_A, d_work, d_info) != 0) return 2;
                CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost));
                char what[64];
                snprintf(what, sizeof what, "whole GPU %s %s n=%d", grid_mode_name((grid_mode)mode),
                         grid_math_name((grid_math)math), n);
                small_check(what, n, 1, A, L, &info);
                CUDA_CHECK(cudaFree(d_A));
                if (d_work) CUDA_CHECK(cudaFree(d_work));
                free(A);
                free(L);
            }
    CUDA_CHECK(cudaFree(d_info));
    return small_runs_end("sanitize_tiled");
}
