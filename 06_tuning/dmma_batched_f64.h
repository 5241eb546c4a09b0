/* dmma_batched_f64.h - small float64 matrices on the FP64 tensor cores (dmma_batched_f64.cu), launched
 * from C. */
#ifndef DMMA_BATCHED_F64_H
#define DMMA_BATCHED_F64_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The largest order it takes: a block's shared memory holds the lower tiles of one matrix. */
#define DMMA_F64_MAX_N 128

/* Factor `batch` row-major float64 matrices of order n (1 .. DMMA_F64_MAX_N) from d_in into d_out
 * (may be d_in), one block of 128 threads a matrix: 0, or -1 (noted, as every launcher's error). */
int potrf_batched_dmma_f64(int n, size_t batch, const double *d_in, double *d_out, int *d_info, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
