/* thread_orders.cu - stage 04's thread-per-matrix kernel in the other two looking orders, so that
 * the sweep covers all the tunables of Gates et al. for it: NB, looking order, chunk, unroll.
 * One thread, one matrix, NB x NB register tiles (register_tiles.cuh), no barriers.
 *
 *   right-looking  after factoring tile column k, update the whole trailing matrix at once:
 *                  every tile (i, j), k < j <= i, is read, updated with one product and written
 *                  back - about nt^3/6 tile loads and stores;
 *   top-looking    tile row by tile row: tile (i, j) of row i is brought up to date from the
 *                  rows above it (finished) and solved; then the diagonal tile; every tile is
 *                  written once, like left-looking, but it reads along rows.
 * `unroll` unrolls the innermost loop over tiles (right) or columns (top), as in stage 04.
 * Rows and columns past n are the identity in a diagonal tile and zero elsewhere, never stored.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel thread --order right --nb 4 --n 20 --batch 100000 */
#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "family.h"
#include "layout.h"
#include "register_tiles.cuh"

#define ORDERS_MAX_PER_BLOCK 256
#define AT(i, j) a[((size_t)(i)*n + (j)) * s]

/* Load tile (i0, j0) into c: zero outside the matrix, identity on a diagonal tile's padding. */
template <int NB>
__device__ __forceinline__ void load_tile_regs(float (&c)[NB][NB], const float *a, size_t s, int n, int i0, int j0)
{
#pragma unroll
    for (int r = 0; r < NB; r++)
#pragma unroll
        for (int q = 0; q < NB; q++)
            c[r][q] = (i0 + r < n && j0 + q < n) ? AT(i0 + r, j0 + q) : (i0 == j0 && r == q ? 1.0f : 0.0f);
}

/* Store tile (i0, j0); on the diagonal the upper part is written as zeros. */
template <int NB>
__device__ __forceinline__ void store_tile_regs(const float (&c)[NB][NB], float *a, size_t s, int n, int i0, int j0)
{
#pragma unroll
    for (int r = 0; r < NB; r++)
#pragma unroll
        for (int q = 0; q < NB; q++)
            if (i0 + r < n && j0 + q < n) AT(i0 + r, j0 + q) = (i0 == j0 && q > r) ? 0.0f : c[r][q];
}

template <int NB> __device__ __forceinline__ void diag_inverse(const float (&l)[NB][NB], float (&linv)[NB])
{
#pragma unroll
    for (int r = 0; r < NB; r++) linv[r] = 1.0f / l[r][r];
}

/* One matrix (element (i, j) at a[(i n + j) s]), right-looking; returns its info. */
template <int NB, int UNROLL> __device__ int right_looking_thread(float *a, size_t s, int n)
{
    const int nt = (n + NB - 1) / NB;
    int my_info = 0;
    for (int k = 0; k < nt && !my_info; k++) {
        const int k0 = k * NB;
        float l[NB][NB], linv[NB];
        load_tile_regs<NB>(l, a, s, n, k0, k0); /* already up to date: the updates came from the left */
        potrf_registers<NB>(l, k0, n, &my_info);
        store_tile_regs<NB>(l, a, s, n, k0, k0); /* even on failure: the rows before the pivot are defined */
        if (my_info) break;
        diag_inverse<NB>(l, linv);
        for (int i = k + 1; i < nt; i++) { /* the panel below: solve */
            float c[NB][NB];
            load_tile_regs<NB>(c, a, s, n, i * NB, k0);
            strsm_registers<NB>(c, l, linv);
            store_tile_regs<NB>(c, a, s, n, i * NB, k0);
        }
        for (int j = k + 1; j < nt; j++) { /* the trailing matrix: A(i, j) -= L(i, k) L(j, k)^T */
            float y[NB][NB];
            load_tile_regs<NB>(y, a, s, n, j * NB, k0);
#pragma unroll UNROLL
            for (int i = j; i < nt; i++) {
                float x[NB][NB], c[NB][NB];
                load_tile_regs<NB>(x, a, s, n, i * NB, k0);
                load_tile_regs<NB>(c, a, s, n, i * NB, j * NB);
#pragma unroll
                for (int r = 0; r < NB; r++)
#pragma unroll
                    for (int q = 0; q < NB; q++)
#pragma unroll
                        for (int p = 0; p < NB; p++) c[r][q] -= x[r][p] * y[q][p];
                store_tile_regs<NB>(c, a, s, n, i * NB,
                                    j * NB); /* on the diagonal: upper part zeroed, and never read */
            }
        }
        for (int r = 0; r < k0; r++) /* above the diagonal tile: zeros (the output contract) */
#pragma unroll
            for (int q = 0; q < NB; q++)
                if (k0 + q < n) AT(r, k0 + q) = 0.0f;
    }
    return my_info;
}

