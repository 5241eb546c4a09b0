/* cholesky_plan.h - the course's fastest Cholesky through one door, as cuFFT's and cuSOLVER's users
 * expect (DESIGN.md section 10): a plan made once for (n, batch, layout), which takes every decision,
 * and an execute that only launches.
 *
 *     cholesky_plan *plan;
 *     if (cholesky_plan_create(&plan, n, batch, NULL, err, sizeof err) != 0) ... err says why
 *     puts(cholesky_plan_explain(plan));            what it chose and why, in one line
 *     cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan));   (may be 0: then NULL)
 *     cholesky_execute(plan, d_A, d_L, d_info, d_work, stream);   as often as needed
 *     cholesky_plan_destroy(plan);
 *
 * The plan decides: the kernel family and its configuration (the tuned table of this GPU,
 * tuned.h, or one given), the layout the kernel runs in and so the conversions, and for the
 * whole-GPU path (stage 03) its schedule, its arithmetic and the groups a large batch goes in. It
 * sizes the workspace. Execute never allocates device memory, never waits on the host, and runs
 * in the order of the caller's stream, so it can be captured in a CUDA graph. n is 1 .. 65536.
 *
 * A plan is used by one host thread at a time (its whole-GPU path keeps streams and a graph of
 * its own); two threads use two plans, on one GPU or several. */
#ifndef CHOLESKY_PLAN_H
#define CHOLESKY_PLAN_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "batched_cholesky.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CHOLESKY_MAX_N 65536

typedef struct cholesky_plan cholesky_plan;

/* NULL options: row-major data, `auto`. */
typedef struct {
    size_t chunk; /* the caller's layout (layout.h): 0 or 1 row-major, >= batch interleaved, else chunked */
    const batched_config *config; /* NULL: auto (the tuned table); else this configuration */
    size_t kernel_chunk;          /* with config: the layout it runs in (0: the caller's) */
} cholesky_options;

/* 0 and *plan, or -1 with the reason in err (one line). Reads the tuned table once per process. */
int cholesky_plan_create(cholesky_plan **plan, int n, size_t batch, const cholesky_options *opt, char *err, size_t len);
void cholesky_plan_destroy(cholesky_plan *plan);

/* Device memory execute needs in d_work (0: none, d_work may be NULL). */
size_t cholesky_plan_workspace_bytes(const cholesky_plan *plan);

/* One line: the configuration, where it came from, the conversions, the whole-GPU path's choices. */
const char *cholesky_plan_explain(const cholesky_plan *plan);

/* The configuration the kernel runs, and its layout (kernel_chunk may be NULL). */
const batched_config *cholesky_plan_config(const cholesky_plan *plan, size_t *kernel_chunk);

/* Factor the plan's batch from d_in into d_out (the plan's layout; d_out == d_in: in place, else
 * d_in is left as it was), d_info[batch] as cuSOLVER's, on `stream`. L in the lower triangle,
 * zeros above. Returns 0, or -1 with a message on stderr for a missing pointer. */
int cholesky_execute(cholesky_plan *plan, const float *d_in, float *d_out, int *d_info, void *d_work,
                     cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
