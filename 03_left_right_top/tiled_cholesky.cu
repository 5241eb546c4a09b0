/* tiled_cholesky.cu - stage 03: one matrix of any order n, cut into NB x NB tiles, factored by
 * one thread block. The matrix stays in global memory; the tiles being worked on are copied into
 * shared memory and handed to the stage 02 helpers. The three kernels differ only in loop order.
 *
 * With nt = ceil(n / NB) tile rows, tile (i, j) for i >= j, and at step k:
 *   right-looking: factor (k,k); solve the column below it; update the whole trailing matrix
 *                  (i,j) -= (i,k)(j,k)^T for k < j <= i. Writes the most, reads the least.
 *   left-looking:  bring column k up to date from all columns to its left, (i,k) -= (i,j)(k,j)^T
 *                  for j < k, then factor (k,k) and solve below it. Each tile written once.
 *   top-looking:   for tile row k: each tile (k,j), j < k, is updated from the rows above and
 *                  solved with (j,j); then the diagonal tile (k,k) is updated and factored.
 * See the README for a picture of which tiles each order reads and writes at step k.
 *
 * Barriers: thread (ty, tx) always loads and stores element (ty, tx) of a tile, so a value that
 * goes through device memory is read back by the thread that wrote it - device memory never
 * carries data between threads, and needs no barrier. Threads share data only in shared memory:
 * a __syncthreads() stands between the loads of a tile and the helper that reads it, and every
 * helper ends with one before its tiles are reused. */
#include <stdio.h>
#include "cuda_check.h"
#include "tile_helpers.cuh"
#include "tile_rowmajor.cuh"
#include "tiled_cholesky.h"

#define PAD 1

/* One "load a tile" / "store a tile" pair, so the three orders below read like their pseudo-code. */
#define LOAD(S, ti, tj) load_tile_rowmajor<NB, LD>(S, A, n, ti, tj)
#define STORE(S, ti, tj) store_tile_rowmajor<NB, LD>(S, A, n, ti, tj)

template <int NB, int LD>
__device__ void right_looking(float *A, int n, int nt, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    // BEGIN SOLUTION
    for (int k = 0; k < nt; k++) {
        LOAD(Sd, k, k);
        __syncthreads();
        spotrf_tile<NB, LD>(Sd, s_info, k * NB);
        if (*s_info) return;                    // uniform: s_info is shared and synchronized
        STORE(Sd, k, k);
        for (int i = k + 1; i < nt; i++) {      // the panel below the diagonal tile
            LOAD(Sc, i, k);
            __syncthreads();
            strsm_tile<NB, LD>(Sc, Sd);
            STORE(Sc, i, k);
        }
        for (int i = k + 1; i < nt; i++)        // the trailing matrix
            for (int j = k + 1; j <= i; j++) {
                LOAD(Sc, i, j);
                LOAD(Sa, i, k);
                if (i != j) LOAD(Sb, j, k);
                __syncthreads();
                if (i == j) ssyrk_tile<NB, LD>(Sc, Sa);
                else sgemm_tile<NB, LD>(Sc, Sa, Sb);
                STORE(Sc, i, j);
            }
    }
    // END SOLUTION
}

/* Two steps that left- and top-looking share (right-looking updates in the other direction). */

/* Tile (k,k) <- chol(A_kk - sum_{m<k} A_km A_km^T), the updates coming from the tiles to its
 * left. Leaves L_kk in Sd. Returns nonzero if a pivot failed (*s_info is then set). */
template <int NB, int LD>
__device__ int update_and_factor_diagonal(float *A, int n, int k, float *Sd, float *Sa, int *s_info)
{
    LOAD(Sd, k, k);
    for (int m = 0; m < k; m++) {
        LOAD(Sa, k, m);
        __syncthreads();
        ssyrk_tile<NB, LD>(Sd, Sa);
    }
    __syncthreads();
    spotrf_tile<NB, LD>(Sd, s_info, k * NB);
    if (*s_info) return 1;
    STORE(Sd, k, k);
    return 0;
}

/* Tile (i,j), i > j <- (A_ij - sum_{m<j} A_im A_jm^T) L_jj^-T, with L_jj already in Sd. */
template <int NB, int LD>
__device__ void update_and_solve_offdiagonal(float *A, int n, int i, int j, float *Sd, float *Sc, float *Sa, float *Sb)
{
    LOAD(Sc, i, j);
    for (int m = 0; m < j; m++) {
        LOAD(Sa, i, m);
        LOAD(Sb, j, m);
        __syncthreads();
        sgemm_tile<NB, LD>(Sc, Sa, Sb);
    }
    __syncthreads();                            // Sc (and Sd) loaded before the solve reads them
    strsm_tile<NB, LD>(Sc, Sd);
    STORE(Sc, i, j);
}

