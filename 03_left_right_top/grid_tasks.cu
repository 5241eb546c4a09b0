/* grid_tasks.cu - the three tile tasks of one large matrix (POTRF, TRSM, UPDATE), one thread
 * block per tile, T = GRID_TILE = 64 (see grid_tasks.h for what each computes).
 *
 * Why not the stage 02 helpers here: they keep a tile in shared memory and put a barrier
 * between every two columns with one thread per element, which is right for a 32 x 32 tile in
 * one block but measured 108 us for one 128 x 128 matrix (stage 03 README). A large matrix needs
 * tasks that run near the chip's speed, so each task keeps its data in REGISTERS:
 *   POTRF and TRSM: four threads per tile row, a quarter of the row each in registers (T / 4
 *                   floats), the columns it needs from the other rows broadcast through shared
 *                   memory (POTRF) or handed along the row by shuffles (TRSM).
 *   UPDATE:         a register-tiled GEMM: 256 threads, each owns an R x R block of a
 *                   BM x BM block of the result (R = BM/16), and the two panel tiles pass
 *                   through shared memory 8 columns at a time, double-buffered. Each value
 *                   loaded from shared memory feeds R multiply-adds instead of one.
 * All loops over a tile are unrolled with compile-time bounds, so the arrays stay in registers.
 *
 * A batch: every launch has blockIdx.y = the matrix (grid_plan.batch of them, stride apart), so
 * step k's tasks of every matrix run in one launch and a batch of 4 or 60 medium matrices fills
 * the GPU as one large matrix does. The kernels differ from the one-matrix ones by one line.
 * Alone: make build/03_left_right_top/cholesky_one && build/03_left_right_top/cholesky_one --n 4096 --mode lookahead --math fp32 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_check.h"
#include "grid_tasks.h"
#include "launch_split.cuh"
#include "chain_link.cuh"
#include "grid_tf32x3.cuh"
#include "grid_wgmma.cuh"

/* The tile (ti, tj) of the N x N matrix A (row stride ld), as a pointer to its first element. */
__device__ __forceinline__ float *tile_at(float *A, size_t ld, int T, int ti, int tj)
{
    return A + (size_t)ti * T * ld + (size_t)tj * T;
}

/* A load issued BEFORE chain_wait_and_release: the TRSM's row of the panel. Why that is safe: every
 * kernel of the chain waits before it releases its successor, so when a kernel's blocks start,
 * every kernel two or more places ahead of it on the stream has finished and its writes have
 * reached the L2 (work of another stream arrives through an event, a full dependency), and in any
 * correct schedule the kernel just ahead of TRSM k is POTRF k or an update of other columns: the
 * row was complete before POTRF k read the diagonal tile. .cg reads from the L2, never from a line
 * an SM's L1 kept from before. It saves one round trip to the L2 on each link of the chain (H100,
 * same run, look-ahead tf32x3, together with the column update's C loaded early too: n = 1024 0.286
 * -> 0.272 ms, 2048 0.595 -> 0.568, 4096 1.514 -> 1.474). The column update may NOT load C early: a
 * schedule that applies the panels to a column one at a time (left-looking) runs two column
 * updates of the same C in a row, and the second would read C before the first has written it. */
__device__ __forceinline__ float4 early_load(const float *p) { return __ldcg(reinterpret_cast<const float4 *>(p)); }

/* POTRF and TRSM: FOUR threads per tile row (256 threads for T = 64). Thread (r, q), r = tid / Q,
 * q = tid % Q, holds W = T / Q entries of row r in x[], dealt out a float4 at a time: the row's
 * float4 number m (columns 4m .. 4m+3) is thread m % Q's, so x[j] is column col(j, q) =
 * 4Q (j / 4) + 4q + j % 4 (task_shape). The four share the work of every stretch of 16 columns
 * about evenly, and a row comes from memory in W / 4 loads of 16 bytes, a warp's load 8 rows of 64
 * contiguous bytes. (Dealt one column at a time, as first written, each load was a float and half
 * of every sector it touched went unused.) Why not
 * one thread per row: both tasks are a chain of T dependent columns, each run by 2 warps on one SM
 * with nothing else to do there, and with a whole row per thread each column cost up to 64
 * multiply-adds and 16 loads a thread: 14 us (POTRF) and 17 us (TRSM) per tile on the H100, the
 * whole critical path up to n = 4096. A quarter row makes a column a quarter of the instructions,
 * over 8 warps. Column c's owner is thread q = owner(c), at x[entry(c)]: compile-time indices when c
 * is one, which is what keeps x[] in registers. */
constexpr int TASK_Q = 4;

/* A vector of a tile column dealt out the same way: entry i at [owner(i)][entry(i)], each of the Q
 * parts padded to W + 4 floats so that the Q float4s one instruction reads (one per q) fall in
 * different banks (an offset of 20 floats: banks 0, 20, 8, 28). LTS: the TRSM's columns of L_kk,
 * 4 floats apart more, so that its stores of them conflict 2-way at most. */
template <int T> struct task_shape {
    static constexpr int W = T / TASK_Q, S = W + 4, VEC = TASK_Q * S, LTS = VEC + 4;
    static_assert(T % (4 * TASK_Q) == 0, "each thread's part of a row is whole float4s");
    __host__ __device__ static constexpr int col(int j, int q) { return 4 * TASK_Q * (j / 4) + 4 * q + j % 4; }
    __host__ __device__ static constexpr int owner(int c) { return c / 4 % TASK_Q; }
    __host__ __device__ static constexpr int entry(int c) { return c / (4 * TASK_Q) * 4 + c % 4; }
    __device__ static int at(int i) { return owner(i) * S + entry(i); }
};

/* My part of row r from global memory (or from v, loaded before); entries right of the diagonal set
 * to 0 when lower_only (the strict upper part of a diagonal tile holds whatever the caller left there). */
template <int T> __device__ __forceinline__ void part_of(float (&x)[T / TASK_Q], const float4 (&v)[T / TASK_Q / 4],
                                                         int r, int q, bool lower_only)
{
#pragma unroll
    for (int j = 0; j < T / TASK_Q; j++) {
        const float4 w = v[j / 4];
        const float e = j % 4 == 0 ? w.x : j % 4 == 1 ? w.y : j % 4 == 2 ? w.z : w.w;
        x[j] = (lower_only && task_shape<T>::col(j, q) > r) ? 0.0f : e;
    }
}

template <int T>
__device__ __forceinline__ void load_part(float (&x)[T / TASK_Q], const float *row, int r, int q, bool lower_only)
{
    float4 v[T / TASK_Q / 4];
#pragma unroll
    for (int g = 0; g < T / TASK_Q / 4; g++)
        v[g] = *reinterpret_cast<const float4 *>(row + task_shape<T>::col(4 * g, q));
    part_of<T>(x, v, r, q, lower_only);
}

