/* rows_kernel.cuh - stage 06's new kernel: T threads factor one matrix, each thread holding whole
 * rows of it in registers ("rows kernel"). Instantiated per NMAX (the largest n it takes) in
 * rows_part0..7.cu (the list ROWS_INSTANCES in rows_kernel.h), so that nvcc compiles them in parallel.
 *
 * Why several threads per matrix: one thread per matrix (stage 04) has n^3/6 multiply-adds in a
 * row on one thread and n^2/2 floats of live data; at n = 100 that is 167 000 dependent-ish steps
 * and far more than 255 registers, and a 1024-matrix batch gives the GPU only 1024 threads. Here
 * the matrix is spread over T threads (4 .. 128), so each thread holds NMAX^2/T floats at most
 * and the GPU sees T times more threads.
 *
 * The mapping (cyclic rows): thread t of a matrix holds rows i = t, t+T, t+2T, ... in slots
 * r = 0, 1, 2, ...: slot r holds row t + T r, columns 0 .. min(NMAX, T(r+1)) - 1 (a row needs no
 * column right of its diagonal, and no row of slot r lies below T(r+1) - 1). Every index into
 * the register array is a compile-time constant (the loops unroll completely), which is what lets
 * the compiler keep the array in registers.
 *
 * The algorithm: right-looking, one column per step. At step k every thread needs column k
 * (c_jk = A(j, k) as updated so far, for all j > k); its owners put it into a small shared buffer,
 * the group synchronises once, and then each thread updates its rows:
 *     l_ik = c_ik / sqrt(d),   A(i, j) -= (c_ik / d) c_jk   for k < j <= i,   d = c_kk.
 * The buffer is double-buffered (even and odd k) so that one barrier per step is enough: the next
 * column is written while the slowest thread may still read this one, into the other buffer.
 * With T <= 32 a matrix's threads are one part of a warp, so the barrier is __syncwarp(); with
 * more, __syncthreads().
 *
 * The memory side (why the chunked layout matters): a block factors per_block matrices. With
 * chunk = per_block those are one contiguous range of per_block n^2 floats, so the block loads
 * it with consecutive threads reading consecutive addresses (cp.async, straight into shared
 * memory, no registers tied up while the loads fly), and stores it back the same way. Shared
 * memory is only a staging area: each thread then copies its rows into registers. Rows are padded
 * to an odd length so that the threads of a warp, reading different rows, hit different banks.
 * Row-major data with n a multiple of 4 (every row 16-byte aligned) take a faster road: 16-byte
 * copies between global and shared memory, and 16-byte reads and writes of the rows, with rows
 * padded to an odd number of float4s instead (the same bank argument, a float4 at a time); with n
 * even, the same with 8 bytes. At n = 20 that is a quarter of the copy instructions, which there
 * cost as much as the arithmetic (H100, 1 GiB, row-major n = 20: 1.10 ms before, 0.72 after,
 * with the NMAX = 20 instance).
 *
 * A failed matrix (pivot <= 0 or NaN) records info = k + 1 and carries on with garbage, so that
 * all threads run the same steps (no thread may leave a loop that has barriers); its factor is
 * unspecified past the failing pivot, as in stage 04: its columns before the pivot must still hold the
 * leading minor's factor (the tests check them).
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel rows --threads 32 --n 64 --batch 65536 */
#ifndef ROWS_KERNEL_CUH
#define ROWS_KERNEL_CUH

#include <cuda_pipeline.h>
#include "layout.h"

/* A block of the rows kernel has at most this many threads: each thread may then use up to 255
 * registers, which the largest register arrays need. */
#define ROWS_MAX_BLOCK 256

/* The largest NMAX with an instance whose steps are all written out (FULL): past it the code
 * outgrows the instruction cache (measured: 3-6x slower at n = 80 .. 128). */
#define ROWS_FULL_MAX 64

/* The column buffer of one matrix: T R entries (R rows per thread), 16-byte aligned, plus 8 for
 * the loop's read-ahead and 4 so that two matrices' buffers start in different banks. */
