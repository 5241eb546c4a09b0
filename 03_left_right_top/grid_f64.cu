/* grid_f64.cu - a batch of float64 matrices of any order, factored by the whole GPU in 64 x 64 tile
 * tasks (grid_f64.h), every matrix's tasks of a step in one launch. Stage 03's right-looking order
 * between panels of 4 to 16 tile columns; inside a panel, each tile column k is two launches (the
 * chain):
 *   1. the diagonal tile (k, k) (f64_potrf_tile): first the panel's own updates of it from columns
 *      p0 .. k - 1, then factored by one block a matrix, four threads a row in registers, and
 *      inverted there, the inverse kept in the workspace;
 *   2. the tiles below it (f64_panel_solve): the panel's updates of each, A(i, k) -= sum L(i, p)
 *      L(k, p)^T, then L(i, k) = A(i, k) L(k, k)^-T as a product with the inverse, so there is no
 *      chain of dependent steps inside it.
 * So the panel is factored left-looking, and the updates of each link (all but the last column's
 * terms) run beside the link before it (chain_link.cuh: where the launches are linked; else the older
 * right-looking panel, an update launch after each column). After a panel, its update of the
 * trailing matrix, all its columns at once: the next panel's columns first, on the chain's stream
 * (f64_tile_product; with 16-tile panels, the rest's kernel), and the rest on a second stream while
 * the next panel is factored (the look-ahead, f64_streams), in 128 x 128 blocks, K in slices of 16
 * through four buffers (f64_trailing_update; on Hopper with even n six, filled by the copy engine:
 * f64_trailing_update_tma). Every product is on the FP64 tensor cores (mma.sync m16n8k4 with f64
 * operands, dmma.cuh), a warp's block as 16 x 8 fragments. Rows and columns past n are read as zeros
 * and not written; in the diagonal tile they are the identity, so the last, partial tile needs no
 * special case.
 * The strict upper triangle is never read (the diagonal tile loads only its lower part; the updates
 * of a diagonal tile write garbage above its diagonal, which nothing reads). The diagonal task writes
 * zeros above its diagonal, and each solve block zeros its mirror tile above (no launch of its own).
 * Out of place, the first task to touch a tile reads it from the input (C: d_in for the first
 * panel's tasks and its updates of the rest, d_out after), so there is no copy first.
 * Alone: make build/03_left_right_top/test_grid && build/03_left_right_top/test_grid */
#include <math.h>
#include <stdint.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "chain_link.cuh"
#include "dmma.cuh"
#include "mbarrier.cuh"
#include "grid_f64.h"
#include <cuda.h>
#include <cudaTypedefs.h>

#define NB GRID_F64_NB
#define KH 16       /* the products' K in slices of 16 */
#define KS (KH + 4) /* row stride: a warp's 8 rows x 4 doubles fall into two passes of the 32 banks, the least */
#define PRODUCT_THREADS 128
/* Tile columns a panel of T: its columns' updates of the trailing matrix go in one launch (K = 64 x
 * the panel's tiles), which reads and writes that matrix once per panel instead of once per tile
 * column. Wider panels make that traffic and the bulk's launches fewer but the chain's own updates
 * longer: H200, the widths timed side by side (06 LIMITS): 8 up to 8192 and 16 from 16384 (12 for odd
 * n), except odd n up to 4096 (its chain loads 8 bytes at a time, so its own updates cost more): 4. */
static int panel_tiles(int T, bool vec) { return T <= 64 && !vec ? 4 : T <= 128 ? 8 : vec ? 16 : 12; }

/* Where entry e of the warp's accumulator fragment (mi, ni) lies in the warp's block (c of dmma_16x8x4
 * for the fragment 16 mi rows down and 8 ni columns right; lr = lane / 4, lk = lane % 4). */
__device__ __forceinline__ int frag_row(int mi, int e, int lr) { return 16 * mi + 8 * (e / 2) + lr; }
__device__ __forceinline__ int frag_col(int ni, int e, int lk) { return 8 * ni + 2 * lk + e % 2; }

/* f(acc entry, row, column) for every entry of a warp's MI x 4 fragments (32 x 32 or 64 x 32), (row,
 * column) its place in the tile or block, the warp's block at (wr, wc). */
template <int MI, typename F>
__device__ __forceinline__ void each_entry(double (&acc)[MI][4][4], int wr, int wc, int lr, int lk, F f)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) f(acc[mi][ni][e], wr + frag_row(mi, e, lr), wc + frag_col(ni, e, lk));
}

/* f(entry, the entry right of it, row, column of the first) for each pair of a lane's adjacent entries
 * (e, e + 1: columns c and c + 1, c even), so that a pair is one 16-byte access where it can be. */
template <int MI, typename F>
__device__ __forceinline__ void each_pair(double (&acc)[MI][4][4], int wr, int wc, int lr, int lk, F f)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e += 2)
                f(acc[mi][ni][e], acc[mi][ni][e + 1], wr + frag_row(mi, e, lr), wc + frag_col(ni, e, lk));
}

/* Rows r0 .. r0 + ROWS - 1, columns c0 .. c0 + KH - 1 of M (ld entries a row; rows past `rows`,
 * columns past `cols` as zeros) into Ts (ROWS x KS), asynchronously (cp.async: the copy runs while the
 * warps compute on another slice; zeros by a source size of 0), one commit group. Before sm_80, plain
 * loads. A thread keeps one column (a pair where VEC: 16-byte copies, which read from the L2, never
 * from a line an SM's L1 kept; ld, cols and M's address even) and takes every (THREADS / copies a
 * row)-th row, so its addresses are one product and a constant step (a loop over e = threadIdx.x,
 * threadIdx.x + 128, ... with its per-copy index arithmetic was most of the loop's instructions, 06
 * LIMITS). L2: 8-byte copies too from the L2 (ld.global.cg, then a store to shared memory: there is no
 * 8-byte cp.async.cg), for reads that may not meet a line the L1 kept from before it was written. */
