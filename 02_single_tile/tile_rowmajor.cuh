/* tile_rowmajor.cuh - moving a tile between a row-major n x n matrix in global memory and
 * shared memory (stride LD), for the single-matrix stages 02 and 03. Thread (tile_row(),
 * tile_col()) moves element (tile_row(), tile_col()) of tile (ti, tj).
 *
 * Remainder tiles: when n is not a multiple of NB, the last tile row/column sticks out of the
 * matrix. Loading pads it with the identity (1 on the global diagonal, 0 elsewhere), so the helpers
 * can always work on full NB x NB tiles: the padded part factors to the identity and never
 * touches the real part. Storing writes only elements inside the matrix.
 * Alone: make build/02_single_tile/bench_single_tile && build/02_single_tile/bench_single_tile */
#ifndef TILE_ROWMAJOR_CUH
#define TILE_ROWMAJOR_CUH

#include <stddef.h>
#include "tile_helpers.cuh"

/* One matrix, row-major: element (i, j) at A[i*n + j]. */
struct rowmajor_matrix {
    float *A;
    int n;
};

template <int NB, int LD> __device__ void load_tile(float *S, rowmajor_matrix M, int ti, int tj)
{
    const int ty = tile_row(), tx = tile_col(), i = ti * NB + ty, j = tj * NB + tx;
    S[ty * LD + tx] = (i < M.n && j < M.n) ? M.A[(size_t)i * M.n + j] : (i == j ? 1.0f : 0.0f);
}

/* The strict upper part of a diagonal tile is written as zero (the course's output contract). */
template <int NB, int LD> __device__ void store_tile(const float *S, rowmajor_matrix M, int ti, int tj)
{
    const int ty = tile_row(), tx = tile_col(), i = ti * NB + ty, j = tj * NB + tx;
    if (i < M.n && j < M.n) M.A[(size_t)i * M.n + j] = j > i ? 0.0f : S[ty * LD + tx];
}

#endif