__host__ __device__ constexpr int rows_cb(int nmax, int T) { return (((nmax + T - 1) / T * T + 3) / 4) * 4 + 12; }

/* Rows per thread, and the columns slot r holds. */
template <int NMAX, int T> struct rows_shape {
    static constexpr int R = (NMAX + T - 1) / T;
    __host__ __device__ static constexpr int cols(int r) { return T * (r + 1) < NMAX ? T * (r + 1) : NMAX; }
    static constexpr int CB = rows_cb(NMAX, T);
};

/* The shared-memory staging area of one matrix: n rows of ld floats (ld odd: conflict-free row
 * reads), matrices ms floats apart with ms = T ld (mod 32), so that the rows of the matrices that
 * share a warp fall into different banks too. */
struct rows_staging {
    int ld, ms;
};
__host__ __device__ inline rows_staging rows_staging_make(int n, int T, int V)
{
    rows_staging s;
    if (V > 1) { /* rows of whole V-float vectors: ld / V odd, so that the vectors of the rows a quarter warp
                    (V = 4) or half warp (V = 2) reads fill different banks; ms = 16 (mod 32) puts the next
                    matrix, which shares that part of the warp when T is small, on the other banks */
        s.ld = n / V % 2 ? n : n + V;
        s.ms = (n * s.ld + 31) / 32 * 32 + 16;
        return s;
    }
    s.ld = n | 1;
    s.ms = n * s.ld + ((T * s.ld - n * s.ld) & 31);
    s.ms = (s.ms + 3) & ~3; /* keep the column buffers after the staging area 16-byte aligned */
    return s;
}

/* The vector width of the copies: 4 (16 bytes) or 2 for row-major data (chunk 1) whose rows are
 * whole vectors of an aligned array, else 1. */
__host__ __device__ inline int rows_vec_width(const float *A, int n, size_t chunk)
{
    if (chunk != 1) return 1;
    if (n % 4 == 0 && (size_t)A % 16 == 0) return 4;
    if (n % 2 == 0 && (size_t)A % 8 == 0) return 2;
    return 1;
}

/* Bytes of shared memory for per_block matrices of order n (either road). */
__host__ __device__ inline size_t rows_smem_bytes(int nmax, int T, int n, int per_block)
{
    int ms = rows_staging_make(n, T, 1).ms;
    for (int V = 2; V <= 4; V *= 2)
        if (n % V == 0 && rows_staging_make(n, T, V).ms > ms) ms = rows_staging_make(n, T, V).ms;
    return ((size_t)per_block * ms + (size_t)per_block * 2 * rows_cb(nmax, T)) * sizeof(float);
}

/* The barrier of one step: a matrix's T threads are part of one warp when T <= 32. */
template <int T> __device__ __forceinline__ void rows_group_sync()
{
    if (T <= 32) __syncwarp();
    else __syncthreads();
}

/* Copy the block's matrices between global memory (the layout) and the staging area, consecutive
 * threads on consecutive matrices first: with chunk = per_block that is consecutive addresses.
 * Row-major data (chunk = 1) are loaded another way: the block's matrices are then one contiguous
 * range of cnt n^2 floats, which consecutive threads walk in order, so that a warp's 32 accesses
 * fall in one 128-byte line instead of per_block lines (H100, 1 GiB: 9 % faster at n = 16 and 40,
 * level at n = 20..30). The store walks the same way. (It used to keep the per-matrix walk, whose
 * warp stores go to per_block different matrices: that cost 2-5x at odd n on 1 GiB, n = 7..23 with
 * 4 or 8 threads per matrix, H100; even n take the vector road below, which walks flat already.) */
