/* grid_wgmma.cuh - the UPDATE task on Hopper's warpgroup MMA (wgmma, sm_90a), 3xTF32 as in
 * grid_tf32x3.cuh: the same block of C -= L_ik L_jk^T, the same numbering, masking and epilogue.
 *
 * Why: mma.sync (grid_tf32x3.cuh) is issued by each warp from registers, 16 x 8 x 8 at a time; the
 * operands go shared -> registers (ldmatrix) -> split -> tensor core, and the warp waits on each
 * product before it issues the next. On Hopper a WARPGROUP (4 warps, 128 threads) issues one
 * wgmma.mma_async of 64 x 128 x 8 that reads both operands straight from shared memory through a
 * 64-bit descriptor (address, stride, swizzle), and runs while the warps do other work; the warps
 * only wait (wgmma.wait_group) when they need the sums.
 *
 *   global --cp.async--> raw slice (fp32, 128 x 32 of each panel block)
 *          --split, each thread 8 x 16 bytes--> A_hi, A_lo, B_hi, B_lo (TF32, 128-byte swizzle)
 *          --wgmma x 12 (3 products x 4 k-steps of 8) per warpgroup--> 64 x 128 sums in registers
 *   the next slice's cp.async flies while the products run.
 *
 * The swizzle: a row of a tile is 32 TF32 = 128 bytes, eight 16-byte chunks; chunk c of row r is
 * stored at chunk c ^ (r % 8), so the 8 rows a k-step reads hit 8 different bank groups. The
 * descriptor says so (layout 1: 128-byte swizzle; 1024 bytes from one 8-row group to the next).
 * Status: right (the stage 03 suites pass with it in the path, the same accuracy to the digit) but
 * slower than mma.sync so far (H100: 16384 31.2 against 27.7 ms; LIMITS.md says why and what next),
 * so it runs only when asked for: GRID_WGMMA=1 on a GPU of compute capability 9.0.
 * Included by grid_tasks.cu only.
 * Alone: make build/03_left_right_top/cholesky_one && GRID_WGMMA=1 build/03_left_right_top/cholesky_one --n 8192 --math tf32x3 */
#include <stdint.h>

/* wgmma exists on sm_90a only (the arch-specific target of the H100 and H200): built for anything
 * else the kernel is a trap, and grid_wgmma_available (grid_tasks.cu) never picks it there. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_SUPPORTED 1
#else
#define WG_SUPPORTED 0
#endif

constexpr int WG_THREADS = 256;                /* two warpgroups: rows 0..63 and 64..127 of the block */
constexpr int WG_BK = 32;                      /* K per slice: one 128-byte row per tile row */
constexpr int WG_RAW_LD = WG_BK + 4;           /* the raw slice's row, padded */
constexpr int WG_TILE_BYTES = 128 * WG_BK * 4; /* one operand tile: 16 KiB */
/* Two sets of four operand tiles (1024-byte aligned, as the swizzle wants), two raw blocks, and the
 * slack to align: 165 KiB, one block per SM. */
constexpr int WG_SET_BYTES = 4 * WG_TILE_BYTES;
constexpr size_t wg_shared_bytes() { return 2 * WG_SET_BYTES + 2 * 128 * WG_RAW_LD * 4 + 1024; }

/* Byte offset of element (r, k) of a 128 x 32 TF32 tile in the 128-byte swizzle. */
__device__ __forceinline__ uint32_t wg_swizzle(int r, int k)
{
    return (uint32_t)(r * 128 + (((k >> 2) ^ (r & 7)) << 4) + (k & 3) * 4);
}

/* The shared-memory matrix descriptor of a K-major tile at shared address `addr`: start address,
 * leading byte offset (unused by a swizzled K-major operand: 1), stride byte offset (1024: eight
 * rows of 128 bytes), layout 1 = 128-byte swizzle (bits 62-63). */
__device__ __forceinline__ uint64_t wg_descriptor(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}