template <int ROWS, int THREADS, bool VEC, bool L2 = false>
__device__ __forceinline__ void load_slice(double *Ts, const double *M, size_t ld, int rows, int cols, int r0, int c0)
{
    constexpr int per = VEC ? 2 : 1, across = KH / per, down = THREADS / across; /* copies a row, rows a pass */
    const int r = threadIdx.x / across, c = threadIdx.x % across * per;
    const bool col_in = c0 + c < cols;
    const double *src = M + (size_t)(r0 + r) * ld + c0 + c;
#pragma unroll
    for (int i = 0; i < ROWS / down; i++) {
        const bool in = col_in && r0 + r + i * down < rows;
        const double *from = in ? src + (size_t)i * down * ld : M;
#if __CUDA_ARCH__ >= 800
        const unsigned dst = (unsigned)__cvta_generic_to_shared(Ts + (r + i * down) * KS + c);
        if (L2 && !VEC) /* 8-byte copies from the L2 only: a plain load (synchronous), then the store */
            Ts[(r + i * down) * KS + c] = in ? __ldcg(from) : 0.0;
        else if (VEC)
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

/* Wait until at most `pending` slices of this thread are still in flight. */
template <int pending> __device__ __forceinline__ void slices_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(pending) : "memory");
#endif
}

/* One slice of the warp's 32 x 32 block of a 64 x 64 product: acc += Ah(wr.., k) Bh(wc.., k)^T over the
 * slice's KH columns k (2 x 4 fragments of 16 x 8). */
__device__ __forceinline__ void slice_product(double (&acc)[2][4][4], const double (*Ah)[KS], const double (*Bh)[KS],
                                              int wr, int wc, int lr, int lk)
{
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
            for (int ni = 0; ni < 4; ni++) dmma_16x8x4(acc[mi][ni], a[mi][0], a[mi][1], bv[ni]);
    }
}

/* Wait until at most `pending` (0 .. 3) commit groups of this thread are still in flight; called
 * where `pending` folds to a constant (an unrolled loop). */
__device__ __forceinline__ void groups_wait(int pending)
{
    if (pending >= 3) slices_wait<3>();
    else if (pending == 2) slices_wait<2>();
    else if (pending == 1) slices_wait<1>();
    else slices_wait<0>();
}

/* Slices h0 .. h1 - 1 through BUFS buffers, BUFS - 1 of them in flight while one is computed:
 * load(h) requests slice h into buffer h % BUFS as GROUPS commit groups; compute(h) uses it. Each
 * step commits GROUPS groups, empty past h1, so the wait is one constant (a count computed at run
 * time, through a switch, gave wrong factors: 06 LIMITS). One barrier a slice: it says slice h has
 * arrived for every thread, and that slice h - 1 has been read by all, so its buffer may take slice
 * h + BUFS - 1. Ends with every copy arrived and a barrier (the buffers are free); does nothing
 * where there is no slice. */
template <int BUFS, int GROUPS, typename Load, typename Compute>
__device__ __forceinline__ void slice_pipeline(int h0, int h1, Load load, Compute compute)
{
    auto request = [&](int h) {
        if (h < h1) load(h);
#if __CUDA_ARCH__ >= 800
        else
            for (int g = 0; g < GROUPS; g++) asm volatile("cp.async.commit_group;" ::: "memory");
#endif
    };
    if (h0 >= h1) return;
#pragma unroll
    for (int i = 0; i < BUFS - 1; i++) request(h0 + i);
    for (int h = h0; h < h1; h++) {
        slices_wait<GROUPS *(BUFS - 2)>(); /* slice h has arrived (for this thread) */
        __syncthreads();
        request(h + BUFS - 1);
        compute(h);
    }
    slices_wait<0>();
    __syncthreads();
}

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

/* The panel's own update of its diagonal tile (k, k) (the panel is factored left-looking, see
 * f64_panel_solve): S = A(k, k) - sum over p = p0 .. k - 1 of L(k, p) L(k, p)^T, lower triangle,
 * by the POTRF block's 8 warps on the tensor cores (warp w: rows 16 (w / 2), columns 32 (w % 2);
 * the two above the diagonal only load), the slices through three buffers laid over S. Columns
 * p < k - 1 were written two or more links back, so where `early` they are taken before
 * chain_wait_and_release, beside the diagonal task and the solve of column k - 1 (that solve lets
 * this task start before it waits); column k - 1 after it. */