template <int T> __device__ __forceinline__ void store_part(const float (&x)[T / TASK_Q], float *row, int q)
{
#pragma unroll
    for (int g = 0; g < T / TASK_Q / 4; g++)
        *reinterpret_cast<float4 *>(row + task_shape<T>::col(4 * g, q)) =
            make_float4(x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
}

/* x[j] -= sum_m f[m] v[m][j] for my columns col(j, q) > C (C a compile-time column): v[m] are my
 * parts of P dealt vectors, read a float4 at a time from shared memory. The float4s of the stretches
 * of 4Q columns before C's lie left of C for every q. */
template <int T, int C, int P> __device__ __forceinline__ void update_part(float (&x)[T / TASK_Q], const float (&f)[P],
                                                                           const float *const (&v)[P], int q)
{
    constexpr int W = T / TASK_Q, J4 = C / (4 * TASK_Q) * 4; // C's stretch
#pragma unroll
    for (int j4 = J4; j4 < W; j4 += 4) {
        float vs[P][4];
#pragma unroll
        for (int m = 0; m < P; m++) {
            const float4 v4 = *reinterpret_cast<const float4 *>(v[m] + j4);
            vs[m][0] = v4.x, vs[m][1] = v4.y, vs[m][2] = v4.z, vs[m][3] = v4.w;
        }
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int j = j4 + u;
            if (j4 > J4 || task_shape<T>::col(j, q) > C)
#pragma unroll
                for (int m = 0; m < P; m++) x[j] = fmaf(-f[m], vs[m][u], x[j]);
        }
    }
}

/* POTRF: P consecutive columns per barrier, J .. J + P - 1 (P divides 4, so they lie in one float4
 * of the row: entries entry(J) .. entry(J) + P - 1 of thread owner(J) of each row). Their owners publish them
 * (as updated through column J - 1) into dealt buffers, one barrier, then every thread reads the
 * P x P diagonal block B at (J, J) and its row's P entries a_r, and finishes the P columns itself:
 * it factors B = L_B L_B^T (P square roots in a row), solves L_B l_r = a_r for its row's entries of
 * the factor, and updates its columns c > J + P - 1 by all P at once:
 *   a_rc -= sum_m l_rm l_cm = sum_m f_m a_cm,  f = L_B^-T l_r,
 * with the buffered (unscaled) columns a_cm, since l_c = L_B^-1 a_c. Why more than one column per
 * barrier: the POTRF is the first link of the critical path (issue 24), a chain of T barriers,
 * each followed by a shared-memory load and a square root before anyone can go on; P columns pay
 * that once, and the per-column bookkeeping once, for a few more square roots and multiply-adds in
 * every thread. Measured on the H100, same run, default mode and math, P = 1 / 2 / 4:
 * n = 1024 0.238 / 0.230 / 0.228 ms, 2048 0.513 / 0.499 / 0.496, 4096 1.368 / 1.345 / 1.337
 * (two runs each; 8192 within the runs' spread). Double-buffered, so one barrier per group is
 * enough (a thread cannot write group G + 2's buffers before all passed group G + 1's barrier).
 * Rows above J compute values nobody reads. A recursive template rather than a loop so that every
 * index into x[] is a compile-time constant whatever the compiler's unrolling limits.
 * -DPOTRF_COLUMNS_PER_BARRIER=1 or 2 builds the others, to compare. */
#ifndef POTRF_COLUMNS_PER_BARRIER
#define POTRF_COLUMNS_PER_BARRIER 4
#endif
constexpr int POTRF_P = POTRF_COLUMNS_PER_BARRIER;

template <int T, int J> struct potrf_columns {
    static_assert(4 % POTRF_P == 0 && J % POTRF_P == 0, "a group of columns lies in one float4 of one thread");
    static __device__ __forceinline__ void run(float (&x)[T / TASK_Q], float (*column)[POTRF_P][task_shape<T>::VEC],
                                               int r, int q, int k, int *info, bool &reported)
    {
        typedef task_shape<T> S;
        constexpr int P = POTRF_P, OWNER = S::owner(J), JL = S::entry(J);
        const float *v[P];
#pragma unroll
        for (int m = 0; m < P; m++) {
            float *col = column[J / P & 1][m];
            if (q == OWNER) col[S::at(r)] = x[JL + m];
            v[m] = col + q * S::S;
        }
        __syncthreads();
        float lb[P][P], inv[P], lr[P]; // L_B (lower), 1 / its diagonal, my row's l_r
        int failed = 0;
#pragma unroll
        for (int m = 0; m < P; m++) {
            const float *col = column[J / P & 1][m];
#pragma unroll
            for (int i = m; i < P; i++) lb[i][m] = col[S::at(J + i)];
            lr[m] = col[S::at(r)];
        }
#pragma unroll
        for (int m = 0; m < P; m++) {
            float d = lb[m][m];
#pragma unroll
            for (int t = 0; t < m; t++) d = fmaf(-lb[m][t], lb[m][t], d);
            if (!(d > 0.0f) && failed == 0) failed = J + m + 1; // <= 0 or NaN: the first failing minor
            /* 1/sqrt in one instruction (2 ulp), nothing slower on the chain: the correctly rounded
             * __frsqrt_rn made the task 1.5x slower (23 us vs 15 us, Nsight Compute, H100). */
            inv[m] = rsqrtf(d);
#pragma unroll
            for (int i = m + 1; i < P; i++) {
                float a = lb[i][m];
#pragma unroll
                for (int t = 0; t < m; t++) a = fmaf(-lb[i][t], lb[m][t], a);
                lb[i][m] = a * inv[m];
            }
#pragma unroll
            for (int t = 0; t < m; t++) lr[m] = fmaf(-lr[t], lb[m][t], lr[m]);
            lr[m] *= inv[m];
        }
        if (threadIdx.x == 0 && !reported && failed) {
            atomicCAS(info, 0, k * T + failed); // an earlier step's failure stays
            reported = true;
        }
        float f[P]; // L_B^-T l_r
#pragma unroll
        for (int m = P - 1; m >= 0; m--) {
            float a = lr[m];
#pragma unroll
            for (int t = m + 1; t < P; t++) a = fmaf(-lb[t][m], f[t], a);
            f[m] = a * inv[m];
        }
#pragma unroll
        for (int m = 0; m < P; m++)
            if (q == OWNER) x[JL + m] = lr[m];
        update_part<T, J + P - 1, P>(x, f, v, q);
        potrf_columns<T, J + P>::run(x, column, r, q, k, info, reported);
    }
};
template <int T> struct potrf_columns<T, T> {
    static __device__ __forceinline__ void run(float (&)[T / TASK_Q], float (*)[POTRF_P][task_shape<T>::VEC], int, int,
                                               int, int *, bool &)
    {
    }
};

