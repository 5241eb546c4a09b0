/* sliced_run.h - the drivers' engine (stage 04's and stage 06's): factor a batch of any size in
 * slices that fit a GPU memory budget, overlapping the copies of one slice with the factorization
 * of another. What factors a slice is the driver's (sliced_factorizer): this engine knows no kernel.
 *
 *   slice s:  copy in (H2D) --> convert row-major -> layout, factor, convert back --> copy out (D2H)
 *             (chunk = 1 is row-major itself: no conversion, no second buffer)
 *             [copy stream]     [compute stream]                                    [copy stream]
 *
 * Two sets of device buffers take turns: while slice s is factored in set s % 2, slice s + 1 is
 * copied into the other set and slice s - 1's factors and infos are copied out. Events order the
 * three streams of a worker (all non-blocking, so that nothing waits on the default stream). The
 * host buffer is pinned (cudaHostRegister) so that the copies are asynchronous; if pinning fails
 * the run is still correct, only not overlapped. Host data go in eight slices or more (64 MiB at
 * least each), so that copies and kernels overlap even when the batch fits; a small batch is one.
 *
 * Several GPUs (workers): the slices go round-robin to the workers, one host thread each, every
 * worker with its own streams, buffer sets and events on its GPU; the host buffer is pinned once
 * for all of them. Each matrix is factored by the same kernel whichever GPU takes it, so the
 * results are those of a one-GPU run, bit for bit. */
#ifndef SLICED_RUN_H
#define SLICED_RUN_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "gpu_batch.h" /* layout_converter */
#include "generator.h"

/* What factors a slice: `count` matrices of order n in the job's layout (chunk), from d_in into
 * d_out (here always the same buffer: in place), their infos, on `stream` (the worker's compute
 * stream: return without waiting for the GPU), with the worker's workspace. `first` is the slice's
 * first matrix in the batch; worker is 0 .. workers-1 (each worker is one host thread, so a driver may
 * keep state per worker). 0, or -1 with a message on stderr. */
typedef struct {
    int (*factor)(void *self, int worker, size_t first, size_t count, size_t chunk, const float *d_in, float *d_out,
                  int *d_info, void *d_work, cudaStream_t stream);
    /* Device bytes a worker needs beside its buffers to factor slices of up to `slice` matrices
     * (NULL: none). Not decreasing in slice. */
    size_t (*workspace_bytes)(void *self, size_t slice);
    void *self;
} sliced_factorizer;

typedef struct {
    sliced_factorizer factorizer;
    int n;
    size_t batch;
    size_t chunk;          /* 0: each slice in the simple interleaved layout */
    float *host;           /* row-major batch on the host, or NULL: input (if !gen) and output, in place */
    const gen_params *gen; /* non-NULL: generate each slice on the GPU instead of copying it in */
    int *info;             /* batch infos (out) */
    size_t nsamples;       /* generated batches without host: copy these matrices out of the layout */
    const size_t *sample_index;
    float *sample_out; /* nsamples * n * n floats, row-major */
    size_t gpu_budget; /* bytes of GPU memory the run may use */
    /* The row-major <-> layout converters (NULL: the provided ones of common/gpu_batch.h; a later
     * stage passes its faster ones). Not called when chunk = 1: the layout IS row-major, and the
     * slice is factored where it was copied in. */
    layout_converter to_layout;
    layout_converter from_layout;
    const int *devices; /* the GPUs of the workers (a GPU may appear twice: two workers share it) */
    int workers;        /* 0: one worker on the current GPU */
} sliced_job;

#define SLICED_MAX_WORKERS 16

typedef struct {
    int device;
    size_t matrices, slices; /* what this worker factored */
    double wall_ms;          /* its first copy in to its last copy out */
    double h2d_ms, compute_ms, d2h_ms;
    double h2d_gbs, d2h_gbs; /* its GPU's link, measured (0: not measured) */
} sliced_worker_report;

typedef struct {
    size_t slice, slices;              /* matrices per slice, number of slices */
    int pinned;                        /* the host buffer could be pinned: copies overlap */
    double pin_ms;                     /* time to pin (and later unpin) the host buffer */
    double wall_ms;                    /* first copy in to last copy out */
    double h2d_ms, compute_ms, d2h_ms; /* each stage summed over the slices (events) */
    double h2d_gbs, d2h_gbs;           /* the copy engines' bandwidth, measured on a pinned buffer, summed over the
                                      workers' GPUs (0: not measured) */
    size_t bytes_in, bytes_out;        /* bytes over the host link(s) */
    int workers;
    sliced_worker_report worker[SLICED_MAX_WORKERS];
} sliced_report;

/* Bytes of GPU memory one matrix needs in a slice (its layout, its row-major staging copy when
 * the batch comes from or goes to the host and the layout is not row-major, its info). */
size_t sliced_bytes_per_matrix(int n, int staging, size_t chunk);

/* 0 on success; -1 with a message on stderr (budget too small for one matrix, GPU memory gone).
 * gpu_budget is per GPU. */
int sliced_run(const sliced_job *job, sliced_report *rep);

#endif