template <bool VEC> __device__ __forceinline__ void potrf_panel_update(double (*S)[NB + 2], const double *M,
                                                                       const double *Cm, int n, int k0, int m, int p0,
                                                                       int k, bool early)
{
    constexpr int BUFS = 3, SLICES = NB / KH;
    double(*Ts)[NB][KS] = reinterpret_cast<double(*)[NB][KS]>(&S[0][0]); /* 3 x 64 x 20 fit in 64 x 66 */
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 2 * 16, wc = w % 2 * 32, lr = lane / 4,
              lk = lane % 4;
    const bool lower = wc <= wr + 15; /* (warp-uniform) the warp's block reaches the lower triangle */
    if (!early) chain_wait_and_release();
    double acc[4][4];
#pragma unroll
    for (int ni = 0; ni < 4; ni++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int r = wr + frag_row(0, e, lr), c = wc + frag_col(ni, e, lk);
            acc[ni][e] = r < m && c <= r ? -__ldcg(Cm + (size_t)(k0 + r) * n + k0 + c) : 0.0;
        }
    auto load = [&](int h) {
        load_slice<NB, TILE_THREADS, VEC, true>(&Ts[h % BUFS][0][0], M, n, n, n, k0, p0 * NB + h * KH);
    };
    auto compute = [&](int h) {
        const double(*T)[KS] = Ts[h % BUFS];
        if (lower)
#pragma unroll
            for (int kk = 0; kk < KH; kk += 4) {
                const double a0 = T[wr + lr][kk + lk], a1 = T[wr + 8 + lr][kk + lk];
#pragma unroll
                for (int ni = 0; ni < 4; ni++) dmma_16x8x4(acc[ni], a0, a1, T[wc + 8 * ni + lr][kk + lk]);
            }
    };
    const int before = (k - 1 - p0) * SLICES;
    slice_pipeline<BUFS, 1>(0, before, load, compute);
    if (early) chain_wait_and_release(); /* the solve of column k - 1 has written L(k, k - 1) */
    slice_pipeline<BUFS, 1>(before, before + SLICES, load, compute);
#pragma unroll
    for (int ni = 0; ni < 4; ni++)
#pragma unroll
        for (int e = 0; e < 4; e++) S[wr + frag_row(0, e, lr)][wc + frag_col(ni, e, lk)] = -acc[ni][e];
    __syncthreads();
}

