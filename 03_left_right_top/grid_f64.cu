/* grid_f64.cu - a batch of float64 matrices of any order, factored by the whole GPU in 64 x 64 tile
 * tasks (grid_f64.h). Stage 03's right-looking order, one step k at a time, each step three launches
 * over every matrix of the batch at once:
 *   1. the diagonal tile (k, k): factored by one block a matrix, a row a thread in registers, and
 *      inverted there, the inverse kept in the workspace;
 *   2. the panel below it: L(i, k) = A(i, k) L(k, k)^-T as a product A(i, k) inv^T, so it is the same
 *      tile product as the update, with no chain of dependent steps inside it;
 *   3. the update of the trailing lower tiles: A(i, j) -= L(i, k) L(j, k)^T.
 * Step 3 waits for a panel of PANEL_TILES tile columns (inside it, only the panel's own columns are
 * updated step by step), then updates the trailing matrix with all of them at once.
 * Steps 2 and 3 are one kernel (f64_tile_product): a 64 x 64 tile by four warps, each 32 x 32 as
 * 2 x 4 DMMA fragments (mma.sync m16n8k4 with f64 operands: the FP64 tensor cores). A panel's update
 * of the trailing matrix, most of the flops, has its own kernel (f64_trailing_update): 128 x 128
 * blocks, K in slices of 16 through four buffers, where the GPU has enough of them. Rows and columns
 * past n are read as zeros and not written; in the diagonal tile they are the identity, so the last,
 * partial tile needs no special case.
 * The strict upper triangle is never read (the diagonal tile loads only its lower part; the updates
 * of a diagonal tile write garbage above its diagonal, which nothing reads) and is set to zero last.
 * Alone: make build/03_left_right_top/test_grid && build/03_left_right_top/test_grid */
#include <math.h>
#include <stdint.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "grid_f64.h"

#define NB GRID_F64_NB
#define KH 16           /* the product's K in slices of 16, two in flight: four 64 x 20 tiles fit the 48 KiB */
#define KS (KH + 4)     /* row stride: a warp's 8 rows x 4 doubles fall into two passes of the 32 banks, the least */
#define TILE_THREADS NB /* the diagonal tile: a thread a row */
#define PRODUCT_THREADS 128
/* Tile columns a panel: its columns' updates of the trailing matrix go in one launch (K = 256), which
 * reads and writes that matrix once per panel instead of once per tile column. */
#define PANEL_TILES 4

/* Step 1: tile (k, k) of matrix first + blockIdx.x: factor, store L, invert into inv. A thread a row
 * (then a column of the inverse), held in registers, so that a column step costs one barrier of two
 * warps. The loops run in blocks of JB columns, the registers shifted by JB after each block: the code
 * of one block (a few thousand instructions) is fetched once and run NB / JB times; fully unrolled,
 * each instruction ran once, fetched from L2, slower than the extra multiply-adds (03 README, question
 * 29). Entries past the tile (the top of a register window near the end) are garbage that nothing
 * reads; the buffers are padded so that their reads stay in bounds. */