/* One matrix, top-looking; returns its info. */
template <int NB, int UNROLL> __device__ int top_looking_thread(float *a, size_t s, int n)
{
    const int nt = (n + NB - 1) / NB;
    int my_info = 0;
    for (int i = 0; i < nt && !my_info; i++) {
        const int i0 = i * NB;
        for (int j = 0; j < i; j++) { /* tile (i, j) = (A(i, j) - sum_p L(i, p) L(j, p)^T) L(j, j)^-T */
            const int j0 = j * NB;
            float c[NB][NB], l[NB][NB], linv[NB];
            load_tile_regs<NB>(c, a, s, n, i0, j0);
#pragma unroll UNROLL
            for (int p = 0; p < j0; p++) {
                float x[NB], y[NB];
#pragma unroll
                for (int r = 0; r < NB; r++) x[r] = (i0 + r < n) ? AT(i0 + r, p) : 0.0f;
#pragma unroll
                for (int q = 0; q < NB; q++) y[q] = AT(j0 + q, p); /* j < i: rows j0 .. j0+NB-1 exist */
#pragma unroll
                for (int r = 0; r < NB; r++)
#pragma unroll
                    for (int q = 0; q < NB; q++) c[r][q] -= x[r] * y[q];
            }
            load_tile_regs<NB>(l, a, s, n, j0, j0); /* L(j, j), finished on an earlier row */
            diag_inverse<NB>(l, linv);
            strsm_registers<NB>(c, l, linv);
            store_tile_regs<NB>(c, a, s, n, i0, j0);
        }
        float l[NB][NB]; /* the diagonal tile: A(i, i) - sum_p L(i, p) L(i, p)^T, factored */
        load_tile_regs<NB>(l, a, s, n, i0, i0);
#pragma unroll UNROLL
        for (int p = 0; p < i0; p++) {
            float x[NB];
#pragma unroll
            for (int r = 0; r < NB; r++) x[r] = (i0 + r < n) ? AT(i0 + r, p) : 0.0f;
#pragma unroll
            for (int r = 0; r < NB; r++)
#pragma unroll
                for (int q = 0; q <= r; q++) l[r][q] -= x[r] * x[q];
        }
        potrf_registers<NB>(l, i0, n, &my_info);
        store_tile_regs<NB>(l, a, s, n, i0, i0); /* even on failure: the rows before the pivot are defined */
        if (my_info) break;
#pragma unroll
        for (int r = 0; r < NB; r++) /* right of the diagonal tile: zeros (the output contract) */
            if (i0 + r < n)
                for (int q = i0 + NB; q < n; q++) AT(i0 + r, q) = 0.0f;
    }
    return my_info;
}

/* Thread b of the grid factors matrix first + b of the batch, in the order ORDER. */
template <looking_order ORDER, int NB, int UNROLL> __global__ void __launch_bounds__(ORDERS_MAX_PER_BLOCK)
    potrf_thread_order_kernel(float *A, int n, size_t batch, size_t chunk, size_t first, int *info)
{
    const size_t b = first + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const matrix_place place = chunked_place(n, chunk, batch, b);
    info[b] = ORDER == LOOK_RIGHT ? right_looking_thread<NB, UNROLL>(A + place.base, place.stride, n)
                                  : top_looking_thread<NB, UNROLL>(A + place.base, place.stride, n);
}

template <int NB, int UNROLL> static int launch(looking_order order, int per_block, int n, size_t batch, size_t chunk,
                                                float *d_A, int *d_info, cudaStream_t stream)
{
    auto kernel = order == LOOK_RIGHT ? potrf_thread_order_kernel<LOOK_RIGHT, NB, UNROLL>
                                      : potrf_thread_order_kernel<LOOK_TOP, NB, UNROLL>;
    return launch_split((batch + per_block - 1) / per_block, stream, [&](unsigned k, size_t first_block) {
        kernel<<<k, per_block, 0, stream>>>(d_A, n, batch, chunk, first_block * per_block, d_info);
    });
}

template <int NB> static int launch_unroll(looking_order order, int unroll, int per_block, int n, size_t batch,
                                           size_t chunk, float *d_A, int *d_info, cudaStream_t stream)
{
    switch (unroll) {
    case 1: return launch<NB, 1>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    case 2: return launch<NB, 2>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    case 4: return launch<NB, 4>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    }
    course_report("potrf_batched_thread_order: unroll = %d is not compiled in\n", unroll);
    return -1;
}

extern "C" int potrf_batched_thread_order(looking_order order, int nb, int unroll, int per_block, int n, size_t batch,
                                          size_t chunk, float *d_A, int *d_info, cudaStream_t stream)
{
    if (order != LOOK_RIGHT && order != LOOK_TOP) {
        course_report("potrf_batched_thread_order: order %d is not right or top\n", (int)order);
        return -1;
    }
    switch (nb) {
    case 2: return launch_unroll<2>(order, unroll, per_block, n, batch, chunk, d_A, d_info, stream);
    case 4: return launch_unroll<4>(order, unroll, per_block, n, batch, chunk, d_A, d_info, stream);
    case 8: return launch_unroll<8>(order, unroll, per_block, n, batch, chunk, d_A, d_info, stream);
    }
    course_report("potrf_batched_thread_order: nb = %d is not compiled in\n", nb);
    return -1;
}
