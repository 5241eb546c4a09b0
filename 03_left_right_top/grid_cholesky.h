/* grid_cholesky.h - stage 03, part 2: ONE large matrix factored by the whole GPU (one thread
 * block per tile task), callable from C. */
#ifndef GRID_CHOLESKY_H
#define GRID_CHOLESKY_H

#include <stddef.h>
#include "grid_policy.h" /* grid_mode, grid_math, the defaults, grid_policy */

#ifdef __cplusplus
extern "C" {
#endif

/* Device workspace potrf_grid needs for n: 0 when n is a multiple of the tile (64; the matrix
 * is factored in place), else a padded copy, N x N floats with N = n rounded up. */
size_t grid_workspace_bytes(int n);

/* Factor one row-major n x n SPD matrix at d_A in place: L lower, zeros above the diagonal,
 * *d_info as cusolverDnSpotrf (0, or the first failing minor; a NaN pivot fails too).
 * d_work: grid_workspace_bytes(n) bytes of device memory (may be NULL when that is 0). Runs on
 * streams of its own, forked from the default stream and joined back (potrf_grid_run), so it is
 * ordered like a kernel on the default stream; asynchronous. The graph modes build a graph on the first call for a given (mode, n,
 * pointers) and replay it afterwards (one cached graph per host thread).
 * Returns 0, or -1 with a message on stderr for bad arguments. */
int potrf_grid(grid_mode mode, int n, float *d_A, float *d_work, int *d_info);

/* A batch: `batch` row-major n x n matrices, packed n * n apart at d_A, d_info one int per matrix.
 * Step k's tasks of every matrix run in the same launches (blockIdx.y is the matrix), so a batch
 * of 4 or 60 matrices of n = 1024 fills the GPU as one matrix of 4096 does, in the time of one
 * step chain. Each matrix's result and info are those of potrf_grid on it alone, bit for bit.
 * d_work: grid_batched_workspace_bytes(n, batch) (0 when n is a multiple of the tile). Same
 * stream, graph and return rules as potrf_grid; the cached graph and the streams are per host
 * thread (one thread per GPU is safe). */
size_t grid_batched_workspace_bytes(int n, size_t batch);
int potrf_grid_batched(grid_mode mode, int n, size_t batch, float *d_A, float *d_work, int *d_info);

/* potrf_grid_batched with the updates' arithmetic chosen (the two above use GRID_FP32): GRID_TF32X3
 * runs them on the tensor cores, split so the factor is as accurate as fp32's (grid_tf32x3.cuh). */
int potrf_grid_math(grid_mode mode, grid_math math, int n, size_t batch, float *d_A, float *d_work, int *d_info);

/* What the calls above keep between calls: two streams of their own (the chain at the GPU's
 * highest priority, the bulk of the update at its lowest), the events that fork them from the
 * caller's stream and join them back, and the graph of the last call. The calls above use one
 * per host thread; a library that runs several factorizations at once on one thread (a plan per
 * shape, stage 06) makes its own, on the current GPU. */
typedef struct grid_context grid_context;
grid_context *grid_context_create(void); /* NULL when out of host memory */
void grid_context_destroy(grid_context *ctx);

/* The general call: `batch` matrices from d_in into d_out (d_out == d_in: in place; else the
 * padded copy reads d_in and writes d_out, or without it d_in is copied into d_out first), in the
 * order of `stream`: the context's streams wait for `stream`, and `stream` waits for them at the
 * end (nothing waits on the host). ctx NULL: the calling thread's own. When `stream` is being
 * captured into a CUDA graph, the launches go into that graph as they are (no graph of the
 * context's own). Returns 0, or -1 with a message on stderr for bad arguments. */
int potrf_grid_run(grid_context *ctx, grid_mode mode, grid_math math, int n, size_t batch, const float *d_in,
                   float *d_out, float *d_work, int *d_info, cudaStream_t stream);

/* potrf_grid_run with every choice made beforehand (grid_policy_choose or grid_policy_for, when
 * planning): the launches read the policy and ask nothing. d_split: policy->split_bytes bytes for
 * the warpgroup update (with it given nothing is allocated, and a call inside a capture runs the same
 * kernels as one outside), or NULL: the context's own, allocated on first need outside a capture
 * (inside one, the mma.sync updates), as potrf_grid_run does. */
int potrf_grid_execute(grid_context *ctx, const grid_policy *policy, int n, size_t batch, const float *d_in,
                       float *d_out, float *d_work, float *d_split, int *d_info, cudaStream_t stream);

/* After a failed call (a library's check returned instead of exiting): end a capture of the
 * context's own cut short, and let `stream` wait for what was enqueued. */
void grid_context_recover(grid_context *ctx, cudaStream_t stream);

/* 1 when the context's streams are part of a capture that `stream` is not in (another thread's or
 * another stream's graph, still open): a call now would land in that graph. */
int grid_context_in_foreign_capture(grid_context *ctx, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
