/* chain_link.cuh - the chain's launches overlap (programmatic dependent launch, compute capability
 * 9.0+), for the float32 tile tasks (grid_tasks.cu) and the float64 ones (grid_f64.cu): a kernel of
 * the critical path (POTRF, TRSM, the next column's update) is launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization, so its blocks may start while the kernel before
 * it on the stream still runs. Each such kernel first waits (griddepcontrol.wait: every grid it
 * depends on has finished and its writes are visible), then lets its own successor be launched
 * (launch_dependents), then works; so the order holds down the chain. Before its wait a kernel may
 * read what kernels two or more places ahead wrote, which have finished when it starts (the float32
 * TRSM's early_load, the float64 panel's own updates), through the L2 only. A kernel of another
 * stream joined by an event counts as the place just before the launch after the wait (a variant
 * whose first kernel after the wait read such writes before its own wait failed in a captured
 * graph: 06 LIMITS, "The branches of the last trace, timed"). What that saves is the launch
 * latency between two kernels of the chain (the README's part 2 has the times). On an older GPU both
 * are no-ops (and the attribute is not set); a kernel launched without it finds the wait already met.
 * Alone: make build/03_left_right_top/cholesky_one && build/03_left_right_top/cholesky_one --n 4096 --mode lookahead */
#ifndef CHAIN_LINK_CUH
#define CHAIN_LINK_CUH
#include <cuda_runtime.h>

__device__ __forceinline__ void chain_wait_and_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The two halves of chain_wait_and_release, for a kernel whose successor may start before it waits
 * (f64_panel_solve): what that successor reads before its own wait must then have been written two
 * or more links back, by kernels that finished before this one could start. */
__device__ __forceinline__ void chain_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void chain_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
/* Launch `kernel` on s, linked to the kernel before it there where `linked` (the GPU has it); the
 * launch's own error (the caller checks it, and the last error after it). */
template <typename... Params, typename... Args> static cudaError_t launch_linked(bool linked, void (*kernel)(Params...),
                                                                                 dim3 grid, dim3 block, size_t shared,
                                                                                 cudaStream_t s, Args... args)
{
    cudaLaunchAttribute link;
    link.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    link.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared;
    config.stream = s;
    config.attrs = &link;
    config.numAttrs = linked ? 1 : 0;
    return cudaLaunchKernelEx(&config, kernel, (Params)args...);
}

#endif
