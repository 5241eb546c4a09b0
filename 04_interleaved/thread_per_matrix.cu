/* thread_per_matrix.cu - stages 04-05, the fast variant: one thread factors one matrix, holding
 * NB x NB tiles in registers (the approach of Gates et al., IPDPSW 2017).
 *
 * Why it wins for small n: the tile kernel spends most of its time in __syncthreads() and in
 * shared-memory traffic for tiles of a few dozen elements. Here a thread owns its matrix alone:
 * no barriers, no shared memory, and the arithmetic runs from registers. Memory stays coalesced
 * because of the layout: thread t of a warp factors matrix b0 + t, and element (i, j) of
 * matrices b0 .. b0+31 lies at 32 consecutive addresses (interleaved) - one 128-byte line per
 * warp-wide load, every byte of it used.
 *
 * The order is left-looking by tile columns: for column k, the diagonal tile is brought up to
 * date from the columns to its left (c -= x x^T, one column of x at a time, an outer product in
 * registers), factored, and kept in registers; then each tile below it is updated the same way
 * (c -= x y^T) and solved against it. Every element is written once; the reads of columns to
 * the left mostly hit L1/L2. With `unroll` the loop over those columns is unrolled, so the
 * loads of several columns are in flight together (memory latency hidden by ILP).
 *
 * Remainder tiles: rows and columns past n are the identity in the diagonal tile and zero
 * elsewhere; they are never stored.
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 32 --batch 100000 --kernel thread --nb 4 */
#include <stdio.h>
#include "batched_cholesky.h"
#include "cuda_check.h"
#include "launch_split.cuh"
#include "layout.h"
#include "register_tiles.cuh"

/* At most 256 threads per block: the bound lets each thread have up to 255 registers, which the
 * NB = 8 tiles need (with 1024, the compiler must fit in 64 and spills the tiles to memory). */
#define THREAD_MAX_PER_BLOCK 256

/* Element (i, j) of this thread's matrix. */
#define AT(i, j) a[((size_t)(i)*n + (j)) * s]

