/* cyclic_kernel.cuh - stage 06's kernel for n = 33..128: a grid of T threads factors one matrix,
 * thread (p, q) holding the LOWER TRIANGLE of its 2D-cyclic share in registers ("cyclic kernel").
 * Instantiated per (T, A) from the list CYCLIC_INSTANCES (cyclic_kernel.h); NMAX = GC A is the
 * largest n. The wide grids' entries are also instantiated with one row slot less (R below).
 *
 * Why not the rows kernel at large n: a thread of the rows kernel holds whole rows, so its
 * register array is a rectangle (R rows x NMAX columns) and every step updates all of it, the
 * part right of the diagonal too: at n = 100 with 32 threads it issues about 4x the n^3/6
 * multiply-adds the factorization needs, and 209 registers leave 8 warps per SM.
 *
 * The grid: T = GR x GC threads, GR rows of GC, square (T = 16, 64, 256: 4 x 4, 8 x 8, 16 x 16)
 * or twice as wide as high (T = 32, 128: 4 x 8, 8 x 16). The wide grids exist for one reason:
 * 32 threads are one warp, so the step's barrier is a __syncwarp() and one warp factors a whole
 * matrix; for 1024 matrices (the data in L2, the time one matrix's chain of steps) that is
 * what counts (H100, n = 40: 8 x 8 threads 13.9 us in Nsight Compute, 4 x 8 see the README).
 *
 * The mapping (2D cyclic): thread (p, q), p = 0 .. GR-1, q = 0 .. GC-1, owns the entries
 * A(p + GR a, q + GC b) for row slots a = 0 .. AR-1 and column slots b = 0 .. A-1, where
 * AR = W A and W = GC / GR (1 or 2), so that both cover NMAX = GC A. Slot (a, b) holds rows
 * GR a .. GR a + GR-1 and columns GC b .. GC b + GC-1 = GR W b .. GR W b + GC-1: with a < W b all
 * of it lies above the diagonal whatever p and q are, so the thread stores only the slots
 * a >= W b (for a square grid the lower triangle of slots, a >= b; the slots with a = W b ..
 * W b + W-1 straddle the diagonal, and p, q decide). That is about A (A + 1) W / 2 registers
 * (36 for 16 x 16, A = 8; 136 for 8 x 8, A = 16; 30 for 4 x 8, A = 5), indexed by compile-time
 * constants (cyclic_slot).
 *
 * The algorithm: right-looking, one column per step, in panels of GC columns. In panel P
 * (columns GC P .. GC P + GC-1) column k = GC P + c lives in column slot P of the threads with
 * q = c, and the trailing matrix in row slots a >= W P: with the panel loop written out (P is a
 * template parameter) every register index is a constant and the work shrinks with P, as the
 * factorization's does (about 1.2 x n^3/6 multiply-adds at 8 x 8, A = 16). Per step:
 *   - the owners of column k (q = c) have put it, unscaled, into a shared buffer;
 *   - one barrier; every thread reads the pivot d = A(k, k), its rows' and its columns' entries
 *     of column k (the buffer keeps each p's rows together: float4 loads; a column q + GC b is
 *     row q mod GR, entry q / GR + W b);
 *   - everyone updates its slots right of column k: A(i, j) -= c_ik (c_jk / d); the owners keep
 *     their column as it is and leave 1 / sqrt(d) in shared memory: L(i, k) = c_ik / sqrt(d) is formed when the
 *     factor is stored (so that the owners, the threads left of k and those right of it run the
 *     same instructions, with one select, instead of branching apart in the warp);
 *   - the owners of column k + 1 write it, now final, into the other buffer.
 * Double-buffering the column makes one barrier per step enough (as in the rows kernel).
 * The entries above the diagonal in the straddling slots (and rows above the panel in its row
 * slots) collect garbage: only columns right of k are updated, so the garbage stays above the
 * diagonal, where nothing reads it as data, and the store writes zeros there.
 *
 * Memory: no staging. Each thread loads its slots straight from global memory (only the lower
 * triangle is read) and stores its factor entries and the zeros above the diagonal straight back:
 * a warp touches 32 / GC rows of GC consecutive floats per slot. That needs only that a matrix's
 * rows be contiguous: row-major data (chunk = 1) are read as they are, with no conversion. The
 * largest instances (cyclic_progressive: 8 x 8, n = 89..128) store each panel's columns as soon as
 * the next panel starts, and the zeros above the diagonal at once, instead of everything at the end.
 *
 * Rows and columns past n hold zeros and take no step. A failed matrix (pivot <= 0 or NaN) gets
 * info = k + 1 and carries on with garbage so that all threads take the same steps.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel cyclic --threads 32 --n 40 --batch 1024 */
