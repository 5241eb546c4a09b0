/* grid_f64.h - stage 03's whole-GPU idea in float64: a batch of row-major n x n matrices of any n,
 * factored by 64 x 64 tile tasks, step by step, every matrix's tasks of a step in one launch
 * (grid_f64.cu says how). The float32 path (grid_cholesky.h) has the schedules, the graphs and the
 * split products; this one is the plain right-looking order with the updates on the FP64 tensor
 * cores (DMMA, sm_80 and newer) and the panel's triangular solve as a product with the diagonal
 * tile's inverse. */
#ifndef GRID_F64_H
#define GRID_F64_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

#define GRID_F64_NB 64

/* Device workspace of a batch of `batch` matrices (the diagonal tiles' inverses: 32 KiB a matrix). */
size_t grid_f64_workspace_bytes(size_t batch);

/* Factor `batch` row-major n x n float64 matrices from d_in into d_out (d_out == d_in: in place; else
 * d_in is read where a tile is first touched and left as it was), reading only the lower triangle: L in the lower triangle,
 * zeros above, d_info[b] as cusolverDnDpotrf (0, or the first failing minor; a NaN pivot fails), on
 * `stream` (asynchronous, capturable). d_work: grid_f64_workspace_bytes(batch) bytes, 256-byte
 * aligned. Returns 0, or -1 (noted, cuda_check.h). */
int potrf_grid_f64(int n, size_t batch, const double *d_in, double *d_out, int *d_info, double *d_work,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