template <int NB, int UNROLL> __global__ void __launch_bounds__(THREAD_MAX_PER_BLOCK)
    potrf_thread_kernel(float *A, int n, size_t batch, size_t chunk, size_t first, int *info)
{
    static_assert(NB >= 1 && NB <= 8, "register tiles past 8 x 8 do not fit in 255 registers");
    static_assert(UNROLL >= 1, "unroll is a positive count");
    const size_t b = first + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return; /* no barriers here: a thread may leave early */
    const matrix_place place = chunked_place(n, chunk, batch, b);
    float *a = A + place.base;
    const size_t s = place.stride;
    const int nt = (n + NB - 1) / NB; /* ceil: the remainder tile is not dropped */
    int my_info = 0;
    // BEGIN SOLUTION: left-looking by tile columns on NB x NB register tiles: update, factor and store each diagonal tile, then update, solve and store the tiles below it, and zero the tiles above it; my_info on failure
    // stub: (void)a; (void)s; (void)nt;
    for (int k = 0; k < nt; k++) {
        const int k0 = k * NB;
        float l[NB][NB], linv[NB];
        /* Diagonal tile (k, k): load (identity outside the matrix), c -= sum_p x_p x_p^T, factor. */
#pragma unroll
        for (int r = 0; r < NB; r++)
#pragma unroll
            for (int q = 0; q <= r; q++) l[r][q] = (k0 + r < n) ? AT(k0 + r, k0 + q) : (r == q ? 1.0f : 0.0f);
#pragma unroll UNROLL
        for (int p = 0; p < k0; p++) {
            float x[NB];
#pragma unroll
            for (int r = 0; r < NB; r++) x[r] = (k0 + r < n) ? AT(k0 + r, p) : 0.0f;
#pragma unroll
            for (int r = 0; r < NB; r++)
#pragma unroll
                for (int q = 0; q <= r; q++) l[r][q] -= x[r] * x[q];
        }
        potrf_registers<NB>(l, k0, n, &my_info);
        /* Stored even when a pivot failed: its rows before the pivot are the leading minor's factor. */
#pragma unroll
        for (int r = 0; r < NB; r++)
#pragma unroll
            for (int q = 0; q < NB; q++)
                if (k0 + r < n && k0 + q < n) AT(k0 + r, k0 + q) = q <= r ? l[r][q] : 0.0f;
        if (my_info) break; /* the rest of a failed matrix is unspecified */
#pragma unroll
        for (int r = 0; r < NB; r++) linv[r] = 1.0f / l[r][r];
        /* Tiles (i, k) below: load, c -= sum_p x_p y_p^T, solve with L_kk^T, store. */
        for (int i = k + 1; i < nt; i++) {
            const int i0 = i * NB;
            float c[NB][NB];
#pragma unroll
            for (int r = 0; r < NB; r++)
#pragma unroll
                for (int q = 0; q < NB; q++) c[r][q] = (i0 + r < n) ? AT(i0 + r, k0 + q) : 0.0f;
#pragma unroll UNROLL
            for (int p = 0; p < k0; p++) {
                float x[NB], y[NB];
#pragma unroll
                for (int r = 0; r < NB; r++) x[r] = (i0 + r < n) ? AT(i0 + r, p) : 0.0f;
#pragma unroll
                for (int q = 0; q < NB; q++) y[q] = AT(k0 + q, p); /* k < nt-1: rows k0..k0+NB-1 exist */
#pragma unroll
                for (int r = 0; r < NB; r++)
#pragma unroll
                    for (int q = 0; q < NB; q++) c[r][q] -= x[r] * y[q];
            }
            strsm_registers<NB>(c, l, linv);
#pragma unroll
            for (int r = 0; r < NB; r++)
#pragma unroll
                for (int q = 0; q < NB; q++)
                    if (i0 + r < n) AT(i0 + r, k0 + q) = c[r][q];
        }
        /* Above the diagonal tile: zeros (the output contract). */
        for (int r = 0; r < k0; r++)
#pragma unroll
            for (int q = 0; q < NB; q++)
                if (k0 + q < n) AT(r, k0 + q) = 0.0f;
    }
    // END SOLUTION
    info[b] = my_info;
}

template <int NB, int UNROLL>
static int launch(int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info, cudaStream_t stream)
{
    return launch_split((batch + per_block - 1) / per_block, stream, [&](unsigned k, size_t first_block) {
        potrf_thread_kernel<NB, UNROLL>
            <<<k, per_block, 0, stream>>>(d_A, n, batch, chunk, first_block * per_block, d_info);
    });
}

template <int NB> static int launch_unroll(int unroll, int per_block, int n, size_t batch, size_t chunk, float *d_A,
                                           int *d_info, cudaStream_t stream)
{
    switch (unroll) {
    case 1: return launch<NB, 1>(per_block, n, batch, chunk, d_A, d_info, stream);
    case 2: return launch<NB, 2>(per_block, n, batch, chunk, d_A, d_info, stream);
    case 4: return launch<NB, 4>(per_block, n, batch, chunk, d_A, d_info, stream);
    }
    course_report("potrf_batched_thread: unroll = %d is not compiled in\n", unroll);
    return -1;
}

extern "C" int potrf_batched_thread(int nb, int unroll, int per_block, int n, size_t batch, size_t chunk, float *d_A,
                                    int *d_info, cudaStream_t stream)
{
    switch (nb) {
    case 2: return launch_unroll<2>(unroll, per_block, n, batch, chunk, d_A, d_info, stream);
    case 4: return launch_unroll<4>(unroll, per_block, n, batch, chunk, d_A, d_info, stream);
    case 8: return launch_unroll<8>(unroll, per_block, n, batch, chunk, d_A, d_info, stream);
    }
    course_report("potrf_batched_thread: nb = %d is not compiled in\n", nb);
    return -1;
}
