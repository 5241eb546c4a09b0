/* tiled_cholesky.cu - stage 03: one matrix of any order n, cut into NB x NB tiles, factored by
 * one thread block. The matrix stays in global memory; the tiles being worked on are copied into
 * shared memory and handed to the stage 02 helpers. The loop orders (right-, left- and
 * top-looking) are in looking_orders.cuh, written once for this stage and the batched stages
 * 04-05: here a "matrix" is a row-major array (tile_rowmajor.cuh), there an interleaved batch.
 * The line below runs right-looking with NB = 32 over four tiles; build/03_left_right_top/test_tiled runs all
 * three orders and every NB.
 * Alone: make build/03_left_right_top/cholesky_one && build/03_left_right_top/cholesky_one --n 100 --mode block */
#include <stdio.h>
#include "cuda_check.h"
#include "tile_rowmajor.cuh"  /* rowmajor_matrix and its load_tile / store_tile */
#include "looking_orders.cuh" /* the three orders, written once for stages 03-05 */
#include "tiled_cholesky.h"

#define PAD 1

template <int NB, looking_order ORDER> __global__ void __launch_bounds__(NB *NB)
    potrf_tiled_kernel(float *A, int n, int *info)
{
    constexpr int LD = tile_ld<NB, PAD>();
    __shared__ float Sd[NB * LD], Sc[NB * LD], Sa[NB * LD], Sb[NB * LD];
    __shared__ int s_info;
    if (tile_row() == 0 && tile_col() == 0) s_info = 0;
    __syncthreads();
    rowmajor_matrix M = {A, n};
    factor_tiled<NB, LD, ORDER>(M, n, Sd, Sc, Sa, Sb, &s_info);
    if (tile_row() == 0 && tile_col() == 0) *info = s_info;
}

const char *looking_name(looking_order order)
{
    static const char *const names[LOOK_COUNT] = {"right", "left", "top"};
    return order >= 0 && order < LOOK_COUNT ? names[order] : "?";
}

template <int NB> static int launch(looking_order order, int n, float *d_A, int *d_info)
{
    if (order == LOOK_RIGHT) potrf_tiled_kernel<NB, LOOK_RIGHT><<<1, dim3(1, NB, NB)>>>(d_A, n, d_info);
    if (order == LOOK_LEFT) potrf_tiled_kernel<NB, LOOK_LEFT><<<1, dim3(1, NB, NB)>>>(d_A, n, d_info);
    if (order == LOOK_TOP) potrf_tiled_kernel<NB, LOOK_TOP><<<1, dim3(1, NB, NB)>>>(d_A, n, d_info);
    KERNEL_TRY();
    return 0;
}

extern "C" int potrf_tiled(looking_order order, int nb, int n, float *d_A, int *d_info)
{
    if (n < 1 || order < 0 || order >= LOOK_COUNT) {
        course_report("potrf_tiled: need n >= 1 and a looking order (got n = %d, order = %d)\n", n, (int)order);
        return -1;
    }
    switch (nb) {
    case 4: return launch<4>(order, n, d_A, d_info);
    case 8: return launch<8>(order, n, d_A, d_info);
    case 16: return launch<16>(order, n, d_A, d_info);
    case 32: return launch<32>(order, n, d_A, d_info);
    }
    course_report("potrf_tiled: nb = %d is not compiled in (use 4, 8, 16 or 32)\n", nb);
    return -1;
}