template <bool VEC> __global__ void __launch_bounds__(TILE_THREADS)
    f64_potrf_tile(double *A, const double *C, int n, int k, size_t first, int *info, double *inv, int p0, bool early)
{
    /* S: L, for the inverse (stride 66: 16-byte pairs, and a warp's 4 rows in different banks); group:
     * the group's columns by rows, two buffers (group g + 1 may write while g reads). */
    __shared__ __align__(16) double S[NB][NB + 2];
    __shared__ __align__(16) double group[2][NB][TILE_Q];
    __shared__ double rdiag[NB]; /* 1 / L(j, j) */
    const int r = threadIdx.x / TILE_Q, q = threadIdx.x % TILE_Q, k0 = k * NB, m = n - k0 < NB ? n - k0 : NB;
    const size_t b = first + blockIdx.x;
    double *M = A + b * (size_t)n * n;
    const double *Cm = C + b * (size_t)n * n; /* the tile's entries: the input where nothing wrote them yet */
    double x[TILE_W];
    if (k > p0) potrf_panel_update<VEC>(S, M, Cm, n, k0, m, p0, k, early); /* the tile, updated, in S */
    else chain_wait_and_release(); /* the chain's launches are linked (chain_link.cuh) */
#pragma unroll
    for (int e = 0; e < TILE_W; e++) { /* the lower triangle only, the identity past m */
        const int c = TILE_Q * e + q;
        x[e] = r < m && c <= r ? (k > p0 ? S[r][c] : Cm[(size_t)(k0 + r) * n + k0 + c]) : r == c ? 1.0 : 0.0;
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
        if (r < m && c < m) M[(size_t)(k0 + r) * n + k0 + c] = c <= r ? x[e] : 0.0; /* zeros above */
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

/* Entry s of a lower triangle enumerated row by row: s = i (i + 1) / 2 + j, j <= i. */
__device__ __forceinline__ void lower_index(int s, int &i, int &j)
{
    i = (int)((sqrt(8.0 * s + 1.0) - 1.0) / 2.0);
    while ((i + 1) * (i + 2) / 2 <= s) i++;
    while (i * (i + 1) / 2 > s) i--;
    j = s - i * (i + 1) / 2;
}

/* Step 2 of tile column c, with the panel's own updates folded in: the panel is factored
 * left-looking, so tile (i, c), i = c + 1 + (g % tiles) of matrix g / tiles, g = first + blockIdx.x,
 * first takes the updates of the panel's columns p0 .. c - 1 (C = A(i, c) - sum L(i, p) L(c, p)^T,
 * K = 64 (c - p0), the accumulator starting as -A(i, c)) and then becomes L(i, c) = C inv^T. The
 * first part reads only what kernels two or more links back on the chain wrote (L(i, p) and L(c, p)
 * by the solves of columns p < c, A(i, c) by the panels before), so where EARLY (linked launches; its
 * loads read from the L2, load_slice's L2) it runs before chain_wait_and_release, beside POTRF c
 * (chain_link.cuh says why that order holds). Before, a separate launch updated the panel's next
 * columns after each solve: a third link a column (06 LIMITS).
 * DEEP (a launch too small to fill the GPU twice): four buffers, three slices in flight; two
 * otherwise (more blocks an SM where there are many). Either way all four slices of C (written from
 * the accumulator) fit in As for the product with inv. */
#define PRODUCT_BUFS(deep) ((deep) ? NB / KH : 2)
#define PANEL_SMEM(deep) ((NB / KH + PRODUCT_BUFS(deep)) * NB * KS * sizeof(double))
template <bool DEEP, bool VEC> __global__ void __launch_bounds__(PRODUCT_THREADS)
    f64_panel_solve(double *A, const double *C, int n, int c, int p0, size_t tiles, size_t first, const double *inv,
                    bool early)
{
    constexpr int BUFS = PRODUCT_BUFS(DEEP), SLICES = NB / KH;
    extern __shared__ double2 product_smem[];
    double(*As)[NB][KS] = (double(*)[NB][KS])product_smem, (*Bs)[NB][KS] = As + SLICES;
    const size_t g = first + blockIdx.x, b = g / tiles;
    double *M = A + b * (size_t)n * n;
    const double *Cm = C + b * (size_t)n * n;
    const int r0 = (c + 1 + (int)(g % tiles)) * NB, c0 = c * NB;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 2 * 32, wc = w % 2 * 32, lr = lane / 4,
              lk = lane % 4;
    /* Where EARLY, the next diagonal task may start now, not after this block's wait: its early
     * reads (columns p0 .. c - 1 of its row) were written by solves that finished before POTRF c
     * passed its wait, and so before this kernel started. Its own wait still waits for this one. */
    if (early) chain_release();
    /* The mirror tile (c, i), above the diagonal, set to zero: no other kernel reads or writes it, so
     * before any wait, beside the link before. */
    for (int e = threadIdx.x; e < NB * NB; e += PRODUCT_THREADS) {
        const int row = c0 + e / NB, col = r0 + e % NB;
        if (row < n && col < n) M[(size_t)row * n + col] = 0.0;
    }
    if (!early) chain_wait_and_release(); /* the chain's launches are linked (chain_link.cuh) */
    double acc[2][4][4];                  /* the warp's 32 x 32: 2 x 4 fragments of 16 x 8 */
    each_entry(acc, r0 + wr, c0 + wc, lr, lk,
               [&](double &a, int r, int col) { a = r < n && col < n ? -__ldcg(Cm + (size_t)r * n + col) : 0.0; });
    slice_pipeline<BUFS, 2>(
        0, (c - p0) * SLICES,
        [&](int h) {
            const int k0 = p0 * NB + h * KH;
            load_slice<NB, PRODUCT_THREADS, VEC, true>(&As[h % BUFS][0][0], M, n, n, n, r0, k0);
            load_slice<NB, PRODUCT_THREADS, VEC, true>(&Bs[h % BUFS][0][0], M, n, n, n, c0, k0);
        },
        [&](int h) { slice_product(acc, As[h % BUFS], Bs[h % BUFS], wr, wc, lr, lk); });
    if (early) chain_wait(); /* POTRF c has written L(c, c)'s inverse (released above) */
    const double *X = inv + b * (size_t)NB * NB;
    for (int h = 0; h < BUFS; h++) load_slice<NB, PRODUCT_THREADS, VEC>(&Bs[h][0][0], X, NB, NB, NB, 0, h * KH);
    each_entry(acc, wr, wc, lr, lk, [&](double &a, int r, int k) { /* C into As: column k at As[k / KH][r][k % KH] */
                                                                   As[k / KH][r][k % KH] = -a;
                                                                   a = 0.0; /* acc is free */
    });
#pragma unroll
    for (int h = 0; h < SLICES; h++) {
        if (h && h % BUFS == 0) { /* two buffers: the second half of inv, once the first is read */
            __syncthreads();
            for (int q = h; q < h + BUFS; q++)
                load_slice<NB, PRODUCT_THREADS, VEC>(&Bs[q % BUFS][0][0], X, NB, NB, NB, 0, q * KH);
        }
        groups_wait(h / BUFS * BUFS + BUFS - 1 - h); /* inv's slice h has arrived (one group a slice) */
        __syncthreads();
        slice_product(acc, As[h], Bs[h % BUFS], wr, wc, lr, lk);
    }
    each_entry(acc, r0 + wr, c0 + wc, lr, lk, [&](double &a, int r, int col) {
        if (r < n && col < n) M[(size_t)r * n + col] = a;
    });
}

/* After a panel: the next panel's tile columns (a rectangle of `cols` tile columns from (row0,
 * col0), row by row; those above the diagonal do nothing), or, where too few BIG blocks would fill
 * the GPU, the trailing lower triangle from (row0, row0) (cols = 0), minus the panel's product:
 * tile (i, j) -= sum over the tile columns p = kfirst .. kfirst + kcount - 1 of L(i, p) L(j, p)^T, one
 * read and write of each tile for all the panel's columns. Block g = first + blockIdx.x: tile
 * g % tiles of matrix g / tiles. Two buffers, two slices in flight. VEC: 16-byte copies, as the
 * trailing update's. */
#define PRODUCT_SMEM (2 * 2 * NB * KS * sizeof(double))
template <bool VEC> __global__ void __launch_bounds__(PRODUCT_THREADS, 4) /* 128 registers: four blocks an SM */
    f64_tile_product(double *A, const double *C, int n, int row0, int col0, int cols, int kfirst, int kcount,
                     size_t tiles, size_t first)
{
    extern __shared__ double2 product_smem[];
    double(*As)[NB][KS] = (double(*)[NB][KS])product_smem, (*Bs)[NB][KS] = As + 2;
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
    double acc[2][4][4]; /* the warp's 32 x 32: 2 x 4 fragments of 16 x 8 */
    const int slices = kcount * (NB / KH);
    auto load = [&](int h) { /* slice h: columns k0 .. k0 + KH - 1 of the A tile, and the B tile's */
                             const int k0 = kfirst * NB + h * KH;
                             load_slice<NB, PRODUCT_THREADS, VEC>(&As[h % 2][0][0], M, n, n, n, r0, k0);
                             load_slice<NB, PRODUCT_THREADS, VEC>(&Bs[h % 2][0][0], M, n, n, n, c0, k0);
    };
    load(0);
    /* acc starts as -C, read now, while the slices arrive, and ends as -(C - L L^T). Read at the end
     * instead, each load waited for the store before it (they may alias): 32 trips to memory in a
     * row (06 LIMITS). */
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = r0 + wr + frag_row(mi, e, lr), c = c0 + wc + frag_col(ni, e, lk);
                acc[mi][ni][e] = r < n && c < n ? -C[b * (size_t)n * n + (size_t)r * n + c] : 0.0;
            }
    for (int h = 0; h < slices; h++) {
        if (h + 1 < slices) {
            load(h + 1); /* into the other buffer, read by everyone before the last barrier */
            slices_wait<2>();
        } else slices_wait<0>();
        __syncthreads(); /* slice h has arrived for every thread */
        slice_product(acc, As[h % 2], Bs[h % 2], wr, wc, lr, lk);
        __syncthreads(); /* slice h is read: the next load may take its buffer */
    }
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = r0 + wr + frag_row(mi, e, lr), c = c0 + wc + frag_col(ni, e, lk);
                if (r < n && c < n) M[(size_t)r * n + c] = -acc[mi][ni][e];
            }
}