#define JB 8
#define TILE_ROWS (2 * NB - JB) /* S's rows: those past NB are the windows' padding */
#define TILE_SMEM ((TILE_ROWS * (NB + 1) + 2 * 2 * NB + NB) * sizeof(double))
__global__ void __launch_bounds__(TILE_THREADS)
    f64_potrf_tile(double *A, int n, int k, size_t first, int *info, double *inv)
{
    extern __shared__ double tile_smem[];
    double(*S)[NB + 1] = (double(*)[NB + 1]) tile_smem; /* the tile (stride 65: a column's entries in
                                                               different banks), then L */
    double(*column)[2 * NB] = (double(*)[2 * NB])(tile_smem + TILE_ROWS * (NB + 1)); /* step j's column, two
                                                               buffers: step j + 1 may write while j reads */
    double *rdiag = tile_smem + TILE_ROWS * (NB + 1) + 2 * 2 * NB;                   /* 1 / L(j, j) */
    const int i = threadIdx.x, k0 = k * NB, m = n - k0 < NB ? n - k0 : NB;
    const size_t b = first + blockIdx.x;
    double *M = A + b * (size_t)n * n;
#pragma unroll 16 /* 16 loads in flight a thread: 64 threads, one load at a time each, wait long */
    for (int e = i; e < NB * NB; e += TILE_THREADS) { /* coalesced; the lower triangle only, the identity past m */
        const int r = e / NB, c = e % NB;
        S[r][c] = r < m && c <= r ? M[(size_t)(k0 + r) * n + k0 + c] : r == c ? 1.0 : 0.0;
    }
    __syncthreads();
    double a[NB]; /* row i from column j0 on: A(i, .) updated, L(i, .) once its step has passed */
#pragma unroll
    for (int c = 0; c < NB; c++) a[c] = S[i][c];
    int fail = 0; /* the same in every thread: each computes every pivot */
#pragma unroll 1
    for (int j0 = 0; j0 < NB; j0 += JB) {
#pragma unroll
        for (int jj = 0; jj < JB; jj++) { /* right-looking: column j, then every row updates the columns after j */
            const int j = j0 + jj;
            column[j & 1][i] = a[jj];
            __syncthreads();
            const double d = column[j & 1][j], r = rsqrt(d), l = d * r; /* one rsqrt: sqrt and a division
                                                  each are a long subroutine on the step's critical path */
            if (!(d > 0.0) && !fail && j < m) fail = j + 1;             /* a pivot <= 0 or NaN: the first one counts */
            /* rows above j compute garbage in their upper part, which is never read: no branch */
            const double lij = a[jj] * r, t = lij * r,
                         *col = column[j & 1] + j0; /* L(i, j), and L(i, j) / L(j, j) for A(j, q) = column[q] */
            a[jj] = i == j ? l : lij;
            if (i == j) rdiag[j] = r;
#pragma unroll
            for (int q = jj + 1; q < NB; q++) a[q] = fma(-t, col[q], a[q]);
        }
#pragma unroll
        for (int c = 0; c < JB; c++) S[i][j0 + c] = a[c];
#pragma unroll
        for (int c = 0; c < NB - JB; c++) a[c] = a[c + JB];
    }
    __syncthreads();
    for (int e = i; e < NB * NB; e += TILE_THREADS) {
        const int r = e / NB, c = e % NB;
        if (r < m && c <= r) M[(size_t)(k0 + r) * n + k0 + c] = S[r][c];
    }
    if (i == 0 && fail && info[b] == 0) info[b] = k0 + fail;
    /* The inverse X = L^-1, a column a thread (j = i): forward substitution in axpy order, so that the
     * products of a step are independent: x[c] holds X(q0 + c, j), final once its step has passed, a
     * running sum before. Every thread reads the same L(q2, q): broadcasts. */
    const int j = i;
    double x[NB];
#pragma unroll
    for (int c = 0; c < NB; c++) x[c] = 0.0;
    double *X = inv + b * (size_t)NB * NB;
#pragma unroll 1
    for (int q0 = 0; q0 < NB; q0 += JB) {
#pragma unroll
        for (int qq = 0; qq < JB; qq++) {
            const int q = q0 + qq;
            const double *Lq = &S[q0][q]; /* L(q0 + c, q) at Lq[c * (NB + 1)] */
            x[qq] = q < j ? 0.0 : q == j ? rdiag[q] : -x[qq] * rdiag[q];
#pragma unroll
            for (int c = qq + 1; c < NB; c++) x[c] = fma(Lq[c * (NB + 1)], x[qq], x[c]);
        }
#pragma unroll
        for (int c = 0; c < JB; c++) X[(q0 + c) * NB + j] = x[c]; /* zeros above the diagonal */
#pragma unroll
        for (int c = 0; c < NB - JB; c++) x[c] = x[c + JB];
    }
}

/* One 16 x 8 x 4 product on the FP64 tensor cores: c += a b for the warp's fragments (g = lane / 4,
 * t = lane % 4: a = A(g, t), A(g + 8, t); b = B(t, g); c = C(g, 2t + {0, 1}), C(g + 8, 2t + {0, 1})).
 * Hopper has it as one instruction (m16n8k4); the m8n8k4 shape that sm_80 has peaks at half the rate
 * there (06 LIMITS, "float64, one large matrix"), so sm_80 alone takes two. */
__device__ __forceinline__ void dmma_16x8x4(double (&c)[4], double a0, double a1, double b)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a0), "d"(a1), "d"(b));
#elif __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a0), "d"(b));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c[2]), "+d"(c[3])
                 : "d"(a1), "d"(b));
