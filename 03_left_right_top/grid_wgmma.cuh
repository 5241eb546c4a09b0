/* grid_wgmma.cuh - the bulk UPDATE on Hopper's warpgroup MMA (wgmma, sm_90a), 3xTF32 as in
 * grid_tf32x3.cuh: the lower triangle of C -= L_i L_j^T over K = KT columns, fp32-accurate.
 *
 * Why: mma.sync (grid_tf32x3.cuh) is issued by each warp from registers, 16 x 8 x 8 at a time; the
 * operands go shared -> registers (ldmatrix) -> split -> tensor core, and the warp waits on each
 * product before it issues the next. On Hopper a WARPGROUP (4 warps, 128 threads) issues one
 * wgmma.mma_async of 64 x 256 x 8 that reads both operands straight from shared memory through a
 * 64-bit descriptor (address, stride, swizzle), and runs while the warps do other work; the warps
 * only wait (wgmma.wait_group) when they need the sums.
 *
 * Two kernels, on the bulk's stream one after the other:
 *   split_panel_kernel    the panel (rows origin.., KT columns) once into TF32 hi and lo parts, in
 *                         tiles of 128 rows x 16 columns (8 KiB) already in the 64-byte swizzle
 *                         that wgmma reads: a tile goes to shared memory as one block of bytes;
 *   update_wgmma_kernel   one block per 128 x 256 block of C (or 128 x 128, two an SM: NARROW,
 *                         grid_wgmma_narrow): two warpgroups of 64 x 256; per slice
 *                         of 16 columns, thread 0 asks the copy engine (cp.async.bulk, Hopper's
 *                         TMA) for the six tiles (A hi/lo, B hi/lo of 256 rows: 48 KiB) and an
 *                         mbarrier counts their bytes in; each warpgroup issues 6 products
 *                         (3 terms x 2 k-steps of 8) on a stage while the next three slices fly in
 *                         (one pass, GRID_TF32: A hi and B hi, 24 KiB, eight stages, seven in flight).
 * Precision medium (GRID_F16): split_panel_f16_kernel writes the same tiles in fp16, 32 columns a
 * slice, each row scaled by a power of two, and update_wgmma_kernel<..., HALF> multiplies them as
 * the one pass does (k = 16 a product) and takes the scales out of its sums. GRID_F16X3 (fp32-accurate):
 * split_panel_f16_kernel<true> also writes what each fp16 value left out (its lo part, fp16 too), and
 * update_wgmma_kernel<false, false, true> adds the three products of the 3xTF32 form in fp16: the same
 * tiles, 32 columns a slice instead of 16, so half the slices and half the bytes for the same K.
 *
 *   global split --cp.async.bulk--> stage s % 4 --wgmma x 6--> 64 x 256 sums in registers
 *        ^ full[s % 4]: bytes landed          empty[s % 4]: both warpgroups' products done ^
 *   sums --> shared memory --cp.reduce.async.bulk .add--> C (the L2 adds them; the block ends)
 *
 * The swizzle: a row of a tile is 16 TF32 = 64 bytes, four 16-byte chunks; chunk c of row r is
 * stored at chunk c ^ ((r / 2) % 4), so the 8 rows a k-step reads hit 8 different bank groups.
 * The descriptor says so (layout 2: 64-byte swizzle; 512 bytes from one 8-row group to the next).
 * What made it fast (H100, the update of n = 16384 by K = 256 alone, bench_grid; mma.sync 61
 * TFLOP/s in fp32 terms): the split out of the block and two stages of 32 columns, 65 TFLOP/s;
 * four stages of 16 columns, so that three slices fly while one is multiplied, 79; the blocks in
 * bands (wg_block_of), so that the panel tiles of a wave stay in the L2, 100 (and one 32768 x 32768
 * 167 -> 127 ms). The first version split each slice in the block (LIMITS.md): 270 KiB of shared
 * traffic a slice made it slower than mma.sync.
 * Included by grid_tasks.cu only.
 * Alone: make build/03_left_right_top/cholesky_one && build/03_left_right_top/cholesky_one --n 8192 --math tf32x3 */
