/* dmma_batched_f64.cu - small float64 matrices on the FP64 tensor cores: one matrix a block of four
 * warps, held in shared memory, factored right-looking in panels of 16 columns (dmma_batched_f64.h).
 * Per panel k (columns 16k .. 16k + 15):
 *   1. one warp factors the 16 x 16 diagonal tile in registers, a row a lane, the columns passed on
 *      through shared memory, and leaves 1 / L(j, j) there;
 *   2. every thread below it solves one row of the panel (L(i, :) = A(i, :) L11^-T by substitution,
 *      L11 read by broadcast);
 *   3. the trailing lower tiles are updated, A(I, J) -= L(I, k) L(J, k)^T, a 16 x 16 tile a task, as
 *      2 x 4 DMMA products of m16n8k4 (dmma.cuh). With a look-ahead: one warp updates diagonal tile
 *      k + 1 and goes on to factor it (step 1 of panel k + 1) while the other three update the rest.
 * The float64 cyclic kernel (cyclic_f64.cu) does all n^3 / 6 multiply-adds on the cores and steps
 * one column at a time over its whole grid of threads (a barrier a column); here the 16-column
 * POTRF and TRSM are the only serial chain (two barriers a panel), and the bulk runs on the units
 * with twice the cores' FP64 rate.
 *
 * Storage: tile row I (rows 16I .. 16I + 15) keeps columns 0 .. 16I + 15 only, its rows 16 (I + 1)
 * doubles apart, one after another (72 KiB at n = 128: three blocks an SM). No padding: each row's
 * columns are swizzled instead, column j stored at j XOR 4 (i mod 4), so that the fragment loads of
 * a warp fall into distinct banks (a, b, and c with the column order of dmma_col below). Rows and
 * columns past n are the identity and take the same steps; the strict upper triangle is set to zero
 * on load and written as zeros; what the updates leave above the diagonal is never read.
 * A pivot <= 0 or NaN sets info to its column + 1 (LAPACK's dpotrf), the first one; the matrix then
 * goes on with garbage, as the other kernels' do.
 *
 * What sets its speed, measured step by step with clock64() at the block's barriers (the loads,
 * the store, the diagonal tiles' chain, the look-ahead): the 06 README's float64 section; what
 * holds it now (one warp's chain of 128 square roots): 06 LIMITS.
 * Alone: make build/06_tuning/test_float64 && build/06_tuning/test_float64 */
#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "dmma.cuh"
#include "dmma_batched_f64.h"

#define DMMA_THREADS 128 /* four warps: the update's tasks spread over four, the rows of a solve <= 112 */

/* The packed tile rows of an order rounded up to P tiles of 16: 256 P (P + 1) / 2 doubles. */
__host__ __device__ constexpr int dmma_elements(int P) { return 128 * P * (P + 1); }

/* Where row i begins, and entry (i, j) (j < 16 (i / 16 + 1)). */
__device__ __forceinline__ int dmma_row(int i)
{
    const int I = i >> 4;
    return 128 * I * (I + 1) + (i & 15) * 16 * (I + 1);
}
__device__ __forceinline__ int dmma_swz(int i) { return (i & 3) << 2; }
__device__ __forceinline__ int dmma_at(int i, int j) { return dmma_row(i) + (j ^ dmma_swz(i)); }

/* Column c (0 .. 7) of a 16 x 8 fragment is column dmma_col(c) of the tile: 0 1 2 3 5 4 7 6. With the
 * swizzle, the b loads (rows dmma_col(g)) and the c loads (columns dmma_col(2t), dmma_col(2t + 1)) of
 * a half-warp then reach 16 different banks each; in the natural order one of them would collide. */
__device__ __forceinline__ int dmma_col(int c) { return c ^ (c >> 2); }

/* The 16 entries of a row inside a panel (rp: its first, s: its swizzle), in pairs (a pair stays
 * together under the swizzle), into registers and back. */