#ifndef CYCLIC_KERNEL_CUH
#define CYCLIC_KERNEL_CUH

#include "layout.h"

/* A block of the cyclic kernel has at most this many threads (up to 255 registers each). */
#define CYCLIC_MAX_BLOCK 256
/* The largest register array (slots) whose steps are also compiled written out (cyclic_unrolled). */
#define CYCLIC_UNROLLED_SLOTS 56

/* The grid of T threads: GR rows (the largest power of two whose square is at most T) of GC. */
__host__ __device__ constexpr int cyclic_grid_rows(int T) { return T >= 256 ? 16 : T >= 64 ? 8 : T >= 16 ? 4 : 2; }
__host__ __device__ constexpr int cyclic_grid_cols(int T) { return T / cyclic_grid_rows(T); }

/* Slot (a, b), a >= W b, in the packed register array: the slots of rows a' < a come first
 * (row a' holds a' / W + 1 of them), so the offset is a + sum_{a' < a} floor(a' / W) + b. */
__host__ __device__ constexpr int cyclic_slot(int W, int a, int b)
{
    return a + W * (a / W) * (a / W - 1) / 2 + a % W * (a / W) + b;
}

/* One buffer row per p: AR entries rounded up to 16-byte vectors of V elements (float4s, or double2s:
 * V = 16 / sizeof(element)), an odd number of vectors so that the GR rows a warp reads at once fall
 * into different banks. */
__host__ __device__ constexpr int cyclic_stride(int AR, int V = 4)
{
    return ((AR + V - 1) / V % 2 ? (AR + V - 1) / V : (AR + V - 1) / V + 1) * V;
}

/* Shared memory of one matrix, in elements (V of them in 16 bytes: 4 floats, 2 doubles): two column
 * buffers of GR rows, then 1 / sqrt(pivot) of each of the NMAX = GC A columns (a multiple of 4: the
 * next matrix's buffers stay 16-byte aligned). */
__host__ __device__ constexpr int cyclic_buf_elements(int T, int A, int V = 4)
{
    return 2 * cyclic_grid_rows(T) * cyclic_stride(cyclic_grid_cols(T) / cyclic_grid_rows(T) * A, V) +
           cyclic_grid_cols(T) * A;
}

