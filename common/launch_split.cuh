/* launch_split.cuh - one kernel over more blocks than one launch may have (and, at the end, the
 * shared-memory opt-in of a kernel that needs more than 48 KiB per block). A grid holds at most
 * 2^31 - 1 blocks in x; a batch of 2^31 small matrices at one per block (or a few per block of a
 * larger batch) needs more, so it goes in several launches, each told where it starts:
 *
 *     launch_split(blocks, [&](unsigned count, size_t first_block) {
 *         my_kernel<<<count, threads, shared>>>(..., first_block * per_block, ...);
 *     });
 *
 * The lambda launches `count` blocks that stand for blocks first_block .. first_block + count - 1
 * of the whole grid; every launch is followed by the check of the last error (KERNEL_CHECK).
 * Also here: the GPU's SM count, cached per device (launch_sm_count).
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 20 --batch 100000 */
#ifndef LAUNCH_SPLIT_CUH
#define LAUNCH_SPLIT_CUH

#include <stddef.h>
#include "cuda_check.h"

#define LAUNCH_MAX_BLOCKS ((size_t)0x7fffffff) /* gridDim.x's limit */

template <typename LaunchPart> static void launch_split(size_t blocks, LaunchPart launch_part)
{
    for (size_t first = 0; first < blocks; first += LAUNCH_MAX_BLOCKS) {
        const size_t count = blocks - first < LAUNCH_MAX_BLOCKS ? blocks - first : LAUNCH_MAX_BLOCKS;
        launch_part((unsigned)count, first);
        KERNEL_CHECK();
    }
}

/* Let `kernel` use all the shared memory the current GPU offers one block (past the default
 * 48 KiB), and say how much that is. The attribute belongs to the function and the device, so
 * it is set once per kernel and GPU: cache is a static int[64] of the caller's, one per kernel
 * (the driver may run one host thread per GPU, hence the atomics). */
template <typename Kernel> static int launch_smem_optin(Kernel kernel, int (&cache)[64])
{
    int dev;
    CUDA_CHECK(cudaGetDevice(&dev));
    int optin = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_ACQUIRE) : 0;
    if (!optin) {
        CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        if (dev < 64) __atomic_store_n(&cache[dev], optin, __ATOMIC_RELEASE);
    }
    return optin;
}

/* The current GPU's number of SMs, asked once per device (atomics: see launch_smem_optin). */
static inline int launch_sm_count()
{
    static int cache[64];
    int dev, sms;
    CUDA_CHECK(cudaGetDevice(&dev));
    sms = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_ACQUIRE) : 0;
    if (!sms) {
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        if (dev < 64) __atomic_store_n(&cache[dev], sms, __ATOMIC_RELEASE);
    }
    return sms;
}

#endif