#endif
}

/* Where entry e of the warp's accumulator fragment (mi, ni) lies in the warp's block (c of dmma_16x8x4
 * for the fragment 16 mi rows down and 8 ni columns right; lr = lane / 4, lk = lane % 4). */
__device__ __forceinline__ int frag_row(int mi, int e, int lr) { return 16 * mi + 8 * (e / 2) + lr; }
__device__ __forceinline__ int frag_col(int ni, int e, int lk) { return 8 * ni + 2 * lk + e % 2; }

/* Rows r0 .. r0 + 63, columns c0 .. c0 + KH - 1 of M (ld entries a row; rows past `rows`, columns past
 * `cols` as zeros) into Ts[64][KS], asynchronously (cp.async: the copy runs while the warps compute on
 * the other slice; zeros by a source size of 0). Before sm_80, plain loads. */
__device__ __forceinline__ void load_slice(double (*Ts)[KS], const double *M, size_t ld, int rows, int cols, int r0,
                                           int c0)
{
    for (int e = threadIdx.x; e < NB * KH; e += PRODUCT_THREADS) {
        const int r = e / KH, c = e % KH;
        const bool in = r0 + r < rows && c0 + c < cols;
        const double *src = in ? M + (size_t)(r0 + r) * ld + c0 + c : M;
#if __CUDA_ARCH__ >= 800
        const unsigned dst = (unsigned)__cvta_generic_to_shared(&Ts[r][c]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst), "l"(src), "r"(in ? 8 : 0) : "memory");
#else
        Ts[r][c] = in ? *src : 0.0;
#endif
    }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* Wait until at most `pending` slices of this thread are still in flight. */
template <int pending> __device__ __forceinline__ void slices_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(pending) : "memory");
#endif
}

/* Entry s of a lower triangle enumerated row by row: s = i (i + 1) / 2 + j, j <= i. */
__device__ __forceinline__ void lower_index(int s, int &i, int &j)
{
    i = (int)((sqrt(8.0 * s + 1.0) - 1.0) / 2.0);
    while ((i + 1) * (i + 2) / 2 <= s) i++;
    while (i * (i + 1) / 2 > s) i--;
    j = s - i * (i + 1) / 2;
}

/* Steps 2 and 3, block g = first + blockIdx.x: tile g % tiles of matrix g / tiles. The tiles: a
 * rectangle of `cols` tile columns from (row0, col0), row by row (those above the diagonal do
 * nothing), or with cols = 0 the lower triangle from (row0, row0), row by row. SOLVE: the tile
 * (i, k = col0) becomes itself times inv^T. Else tile (i, j) -= sum over the tile columns p = kfirst ..
 * kfirst + kcount - 1 of L(i, p) L(j, p)^T: a wider panel's update reads and writes the trailing
 * matrix once for all its columns. */
