/* grid_f64.cu - a batch of float64 matrices of any order, factored by the whole GPU in 64 x 64 tile
 * tasks (grid_f64.h). Stage 03's right-looking order, one step k at a time, each step three launches
 * over every matrix of the batch at once:
 *   1. the diagonal tile (k, k): factored in shared memory by one block a matrix, and inverted there
 *      (LAPACK's dtrti2 order), the inverse kept in the workspace;
 *   2. the panel below it: L(i, k) = A(i, k) L(k, k)^-T as a product A(i, k) inv^T, so it is the same
 *      tile product as the update, with no chain of dependent steps inside it;
 *   3. the update of the trailing lower tiles: A(i, j) -= L(i, k) L(j, k)^T.
 * Step 3 waits for a panel of PANEL_TILES tile columns (inside it, only the panel's own columns are
 * updated step by step), then updates the trailing matrix with all of them at once.
 * Steps 2 and 3 are one kernel (f64_tile_product): a 64 x 64 tile by four warps, each 32 x 32 as
 * 4 x 4 DMMA fragments (mma.sync m8n8k4 with f64 operands: the FP64 tensor cores, about twice the
 * FP64 rate of the cores' FMAs on Hopper). Rows and columns past n are read as zeros and not written;
 * in the diagonal tile they are the identity, so the last, partial tile needs no special case.
 * The strict upper triangle is never read (the diagonal tile loads only its lower part; the updates
 * of a diagonal tile write garbage above its diagonal, which nothing reads) and is set to zero last.
 * Alone: make build/03_left_right_top/test_grid && build/03_left_right_top/test_grid */
#include <math.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "grid_f64.h"

#define NB GRID_F64_NB
#define KH 16       /* the product's K in slices of 16, two in flight: four 64 x 20 tiles fit the 48 KiB */
#define KS (KH + 4) /* row stride: a warp's 8 rows x 4 doubles fall into two passes of the 32 banks, the least */
#define TILE_THREADS 256
#define PRODUCT_THREADS 128
/* Tile columns a panel: its columns' updates of the trailing matrix go in one launch (K = 256), which
 * reads and writes that matrix once per panel instead of once per tile column. */
#define PANEL_TILES 4

/* Step 1: tile (k, k) of matrix first + blockIdx.x: factor, store L, invert into inv. */
__global__ void __launch_bounds__(TILE_THREADS)
    f64_potrf_tile(double *A, int n, int k, size_t first, int *info, double *inv)
{
    __shared__ double S[NB][NB + 1]; /* stride 65: a column's entries fall into different banks */
    __shared__ double diag[NB], xdiag[NB];
    __shared__ int fail;
    const int t = threadIdx.x, k0 = k * NB, m = n - k0 < NB ? n - k0 : NB;
    const size_t b = first + blockIdx.x;
    double *M = A + b * (size_t)n * n;
    for (int e = t; e < NB * NB; e += TILE_THREADS) {
        const int r = e / NB, c = e % NB;
        S[r][c] = r < m && c <= r ? M[(size_t)(k0 + r) * n + k0 + c] : r == c ? 1.0 : 0.0; /* lower only */
    }
    if (t == 0) fail = 0;
    __syncthreads();
    for (int j = 0; j < NB; j++) { /* right-looking, a column a step; the diagonal kept apart in diag */
        const double d = S[j][j], l = sqrt(d), li = 1.0 / l;
        if (t == 0) {
            diag[j] = l;
            if (!(d > 0.0) && !fail && j < m) fail = j + 1; /* a pivot <= 0 or NaN: the first one counts */
        }
        if (j + 1 + t < NB) S[j + 1 + t][j] *= li;
        __syncthreads();
        const int c = t / 4; /* four threads a column c: rows c + t % 4, c + t % 4 + 4, ... (only i >= c) */
        if (c > j) {
            const double lc = S[c][j];
            for (int i = c + t % 4; i < NB; i += 4) S[i][c] -= S[i][j] * lc;
        }
        __syncthreads();
    }
    for (int e = t; e < NB * NB; e += TILE_THREADS) {
        const int r = e / NB, c = e % NB;
        if (r < m && c <= r) M[(size_t)(k0 + r) * n + k0 + c] = r == c ? diag[r] : S[r][c];
    }
    if (t == 0 && fail && info[b] == 0) info[b] = k0 + fail;
    /* The inverse X = L^-1 in place, column j from the last to the first (dtrti2): X(j, j) = 1 / L(j, j),
     * X(j+1:, j) = -X(j, j) X(j+1:, j+1:) L(j+1:, j). Row i's sum by 4 threads (t = 4 i + part). */
    if (t < NB) xdiag[t] = 1.0 / diag[t];
    __syncthreads();
    const int i = t / 4, part = t % 4;
    for (int j = NB - 2; j >= 0; j--) {
        double s = 0.0;
        if (i > j)
            for (int q = j + 1 + part; q <= i; q += 4) s += (q == i ? xdiag[i] : S[i][q]) * S[q][j];
        s += __shfl_xor_sync(0xffffffffu, s, 1);
        s += __shfl_xor_sync(0xffffffffu, s, 2);
        __syncthreads(); /* every sum has read column j */
        if (i > j && part == 0) S[i][j] = -xdiag[j] * s;
        __syncthreads();
    }
    double *X = inv + b * (size_t)NB * NB;
    for (int e = t; e < NB * NB; e += TILE_THREADS) {
        const int r = e / NB, c = e % NB;
        X[e] = r == c ? xdiag[r] : c < r ? S[r][c] : 0.0;
    }
}

