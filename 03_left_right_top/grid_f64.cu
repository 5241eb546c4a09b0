/* grid_f64.cu - a batch of float64 matrices of any order, factored by the whole GPU in 64 x 64 tile
 * tasks (grid_f64.h). Stage 03's right-looking order, one step k at a time, each step three launches
 * over every matrix of the batch at once:
 *   1. the diagonal tile (k, k): factored by one block a matrix, four threads a row in registers, and
 *      inverted there, the inverse kept in the workspace;
 *   2. the panel below it: L(i, k) = A(i, k) L(k, k)^-T as a product A(i, k) inv^T, so it is the same
 *      tile product as the update, with no chain of dependent steps inside it;
 *   3. the update of the trailing lower tiles: A(i, j) -= L(i, k) L(j, k)^T.
 * Step 3 waits for a panel of 4 to 12 tile columns (inside it, only the panel's own columns are
 * updated step by step), then updates the trailing matrix with all of them at once: the next panel's
 * columns first, on the chain's stream, and the rest on a second stream, while the next panel is
 * factored (the look-ahead, f64_streams).
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
#include "chain_link.cuh"
#include "dmma.cuh"
#include "grid_f64.h"

#define NB GRID_F64_NB
#define KH 16       /* the product's K in slices of 16, two in flight (four in the chain's DEEP products) */
#define KS (KH + 4) /* row stride: a warp's 8 rows x 4 doubles fall into two passes of the 32 banks, the least */
#define PRODUCT_THREADS 128
/* Tile columns a panel of T: its columns' updates of the trailing matrix go in one launch (K = 64 x
 * the panel's tiles), which reads and writes that matrix once per panel instead of once per tile
 * column. Wider panels make that traffic and the bulk's launches fewer but the chain's own updates
 * longer: H200, the widths timed side by side (06 LIMITS), 4 was the fastest up to 4096, 8 at 8192,
 * 12 from 16384 (with the bulk's leaner loads; 8 there before them). */
static int panel_tiles(int T) { return T <= 64 ? 4 : T <= 128 ? 8 : 12; }

/* Step 1: tile (k, k) of matrix first + blockIdx.x: factor, store L, invert into inv. FOUR threads a
 * row (256 threads): thread (r, q) holds the entries of row r at columns c = 4 e + q in x[e], so
 * each group of four columns J .. J + 3 has one column in every thread of a row. A group is one
 * barrier: the owners publish the four columns (updated through J - 1), then every thread factors
 * the 4 x 4 block B at (J, J) itself, solves for its row's four entries l_r, and updates its own
 * columns c > J + 3 by all four at once: a_rc -= f . a_c with f = L_B^-T l_r (the float32 task's
 * scheme, grid_tasks.cu, potrf_columns). The first version, a thread a row and a barrier a column
 * (64 threads), was slower: its step was the whole row (06 LIMITS has the times). Every index into
 * x[] is a compile-time constant (the group loop is unrolled), so x[] stays in registers. Rows
 * above J compute values in their upper part that nothing reads; the identity past m. */
