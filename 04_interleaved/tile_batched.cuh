/* tile_batched.cuh - moving a tile between a batch in the (chunked) interleaved layout and shared
 * memory: the stage 04-05 counterpart of tile_rowmajor.cuh, with the same contract (identity
 * padding outside the matrix, zeros stored above the diagonal; see looking_orders.cuh).
 *
 * Every layout of layout.h stores matrix b with equally spaced elements: element (i, j) at
 * base + (i*n + j)*stride (chunked_place). A batched_matrix is that place, computed once per
 * matrix. A block may run past the end of the batch (the last block of a batch that is not a
 * multiple of per_block): such a matrix is "absent", loads the identity and stores nothing.
 *
 * Thread (x, y, z) = (matrix in block, tile_col(), tile_row()): the 32 threads of a warp span
 * consecutive matrices first, so a tile load reads elements (i, j) of neighbouring matrices -
 * neighbouring addresses in the interleaved layout.
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 32 --batch 100000 --kernel tiles --nb 8 */
#ifndef TILE_BATCHED_CUH
#define TILE_BATCHED_CUH

#include <stddef.h>
#include "layout.h"
#include "tile_helpers.cuh"

struct batched_matrix {
    float *A;      /* element (0, 0) */
    size_t stride; /* distance between element e and e + 1 */
    int n;
    int present; /* b < batch */
};

__device__ inline batched_matrix batched_matrix_at(float *A, int n, size_t batch, size_t chunk, size_t b)
{
    batched_matrix M = {A, 0, n, b < batch};
    if (M.present) {
        matrix_place p = chunked_place(n, chunk, batch, b);
        M.A = A + p.base;
        M.stride = p.stride;
    }
    return M;
}

template <int NB, int LD> __device__ void load_tile(float *S, batched_matrix M, int ti, int tj)
{
    const int ty = tile_row(), tx = tile_col(), i = ti * NB + ty, j = tj * NB + tx;
    S[ty * LD + tx] =
        (M.present && i < M.n && j < M.n) ? M.A[((size_t)i * M.n + j) * M.stride] : (i == j ? 1.0f : 0.0f);
}

template <int NB, int LD> __device__ void store_tile(const float *S, batched_matrix M, int ti, int tj)
{
    const int ty = tile_row(), tx = tile_col(), i = ti * NB + ty, j = tj * NB + tx;
    if (M.present && i < M.n && j < M.n) M.A[((size_t)i * M.n + j) * M.stride] = j > i ? 0.0f : S[ty * LD + tx];
}

#endif
