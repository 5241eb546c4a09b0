/* grid_tasks.cu - the three tile tasks of one large matrix (POTRF, TRSM, UPDATE), one thread
 * block per tile, T = GRID_TILE = 64 (see grid_tasks.h for what each computes).
 *
 * Why not the stage 02 helpers here: they keep a tile in shared memory and put a barrier
 * between every two columns with one thread per element, which is right for a 32 x 32 tile in
 * one block but measured 108 us for one 128 x 128 matrix (stage 03 README). A large matrix needs
 * tasks that run near the chip's speed, so each task keeps its data in REGISTERS:
 *   POTRF and TRSM: one thread per tile row, the row in registers (T floats), the columns it
 *                   needs from the other rows broadcast through shared memory.
 *   UPDATE:         a register-tiled GEMM: 256 threads, each owns an R x R block of a
 *                   BM x BM block of the result (R = BM/16), and the two panel tiles pass
 *                   through shared memory 8 columns at a time, double-buffered. Each value
 *                   loaded from shared memory feeds R multiply-adds instead of one.
 * All loops over a tile are unrolled with compile-time bounds, so the arrays stay in registers.
 *
 * A batch: every launch has blockIdx.y = the matrix (grid_plan.batch of them, stride apart), so
 * step k's tasks of every matrix run in one launch and a batch of 4 or 60 medium matrices fills
 * the GPU as one large matrix does. The kernels differ from the one-matrix ones by one line. */
#include <stdio.h>
#include "cuda_check.h"
#include "grid_tasks.h"
#include "grid_tf32x3.cuh"

/* The tile (ti, tj) of the N x N matrix A (row stride ld), as a pointer to its first element. */
__device__ __forceinline__ float *tile_at(float *A, size_t ld, int T, int ti, int tj)
{
    return A + (size_t)ti * T * ld + (size_t)tj * T;
}

/* Row r of a tile into registers, four floats at a time (ld and T are multiples of 4). Elements
 * right of the diagonal (c > r) are set to 0 when lower_only: the strict upper part of a diagonal
 * tile holds whatever the caller left there and must not reach the factor. */
template <int T>
__device__ __forceinline__ void load_row(float (&x)[T], const float *row, int r, bool lower_only)
{
#pragma unroll
    for (int c = 0; c < T; c += 4) {
        float4 v = *reinterpret_cast<const float4 *>(row + c);
        x[c] = v.x; x[c + 1] = v.y; x[c + 2] = v.z; x[c + 3] = v.w;
        if (lower_only) {
            if (c > r) x[c] = 0.0f;
            if (c + 1 > r) x[c + 1] = 0.0f;
            if (c + 2 > r) x[c + 2] = 0.0f;
            if (c + 3 > r) x[c + 3] = 0.0f;
        }
    }
}

template <int T>
__device__ __forceinline__ void store_row(const float (&x)[T], float *row)
{
#pragma unroll
    for (int c = 0; c < T; c += 4)
        *reinterpret_cast<float4 *>(row + c) = make_float4(x[c], x[c + 1], x[c + 2], x[c + 3]);
}

/* x[c] -= f * v[c] for c = from..T-1, where from is a compile-time constant after unrolling:
 * scalar up to the next multiple of 4, then four at a time from shared memory (broadcast reads:
 * every thread of the block reads the same v[c]). */
template <int T>
__device__ __forceinline__ void axpy_tail(float (&x)[T], float f, const float *v, int from)
{
    const int aligned = (from + 3) & ~3;
#pragma unroll
    for (int c = from; c < aligned && c < T; c++) x[c] -= f * v[c];
#pragma unroll
    for (int c = aligned; c < T; c += 4) {
        float4 w = *reinterpret_cast<const float4 *>(v + c);
        x[c] -= f * w.x; x[c + 1] -= f * w.y; x[c + 2] -= f * w.z; x[c + 3] -= f * w.w;
    }
}

/* POTRF: thread r holds row r of A_kk. Column j: every thread publishes its a[j] (the column,
 * updated by the columns before it), one barrier, then row r scales its a[j] by the pivot's
 * square root and subtracts l_rj l_cj from its a[c], c > j (right-looking inside the tile). The
 * column buffer is double-buffered, so one barrier per column is enough: a thread cannot write
 * column j+2's buffer before every thread passed column j+1's barrier, i.e. finished reading j.
 * Rows above j (c > r) compute values nobody reads. */