/* One slice's products of a warp's 64 x 32 block (4 x 4 fragments): a(row, q) and b(row, q) read
 * column 4q + lk of the slice's A and B rows, wherever its loader put them (the trailing updates). */
template <typename ReadA, typename ReadB> __device__ __forceinline__ void
slice_product_64x32(double (&acc)[4][4][4], ReadA a_at, ReadB b_at, int wr, int wc, int lr)
{
#pragma unroll
    for (int q = 0; q < KH / 4; q++) {
        double a[4][2], bv[4];
#pragma unroll
        for (int f = 0; f < 4; f++) a[f][0] = a_at(wr + 16 * f + lr, q), a[f][1] = a_at(wr + 16 * f + 8 + lr, q);
#pragma unroll
        for (int f = 0; f < 4; f++) bv[f] = b_at(wc + 8 * f + lr, q);
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
#pragma unroll
            for (int ni = 0; ni < 4; ni++) dmma_16x8x4(acc[mi][ni], a[mi][0], a[mi][1], bv[ni]);
    }
}

#define BIG (2 * NB)
#define BIG_THREADS 256
#define STAGES 4
#define BIG_SMEM (STAGES * 2 * BIG * KS * sizeof(double))

/* Block first + blockIdx.x of a trailing update: block g % tiles of the lower triangle of BIG blocks
 * from tile (row0, row0) of matrix b = g / tiles, its corner at (r0, c0). */