template <bool SOLVE> __global__ void __launch_bounds__(PRODUCT_THREADS)
    f64_tile_product(double *A, int n, int row0, int col0, int cols, int kfirst, int kcount, size_t tiles, size_t first,
                     const double *inv)
{
    __shared__ double As[2][NB][KS], Bs[2][NB][KS]; /* two slices: one computed on, one arriving */
    const size_t g = first + blockIdx.x, b = g / tiles;
    const int s = (int)(g % tiles);
    int ti, tj;
    if (cols) ti = row0 + s / cols, tj = col0 + s % cols;
    else {
        lower_index(s, ti, tj);
        ti += row0, tj += row0;
    }
    if (tj > ti) return; /* (the whole block: before any barrier) */
    double *M = A + b * (size_t)n * n;
    const int r0 = ti * NB, c0 = tj * NB;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 2 * 32, wc = w % 2 * 32, lr = lane / 4,
              lk = lane % 4;
    double acc[2][4][4] = {}; /* the warp's 32 x 32: 2 x 4 fragments of 16 x 8 */
    const int slices = (SOLVE ? 1 : kcount) * (NB / KH);
    const double *X = inv + b * (size_t)NB * NB;
    auto load = [&](int h) { /* slice h: columns k0 .. k0 + KH - 1 of the A tile, and the B tile's */
                             const int k0 = (SOLVE ? col0 : kfirst + h / (NB / KH)) * NB + h % (NB / KH) * KH;
                             load_slice(As[h & 1], M, n, n, n, r0, k0);
                             if (SOLVE) load_slice(Bs[h & 1], X, NB, NB, NB, 0, h * KH);
                             else load_slice(Bs[h & 1], M, n, n, n, c0, k0);
    };
    load(0);
    for (int h = 0; h < slices; h++) {
        if (h + 1 < slices) {
            load(h + 1); /* into the other buffer, read by everyone before the last barrier */
            slices_wait<2>();
        } else slices_wait<0>();
        __syncthreads(); /* slice h has arrived for every thread */
        const double(*Ah)[KS] = As[h & 1], (*Bh)[KS] = Bs[h & 1];
#pragma unroll
        for (int kk = 0; kk < KH; kk += 4) {
            double a[2][2], bv[4];
#pragma unroll
            for (int f = 0; f < 2; f++)
                a[f][0] = Ah[wr + 16 * f + lr][kk + lk], a[f][1] = Ah[wr + 16 * f + 8 + lr][kk + lk];
#pragma unroll
            for (int f = 0; f < 4; f++) bv[f] = Bh[wc + 8 * f + lr][kk + lk];
#pragma unroll
            for (int mi = 0; mi < 2; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++) {
#if __CUDA_ARCH__ >= 800
                    dmma_16x8x4(acc[mi][ni], a[mi][0], a[mi][1], bv[ni]);
#else /* no FP64 tensor cores: the same sums on the cores */
                    for (int e = 0; e < 4; e++)
                        for (int q = 0; q < 4; q++)
                            acc[mi][ni][e] +=
                                Ah[wr + frag_row(mi, e, lr)][kk + q] * Bh[wc + frag_col(ni, e, lk)][kk + q];
#endif
                }
        }
        __syncthreads(); /* slice h is read: the next load may take its buffer */
    }
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = r0 + wr + frag_row(mi, e, lr), c = c0 + wc + frag_col(ni, e, lk);
                if (r < n && c < n) {
                    double *p = M + (size_t)r * n + c;
                    *p = SOLVE ? acc[mi][ni][e] : *p - acc[mi][ni][e];
                }
            }
}

/* The trailing update of a panel (step 3 for the panel's kcount tile columns), in blocks of BIG x BIG
 * (2 x 2 tiles): half the bytes a flop of 64 x 64 blocks, so the product stays on the tensor cores
 * instead of waiting for L2. 8 warps of 64 x 32, STAGES slice buffers (dynamic shared memory).
 * As written, a slice is two commit groups (A's and B's), so wait_group STAGES - 2 also waits for slice
 * h + 1: one slice arrives while h is computed, not STAGES - 2 (one commit a slice: measured level,
 * 06 LIMITS).
 * Block g = first + blockIdx.x: block g % tiles of the lower triangle of BIG blocks from tile
 * (row0, row0) of matrix g / tiles. VEC: 16-byte copies (n even and A 16-byte aligned, so a pair of
 * columns is in or out together). Writes only on and below the diagonal. */
#define BIG (2 * NB)
#define BIG_THREADS 256
#define STAGES 4
#define BIG_SMEM (STAGES * 2 * BIG * KS * sizeof(double))

template <bool VEC> __device__ __forceinline__ void load_big_slice(double *Ts, const double *M, int n, int r0, int c0)
{
    constexpr int per = VEC ? 2 : 1; /* doubles a copy */
    for (int e = threadIdx.x; e < BIG * KH / per; e += BIG_THREADS) {
        const int r = e / (KH / per), c = e % (KH / per) * per;
        const bool in = r0 + r < n && c0 + c < n;
        const double *src = in ? M + (size_t)(r0 + r) * n + c0 + c : M;
#if __CUDA_ARCH__ >= 800
        const unsigned dst = (unsigned)__cvta_generic_to_shared(Ts + r * KS + c);
        if (VEC)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(in ? 16 : 0)
                         : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst), "l"(src), "r"(in ? 8 : 0)
                         : "memory");
#else
        for (int q = 0; q < per; q++) Ts[r * KS + c + q] = in ? src[q] : 0.0;
