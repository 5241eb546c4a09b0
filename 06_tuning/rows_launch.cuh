/* rows_launch.cuh - the host side of one rows-kernel instance: shared memory, grid, launch. */
#ifndef ROWS_LAUNCH_CUH
#define ROWS_LAUNCH_CUH

#include <stdio.h>
#include "cuda_check.h"
#include "rows_kernel.cuh"
#include "rows_kernel.h"

template <int NMAX, int T, bool FULL>
static int rows_launch_one(int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    /* Once per instance and GPU (the attribute belongs to the device; the driver may run one host
     * thread per GPU, hence the atomics): allow all the shared memory the GPU offers a block. */
    static int optin_of[64];
    int dev;
    CUDA_CHECK(cudaGetDevice(&dev));
    int optin = dev < 64 ? __atomic_load_n(&optin_of[dev], __ATOMIC_ACQUIRE) : 0;
    if (!optin) {
        CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        CUDA_CHECK(cudaFuncSetAttribute(potrf_rows_kernel<NMAX, T, FULL>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        if (dev < 64) __atomic_store_n(&optin_of[dev], optin, __ATOMIC_RELEASE);
    }
    const size_t smem = rows_smem_bytes(NMAX, T, n, per_block);
    if (smem > (size_t)optin) {
        fprintf(stderr, "potrf_batched_rows: %d matrices of order %d per block need %zu bytes of shared memory, this GPU offers %d\n",
                per_block, n, smem, optin);
        return -1;
    }
    const size_t max_blocks = 0x7fffffffULL, blocks = (batch + per_block - 1) / per_block;
    for (size_t first_block = 0; first_block < blocks; first_block += max_blocks) {
        const size_t k = blocks - first_block < max_blocks ? blocks - first_block : max_blocks;
        potrf_rows_kernel<NMAX, T, FULL><<<(unsigned)k, per_block * T, smem>>>(d_A, n, batch, chunk, first_block * per_block, per_block, d_info);
        KERNEL_CHECK();
    }
    return 0;
}

static int rows_not_compiled(int nmax, int threads)
{
    fprintf(stderr, "potrf_batched_rows: NMAX = %d with %d threads per matrix is not compiled in\n", nmax, threads);
    return -1;
}

/* full: every step written out (NMAX <= ROWS_FULL_MAX only); else the loop over k. */
template <int NMAX, int T>
static int rows_launch(int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    if (!full) return rows_launch_one<NMAX, T, false>(per_block, n, batch, chunk, d_A, d_info);
    if constexpr (NMAX <= ROWS_FULL_MAX) return rows_launch_one<NMAX, T, true>(per_block, n, batch, chunk, d_A, d_info);
    return rows_not_compiled(NMAX, T);
}

/* One NMAX file: ROWS_FILE(NMAX, T1, T2, T3) defines potrf_rows_<NMAX> for those T (0: none). */
#define ROWS_FILE(NMAX, T1, T2, T3)                                                                                          \
    extern "C" int potrf_rows_##NMAX(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info) \
    {                                                                                                                        \
        if (T1 && threads == T1) return rows_launch<NMAX, T1>(full, per_block, n, batch, chunk, d_A, d_info); \
        if (T2 && threads == T2) return rows_launch<NMAX, (T2 ? T2 : T1)>(full, per_block, n, batch, chunk, d_A, d_info); \
        if (T3 && threads == T3) return rows_launch<NMAX, (T3 ? T3 : T1)>(full, per_block, n, batch, chunk, d_A, d_info); \
        return rows_not_compiled(NMAX, threads);                                                                             \
    }

#endif