#include <stdint.h>
#include <cuda_fp16.h>
#include <type_traits>
#include "mbarrier.cuh"

/* wgmma exists on sm_90a only (the arch-specific target of the H100 and H200): built for anything
 * else the kernels are a trap, and grid_wgmma_available (grid_tasks.cu) never picks them there. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_SUPPORTED 1
#else
#define WG_SUPPORTED 0
#endif

constexpr int WG_THREADS = 256;                     /* two warpgroups: rows 0..63 and 64..127 of the block */
constexpr int WG_BM = 128, WG_BN = 256, WG_BK = 16; /* the block of C; K per slice: one 64-byte row */
constexpr int WG_ROW_BYTES = WG_BK * 4;
constexpr int WG_TILE_FLOATS = 128 * WG_BK; /* one swizzled tile of 128 rows: 8 KiB */
constexpr int WG_TILE_BYTES = WG_TILE_FLOATS * 4;
/* A stage: A hi, A lo (128 rows each), B hi, B lo (256 rows each: two tiles back to back). */
constexpr int WG_A_HI = 0, WG_A_LO = WG_TILE_BYTES, WG_B_HI = 2 * WG_TILE_BYTES, WG_B_LO = 4 * WG_TILE_BYTES;
constexpr int WG_STAGE_BYTES = 6 * WG_TILE_BYTES; /* 48 KiB */
constexpr int WG_STAGES = 4;
/* One pass (precision high) loads no lo tiles: a stage is A hi and B hi (24 KiB), and twice as many
 * fit in the same memory, so that seven slices fly while one is multiplied.
 * NARROW: blocks of 128 x 128 (B one row block: a stage of 32 KiB, 16 with one pass) in half the
 * memory, 96 KiB, and at most 128 registers a thread, so that two blocks share an SM: one's sums go
 * out to C (a round trip to memory, since C does not fit the L2) while the other multiplies. */
template <bool ONE_PASS, bool NARROW = false> struct wg_pipe {
    static constexpr int BN = NARROW ? WG_BN / 2 : WG_BN, B_TILES = BN / 128; /* B's row blocks */
    static constexpr int A_HI = 0, A_LO = WG_TILE_BYTES, B_HI = ONE_PASS ? WG_TILE_BYTES : 2 * WG_TILE_BYTES,
                         B_LO = B_HI + B_TILES * WG_TILE_BYTES;
    static constexpr int STAGE_BYTES = (ONE_PASS ? 1 + B_TILES : 2 + 2 * B_TILES) * WG_TILE_BYTES;
    static constexpr int MEMORY = (NARROW ? WG_STAGES / 2 : WG_STAGES) * WG_STAGE_BYTES; /* 192 or 96 KiB */
    static constexpr int STAGES = MEMORY / STAGE_BYTES;                                  /* 4 / 8, narrow 3 / 6 */
    /* The block's sums on their way out, row by row, over the stages (+8: a warp's float2 stores
     * hit every bank once per half warp; the rows stay 16-byte aligned for the copy engine). */
    static constexpr int SUMS_LD = BN + 8;
    static_assert(WG_BM * SUMS_LD * 4 <= MEMORY, "the sums fit in the stages");
    /* The stages (1024-byte aligned, as the swizzle wants), 2 x 8 mbarriers at most, the slack to
     * align: 193 KiB (one block an SM), narrow 97 KiB (two). */
    static constexpr size_t SHARED = (size_t)MEMORY + 128 + 1024;
};
static_assert(wg_pipe<true>::STAGE_BYTES == 3 * WG_TILE_BYTES && wg_pipe<true>::STAGES == 2 * WG_STAGES &&
                  wg_pipe<false>::STAGE_BYTES == WG_STAGE_BYTES && wg_pipe<false>::B_LO == WG_B_LO,
              "the wide blocks' stages as they were");

/* Byte offset of element (r, k) of a 128 x WG_BK TF32 tile in the swizzle of its row length (64 or
 * 128 bytes): the 16-byte chunk k / 4 of row r goes to chunk k / 4 ^ (bits 7.. of the row's address). */