__device__ __forceinline__ void dmma_row_in(const double *rp, int s, double (&x)[16])
{
#pragma unroll
    for (int c = 0; c < 16; c += 2) {
        const double2 v = *reinterpret_cast<const double2 *>(rp + (c ^ s));
        x[c] = v.x, x[c + 1] = v.y;
    }
}
__device__ __forceinline__ void dmma_row_out(double *rp, int s, const double (&x)[16])
{
#pragma unroll
    for (int c = 0; c < 16; c += 2) *reinterpret_cast<double2 *>(rp + (c ^ s)) = make_double2(x[c], x[c + 1]);
}

/* Step 1: the diagonal tile at c0, by one warp. Lane l (and l + 16, its copy) holds row c0 + l. Step
 * j: the pivot d comes from lane j by a shuffle, the column (unscaled) through shared memory (cb, two
 * buffers: one __syncwarp a step) while 1 / sqrt(d) is formed; then x(c) -= x(j) A(c, j) / d and
 * L(l, j) = x(j) / sqrt(d). The chain from pivot to pivot is the shuffle, the square root and one
 * fma: the column's trip through shared memory runs beside it. The first failing pivot is kept in a
 * register (fail: its column + 1) and returned. */
__device__ __forceinline__ int dmma_potrf_tile(double *S, double *rinv, double *cb2, int c0, int n)
{
    const int lane = threadIdx.x & 31, i = c0 + (lane & 15), s = dmma_swz(i);
    double *rp = S + dmma_row(i) + c0;
    double x[16];
    int fail = 0;
    dmma_row_in(rp, s, x);
#pragma unroll
    for (int j = 0; j < 16; j++) {
        double *cb = cb2 + 16 * (j & 1);
        if (lane < 16) cb[lane] = x[j];
        const double d = __shfl_sync(0xffffffffu, x[j], j);
        __syncwarp();
        double2 col[8];
#pragma unroll
        for (int c = (j + 1) & ~1; c < 16; c += 2) col[c / 2] = *reinterpret_cast<const double2 *>(cb + c);
        fail = !fail && !(d > 0.0) && c0 + j < n ? c0 + j + 1 : fail;
        const double r = rsqrt(d), u = x[j] * (r * r);
        if (lane == 0) rinv[j] = r;
        x[j] *= r; /* L(i, j) (above the diagonal for lanes < j: garbage, never read) */
#pragma unroll
        for (int c = (j + 1) & ~1; c < 16; c += 2) {
            if (c > j) x[c] = fma(-u, col[c / 2].x, x[c]);
            x[c + 1] = fma(-u, col[c / 2].y, x[c + 1]);
        }
    }
    if (lane < 16) dmma_row_out(rp, s, x);
    return fail;
}

/* Step 2: row i of the panel at c0, below the diagonal tile: forward substitution with L11. */
__device__ __forceinline__ void dmma_solve_row(double *S, const double *rinv, int c0, int i)
{
    const int s = dmma_swz(i);
    double *rp = S + dmma_row(i) + c0;
    const double *L11 = S + dmma_row(c0) + c0;
    const int stride = 16 * (c0 / 16 + 1);
    double x[16];
    dmma_row_in(rp, s, x);
#pragma unroll
    for (int j = 0; j < 16; j++) {
        x[j] *= rinv[j];
#pragma unroll
        for (int c = j + 1; c < 16; c++) x[c] = fma(-x[j], L11[c * stride + (j ^ ((c & 3) << 2))], x[c]);
    }
    dmma_row_out(rp, s, x);
}

/* Step 3 for the tiles (I, J), ifirst <= I <= ilast, jfirst <= J <= min(I, jlast), row by row: worker
 * w of W takes tasks w, w + W, ... Each is 16 x 16: two fragments of 8 columns, K = 16 in four m16n8k4 products each. A lane's
 * offsets inside a 16-column group (the swizzle of its rows) are fixed: worked out once, so a task's
 * 24 loads and 8 stores are a base and an add each (dmma_at for each was ~10 instructions). */
__device__ __forceinline__ void dmma_update(double *S, int k, int ifirst, int ilast, int jfirst, int jlast, int w,
                                            int W)
{
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, c0 = 16 * k;
    const int sw = (g & 3) << 2, cg = dmma_col(g), swb = (cg & 3) << 2; /* rows 16 I + g; rows 16 J + cg */
    int ao[4], bo[4], co[2][2];
#pragma unroll
    for (int q = 0; q < 4; q++) ao[q] = (4 * q + t) ^ sw, bo[q] = (4 * q + t) ^ swb;
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int e = 0; e < 2; e++) co[h][e] = (8 * h + dmma_col(2 * t + e)) ^ sw;
    int I = ifirst, J = jfirst + w, have = -1, rowI = 0, sI = 0;