/* Column J of the tile, then the columns after it. A recursive template rather than a loop, so
 * that every index into a[] is a compile-time constant whatever the compiler's unrolling limits
 * (an array indexed at run time moves out of registers into local memory). */
template <int T, int J>
struct potrf_columns {
    static __device__ __forceinline__ void run(float (&a)[T], float (*column)[T], int r, int k, int *info, bool &reported)
    {
        float *col = column[J & 1];
        col[r] = a[J];
        __syncthreads();
        const float pivot = col[J];
        if (r == 0 && !reported && !(pivot > 0.0f)) {   // <= 0 or NaN: the first failing minor
            atomicCAS(info, 0, k * T + J + 1);          // an earlier step's failure stays
            reported = true;
        }
                /* 1/sqrt in one instruction (2 ulp), nothing slower on the chain: the correctly rounded
         * __frsqrt_rn made the task 1.5x slower (23 us vs 15 us, Nsight Compute, H100). */
        const float inv = rsqrtf(pivot);
        a[J] = a[J] * inv;                              // l_rJ (row J: the pivot's root)
        axpy_tail<T>(a, a[J] * inv, col, J + 1);        // a_rc -= l_rJ * a_cJ / s = l_rJ l_cJ
        potrf_columns<T, J + 1>::run(a, column, r, k, info, reported);
    }
};
template <int T>
struct potrf_columns<T, T> {
    static __device__ __forceinline__ void run(float (&)[T], float (*)[T], int, int, int *, bool &) {}
};

template <int T>
__global__ void __launch_bounds__(T) potrf_task_kernel(float *A, size_t ld, size_t stride, int k, int *info)
{
    __shared__ __align__(16) float column[2][T];
    const int r = threadIdx.x;
    A += blockIdx.y * stride;                           // the batch: matrix blockIdx.y, its own info
    info += blockIdx.y;
    float *row = tile_at(A, ld, T, k, k) + (size_t)r * ld;
    float a[T];
    load_row<T>(a, row, r, true);
    bool reported = false;
    potrf_columns<T, 0>::run(a, column, r, k, info, reported);
#pragma unroll
    for (int c = 0; c < T; c++)
        if (c > r) a[c] = 0.0f;                         // the output contract: zero above
    store_row<T>(a, row);
}

/* TRSM: block b solves tile (k+1+b, k): X L_kk^T = A_ik, one row per thread (forward substitution
 * along the row: x_c = a_c / l_cc, then a_m -= x_c l_mc for m > c). L_kk goes to shared memory
 * transposed (Lt[c][m] = l_mc), so the values a step needs are contiguous. */
template <int T, int C>
struct trsm_columns {                                   // recursive for the reason potrf_columns is
    static __device__ __forceinline__ void run(float (&x)[T], const float *Lt, const float *inv_diag)
    {
        x[C] = x[C] * inv_diag[C];                      // a multiply on the chain, not a division
        axpy_tail<T>(x, x[C], Lt + C * T, C + 1);
        trsm_columns<T, C + 1>::run(x, Lt, inv_diag);
    }
};
template <int T>
struct trsm_columns<T, T> {
    static __device__ __forceinline__ void run(float (&)[T], const float *, const float *) {}
};

