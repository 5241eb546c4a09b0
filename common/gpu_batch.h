/* gpu_batch.h - device-side helpers shared by the GPU stages: generate a batch straight into
 * device memory in any layout, and convert between row-major and (chunked) interleaved.
 * chunk = 1 is the row-major layout and chunk >= batch the simple interleaved one (layout.h). */
#ifndef GPU_BATCH_H
#define GPU_BATCH_H

#include <stddef.h>
#include <cuda_runtime.h>
#include "cuda_check.h" /* MUST_CHECK */
#include "generator.h"
#include "checks.h" /* upper_garbage */

#ifdef __cplusplus
extern "C" {
#endif

/* Matrices first .. first+count-1 of the seeded batch, written into d_out (count*n*n floats) in
 * the chunked layout with the given chunk. Asynchronous on the default stream (_on: on `stream`). */
void gen_batch_device(const gen_params *p, int n, size_t first, size_t count, size_t chunk, float *d_out);
void gen_batch_device_on(const gen_params *p, int n, size_t first, size_t count, size_t chunk, float *d_out,
                         cudaStream_t stream);

/* A conversion of `batch` matrices between row-major and the chunked layout, on `stream`
 * (cudaStreamLegacy: the default stream); in and out must not overlap; asynchronous. Returns 0, or
 * -1 when its launch failed (noted: cuda_check.h; a program checks it with CALL_CHECK). */
typedef int (*layout_converter)(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                cudaStream_t stream);

/* Conversions on the device, one element per thread (coalesced writes, gathered reads; the
 * tiled, faster pair is stage 05's exercise). */
MUST_CHECK int rowmajor_to_chunked_device(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                          cudaStream_t stream);
MUST_CHECK int chunked_to_rowmajor_device(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                          cudaStream_t stream);

/* poison_strict_upper (checks.h) on the device: garbage of `kind` in the strict upper triangle of
 * the `batch` matrices at d_a in the chunked layout with `chunk` (1: row-major), on `stream`. */
void poison_strict_upper_device(int n, size_t batch, size_t chunk, float *d_a, upper_garbage kind, cudaStream_t stream);

/* Matrix b of a batch in the chunked layout on the device, copied row-major into host[n*n]: its
 * n^2 elements are equally spaced, so it is one strided copy (element by element past the
 * copy engine's pitch limit). Asynchronous on stream when host is pinned. */
void copy_matrix_from_layout(int n, size_t batch, size_t chunk, const float *d_lay, size_t b, float *host,
                             cudaStream_t stream);

/* How many of d_x[0 .. count) are nonzero (the failed infos of a batch), counted on the GPU so
 * that a 1 GiB batch of tiny matrices (10^8 infos) need not cross the host link. */
size_t count_nonzero_device(const int *d_x, size_t count);

/* What every benchmark does after timing a batch it generated with p: every info 0 (counted on
 * the GPU), and `samples` matrices spread evenly over the batch (the first and the last among
 * them) regenerated on the host and checked against the float64 reference (check_factor). d_L
 * holds the factors in the chunked layout with `chunk` (1: row-major, batch: interleaved).
 * Returns 1 if all pass; else 0 and the first problem on stderr, after "who: ". */
int verify_generated_batch(const gen_params *p, int n, size_t batch, size_t chunk, const float *d_L, const int *d_info,
                           int samples, const char *who);

#ifdef __cplusplus
}
#endif

#endif