template <int T> __global__ void __launch_bounds__(T *TASK_Q)
    potrf_task_kernel(float *A, size_t ld, size_t stride, int k, int *info)
{
    chain_wait_and_release();
    __shared__ __align__(16) float column[2][POTRF_P][task_shape<T>::VEC];
    const int r = threadIdx.x / TASK_Q, q = threadIdx.x % TASK_Q;
    A += blockIdx.y * stride; // the batch: matrix blockIdx.y, its own info
    info += blockIdx.y;
    float *row = tile_at(A, ld, T, k, k) + (size_t)r * ld;
    float x[T / TASK_Q];
    load_part<T>(x, row, r, q, true);
    bool reported = false;
    potrf_columns<T, 0>::run(x, column, r, q, k, info, reported);
#pragma unroll
    for (int j = 0; j < T / TASK_Q; j++)
        if (task_shape<T>::col(j, q) > r) x[j] = 0.0f; // the output contract: zero above
    store_part<T>(x, row, q);
}

/* TRSM: block b solves tile (k+1+b, k): X L_kk^T = A_ik, each row by forward substitution along
 * it (x_C = a_C / l_CC, then a_c -= x_C l_cC for c > C). Column C's owner computes x_C and hands
 * it to the other three threads of its row by a shuffle (they are neighbouring lanes): no barrier
 * on the chain. L_kk goes to shared memory by columns, dealt like the rows (Lt[C] holds l_cC for
 * c = Q j + q at [q][j]), so that a thread's values of one step are contiguous.
 * A thread may hold the same row of R tiles (x[u], tile u of its block; trsm_task_kernel's TILES):
 * each float4 of L_kk read from shared memory then feeds R rows. That is what bounds a wide launch
 * (Nsight Compute, 7 x 640 tiles of 640 x 512: 27 % of the memory's bandwidth, 1.7 instructions a
 * cycle an SM, and 4 loads of 16 bytes to all 32 lanes for the 16 multiply-adds of a column). Each
 * row's arithmetic is the same for any R: the factor does not change. */
template <int T, int C, int R> struct trsm_columns { // recursive for the reason potrf_columns is
    static __device__ __forceinline__ void run(float (&x)[R][T / TASK_Q], const float *Lt, const float *inv_diag, int q)
    {
        typedef task_shape<T> S;
        constexpr int OWNER = S::owner(C), JL = S::entry(C), W = T / TASK_Q, J4 = C / (4 * TASK_Q) * 4;
        float xc[R];
#pragma unroll
        for (int u = 0; u < R; u++) {
            xc[u] = __shfl_sync(0xffffffffu, x[u][JL] * inv_diag[C], OWNER, TASK_Q); // a multiply, not a division
            if (q == OWNER) x[u][JL] = xc[u];
        }
        const float *v = Lt + C * S::LTS + q * S::S; // l_cC for my columns c > C (update_part's loop, R rows)
#pragma unroll
        for (int j4 = J4; j4 < W; j4 += 4) {
            const float4 v4 = *reinterpret_cast<const float4 *>(v + j4);
            const float vs[4] = {v4.x, v4.y, v4.z, v4.w};
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (j4 > J4 || S::col(j4 + e, q) > C)
#pragma unroll
                    for (int u = 0; u < R; u++) x[u][j4 + e] = fmaf(-xc[u], vs[e], x[u][j4 + e]);
        }
        trsm_columns<T, C + 1, R>::run(x, Lt, inv_diag, q);
    }
};
template <int T, int R> struct trsm_columns<T, T, R> {
    static __device__ __forceinline__ void run(float (&)[R][T / TASK_Q], const float *, const float *, int) {}
};

/* L_kk's lower triangle, my part of row r in l[] (zeros right of the diagonal), into the columns Lt
 * that trsm_columns reads, and 1 / l_rr into inv_diag[r]. */
template <int T> __device__ __forceinline__ void stage_columns_of_l(const float (&l)[T / TASK_Q], float *Lt,
                                                                    float *inv_diag, int r, int q)
{
    typedef task_shape<T> S;
#pragma unroll
    for (int j = 0; j < T / TASK_Q; j++) {
        const int c = S::col(j, q);
        Lt[c * S::LTS + S::at(r)] = l[j]; // l_rc: column c, row r
        if (c == r) inv_diag[r] = 1.0f / l[j];
    }
}

/* TILES tiles a block, b TILES .. b TILES + TILES-1 (grid_trsm_tiles: 2 in the wide launches), thread
 * (r, q) holding row r of each (tiles: the step's tiles, nt - k - 1; a missing last tile computes on
 * zeros and stores nothing). Two tiles: at most 80 registers, 3 blocks an SM (6
 * tiles); -DTRSM_PAIR_BLOCKS=2 lets it take 128 (4 tiles: slower at 640 x 512, LIMITS.md). */
#ifndef TRSM_PAIR_BLOCKS
#define TRSM_PAIR_BLOCKS 3
#endif
template <int T, int TILES> __global__ void __launch_bounds__(T *TASK_Q, TILES == 2 ? TRSM_PAIR_BLOCKS : 0)
    trsm_task_kernel(float *A, size_t ld, size_t stride, int k, int tiles)
{
    typedef task_shape<T> S;
    extern __shared__ __align__(16) float Lt[]; // T columns, LTS floats apart
    __shared__ float inv_diag[T];
    const int r = threadIdx.x / TASK_Q, q = threadIdx.x % TASK_Q, first = blockIdx.x * TILES;
    A += blockIdx.y * stride;
    float *row = tile_at(A, ld, T, k + 1 + first, k) + (size_t)r * ld; // tile u's row r: row + u T ld
    /* My part of the rows comes first, even before the wait for the POTRF: the rows do not depend
     * on it (see early_load), so their round trip to the L2 overlaps the POTRF's end and L_kk's
     * load instead of following the barrier. */
    float x[TILES][T / TASK_Q];
#pragma unroll
    for (int u = 0; u < TILES; u++) {
        float4 v[T / TASK_Q / 4];
#pragma unroll
        for (int g = 0; g < T / TASK_Q / 4; g++)
            v[g] = first + u < tiles ? early_load(row + (size_t)u * T * ld + S::col(4 * g, q))
                                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        part_of<T>(x[u], v, r, q, false);
    }
    chain_wait_and_release();
    {
        float l[T / TASK_Q];
        load_part<T>(l, tile_at(A, ld, T, k, k) + (size_t)r * ld, r, q, true);
        stage_columns_of_l<T>(l, Lt, inv_diag, r, q);
    }
    __syncthreads();
    trsm_columns<T, 0, TILES>::run(x, Lt, inv_diag, q);
#pragma unroll
    for (int u = 0; u < TILES; u++)
        if (first + u < tiles) store_part<T>(x[u], row + (size_t)u * T * ld, q);
}

