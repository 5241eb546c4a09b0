/* launch_split.cuh - one kernel over more blocks than one launch may have (and, at the end, the
 * shared-memory opt-in of a kernel that needs more than 48 KiB per block). A grid holds at most
 * 2^31 - 1 blocks in x; a batch of 2^31 small matrices at one per block (or a few per block of a
 * larger batch) needs more, so it goes in several launches, each told where it starts:
 *
 *     launch_split(blocks, stream, [&](unsigned count, size_t first_block) {
 *         my_kernel<<<count, threads, shared, stream>>>(..., first_block * per_block, ...);
 *     });
 *
 * The lambda launches `count` blocks that stand for blocks first_block .. first_block + count - 1
 * of the whole grid, on the caller's stream (every launch of the course takes one: a library's
 * caller orders it with its own work, or captures it in a CUDA graph); every launch is followed by
 * the check of the last error (KERNEL_TRY_ON the stream): it returns 0, or -1 with the error noted
 * (cuda_check.h), which the launcher returns.
 * Also here: values asked once per device (launch_per_device): the GPU's SM count (launch_sm_count)
 * and a kernel's shared-memory opt-in (launch_smem_optin).
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 20 --batch 100000 */
#ifndef LAUNCH_SPLIT_CUH
#define LAUNCH_SPLIT_CUH

#include <stddef.h>
#include "cuda_check.h"

#define LAUNCH_MAX_BLOCKS ((size_t)0x7fffffff) /* gridDim.x's limit */

template <typename LaunchPart>
MUST_CHECK static int launch_split(size_t blocks, cudaStream_t stream, LaunchPart launch_part)
{
    for (size_t first = 0; first < blocks; first += LAUNCH_MAX_BLOCKS) {
        const size_t count = blocks - first < LAUNCH_MAX_BLOCKS ? blocks - first : LAUNCH_MAX_BLOCKS;
        launch_part((unsigned)count, first);
        KERNEL_TRY_ON(stream);
    }
    return 0;
}

/* A value of the current device, asked once and kept in cache[device] (0: not asked yet): ask(dev)
 * is called the first time, and again only while it answers 0. Atomics: the driver may run one
 * host thread per GPU. Devices past 64 are asked every time. 0: a CUDA error (noted). */
template <typename Ask> static int launch_per_device(int (&cache)[64], Ask ask)
{
    int dev;
    const cudaError_t got = course_fault_due() ? COURSE_FAULT_ERROR : cudaGetDevice(&dev);
    if (got != cudaSuccess) {
        (void)cuda_check_note("CUDA", cudaGetErrorName(got), cudaGetErrorString(got), "cudaGetDevice(&dev)", __FILE__,
                              __LINE__);
        return 0;
    }
    int v = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_ACQUIRE) : 0;
    if (!v) {
        v = ask(dev);
        if (dev < 64) __atomic_store_n(&cache[dev], v, __ATOMIC_RELEASE);
    }
    return v;
}

/* Let `kernel` use all the shared memory the current GPU offers one block (past the default
 * 48 KiB), and say how much that is. The attribute belongs to the function and the device, so
 * it is set once per kernel and GPU: cache is a static int[64] of the caller's, one per kernel.
 * 0: a CUDA error (noted; the caller returns -1). */
template <typename Kernel> static int launch_smem_optin(Kernel kernel, int (&cache)[64])
{
    return launch_per_device(cache, [&](int dev) {
        int optin;
        const int failed = [&]() {
            CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
            CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
            return 0;
        }();
        return failed ? 0 : optin;
    });
}

/* The current GPU's number of SMs, asked once per device; 0: a CUDA error (noted). */
static inline int launch_sm_count()
{
    static int cache[64];
    return launch_per_device(cache, [](int dev) {
        int sms;
        const int failed = [&]() {
            CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
            return 0;
        }();
        return failed ? 0 : sms;
    });
}

#endif