/* acc (64 x 128 of the warpgroup, 64 floats a thread) += A B^T for one k-step of 8. */
__device__ __forceinline__ void wg_mma(float (&d)[64], uint64_t a, uint64_t b)
{
#if WG_SUPPORTED
    asm volatile("{\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "%64, %65, 1, 1, 1;\n"
                 "}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                   "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                   "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                   "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                   "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b));
#else
    (void)d;
    (void)a;
    (void)b;
    __trap();
#endif
}

/* Keeps the compiler from moving the accumulators across the asynchronous products. */
__device__ __forceinline__ void wg_fence_operands(float (&d)[64])
{
#pragma unroll
    for (int e = 0; e < 64; e++) asm volatile("" : "+f"(d[e])::"memory");
}

__device__ __forceinline__ void wg_arrive()
{
#if WG_SUPPORTED
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void wg_commit()
{
#if WG_SUPPORTED
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
/* Wait until at most PENDING groups of this warpgroup's products are still running. */
template <int PENDING> __device__ __forceinline__ void wg_wait()
{
#if WG_SUPPORTED
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
#endif
}
/* Shared memory written by the threads (the generic proxy), next read by wgmma (the async proxy). */
__device__ __forceinline__ void wg_fence_shared()
{
#if WG_SUPPORTED
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

template <int BM, int KT> __global__ void __launch_bounds__(WG_THREADS, 1)
    update_wgmma_kernel(float *A, size_t ld, size_t stride, int N, int kcol, int origin, int column_only)
{
    static_assert(BM == 128, "the warpgroup kernel computes blocks of 128 x 128");
    static_assert(KT % WG_BK == 0, "whole slices");
    A += blockIdx.y * stride;
    extern __shared__ __align__(16) unsigned char wg_shared_raw[];
    /* The operand tiles 1024-byte aligned in the shared window (the swizzle repeats every 1024 bytes). */
    const uint32_t raw_addr = (uint32_t)__cvta_generic_to_shared(wg_shared_raw);
    unsigned char *base = wg_shared_raw + ((1024 - (raw_addr & 1023)) & 1023);
    const uint32_t base_addr = (uint32_t)__cvta_generic_to_shared(base);
    float(*raw)[128][WG_RAW_LD] = reinterpret_cast<float(*)[128][WG_RAW_LD]>(base + 2 * WG_SET_BYTES); /* [2] */

    int p = blockIdx.x, q = 0;
    if (!column_only) { /* the lower triangle, row by row (see update_task_kernel) */
        const int b = blockIdx.x;
        p = (int)((sqrtf(8.0f * b + 1.0f) - 1.0f) * 0.5f);
        while ((p + 1) * (p + 2) / 2 <= b) p++;
        while (p * (p + 1) / 2 > b) p--;
        q = b - p * (p + 1) / 2;
    }
    const int i0 = origin + p * BM, j0 = origin + q * BM;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t = lane % 4;

    /* Slice s of both panel blocks into the raw buffer (a row past the matrix reads the last row:
     * see update_tf32x3_kernel). */
    auto load_raw = [&](int s) {
#pragma unroll
        for (int l = 0; l < 128 * (WG_BK / 4) / WG_THREADS; l++) {
            const int f = tid + l * WG_THREADS, row = f / (WG_BK / 4), c = (f % (WG_BK / 4)) * 4,
                      col = kcol + s * WG_BK + c;
            cp_async16(&raw[0][row][c], A + (size_t)min(i0 + row, N - 1) * ld + col);
            cp_async16(&raw[1][row][c], A + (size_t)min(j0 + row, N - 1) * ld + col);
        }
        cp_async_commit();
    };
    /* The raw slice split into the four swizzled TF32 tiles of set `set`: A_hi, A_lo, B_hi, B_lo. */
    auto split_raw = [&](int set) {
#pragma unroll
        for (int l = 0; l < 2 * 128 * (WG_BK / 4) / WG_THREADS; l++) {
            const int f = tid + l * WG_THREADS, op = f / (128 * WG_BK / 4), r = (f / (WG_BK / 4)) % 128,
                      c = (f % (WG_BK / 4)) * 4;
            const float4 x = *reinterpret_cast<const float4 *>(&raw[op][r][c]);
            uint4 hi, lo;
            split_tf32(x.x, hi.x, lo.x);
            split_tf32(x.y, hi.y, lo.y);
            split_tf32(x.z, hi.z, lo.z);
            split_tf32(x.w, hi.w, lo.w);
            const uint32_t at = wg_swizzle(r, c);
            unsigned char *tiles = base + set * WG_SET_BYTES;
            *reinterpret_cast<uint4 *>(tiles + (2 * op) * WG_TILE_BYTES + at) = hi;
            *reinterpret_cast<uint4 *>(tiles + (2 * op + 1) * WG_TILE_BYTES + at) = lo;
        }
    };

    if constexpr (KT >= 256) { /* C from the L2 at the end (see update_tf32x3_kernel) */
        for (int line = tid; line < BM * (BM / 32); line += WG_THREADS) {
            const int row = line / (BM / 32), col = (line % (BM / 32)) * 32;
            if (i0 + row < N && j0 + col < N)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(A + (size_t)(i0 + row) * ld + j0 + col));
        }
    }

    float acc[64];
#pragma unroll
    for (int e = 0; e < 64; e++) acc[e] = 0.0f;
    /* This warpgroup's 64 rows of A; all 128 rows of B. k-step kk starts 32 kk bytes into a row
     * (+2 in the descriptor's address, counted in 16 bytes); set 1 is WG_SET_BYTES further. */
    const uint64_t a_hi = wg_descriptor(base_addr + 0 * WG_TILE_BYTES + wg * 64 * 128),
                   a_lo = wg_descriptor(base_addr + 1 * WG_TILE_BYTES + wg * 64 * 128),
                   b_hi = wg_descriptor(base_addr + 2 * WG_TILE_BYTES),
                   b_lo = wg_descriptor(base_addr + 3 * WG_TILE_BYTES);
    auto products = [&](int set) {
        const uint64_t at = (uint64_t)(set * WG_SET_BYTES) >> 4;
        wg_fence_operands(acc);
        wg_arrive();
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; kk++) { /* the small terms first, then the large one */
            wg_mma(acc, a_lo + at + 2 * kk, b_hi + at + 2 * kk);
            wg_mma(acc, a_hi + at + 2 * kk, b_lo + at + 2 * kk);
            wg_mma(acc, a_hi + at + 2 * kk, b_hi + at + 2 * kk);
        }
        wg_commit();
        wg_fence_operands(acc);
    };

    /* The pipeline: while the products of slice s run (asynchronously, on set s % 2), slice s + 1
     * is split into the other set and slice s + 2 flies in. Before set s % 2 is written again, the
     * products that read it (slice s - 2) have finished: wg_wait<1> after each issue. */
    constexpr int SLICES = KT / WG_BK;
    load_raw(0);
#pragma unroll 1
    for (int s = 0; s < SLICES; s++) {
        cp_async_wait<0>();
        __syncthreads(); /* slice s has landed; set s % 2 is free (every warpgroup waited for it) */
        split_raw(s & 1);
        wg_fence_shared();
        __syncthreads(); /* set s % 2 is written; the raw buffer is free */
        if (s + 1 < SLICES) load_raw(s + 1);
        products(s & 1);
        wg_wait<1>(); /* slice s - 1's products are done: its set may be written next */
    }
    wg_wait<0>();
    wg_fence_operands(acc);

    /* C -= acc. The warpgroup's accumulator: warp w holds rows 16 w + g and + 8, and for each
     * 8-column block nb the columns 8 nb + 2 t, + 1: acc[4 nb + 2 h + e] (the mma.sync C layout
     * repeated along N). A block on the diagonal keeps only its lower part. */
    const bool diagonal = i0 == j0;
#pragma unroll
    for (int nb = 0; nb < 16; nb++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int row = wg * 64 + warp * 16 + g + 8 * h, col = nb * 8 + 2 * t;
            if (i0 + row >= N || j0 + col >= N || (diagonal && col > row)) continue;
            float2 *cp = reinterpret_cast<float2 *>(A + (size_t)(i0 + row) * ld + j0 + col);
            float2 c = *cp;
            c.x -= acc[4 * nb + 2 * h];
            c.y -= acc[4 * nb + 2 * h + 1];
            if (!diagonal || col + 1 <= row) *cp = c;
            else cp->x = c.x; /* col = row: the diagonal element only */
        }
}
