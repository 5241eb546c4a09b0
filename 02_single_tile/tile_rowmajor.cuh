/* tile_rowmajor.cuh - moving a tile between a row-major n x n matrix in global memory and
 * shared memory (stride LD), for the single-matrix stages 02 and 03. Thread (ty, tx) moves
 * element (ty, tx) of tile (ti, tj).
 *
 * Remainder tiles: when n is not a multiple of NB, the last tile row/column sticks out of the
 * matrix. Loading pads it with the identity (1 on the global diagonal, 0 elsewhere), so the helpers
 * can always work on full NB x NB tiles: the padded part factors to the identity and never
 * touches the real part. Storing writes only elements inside the matrix. */
#ifndef TILE_ROWMAJOR_CUH
#define TILE_ROWMAJOR_CUH

#include <stddef.h>

template <int NB, int LD>
__device__ void load_tile_rowmajor(float *S, const float *A, int n, int ti, int tj)
{
    const int i = ti * NB + (int)threadIdx.y, j = tj * NB + (int)threadIdx.x;
    S[threadIdx.y * LD + threadIdx.x] = (i < n && j < n) ? A[(size_t)i * n + j] : (i == j ? 1.0f : 0.0f);
}

/* The strict upper part of a diagonal tile is written as zero (the course's output contract). */
template <int NB, int LD>
__device__ void store_tile_rowmajor(const float *S, float *A, int n, int ti, int tj)
{
    const int i = ti * NB + (int)threadIdx.y, j = tj * NB + (int)threadIdx.x;
    if (i < n && j < n) A[(size_t)i * n + j] = j > i ? 0.0f : S[threadIdx.y * LD + threadIdx.x];
}

#endif