#define TILE_Q 4             /* threads a row */
#define TILE_W (NB / TILE_Q) /* entries a thread */
#define TILE_THREADS (NB * TILE_Q)
__global__ void __launch_bounds__(TILE_THREADS)
    f64_potrf_tile(double *A, int n, int k, size_t first, int *info, double *inv)
{
    /* S: L, for the inverse (stride 66: 16-byte pairs, and a warp's 4 rows in different banks); group:
     * the group's columns by rows, two buffers (group g + 1 may write while g reads). */
    __shared__ __align__(16) double S[NB][NB + 2];
    __shared__ __align__(16) double group[2][NB][TILE_Q];
    __shared__ double rdiag[NB]; /* 1 / L(j, j) */
    const int r = threadIdx.x / TILE_Q, q = threadIdx.x % TILE_Q, k0 = k * NB, m = n - k0 < NB ? n - k0 : NB;
    const size_t b = first + blockIdx.x;
    double *M = A + b * (size_t)n * n;
    double x[TILE_W];
    chain_wait_and_release(); /* the chain's launches are linked (chain_link.cuh) */
#pragma unroll
    for (int e = 0; e < TILE_W; e++) { /* the lower triangle only, the identity past m */
        const int c = TILE_Q * e + q;
        x[e] = r < m && c <= r ? M[(size_t)(k0 + r) * n + k0 + c] : r == c ? 1.0 : 0.0;
    }
    int fail = 0; /* the same in every thread: each factors every block */
#pragma unroll
    for (int g = 0; g < TILE_W; g++) {
        const int J = TILE_Q * g;
        double(*col)[TILE_Q] = group[g & 1];
        col[r][q] = x[g];
        __syncthreads();
        double lb[TILE_Q][TILE_Q], lr[TILE_Q], iv[TILE_Q], f[TILE_Q]; /* L_B (lower), 1 / its diagonal, l_r */
#pragma unroll
        for (int i = 0; i < TILE_Q; i++) {
            const double2 *row = reinterpret_cast<const double2 *>(col[J + i]), v0 = row[0], v1 = row[1];
            lb[i][0] = v0.x, lb[i][1] = v0.y, lb[i][2] = v1.x, lb[i][3] = v1.y;
        }
        const double2 *mine = reinterpret_cast<const double2 *>(col[r]), u0 = mine[0], u1 = mine[1];
        lr[0] = u0.x, lr[1] = u0.y, lr[2] = u1.x, lr[3] = u1.y;
#pragma unroll
        for (int c = 0; c < TILE_Q; c++) {
            double d = lb[c][c];
#pragma unroll
            for (int t = 0; t < c; t++) d = fma(-lb[c][t], lb[c][t], d);
            if (!(d > 0.0) && !fail && J + c < m) fail = J + c + 1; /* a pivot <= 0 or NaN: the first counts */
            iv[c] = rsqrt(d); /* one rsqrt: sqrt and a division each are a long subroutine on the chain */
#pragma unroll
            for (int i = c + 1; i < TILE_Q; i++) {
                double a = lb[i][c];
#pragma unroll
                for (int t = 0; t < c; t++) a = fma(-lb[i][t], lb[c][t], a);
                lb[i][c] = a * iv[c];
            }
#pragma unroll
            for (int t = 0; t < c; t++) lr[c] = fma(-lr[t], lb[c][t], lr[c]);
            lr[c] *= iv[c]; /* L(r, J + c); on the diagonal d * 1/sqrt(d) = sqrt(d) */
        }
#pragma unroll
        for (int c = TILE_Q - 1; c >= 0; c--) {
            double a = lr[c];
#pragma unroll
            for (int t = c + 1; t < TILE_Q; t++) a = fma(-lb[t][c], f[t], a);
            f[c] = a * iv[c];
        }
        x[g] = q == 0 ? lr[0] : q == 1 ? lr[1] : q == 2 ? lr[2] : lr[3];
        if (threadIdx.x == 0)
#pragma unroll
            for (int c = 0; c < TILE_Q; c++) rdiag[J + c] = iv[c];
#pragma unroll
        for (int e = g + 1; e < TILE_W; e++) { /* my columns right of the group, the next group's first */
            const double2 *a = reinterpret_cast<const double2 *>(col[TILE_Q * e + q]), a0 = a[0], a1 = a[1];
            x[e] = fma(-f[0], a0.x, fma(-f[1], a0.y, fma(-f[2], a1.x, fma(-f[3], a1.y, x[e]))));
        }
    }
#pragma unroll
    for (int e = 0; e < TILE_W; e++) {
        const int c = TILE_Q * e + q;
        S[r][c] = x[e];
        if (r < m && c <= r) M[(size_t)(k0 + r) * n + k0 + c] = x[e];
    }
    if (threadIdx.x == 0 && fail && info[b] == 0) info[b] = k0 + fail;
    __syncthreads();
    /* The inverse X = L^-1, column j = r by the row's four threads, rows 4 e + q in y[e]: forward
     * substitution in axpy order. y starts as column j of the identity; step p finishes X(p, j) =
     * y_p / L(p, p), its owner hands it to the other three by a shuffle, and each takes it out of its
     * rows below p. L(i, p) and L(i, p + 1) come in one 16-byte load (S's stride is even), read by
     * the four threads of a row alike (4 addresses a warp). A warp's columns are 8 w .. 8 w + 7, zero
     * above row 8 w: its steps before p = 8 w change nothing and are skipped. */
    const int j = r, quad = threadIdx.x % 32 & ~(TILE_Q - 1), from = threadIdx.x / 32 * (32 / TILE_Q);
    double y[TILE_W];
#pragma unroll
    for (int e = 0; e < TILE_W; e++) y[e] = TILE_Q * e + q == j ? 1.0 : 0.0;
#pragma unroll
    for (int p = 0; p < NB; p += 2)
        if (p + 2 > from) { /* else the warp's columns are zero in these rows (warp-uniform) */
            const int pe = p / TILE_Q;
            double2 l[TILE_W];
#pragma unroll
            for (int e = pe; e < TILE_W; e++) l[e] = *reinterpret_cast<const double2 *>(&S[TILE_Q * e + q][p]);
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int pq = (p + h) % TILE_Q;
                const double xp = __shfl_sync(0xffffffffu, y[pe] * rdiag[p + h], quad | pq);
                if (q == pq) y[pe] = xp;
#pragma unroll
                for (int e = pe; e < TILE_W; e++)
                    if (e > pe || q > pq) y[e] = fma(h ? -l[e].y : -l[e].x, xp, y[e]);
            }
        }
    double *X = inv + b * (size_t)NB * NB;