#define DMMA_NEXT_ROW_ /* J past row I's last tile: on to the next rows (row I has min(I, jlast) - jfirst + 1) */ \
    while (I <= ilast && J > min(I, jlast)) J -= min(I, jlast) - jfirst + 1, I++;
    DMMA_NEXT_ROW_ /* the worker's first task */
        double a[4][2];
    while (I <= ilast) {
        if (have != I) { /* a: -L(16 I + g (+ 8), c0 + 4 q + t), kept while the row of tiles lasts */
            sI = 16 * (I + 1), rowI = 128 * I * (I + 1) + g * sI;
#pragma unroll
            for (int q = 0; q < 4; q++) a[q][0] = -S[rowI + c0 + ao[q]], a[q][1] = -S[rowI + 8 * sI + c0 + ao[q]];
            have = I;
        }
        const int sJ = 16 * (J + 1), rowJ = 128 * J * (J + 1) + cg * sJ + c0, cI = rowI + 16 * J;
        double acc[2][4], b[2][4];
#pragma unroll
        for (int h = 0; h < 2; h++) {
#pragma unroll
            for (int q = 0; q < 4; q++) b[h][q] = S[rowJ + 8 * h * sJ + bo[q]];
            acc[h][0] = S[cI + co[h][0]], acc[h][1] = S[cI + co[h][1]];
            acc[h][2] = S[cI + 8 * sI + co[h][0]], acc[h][3] = S[cI + 8 * sI + co[h][1]];
        }
#pragma unroll
        for (int q = 0; q < 4; q++)
#pragma unroll
            for (int h = 0; h < 2; h++) dmma_16x8x4(acc[h], a[q][0], a[q][1], b[h][q]);
#pragma unroll
        for (int h = 0; h < 2; h++) {
            S[cI + co[h][0]] = acc[h][0], S[cI + co[h][1]] = acc[h][1];
            S[cI + 8 * sI + co[h][0]] = acc[h][2], S[cI + 8 * sI + co[h][1]] = acc[h][3];
        }
        J += W; /* the worker's next task: W on, row by row */
        DMMA_NEXT_ROW_
    }
#undef DMMA_NEXT_ROW_
}

/* MINB: the blocks an SM its registers are capped for. The smaller orders fit more matrices an SM in
 * shared memory, and more blocks overlap more of each other's chains (06 LIMITS has the times). */