template <bool LOAD>
__device__ __forceinline__ void rows_copy_flat(float *A, int n, size_t b0, int cnt, float *stage, rows_staging st)
{
    const int nn = n * n, step = blockDim.x, total = cnt * nn;
    float *g = A + b0 * nn;
    /* (m, i, j) of flat index f follow f by adding the parts of step, without a division per element */
    int f = threadIdx.x, m = f / nn, i = f % nn / n, j = f % n;
    const int dm = step / nn, di = step % nn / n, dj = step % n;
    for (; f < total; f += step) {
        float *s = stage + (size_t)m * st.ms + i * st.ld + j;
        if (LOAD) __pipeline_memcpy_async(s, g + f, sizeof(float));
        else g[f] = *s;
        m += dm;
        i += di;
        j += dj;
        if (j >= n) {
            j -= n;
            i++;
        }
        if (i >= n) {
            i -= n;
            m++;
        }
    }
}

/* V floats as one 8- or 16-byte access (rows_vec_width): the vector type, a load into v[], a store. */
template <int V> struct rows_vec {
    typedef float type;
};
template <> struct rows_vec<2> {
    typedef float2 type;
};
template <> struct rows_vec<4> {
    typedef float4 type;
};
template <int V> __device__ __forceinline__ void rows_vec_load(const float *p, float (&v)[V])
{
    const typename rows_vec<V>::type x = *reinterpret_cast<const typename rows_vec<V>::type *>(p);
    if constexpr (V == 4) v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    else if constexpr (V == 2) v[0] = x.x, v[1] = x.y;
    else v[0] = x;
}
template <int V> __device__ __forceinline__ void rows_vec_store(float *p, const float (&v)[V])
{
    typename rows_vec<V>::type x;
    if constexpr (V == 4) x = make_float4(v[0], v[1], v[2], v[3]);
    else if constexpr (V == 2) x = make_float2(v[0], v[1]);
    else x = v[0];
    *reinterpret_cast<typename rows_vec<V>::type *>(p) = x;
}

/* The vector road (V = 2 or 4, rows_vec_width): the same flat walk, a vector at a time, loads and
 * stores (cp.async copies 8 or 16 bytes as easily as 4). */
template <bool LOAD, int V>
__device__ __forceinline__ void rows_copy_flat_vec(float *A, int n, size_t b0, int cnt, float *stage, rows_staging st)
{
    typedef typename rows_vec<V>::type vec;
    const int q = n / V, nq = n * q, step = blockDim.x, total = cnt * nq; /* q vectors per row, nq per matrix */
    vec *g = reinterpret_cast<vec *>(A + b0 * n * n);
    int f = threadIdx.x, m = f / nq, i = f % nq / q, j = f % q;
    const int dm = step / nq, di = step % nq / q, dj = step % q;
    for (; f < total; f += step) {
        float *s = stage + (size_t)m * st.ms + i * st.ld + V * j;
        if (LOAD) __pipeline_memcpy_async(s, g + f, sizeof(vec));
        else g[f] = *reinterpret_cast<const vec *>(s);
        m += dm;
        i += di;
        j += dj;
        if (j >= q) {
            j -= q;
            i++;
        }
        if (i >= n) {
            i -= n;
            m++;
        }
    }
}

template <bool LOAD> __device__ __forceinline__ void rows_copy_block(float *A, int n, size_t batch, size_t chunk,
                                                                     size_t b0, int cnt, int per_block, float *stage,
                                                                     rows_staging st, int V)
{
    if (V == 4) {
        rows_copy_flat_vec<LOAD, 4>(A, n, b0, cnt, stage, st);
        return;
    }
    if (V == 2) {
        rows_copy_flat_vec<LOAD, 2>(A, n, b0, cnt, stage, st);
        return;
    }
    if (chunk == 1) {
        rows_copy_flat<LOAD>(A, n, b0, cnt, stage, st);
        return;
    }
    const int lm = threadIdx.x % per_block, step = blockDim.x / per_block;
    if (lm >= cnt) return;
    const matrix_place pl = chunked_place(n, chunk, batch, b0 + lm);
    float *g = A + pl.base, *sm = stage + (size_t)lm * st.ms;
    const int nn = n * n, di = step / n, dj = step % n;
    int e = threadIdx.x / per_block, i = e / n, j = e % n;
    for (; e < nn; e += step) { /* (i, j) follows e without a division per element */
        if (LOAD) __pipeline_memcpy_async(sm + i * st.ld + j, g + (size_t)e * pl.stride, sizeof(float));
        else g[(size_t)e * pl.stride] = sm[i * st.ld + j];
        i += di;
        j += dj;
        if (j >= n) {
            j -= n;
            i++;
        }
    }
}