#pragma unroll
    for (int e = 0; e < TILE_W; e++) X[(TILE_Q * e + q) * NB + j] = y[e]; /* zeros above the diagonal */
}

/* Where entry e of the warp's accumulator fragment (mi, ni) lies in the warp's block (c of dmma_16x8x4
 * for the fragment 16 mi rows down and 8 ni columns right; lr = lane / 4, lk = lane % 4). */
__device__ __forceinline__ int frag_row(int mi, int e, int lr) { return 16 * mi + 8 * (e / 2) + lr; }
__device__ __forceinline__ int frag_col(int ni, int e, int lk) { return 8 * ni + 2 * lk + e % 2; }

/* Rows r0 .. r0 + 63, columns c0 .. c0 + KH - 1 of M (ld entries a row; rows past `rows`, columns past
 * `cols` as zeros) into Ts[64][KS], asynchronously (cp.async: the copy runs while the warps compute on
 * the other slice; zeros by a source size of 0). Before sm_80, plain loads. A thread keeps one column
 * and takes every (PRODUCT_THREADS / KH)-th row, so its addresses are one product and a constant step
 * (a loop over e = threadIdx.x, threadIdx.x + 128, ... with its per-copy index arithmetic was most
 * of the loop's instructions, 06 LIMITS). */