/* UPDATE: C -= L_ik L_jk^T over a region of the trailing matrix, as a register-tiled GEMM.
 * One block computes a BM x BM block of C with 256 threads as 16 x 16: thread (ty, tx) owns
 * rows ty*4 + 64q + {0..3} and columns tx*4 + 64q + {0..3}, q < BM/64 (R x R values, R = BM/16).
 * The K = T columns of the panel (tile column k) pass through shared memory 8 at a time,
 * transposed (As[kk][row]) so that a thread reads its 4 rows with one float4; the next 8 are
 * loaded from global memory into registers while these are used.
 *
 * The block need not be a tile: with 64-wide tiles the bulk of the update still runs in
 * 128 x 128 blocks (each value read from shared memory feeds 8 multiply-adds instead of 4; 1.5x
 * faster on the H100). Such a block may stick out of the matrix by 64 rows or columns: a quad
 * (64 rows or columns of it) outside the matrix is neither loaded nor stored.
 *
 * Which block: the region starts at row and column `origin`; the blocks cover a band of block
 * columns down to the last row, or its lower triangle numbered row by row (update_block_of). */
/* BK = 8: 16 was measured 1.1-1.3x slower on the H100 (n = 4096..8192). */
constexpr int UPDATE_THREADS = 256, UPDATE_BK = 8;

/* Two blocks per SM: at most 128 registers a thread. Without the bound the compiler took 137 when
 * the batch index came in, which left one block per SM and made every factorization 1.2-1.25x
 * slower on the H100 (n = 4096 look-ahead 2.60 vs 2.21 ms, n = 8192 pairs 12.5 vs 10.0 ms). */
template <int BM, int KT> __global__ void __launch_bounds__(UPDATE_THREADS, 2)
    update_task_kernel(float *A, size_t ld, size_t stride, int N, int kcol, int origin, int band)
{
    A += blockIdx.y * stride;
    constexpr int R = BM / 16, Q = R / 4, LDS = BM + 4; // LDS: +4 spreads the transposed stores over the banks
    constexpr int V = UPDATE_BK / 4;                    // float4 per row of a BK-wide slice
    constexpr int LOADS = (V * BM + UPDATE_THREADS - 1) / UPDATE_THREADS; // float4 per thread per operand
    static_assert(BM == 64 || BM == 128, "update blocks are 64 or 128");
    static_assert(KT % UPDATE_BK == 0 && UPDATE_BK % 4 == 0, "the panel width must be a multiple of BK, BK of 4");
    __shared__ __align__(16) float As[2][UPDATE_BK][LDS], Bs[2][UPDATE_BK][LDS];

    /* band > 0: that many block columns from origin, each down to the last row; 0: the lower
     * triangle (update_block_of, grid_tf32x3.cuh). */
    int p, q;
    if (!update_block_of(band, p, q)) return;
    const int i0 = origin + p * BM, j0 = origin + q * BM; // the block's first row and column
    const float *Ag = A + (size_t)i0 * ld + kcol, *Bg = A + (size_t)j0 * ld + kcol;
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;

    float4 ra[LOADS], rb[LOADS];
    auto fetch = [&](int s) { // columns 8s..8s+7 of both panel blocks
#pragma unroll
        for (int l = 0; l < LOADS; l++) {
            const int f = tid + l * UPDATE_THREADS, row = f / V, c = s * UPDATE_BK + (f % V) * 4;
            if (f < V * BM) {
                ra[l] = i0 + row < N ? *reinterpret_cast<const float4 *>(Ag + (size_t)row * ld + c)
                                     : make_float4(0, 0, 0, 0);
                rb[l] = j0 + row < N ? *reinterpret_cast<const float4 *>(Bg + (size_t)row * ld + c)
                                     : make_float4(0, 0, 0, 0);
            }
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int l = 0; l < LOADS; l++) {
            const int f = tid + l * UPDATE_THREADS, row = f / V, c = (f % V) * 4;
            if (f < V * BM) {
                As[buf][c][row] = ra[l].x;
                As[buf][c + 1][row] = ra[l].y;
                As[buf][c + 2][row] = ra[l].z;
                As[buf][c + 3][row] = ra[l].w;
                Bs[buf][c][row] = rb[l].x;
                Bs[buf][c + 1][row] = rb[l].y;
                Bs[buf][c + 2][row] = rb[l].z;
                Bs[buf][c + 3][row] = rb[l].w;
            }
        }
    };

    float acc[R][R];
#pragma unroll
    for (int x = 0; x < R; x++)
#pragma unroll
        for (int y = 0; y < R; y++) acc[x][y] = 0.0f;

    fetch(0);
    stash(0);
    __syncthreads();
    constexpr int STEPS = KT / UPDATE_BK;
#pragma unroll 1
    for (int s = 0; s < STEPS; s++) {
        const int buf = s & 1;
        if (s + 1 < STEPS) fetch(s + 1); // in flight while we compute
#pragma unroll
        for (int kk = 0; kk < UPDATE_BK; kk++) {
            float a[R], bv[R];
#pragma unroll
            for (int qq = 0; qq < Q; qq++) {
                float4 va = *reinterpret_cast<const float4 *>(&As[buf][kk][qq * 64 + ty * 4]);
                float4 vb = *reinterpret_cast<const float4 *>(&Bs[buf][kk][qq * 64 + tx * 4]);
                a[4 * qq] = va.x;
                a[4 * qq + 1] = va.y;
                a[4 * qq + 2] = va.z;
                a[4 * qq + 3] = va.w;
                bv[4 * qq] = vb.x;
                bv[4 * qq + 1] = vb.y;
                bv[4 * qq + 2] = vb.z;
                bv[4 * qq + 3] = vb.w;
            }
#pragma unroll
            for (int x = 0; x < R; x++)
#pragma unroll
                for (int y = 0; y < R; y++) acc[x][y] += a[x] * bv[y];
        }
        if (s + 1 < STEPS) stash(buf ^ 1); // the other buffer: nobody reads it now
        __syncthreads();
    }

    /* C -= acc, inside the matrix. A block on the diagonal (i0 = j0) keeps only its lower part:
     * the strict upper part is never read and is zeroed at the end. The loads of C go first, half
     * the block's rows at a time, then the stores: written as load, store, load, store, the
     * compiler may not move a load above the store before it (it cannot prove they differ), and
     * each float4 was a round trip to memory of its own, 16 in a row. */
    const bool diagonal = i0 == j0;
    constexpr int HALF = R / 2;
#pragma unroll
    for (int x0 = 0; x0 < R; x0 += HALF) {
        float4 cv[HALF][Q];
#pragma unroll
        for (int x = x0; x < x0 + HALF; x++) {
            const int row = (x / 4) * 64 + ty * 4 + x % 4;
#pragma unroll
            for (int qq = 0; qq < Q; qq++) {
                const int col = qq * 64 + tx * 4;
                if (i0 + row < N && j0 + col < N && !(diagonal && col > row))
                    cv[x - x0][qq] = *reinterpret_cast<const float4 *>(A + (size_t)(i0 + row) * ld + j0 + col);
            }
        }
#pragma unroll
        for (int x = x0; x < x0 + HALF; x++) {
            const int row = (x / 4) * 64 + ty * 4 + x % 4;
            if (i0 + row >= N) continue;
#pragma unroll
            for (int qq = 0; qq < Q; qq++) {
                const int col = qq * 64 + tx * 4;
                if (j0 + col >= N || (diagonal && col > row)) continue;
                float4 *cp = reinterpret_cast<float4 *>(A + (size_t)(i0 + row) * ld + j0 + col);
                float4 c = cv[x - x0][qq];
                c.x -= acc[x][4 * qq];
                c.y -= acc[x][4 * qq + 1];
                c.z -= acc[x][4 * qq + 2];
                c.w -= acc[x][4 * qq + 3];
                if (!diagonal || col + 3 <= row) *cp = c;
                else { // the diagonal crosses this float4
                    float *e = reinterpret_cast<float *>(cp);
                    e[0] = c.x;
                    if (col + 1 <= row) e[1] = c.y;
                    if (col + 2 <= row) e[2] = c.z;
                }
            }
        }
    }
}

