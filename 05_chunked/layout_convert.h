/* layout_convert.h - stage 05's exercise: converting a batch between row-major and the chunked
 * layout fast, with both the reads and the writes coalesced (a tiled transpose through shared
 * memory). Same contract as the provided one-element-per-thread pair in common/gpu_batch.h:
 * chunk = 1 is row-major, chunk >= batch the simple interleaved layout; in and out must not
 * overlap; asynchronous on `stream` (cudaStreamLegacy: the default stream). They return 0, or -1
 * when the launch failed (the error noted: common/cuda_check.h; a program checks with CALL_CHECK). */
#ifndef LAYOUT_CONVERT_H
#define LAYOUT_CONVERT_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */
#include "cuda_check.h"       /* MUST_CHECK */

#ifdef __cplusplus
extern "C" {
#endif

MUST_CHECK int rowmajor_to_chunked_tiled(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                         cudaStream_t stream);
MUST_CHECK int chunked_to_rowmajor_tiled(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
