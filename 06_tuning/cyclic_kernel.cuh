/* cyclic_kernel.cuh - stage 06's kernel for n = 48..128: a G x G grid of threads factors one
 * matrix, thread (p, q) holding the LOWER TRIANGLE of its 2D-cyclic share in registers
 * ("cyclic kernel"). Instantiated per (G, A) in cyclic_g*.cu; NMAX = G A is the largest n.
 *
 * Why not the rows kernel at large n: a thread of the rows kernel holds whole rows, so its
 * register array is a rectangle (R rows x NMAX columns) and every step updates all of it, the
 * part right of the diagonal too: at n = 100 with 32 threads it issues about 4x the n^3/6
 * multiply-adds the factorization needs, and 209 registers leave 8 warps per SM.
 *
 * The mapping (2D cyclic): thread (p, q), p, q = 0 .. G-1, owns the entries A(p + G a, q + G b)
 * for slots a, b = 0 .. A-1. Slot (a, b) with a > b lies below the diagonal whatever p and q are
 * (row >= G a > G b + G - 1 >= column), a < b above it, and a = b holds the diagonal block, where
 * p >= q decides. So the thread stores only the slots a >= b: A (A + 1) / 2 registers (36 for
 * G = 16, A = 8; 136 for G = 8, A = 16), indexed by compile-time constants.
 *
 * The algorithm: right-looking, one column per step, in panels of G columns. In panel P
 * (columns G P .. G P + G-1) column k = G P + c lives in slot b = P of the threads with q = c,
 * and the trailing matrix in slots a >= b >= P: with the panel loop written out (P is a template
 * parameter) every register index is a constant and the work shrinks with P, as the
 * factorization's does (about 1.2 x n^3/6 multiply-adds at G = 8, A = 16). Per step:
 *   - the owners of column k (q = c) have put it, unscaled, into a shared buffer;
 *   - one barrier; every thread reads the pivot d = A(k, k), its rows' and its columns' entries
 *     of column k (the buffer keeps each p's rows together: float4 loads);
 *   - the owners scale their column (L(i, k) = c_ik / sqrt(d)); everyone updates its slots right
 *     of column k: A(i, j) -= c_ik c_jk / d;
 *   - the owners of column k + 1 write it, now final, into the other buffer.
 * Double-buffering the column makes one barrier per step enough (as in the rows kernel).
 *
 * Memory: no staging. Each thread loads its slots straight from global memory (only the lower
 * triangle is read) and stores its factor entries and the zeros above the diagonal straight back:
 * a warp touches 32 / G rows of G consecutive floats per slot. That needs only that a matrix's
 * rows be contiguous: row-major data (chunk = 1) are read as they are, with no conversion.
 *
 * Rows and columns past n hold zeros and take no step. A failed matrix (pivot <= 0 or NaN) gets
 * info = k + 1 and carries on with garbage so that all threads take the same steps; the entries
 * above the diagonal in the diagonal slots collect garbage too and are never read as data.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel cyclic --threads 64 --n 100 --batch 26844 */
#ifndef CYCLIC_KERNEL_CUH
#define CYCLIC_KERNEL_CUH

#include "layout.h"

/* A block of the cyclic kernel has at most this many threads (up to 255 registers each). */
#define CYCLIC_MAX_BLOCK 256

/* Slot (a, b), a >= b, in the packed lower triangle. */
__host__ __device__ constexpr int cyclic_tri(int a, int b) { return a * (a + 1) / 2 + b; }

/* One buffer row per p: A entries rounded up to float4s, an odd number of float4s so that the
 * G rows a warp reads at once fall into different banks. */
__host__ __device__ constexpr int cyclic_stride(int A) { return ((A + 3) / 4 % 2 ? (A + 3) / 4 : (A + 3) / 4 + 1) * 4; }

/* Shared memory of one matrix: two column buffers. */
__host__ __device__ constexpr int cyclic_buf_floats(int G, int A) { return 2 * G * cyclic_stride(A); }

template <int G> __device__ __forceinline__ void cyclic_group_sync()
{
    if (G * G <= 32) __syncwarp();
    else __syncthreads();
}

/* Load entries [P, A) of one buffer row into v (float4 loads from the aligned 4-group down). */
template <int A, int P> __device__ __forceinline__ void cyclic_read_row(const float *row, float (&v)[A])
{
#pragma unroll
    for (int a4 = P / 4 * 4; a4 < A; a4 += 4) {
        const float4 x = *reinterpret_cast<const float4 *>(row + a4);
        v[a4] = x.x;
        if (a4 + 1 < A) v[a4 + 1] = x.y;
        if (a4 + 2 < A) v[a4 + 2] = x.z;
        if (a4 + 3 < A) v[a4 + 3] = x.w;
    }
}