__device__ __forceinline__ void big_block_place(int row0, size_t tiles, size_t first, size_t &b, int &r0, int &c0)
{
    const size_t g = first + blockIdx.x;
    int bi, bj;
    lower_index((int)(g % tiles), bi, bj);
    b = g / tiles, r0 = row0 * NB + bi * BIG, c0 = row0 * NB + bj * BIG;
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
template <bool VEC> __global__ void __launch_bounds__(BIG_THREADS, 1)
    f64_trailing_update(double *A, const double *C, int n, int row0, int kfirst, int kcount, size_t tiles, size_t first)
{
    extern __shared__ double2 big_smem[]; /* STAGES x {A rows, B rows} x BIG x KS */
    double *sm = (double *)big_smem;
    size_t b;
    int r0, c0;
    big_block_place(row0, tiles, first, b, r0, c0);
    double *M = A + b * (size_t)n * n;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 4 * 64, wc = w % 4 * 32, lr = lane / 4,
              lk = lane % 4;
    /* acc starts as -C, read now, while the first slices arrive, and ends as -(C - L L^T): the store at
     * the end does not wait for a load (that wait was the largest stall, 06 LIMITS). */
    double acc[4][4][4]; /* the warp's 64 x 32: 4 x 4 fragments of 16 x 8 */
    const int slices = kcount * (NB / KH);
    auto load = [&](int h) {
        double *As = sm + (h % STAGES) * 2 * BIG * KS, *Bs = As + BIG * KS;
        const int k0 = kfirst * NB + h * KH;
        load_slice<BIG, BIG_THREADS, VEC>(As, M, n, n, n, r0, k0);
        load_slice<BIG, BIG_THREADS, VEC>(Bs, M, n, n, n, c0, k0);
    };
    auto empty_group = [] {
#if __CUDA_ARCH__ >= 800
        asm volatile("cp.async.commit_group;" ::: "memory"); /* keeps the count of groups per slice */
#endif
    };
    for (int h = 0; h < STAGES - 1; h++) h < slices ? load(h) : empty_group();
    each_entry(acc, r0 + wr, c0 + wc, lr, lk,
               [&](double &a, int r, int c) { a = r < n && c <= r ? -C[b * (size_t)n * n + (size_t)r * n + c] : 0.0; });
    for (int h = 0; h < slices; h++) {
        slices_wait<STAGES - 2>(); /* slice h has arrived (for this thread) */
        __syncthreads();           /* for every thread; and slice h - 1 is read by all, so its buffer is free */
        h + STAGES - 1 < slices ? load(h + STAGES - 1) : empty_group();
        const double *Ah = sm + (h % STAGES) * 2 * BIG * KS, *Bh = Ah + BIG * KS;
        slice_product_64x32(
            acc, [&](int row, int q) { return Ah[row * KS + 4 * q + lk]; },
            [&](int row, int q) { return Bh[row * KS + 4 * q + lk]; }, wr, wc, lr);
    }
    each_entry(acc, r0 + wr, c0 + wc, lr, lk, [&](double &a, int r, int c) {
        if (r < n && c <= r) M[(size_t)r * n + c] = -a;
    });
}

/* The same update with its slices brought in by the copy engine (Hopper and later, even n; mbarrier.cuh):
 * thread 0 asks for a slice's two 128 x 16 boxes of the matrix through a tensor map, swizzled (a
 * row's 16-byte chunk c stored at c ^ (row % 8), so a warp's fragment loads fall into the 32 banks
 * twice, the least), and the warps wait on that stage's mbarrier instead of at a block barrier; a
 * warp done with a stage arrives on its `empty` barrier, and thread 0 refills it a slice later. No
 * thread computes a copy's address (most of the kept kernel's instructions were that, 06 LIMITS).
 * The sums are the kept kernel's, in the same order: the factors are the same bits. */
#ifndef TMA_STAGES
#define TMA_STAGES 6
#endif
#define TMA_BOX_BYTES (BIG * KH * (int)sizeof(double))                        /* 128 rows x 16 columns: 16 KiB */
#define TMA_SMEM (TMA_STAGES * 2 * TMA_BOX_BYTES + 1024 + 2 * TMA_STAGES * 8) /* stages, alignment, barriers */

__global__ void __launch_bounds__(BIG_THREADS, 1)
    f64_trailing_update_tma(const __grid_constant__ CUtensorMap map, double *A, const double *C, int n, int row0,
                            int kfirst, int kcount, size_t tiles, size_t first, int strip)
{
#if __CUDA_ARCH__ >= 900
    size_t b;
    int r0, c0;
    if (strip) { /* the next panel's columns: `strip` BIG columns a row of blocks, from tile (row0, row0) */
        const size_t g = first + blockIdx.x;
        const int s = (int)(g % tiles), bi = s / strip, bj = s % strip;
        if (bj > bi) return; /* above the diagonal (the whole block: before any barrier) */
        b = g / tiles, r0 = row0 * NB + bi * BIG, c0 = row0 * NB + bj * BIG;
    } else big_block_place(row0, tiles, first, b, r0, c0);
    chain_wait_and_release(); /* linked on the chain (chain_link.cuh); met at once on the bulk's stream */
    extern __shared__ __align__(1024) unsigned char tma_smem[];
    const uint32_t raw = (uint32_t)__cvta_generic_to_shared(tma_smem),
                   base = (raw + 1023) & ~1023u; /* the swizzle's unit */
    const unsigned char *stages = tma_smem + (base - raw);
    const uint32_t full = base + TMA_STAGES * 2 * TMA_BOX_BYTES, empty = full + 8 * TMA_STAGES;
    double *M = A + b * (size_t)n * n;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 4 * 64, wc = w % 4 * 32, lr = lane / 4,
              lk = lane % 4;
    const int slices = kcount * (NB / KH);
    if (threadIdx.x == 0) {
        for (int s = 0; s < TMA_STAGES; s++) mbar_init(full + 8 * s, 1), mbar_init(empty + 8 * s, BIG_THREADS / 32);
        mbar_init_fence();
    }
    __syncthreads();         /* the barriers are set before anyone waits on them */
    auto load = [&](int h) { /* thread 0: slice h into stage h % TMA_STAGES */
                             const uint32_t s = h % TMA_STAGES, As = base + s * 2 * TMA_BOX_BYTES;
                             const int k0 = kfirst * NB + h * KH;
                             mbar_arrive_expect(full + 8 * s, 2 * TMA_BOX_BYTES);
                             tensor_copy_3d(As, &map, k0, r0, (int)b, full + 8 * s);
                             tensor_copy_3d(As + TMA_BOX_BYTES, &map, k0, c0, (int)b, full + 8 * s);
    };
    if (threadIdx.x == 0)
        for (int h = 0; h < TMA_STAGES && h < slices; h++) load(h);
    double acc[4][4][4]; /* -C, read while the first slices arrive (as the kept kernel), a pair at a time */
    const double *Cb = C + b * (size_t)n * n;
    const bool pairs = (uintptr_t)C % 16 == 0; /* n is even: then every pair (c even) is 16-byte aligned */
    each_pair(acc, r0 + wr, c0 + wc, lr, lk, [&](double &a, double &a1, int r, int c) {
        double x = 0.0, y = 0.0;
        if (r < n && c + 1 <= r && pairs) {
            const double2 v = *reinterpret_cast<const double2 *>(Cb + (size_t)r * n + c);
            x = v.x, y = v.y;
        } else if (r < n && c <= r) {
            x = Cb[(size_t)r * n + c];
            if (c + 1 <= r) y = Cb[(size_t)r * n + c + 1];
        }
        a = -x, a1 = -y;
    });
    /* Byte offset of column kk + lk in a row of this lane's (row % 8 == lr for every row it reads). */
    int col[KH / 4];
#pragma unroll
    for (int q = 0; q < KH / 4; q++) col[q] = ((((4 * q + lk) >> 1) ^ lr) << 4) | ((lk & 1) << 3);
    for (int h = 0; h < slices; h++) {
        const int s = h % TMA_STAGES;
        mbar_wait(full + 8 * s, (h / TMA_STAGES) & 1);
        __syncwarp(); /* the lanes leave the wait together: the products below are warp-wide */
        const unsigned char *Ah = stages + s * 2 * TMA_BOX_BYTES, *Bh = Ah + TMA_BOX_BYTES;
        slice_product_64x32(
            acc, [&](int row, int q) { return *(const double *)(Ah + row * (KH * 8) + col[q]); },
            [&](int row, int q) { return *(const double *)(Bh + row * (KH * 8) + col[q]); }, wr, wc, lr);
        __syncwarp();
        if (lane == 0) mbar_arrive(empty + 8 * s); /* this warp has read stage s */
        /* Thread 0 refills the stage of the slice before this one: every warp has most likely left it. */
        if (threadIdx.x == 0 && h >= 1 && h - 1 + TMA_STAGES < slices) {
            const int p = (h - 1) % TMA_STAGES;
            mbar_wait(empty + 8 * p, ((h - 1) / TMA_STAGES) & 1);
            load(h - 1 + TMA_STAGES);
        }
    }
    each_pair(acc, r0 + wr, c0 + wc, lr, lk, [&](double &a, double &a1, int r, int c) {
        if (r < n && c + 1 <= r) /* M is 16-byte aligned (the tensor map needs it) */
            *reinterpret_cast<double2 *>(M + (size_t)r * n + c) = make_double2(-a, -a1);
        else if (r < n && c <= r) M[(size_t)r * n + c] = -a;
    });
#else
    (void)map, (void)A, (void)C, (void)n, (void)row0, (void)kfirst, (void)kcount, (void)tiles, (void)first, (void)strip;
    __trap(); /* f64_enqueue picks it on compute capability 9.0 and later only */
#endif
}

/* cuTensorMapEncodeTiled from the driver, through the runtime (no -lcuda); NULL where there is none. */
static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder()
{
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError(); /* not an error of the caller's: the kept kernel runs instead */
            return (PFN_cuTensorMapEncodeTiled_v12000)NULL;
        }
        return (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }();
    return encode;
}

