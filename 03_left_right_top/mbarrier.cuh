/* mbarrier.cuh - Hopper's copy engine (cp.async.bulk, TMA) and the shared-memory barriers that count
 * its bytes in, for the bulk updates that feed their products from it: grid_wgmma.cuh (fp32, wgmma)
 * and grid_f64.cu (float64, mma.sync). Built for an older GPU the copies are a trap; their callers
 * pick them only on compute capability 9.0 and later.
 * A stage's round trip: one thread announces the bytes (mbar_arrive_expect) and asks for the copy
 * (bulk_copy, tensor_copy_3d); the consumers wait for the phase (mbar_wait on `full`), read, and
 * arrive on `empty`; the producer waits for that phase before it asks for the stage's next copy.
 * Alone: make build/03_left_right_top/test_grid && build/03_left_right_top/test_grid */
#ifndef MBARRIER_CUH
#define MBARRIER_CUH
#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MBAR_SUPPORTED 1
#else
#define MBAR_SUPPORTED 0
#endif

/* The mbarriers (shared-memory counters with a phase bit): `count` arrivals, plus the bytes that
 * an arrival announced (expect_tx) and the copy engine counted in, complete a phase. */
__device__ __forceinline__ void mbar_init(uint32_t bar, int count)
{
#if MBAR_SUPPORTED
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#endif
}
__device__ __forceinline__ void mbar_init_fence()
{
#if MBAR_SUPPORTED
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
#if MBAR_SUPPORTED
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#endif
}
__device__ __forceinline__ void mbar_arrive_expect(uint32_t bar, uint32_t bytes)
{
#if MBAR_SUPPORTED
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#endif
}
/* Wait for the phase of parity `phase` to complete. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, int phase)
{
#if MBAR_SUPPORTED
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "wait:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait;\n"
                 "}\n" ::"r"(bar),
                 "r"(phase)
                 : "memory");
#endif
}
/* The copy engine moves `bytes` from global to shared and counts them in at `bar`. */
__device__ __forceinline__ void bulk_copy(uint32_t shared, const void *global, uint32_t bytes, uint32_t bar)
{
#if MBAR_SUPPORTED
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(shared),
        "l"(global), "r"(bytes), "r"(bar)
        : "memory");
#else
    (void)shared;
    (void)global;
    (void)bytes;
    (void)bar;
    __trap();
#endif
}

/* The copy engine moves the box at (x, y, z) of a tensor map (cuTensorMapEncodeTiled, in its global
 * memory space as a __grid_constant__ kernel parameter) to shared memory, swizzled as the map says,
 * and counts its bytes in at `bar`; entries past the tensor's ends arrive as zeros. */
__device__ __forceinline__ void tensor_copy_3d(uint32_t shared, const void *map, int x, int y, int z, uint32_t bar)
{
#if MBAR_SUPPORTED
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                 "%3, %4}], [%5];" ::"r"(shared),
                 "l"(map), "r"(x), "r"(y), "r"(z), "r"(bar)
                 : "memory");
#else
    (void)shared;
    (void)map;
    (void)x;
    (void)y;
    (void)z;
    (void)bar;
    __trap();
#endif
}

#endif