/* UPDATE of ONE tile column, the look-ahead's column k+1 (the next POTRF waits for it): tile
 * (i0/T + b, j0/T) -= L_i L_j^T over K = KT columns, Q x Q blocks of 256 threads per tile, one per
 * (T/Q) x (T/Q) piece (Q = 1 or 2). This one lies on the critical path, so it is written for
 * latency, not for throughput:
 * - both operands come into shared memory 64 columns at a time (one round for K = 64), every load
 *   of a round in flight at once, instead of the update kernel's 8 columns at a time (8 or 16
 *   dependent round trips to memory: 11.7 us for 58 tiles at n = 4096, Nsight Compute, H100,
 *   against the chain's POTRF 12 and TRSM 10);
 * - Q = 2, a quarter tile per block, where the chain is the whole time: a column is only
 *   nt - k - 1 tiles, fewer than the SMs, and with a whole tile per block each thread ran 1 024
 *   multiply-adds one after the other (6.3 us a launch at n = 4096, Nsight Compute); a quarter is
 *   256 a thread, on four times the SMs (update_launch says where).
 * Thread (ty, tx) of 16 x 16 owns rows ty + 16 x and columns tx + 16 y (x, y < R = T / 16 Q): with
 * rows 16 apart, the float4 reads of a quarter warp fall in different banks. Always fp32, in both
 * maths: a column is too little work for the tensor cores to pay, and fp32 is the reference
 * arithmetic. */
constexpr int COLUMN_KC = 64, COLUMN_LD = COLUMN_KC + 4; /* K staged per round; a staged row, padded */

template <int KT, int Q> __global__ void __launch_bounds__(256)
    update_column_kernel(float *A, size_t ld, size_t stride, int kcol, int origin)
{
    /* the wait comes before C's loads too (see early_load) */
    chain_wait_and_release();
    constexpr int T = GRID_TILE, H = T / Q, R = H / 16, V = COLUMN_KC / 4,
                  LOADS = H * V / 256; /* float4s per thread per operand */
    static_assert(T == 64 && KT % COLUMN_KC == 0 && (Q == 1 || Q == 2), "tiles of 64, K a multiple of 64");
    __shared__ __align__(16) float Li[H * COLUMN_LD], Lj[H * COLUMN_LD];
    A += blockIdx.y * stride;
    /* piece (qr, qc) of tile b; the first tile is the diagonal one, whose pieces right of its
     * diagonal lie above the matrix's and are left alone */
    const int b = blockIdx.x / (Q * Q), qr = blockIdx.x / Q % Q, qc = blockIdx.x % Q;
    if (b == 0 && qc > qr) return;
    const bool diagonal = b == 0 && qr == qc;
    const int i0 = origin + b * T + qr * H, j0 = origin + qc * H, tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    float cv[R][R]; /* my entries of C, fetched first so that their round trip overlaps the panels' */
#pragma unroll
    for (int x = 0; x < R; x++)
#pragma unroll
        for (int y = 0; y < R; y++) cv[x][y] = A[(size_t)(i0 + ty + 16 * x) * ld + j0 + tx + 16 * y];
    float acc[R][R] = {};
#pragma unroll 1
    for (int k0 = 0; k0 < KT; k0 += COLUMN_KC) {
        float4 ra[LOADS], rb[LOADS];
#pragma unroll
        for (int l = 0; l < LOADS; l++) { /* all loads of the round first: one round trip */
            const int f = tid + 256 * l, row = f / V, c = f % V * 4;
            ra[l] = *reinterpret_cast<const float4 *>(A + (size_t)(i0 + row) * ld + kcol + k0 + c);
            rb[l] = *reinterpret_cast<const float4 *>(A + (size_t)(j0 + row) * ld + kcol + k0 + c);
        }
        if (k0 > 0) __syncthreads(); /* everyone is done with the last round's panels */
#pragma unroll
        for (int l = 0; l < LOADS; l++) {
            const int f = tid + 256 * l, row = f / V, c = f % V * 4;
            *reinterpret_cast<float4 *>(Li + row * COLUMN_LD + c) = ra[l];
            *reinterpret_cast<float4 *>(Lj + row * COLUMN_LD + c) = rb[l];
        }
        __syncthreads();
#pragma unroll
        for (int c = 0; c < COLUMN_KC; c += 4) {
            float4 a[R], bv[R];
#pragma unroll
            for (int x = 0; x < R; x++) {
                a[x] = *reinterpret_cast<const float4 *>(Li + (ty + 16 * x) * COLUMN_LD + c);
                bv[x] = *reinterpret_cast<const float4 *>(Lj + (tx + 16 * x) * COLUMN_LD + c);
            }
#pragma unroll
            for (int x = 0; x < R; x++)
#pragma unroll
                for (int y = 0; y < R; y++) {
                    float t = acc[x][y];
                    t = fmaf(a[x].x, bv[y].x, t);
                    t = fmaf(a[x].y, bv[y].y, t);
                    t = fmaf(a[x].z, bv[y].z, t);
                    acc[x][y] = fmaf(a[x].w, bv[y].w, t);
                }
        }
    }
    /* C -= acc; on the diagonal tile only its lower part, as the update kernel does */
#pragma unroll
    for (int x = 0; x < R; x++)
#pragma unroll
        for (int y = 0; y < R; y++) {
            const int row = ty + 16 * x, col = tx + 16 * y;
            if (diagonal && col > row) continue;
            A[(size_t)(i0 + row) * ld + j0 + col] = cv[x][y] - acc[x][y];
        }
}

/* ------------------------------------------------------------------ launchers */

/* A kernel of the chain (chain_link.cuh), launched so that it may start before the kernel ahead of
 * it on the stream has finished, where the plan's rules say the GPU can. */
template <typename... Params, typename... Args> static int launch_chain(const grid_plan *p, void (*kernel)(Params...),
                                                                        dim3 grid, dim3 block, size_t shared,
                                                                        cudaStream_t s, Args... args)
{
    CUDA_TRY(launch_linked(p->rules.chain_overlap, kernel, grid, block, shared, s, args...));
    KERNEL_TRY();
    return 0;
}