__device__ __forceinline__ void load_slice(double (*Ts)[KS], const double *M, size_t ld, int rows, int cols, int r0,
                                           int c0)
{
    constexpr int down = PRODUCT_THREADS / KH; /* rows a pass */
    const int r = threadIdx.x / KH, c = threadIdx.x % KH;
    const bool col_in = c0 + c < cols;
    const double *src = M + (size_t)(r0 + r) * ld + c0 + c;
#pragma unroll
    for (int i = 0; i < NB / down; i++) {
        const bool in = col_in && r0 + r + i * down < rows;
        const double *from = in ? src + (size_t)i * down * ld : M;
#if __CUDA_ARCH__ >= 800
        const unsigned dst = (unsigned)__cvta_generic_to_shared(&Ts[r + i * down][c]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst), "l"(from), "r"(in ? 8 : 0) : "memory");
#else
        Ts[r + i * down][c] = in ? *from : 0.0;
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
 * matrix once for all its columns.
 * DEEP (one tile column, K = 64, and a launch too small to fill the GPU twice: the chain's solve and
 * the panel's own updates): all four slices are requested at once, so the block waits for the L2
 * once instead of once a slice; two buffers otherwise (more blocks an SM where there are many). */
#define PRODUCT_BUFS(deep) ((deep) ? NB / KH : 2)
#define PRODUCT_SMEM(deep) (2 * PRODUCT_BUFS(deep) * NB * KS * sizeof(double))

/* Wait until at most `pending` (0, 2, 4 or 6: two commit groups a slice) are still in flight. */
__device__ __forceinline__ void slices_wait_upto(int pending)
{
    if (pending >= 6) slices_wait<6>();
    else if (pending >= 4) slices_wait<4>();
    else if (pending >= 2) slices_wait<2>();
    else slices_wait<0>();
}

template <bool SOLVE, bool DEEP> __global__ void __launch_bounds__(PRODUCT_THREADS)
    f64_tile_product(double *A, int n, int row0, int col0, int cols, int kfirst, int kcount, size_t tiles, size_t first,
                     const double *inv)
{
    constexpr int BUFS = PRODUCT_BUFS(DEEP);
    extern __shared__ double2 product_smem[];
    double(*As)[NB][KS] = (double(*)[NB][KS])product_smem, (*Bs)[NB][KS] = As + BUFS; /* BUFS slices each */
    const size_t g = first + blockIdx.x, b = g / tiles;
    const int s = (int)(g % tiles);
    int ti, tj;
    if (cols) ti = row0 + s / cols, tj = col0 + s % cols;
    else {
        lower_index(s, ti, tj);
        ti += row0, tj += row0;
    }
    if (tj > ti) return;      /* (the whole block: before any barrier) */
    chain_wait_and_release(); /* the chain's launches are linked (chain_link.cuh) */
    double *M = A + b * (size_t)n * n;
    const int r0 = ti * NB, c0 = tj * NB;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 2 * 32, wc = w % 2 * 32, lr = lane / 4,
              lk = lane % 4;
    double acc[2][4][4] = {}; /* the warp's 32 x 32: 2 x 4 fragments of 16 x 8 */
    const int slices = (SOLVE ? 1 : kcount) * (NB / KH);
    const double *X = inv + b * (size_t)NB * NB;
    auto load = [&](int h) { /* slice h: columns k0 .. k0 + KH - 1 of the A tile, and the B tile's */
                             const int k0 = (SOLVE ? col0 : kfirst + h / (NB / KH)) * NB + h % (NB / KH) * KH;
                             load_slice(As[h % BUFS], M, n, n, n, r0, k0);
                             if (SOLVE) load_slice(Bs[h % BUFS], X, NB, NB, NB, 0, h * KH);
                             else load_slice(Bs[h % BUFS], M, n, n, n, c0, k0);
    };
    if (DEEP)
        for (int h = 0; h < BUFS; h++) load(h); /* slices = BUFS: the launch makes sure */
    else load(0);
    for (int h = 0; h < slices; h++) {
        if (DEEP) slices_wait_upto(2 * (slices - 1 - h));
        else if (h + 1 < slices) {
            load(h + 1); /* into the other buffer, read by everyone before the last barrier */
            slices_wait<2>();
        } else slices_wait<0>();
        __syncthreads(); /* slice h has arrived for every thread */
        const double(*Ah)[KS] = As[h % BUFS], (*Bh)[KS] = Bs[h % BUFS];
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
        if (!DEEP) __syncthreads(); /* slice h is read: the next load may take its buffer */
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

/* One slice of BIG rows from (r0, c0), as load_slice: a thread keeps one column (a pair where VEC)
 * and takes every (BIG_THREADS / copies a row)-th row. */
template <bool VEC> __device__ __forceinline__ void load_big_slice(double *Ts, const double *M, int n, int r0, int c0)
{
    constexpr int per = VEC ? 2 : 1, across = KH / per, down = BIG_THREADS / across; /* copies a row, rows a pass */
    const int r = threadIdx.x / across, c = threadIdx.x % across * per;
    const bool col_in = c0 + c < n;
    const double *src = M + (size_t)(r0 + r) * n + c0 + c;
#pragma unroll
    for (int i = 0; i < BIG / down; i++) {
        const bool in = col_in && r0 + r + i * down < n;
        const double *from = in ? src + (size_t)i * down * n : M;
#if __CUDA_ARCH__ >= 800
        const unsigned dst = (unsigned)__cvta_generic_to_shared(Ts + (r + i * down) * KS + c);
        if (VEC)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(from), "r"(in ? 16 : 0)
                         : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(dst), "l"(from), "r"(in ? 8 : 0)
                         : "memory");
#else
        for (int q = 0; q < per; q++) Ts[(r + i * down) * KS + c + q] = in ? from[q] : 0.0;
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

/* The look-ahead (stage 03's, grid_schedule.c): the chain (diagonal tasks, the panel's solves and own
 * updates, then the next panel's columns) on a stream of the GPU's highest priority, the rest of each
 * panel's update (the bulk) on one of its lowest, so that panel P + 1 is factored while the bulk of
 * panel P's update runs, and a block of the chain takes the first place a block of the bulk leaves.
 * Forked from the caller's stream and joined back by events (so a capture takes both). Kept per host
 * thread and GPU: two threads never share them (nor one thread's capture and another's launches). */
struct f64_streams {
    cudaStream_t chain, bulk;
    cudaEvent_t fork, panel_done, rest_done, bulk_done, join;
};

/* This thread's streams on the current GPU, made on first use; NULL past 64 GPUs, and where the first
 * use is inside a capture of s (nothing is made then): one stream does it all, the same bits. */
static int f64_streams_get(cudaStream_t s, f64_streams **out)
{
    static thread_local f64_streams kept[64];
    int dev;
    CUDA_TRY(cudaGetDevice(&dev));
    *out = NULL;
    if (dev >= 64) return 0;
    if (!kept[dev].chain) { /* all or nothing: a failure leaves none kept */
        enum cudaStreamCaptureStatus capture;
        CUDA_TRY(cudaStreamIsCapturing(s, &capture));
        if (capture != cudaStreamCaptureStatusNone) return 0;
        f64_streams f;
        int least, greatest;
        CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CUDA_TRY(cudaStreamCreateWithPriority(&f.chain, cudaStreamNonBlocking, greatest));
        CUDA_TRY(cudaStreamCreateWithPriority(&f.bulk, cudaStreamNonBlocking, least));
        cudaEvent_t *events[] = {&f.fork, &f.panel_done, &f.rest_done, &f.bulk_done, &f.join};
        for (cudaEvent_t *e : events) CUDA_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
        kept[dev] = f;
    }
    *out = &kept[dev];
    return 0;
}

/* Every launch of a factorization: the chain on `chain`, each panel's bulk on `bulk` (the same stream
 * where there is no second one). */
static int f64_enqueue(int n, size_t batch, double *d_out, int *d_info, double *d_work, cudaStream_t chain,
                       cudaStream_t bulk, f64_streams *f)
{
    const int T = (n + NB - 1) / NB;
    static int optin_vec[64], optin_plain[64], optin_solve[64], optin_update[64], major[64];
    const int sms = launch_sm_count(), vec_optin = launch_smem_optin(f64_trailing_update<true>, optin_vec),
              plain_optin = launch_smem_optin(f64_trailing_update<false>, optin_plain),
              solve_optin = launch_smem_optin(f64_tile_product<true, true>, optin_solve),
              update_optin = launch_smem_optin(f64_tile_product<false, true>, optin_update),
              cc = launch_per_device(major, [](int dev) {
                  int m = 0;
                  const int failed = [&]() {
                      CUDA_TRY(cudaDeviceGetAttribute(&m, cudaDevAttrComputeCapabilityMajor, dev));
                      return 0;
                  }();
                  return failed ? 0 : m;
              });
    if (!sms || !vec_optin || !plain_optin || !solve_optin || !update_optin || !cc) return -1; /* noted */
    const bool linked = cc >= 9;
    /* sm_75 offers 64 KiB a block: there the chain's products keep two buffers. */
    const bool deep_fits = solve_optin >= (int)PRODUCT_SMEM(true) && update_optin >= (int)PRODUCT_SMEM(true);
    /* Where a block may not have BIG_SMEM (sm_86 and sm_89 offer ~99 KiB), the 64 x 64 product updates. */
    const bool big_fits = vec_optin >= (int)BIG_SMEM && plain_optin >= (int)BIG_SMEM;
    const bool vec = n % 2 == 0 && (uintptr_t)d_out % 16 == 0;
    /* One launch of the product kernel over `tiles` tiles of every matrix, on stream s. */
    auto product = [&](cudaStream_t s, bool solve, int row0, int col0, int cols, int kfirst, int kcount, size_t tiles) {
        const bool deep = deep_fits && kcount == 1 && batch * tiles <= 2 * (size_t)sms, link = linked && s == chain;
        return launch_split(batch * tiles, s, [&](unsigned count, size_t first) {
            auto kernel = solve ? (deep ? f64_tile_product<true, true> : f64_tile_product<true, false>)
                                : (deep ? f64_tile_product<false, true> : f64_tile_product<false, false>);
            (void)launch_linked(link, kernel, dim3(count), dim3(PRODUCT_THREADS), PRODUCT_SMEM(deep), s, d_out, n, row0,
                                col0, cols, kfirst, kcount, tiles, first,
                                (const double *)d_work); /* checked by launch_split */
        });
    };
    /* The trailing lower triangle from tile (row0, row0) minus the panel's product (kcount tile columns
     * from kfirst), on stream s. */
    auto trailing = [&](cudaStream_t s, int row0, int kfirst, int kcount) {
        const int rest = T - row0;
        const size_t big = (size_t)(rest + 1) / 2 * ((rest + 1) / 2 + 1) / 2; /* its BIG blocks */
        if (!big_fits || batch * big < (size_t)sms)                           /* too few BIG blocks to fill the GPU */
            return product(s, false, row0, row0, 0, kfirst, kcount, (size_t)rest * (rest + 1) / 2);
        return launch_split(batch * big, s, [&](unsigned count, size_t first) {
            if (vec)
                f64_trailing_update<true>
                    <<<count, BIG_THREADS, BIG_SMEM, s>>>(d_out, n, row0, kfirst, kcount, big, first);
            else
                f64_trailing_update<false>
                    <<<count, BIG_THREADS, BIG_SMEM, s>>>(d_out, n, row0, kfirst, kcount, big, first);
        });
    };
    bool rest_pending = false; /* bulk has work the chain has not waited for */
    const int P = panel_tiles(T);
    for (int p0 = 0; p0 < T; p0 += P) {
        const int pe = T < p0 + P ? T : p0 + P; /* the panel: tile columns p0 .. pe - 1 */
        for (int k = p0; k < pe; k++) {
            TRY(launch_split(batch, chain, [&](unsigned count, size_t first) {
                (void)launch_linked(linked, f64_potrf_tile, dim3(count), dim3(TILE_THREADS), 0, chain, d_out, n, k,
                                    first, d_info, d_work); /* checked by launch_split */
            }));
            const int below = T - 1 - k, right = pe - 1 - k; /* tiles below (k, k); panel columns right of k */
            if (below) TRY(product(chain, true, k + 1, k, 1, k, 1, (size_t)below));
            if (right) TRY(product(chain, false, k + 1, k + 1, right, k, 1, (size_t)below * right));
        }
        if (pe == T) break;
        /* The next panel's columns on the chain, the rest on the bulk's stream. One stream: all of it. */
        const int pe2 = T < pe + P ? T : pe + P;
        if (!f || pe2 == T) {
            if (rest_pending) /* the last panel's bulk updates this triangle too: after it, not beside it */
                CUDA_TRY(cudaStreamWaitEvent(chain, f->rest_done, 0));
            rest_pending = false;
            TRY(trailing(chain, pe, p0, pe - p0));
            continue;
        }
        CUDA_TRY(cudaEventRecord(f->panel_done, chain));
        CUDA_TRY(cudaStreamWaitEvent(bulk, f->panel_done, 0));
        if (rest_pending)
            CUDA_TRY(cudaStreamWaitEvent(chain, f->rest_done, 0)); /* the last panel's bulk updated them */
        TRY(product(chain, false, pe, pe, pe2 - pe, p0, pe - p0, (size_t)(T - pe) * (pe2 - pe)));
        TRY(trailing(bulk, pe2, p0, pe - p0));
        CUDA_TRY(cudaEventRecord(f->rest_done, bulk));
        rest_pending = true;
    }
    if (rest_pending) CUDA_TRY(cudaStreamWaitEvent(chain, f->rest_done, 0));
    return launch_split(batch * (size_t)n, chain, [&](unsigned count, size_t first) {
        f64_zero_upper<<<count, 128, 0, chain>>>(d_out, n, first);
    });
}

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
    f64_streams *f = NULL;
    if (n > 8 * NB) TRY(f64_streams_get(s, &f)); /* two panels and a rest: a bulk to overlap the next panel with */
    if (!f) return f64_enqueue(n, batch, d_out, d_info, d_work, s, s, NULL);
    CUDA_TRY(cudaEventRecord(f->fork, s));
    CUDA_TRY(cudaStreamWaitEvent(f->chain, f->fork, 0));
    CUDA_TRY(cudaStreamWaitEvent(f->bulk, f->fork, 0));
    const int failed = f64_enqueue(n, batch, d_out, d_info, d_work, f->chain, f->bulk, f);
    /* Joined back even after a failure, so that neither the caller's stream nor its capture is left
     * with work of ours outstanding. */
    if (failed) {
        (void)cudaEventRecord(f->bulk_done, f->bulk), (void)cudaStreamWaitEvent(f->chain, f->bulk_done, 0);
        (void)cudaEventRecord(f->join, f->chain), (void)cudaStreamWaitEvent(s, f->join, 0);
        return -1;
    }
    CUDA_TRY(cudaEventRecord(f->bulk_done, f->bulk));
    CUDA_TRY(cudaStreamWaitEvent(f->chain, f->bulk_done, 0));
    CUDA_TRY(cudaEventRecord(f->join, f->chain));
    CUDA_TRY(cudaStreamWaitEvent(s, f->join, 0));
    return 0;
}
