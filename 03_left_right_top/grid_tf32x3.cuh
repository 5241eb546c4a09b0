/* grid_tf32x3.cuh - the UPDATE task on the tensor cores, with fp32 accuracy (3xTF32).
 *
 * The tensor cores multiply TF32 numbers: fp32 with 10 mantissa bits instead of 23, so one TF32
 * product loses about 3 decimal digits. The split recovers them: every operand x becomes
 *     x = hi + lo,   hi = tf32(x),   lo = tf32(x - hi)
 * (hi holds the top 11 significant bits, lo the next 11), and a*b = a_hi b_hi + a_hi b_lo + a_lo b_hi
 * + a_lo b_lo, where the last term is below fp32's rounding and is dropped. Three tensor-core
 * products, accumulated in fp32, give a product as accurate as fp32's to about 2 bits (22 of 24)
 * at a fraction of the time of the fp32 cores: the H100 runs TF32 mma about 7x faster than fp32 FMA.
 *
 * The block computes the same BM x BM block of C -= L_ik L_jk^T as update_task_kernel (same
 * numbering, same masking), but as 8 warps in a 2 x 4 grid, each a (BM/2) x (BM/4) piece made of
 * 16 x 8 tensor-core tiles (mma.sync m16n8k8). The panels pass through shared memory 32 columns at
 * a time with cp.async (global -> shared without registers), double-buffered, and reach the
 * registers through ldmatrix (four fragments' worth per instruction).
 * Included by grid_tasks.cu only.
 * Alone: make build/03_left_right_top/cholesky_one && build/03_left_right_top/cholesky_one --n 4096 --mode pairs --math tf32x3 */
#include <stdint.h>

/* TF32 mma and cp.async came with compute capability 8.0 (Ampere). Built for an older GPU (the
 * default sm_75 of a machine without one), the helpers compile to a trap; potrf_grid_math refuses
 * GRID_TF32X3 on such a GPU before any launch. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TC_SUPPORTED 0
#else
#define TC_SUPPORTED 1
#endif

constexpr int TC_THREADS = 256, TC_BK = 32,
              TC_LDS = TC_BK + 4; /* +4: the 8 rows of an ldmatrix hit 32 different banks */

__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r = 0;
#if TC_SUPPORTED
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else
    (void)x;
    __trap();
#endif
    return r;
}

/* x = hi + lo. hi is x rounded to TF32 (to nearest, ties away: add half of the 13 bits that go,
 * then clear them: the carry runs into the exponent by itself), lo = x - hi is exact. lo is handed
 * to the tensor core as it is, 23 bits: the tensor core uses only the top 19 bits of a .tf32
 * operand, so lo is cut to TF32 there at no cost. Measured on the H100 (n = 16384, quads): with
 * cvt.rna.tf32.f32 for both parts (about five instructions each on sm_90: a NaN test besides the
 * add and the mask) the factorization took 35.8 ms, with this split 33 % fewer instructions in the
 * main loop and 30.6 ms; the forward errors of the Gram test were the same to 2 %. */
__device__ __forceinline__ void split_tf32(float x, uint32_t &hi, uint32_t &lo)
{
    hi = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
    lo = __float_as_uint(x - __uint_as_float(hi));
}

/* d += a b for one 16 x 8 x 8 tile: a is 16 x 8 (row), b 8 x 8 (col), in the PTX fragment layout. */
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
#if TC_SUPPORTED
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)d;
    (void)a;
    (void)b;
    __trap();
#endif
}

__device__ __forceinline__ void cp_async16(float *shared, const float *global)
{
#if TC_SUPPORTED
    const unsigned s = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(global));
#else
    *reinterpret_cast<float4 *>(shared) = *reinterpret_cast<const float4 *>(global);
#endif
}
#if TC_SUPPORTED
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int PENDING> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING));
}
#else
__device__ __forceinline__ void cp_async_commit() {}
template <int PENDING> __device__ __forceinline__ void cp_async_wait() {}
#endif

/* Four 8 x 4-word matrices from shared memory in one instruction: lane l gives the address of
 * row l % 8 of matrix l / 8 and receives word (l / 4, l % 4) of each matrix, which is the tf32
 * fragment layout of mma m16n8k8 (row g = l / 4, column t = l % 4). */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const float *shared)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

/* Which block (p, q) of a region of square blocks this one is, for both mma.sync update kernels
 * (this one and update_task_kernel in grid_tasks.cu). band > 0: that many block columns, block x
 * being row block x % rows of column x / rows (gridDim.x = rows x band); 0: the lower triangle,
 * numbered row by row, b = p (p + 1) / 2 + q for q <= p. False: the block lies above the band's
 * diagonal and has nothing to do. */
