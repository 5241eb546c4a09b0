/* single_tile.cu - stage 02: one matrix in one shared-memory tile, factored by one thread block
 * with spotrf_tile. A grid of `count` blocks factors `count` independent matrices: the simplest
 * batched kernel, and the one that shows what shared-memory padding is worth.
 * Alone: make build/02_single_tile/bench_single_tile && build/02_single_tile/bench_single_tile */
#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "single_tile.h"
#include "tile_helpers.cuh"
#include "tile_rowmajor.cuh"

template <int NB, int PAD> __global__ void __launch_bounds__(NB *NB)
    potrf_single_tile_kernel(float *A, int n, int *info)
{
    constexpr int LD = tile_ld<NB, PAD>();
    __shared__ float S[NB * LD];
    __shared__ int s_info; // one per block = one per matrix
    rowmajor_matrix matrix = {A + (size_t)blockIdx.x * n * n, n};
    if (tile_row() == 0 && tile_col() == 0) s_info = 0;
    load_tile<NB, LD>(S, matrix, 0, 0);
    __syncthreads(); // tile and s_info ready
    spotrf_tile<NB, LD>(S, &s_info, 0);
    store_tile<NB, LD>(S, matrix, 0, 0);
    if (tile_row() == 0 && tile_col() == 0) info[blockIdx.x] = s_info;
}

template <int NB, int PAD> static int launch(int n, float *d_A, size_t count, int *d_info)
{
    /* One matrix per block; more than a grid holds go in several launches (launch_split.cuh), on
     * the default stream (stage 06's library door passes its caller's stream to its launches). */
    return launch_split(count, cudaStreamLegacy, [&](unsigned k, size_t first) {
        potrf_single_tile_kernel<NB, PAD><<<k, dim3(1, NB, NB)>>>(d_A + first * n * n, n, d_info + first);
    });
}

extern "C" int potrf_single_tile(int nb, int pad, int n, float *d_A, size_t count, int *d_info)
{
    if (n < 1 || n > nb || (pad != 0 && pad != 1)) {
        course_report("potrf_single_tile: need 1 <= n <= nb and pad 0 or 1 (got n = %d, nb = %d, pad = %d)\n", n, nb,
                      pad);
        return -1;
    }
    switch (nb * 2 + pad) {
    case 8: return launch<4, 0>(n, d_A, count, d_info);
    case 9: return launch<4, 1>(n, d_A, count, d_info);
    case 16: return launch<8, 0>(n, d_A, count, d_info);
    case 17: return launch<8, 1>(n, d_A, count, d_info);
    case 32: return launch<16, 0>(n, d_A, count, d_info);
    case 33: return launch<16, 1>(n, d_A, count, d_info);
    case 64: return launch<32, 0>(n, d_A, count, d_info);
    case 65: return launch<32, 1>(n, d_A, count, d_info);
    }
    course_report("potrf_single_tile: nb = %d is not compiled in (use 4, 8, 16 or 32)\n", nb);
    return -1;
}

/* ---- unit-test kernel: every helper, every NB from 1 to 32 ---------------------------------- */

template <int NB>
__global__ void helper_test_kernel(int op, int base, int preset, const float *in, float *out, int *info)
{
    constexpr int LD = tile_ld<NB, 1>();
    __shared__ float T[3][NB * LD];
    __shared__ int s_info;
    const int tx = tile_col(), ty = tile_row();
    for (int t = 0; t < 3; t++) T[t][ty * LD + tx] = in[t * NB * NB + ty * NB + tx];
    if (tx == 0 && ty == 0) s_info = preset;
    __syncthreads();
    if (op == 0) spotrf_tile<NB, LD>(T[0], &s_info, base);
    if (op == 1) strsm_tile<NB, LD>(T[0], T[1]);
    if (op == 2 || op == 4) ssyrk_tile<NB, LD>(T[0], T[1]);
    if (op == 3 || op == 5) sgemm_tile<NB, LD>(T[0], T[1], T[2]);
    if (op >= 4) sgemm_tile<NB, LD>(T[2], T[1], T[0]); // reads rows of T0 that other threads wrote
    out[ty * NB + tx] = T[op >= 4 ? 2 : 0][ty * LD + tx];
    if (tx == 0 && ty == 0) *info = s_info;
}

template <int NB>
static int helper_dispatch(int nb, int op, int base, int preset, const float *d_in, float *d_out, int *d_info)
{
    if (nb != NB) return helper_dispatch<NB - 1>(nb, op, base, preset, d_in, d_out, d_info);
    helper_test_kernel<NB><<<1, dim3(1, NB, NB)>>>(op, base, preset, d_in, d_out, d_info);
    KERNEL_CHECK();
    return 0;
}

template <> int helper_dispatch<0>(int, int, int, int, const float *, float *, int *) { return -1; }

extern "C" int tile_helper_test(int nb, int op, int base, int preset, const float *d_in, float *d_out, int *d_info)
{
    if (op < 0 || op >= TILE_HELPER_OPS || nb < 1 || nb > 32) return -1;
    return helper_dispatch<32>(nb, op, base, preset, d_in, d_out, d_info);
}
