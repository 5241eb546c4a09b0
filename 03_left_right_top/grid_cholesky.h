/* grid_cholesky.h - stage 03, part 2: ONE large matrix factored by the whole GPU (one thread
 * block per tile task), callable from C. */
#ifndef GRID_CHOLESKY_H
#define GRID_CHOLESKY_H

#include <stddef.h>
#include "grid_tasks.h" /* grid_math */

#ifdef __cplusplus
extern "C" {
#endif

/* How the tasks are launched: the road from one launch per task kind and step to a graph. */
typedef enum {
    GRID_STREAM = 0,    /* enqueue_right_looking on one stream, launched every call */
    GRID_GRAPH = 1,     /* the same launches captured once as a CUDA Graph, replayed */
    GRID_LOOKAHEAD = 2, /* enqueue_lookahead (two streams), captured as a CUDA Graph */
    GRID_PAIRS = 3,     /* enqueue_lookahead_pairs (two panels per update), captured as a CUDA Graph */
    GRID_QUADS = 4,     /* enqueue_lookahead_quads (four panels per update), captured as a CUDA Graph */
    GRID_MODE_COUNT = 5
} grid_mode;

const char *grid_mode_name(grid_mode mode); /* "stream", "graph", "lookahead", "pairs", "quads" */
int grid_mode_parse(const char *name);      /* the mode, or -1 */

#define GRID_MAX_N 65536

const char *grid_math_name(grid_math math); /* "fp32", "tf32x3" */
int grid_math_parse(const char *name);      /* the math, or -1 */

/* The fastest mode for n, measured on the H100: the look-ahead up to n = 4032 (its critical path
 * is shorter), the quads above: past n = 8192 in rounds of 4 or 8 panels (K = 4T: 16384 31.8 vs
 * 34.4 ms for the pairs, 32768 236 vs 269), at n = 4033 .. 8192 in rounds of 2 panels (4 where the
 * band runs on the warpgroup MMA), then of 1 for the last 47 columns (grid_round_panels: 8192 5.25
 * vs 5.38 ms for the pairs, 6144 2.89 vs 3.03; with rounds of 4 the pairs won at 8192, 6.13 vs
 * 6.49; 4096 tf32x3 1.19-1.20 ms against the look-ahead's 1.27-1.28). */
grid_mode grid_default_mode(int n);

/* The same for a batch, by the tiles a step's update touches (batch x nt^2, nt = tiles a side):
 * the look-ahead while they are few (its critical path is shorter), the pairs past 4096 (the
 * update is most of the time; reading the trailing matrices half as often wins). The quads only
 * for matrices past n = 8192 (nt > 128) and for one matrix past n = 4096 (the rule above): on
 * batches of smaller ones they lost to the pairs at every shape of make bench-gpumode, in rounds
 * of 4 panels (640 x 512 2.07 vs 2.00 ms, 60 x 1024 1.18 vs 1.10, 8 x 2048 1.31 vs 1.19).
 * Measured on the H100 (make bench-gpumode, GRID_MODE=...): 640 x 512 3.00 vs 3.39 ms, 60 x 1024
 * 1.94 vs 2.26, 8 x 2048 2.03 vs 2.26 for the pairs; 16 x 512 0.23 vs 0.27, 4 x 1024 0.47 vs
 * 0.55, 2 x 2048 1.01 vs 1.12 for the look-ahead. */
grid_mode grid_default_batched_mode(int n, size_t batch);

/* The updates' arithmetic for n x batch: the tensor cores (GRID_TF32X3) from 4096 tiles a step
 * (batch x nt^2; one matrix from n = 4033), where the updates are most of the time; fp32 below,
 * where the chain of panel tasks is most of the time and the tensor-core blocks' longer start does
 * not pay. H100, make bench-stage-3, since the split of grid_tf32x3.cuh costs two instructions:
 * n = 4096 look-ahead 1.71 ms fp32 vs 1.63 tf32x3; n = 8192 pairs 8.05 vs 6.13; n = 16384 quads
 * 46.7 vs 31.8. fp32 on a GPU without TF32 tensor cores. */
grid_math grid_default_math(int n, size_t batch);

/* 1 when the GPU can run GRID_TF32X3 (TF32 tensor cores: compute capability 8.0 or newer). */
int grid_tensor_cores(int device);

/* 1 when a call with this math and shape runs its bulk updates on Hopper's warpgroup MMA
 * (grid_wgmma.cuh): tf32x3 on compute capability 9.0 (a Hopper build; GRID_WGMMA=0 turns it off), n
 * large enough, and the split panel's workspace (about 4 KiB a row, kept in the context, at most
 * 512 MiB) to be had. A call inside the caller's stream capture cannot allocate it: the first
 * such call of a context takes the mma.sync updates. */
int grid_warpgroup_update(grid_math math, int n, size_t batch);

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

/* potrf_grid_run with the warpgroup update's workspace given (d_split, split_bytes of
 * grid_split_workspace_bytes; NULL, 0: the context's own, allocated on first need outside a
 * capture, as potrf_grid_run does). With it given nothing is allocated, and a call inside a
 * capture runs the same kernels as one outside. */
size_t grid_split_workspace_bytes(grid_math math, int n, size_t batch);
int potrf_grid_run_split(grid_context *ctx, grid_mode mode, grid_math math, int n, size_t batch, const float *d_in,
                         float *d_out, float *d_work, float *d_split, size_t split_bytes, int *d_info,
                         cudaStream_t stream);

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
