/* sanitize_tiled.c - every stage 03 kernel once, small (make sanitize-stage-3 runs it under
 * compute-sanitizer): the three looking orders for NB = 4, 8, 16, 32 on n = 1, 7, 33 and 45
 * (remainder tiles, more than one tile row), and the whole-GPU factorization in every launch
 * mode on n = 1, 64, 130, 300 and 520 (in place, padded, 128 x 128 update blocks that stick out,
 * two-panel rounds with an odd number of tiles), with the fp32 updates and, on a GPU that has them,
 * the tensor-core ones (every math). Two kernel instances that only large work reaches get a run of
 * their own: the look-ahead's tensor-core bulk in 64 x 64 blocks (taken while the 128 x 128 blocks
 * would be one to four waves: here a batch of 3 x SMs matrices of n = 256), and the updates by
 * eight panels at once (K = 512: the quads' first rounds from n = 10240 on; here called directly
 * on one n = 1024 matrix, as a triangle, a band of two columns and a single column). */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "cuda_check.h"
#include "host_alloc.h"
#include "small_runs.h"
#include "grid_cholesky.h"
#include "tiled_cholesky.h"

/* The look-ahead tf32x3 on a batch of 3 x SMs matrices of n = 256: every step's bulk is one
 * 128 x 128 block a matrix, 3 x SMs blocks in all, so it runs in 64 x 64 blocks (grid_tasks.cu,
 * update_launch). */
static void tensor_bulk_in_64_blocks(int device)
{
    int sms, accepted = 1;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int n = 256;
    const size_t count = 3 * (size_t)sms, bytes = count * n * n * sizeof(float);
    float *A = small_batch(n, count), *L = host_alloc(bytes, "factors"), *d_A;
    int *info = host_alloc(count * sizeof(int), "infos"), *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, count * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    if (potrf_grid_math(GRID_LOOKAHEAD, GRID_TF32X3, n, count, d_A, NULL, d_info) != 0) accepted = 0;
    CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, d_info, count * sizeof(int), cudaMemcpyDeviceToHost));
    if (!accepted) fprintf(stderr, "FAILED potrf_grid_math refused the batch\n");
    small_check("whole GPU lookahead tf32x3 (64 x 64 tensor-core bulk) n=256 batch=3xSMs", n, count, A, L, info);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    free(A);
    free(L);
    free(info);
}

/* The K = 512 instances (eight panels), called directly on an SPD matrix of n = 1024: panels 0..7
 * update the trailing triangle from column 8, a band (columns 8, 9) and one column (8). Only the
 * sanitizer's report counts here: the calls are not a factorization. */
static void eight_panel_updates(grid_math math)
{
    const int n = 1024;
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *A = small_batch(n, 1), *d_A;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_info, 0, sizeof(int)));
    grid_plan p = {d_A, (size_t)n, n / GRID_TILE, d_info, 1, (size_t)n * n, math, NULL, grid_rules_current()};
    CALL_CHECK(launch_update_group_tasks(&p, 0, 8, 8, p.nt, 0));
    CALL_CHECK(launch_update_group_tasks(&p, 0, 8, 8, 10, 0));
    CALL_CHECK(launch_update_group_tasks(&p, 0, 8, 8, 9, 0));
    if (grid_math_accurate_tensor(math) && grid_wgmma_available()) { /* Hopper's warpgroup update: 4 and 7 row blocks */
        grid_split split;
        CALL_CHECK(grid_split_create(&split, grid_split_bytes(n, 1, GRID_MAX_PANELS)));
        p.split = &split;
        CALL_CHECK(launch_update_group_tasks(&p, 0, 8, 8, p.nt, 0));
        CALL_CHECK(launch_update_group_tasks(&p, 0, 3, 3, p.nt, 0));
        CUDA_CHECK(cudaDeviceSynchronize());
        printf("sanitize_tiled: warpgroup updates ran\n");
        grid_split_destroy(&split);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("sanitize_tiled: eight-panel updates (%s) ran\n", grid_math_name(math));
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    free(A);
}

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
    if (maths > 1) tensor_bulk_in_64_blocks(device);
    for (int math = 0; math < maths; math++) eight_panel_updates((grid_math)math);
    return small_runs_end("sanitize_tiled");
}