template <int T>
__global__ void __launch_bounds__(T) trsm_task_kernel(float *A, size_t ld, size_t stride, int k)
{
    extern __shared__ __align__(16) float Lt[];         // T x T
    __shared__ float inv_diag[T];
    const int r = threadIdx.x;
    A += blockIdx.y * stride;
    {
        float l[T];
        load_row<T>(l, tile_at(A, ld, T, k, k) + (size_t)r * ld, r, true);
#pragma unroll
        for (int c = 0; c < T; c++) {
            Lt[c * T + r] = l[c];                       // consecutive r: no bank conflicts
            if (c == r) inv_diag[r] = 1.0f / l[c];
        }
    }
    __syncthreads();
    float *row = tile_at(A, ld, T, k + 1 + blockIdx.x, k) + (size_t)r * ld;
    float x[T];
    load_row<T>(x, row, r, false);
    trsm_columns<T, 0>::run(x, Lt, inv_diag);
    store_row<T>(x, row);
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
 * Which block: the region starts at row and column `origin`; in column mode the blocks go down
 * one BM-wide column, otherwise they cover its lower triangle, numbered row by row
 * b = p (p + 1) / 2 + q for block (p, q), q <= p. */
/* BK = 8: 16 was measured 1.1-1.3x slower on the H100 (n = 4096..8192). */
constexpr int UPDATE_THREADS = 256, UPDATE_BK = 8;

/* Two blocks per SM: at most 128 registers a thread. Without the bound the compiler took 137 when
 * the batch index came in, which left one block per SM and made every factorization 1.2-1.25x
 * slower on the H100 (n = 4096 look-ahead 2.60 vs 2.21 ms, n = 8192 pairs 12.5 vs 10.0 ms). */
template <int BM, int KT>
__global__ void __launch_bounds__(UPDATE_THREADS, 2) update_task_kernel(float *A, size_t ld, size_t stride, int N, int kcol, int origin, int column_only)
{
    A += blockIdx.y * stride;
    constexpr int R = BM / 16, Q = R / 4, LDS = BM + 4;  // LDS: +4 spreads the transposed stores over the banks
    constexpr int V = UPDATE_BK / 4;                    // float4 per row of a BK-wide slice
    constexpr int LOADS = (V * BM + UPDATE_THREADS - 1) / UPDATE_THREADS; // float4 per thread per operand
    static_assert(BM == 64 || BM == 128, "update blocks are 64 or 128");
    static_assert(KT % UPDATE_BK == 0 && UPDATE_BK % 4 == 0, "the panel width must be a multiple of BK, BK of 4");
    __shared__ __align__(16) float As[2][UPDATE_BK][LDS], Bs[2][UPDATE_BK][LDS];

    int p = blockIdx.x, q = 0;
    if (!column_only) {
        const int b = blockIdx.x;
        p = (int)((sqrtf(8.0f * b + 1.0f) - 1.0f) * 0.5f);
        while ((p + 1) * (p + 2) / 2 <= b) p++;          // float rounding, either way
        while (p * (p + 1) / 2 > b) p--;
        q = b - p * (p + 1) / 2;
    }
    const int i0 = origin + p * BM, j0 = origin + q * BM;  // the block's first row and column
    const float *Ag = A + (size_t)i0 * ld + kcol, *Bg = A + (size_t)j0 * ld + kcol;
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;

    float4 ra[LOADS], rb[LOADS];
    auto fetch = [&](int s) {                           // columns 8s..8s+7 of both panel blocks
#pragma unroll
        for (int l = 0; l < LOADS; l++) {
            const int f = tid + l * UPDATE_THREADS, row = f / V, c = s * UPDATE_BK + (f % V) * 4;
            if (f < V * BM) {
                ra[l] = i0 + row < N ? *reinterpret_cast<const float4 *>(Ag + (size_t)row * ld + c) : make_float4(0, 0, 0, 0);
                rb[l] = j0 + row < N ? *reinterpret_cast<const float4 *>(Bg + (size_t)row * ld + c) : make_float4(0, 0, 0, 0);
            }
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int l = 0; l < LOADS; l++) {
            const int f = tid + l * UPDATE_THREADS, row = f / V, c = (f % V) * 4;
            if (f < V * BM) {
                As[buf][c][row] = ra[l].x; As[buf][c + 1][row] = ra[l].y;
                As[buf][c + 2][row] = ra[l].z; As[buf][c + 3][row] = ra[l].w;
                Bs[buf][c][row] = rb[l].x; Bs[buf][c + 1][row] = rb[l].y;
                Bs[buf][c + 2][row] = rb[l].z; Bs[buf][c + 3][row] = rb[l].w;
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
        if (s + 1 < STEPS) fetch(s + 1);                // in flight while we compute
#pragma unroll
        for (int kk = 0; kk < UPDATE_BK; kk++) {
            float a[R], bv[R];
#pragma unroll
            for (int qq = 0; qq < Q; qq++) {
                float4 va = *reinterpret_cast<const float4 *>(&As[buf][kk][qq * 64 + ty * 4]);
                float4 vb = *reinterpret_cast<const float4 *>(&Bs[buf][kk][qq * 64 + tx * 4]);
                a[4 * qq] = va.x; a[4 * qq + 1] = va.y; a[4 * qq + 2] = va.z; a[4 * qq + 3] = va.w;
                bv[4 * qq] = vb.x; bv[4 * qq + 1] = vb.y; bv[4 * qq + 2] = vb.z; bv[4 * qq + 3] = vb.w;
            }
#pragma unroll
            for (int x = 0; x < R; x++)
#pragma unroll
                for (int y = 0; y < R; y++) acc[x][y] += a[x] * bv[y];
        }
        if (s + 1 < STEPS) stash(buf ^ 1);              // the other buffer: nobody reads it now
        __syncthreads();
    }

    /* C -= acc, inside the matrix. A block on the diagonal (i0 = j0) keeps only its lower part:
     * the strict upper part is never read and is zeroed at the end. */
    const bool diagonal = i0 == j0;
#pragma unroll
    for (int x = 0; x < R; x++) {
        const int row = (x / 4) * 64 + ty * 4 + x % 4;
        if (i0 + row >= N) continue;
#pragma unroll
        for (int qq = 0; qq < Q; qq++) {
            const int col = qq * 64 + tx * 4;
            if (j0 + col >= N || (diagonal && col > row)) continue;
            float4 *cp = reinterpret_cast<float4 *>(A + (size_t)(i0 + row) * ld + j0 + col);
            float4 c = *cp;
            c.x -= acc[x][4 * qq]; c.y -= acc[x][4 * qq + 1]; c.z -= acc[x][4 * qq + 2]; c.w -= acc[x][4 * qq + 3];
            if (!diagonal || col + 3 <= row) *cp = c;
            else {                                      // the diagonal crosses this float4
                float *e = reinterpret_cast<float *>(cp);
                e[0] = c.x;
                if (col + 1 <= row) e[1] = c.y;
                if (col + 2 <= row) e[2] = c.z;
            }
        }
    }
}

/* ------------------------------------------------------------------ launchers */

template <int T>
static void potrf_launch(const grid_plan *p, int k, cudaStream_t s)
{
    potrf_task_kernel<T><<<dim3(1, p->batch), T, 0, s>>>(p->A, p->ld, p->stride, k, p->info);
    KERNEL_CHECK();
}

template <int T>
static void trsm_launch(const grid_plan *p, int k, cudaStream_t s)
{
    const size_t shared = (size_t)T * T * sizeof(float);  // 16 KiB for T = 64
    trsm_task_kernel<T><<<dim3(p->nt - k - 1, p->batch), T, shared, s>>>(p->A, p->ld, p->stride, k);
    KERNEL_CHECK();
}

/* A kernel may use more than 48 KiB of dynamic shared memory only once allowed to, per GPU.
 * Cheap enough to ask before every launch (a host-side attribute, no GPU work). */
typedef void (*update_kernel)(float *, size_t, size_t, int, int, int, int);

static void allow_shared(update_kernel kernel, size_t bytes)
{
    if (bytes > 48 * 1024) CUDA_CHECK(cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

/* The update kernel for blocks of BM x BM in the plan's math, and the shared memory it asks for. */
template <int BM, int KT>
static update_kernel update_kernel_for(const grid_plan *p, size_t *shared)
{
    if (p->math == GRID_TF32X3) {
        *shared = tc_shared_bytes<BM>();
        allow_shared(update_tf32x3_kernel<BM, KT>, *shared);
        return update_tf32x3_kernel<BM, KT>;
    }
    *shared = 0;
    return update_task_kernel<BM, KT>;
}

/* Columns first..last-1 (in tiles) of the update by the panels k .. k+KT/T-1 (K = KT columns).
 * One column: blocks of T x T down it. Two columns: blocks of 128 x 128 down them. Up to the last
 * column: the region's lower triangle in blocks of 128 x 128. */
template <int T, int KT>
static void update_launch(const grid_plan *p, const char *who, int k, int first, int last, cudaStream_t s)
{
    const int N = (int)p->ld, origin = first * T, blocks128 = (N - origin + 127) / 128;
    size_t shared;
    update_kernel kernel;
    dim3 grid(0, p->batch);
    int column_only = 1;
    if (last == first + 1) {
        grid.x = p->nt - first;
        kernel = update_kernel_for<T, KT>(p, &shared);
    } else if (last == first + 2 && last < p->nt) {
        grid.x = blocks128;
        kernel = update_kernel_for<128, KT>(p, &shared);
    } else if (last == p->nt) {
        grid.x = blocks128 * (blocks128 + 1) / 2;
        column_only = 0;
        kernel = update_kernel_for<128, KT>(p, &shared);
    } else {
        fprintf(stderr, "%s: columns %d..%d: one column, two, or up to the last one\n", who, first, last - 1);
        exit(1);
    }
    const int threads = p->math == GRID_TF32X3 ? TC_THREADS : UPDATE_THREADS;
    kernel<<<grid, threads, shared, s>>>(p->A, p->ld, p->stride, N, k * T, origin, column_only);
    KERNEL_CHECK();
}

extern "C" void launch_potrf_task(const grid_plan *p, int k, cudaStream_t s)
{
    potrf_launch<GRID_TILE>(p, k, s);
}

extern "C" void launch_trsm_tasks(const grid_plan *p, int k, cudaStream_t s)
{
    if (k + 1 < p->nt) trsm_launch<GRID_TILE>(p, k, s);
}

/* The checks both update launchers share; 0 when there is nothing to do. */
static int update_range(const grid_plan *p, const char *who, int k, int panels, int first, int *last)
{
    if (*last > p->nt) *last = p->nt;
    if (first >= *last) return 0;
    if (first < k + panels || k + panels > p->nt) {
        fprintf(stderr, "%s: the panels %d..%d cannot update column %d (must be > %d)\n", who, k, k + panels - 1, first,
                k + panels - 1);
        exit(1);
    }
    return 1;
}

extern "C" void launch_update_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s)
{
    if (update_range(p, "launch_update_tasks", k, 1, first, &last))
        update_launch<GRID_TILE, GRID_TILE>(p, "launch_update_tasks", k, first, last, s);
}

extern "C" void launch_update_pair_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s)
{
    if (update_range(p, "launch_update_pair_tasks", k, 2, first, &last))
        update_launch<GRID_TILE, 2 * GRID_TILE>(p, "launch_update_pair_tasks", k, first, last, s);
}

/* ------------------------------------------------------------------ the frame */

/* One matrix of the batch per blockIdx.y: the caller's matrices are n x n and packed (n * n
 * apart), the padded copies N x N (ld * N apart). */
__global__ void copy_in_kernel(const float *A, int n, float *W, size_t ld, int N)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)N * N) return;
    A += blockIdx.y * (size_t)n * n;
    W += blockIdx.y * ld * N;
    const int i = (int)(idx / N), j = (int)(idx % N);
    /* Zeros above the diagonal: the tasks never use them, but they read whole rows of diagonal
     * tiles, and compute-sanitizer's initcheck rightly flags a read of memory never written. */
    W[(size_t)i * ld + j] = (i < n && j < n && j <= i) ? A[(size_t)i * n + j] : (i == j ? 1.0f : 0.0f);
}