/* The element type's arithmetic: float (the course's kernels) or double (cholesky_options.dtype). */
__device__ __forceinline__ float cyclic_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double cyclic_fma(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float cyclic_rsqrt(float d) { return rsqrtf(d); }
__device__ __forceinline__ double cyclic_rsqrt(double d) { return rsqrt(d); }

/* The step's lean form (cyclic_panel), float64 only: the owners' update of column slot P as a
 * predicated fma, not an fma and a select (two selects a double), and a wide grid's c_jk read entry
 * by entry, not as the whole row half of which is then selected. Fewer instructions and registers a
 * step in float64; float32 measured slower at some n with it and keeps the select (06 LIMITS). */
template <typename E> __host__ __device__ constexpr bool cyclic_lean() { return sizeof(E) == 8; }

template <int T> __device__ __forceinline__ void cyclic_group_sync()
{
    if (T <= 32) __syncwarp();
    else __syncthreads();
}

/* Load entries [F, N) of one buffer row into v (float4 loads from the aligned 4-group down; for
 * doubles, double2 loads from the aligned pair down). */
template <int N, int F> __device__ __forceinline__ void cyclic_read_row(const float *row, float (&v)[N])
{
#pragma unroll
    for (int a4 = F / 4 * 4; a4 < N; a4 += 4) {
        const float4 x = *reinterpret_cast<const float4 *>(row + a4);
        v[a4] = x.x;
        if (a4 + 1 < N) v[a4 + 1] = x.y;
        if (a4 + 2 < N) v[a4 + 2] = x.z;
        if (a4 + 3 < N) v[a4 + 3] = x.w;
    }
}
template <int N, int F> __device__ __forceinline__ void cyclic_read_row(const double *row, double (&v)[N])
{
#pragma unroll
    for (int a2 = F / 2 * 2; a2 < N; a2 += 2) {
        const double2 x = *reinterpret_cast<const double2 *>(row + a2);
        v[a2] = x.x;
        if (a2 + 1 < N) v[a2 + 1] = x.y;
    }
}

/* Row slots: W A cover the NMAX = GC A columns' rows. A wide grid (W = 2) also has an instance with
 * one row slot less (cyclic_trimmed_rows), for n <= GR (W A - 1): cyclic_try (cyclic_launch.cuh)
 * says when it is taken. */
__host__ __device__ constexpr int cyclic_full_rows(int T, int A)
{
    return cyclic_grid_cols(T) / cyclic_grid_rows(T) * A;
}
__host__ __device__ constexpr int cyclic_trimmed_rows(int T, int A)
{
    return cyclic_grid_cols(T) == 2 * cyclic_grid_rows(T) ? cyclic_full_rows(T, A) - 1 : 0; /* 0: none */
}

/* The register array of one thread, and the shape of instance (T, A, R): R row slots; E the element
 * type (float, or double: the same kernel in float64, cyclic_f64.cu). */
template <int T, int A, int R, typename E = float> struct cyclic_shape {
    static constexpr int GR = cyclic_grid_rows(T), GC = cyclic_grid_cols(T), W = GC / GR, AR = R;
    static_assert(R == cyclic_full_rows(T, A) || R == cyclic_trimmed_rows(T, A), "full rows, or one slot less (W = 2)");
    static constexpr int V = 16 / sizeof(E), SLOTS = cyclic_slot(W, AR, 0), S = cyclic_stride(AR, V), B = GR * S;
};
template <int T, int A, int R, typename E = float> using cyclic_regs = E[cyclic_shape<T, A, R, E>::SLOTS];

/* Which instances store their factor panel by panel (cyclic_store_slot) instead of all at the end:
 * the 8 x 8 grids with A >= 12 (n = 89..128). Measured on the H100, same run, the same configuration
 * (rowmajor auto): 1 GiB of n = 90, 100, 128 1.10x, 1.25x, 1.20x faster (1.10 -> 1.00, 1.16 -> 0.93,
 * 1.22 -> 1.01 ms), 1024 matrices of n = 100, 128 1.10x. There the final store loop, with the whole
 * triangle still live, is where the registers ran out (A = 13 capped: 72 bytes of spills -> 0). For
 * every smaller instance it lost, loop kernels and written-out ones alike (1 GiB of n = 40: 0.72 ->
 * 1.37 ms; n = 50..70 0.6-0.8x; 1024 matrices of n = 60, 64, 90: 0.7-0.8x), so they keep the store at
 * the end, with the code they had. */
__host__ __device__ constexpr bool cyclic_progressive(int T, int A) { return T == 64 && A >= 12; }

/* The instances that also compile a twin that prefetches the next wave's matrix (AHEAD below;
 * cyclic_ahead, cyclic_launch.cuh): those of n = 89..128, where registers make 1024 matrices two
 * waves. The twin is launched only where it prefetches: in one kernel the prefetch's code alone
 * cost up to 5 % where it never ran (the README's round eight). */
__host__ __device__ constexpr bool cyclic_prefetches(int T, int A) { return cyclic_grid_cols(T) * A > 88; }

/* Ask for [p, p + bytes) to be brought into L2 and go on: a hint, nothing waits for it. Only the
 * 16-byte-aligned inside of the range (the bulk prefetch's rule; the few bytes at the ends are read
 * from memory as before). Before sm_90, one 128-byte line at a time. */
__device__ __forceinline__ void l2_prefetch(const void *p, size_t bytes)
{
#if __CUDA_ARCH__ >= 900
    const unsigned long long lo = ((unsigned long long)p + 15) & ~15ull, hi = ((unsigned long long)p + bytes) & ~15ull;
    if (hi > lo)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"((unsigned)(hi - lo)) : "memory");
#else
    for (size_t off = 0; off < bytes; off += 128) asm volatile("prefetch.global.L2 [%0];" ::"l"((const char *)p + off));
#endif
}

/* Where a thread's factor goes: its entry (p + GR a, q + GC b) is at row0 + a row_step + b col_step;
 * store is false for the missing matrices of the last block. */
template <typename E> struct cyclic_out {
    E *row0;
    size_t row_step, col_step;
    bool store;
    const E *ahead_src; /* the matrix to prefetch into L2 halfway (panel A / 2), or null */
};

/* Column slot B of the factor, stored as soon as its columns are final (they are never updated
 * after their own step): L(i, j) = x inv(j) on and below the diagonal, zeros above it in the slots
 * that straddle it (the slots wholly above it were written at the start, cyclic_factor). Storing
 * each panel's columns when the next panel starts, instead of the whole factor at the end, spreads
 * the writes over the steps and frees the registers of the final store loop (cyclic_progressive says
 * where that was measured faster). invs: 1 / sqrt(pivot) by column. */
template <int T, int A, int R, int B, typename E> __device__ __forceinline__ void
cyclic_store_slot(const cyclic_regs<T, A, R, E> &x, const cyclic_out<E> &o, const E *invs, int n, int p, int q)
{
    typedef cyclic_shape<T, A, R, E> C;
    constexpr int GR = C::GR, GC = C::GC, W = C::W, AR = C::AR;
    const int j = q + GC * B;
    if (!o.store || j >= n) return;
    const E inv = invs[j];
    E *dst = o.row0;
    /* The address is formed here, not hoisted to the kernel's start: without this the compiler kept every
     * slot's address live through all the steps (8 x 8, A = 8, measured with the store in every
     * instance: 80 -> 157 registers). An empty asm the compiler cannot see through does that. */
    asm volatile("" : "+l"(dst));
    dst += (size_t)W * B * o.row_step + B * o.col_step;
#pragma unroll
    for (int a = W * B; a < AR; a++, dst += o.row_step) {
        const int i = p + GR * a;
        const E v =
            (a >= W * B + W || j <= i) ? x[cyclic_slot(W, a, B)] * inv : E(0); /* below the diagonal whatever p, q */
        if (i < n) *dst = v;
    }
}

/* Panel P: steps k = GC P + c for c = 0 .. min(GC, n - GC P) - 1, then panel P + 1. U: the steps
 * written out, c a constant in each (see cyclic_unrolled below), else a loop. */
template <int T, int A, int R, int P, bool U, typename E> struct cyclic_panel {
    static __device__ __forceinline__ void run(cyclic_regs<T, A, R, E> &x, E *buf, const cyclic_out<E> &o, int n, int p,
                                               int q, int &my_info)
    {
        typedef cyclic_shape<T, A, R, E> C;
        constexpr int GR = C::GR, GC = C::GC, W = C::W, AR = C::AR, S = C::S;
        if (GC * P >= n) return;
        const int steps = n - GC * P < GC ? n - GC * P : GC;
        if (P == A / 2 && o.ahead_src) l2_prefetch(o.ahead_src, (size_t)n * n * sizeof(E));
        /* Panel P - 1 is final: out with it, behind a barrier of its own (the 1 / sqrt of its last column
         * is then in shared memory). Inside the step loop, under c == 0, the compiler kept more registers. */
        if constexpr (P > 0 && cyclic_progressive(T, A)) {
            cyclic_group_sync<T>();
            cyclic_store_slot<T, A, R, P - 1, E>(x, o, buf + 2 * C::B, n, p, q);
        }
        const int qr = q % GR, qa = q / GR; /* my columns q + GC b are buffer row qr, entries qa + W b */
        constexpr int UNROLL = U ? GC : 1;
#pragma unroll UNROLL
        for (int c = 0; c < (U ? GC : steps); c++) {
            if (U && c >= steps) continue;
            const int k = GC * P + c;
            cyclic_group_sync<T>(); /* column k is complete in buffer k & 1 */
            const E *col = buf + (k & 1) * C::B;
            E *next = buf + ((k + 1) & 1) * C::B;
            const E d = col[(k % GR) * S + k / GR];
            E rv[AR], cr[AR], cv[A]; /* column k at my rows p + GR a, and at my columns q + GC b (over d) */
            cyclic_read_row<AR, W * P>(col + p * S, rv);
            if constexpr (!cyclic_lean<E>()) cyclic_read_row<AR, W * P>(col + qr * S, cr);
            if (!(d > E(0)) && my_info == 0) my_info = k + 1;
            const E inv = cyclic_rsqrt(d), dinv = inv * inv;
            /* c_jk / d. With a row slot trimmed (AR = W A - 1), entry W b + 1 of the last b is a row past
             * every n the instance takes: 0. (With all W A slots the test is always true.) In float64 a
             * wide grid (W = 2) loads only its every other entry instead (cyclic_lean). */
            if constexpr (W == 1 || !cyclic_lean<E>()) {
                if constexpr (cyclic_lean<E>()) cyclic_read_row<AR, W * P>(col + qr * S, cr); /* here: fewer live */
#pragma unroll
                for (int b = P; b < A; b++)
                    cv[b] = (W == 1 ? cr[b] : qa ? (W * b + 1 < AR ? cr[W * b + 1] : E(0)) : cr[W * b]) * dinv;
            } else {
                const E *mine = col + qr * S + qa; /* my columns' entries: qa, qa + W, ... */
#pragma unroll
                for (int b = P; b < A; b++) cv[b] = (W * b + 1 < AR || !qa ? mine[W * b] : E(0)) * dinv;
            }
            if (q == c && p == 0) buf[2 * C::B + k] = inv; /* column k is scaled by it when stored */
            const bool right = q > c;                      /* my column in slot P lies right of column k */
#pragma unroll
            for (int a = W * P; a < AR; a++) {
                E &y = x[cyclic_slot(W, a, P)];
                if constexpr (cyclic_lean<E>()) {
                    if (right) y = cyclic_fma(-rv[a], cv[P], y); /* a predicated fma, no branch */
                } else {
                    const E updated = cyclic_fma(-rv[a], cv[P], y); /* A(i, j) - c_ik c_jk / d */
                    y = right ? updated : y;                        /* a select, not a branch: threads differ */
                }
#pragma unroll
                for (int b = P + 1; b < A; b++)
                    if (a >= W * b) x[cyclic_slot(W, a, b)] = cyclic_fma(-rv[a], cv[b], x[cyclic_slot(W, a, b)]);
            }
            if (c + 1 < GC) { /* column k + 1 is in the same slot, at q = c + 1 */
                if (q == c + 1)
#pragma unroll
                    for (int a = W * P; a < AR; a++) next[p * S + a] = x[cyclic_slot(W, a, P)];
            } else if (P + 1 < A) { /* the next panel's first column: slot P + 1, q = 0 */
                if (q == 0)
#pragma unroll
                    for (int a = W * (P + 1); a < AR; a++) next[p * S + a] = x[cyclic_slot(W, a, P + 1)];
            }
        }
        cyclic_panel<T, A, R, P + 1, U, E>::run(x, buf, o, n, p, q, my_info);
    }
};
template <int T, int A, int R, bool U, typename E> struct cyclic_panel<T, A, R, A, U, E> {
    static __device__ __forceinline__ void run(cyclic_regs<T, A, R, E> &, E *, const cyclic_out<E> &, int, int, int,
                                               int &)
    {
    }
};

/* The last panel's column slot (B = last), stored when all steps are done. */
template <int T, int A, int R, int B, typename E> struct cyclic_store_last {
    static __device__ __forceinline__ void run(const cyclic_regs<T, A, R, E> &x, const cyclic_out<E> &o, const E *invs,
                                               int n, int p, int q, int last)
    {
        if (B == last) cyclic_store_slot<T, A, R, B, E>(x, o, invs, n, p, q);
        else cyclic_store_last<T, A, R, B + 1, E>::run(x, o, invs, n, p, q, last);
    }
};
template <int T, int A, int R, typename E> struct cyclic_store_last<T, A, R, A, E> {
    static __device__ __forceinline__ void run(const cyclic_regs<T, A, R, E> &, const cyclic_out<E> &, const E *, int,
                                               int, int, int)
    {
    }
};

/* Every entry (i, j), i, j < n, of my slots, row slot by row slot: f(a, b, i, j, its address). The
 * loops are written out, so a and b are constants in f once it is inlined. */
template <int T, int A, int R, typename E, typename F>
__device__ __forceinline__ void cyclic_each_entry(E *row0, size_t row_step, size_t col_step, int n, int p, int q, F f)
{
    typedef cyclic_shape<T, A, R, E> C;
#pragma unroll
    for (int a = 0; a < C::AR; a++) {
        const int i = p + C::GR * a;
        if (i >= n) break;
        E *dst = row0 + a * row_step;
#pragma unroll
        for (int bb = 0; bb < A; bb++, dst += col_step) {
            const int j = q + C::GC * bb;
            if (j >= n) break;
            f(a, bb, i, j, dst);
        }
    }
}

/* The kernel's body; the entry points below differ in the registers they may use and in U. */
template <int T, int A, int R, bool U, bool AHEAD, typename E>
__device__ __forceinline__ void cyclic_factor(const E *in, E *Amat, int n, size_t batch, size_t chunk, size_t first,
                                              int per_block, size_t ahead, int *info)
{
    typedef cyclic_shape<T, A, R, E> C;
    constexpr int GR = C::GR, GC = C::GC, W = C::W, AR = C::AR;
    static_assert(T == 16 || T == 32 || T == 64 || T == 128 || T == 256, "T = GR x GC threads per matrix: 16 .. 256");
    static_assert(C::SLOTS * sizeof(E) <= 160 * sizeof(float), "the triangle would not fit in registers");
    extern __shared__ __align__(16) unsigned char cyclic_smem[]; /* (one name for every element type) */
    E *const smem = reinterpret_cast<E *>(cyclic_smem);
    const int m = threadIdx.x / T, r = threadIdx.x % T, p = r / GC, q = r % GC; /* q fastest: a warp reads along rows */
    const size_t b = first + (size_t)blockIdx.x * per_block + m;
    const bool real = b < batch; /* the missing matrices of the last block compute on zeros, store nothing */
    const matrix_place pl = chunked_place(n, chunk, batch, real ? b : first);
    E *g = Amat + pl.base, *buf = smem + (size_t)m * cyclic_buf_elements(T, A, C::V);
    /* the matrix of the block that takes my place in the next wave (ahead > 0: cyclic_ahead), into L2
     * while this one factors */
    const E *ahead_src = AHEAD && ahead && r == 0 && b + ahead < batch && pl.stride == 1
                             ? in + chunked_place(n, chunk, batch, b + ahead).base
                             : nullptr;

    /* My entry (p + GR a, q + GC b) is at row[a] + b col_step: 64-bit pointers stepped, not an index
     * product per entry (these addresses were a fifth of the instructions at n = 40) */
    const size_t col_step = (size_t)GC * pl.stride, row_step = (size_t)GR * n * pl.stride;
    E *row0 = g + ((size_t)p * n + q) * pl.stride;
    const E *in0 = in + pl.base + ((size_t)p * n + q) * pl.stride; /* read from in, written to Amat (may be in) */
    cyclic_regs<T, A, R, E> x;                                     /* slot (a, b) at cyclic_slot(W, a, b) */
#pragma unroll
    for (int a = 0; a < AR; a++) {
        const int i = p + GR * a;
        const E *src = in0 + a * row_step; /* then one column slot further each time */
#pragma unroll
        for (int bb = 0; bb < A; bb++, src += col_step) {
            if (a < W * bb) continue;
            const int j = q + GC * bb;
            x[cyclic_slot(W, a, bb)] = (real && i < n && j <= i) ? *src : E(0);
        }
    }
    constexpr bool PROGRESSIVE = cyclic_progressive(T, A);
    if (PROGRESSIVE && real) /* the zeros of the slots wholly above the diagonal (a < W b): nothing reads them */
        cyclic_each_entry<T, A, R>(row0, row_step, col_step, n, p, q, [&](int a, int bb, int, int, E *dst) {
            if (a < W * bb) *dst = E(0);
        });
    if (q == 0) /* column 0 into buffer 0 */
#pragma unroll
        for (int a = 0; a < AR; a++) buf[p * C::S + a] = x[cyclic_slot(W, a, 0)];
    int my_info = 0;
    const cyclic_out<E> o = {row0, row_step, col_step, real, ahead_src};
    cyclic_panel<T, A, R, 0, U, E>::run(x, buf, o, n, p, q, my_info); /* PROGRESSIVE: stores all panels but the last */

    cyclic_group_sync<T>(); /* the last 1 / sqrt(pivot) is written */
    if (PROGRESSIVE) {
        cyclic_store_last<T, A, R, 0, E>::run(x, o, buf + 2 * C::B, n, p, q, (n - 1) / GC);
        if (r == 0 && real) info[b] = my_info;
        return;
    }
    if (!real) return;
    const E *invs = buf + 2 * C::B; /* 1 / sqrt(pivot) by column: L(i, j) = x invs[j] */
    /* The factor, and zeros above the diagonal (the slots a < W b, and j > i in the others). */
    cyclic_each_entry<T, A, R>(row0, row_step, col_step, n, p, q, [&](int a, int bb, int i, int j, E *dst) {
        E v = E(0);
        if (a >= W * bb + W) v = x[cyclic_slot(W, a, bb)] * invs[j]; /* below the diagonal whatever p, q */
        else if (a >= W * bb && j <= i) v = x[cyclic_slot(W, a, bb)] * invs[j];
        *dst = v;
    });
    if (r == 0) info[b] = my_info;
}

template <int T, int A, int R, bool AHEAD = false, typename E = float>
__global__ void __launch_bounds__(CYCLIC_MAX_BLOCK)
    potrf_cyclic_kernel(const E *in, E *Amat, int n, size_t batch, size_t chunk, size_t first, int per_block,
                        size_t ahead, int *info)
{
    cyclic_factor<T, A, R, false, AHEAD, E>(in, Amat, n, batch, chunk, first, per_block, ahead, info);
}

/* The steps written out (U = true): with c a constant in every step, the step's addresses in the
 * column buffers, its pivot's place, the owner tests (q == c) and the choice of the next column's
 * slot are all constants, and the chain of integer instructions from the barrier to the pivot's
 * load is gone (Nsight Compute, 1024 matrices of n = 50, 8 x 8 threads: 7.9 -> 6.0 million
 * instructions, about 77 -> 59 a step per warp; cuSolverDx's best 6.5 million). The cost is
 * registers and code: the code is GC times as long, and the compiler keeps more values live (8 x 8,
 * A = 7: 80 -> 116 registers). So it is a second kernel, taken only where the block count leaves
 * the SMs room for it (see cyclic_launch_one) and only for the instances whose code stays small.
 * Measured on the H100, same run, 1024 row-major matrices (one wave of blocks): n = 30, 40 (4 x 8)
 * 11.8 -> 10.3 and 13.5 -> 11.7 us, n = 50..70 (8 x 8) 1.07-1.15x, n = 90 (8 x 16) 59.0 -> 49.3 us;
 * but 1.5-2.1x slower at n = 100 and 128 (8 x 8, A = 13 and 16: as many blocks on an SM at n = 100,
 * the code 8 times as long; spills at 128) and up to 1.4x slower on 1 GiB batches at every n (half
 * the warps resident at n = 50). */
__host__ __device__ constexpr bool cyclic_unrolled(int T, int R)
{
    return cyclic_slot(cyclic_grid_cols(T) / cyclic_grid_rows(T), R, 0) <= CYCLIC_UNROLLED_SLOTS;
}

/* SAME: in place (in == Amat), compiled as such: the loads' addresses are then the stores', which the
 * compiler keeps live (4 x 8, A = 7: 171 registers against 128 when in may differ and it recomputes
 * them; 1024 matrices of n = 50 in place 18.6 against 19.6 us on the H100). One kernel with both
 * bodies behind a branch was 1.5-1.8x slower at n = 50, 70, 90: twice the code to fetch. */
template <int T, int A, int R, bool SAME, bool AHEAD = false> __global__ void __launch_bounds__(CYCLIC_MAX_BLOCK)
    potrf_cyclic_kernel_unrolled(const float *in, float *Amat, int n, size_t batch, size_t chunk, size_t first,
                                 int per_block, size_t ahead, int *info)
{
    if constexpr (cyclic_unrolled(T, R))
        cyclic_factor<T, A, R, true, AHEAD, float>(SAME ? Amat : in, Amat, n, batch, chunk, first, per_block, ahead,
                                                   info);
}

/* Registers a thread: the compiler's choice, or, for the instances below, a cap under it that
 * fits more blocks of 64 threads on an SM (65 536 registers), 8 x 8 grid:
 *   A = 9 (n = 65..72):    109 -> 96,   9 -> 10 blocks
 *   A = 12 (n = 89..96):   175 -> 168,  5 -> 6
 *   A = 13 (n = 97..104):  212 -> 168,  4 -> 6
 * Measured on the H100 (1 GiB of row-major matrices, same run): n = 68, 72 1.04-1.05x faster,
 * n = 89..96 1.21-1.32x (n = 90: 1.33 -> 1.10 ms), n = 97..104 1.08-1.10x. Caps that tried and
 * lost or gained under 2 %: A = 10 at 128, A = 11 at 144, A = 14 and 16 at 200 (up to 1.5x slower:
 * the spills grow faster than the blocks); at n <= 64 (4 x 8, A = 6 and 7 at 96-120; 8 x 8, A = 8 at
 * 64-72), which already runs at 80-99 % of the copy roofline, -12 % to +3 %. The capped code
 * spills and a matrix takes longer (1024 matrices of n = 96: 54 to 64 us), so the cap is used only
 * where many blocks wait for a place on the SMs (cyclic_launch_one). */
__host__ __device__ constexpr int cyclic_reg_cap(int T, int A)
{
    return T != 64 ? 0 : A == 9 ? 96 : A == 12 || A == 13 ? 168 : 0;
}

template <int T, int A, int R, bool AHEAD = false> __global__ void __launch_bounds__(CYCLIC_MAX_BLOCK)
    __maxnreg__(cyclic_reg_cap(T, A) ? cyclic_reg_cap(T, A) : 255)
        potrf_cyclic_kernel_capped(const float *in, float *Amat, int n, size_t batch, size_t chunk, size_t first,
                                   int per_block, size_t ahead, int *info)
{
    cyclic_factor<T, A, R, false, AHEAD, float>(in, Amat, n, batch, chunk, first, per_block, ahead, info);
}

#endif