__host__ __device__ __forceinline__ uint32_t wg_swizzle(int r, int k)
{
    constexpr int chunks = WG_ROW_BYTES / 16;
    return (uint32_t)(r * WG_ROW_BYTES + (((k >> 2) ^ ((r * WG_ROW_BYTES >> 7) & (chunks - 1))) << 4) + (k & 3) * 4);
}

/* Two floats as fp16, rounded to nearest, the first in the low half (the lower k). */
__device__ __forceinline__ uint32_t f16_pair(float lo, float hi)
{
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&h);
}

/* The two floats' remainders after their fp16 pair h, as fp16. */
__device__ __forceinline__ uint32_t f16_rest(float a, float b, uint32_t h)
{
    const float2 back = __half22float2(*reinterpret_cast<const __half2 *>(&h));
    return f16_pair(a - back.x, b - back.y);
}

/* The split panel in global memory: tile (slice s, part 0 = hi / 1 = lo, row block rb) of a panel
 * with `blocks` row blocks (even: a B operand takes two). Row blocks 2q and 2q+1 are adjacent. */
__host__ __device__ __forceinline__ size_t wg_tile_index(int s, int part, int rb, int blocks)
{
    return ((size_t)s * 2 + part) * blocks + rb;
}

/* The shared-memory matrix descriptor of a K-major tile at shared address `addr`: start address,
 * leading byte offset (unused by a swizzled K-major operand: 1), stride byte offset (eight rows:
 * 512 bytes), layout (bits 62-63) 2 = 64-byte swizzle (1 = 128-byte, for rows of 32). */
__device__ __forceinline__ uint64_t wg_descriptor(uint32_t addr)
{
    constexpr uint64_t layout = WG_ROW_BYTES == 128 ? 1 : 2; /* 128- or 64-byte swizzle */
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)1 << 16 | (uint64_t)(8 * WG_ROW_BYTES >> 4) << 32 |
           layout << 62;
}

/* The accumulator operands of one product: 128 floats a thread (N = 256) or the first 64 (N = 128),
 * then the two descriptors. */
#define WG_ACC_128                                                                                              \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), \
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), \
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), \
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define WG_ACC_256                                                                                                 \
    WG_ACC_128, "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),         \
        "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),    \
        "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]),    \
        "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]),    \
        "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), \
        "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),          \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),          \
        "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),          \
        "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define WG_D_256                                                                                                   \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "                  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "         \
    "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "         \
    "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "         \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, "         \
    "%100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, " \
    "%118, %119, "                                                                                                 \
    "%120, %121, %122, %123, %124, %125, %126, %127"                                                               \
    "}, %128, %129, "
#define WG_D_128                                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "          \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, " \
    "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, " \
    "%60, %61, %62, %63"                                                                                   \
    "}, %64, %65, "

/* acc += A B^T for one k-step of 32 bytes: 8 TF32 columns, or (HALF) 16 fp16 columns; both operands
 * K-major (the fp16 form's two transpose flags 0). N = 256, the warpgroup's 64 x 256 (128 floats a
 * thread); N = 128, the left 128 columns only (acc[0 .. 63]: the same layout cut at column 128), for
 * a block on the diagonal whose right half lies wholly above it. */
template <int N, bool HALF = false> __device__ __forceinline__ void wg_mma(float (&d)[128], uint64_t a, uint64_t b)
{
    static_assert(N == 256 || N == 128, "the two widths the update uses");
#if WG_SUPPORTED
    if constexpr (N == 256 && !HALF)
        asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " WG_D_256 "1, 1, 1;\n"
                     : WG_ACC_256
                     : "l"(a), "l"(b));
    else if constexpr (N == 256)
        asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " WG_D_256 "1, 1, 1, 0, 0;\n"
                     : WG_ACC_256
                     : "l"(a), "l"(b));
    else if constexpr (!HALF)
        asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " WG_D_128 "1, 1, 1;\n"
                     : WG_ACC_128
                     : "l"(a), "l"(b));
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " WG_D_128 "1, 1, 1, 0, 0;\n"
                     : WG_ACC_128
                     : "l"(a), "l"(b));