/* The register rows of one thread. */
template <int NMAX, int T> using rows_regs = float[rows_shape<NMAX, T>::R][NMAX];

/* Step k = K of the factorization, on my rows a (see the top of this file): wait for column K in
 * the buffer, take the pivot, finish column K of my rows, update my columns j > K, and hand
 * column K + 1 to the next step through the other buffer. K is a template parameter because it
 * indexes the register array: an index the compiler cannot see would send the array to memory. */
template <int NMAX, int T, int K>
__device__ __forceinline__ void rows_step(rows_regs<NMAX, T> &a, float *cols, int n, int t, int &my_info)
{
    typedef rows_shape<NMAX, T> S;
    // BEGIN SOLUTION: barrier; pivot d = column K's entry K from the buffer (my_info = K + 1 on the first d that is not > 0); scale my column-K entries by 1/sqrt(d), put sqrt(d) on the diagonal in its owner's row; update columns j > K of my rows with the buffered column over d; write column K + 1 of my rows (once updated) into the other buffer
    // stub: (void)a; (void)cols; (void)n; (void)t; (void)my_info;
    rows_group_sync<T>(); /* column K is complete in cols[(K & 1) CB ..] */
    const float *col = cols + (K & 1) * S::CB;
    float *next = cols + ((K + 1) & 1) * S::CB;
    const float d = col[K];
    if (!(d > 0.0f) && my_info == 0) my_info = K + 1;
    const float inv = rsqrtf(d);
    float s[S::R] = {};
#pragma unroll
    for (int r = 0; r < S::R; r++)
        if (K < S::cols(r)) {
            const float l = a[r][K] * inv;
            s[r] = l * inv; /* c_iK / d */
            a[r][K] = l;
        }
    if (t == K % T) a[K / T][K] = d * inv; /* sqrt(d): row K is in slot K / T of thread K % T */
#pragma unroll
    for (int j4 = (K + 1) / 4 * 4; j4 < NMAX; j4 += 4) {
        if (j4 >= n) break;
        const float4 c4 = *reinterpret_cast<const float4 *>(col + j4); /* one broadcast load for 4 columns */
        const float c[4] = {c4.x, c4.y, c4.z, c4.w};
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int j = j4 + u;
            if (j <= K || j >= NMAX) continue;
#pragma unroll
            for (int r = 0; r < S::R; r++)
                if (j < S::cols(r)) a[r][j] -= s[r] * c[u];
            if (j == K + 1) /* the next step's column, as soon as it is final */
#pragma unroll
                for (int r = 0; r < S::R; r++)
                    if (j < S::cols(r)) next[t + T * r] = a[r][j];
        }
    }
    // END SOLUTION
}

/* Steps K, K+1, ..., n-1, written out by the compiler (a loop over K would have to be unrolled
 * completely, and compilers stop unrolling loops this large). */
template <int NMAX, int T, int K> struct rows_steps {
    static __device__ __forceinline__ void run(rows_regs<NMAX, T> &a, float *cols, int n, int t, int &my_info)
    {
        if (K >= n) return;
        rows_step<NMAX, T, K>(a, cols, n, t, my_info);
        rows_steps<NMAX, T, K + 1>::run(a, cols, n, t, my_info);
    }
};
template <int NMAX, int T> struct rows_steps<NMAX, T, NMAX> {
    static __device__ __forceinline__ void run(rows_regs<NMAX, T> &, float *, int, int, int &) {}
};

/* The same factorization with a loop over k that the compiler does not unroll (FULL = false):
 * the code of one step, instead of n steps written out, for the large orders where the written-out
 * code (about n^2 R instructions) no longer fits in the instruction cache. The register array can
 * then not be indexed by k, so it slides instead: after step k, a[r][j] holds column k + 1 + j of
 * row t + T r (the update writes each result one place to the left, which costs nothing: it is the
 * destination register of the same multiply-add), and the finished column k of L goes straight to
 * the staging area, where the factor is assembled. The column buffer slides the same way, so that
 * entry 0 is always the pivot and the 4-wide loads stay aligned. */
