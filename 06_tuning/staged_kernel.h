/* staged_kernel.h - launching stage 06's staged kernel (staged_kernel.cu) from C: one thread per
 * matrix for the smallest orders, row-major data staged through shared memory. */
#ifndef STAGED_KERNEL_H
#define STAGED_KERNEL_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The largest n it takes: one instance per n = 1 .. STAGED_MAX_N (a thread holds the lower
 * triangle, n (n + 1) / 2 floats, in registers: 300 at n = 24, where the compiler starts to spill
 * a little at odd n). */
#define STAGED_MAX_N 24
/* Matrices (= threads) per block: a multiple of 32 up to this. */
#define STAGED_MAX_BLOCK 256

/* Shared memory one block needs, in bytes. */
size_t staged_smem_need(int n, int per_block);

/* Launch (arguments checked by the caller; row-major data only, chunk 1) on stream, reading d_in
 * and writing d_out (may be d_in): 0, or -1 with a message on stderr. */
int potrf_batched_staged(int per_block, int n, size_t batch, const float *d_in, float *d_out, int *d_info,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