template <int T> static int potrf_launch(const grid_plan *p, int k, cudaStream_t s)
{
    return launch_chain(p, potrf_task_kernel<T>, dim3(1, p->batch), T * TASK_Q, 0, s, p->A, p->ld, p->stride, k,
                        p->info);
}

template <int T> static int trsm_launch(const grid_plan *p, int k, cudaStream_t s)
{
    const size_t shared = (size_t)T * task_shape<T>::LTS * sizeof(float); // 21 KiB for T = 64
    const int tiles = p->nt - k - 1, per_block = grid_trsm_tiles(p);
    auto kernel = per_block == 2 ? trsm_task_kernel<T, 2> : trsm_task_kernel<T, 1>;
    const unsigned blocks = (unsigned)((tiles + per_block - 1) / per_block);
    return launch_chain(p, kernel, dim3(blocks, p->batch), T * TASK_Q, shared, s, p->A, p->ld, p->stride, k, tiles);
}

/* A kernel may use more than 48 KiB of dynamic shared memory only once allowed to, per GPU.
 * Cheap enough to ask before every launch (a host-side attribute, no GPU work). */
typedef void (*update_kernel)(float *, size_t, size_t, int, int, int, int);

static int allow_shared(update_kernel kernel, size_t bytes)
{
    if (bytes > 48 * 1024)
        CUDA_TRY(cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return 0;
}

/* The warpgroup update (grid_wgmma.cuh) where it was built (a Hopper build: GRID_WGMMA_BUILT) and
 * the GPU is a Hopper (compute capability 9.0). Asked once per device (an int written whole: several
 * threads planning at once write the same answer). */
#ifdef GRID_WGMMA_BUILT
static int ask_hopper(int *yes)
{
    static volatile int cache[64]; /* by device: 0 not asked, 1 yes, 2 no */
    int device, major, minor;
    CUDA_TRY(cudaGetDevice(&device));
    if (device < 64 && cache[device]) {
        *yes = cache[device] == 1;
        return 0;
    }
    CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    *yes = major == 9 && minor == 0;
    if (device < 64) cache[device] = *yes ? 1 : 2;
    return 0;
}
#endif

extern "C" int grid_wgmma_hardware(void)
{
#ifdef GRID_WGMMA_BUILT
    int yes = 0;
    return ask_hopper(&yes) == 0 && yes; /* an error (noted): no */
#else
    return 0;
#endif
}

/* Row blocks of 128 rounded up to even (a B operand is two of them), by the panel's K of at most
 * `panels` tiles, hi and lo. */
extern "C" size_t grid_split_bytes(int N, size_t batch, int panels)
{
    const size_t rows = ((size_t)N + 255) / 256 * 256;
    return batch * rows * panels * GRID_TILE * 2 * sizeof(float);
}

/* Floats from one matrix's split to the next. */
static size_t split_stride(const grid_plan *p)
{
    return grid_split_bytes((int)p->ld, 1, grid_split_panels((int)p->ld, (size_t)p->batch, &p->rules)) / sizeof(float);
}

static int split_make(grid_split *s, size_t bytes)
{
    memset(s, 0, sizeof *s);
    CUDA_TRY(cudaEventCreateWithFlags(&s->written, cudaEventDisableTiming));
    for (int r = 0; r < 2; r++) CUDA_TRY(cudaEventCreateWithFlags(&s->read[r], cudaEventDisableTiming));
    if (bytes) CUDA_TRY(cudaMalloc((void **)&s->panel, bytes));
    return 0;
}

extern "C" int grid_split_create(grid_split *s, size_t bytes)
{
    if (split_make(s, bytes) == 0) return 0;
    grid_split_destroy(s); /* what it made before the error */
    return -1;
}

extern "C" void grid_split_destroy(grid_split *s)
{
    if (s->written) (void)cudaEventDestroy(s->written);
    for (int r = 0; r < 2; r++)
        if (s->read[r]) (void)cudaEventDestroy(s->read[r]);
    if (s->panel) (void)cudaFree(s->panel);
    memset(s, 0, sizeof *s);
}

extern "C" void grid_split_begin(grid_split *s)
{
    s->readers = 0;
    s->K = 0;
}

extern "C" void grid_split_forget(grid_split *s) { s->K = 0; }

/* The split of the panel (K = KT columns from kcol) for C's rows from `origin` on, made now or
 * reused: one made for rows from a higher origin serves when it starts a whole 256 rows higher
 * (*rb0 = its row blocks above origin, even, so that a B operand's two row blocks stay inside it).
 * A new split waits for every reader of the one before. */
static int split_for_update(const grid_plan *p, int KT, int kcol, int origin, cudaStream_t s, int *rb0)
{
    grid_split *g = p->split;
    if (g->K == KT && g->kcol == kcol && origin >= g->origin && (origin - g->origin) % 256 == 0) {
        *rb0 = (origin - g->origin) / 128;
        return 0;
    }
    const int N = (int)p->ld, rows = (N - origin + 127) / 128, blocks = (rows + 1) / 2 * 2;
    for (int r = 0; r < g->readers; r++) CUDA_TRY(cudaStreamWaitEvent(s, g->read[r], 0));
    uint32_t *split = reinterpret_cast<uint32_t *>(g->panel);
    if (grid_math_half(p->math)) { /* GRID_F16X3: the lo part too */
        auto split_kernel = p->math == GRID_F16X3 ? split_panel_f16_kernel<true> : split_panel_f16_kernel<false>;
        split_kernel<<<dim3(2 * blocks, p->batch), 256, 0, s>>>(p->A, p->ld, p->stride, N, kcol, origin, blocks,
                                                                KT / WG_BK_F16, split, split_stride(p));
    } else {
        auto split_kernel = p->math == GRID_TF32 ? split_panel_kernel<true> : split_panel_kernel<false>;
        split_kernel<<<dim3(blocks * (KT / WG_BK), p->batch), 256, 0, s>>>(p->A, p->ld, p->stride, N, kcol, origin,
                                                                           blocks, KT / WG_BK, split, split_stride(p));
    }
    KERNEL_TRY();
    CUDA_TRY(cudaEventRecord(g->written, s));
    g->readers = 0, g->kcol = kcol, g->K = KT, g->origin = origin;
    *rb0 = 0;
    return 0;
}

/* C from `origin` on minus the panel's product (K = KT columns from kcol) on the warpgroup MMA:
 * band = 0 the trailing triangle, band > 0 that many block columns of 256 (grid_wgmma.cuh). */
static int update_wgmma_launch(const grid_plan *p, int KT, int kcol, int origin, int band, cudaStream_t s)
{
    int rb0 = 0;
    TRY(split_for_update(p, KT, kcol, origin, s, &rb0));
    grid_split *g = p->split;
    /* fp16 (one pass or three): wide blocks only (narrow's 128 registers serialized its products:
     * ptxas C7515). */
    const bool x3 = p->math == GRID_F16X3, half = grid_math_half(p->math), one = grid_math_reduced(p->math),
               narrow = !half && grid_wgmma_narrow(p);
    const int N = (int)p->ld, rows = (N - origin + 127) / 128, slices = KT / (half ? WG_BK_F16 : WG_BK);
    const int blocks = ((N - g->origin + 127) / 128 + 1) / 2 * 2; /* the split's row blocks */
    size_t count = 0; /* triangle: row block r has r / 2 + 1 blocks of 128 x 256 */
    if (band) count = (size_t)rows * band;
    else
        for (int r = 0; r < rows; r++) count += r / 2 + 1;
    CUDA_TRY(cudaStreamWaitEvent(s, g->written, 0));
    if (g->readers == 2) CUDA_TRY(cudaStreamWaitEvent(s, g->read[1], 0)); /* a third reader: after the second */
    auto kernel = x3     ? update_wgmma_kernel<false, false, true>
                  : half ? update_wgmma_kernel<true, false, true>
                  : one  ? (narrow ? update_wgmma_kernel<true, true> : update_wgmma_kernel<true, false>)
                         : (narrow ? update_wgmma_kernel<false, true> : update_wgmma_kernel<false, false>);
    const size_t shared = one ? (narrow ? wg_pipe<true, true>::SHARED : wg_pipe<true>::SHARED)
                              : (narrow ? wg_pipe<false, true>::SHARED : wg_pipe<false>::SHARED);
    CUDA_TRY(cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)shared)); /* as allow_shared, every launch */
    kernel<<<dim3((unsigned)(narrow ? 2 * count : count), p->batch), WG_THREADS, shared, s>>>(
        p->A, p->ld, p->stride, N, origin, rows, blocks, slices, reinterpret_cast<const uint32_t *>(g->panel),
        split_stride(p), rb0, band);
    KERNEL_TRY();
    CUDA_TRY(cudaEventRecord(g->read[g->readers < 2 ? g->readers : 1], s));
    if (g->readers < 2) g->readers++;
    return 0;
}