/* One 8 x 8 x 4 product on the FP64 tensor cores: c += a b for the warp's fragments (thread l holds
 * a = A(l / 4, l % 4), b = B(l % 4, l / 4), c = C(l / 4, 2 (l % 4) + {0, 1})). */
__device__ __forceinline__ void dmma_8x8x4(double &c0, double &c1, double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

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
    else { /* s = i'(i'+1)/2 + j', j' <= i' */ int ip = (int)((sqrt(8.0 * s + 1.0) - 1.0) / 2.0);
        while ((ip + 1) * (ip + 2) / 2 <= s) ip++;
        while (ip * (ip + 1) / 2 > s) ip--;
        ti = row0 + ip, tj = row0 + (s - ip * (ip + 1) / 2);
    }
    if (tj > ti) return; /* (the whole block: before any barrier) */
    double *M = A + b * (size_t)n * n;
    const int r0 = ti * NB, c0 = tj * NB;
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32, wr = w / 2 * 32, wc = w % 2 * 32, lr = lane / 4,
              lk = lane % 4;
    double acc[4][4][2] = {};
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
            double a[4], bv[4];
#pragma unroll
            for (int f = 0; f < 4; f++) a[f] = Ah[wr + 8 * f + lr][kk + lk], bv[f] = Bh[wc + 8 * f + lr][kk + lk];
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++) {
#if __CUDA_ARCH__ >= 800
                    dmma_8x8x4(acc[mi][ni][0], acc[mi][ni][1], a[mi], bv[ni]);
#else /* no FP64 tensor cores: the same sums on the cores */
                    for (int e = 0; e < 2; e++)
                        for (int q = 0; q < 4; q++)
                            acc[mi][ni][e] += Ah[wr + 8 * mi + lr][kk + q] * Bh[wc + 8 * ni + 2 * lk + e][kk + q];
#endif
                }
        }
        __syncthreads(); /* slice h is read: the next load may take its buffer */
    }
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int r = r0 + wr + 8 * mi + lr, c = c0 + wc + 8 * ni + 2 * lk + e;
                if (r < n && c < n) {
                    double *p = M + (size_t)r * n + c;
                    *p = SOLVE ? acc[mi][ni][e] : *p - acc[mi][ni][e];
                }
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
                f64_potrf_tile<<<count, TILE_THREADS, 0, s>>>(d_out, n, k, first, d_info, d_work);
            }));
            const int below = T - 1 - k, right = pe - 1 - k; /* tiles below (k, k); panel columns right of k */
            if (below) TRY(product(true, k + 1, k, 1, k, 1, (size_t)below));
            if (right) TRY(product(false, k + 1, k + 1, right, k, 1, (size_t)below * right));
        }
        const int rest = T - pe; /* the trailing lower triangle, once for the panel's columns */
        if (rest) TRY(product(false, pe, pe, 0, p0, pe - p0, (size_t)rest * (rest + 1) / 2));
    }
    return launch_split(batch * (size_t)n, s,
                        [&](unsigned count, size_t first) { f64_zero_upper<<<count, 128, 0, s>>>(d_out, n, first); });
}