template <int NMAX, int T> __device__ __forceinline__ void rows_loop(rows_regs<NMAX, T> &a, float *cols, float *stage,
                                                                     int ld, int n, int t, int &my_info)
{
    typedef rows_shape<NMAX, T> S;
    // BEGIN SOLUTION: for k = 0 .. n-1 (a loop the compiler keeps): barrier; pivot d = entry 0 of the buffer (my_info = k + 1 on the first d that is not > 0); write column k of L for my rows k <= i < n into stage[i ld + k] (sqrt(d) on the diagonal; a slot's row may lie past n); update my columns local j = 1 .. m-1 (m = n - k), the result of j into j - 1; write my new column-0 entries (rows k < i < n) into entry i - k - 1 of the other buffer
    // stub: (void)a; (void)cols; (void)stage; (void)ld; (void)n; (void)t; (void)my_info;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        rows_group_sync<T>(); /* column k is complete in cols[(k & 1) CB ..], entry 0 = row k */
        const float *col = cols + (k & 1) * S::CB;
        float *next = cols + ((k + 1) & 1) * S::CB;
        const float d = col[0];
        if (!(d > 0.0f) && my_info == 0) my_info = k + 1;
        const float inv = rsqrtf(d);
        float s[S::R];
#pragma unroll
        for (int r = 0; r < S::R; r++) {
            const int i = t + T * r;
            const float l = a[r][0] * inv;
            s[r] = l * inv; /* c_ik / d */
            if (i >= k && i < n) stage[i * ld + k] = i == k ? d * inv : l;
        }
        const int m = n - k; /* columns k .. n-1 are left: local 0 .. m-1 */
        /* The buffer is read two groups of 4 ahead, so that a load's latency hides behind the
         * multiply-adds of the groups before it (the loop may stop at any group; reading past the
         * live entries is harmless: rows_cb leaves room). */
        const float4 *col4 = reinterpret_cast<const float4 *>(col);
        float4 ahead1 = col4[0], ahead2 = col4[1];
#pragma unroll
        for (int j4 = 0; j4 < NMAX; j4 += 4) {
            if (j4 >= m) break;
            const float4 c4 = ahead1;
            ahead1 = ahead2;
            ahead2 = col4[j4 / 4 + 2];
            const float c[4] = {c4.x, c4.y, c4.z, c4.w};
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int j = j4 + u;
                if (j == 0) continue;
#pragma unroll
                for (int r = 0; r < S::R; r++)
                    if (j < S::cols(r)) a[r][j - 1] = a[r][j] - s[r] * c[u];
                if (j == 1) /* the next step's column, as soon as it is final */
#pragma unroll
                    for (int r = 0; r < S::R; r++) {
                        const int i = t + T * r;
                        if (1 < S::cols(r) && i > k && i < n) next[i - k - 1] = a[r][0];
                    }
            }
        }
    }
    // END SOLUTION
}

/* My rows from the staging area into registers, V floats at a time (zeros outside the matrix), and
 * column 0 into the first buffer. cols(r) is a multiple of V (T >= 4, NMAX % 4 = 0), and so is n. */
template <int NMAX, int T, int V> __device__ __forceinline__ void
rows_fill(rows_regs<NMAX, T> &a, const float *stage, rows_staging st, float *cols, int n, int t, int m, bool real)
{
    typedef rows_shape<NMAX, T> S;
#pragma unroll
    for (int r = 0; r < S::R; r++) {
        const int i = t + T * r;
        const bool row_ok = real && i < n;
        const float *row = stage + (size_t)m * st.ms + i * st.ld;
#pragma unroll
        for (int j = 0; j < S::cols(r); j += V) {
            float v[V] = {};
            if (row_ok && j < n) rows_vec_load<V>(row + j, v);
#pragma unroll
            for (int u = 0; u < V; u++) a[r][j + u] = v[u];
        }
        cols[i] = a[r][0];
    }
}