__device__ __forceinline__ bool update_block_of(int band, int &p, int &q)
{
    if (band) {
        const int rows = gridDim.x / band;
        p = blockIdx.x % rows, q = blockIdx.x / rows;
        return p >= q;
    }
    const int b = blockIdx.x;
    p = (int)((sqrtf(8.0f * b + 1.0f) - 1.0f) * 0.5f);
    while ((p + 1) * (p + 2) / 2 <= b) p++; /* float rounding, either way */
    while (p * (p + 1) / 2 > b) p--;
    q = b - p * (p + 1) / 2;
    return true;
}

/* Two blocks per SM (at most 128 registers a thread), so one block's loads and stores overlap the
 * other's products; the slices need dynamic shared memory (2 x 2 x BM x 36 floats: 72 KiB at BM = 128). */
constexpr int TC_MIN_BLOCKS = 2;

template <int BM> constexpr size_t tc_shared_bytes() { return (size_t)2 * 2 * BM * TC_LDS * sizeof(float); }

/* PASSES = 3: 3xTF32, fp32-accurate (GRID_TF32X3). PASSES = 1: one TF32 product a_hi b_hi (GRID_TF32,
 * the `high` precision a user may ask for): the operands rounded to TF32, the sums in fp32. */
template <int BM, int KT, int PASSES = 3> __global__ void __launch_bounds__(TC_THREADS, TC_MIN_BLOCKS)
    update_tf32x3_kernel(float *A, size_t ld, size_t stride, int N, int kcol, int origin, int band)
{
    A += blockIdx.y * stride;
    constexpr int WM = BM / 2, WN = BM / 4;    /* a warp's piece */
    constexpr int MT = WM / 16, NT = WN / 8;   /* its tensor-core tiles */
    constexpr int V = TC_BK / 4;               /* float4 per row of a slice */
    constexpr int LOADS = V * BM / TC_THREADS; /* float4 per thread per operand per slice */
    static_assert(BM == 64 || BM == 128, "update blocks are 64 or 128");
    static_assert(KT % TC_BK == 0 && LOADS >= 1 && NT % 2 == 0, "whole slices; B fragments come two tiles at a time");
    static_assert(PASSES == 3 || PASSES == 1, "3xTF32 or one TF32 product");
    extern __shared__ __align__(16) float tc_shared[];
    float(*As)[BM][TC_LDS] = reinterpret_cast<float(*)[BM][TC_LDS]>(tc_shared); /* [2][BM][TC_LDS] */
    float(*Bs)[BM][TC_LDS] = reinterpret_cast<float(*)[BM][TC_LDS]>(tc_shared + 2 * BM * TC_LDS);

    int p, q;
    if (!update_block_of(band, p, q)) return;
    const int i0 = origin + p * BM, j0 = origin + q * BM;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int wm0 = (warp / 4) * WM, wn0 = (warp % 4) * WN;
    /* This lane's row and word in the four matrices of an ldmatrix (see ldmatrix_x4): for A,
     * matrices (rows +0/+8) x (words +0/+4); for B, (words +0/+4) x (rows +0/+8). */
    const int mat = lane / 8, a_row = lane % 8 + 8 * (mat & 1), a_col = 4 * (mat >> 1);
    const int b_row = lane % 8 + 8 * (mat >> 1), b_col = 4 * (mat & 1);

    /* Slice s (columns kcol + 32 s ..) of both panel blocks. A row past the matrix (a block
     * sticking out) reads the last row instead: row i of the panel only reaches row i of C (and
     * column j only column j), and those are never stored. */
    auto load_slice = [&](int s, int buf) {
#pragma unroll
        for (int l = 0; l < LOADS; l++) {
            const int f = tid + l * TC_THREADS, row = f / V, c = (f % V) * 4, col = kcol + s * TC_BK + c;
            const int ra = min(i0 + row, N - 1), rb = min(j0 + row, N - 1);
            cp_async16(&As[buf][row][c], A + (size_t)ra * ld + col);
            cp_async16(&Bs[buf][row][c], A + (size_t)rb * ld + col);
        }
        cp_async_commit();
    };

    /* The block of C is read only at the end: ask for it now, so it comes from the L2 then and not
     * from DRAM (BM rows of BM floats: BM / 32 lines of 128 bytes a row, a few per thread). Only
     * where the main loop is long enough to pay for it (K >= 256: the quads' rounds of four and
     * eight panels; 16384 47.6 -> 42.8 ms when it came in). With K = 64 and 128 the early requests
     * got in the way of the chain's kernels beside the update (H100, same run, tf32x3: 4096
     * look-ahead 1.391-1.392 -> 1.372-1.373 ms, 8192 quads in rounds of 2 and 1 5.24-5.25 ->
     * 5.13-5.14). */
    if constexpr (KT >= 256) {
        for (int line = tid; line < BM * (BM / 32); line += TC_THREADS) {
            const int row = line / (BM / 32), col = (line % (BM / 32)) * 32;
            if (i0 + row < N && j0 + col < N)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(A + (size_t)(i0 + row) * ld + j0 + col));
        }
    }

    float acc[MT][NT][4];