/* Panel P: steps k = G P + c for c = 0 .. min(G, n - G P) - 1, then panel P + 1. */
template <int G, int A, int P> struct cyclic_panel {
    static __device__ __forceinline__ void run(float (&x)[cyclic_tri(A, 0)], float *buf, int n, int p, int q, int &my_info)
    {
        constexpr int S = cyclic_stride(A), B = G * S;
        if (G * P >= n) return;
        const int steps = n - G * P < G ? n - G * P : G;
#pragma unroll 1
        for (int c = 0; c < steps; c++) {
            const int k = G * P + c;
            cyclic_group_sync<G>(); /* column k is complete in buffer k & 1 */
            const float *col = buf + (k & 1) * B;
            float *next = buf + ((k + 1) & 1) * B;
            const float d = col[c * S + P];
            float rv[A], cv[A]; /* column k at my rows p + G a and at my columns q + G b */
            cyclic_read_row<A, P>(col + p * S, rv);
            cyclic_read_row<A, P>(col + q * S, cv);
            if (!(d > 0.0f) && my_info == 0) my_info = k + 1;
            const float inv = rsqrtf(d), dinv = inv * inv;
            const bool owner = q == c, right = q > c; /* column k itself / a column right of it, in slot P */
#pragma unroll
            for (int a = P; a < A; a++) {
                const float u = rv[a] * dinv; /* c_ik / d */
                float &y = x[cyclic_tri(a, P)];
                y = right ? fmaf(-u, cv[P], y) : owner ? y * inv : y; /* the diagonal: d / sqrt(d) */
#pragma unroll
                for (int b = P + 1; b <= a; b++) x[cyclic_tri(a, b)] = fmaf(-u, cv[b], x[cyclic_tri(a, b)]);
            }
            if (c + 1 < G) { /* column k + 1 is in the same slot, at q = c + 1 */
                if (q == c + 1)
#pragma unroll
                    for (int a = P; a < A; a++) next[p * S + a] = x[cyclic_tri(a, P)];
            } else if (P + 1 < A) { /* the next panel's first column: slot P + 1, q = 0 */
                if (q == 0)
#pragma unroll
                    for (int a = P + 1; a < A; a++) next[p * S + a] = x[cyclic_tri(a, P + 1)];
            }
        }
        cyclic_panel<G, A, P + 1>::run(x, buf, n, p, q, my_info);
    }
};
template <int G, int A> struct cyclic_panel<G, A, A> {
    static __device__ __forceinline__ void run(float (&)[cyclic_tri(A, 0)], float *, int, int, int, int &) {}
};

template <int G, int A>
__global__ void __launch_bounds__(CYCLIC_MAX_BLOCK) potrf_cyclic_kernel(float *Amat, int n, size_t batch, size_t chunk,
                                                                        size_t first, int per_block, int *info)
{
    static_assert(G == 4 || G == 8 || G == 16, "G x G threads per matrix: 16, 64 or 256");
    static_assert(cyclic_tri(A, 0) <= 160, "the triangle would not fit in registers");
    extern __shared__ __align__(16) float smem[];
    constexpr int T = G * G;
    const int m = threadIdx.x / T, r = threadIdx.x % T, p = r / G, q = r % G; /* q fastest: a warp reads along rows */
    const size_t b = first + (size_t)blockIdx.x * per_block + m;
    const bool real = b < batch; /* the missing matrices of the last block compute on zeros, store nothing */
    const matrix_place pl = chunked_place(n, chunk, batch, real ? b : first);
    float *g = Amat + pl.base, *buf = smem + (size_t)m * cyclic_buf_floats(G, A);

    float x[cyclic_tri(A, 0)]; /* slot (a, b) at cyclic_tri(a, b); cyclic_tri(A, 0) = A (A + 1) / 2 */
#pragma unroll
    for (int a = 0; a < A; a++)
#pragma unroll
        for (int bb = 0; bb <= a; bb++) {
            const int i = p + G * a, j = q + G * bb;
            x[cyclic_tri(a, bb)] = (real && i < n && j <= i) ? g[((size_t)i * n + j) * pl.stride] : 0.0f;
        }
    if (q == 0) /* column 0 into buffer 0 */
#pragma unroll
        for (int a = 0; a < A; a++) buf[p * cyclic_stride(A) + a] = x[cyclic_tri(a, 0)];
    int my_info = 0;
    cyclic_panel<G, A, 0>::run(x, buf, n, p, q, my_info);

    if (!real) return;
    /* The factor, and zeros above the diagonal (slots a < b, and p < q in the diagonal slots). */
#pragma unroll
    for (int a = 0; a < A; a++)
#pragma unroll
        for (int bb = 0; bb < A; bb++) {
            const int i = p + G * a, j = q + G * bb;
            if (i >= n || j >= n) continue;
            float v = 0.0f;
            if (bb < a) v = x[cyclic_tri(a, bb)];
            else if (bb == a && p >= q) v = x[cyclic_tri(a, a)];
            g[((size_t)i * n + j) * pl.stride] = v;
        }
    if (r == 0) info[b] = my_info;
}

#endif