/* The next round's band on the warpgroup MMA where the bulk runs there and the rules allow it
 * (grid_rules_current): a whole number of 256-wide block columns. */
static int wgmma_band(const grid_plan *p, int first, int last)
{
    return p->rules.wgmma_band && grid_math_tensor(p->math) && p->split && (last - first) * GRID_TILE % 256 == 0;
}

/* The update kernel for blocks of BM x BM in the plan's math, and the shared memory it asks for;
 * NULL on a CUDA error (noted). */
template <int BM, int KT> static update_kernel update_kernel_for(const grid_plan *p, size_t *shared)
{
    if (grid_math_tensor(p->math)) {
        const update_kernel k =
            grid_math_reduced(p->math) ? update_tf32x3_kernel<BM, KT, 1> : update_tf32x3_kernel<BM, KT, 3>;
        *shared = tc_shared_bytes<BM>();
        return allow_shared(k, *shared) == 0 ? k : NULL;
    }
    *shared = 0;
    return update_task_kernel<BM, KT>;
}

/* Columns first..last-1 (in tiles) of the update by the panels k .. k+KT/T-1 (K = KT columns).
 * One column: update_column_kernel, one or four blocks per tile down it. Up to the last column: the region's
 * lower triangle in blocks of 128 x 128. A band of columns that ends before the last one: blocks of
 * 128 x 128 down each two of them, all in one launch (one column left over: the column kernel). */
template <int T, int KT> static int update_launch(const grid_plan *p, int k, int first, int last, cudaStream_t s)
{
    const int N = (int)p->ld, threads = grid_math_tensor(p->math) ? TC_THREADS : UPDATE_THREADS;
    size_t shared;
    const update_kernel kernel = update_kernel_for<128, KT>(p, &shared);
    if (!kernel) return -1;
    if (last == p->nt && last > first + 1) { /* the trailing triangle */
        const int origin = first * T, blocks128 = (N - origin + 127) / 128;
        if (grid_math_tensor(p->math) && p->split) /* a split: the warpgroup MMA (grid_policy.c) */
            return update_wgmma_launch(p, KT, k * T, origin, 0, s);
        const size_t triangle128 = (size_t)blocks128 * (blocks128 + 1) / 2 * p->batch;
        update_kernel triangle = kernel;
        size_t triangle_shared = shared;
        int per_side = blocks128; /* blocks along a side of the triangle */
        if constexpr (KT == T) {
            /* The look-ahead's bulk in blocks of 64 where they fill the last wave better (grid_policy.c). */
            if (grid_bulk_blocks_of_64(p, triangle128)) {
                triangle =
                    grid_math_reduced(p->math) ? update_tf32x3_kernel<64, KT, 1> : update_tf32x3_kernel<64, KT, 3>;
                triangle_shared = tc_shared_bytes<64>();
                TRY(allow_shared(triangle, triangle_shared));
                per_side = (N - origin + 63) / 64;
            }
        }
        triangle<<<dim3(per_side * (per_side + 1) / 2, p->batch), threads, triangle_shared, s>>>(p->A, p->ld, p->stride,
                                                                                                 N, k * T, origin, 0);
        KERNEL_TRY();
        return 0;
    }
    if (wgmma_band(p, first, last)) return update_wgmma_launch(p, KT, k * T, first * T, (last - first) * T / 256, s);
    if (last - first >= 2) { /* the band's pairs of columns: blocks of 128 x 128 down each, one launch */
        /* One launch for all of them, not one per pair: the blocks of a pair are fewer than the SMs,
         * and main waited for each launch before the next. H100, same run, tf32x3 quads (bands of 8
         * and 4 columns): 16384 20.14-20.26 -> 19.47-19.48 ms, 32768 127.6 -> 125.2; blocks of 64 in
         * one launch instead: 19.49-19.91 and 129.2. */
        const int pairs = (last - first) / 2, origin = first * T, rows = (N - origin + 127) / 128;
        kernel<<<dim3(rows * pairs, p->batch), threads, shared, s>>>(p->A, p->ld, p->stride, N, k * T, origin, pairs);
        KERNEL_TRY();
        first += 2 * pairs;
    }
    if (first < last) { /* one column left: on the critical path, its own kernel */
        const int c = first, origin = c * T;
        if constexpr (KT >= 2 * T) { /* a long K on the tensor cores, blocks of 64 down the column (grid_policy.c) */
            if (grid_column_tensor(p, KT)) {
                const update_kernel k64 =
                    grid_math_reduced(p->math) ? update_tf32x3_kernel<64, KT, 1> : update_tf32x3_kernel<64, KT, 3>;
                TRY(allow_shared(k64, tc_shared_bytes<64>()));
                k64<<<dim3(p->nt - c, p->batch), TC_THREADS, tc_shared_bytes<64>(), s>>>(p->A, p->ld, p->stride, N,
                                                                                         k * T, origin, 1);
                KERNEL_TRY();
                return 0;
            }
        }
        /* Quarter tiles where the chain is the whole time (grid_policy.c). */
        if (grid_quarter_column(p, c))
            return launch_chain(p, update_column_kernel<KT, 2>, dim3(4 * (p->nt - c), p->batch), 256, 0, s, p->A, p->ld,
                                p->stride, k * T, origin);
        return launch_chain(p, update_column_kernel<KT, 1>, dim3(p->nt - c, p->batch), 256, 0, s, p->A, p->ld,
                            p->stride, k * T, origin);
    }
    return 0;
}