#pragma unroll
    for (int m = 0; m < MT; m++)
#pragma unroll
        for (int n = 0; n < NT; n++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[m][n][e] = 0.0f;

    constexpr int SLICES = KT / TC_BK;
    load_slice(0, 0);
#pragma unroll 1
    for (int s = 0; s < SLICES; s++) {
        const int buf = s & 1;
        if (s + 1 < SLICES) { /* the next slice flies while this one is used */
            load_slice(s + 1, buf ^ 1);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads(); /* every thread's copies of slice s have landed */
#pragma unroll
        for (int k8 = 0; k8 < TC_BK; k8 += 8) {
            uint32_t bhi[NT][2], blo[NT][2];
#pragma unroll
            for (int n = 0; n < NT; n += 2) { /* B fragments of tiles n and n+1 */
                uint32_t r[4];
                ldmatrix_x4(r, &Bs[buf][wn0 + n * 8 + b_row][k8 + b_col]);
#pragma unroll
                for (int e = 0; e < 4; e++)
                    split_tf32(__uint_as_float(r[e]), bhi[n + e / 2][e % 2], blo[n + e / 2][e % 2]);
            }
#pragma unroll
            for (int m = 0; m < MT; m++) {
                uint32_t r[4], ahi[4], alo[4];
                ldmatrix_x4(r, &As[buf][wm0 + m * 16 + a_row][k8 + a_col]);
#pragma unroll
                for (int e = 0; e < 4; e++) split_tf32(__uint_as_float(r[e]), ahi[e], alo[e]);
#pragma unroll
                for (int n = 0; n < NT; n++) { /* the small terms first, then the large one */
                    if constexpr (PASSES == 3) {
                        mma_tf32(acc[m][n], alo, bhi[n]);
                        mma_tf32(acc[m][n], ahi, blo[n]);
                    }
                    mma_tf32(acc[m][n], ahi, bhi[n]);
                }
            }
        }
        __syncthreads(); /* everyone is done with buf before it is refilled */
    }

    /* C -= acc. The accumulator of tile (m, n) holds rows g and g+8, columns 2t and 2t+1. A block
     * on the diagonal keeps only its lower part (as update_task_kernel). Loads first, then stores
     * (why: the epilogue of update_task_kernel), one row of tiles at a time: with half the tiles
     * at a time the kernel spilled 36 bytes (at the 128 registers of two blocks per SM), with one
     * row 16, and n = 8192 (pairs) went from 5.59 to 5.52 ms, 16384 (pairs) from 32.9 to 31.4 ms. */
    const bool diagonal = i0 == j0;
#pragma unroll
    for (int m = 0; m < MT; m++) {
        float2 cv[NT][2];
#pragma unroll
        for (int n = 0; n < NT; n++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int row = wm0 + m * 16 + g + 8 * h, col = wn0 + n * 8 + 2 * t;
                if (i0 + row >= N || j0 + col >= N || (diagonal && col > row)) continue;
                cv[n][h] = *reinterpret_cast<const float2 *>(A + (size_t)(i0 + row) * ld + j0 + col);
            }
#pragma unroll
        for (int n = 0; n < NT; n++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int row = wm0 + m * 16 + g + 8 * h, col = wn0 + n * 8 + 2 * t;
                if (i0 + row >= N || j0 + col >= N || (diagonal && col > row)) continue;
                float2 *cp = reinterpret_cast<float2 *>(A + (size_t)(i0 + row) * ld + j0 + col);
                float2 c = cv[n][h];
                c.x -= acc[m][n][2 * h];
                c.y -= acc[m][n][2 * h + 1];
                if (!diagonal || col + 1 <= row) *cp = c;
                else cp->x = c.x; /* col = row: the diagonal element only */
            }
    }
}