template <int MINB> __global__ void __launch_bounds__(DMMA_THREADS, MINB)
    potrf_dmma_f64_kernel(const double *in, double *out, int n, int P, size_t first, int *info)
{
    extern __shared__ double2 dmma_smem[];
    double *S = reinterpret_cast<double *>(dmma_smem), *rinv = S + dmma_elements(P), *cb = rinv + 16;
    int &fail = *reinterpret_cast<int *>(cb + 32); /* all dynamic: the opt-in is the whole block's */
    const int tid = threadIdx.x, NT = 16 * P;
    const size_t b = first + blockIdx.x;
    const double *A = in + b * (size_t)n * n;
    /* The lower triangle in, zeros above it, the identity past n. Every copy is asynchronous
     * (cp.async: no registers held), so the whole matrix is one trip to memory; loads into
     * registers, eight rows a round, were eight to sixteen trips. */
    for (int I = tid / 16; I < P; I++) /* the tile rows whose columns 0 .. 16 I + 15 reach column tid */
        for (int r = 0; r < 16; r++) {
            const int i = 16 * I + r;
            const bool in_ = i < n && tid <= i;
            const double *from = in_ ? A + (size_t)i * n + tid : A;
            double *to = S + 128 * I * (I + 1) + r * 16 * (I + 1) + (tid ^ dmma_swz(r));
#if __CUDA_ARCH__ >= 800
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"((unsigned)__cvta_generic_to_shared(to)),
                         "l"(from), "r"(in_ ? 8 : 0)
                         : "memory");
#else
            *to = in_ ? *from : 0.0;
#endif
        }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    if (tid >= n && tid < NT) S[dmma_at(tid, tid)] = 1.0; /* after this thread's own zero fill of it */
    if (tid == 0) fail = 0;
    __syncthreads();
    /* Panel 0, then for each k the look-ahead: one warp updates diagonal tile k + 1 with panel k and
     * factors it, while the other three update the rest of the trailing matrix with panel k (the tiles
     * of column k + 1 first); then panel k + 1's solve. Two barriers a panel instead of three, and the
     * diagonal tile's chain no longer leaves three warps waiting (06 README, "float64"). */
    for (int k = -1; k < P - 1; k++) {
        const int warp = tid >> 5, pw = (k + 1 + blockIdx.x) & 3; /* turns: an SM's blocks seldom share a scheduler */
        if (warp == pw) {
            if (k >= 0) dmma_update(S, k, k + 1, k + 1, k + 1, k + 1, 0, 1);
            __syncwarp(); /* its lanes' stores before the other lanes read the rows */
            const int f = dmma_potrf_tile(S, rinv, cb, 16 * (k + 1), n);
            if (tid % 32 == 0 && f && !fail) fail = f;
        } else if (k >= 0) {
            const int w = (warp - pw + 3) & 3;
            dmma_update(S, k, k + 2, P - 1, k + 1, k + 1, w, 3); /* column k + 1, for the solve next */
            dmma_update(S, k, k + 2, P - 1, k + 2, P, w, 3);
        }
        __syncthreads();
        const int c0 = 16 * (k + 1), below = NT - c0 - 16;
        if (below <= 0) break;
        if (tid < below) dmma_solve_row(S, rinv, c0, c0 + 16 + tid);
        __syncthreads();
    }
    /* The factor out, zeros above the diagonal: eight rows' reads of shared memory, then their eight
     * stores (one row at a time, each store waiting for its read, took a quarter of the block). */
    double *O = out + b * (size_t)n * n + tid;
    if (tid < n)
        for (int i0 = 0; i0 < n; i0 += 8) {
            double v[8];
#pragma unroll
            for (int r = 0; r < 8; r++) {
                const int i = i0 + r, I = i >> 4,
                          at = 128 * I * (I + 1) + (i & 15) * 16 * (I + 1) + (tid ^ dmma_swz(i));
                v[r] = i < n && tid <= i ? S[at] : 0.0;
            }
#pragma unroll
            for (int r = 0; r < 8; r++)
                if (i0 + r < n) O[(size_t)(i0 + r) * n] = v[r];
        }
    if (tid == 0) info[b] = fail;
}

extern "C" int potrf_batched_dmma_f64(int n, size_t batch, const double *d_in, double *d_out, int *d_info,
                                      cudaStream_t stream)
{
    if (n < 1 || n > DMMA_F64_MAX_N) {
        course_report("potrf_batched_dmma_f64: n = %d (takes 1 .. %d)\n", n, DMMA_F64_MAX_N);
        return -1;
    }
    /* Blocks an SM by order: up to 80 (five tiles, 31 KiB a matrix) five, their registers capped at 96
     * (a few spilled); up to 96 (43 KiB) four; beyond, three (shared memory allows no more). */
    static void (*const kernels[3])(const double *, double *, int, int, size_t, int *) = {
        potrf_dmma_f64_kernel<5>, potrf_dmma_f64_kernel<4>, potrf_dmma_f64_kernel<3>};
    static int optin[3][64];
    const int form = n <= 80 ? 0 : n <= 96 ? 1 : 2;
    if (!launch_smem_optin(kernels[form], optin[form])) return -1;
    const int P = (n + 15) / 16;
    const size_t smem = (dmma_elements(P) + 16 + 32 + 1) * sizeof(double); /* tiles, 1 / L(j, j), columns, info */
    return launch_split(batch, stream, [&](unsigned count, size_t first_block) {
        kernels[form]<<<count, DMMA_THREADS, smem, stream>>>(d_in, d_out, n, P, first_block, d_info);
    });
}
