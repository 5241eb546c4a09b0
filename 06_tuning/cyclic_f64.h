/* cyclic_f64.h - the cyclic kernel in float64 (cyclic_f64.cu), launched from C. */
#ifndef CYCLIC_F64_H
#define CYCLIC_F64_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The largest n the float64 instances take with this many threads per matrix (16, 32, 64, 128, 256; 0: none). */
int cyclic_f64_max_n(int threads);

/* Factor `batch` float64 matrices of order n in layout `chunk` (as potrf_batched_cyclic) from d_in into
 * d_out (may be d_in), T = threads per matrix, per_block matrices a block (per_block T <= 256): 0, or
 * -1 (noted, as every launcher's error). */
int potrf_batched_cyclic_f64(int threads, int per_block, int n, size_t batch, size_t chunk, const double *d_in,
                             double *d_out, int *d_info, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