/* Row i of the factor (my slot r) into the staging area, V floats at a time, zeros above the diagonal. */
template <int NMAX, int T, int V>
__device__ __forceinline__ void rows_row_out(const rows_regs<NMAX, T> &a, int r, float *row, int n, int i)
{
    typedef rows_shape<NMAX, T> S;
#pragma unroll
    for (int j = 0; j < NMAX; j += V) {
        if (j >= n) break;
        float v[V];
#pragma unroll
        for (int u = 0; u < V; u++) v[u] = (j + u < S::cols(r) && j + u <= i) ? a[r][j + u] : 0.0f;
        rows_vec_store<V>(row + j, v);
    }
}

template <int NMAX, int T, bool FULL> __global__ void __launch_bounds__(ROWS_MAX_BLOCK)
    potrf_rows_kernel(const float *in, float *A, int n, size_t batch, size_t chunk, size_t first, int per_block,
                      int *info)
{
    typedef rows_shape<NMAX, T> S;
    static_assert(T >= 4 && T <= 128 && (T & (T - 1)) == 0, "T is a power of two from 4 to 128");
    static_assert(NMAX % 4 == 0, "NMAX is a multiple of 4 (the 16-byte reads of a row)");
    static_assert(S::R * NMAX <= 3 * 128, "the register array would not fit in 255 registers");
    extern __shared__ __align__(16) float smem[];
    const int V = min(rows_vec_width(in, n, chunk), rows_vec_width(A, n, chunk)); /* in: read, A: written */
    const rows_staging st = rows_staging_make(n, T, V);
    const size_t b0 = first + (size_t)blockIdx.x * per_block;
    const int cnt = batch - b0 < (size_t)per_block ? (int)(batch - b0) : per_block; /* the last block may be partial */
    const int t = threadIdx.x % T, m = threadIdx.x / T;
    float *stage = smem, *cols = smem + (size_t)per_block * st.ms + (size_t)m * 2 * S::CB;
    const bool real = m < cnt; /* the matrices missing from the last block compute on zeros, store nothing */

    rows_copy_block<true>(const_cast<float *>(in), n, batch, chunk, b0, cnt, per_block, stage, st, V);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();

    /* My rows into registers (zeros outside the matrix), and column 0 into the first buffer. */
    rows_regs<NMAX, T> a;
    if (V == 4) rows_fill<NMAX, T, 4>(a, stage, st, cols, n, t, m, real);
    else if (V == 2) rows_fill<NMAX, T, 2>(a, stage, st, cols, n, t, m, real);
    else rows_fill<NMAX, T, 1>(a, stage, st, cols, n, t, m, real);
    int my_info = 0;

    float *my_stage = stage + (size_t)m * st.ms;
    if constexpr (FULL) rows_steps<NMAX, T, 0>::run(a, cols, n, t, my_info);
    else rows_loop<NMAX, T>(a, cols, my_stage, st.ld, n, t, my_info);

        /* The factor into the staging area (zeros above the diagonal; no barrier first: each thread
     * writes only its own rows), then a coalesced store. FULL: my rows from the registers; the
     * loop has written L already, only the upper part (still A) is zeroed. */
#pragma unroll
    for (int r = 0; r < S::R; r++) {
        const int i = t + T * r;
        float *row = my_stage + i * st.ld;
        if (!real || i >= n) continue;
        if constexpr (FULL) {
            if (V == 4) rows_row_out<NMAX, T, 4>(a, r, row, n, i);
            else if (V == 2) rows_row_out<NMAX, T, 2>(a, r, row, n, i);
            else rows_row_out<NMAX, T, 1>(a, r, row, n, i);
        } else
            for (int j = i + 1; j < n; j++) row[j] = 0.0f;
    }
    __syncthreads();
    rows_copy_block<false>(A, n, batch, chunk, b0, cnt, per_block, stage, st, V);
    if (t == 0 && real) info[b0 + m] = my_info;
}

#endif