template <int NB, int LD>
__device__ void left_looking(float *A, int n, int nt, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    // BEGIN SOLUTION
    for (int k = 0; k < nt; k++) {
        if (update_and_factor_diagonal<NB, LD>(A, n, k, Sd, Sa, s_info)) return;  // column k's top
        for (int i = k + 1; i < nt; i++)                                          // and below it
            update_and_solve_offdiagonal<NB, LD>(A, n, i, k, Sd, Sc, Sa, Sb);
    }
    // END SOLUTION
}

template <int NB, int LD>
__device__ void top_looking(float *A, int n, int nt, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    // BEGIN SOLUTION
    for (int k = 0; k < nt; k++) {
        for (int j = 0; j < k; j++) {           // row k, left of the diagonal
            LOAD(Sd, j, j);                     // the factored diagonal tile above (k,j)
            update_and_solve_offdiagonal<NB, LD>(A, n, k, j, Sd, Sc, Sa, Sb);
        }
        if (update_and_factor_diagonal<NB, LD>(A, n, k, Sd, Sa, s_info)) return;  // then (k,k)
    }
    // END SOLUTION
}

template <int NB, looking_order ORDER>
__global__ void __launch_bounds__(NB * NB) potrf_tiled_kernel(float *A, int n, int *info)
{
    constexpr int LD = tile_ld<NB, PAD>();
    __shared__ float Sd[NB * LD], Sc[NB * LD], Sa[NB * LD], Sb[NB * LD];
    __shared__ int s_info;
    const int nt = (n + NB - 1) / NB;           // ceil: the remainder tile is NOT dropped
    if (threadIdx.x == 0 && threadIdx.y == 0) s_info = 0;
    __syncthreads();
    if (ORDER == LOOK_RIGHT) right_looking<NB, LD>(A, n, nt, Sd, Sc, Sa, Sb, &s_info);
    if (ORDER == LOOK_LEFT) left_looking<NB, LD>(A, n, nt, Sd, Sc, Sa, Sb, &s_info);
    if (ORDER == LOOK_TOP) top_looking<NB, LD>(A, n, nt, Sd, Sc, Sa, Sb, &s_info);
    __syncthreads();
    if (s_info == 0) {
        /* Tiles above the diagonal were never touched: write them as zero (the contract). */
        const int tid = threadIdx.y * NB + threadIdx.x;
        for (size_t e = tid; e < (size_t)n * n; e += NB * NB) {
            const int i = (int)(e / n), j = (int)(e % n);
            if (j / NB > i / NB) A[e] = 0.0f;
        }
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) *info = s_info;
}

const char *looking_name(looking_order order)
{
    static const char *const names[LOOK_COUNT] = {"right", "left", "top"};
    return order >= 0 && order < LOOK_COUNT ? names[order] : "?";
}

template <int NB>
static void launch(looking_order order, int n, float *d_A, int *d_info)
{
    if (order == LOOK_RIGHT) potrf_tiled_kernel<NB, LOOK_RIGHT><<<1, dim3(NB, NB)>>>(d_A, n, d_info);
    if (order == LOOK_LEFT) potrf_tiled_kernel<NB, LOOK_LEFT><<<1, dim3(NB, NB)>>>(d_A, n, d_info);
    if (order == LOOK_TOP) potrf_tiled_kernel<NB, LOOK_TOP><<<1, dim3(NB, NB)>>>(d_A, n, d_info);
    KERNEL_CHECK();
}

extern "C" int potrf_tiled(looking_order order, int nb, int n, float *d_A, int *d_info)
{
    if (n < 1 || order < 0 || order >= LOOK_COUNT) {
        fprintf(stderr, "potrf_tiled: need n >= 1 and a looking order (got n = %d, order = %d)\n", n, (int)order);
        return -1;
    }
    switch (nb) {
    case 4: launch<4>(order, n, d_A, d_info); return 0;
    case 8: launch<8>(order, n, d_A, d_info); return 0;
    case 16: launch<16>(order, n, d_A, d_info); return 0;
    case 32: launch<32>(order, n, d_A, d_info); return 0;
    }
    fprintf(stderr, "potrf_tiled: nb = %d is not compiled in (use 4, 8, 16 or 32)\n", nb);
    return -1;
}