#endif
    }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <bool VEC> __global__ void __launch_bounds__(BIG_THREADS, 1)
    f64_trailing_update(double *A, int n, int row0, int kfirst, int kcount, size_t tiles, size_t first)
{
    extern __shared__ double2 big_smem[]; /* STAGES x {A rows, B rows} x BIG x KS */
    double *sm = (double *)big_smem;
    const size_t g = first + blockIdx.x, b = g / tiles;
    int bi, bj;
    lower_index((int)(g % tiles), bi, bj);
    double *M = A + b * (size_t)n * n;
    const int r0 = row0 * NB + bi * BIG, c0 = row0 * NB + bj * BIG;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 4 * 64, wc = w % 4 * 32, lr = lane / 4,
              lk = lane % 4;
    /* acc starts as -C, read now, while the first slices arrive, and ends as -(C - L L^T): the store at
     * the end does not wait for a load (that wait was the largest stall, 06 LIMITS). */
    double acc[4][4][4]; /* the warp's 64 x 32: 4 x 4 fragments of 16 x 8 */
    const int slices = kcount * (NB / KH);
    auto load = [&](int h) {
        double *As = sm + (h % STAGES) * 2 * BIG * KS, *Bs = As + BIG * KS;
        const int k0 = kfirst * NB + h * KH;
        load_big_slice<VEC>(As, M, n, r0, k0);
        load_big_slice<VEC>(Bs, M, n, c0, k0);
    };
    auto empty_group = [] {
#if __CUDA_ARCH__ >= 800
        asm volatile("cp.async.commit_group;" ::: "memory"); /* keeps the count of groups per slice */
#endif
    };
    for (int h = 0; h < STAGES - 1; h++) h < slices ? load(h) : empty_group();
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = r0 + wr + frag_row(mi, e, lr), c = c0 + wc + frag_col(ni, e, lk);
                acc[mi][ni][e] = r < n && c <= r ? -M[(size_t)r * n + c] : 0.0;
            }
    for (int h = 0; h < slices; h++) {
        slices_wait<STAGES - 2>(); /* slice h has arrived (for this thread) */
        __syncthreads();           /* for every thread; and slice h - 1 is read by all, so its buffer is free */
        h + STAGES - 1 < slices ? load(h + STAGES - 1) : empty_group();
        const double *Ah = sm + (h % STAGES) * 2 * BIG * KS, *Bh = Ah + BIG * KS;
#pragma unroll
        for (int kk = 0; kk < KH; kk += 4) {
            double a[4][2], bv[4];
#pragma unroll
            for (int f = 0; f < 4; f++)
                a[f][0] = Ah[(wr + 16 * f + lr) * KS + kk + lk], a[f][1] = Ah[(wr + 16 * f + 8 + lr) * KS + kk + lk];
#pragma unroll
            for (int f = 0; f < 4; f++) bv[f] = Bh[(wc + 8 * f + lr) * KS + kk + lk];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++) {
#if __CUDA_ARCH__ >= 800
                    dmma_16x8x4(acc[mi][ni], a[mi][0], a[mi][1], bv[ni]);
#else
                    for (int e = 0; e < 4; e++)
                        for (int q = 0; q < 4; q++)
                            acc[mi][ni][e] += Ah[(wr + frag_row(mi, e, lr)) * KS + kk + q] *
                                              Bh[(wc + frag_col(ni, e, lk)) * KS + kk + q];
#endif
                }
        }
    }
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = r0 + wr + frag_row(mi, e, lr), c = c0 + wc + frag_col(ni, e, lk);
                if (r < n && c <= r) M[(size_t)r * n + c] = -acc[mi][ni][e];
            }
}

/* Zeros above the diagonal: row first + blockIdx.x of the batch (matrix row / n, row row % n). */
__global__ void f64_zero_upper(double *A, int n, size_t first)
{
    const size_t row = first + blockIdx.x;
    const int i = (int)(row % n);
    double *R = A + row * n;
    for (int j = i + 1 + threadIdx.x; j < n; j += blockDim.x) R[j] = 0.0;
}

extern "C" size_t grid_f64_workspace_bytes(size_t batch) { return batch * NB * NB * sizeof(double); }