__global__ void copy_out_kernel(const float *W, size_t ld, int N, float *A, int n)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)n * n) return;
    A += blockIdx.y * (size_t)n * n;
    W += blockIdx.y * ld * N;
    const int i = (int)(idx / n), j = (int)(idx % n);
    A[idx] = j > i ? 0.0f : W[(size_t)i * ld + j];
}

__global__ void zero_upper_kernel(float *A, int n)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)n * n) return;
    A += blockIdx.y * (size_t)n * n;
    if ((int)(idx % n) > (int)(idx / n)) A[idx] = 0.0f;
}

static unsigned blocks_for(size_t count) { return (unsigned)((count + 255) / 256); }

extern "C" void launch_copy_in(const float *A, int n, float *W, size_t ld, int N, int batch, cudaStream_t s)
{
    copy_in_kernel<<<dim3(blocks_for((size_t)N * N), batch), 256, 0, s>>>(A, n, W, ld, N);
    KERNEL_CHECK();
}

extern "C" void launch_copy_out(const float *W, size_t ld, int N, float *A, int n, int batch, cudaStream_t s)
{
    copy_out_kernel<<<dim3(blocks_for((size_t)n * n), batch), 256, 0, s>>>(W, ld, N, A, n);
    KERNEL_CHECK();
}

extern "C" void launch_zero_upper(float *A, int n, int batch, cudaStream_t s)
{
    zero_upper_kernel<<<dim3(blocks_for((size_t)n * n), batch), 256, 0, s>>>(A, n);
    KERNEL_CHECK();
}