/* The batch's matrices as one tensor (columns, rows, matrices) read in boxes of 16 columns x 128 rows,
 * 128-byte swizzled; false where it cannot be made (no driver entry, or the rows are not 16-byte
 * multiples: odd n). */
static bool f64_tensor_map(CUtensorMap *map, double *d, int n, size_t batch)
{
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
    if (!encode || n % 2 || (uintptr_t)d % 16 || batch > 0xffffffffu) return false;
    const cuuint64_t dims[3] = {(cuuint64_t)n, (cuuint64_t)n, (cuuint64_t)batch},
                     strides[2] = {(cuuint64_t)n * sizeof(double), (cuuint64_t)n * n * sizeof(double)};
    const cuuint32_t box[3] = {KH, BIG, 1}, steps[3] = {1, 1, 1};
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 3, d, dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
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
 * where there is no second one). launch_model.py lists the same launches to check their order
 * without a GPU (the course suite runs it): a change of them here is a change there. */
static int f64_enqueue(int n, size_t batch, const double *d_in, double *d_out, int *d_info, double *d_work,
                       cudaStream_t chain, cudaStream_t bulk, f64_streams *f)
{
    const int T = (n + NB - 1) / NB;
    static int optin_vec[64], optin_plain[64], optin_tma[64], optin_panel[4][64], major[64];
    const int sms = launch_sm_count(), vec_optin = launch_smem_optin(f64_trailing_update<true>, optin_vec),
              plain_optin = launch_smem_optin(f64_trailing_update<false>, optin_plain),
              tma_optin = launch_smem_optin(f64_trailing_update_tma, optin_tma),
              panel_optins[4] = {launch_smem_optin(f64_panel_solve<true, true>, optin_panel[0]),
                                 launch_smem_optin(f64_panel_solve<true, false>, optin_panel[1]),
                                 launch_smem_optin(f64_panel_solve<false, true>, optin_panel[2]),
                                 launch_smem_optin(f64_panel_solve<false, false>, optin_panel[3])},
              cc = launch_per_device(major, [](int dev) {
                  int m = 0;
                  const int failed = [&]() {
                      CUDA_TRY(cudaDeviceGetAttribute(&m, cudaDevAttrComputeCapabilityMajor, dev));
                      return 0;
                  }();
                  return failed ? 0 : m;
              });
    int panel_optin = panel_optins[0]; /* the least of the four (0: one failed, noted) */
    for (int o : panel_optins) panel_optin = o < panel_optin ? o : panel_optin;
    if (!sms || !vec_optin || !plain_optin || !panel_optin || !cc) return -1; /* noted */
    const bool linked = cc >= 9;
    /* sm_75 offers 64 KiB a block: there the panel's solves keep two buffers. */
    const bool deep_fits = panel_optin >= (int)PANEL_SMEM(true);
    /* Where a block may not have BIG_SMEM (sm_86 and sm_89 offer ~99 KiB), the 64 x 64 product updates. */
    const bool big_fits = vec_optin >= (int)BIG_SMEM && plain_optin >= (int)BIG_SMEM;
    const bool vec = n % 2 == 0 && (uintptr_t)d_out % 16 == 0,
               early = linked; /* odd n: the early loads through the L2 only */
    /* The bulk's slices by the copy engine where it can (Hopper, even n), else by the threads. */
    CUtensorMap map;
    const bool tma = big_fits && cc >= 9 && tma_optin >= (int)TMA_SMEM && f64_tensor_map(&map, d_out, n, batch);
    /* Where a task reads its tile's entries: from d_in where it is the first to touch the tile (the
     * first panel's tasks, and its updates of the rest), so that out of place needs no copy first. */
    auto entries = [&](bool first_touch) { return first_touch ? d_in : (const double *)d_out; };
    /* One launch of the product kernel over `tiles` tiles of every matrix, on stream s. */
    auto product = [&](cudaStream_t s, int row0, int col0, int cols, int kfirst, int kcount, size_t tiles,
                       bool first_touch) {
        const bool link = linked && s == chain;
        return launch_split(batch * tiles, s, [&](unsigned count, size_t first) {
            (void)launch_linked(link, vec ? f64_tile_product<true> : f64_tile_product<false>, dim3(count),
                                dim3(PRODUCT_THREADS), PRODUCT_SMEM, s, d_out, entries(first_touch), n, row0, col0,
                                cols, kfirst, kcount, tiles, first); /* checked by launch_split */
        });
    };
    /* Tile column k's solve, with the panel's updates of it from columns p0 .. k - 1 (below: its tiles). */
    auto panel_solve = [&](int k, int p0, size_t below, bool first_touch) {
        const bool deep = deep_fits && batch * below <= 2 * (size_t)sms;
        return launch_split(batch * below, chain, [&](unsigned count, size_t first) {
            auto kernel = deep ? (vec ? f64_panel_solve<true, true> : f64_panel_solve<true, false>)
                               : (vec ? f64_panel_solve<false, true> : f64_panel_solve<false, false>);
            (void)launch_linked(linked, kernel, dim3(count), dim3(PRODUCT_THREADS), PANEL_SMEM(deep), chain, d_out,
                                entries(first_touch), n, k, p0, below, first, (const double *)d_work,
                                early); /* checked by launch_split */
        });
    };
    /* The trailing lower triangle from tile (row0, row0) minus the panel's product (kcount tile columns
     * from kfirst), on stream s. */
    auto trailing = [&](cudaStream_t s, int row0, int kfirst, int kcount) {
        const int rest = T - row0;
        const size_t big = (size_t)(rest + 1) / 2 * ((rest + 1) / 2 + 1) / 2; /* its BIG blocks */
        const double *C = entries(kfirst == 0);
        if (!big_fits || batch * big < (size_t)sms) /* too few BIG blocks to fill the GPU */
            return product(s, row0, row0, 0, kfirst, kcount, (size_t)rest * (rest + 1) / 2, kfirst == 0);
        return launch_split(batch * big, s, [&](unsigned count, size_t first) {
            if (tma)
                f64_trailing_update_tma<<<count, BIG_THREADS, TMA_SMEM, s>>>(map, d_out, C, n, row0, kfirst, kcount,
                                                                             big, first, 0);
            else if (vec)
                f64_trailing_update<true>
                    <<<count, BIG_THREADS, BIG_SMEM, s>>>(d_out, C, n, row0, kfirst, kcount, big, first);
            else
                f64_trailing_update<false>
                    <<<count, BIG_THREADS, BIG_SMEM, s>>>(d_out, C, n, row0, kfirst, kcount, big, first);
        });
    };
    /* The next panel's `cols` tile columns from tile (row0, row0): by the copy engine's BIG blocks where the
     * panel is 16 tiles wide and they fill the GPU twice, else by the 64 x 64 tile product (06 LIMITS, "The
     * next panel's columns by the copy engine": narrower panels or fewer blocks lost). */
    auto next_columns = [&](int row0, int cols, int kfirst, int kcount) {
        const int rows = (T - row0 + 1) / 2, strip = cols / 2;
        const bool first_touch = kfirst == 0;
        if (!tma || cols < 16 || cols % 2 || batch * rows * strip < 2 * (size_t)sms)
            return product(chain, row0, row0, cols, kfirst, kcount, (size_t)(T - row0) * cols, first_touch);
        const double *C = entries(first_touch);
        return launch_split(batch * rows * strip, chain, [&](unsigned count, size_t first) {
            (void)launch_linked(linked, f64_trailing_update_tma, dim3(count), dim3(BIG_THREADS), TMA_SMEM, chain, map,
                                d_out, C, n, row0, kfirst, kcount, (size_t)rows * strip, first,
                                strip); /* checked by launch_split */
        });
    };
    bool rest_pending = false; /* bulk has work the chain has not waited for */
    const int P = panel_tiles(T, vec);
    for (int p0 = 0; p0 < T; p0 += P) {
        const int pe = T < p0 + P ? T : p0 + P; /* the panel: tile columns p0 .. pe - 1 */
        for (int k = p0; k < pe; k++) {
            /* Where the panel's own updates of column k come from: folded into its tasks (left-looking,
             * where EARLY lets them run beside the chain), else launched after each column (right-looking:
             * without the early start, the folded updates sat on the chain: 06 LIMITS). */
            const int q0 = early ? p0 : k, below = T - 1 - k, right = pe - 1 - k;
            /* The first panel's column k reads A as it came where nothing has updated it yet: left-looking,
             * or its first column. */
            const bool untouched = p0 == 0 && (early || k == 0);
            TRY(launch_split(batch, chain, [&](unsigned count, size_t first) {
                (void)launch_linked(linked, vec ? f64_potrf_tile<true> : f64_potrf_tile<false>, dim3(count),
                                    dim3(TILE_THREADS), 0, chain, d_out, entries(untouched), n, k, first, d_info,
                                    d_work, q0, early); /* checked by launch_split */
            }));
            if (below) TRY(panel_solve(k, q0, (size_t)below, untouched));
            if (!early && right)
                TRY(product(chain, k + 1, k + 1, right, k, 1, (size_t)below * right, p0 == 0 && k == 0));
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
        TRY(next_columns(pe, pe2 - pe, p0, pe - p0));
        TRY(trailing(bulk, pe2, p0, pe - p0));
        CUDA_TRY(cudaEventRecord(f->rest_done, bulk));
        rest_pending = true;
    }
    if (rest_pending) CUDA_TRY(cudaStreamWaitEvent(chain, f->rest_done, 0));
    return 0;
}

extern "C" int potrf_grid_f64(int n, size_t batch, const double *d_in, double *d_out, int *d_info, double *d_work,
                              cudaStream_t s)
{
    if (n < 1 || !batch || !d_in || !d_out || !d_info || !d_work) {
        course_report("potrf_grid_f64: n = %d, batch = %zu, or a NULL pointer\n", n, batch);
        return -1;
    }
    CUDA_TRY(cudaMemsetAsync(d_info, 0, batch * sizeof(int), s));
    f64_streams *f = NULL;
    if (n > 8 * NB) TRY(f64_streams_get(s, &f)); /* two panels and a rest: a bulk to overlap the next panel with */
    if (!f) return f64_enqueue(n, batch, d_in, d_out, d_info, d_work, s, s, NULL);
    CUDA_TRY(cudaEventRecord(f->fork, s));
    CUDA_TRY(cudaStreamWaitEvent(f->chain, f->fork, 0));
    CUDA_TRY(cudaStreamWaitEvent(f->bulk, f->fork, 0));
    const int failed = f64_enqueue(n, batch, d_in, d_out, d_info, d_work, f->chain, f->bulk, f);
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