#else
    (void)d;
    (void)a;
    (void)b;
    __trap();
#endif
}
#undef WG_ACC_128
#undef WG_ACC_256
#undef WG_D_256
#undef WG_D_128

/* Keeps the compiler from moving the accumulators across the asynchronous products. */
template <int COUNT = 128> __device__ __forceinline__ void wg_fence_operands(float (&d)[128])
{
#pragma unroll
    for (int e = 0; e < COUNT; e++) asm volatile("" : "+f"(d[e])::"memory");
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

/* global[0 .. bytes) += shared[0 .. bytes) as fp32, by the copy engine, in the L2. */
__device__ __forceinline__ void bulk_reduce_add(float *global, uint32_t shared, uint32_t bytes)
{
#if WG_SUPPORTED
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(global),
                 "r"(shared), "r"(bytes)
                 : "memory");
#else
    (void)global;
    (void)shared;
    (void)bytes;
    __trap();
#endif
}
/* This thread's bulk operations have read their shared memory (which ends with the block). */
__device__ __forceinline__ void bulk_commit_wait_read()
{
#if WG_SUPPORTED
    asm volatile("cp.async.bulk.commit_group;\n"
                 "cp.async.bulk.wait_group.read 0;" ::
                     : "memory");
#endif
}
/* Shared memory written by the threads (the generic proxy), next read by the copy engine. */
__device__ __forceinline__ void wg_fence_shared()
{
#if WG_SUPPORTED
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* The panel, columns kcol .. kcol + 32 slices - 1 of rows origin .., into `split`: one block per
 * tile (row block, slice) of `blocks` row blocks; rows past N are zeros. */
template <bool ONE_PASS> __global__ void __launch_bounds__(256)
    split_panel_kernel(const float *A, size_t ld, size_t stride, int N, int kcol, int origin, int blocks, int slices,
                       uint32_t *split, size_t split_stride)
{
    A += blockIdx.y * stride;
    split += blockIdx.y * split_stride;
    const int rb = blockIdx.x % blocks, s = blockIdx.x / blocks;
    uint32_t *hi = split + wg_tile_index(s, 0, rb, blocks) * WG_TILE_FLOATS,
             *lo = split + wg_tile_index(s, 1, rb, blocks) * WG_TILE_FLOATS;
#pragma unroll
    for (int l = 0; l < WG_TILE_FLOATS / 4 / 256; l++) {
        const int f = threadIdx.x + 256 * l, r = f / (WG_BK / 4), c = (f % (WG_BK / 4)) * 4,
                  row = origin + rb * 128 + r;
        const float4 x = row < N ? *reinterpret_cast<const float4 *>(A + (size_t)row * ld + kcol + s * WG_BK + c)
                                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        uint4 h, o;
        split_tf32(x.x, h.x, o.x);
        split_tf32(x.y, h.y, o.y);
        split_tf32(x.z, h.z, o.z);
        split_tf32(x.w, h.w, o.w);
        const uint32_t at = wg_swizzle(r, c) / 4;
        *reinterpret_cast<uint4 *>(hi + at) = h;
        if constexpr (!ONE_PASS) *reinterpret_cast<uint4 *>(lo + at) = o; /* one pass (GRID_TF32): hi only */
    }
}

/* Precision medium (GRID_F16): the panel in fp16, 32 columns a slice (a tile row is 64 bytes, as a
 * TF32 slice's 16 columns: the same tiles, swizzle and descriptors), each row scaled by a power of two
 * that brings its largest entry over the K columns to [2^14, 2^15): fp16 keeps 11 significant bits
 * as TF32 does, but its range (6e-5 .. 65504, subnormals to 6e-8) would lose rows of gpu-mode's
 * row-scaled matrices. Both operands' scales come out of the products exactly (powers of two): the
 * update multiplies each sum by 2^-e_i 2^-e_j, the inverses stored after the tiles
 * (wg_f16_inverses). One block per 64 rows: it reads them twice (the largest entry, then the
 * tiles). Rows past N: zeros, inverse 1. Zero, infinite or NaN rows keep scale 1. LO (GRID_F16X3):
 * the lo tiles too, x - hi rounded to fp16: 22 significant bits in all, as 3xTF32's two parts, for
 * every entry above 2^-17 of its row's largest (below, fp16's subnormals keep it to 2^-40 of that
 * largest: fp32-accurate normwise, not entry by entry). */
constexpr int WG_BK_F16 = 2 * WG_BK; /* fp16 columns a slice */
__host__ __device__ __forceinline__ size_t wg_f16_inverses(int slices, int blocks)
{
    return wg_tile_index(slices, 0, 0, blocks) * WG_TILE_FLOATS; /* floats from the split's start */
}
template <bool LO = false> __global__ void __launch_bounds__(256)
    split_panel_f16_kernel(const float *A, size_t ld, size_t stride, int N, int kcol, int origin, int blocks,
                           int slices, uint32_t *split, size_t split_stride)
{
    A += blockIdx.y * stride;
    split += blockIdx.y * split_stride;
    /* Block x: rows 64 (x % 2) .. + 63 of row block x / 2 (twice the blocks of whole tiles: at n = 8192
     * a round's 64 row blocks would leave half the SMs idle). */
    const int rb = blockIdx.x / 2, r0 = 64 * (blockIdx.x % 2), K = slices * WG_BK_F16;
    float *inverse = reinterpret_cast<float *>(split + wg_f16_inverses(slices, blocks)) + rb * 128;
    __shared__ float scale[64];
    /* The largest magnitude of each row: 8 threads a row (128 contiguous bytes a step), 32 rows a pass. */
#pragma unroll
    for (int pass = 0; pass < 2; pass++) {
        const int r = r0 + 32 * pass + threadIdx.x / 8, row = origin + rb * 128 + r;
        float m = 0.0f;
        if (row < N) {
            const float *src = A + (size_t)row * ld + kcol;
#pragma unroll 4
            for (int c = 4 * (threadIdx.x % 8); c < K; c += 32) {
                const float4 x = *reinterpret_cast<const float4 *>(src + c);
                m = fmaxf(m, fmaxf(fmaxf(fabsf(x.x), fabsf(x.y)), fmaxf(fabsf(x.z), fabsf(x.w))));
            }
        }
        for (int o = 4; o; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        int e = 0;
        if (m > 0.0f && m <= 3.0e38f) (void)frexpf(m, &e); /* m < 2^e */
        const int shift = max(-100, min(100, 15 - e));     /* m 2^shift < 2^15 */
        if (threadIdx.x % 8 == 0) {
            scale[r - r0] = ldexpf(1.0f, shift);
            inverse[r] = ldexpf(1.0f, -shift);
        }
    }
    __syncthreads();
    /* The tiles: a thread one 16-byte chunk (8 fp16) of one row per slice. */
    const int r = r0 + threadIdx.x / 4, c = threadIdx.x % 4, row = origin + rb * 128 + r;
    const float k = scale[r - r0];
    const float *src = A + (size_t)row * ld + kcol + 8 * c;
#pragma unroll 4
    for (int s = 0; s < slices; s++) {
        float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f), y = x;
        if (row < N) {
            x = *reinterpret_cast<const float4 *>(src + s * WG_BK_F16);
            y = *reinterpret_cast<const float4 *>(src + s * WG_BK_F16 + 4);
        }
        x = make_float4(x.x * k, x.y * k, x.z * k, x.w * k);
        y = make_float4(y.x * k, y.y * k, y.z * k, y.w * k);
        const uint4 h = make_uint4(f16_pair(x.x, x.y), f16_pair(x.z, x.w), f16_pair(y.x, y.y), f16_pair(y.z, y.w));
        *reinterpret_cast<uint4 *>(split + wg_tile_index(s, 0, rb, blocks) * WG_TILE_FLOATS +
                                   wg_swizzle(r, 4 * c) / 4) = h; /* chunk c of row r: 16 bytes */
        if constexpr (LO) {                                       /* what the hi part left out, in fp16 too */
            const uint4 o = make_uint4(f16_rest(x.x, x.y, h.x), f16_rest(x.z, x.w, h.y), f16_rest(y.x, y.y, h.z),
                                       f16_rest(y.z, y.w, h.w));
            *reinterpret_cast<uint4 *>(split + wg_tile_index(s, 1, rb, blocks) * WG_TILE_FLOATS +
                                       wg_swizzle(r, 4 * c) / 4) = o;
        }
    }
}

/* Block x of the triangle of `rows` row blocks of 128, where row block p has p / 2 + 1 blocks of 256
 * columns (j0 <= i0), in bands of WG_BAND row blocks and column by column inside a band: the blocks
 * that run at the same time then read a few panel tiles, which stay in the L2 (row by row, the
 * blocks of one wave read B tiles from the whole panel: 128 MiB at n = 32768, K = 512).
 * The rows before row block P (P even) hold (P/2)(P/2 + 1) blocks. */
constexpr int WG_BAND = 16;
#ifndef WG_LEFT_ONLY
#define WG_LEFT_ONLY 1
#endif
__host__ __device__ inline void wg_block_of(int x, int rows, int &p, int &q)
{
    constexpr int H = WG_BAND / 2;
    int m = (int)((sqrtf(4.0f * x + 1.0f) - 1.0f) * 0.5f); /* the largest m with m (m + 1) <= x */
    while ((m + 1) * (m + 2) <= x) m++;
    while (m * (m + 1) > x) m--;
    const int band = m / H, p0 = band * WG_BAND, p1 = min(p0 + WG_BAND, rows) - 1, height = p1 - p0 + 1;
    int y = x - band * H * (band * H + 1);
    const int full = p0 / 2 + 1; /* columns 0 .. p0 / 2 run down the whole band */
    if (y < full * height) {
        q = y / height;
        p = p0 + y % height;
        return;
    }
    y -= full * height;
    for (q = full;; q++) { /* then column q down rows 2q .. p1 */
        const int count = p1 - 2 * q + 1;
        if (y < count) break;
        y -= count;
    }
    p = 2 * q + y;
}

/* C (rows and columns origin ..) -= the panel's product, from the split panel (`blocks` row blocks
 * of 128, `slices` slices of WG_BK; row block rb0 of the split is C's row `origin`: the split may
 * start higher, as one made for the band serves the triangle below it), `rows` row blocks of C, in
 * blocks of 128 x 256. band = 0: the lower triangle (wg_block_of); band > 0: that many block
 * columns of 256 from origin, down to the last row (the next round's columns: block x is row block
 * x % rows of block column x / rows; those wholly above the diagonal leave at once). Entries above
 * the diagonal are computed and not stored. */
template <bool ONE_PASS, bool NARROW, bool HALF = false> __global__ void __launch_bounds__(WG_THREADS, NARROW ? 2 : 1)
    update_wgmma_kernel(float *A, size_t ld, size_t stride, int N, int origin, int rows, int blocks, int slices,
                        const uint32_t *split, size_t split_stride, int rb0, int band)
{
    A += blockIdx.y * stride;
    split += blockIdx.y * split_stride;
    extern __shared__ __align__(16) unsigned char wg_shared_raw[];
    const uint32_t raw_addr = (uint32_t)__cvta_generic_to_shared(wg_shared_raw);
    const uint32_t base = raw_addr + ((1024 - (raw_addr & 1023)) & 1023); /* the stages, 1024-aligned */
    typedef wg_pipe<ONE_PASS, NARROW> P;
    const uint32_t full = base + P::STAGES * P::STAGE_BYTES, empty = full + 8 * P::STAGES; /* mbarriers */

    /* NARROW: blocks 2x and 2x + 1 are the left and right halves of the 128 x 256 block x. */
    const int x = NARROW ? blockIdx.x / 2 : blockIdx.x, half = NARROW ? blockIdx.x % 2 : 0;
    int p, q;
    if (band) {
        p = x % rows, q = x / rows;
        if (2 * q > p) return; /* columns 256 q .. wholly right of rows 128 p .. 128 p + 127 */
    } else {
        wg_block_of(x, rows, p, q);
    }
    if (half && 2 * q == p) return; /* the right half of a block on the diagonal: wholly above it */
    const int i0 = origin + p * WG_BM, j0 = origin + q * WG_BN + half * P::BN;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t = lane % 4;

    /* Thread 0 fills stage s % 4 with slice s: A's row block p, B's row blocks 2q and 2q+1 (of C;
     * rb0 more in the split). */
    const int ra = rb0 + p, rb = rb0 + 2 * q + half;
    /* Block columns 256 q .. on row blocks 2q: the right half lies wholly above the diagonal, so
     * only the left 128 columns are computed (half the products; B's first row block only). */
    const bool left_only = !NARROW && WG_LEFT_ONLY && 2 * q == p;
    const uint32_t b_bytes = left_only || NARROW ? WG_TILE_BYTES : 2 * WG_TILE_BYTES;
    auto load = [&](int s) {
        const uint32_t stage = base + (s % P::STAGES) * P::STAGE_BYTES, bar = full + 8 * (s % P::STAGES);
        mbar_arrive_expect(bar, ONE_PASS ? WG_TILE_BYTES + b_bytes : 2 * WG_TILE_BYTES + 2 * b_bytes);
        bulk_copy(stage + P::A_HI, split + wg_tile_index(s, 0, ra, blocks) * WG_TILE_FLOATS, WG_TILE_BYTES, bar);
        if (!ONE_PASS)
            bulk_copy(stage + P::A_LO, split + wg_tile_index(s, 1, ra, blocks) * WG_TILE_FLOATS, WG_TILE_BYTES, bar);
        bulk_copy(stage + P::B_HI, split + wg_tile_index(s, 0, rb, blocks) * WG_TILE_FLOATS, b_bytes, bar);
        if (!ONE_PASS)
            bulk_copy(stage + P::B_LO, split + wg_tile_index(s, 1, rb, blocks) * WG_TILE_FLOATS, b_bytes, bar);
    };
    if (tid == 0) {
        for (int st = 0; st < P::STAGES; st++) {
            mbar_init(full + 8 * st, 1);
            mbar_init(empty + 8 * st, 2); /* one arrival per warpgroup */
        }
        mbar_init_fence();
        for (int s = 0; s < P::STAGES && s < slices; s++) load(s);
    }
    __syncthreads(); /* the mbarriers are set up before anyone waits on them */

    float acc[128];
#pragma unroll
    for (int e = 0; e < 128; e++) acc[e] = 0.0f;
    /* This warpgroup's 64 rows of A; all 256 rows of B. k-step kk starts 32 kk bytes into a row
     * (+2 in the descriptor's address, counted in 16 bytes); stage 1 is P::STAGE_BYTES further. */
    const uint64_t a_hi = wg_descriptor(base + P::A_HI + wg * 64 * WG_ROW_BYTES),
                   a_lo = wg_descriptor(base + P::A_LO + wg * 64 * WG_ROW_BYTES), b_hi = wg_descriptor(base + P::B_HI),
                   b_lo = wg_descriptor(base + P::B_LO);

    /* The slices, with the left half's products or all of them (two copies of the loop: a branch
     * inside it made the compiler add warpgroup fences around the products). */
    auto slices_loop = [&](auto left) {
#pragma unroll 1
        for (int s = 0; s < slices; s++) {
            const int st = s % P::STAGES;
            mbar_wait(full + 8 * st, (s / P::STAGES) & 1); /* slice s has landed */
            const uint64_t at = (uint64_t)(st * P::STAGE_BYTES) >> 4;
            constexpr int used = decltype(left)::value ? 64 : 128; /* the accumulators the products write */
            wg_fence_operands<used>(acc);
            wg_arrive();
#pragma unroll
            for (int kk = 0; kk < WG_BK / 8; kk++) { /* the small terms first, then the large one */
                constexpr int width = decltype(left)::value ? 128 : 256;
                if constexpr (!ONE_PASS) {
                    wg_mma<width, HALF>(acc, a_lo + at + 2 * kk, b_hi + at + 2 * kk);
                    wg_mma<width, HALF>(acc, a_hi + at + 2 * kk, b_lo + at + 2 * kk);
                }
                wg_mma<width, HALF>(acc, a_hi + at + 2 * kk, b_hi + at + 2 * kk);
            }
            wg_commit();
            wg_fence_operands<used>(acc);
            wg_wait<1>(); /* slice s - 1's products are done: its stage may be filled again */
            if (s >= 1) {
                const int done = (s - 1) % P::STAGES;
                if (tid % 128 == 0) mbar_arrive(empty + 8 * done);
                if (tid == 0 && s - 1 + P::STAGES < slices) {
                    mbar_wait(empty + 8 * done, ((s - 1) / P::STAGES) & 1); /* and the other warpgroup's */
                    load(s - 1 + P::STAGES);
                }
                __syncwarp();
            }
        }
    };
    if (NARROW || left_only) slices_loop(std::true_type()); /* narrow: B's one row block, as the left half */
    else slices_loop(std::false_type());
    wg_wait<0>();
    wg_fence_operands<NARROW ? 64 : 128>(acc);
    /* The sums overwrite the stages: the other warpgroup may still be multiplying its last slices. */
    __syncthreads();

    /* C -= acc, by the copy engine: the sums go to shared memory (both warpgroups are done with the stages), and
     * one bulk reduction per row adds them into C in the L2 (cp.reduce.async.bulk .add.f32: the
     * same rounding as c - acc). The block then ends without waiting for C: the next block's
     * products start while the L2 does the additions (in place of loads and stores of C by the
     * threads; measured level when it came in, with the two-stage pipeline). No early L2 prefetch of
     * C as in update_tf32x3_kernel: without it one 32768 x 32768 took 123.7 ms, with it 125.0 (H100,
     * same run). The accumulator: warp w holds rows 16 w + g and + 8, and for each 8-column block
     * nb the columns 8 nb + 2 t, + 1: acc[4 nb + 2 h + e] (the mma.sync C layout repeated along N). */
    float *sums = reinterpret_cast<float *>(wg_shared_raw + (base - raw_addr)); /* [128][P::SUMS_LD] */
    /* fp16: the rows' and columns' scales out again (1 otherwise). */
    const float *inverse = HALF ? reinterpret_cast<const float *>(split + wg_f16_inverses(slices, blocks)) : nullptr;
    float row_inverse[2] = {1.0f, 1.0f};
    if constexpr (HALF)
        for (int h = 0; h < 2; h++) row_inverse[h] = inverse[ra * 128 + wg * 64 + warp * 16 + g + 8 * h];
#pragma unroll
    for (int nb = 0; nb < P::BN / 8; nb++) {
        float2 col_inverse = make_float2(1.0f, 1.0f);
        if constexpr (HALF) col_inverse = *reinterpret_cast<const float2 *>(inverse + rb * 128 + nb * 8 + 2 * t);
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int row = wg * 64 + warp * 16 + g + 8 * h, col = nb * 8 + 2 * t, above = j0 + col - (i0 + row);
            const float k0 = row_inverse[h] * col_inverse.x, k1 = row_inverse[h] * col_inverse.y;
            *reinterpret_cast<float2 *>(&sums[row * P::SUMS_LD + col]) = /* zeros above the diagonal */
                make_float2(above <= 0 ? -acc[4 * nb + 2 * h] * k0 : 0.0f,
                            above <= -1 ? -acc[4 * nb + 2 * h + 1] * k1 : 0.0f);
        }
    }
    wg_fence_shared(); /* the threads' stores, next read by the copy engine */
    __syncthreads();
    /* Row tid: only up to its diagonal (rounded up to whole 16 bytes: the few entries above it get
     * + 0, which leaves them as they were), and not past the matrix. */
    if (tid < WG_BM && i0 + tid < N && i0 + tid >= j0) {
        const int last = min(min(i0 + tid - j0 + 1, N - j0), P::BN), count = (last + 3) / 4 * 4;
        bulk_reduce_add(A + (size_t)(i0 + tid) * ld + j0, base + (uint32_t)(tid * P::SUMS_LD * 4), count * 4);
        bulk_commit_wait_read();
    }
}
