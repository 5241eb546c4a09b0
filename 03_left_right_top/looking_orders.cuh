/* looking_orders.cuh - the right-, left- and top-looking loop orders, written once for every
 * stage that works tile by tile: stage 03 (one row-major matrix per block) and stages 04-05 (a
 * batch in an interleaved layout, several matrices per block).
 *
 * With nt = ceil(n / NB) tile rows, tile (i, j) for i >= j, and at step k:
 *   right-looking: factor (k,k); solve the column below it; update the whole trailing matrix
 *                  (i,j) -= (i,k)(j,k)^T for k < j <= i. Writes the most, reads the least.
 *   left-looking:  bring column k up to date from all columns to its left, (i,k) -= (i,j)(k,j)^T
 *                  for j < k, then factor (k,k) and solve below it. Each tile written once.
 *   top-looking:   for tile row k: each tile (k,j), j < k, is updated from the rows above and
 *                  solved with (j,j); then the diagonal tile (k,k) is updated and factored.
 * See the stage 03 README for a picture of which tiles each order reads and writes at step k.
 *
 * Where a tile lives is not this file's business. The loops see the matrix as a value M of some
 * type (rowmajor_matrix in stage 03, batched_matrix in stages 04-05) and move tiles with
 * load_tile<NB, LD>(S, M, ti, tj) and store_tile<NB, LD>(S, M, ti, tj), which each layout
 * provides for its own type, declared before this file is included (tile_rowmajor.cuh,
 * tile_batched.cuh). The contract of those two functions:
 *   - thread (tile_row(), tile_col()) moves element (tile_row(), tile_col()) of the tile;
 *   - load pads what lies outside the matrix with the identity (remainder tiles);
 *   - store writes only elements inside the matrix, and zeros above the diagonal.
 *
 * Barriers: a thread always loads and stores the same element of a tile, so a value that goes
 * through device memory is read back by the thread that wrote it: device memory never carries
 * data between threads and needs no barrier. Threads share data only in shared memory: a
 * __syncthreads() stands between the loads of a tile and the helper that reads it, and every
 * helper ends with one before its tiles are reused.
 *
 * Failures: when a pivot fails, spotrf_tile records info and leaves NaNs that spread through the
 * rest of that matrix only. The loops do not stop early: the other matrices of a block share the
 * barriers and must go on (the contents of a failed matrix are unspecified; its info is exact).
 * The line below runs right-looking with NB = 32 over four tiles; build/03_left_right_top/test_tiled runs all
 * three orders and every NB.
 * Alone: make build/03_left_right_top/cholesky_one && build/03_left_right_top/cholesky_one --n 100 --mode block */
#ifndef LOOKING_ORDERS_CUH
#define LOOKING_ORDERS_CUH

#include "tile_helpers.cuh"
#include "tiled_cholesky.h" /* looking_order */

/* One "load a tile" / "store a tile" pair, so the three orders below read like their pseudo-code. */
#define LOAD(S, ti, tj) load_tile<NB, LD>(S, M, ti, tj)
#define STORE(S, ti, tj) store_tile<NB, LD>(S, M, ti, tj)