extern "C" int launch_potrf_task(const grid_plan *p, int k, cudaStream_t s) { return potrf_launch<GRID_TILE>(p, k, s); }

extern "C" int launch_trsm_tasks(const grid_plan *p, int k, cudaStream_t s)
{
    return k + 1 < p->nt ? trsm_launch<GRID_TILE>(p, k, s) : 0;
}

/* The checks the update launchers share: 1 to launch, 0 when there is nothing to do, -1 when the
 * call breaks a rule of the schedule (noted as the course's own error). */
static int update_range(const grid_plan *p, const char *who, int k, int panels, int first, int *last)
{
    if (panels < 1 || panels > GRID_MAX_PANELS)
        return cuda_check_note("course", "bad update", "panels out of 1 .. GRID_MAX_PANELS", who, __FILE__, __LINE__);
    if (*last > p->nt) *last = p->nt;
    if (first >= *last) return 0;
    if (first < k + panels || k + panels > p->nt)
        return cuda_check_note("course", "bad update", "the panels cannot update a column at or before them", who,
                               __FILE__, __LINE__);
    return 1;
}

/* K = panels T: one kernel instance per K, P = GRID_MAX_PANELS .. 1. */
template <int P>
static int update_for_panels(const grid_plan *p, int panels, int k, int first, int last, cudaStream_t s)
{
    if (panels == P) return update_launch<GRID_TILE, P * GRID_TILE>(p, k, first, last, s);
    if constexpr (P > 1) return update_for_panels<P - 1>(p, panels, k, first, last, s);
    return 0;
}

extern "C" int launch_update_group_tasks(const grid_plan *p, int k, int panels, int first, int last, cudaStream_t s)
{
    const int go = update_range(p, "launch_update_group_tasks", k, panels, first, &last);
    return go == 1 ? update_for_panels<GRID_MAX_PANELS>(p, panels, k, first, last, s) : go;
}

extern "C" int launch_update_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s)
{
    return launch_update_group_tasks(p, k, 1, first, last, s);
}

extern "C" int launch_update_pair_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s)
{
    return launch_update_group_tasks(p, k, 2, first, last, s);
}

/* ------------------------------------------------------------------ the frame */

/* One matrix of the batch per blockIdx.y, one warp per row, FRAME_ROWS rows a block: the caller's
 * matrices are n x n and packed (n * n apart), the padded copies N x N (ld * N apart). A warp walks
 * its row with 32-bit column indices. (One thread per element with a 64-bit division each took
 * 397 us to zero the upper triangles of 640 x 512, 0.85 TB/s, a fifth of that factorization.) */
#define FRAME_ROWS 8

__device__ __forceinline__ int frame_row(void) { return (int)blockIdx.x * FRAME_ROWS + (int)threadIdx.x / 32; }

__global__ void copy_in_kernel(const float *A, int n, float *W, size_t ld, int N)
{
    const int i = frame_row(), lane = threadIdx.x % 32;
    if (i >= N) return;
    const float *a = A + blockIdx.y * (size_t)n * n + (size_t)i * n;
    float *w = W + blockIdx.y * ld * N + (size_t)i * ld;
    /* Zeros above the diagonal: the tasks never use them, but they read whole rows of diagonal
     * tiles, and compute-sanitizer's initcheck rightly flags a read of memory never written. */
#pragma unroll 4
    for (int j = lane; j < N; j += 32) w[j] = (i < n && j <= i) ? a[j] : (i == j ? 1.0f : 0.0f);
}

__global__ void copy_out_kernel(const float *W, size_t ld, int N, float *A, int n)
{
    const int i = frame_row(), lane = threadIdx.x % 32;
    if (i >= n) return;
    const float *w = W + blockIdx.y * ld * N + (size_t)i * ld;
    float *a = A + blockIdx.y * (size_t)n * n + (size_t)i * n;
#pragma unroll 4
    for (int j = lane; j < n; j += 32) a[j] = j > i ? 0.0f : w[j];
}

/* Row i's columns i+1 .. n-1: a few floats up to a 16-byte boundary, then float4s, then the rest. */
__global__ void zero_upper_kernel(float *A, int n)
{
    const int i = frame_row(), lane = threadIdx.x % 32;
    if (i >= n) return;
    float *a = A + blockIdx.y * (size_t)n * n + (size_t)i * n;
    const int first = i + 1, skew = (int)(((uintptr_t)(a + first) / sizeof(float)) % 4);
    const int body = min(n, first + (4 - skew) % 4), tail = body + (n - body) / 4 * 4;
    if (first + lane < body) a[first + lane] = 0.0f;
    for (int j = body + 4 * lane; j < tail; j += 4 * 32) *(float4 *)(a + j) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (tail + lane < n) a[tail + lane] = 0.0f;
}

static unsigned frame_blocks(int rows) { return (unsigned)((rows + FRAME_ROWS - 1) / FRAME_ROWS); }

extern "C" int launch_copy_in(const float *A, int n, float *W, size_t ld, int N, int batch, cudaStream_t s)
{
    copy_in_kernel<<<dim3(frame_blocks(N), batch), 32 * FRAME_ROWS, 0, s>>>(A, n, W, ld, N);
    KERNEL_TRY();
    return 0;
}

extern "C" int launch_copy_out(const float *W, size_t ld, int N, float *A, int n, int batch, cudaStream_t s)
{
    copy_out_kernel<<<dim3(frame_blocks(n), batch), 32 * FRAME_ROWS, 0, s>>>(W, ld, N, A, n);
    KERNEL_TRY();
    return 0;
}

extern "C" int launch_zero_upper(float *A, int n, int batch, cudaStream_t s)
{
    zero_upper_kernel<<<dim3(frame_blocks(n), batch), 32 * FRAME_ROWS, 0, s>>>(A, n);
    KERNEL_TRY();
    return 0;
}

__global__ void set_if_failed_kernel(cudaGraphConditionalHandle h, const int *info, size_t batch)
{
    int any = 0;
    for (size_t b = threadIdx.x; b < batch; b += blockDim.x) any |= info[b] != 0;
    any = __syncthreads_or(any);
    if (threadIdx.x == 0) cudaGraphSetConditional(h, any ? 1u : 0u);
}

extern "C" int launch_set_if_failed(cudaGraphConditionalHandle h, const int *info, size_t batch, cudaStream_t s)
{
    set_if_failed_kernel<<<1, 256, 0, s>>>(h, info, batch);
    KERNEL_TRY();
    return 0;
}