extern "C" int potrf_grid_f64(int n, size_t batch, const double *d_in, double *d_out, int *d_info, double *d_work,
                              cudaStream_t s)
{
    if (n < 1 || !batch || !d_in || !d_out || !d_info || !d_work) {
        course_report("potrf_grid_f64: n = %d, batch = %zu, or a NULL pointer\n", n, batch);
        return -1;
    }
    const size_t nn = (size_t)n * n;
    if (d_out != d_in) CUDA_TRY(cudaMemcpyAsync(d_out, d_in, batch * nn * sizeof(double), cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaMemsetAsync(d_info, 0, batch * sizeof(int), s));
    const int T = (n + NB - 1) / NB;
    static int optin_vec[64], optin_plain[64], optin_tile[64];
    const int sms = launch_sm_count(), tile_optin = launch_smem_optin(f64_potrf_tile, optin_tile),
              vec_optin = launch_smem_optin(f64_trailing_update<true>, optin_vec),
              plain_optin = launch_smem_optin(f64_trailing_update<false>, optin_plain);
    if (!sms || !tile_optin || !vec_optin || !plain_optin) return -1; /* noted */
    if (tile_optin < (int)TILE_SMEM) {
        course_report(
            "potrf_grid_f64: the diagonal task needs %zu bytes of shared memory a block, this GPU offers %d\n",
            (size_t)TILE_SMEM, tile_optin);
        return -1;
    }
    /* Where a block may not have BIG_SMEM (sm_86 and sm_89 offer ~99 KiB), the 64 x 64 product updates. */
    const bool big_fits = vec_optin >= (int)BIG_SMEM && plain_optin >= (int)BIG_SMEM;
    const bool vec = n % 2 == 0 && (uintptr_t)d_out % 16 == 0;
    /* One launch of the product kernel over `tiles` tiles of every matrix. */
    auto product = [&](bool solve, int row0, int col0, int cols, int kfirst, int kcount, size_t tiles) {
        return launch_split(batch * tiles, s, [&](unsigned count, size_t first) {
            if (solve)
                f64_tile_product<true><<<count, PRODUCT_THREADS, 0, s>>>(d_out, n, row0, col0, cols, kfirst, kcount,
                                                                         tiles, first, d_work);
            else
                f64_tile_product<false><<<count, PRODUCT_THREADS, 0, s>>>(d_out, n, row0, col0, cols, kfirst, kcount,
                                                                          tiles, first, d_work);
        });
    };
    for (int p0 = 0; p0 < T; p0 += PANEL_TILES) {
        const int pe = T < p0 + PANEL_TILES ? T : p0 + PANEL_TILES; /* the panel: tile columns p0 .. pe - 1 */
        for (int k = p0; k < pe; k++) {
            TRY(launch_split(batch, s, [&](unsigned count, size_t first) {
                f64_potrf_tile<<<count, TILE_THREADS, TILE_SMEM, s>>>(d_out, n, k, first, d_info, d_work);
            }));
            const int below = T - 1 - k, right = pe - 1 - k; /* tiles below (k, k); panel columns right of k */
            if (below) TRY(product(true, k + 1, k, 1, k, 1, (size_t)below));
            if (right) TRY(product(false, k + 1, k + 1, right, k, 1, (size_t)below * right));
        }
        const int rest = T - pe; /* the trailing lower triangle, once for the panel's columns */
        const size_t big = (size_t)(rest + 1) / 2 * ((rest + 1) / 2 + 1) / 2; /* its BIG blocks */
        if (rest && big_fits && batch * big >= (size_t)sms) {                 /* enough BIG blocks to fill the GPU */
            TRY(launch_split(batch * big, s, [&](unsigned count, size_t first) {
                if (vec)
                    f64_trailing_update<true>
                        <<<count, BIG_THREADS, BIG_SMEM, s>>>(d_out, n, pe, p0, pe - p0, big, first);
                else
                    f64_trailing_update<false>
                        <<<count, BIG_THREADS, BIG_SMEM, s>>>(d_out, n, pe, p0, pe - p0, big, first);
            }));
        } else if (rest) TRY(product(false, pe, pe, 0, p0, pe - p0, (size_t)rest * (rest + 1) / 2));
    }
    return launch_split(batch * (size_t)n, s,
                        [&](unsigned count, size_t first) { f64_zero_upper<<<count, 128, 0, s>>>(d_out, n, first); });
}