template <int NB, int LD, typename Matrix>
__device__ void right_looking(Matrix M, int nt, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    // BEGIN SOLUTION: right-looking: factor (k,k), solve the panel below it, update the trailing matrix
    for (int k = 0; k < nt; k++) {
        LOAD(Sd, k, k);
        __syncthreads();
        spotrf_tile<NB, LD>(Sd, s_info, k * NB);
        STORE(Sd, k, k);
        for (int i = k + 1; i < nt; i++) { // the panel below the diagonal tile
            LOAD(Sc, i, k);
            __syncthreads();
            strsm_tile<NB, LD>(Sc, Sd);
            STORE(Sc, i, k);
        }
        for (int i = k + 1; i < nt; i++) // the trailing matrix
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
 * left. Leaves L_kk in Sd. */
template <int NB, int LD, typename Matrix>
__device__ void update_and_factor_diagonal(Matrix M, int k, float *Sd, float *Sa, int *s_info)
{
    LOAD(Sd, k, k);
    for (int m = 0; m < k; m++) {
        LOAD(Sa, k, m);
        __syncthreads();
        ssyrk_tile<NB, LD>(Sd, Sa);
    }
    __syncthreads();
    spotrf_tile<NB, LD>(Sd, s_info, k * NB);
    STORE(Sd, k, k);
}

/* Tile (i,j), i > j <- (A_ij - sum_{m<j} A_im A_jm^T) L_jj^-T, with L_jj already in Sd. */
template <int NB, int LD, typename Matrix>
__device__ void update_and_solve_offdiagonal(Matrix M, int i, int j, float *Sd, float *Sc, float *Sa, float *Sb)
{
    LOAD(Sc, i, j);
    for (int m = 0; m < j; m++) {
        LOAD(Sa, i, m);
        LOAD(Sb, j, m);
        __syncthreads();
        sgemm_tile<NB, LD>(Sc, Sa, Sb);
    }
    __syncthreads(); // Sc (and Sd) loaded before the solve reads them
    strsm_tile<NB, LD>(Sc, Sd);
    STORE(Sc, i, j);
}

template <int NB, int LD, typename Matrix>
__device__ void left_looking(Matrix M, int nt, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    // BEGIN SOLUTION: left-looking: for each tile column k, the diagonal tile, then the tiles below it
    for (int k = 0; k < nt; k++) {
        update_and_factor_diagonal<NB, LD>(M, k, Sd, Sa, s_info); // column k's top
        for (int i = k + 1; i < nt; i++)                          // and below it
            update_and_solve_offdiagonal<NB, LD>(M, i, k, Sd, Sc, Sa, Sb);
    }
    // END SOLUTION
}

template <int NB, int LD, typename Matrix>
__device__ void top_looking(Matrix M, int nt, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    // BEGIN SOLUTION: top-looking: for each tile row k, the tiles left of the diagonal, then the diagonal tile
    for (int k = 0; k < nt; k++) {
        for (int j = 0; j < k; j++) { // row k, left of the diagonal
            LOAD(Sd, j, j);           // the factored diagonal tile above (k,j)
            update_and_solve_offdiagonal<NB, LD>(M, k, j, Sd, Sc, Sa, Sb);
        }
        update_and_factor_diagonal<NB, LD>(M, k, Sd, Sa, s_info); // then (k,k)
    }
    // END SOLUTION
}

/* Tiles above the diagonal are never touched by the orders: write them as zero (the output
 * contract). store_tile writes zero above the diagonal, so storing any tile there does it. */
template <int NB, int LD, typename Matrix> __device__ void zero_upper_tiles(Matrix M, int nt, const float *S)
{
    for (int i = 0; i < nt; i++)
        for (int j = i + 1; j < nt; j++) STORE(S, i, j);
}

/* All three orders behind one switch on the compile-time order. */
template <int NB, int LD, looking_order ORDER, typename Matrix>
__device__ void factor_tiled(Matrix M, int n, float *Sd, float *Sc, float *Sa, float *Sb, int *s_info)
{
    const int nt = (n + NB - 1) / NB; // ceil: the remainder tile is NOT dropped
    if (ORDER == LOOK_RIGHT) right_looking<NB, LD>(M, nt, Sd, Sc, Sa, Sb, s_info);
    if (ORDER == LOOK_LEFT) left_looking<NB, LD>(M, nt, Sd, Sc, Sa, Sb, s_info);
    if (ORDER == LOOK_TOP) top_looking<NB, LD>(M, nt, Sd, Sc, Sa, Sb, s_info);
    zero_upper_tiles<NB, LD>(M, nt, Sd);
}

#undef LOAD
#undef STORE

#endif
