/* cholesky_plan.h - the course's fastest Cholesky through one door, as cuFFT's and cuSOLVER's users
 * expect: a plan made once for (n, batch, layout), which takes every decision, and an execute that
 * only launches. Self-contained (it needs only the CUDA runtime's header). Installed by `make install
 * PREFIX=dir` as <course_cholesky/cholesky_plan.h>, with libcourse_cholesky (.so and .a), a
 * pkg-config file and a CMake package: 06_tuning/library/README.md says how to build against it.
 *
 *     cholesky_options opt = CHOLESKY_OPTIONS_INIT;  (or NULL: row-major, precision highest)
 *     cholesky_plan *plan;
 *     if (cholesky_plan_create(&plan, n, batch, &opt, err, sizeof err) != CHOLESKY_SUCCESS) ... err says why
 *     puts(cholesky_plan_explain(plan));            what it chose and why, in one line
 *     cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan));   (may be 0: then NULL)
 *     cholesky_execute(plan, d_A, d_L, d_info, d_work, stream);   as often as needed
 *     cholesky_plan_destroy(plan);
 *
 * The input: `batch` symmetric positive definite matrices of order n, float32 (or float64: a plan
 * made with cholesky_options.dtype = CHOLESKY_FLOAT64 is executed with cholesky_execute_f64), in the plan's
 * layout; the factor L is written in the lower triangle of the output, zeros above. Element (i, j)
 * of matrix b (0-based; start = b - b % chunk, w = min(chunk, batch - start)) is at
 *     row-major (chunk 0 or 1):      b n^2 + i n + j
 *     interleaved (chunk >= batch):  (i n + j) batch + b
 *     chunked:                       start n^2 + (b - start) + (i n + j) w
 * with no leading dimension or stride between matrices (pack them first). Held column-major (as
 * LAPACK and cuSOLVER hold them), a row-major lower L is the upper factor U = L^T of that matrix:
 * the same bytes, the other triangle's name.
 *
 * The plan decides, for the GPU current when it is made: the kernel family and its configuration
 * (the tuned table of this GPU), the layout the kernel runs in and so the conversions, and for the
 * whole-GPU path its schedule, its arithmetic and the groups a large batch goes in. It sizes the
 * workspace (all of it). Execute never allocates device memory, never waits on the host, and runs
 * in the order of the caller's stream, so it can be captured in a CUDA graph; a captured call runs
 * the same kernels as an eager one. Same plan, same input: the same bits on every call. The plan is
 * used on the GPU it was made on (make it with that GPU current).
 *
 * Nothing here ends the caller's process or prints: every failure (a bad argument, a CUDA error,
 * out of memory, no GPU) is returned as a cholesky_status, and cholesky_last_error() says what
 * happened (per host thread). After an error that is not sticky (a bad pointer, out of memory) the
 * next call works; after a sticky one (an illegal address) CUDA itself refuses every later call.
 * NULL where a plan or an output is expected: CHOLESKY_STATUS_INVALID_VALUE (the queries answer 0
 * or ""); a destroyed plan is refused the same way (the library keeps the list of live plans; a
 * pointer whose address a newer plan has taken is that plan), and destroying NULL or a destroyed
 * plan does nothing. A batch of more than 2^60 bytes is refused, never wrapped. The string of
 * cholesky_last_error() is the thread's own and is rewritten by its next failing call.
 *
 * Lifetimes: destroy a plan only after the work it enqueued has finished (and no captured graph
 * holding its calls will be launched again), and never while another thread uses it. The workspace
 * (cholesky_plan_workspace_bytes, 256-byte aligned; at most the batch's bytes once more for a
 * conversion and once more for `unaligned`, plus a whole-GPU plan's padded copies and split panels,
 * each at most 512 MiB) belongs to one call at a time: calls that may overlap (other streams,
 * threads) need workspaces of their own. Making a plan allocates no device memory (a whole-GPU plan
 * makes streams, events and, at its first call, its graphs). The string of cholesky_plan_explain
 * lives as long as the plan.
 *
 * The library carries its own CUDA runtime (linked in): the caller's CUDA calls and its own meet
 * on the driver's terms (device pointers, streams, events, the current device are shared); an error
 * of its launches is its return value, never the caller's cudaGetLastError(). A driver at least as
 * new as that runtime (the CUDA it was built with) is needed; an older one reads as no device.
 *
 * Threads: plans may be made and executed from several host threads at once. A plan of the
 * whole-GPU path (n > 128) keeps streams and graphs of its own: its executes are taken one at a
 * time (a second thread waits for the first's enqueue, microseconds), and a call while the plan's
 * streams are inside another stream's open capture is refused (CHOLESKY_STATUS_BUSY). The
 * whole-GPU factorizations of all plans on one GPU run in turn, in the order their executes were
 * called (the library orders them on the GPU with an event; nothing waits on the host). */
#ifndef CHOLESKY_PLAN_H
#define CHOLESKY_PLAN_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; cholesky_version() gives the library's (the same number when the
 * library is the one this header came with). A new minor version only adds. */
#define CHOLESKY_VERSION_MAJOR 1
#define CHOLESKY_VERSION_MINOR 2
#define CHOLESKY_VERSION_PATCH 0
#define CHOLESKY_VERSION (CHOLESKY_VERSION_MAJOR * 10000 + CHOLESKY_VERSION_MINOR * 100 + CHOLESKY_VERSION_PATCH)
int cholesky_version(void);

#define CHOLESKY_MAX_N 65536

typedef enum {
    CHOLESKY_SUCCESS = 0,
    CHOLESKY_STATUS_INVALID_VALUE = 1,  /* an argument the plan cannot take (n, batch, a NULL pointer) */
    CHOLESKY_STATUS_MISALIGNED = 2,     /* a pointer the plan's kernels cannot read (cholesky_options.unaligned) */
    CHOLESKY_STATUS_OUT_OF_MEMORY = 3,  /* host or device memory */
    CHOLESKY_STATUS_CUDA_ERROR = 4,     /* a CUDA call failed: cholesky_last_error() names it */
    CHOLESKY_STATUS_BUSY = 5,           /* the plan's streams are in another stream's open capture */
    CHOLESKY_STATUS_NOT_SUPPORTED = 6,  /* no tuned table, or no configuration for this shape */
    CHOLESKY_STATUS_INTERNAL_ERROR = 7, /* a rule of the library broken: a bug, please report it */
    CHOLESKY_STATUS_NO_DEVICE = 8       /* no NVIDIA GPU or no driver: cholesky_plan_create makes no plan */
} cholesky_status;

/* "success", "invalid value", ... (never NULL). */
const char *cholesky_status_string(cholesky_status status);

/* The message of this thread's last failed call ("" when none failed yet). */
const char *cholesky_last_error(void);

/* Pointers execute takes as they are: 16-byte aligned (every allocation of cudaMalloc and of the
 * frameworks is). A plan made with `unaligned` also takes 4-byte aligned ones (a view that starts
 * a few floats into a buffer): such a call copies the batch into the workspace, factors it there
 * and copies it out (twice the memory traffic; the workspace grows by one batch). */
#define CHOLESKY_ALIGNMENT 16

typedef struct cholesky_plan cholesky_plan;

/* The arithmetic of the large matrices' updates (the whole-GPU path, n > 128), the caller's explicit
 * choice, never taken from a framework's global setting:
 * - CHOLESKY_PRECISION_HIGHEST (0, the default): fp32-accurate (3xTF32 on the tensor cores, or fp32);
 * - CHOLESKY_PRECISION_HIGH: one TF32 product a term wherever the tensor cores run the updates (what
 *   torch's matmul precision "high" does to a product), the panels and every sum in fp32: faster
 *   for large n; the factor meets gpu-mode's normwise bound ||A - L L^T||_1 <= 20 n eps ||A||_1, and
 *   its forward error is about a thousand times fp32's. A pivot <= 0 under TF32 (an SPD matrix whose
 *   smallest eigenvalue is below TF32's error, such as a damped low-rank one) gets a second chance:
 *   out of place (in != out) the batch is factored again fp32-accurately, decided on the GPU (no
 *   wait, also inside a caller's CUDA graph), so info > 0 is then the fp32-accurate path's. In place
 *   nothing of A is left to refactor, and info > 0 may be TF32's own. Where the fp32-accurate path
 *   runs fp32 updates (smaller shapes), it runs them too.
 * - CHOLESKY_PRECISION_MEDIUM (since 1.2): as HIGH, except that on a Hopper GPU (sm_90a) the bulk of
 *   the large matrices' updates multiplies fp16 operands (each panel row scaled by a power of two, so
 *   that rows of any magnitude keep fp16's 11 significant bits, TF32's), summed in fp32: the same
 *   bound and second chance as HIGH, faster where the bulk dominates (the largest n). Elsewhere
 *   (another GPU, a shape without the warpgroup bulk) it runs HIGH's arithmetic, and says so.
 * The batched kernels (n <= 128) are fp32 in all three. The explanation says which runs. A float64 plan
 * computes in float64 whatever the precision (the updates on the FP64 tensor cores, exact products). */
typedef enum {
    CHOLESKY_PRECISION_HIGHEST = 0,
    CHOLESKY_PRECISION_HIGH = 1,
    CHOLESKY_PRECISION_MEDIUM = 2
} cholesky_precision;

/* The element type of the plan's matrices (since 1.1). float64 takes every n and every layout at
 * n <= 128; from n = 129 on, row-major data only (chunk 0 or 1). Its factor is float64's: residual
 * and info as LAPACK's dpotrf. */
typedef enum { CHOLESKY_FLOAT32 = 0, CHOLESKY_FLOAT64 = 1 } cholesky_dtype;

/* The plan's options. Start from CHOLESKY_OPTIONS_INIT and set what you need: `size` tells the
 * library which fields the caller's header had, so a later version of the library (which only
 * appends fields, defaulted when `size` ends before them) takes a program built against this one
 * without a rebuild. NULL options: the defaults below. */
typedef struct {
    size_t size;                  /* sizeof(cholesky_options) of the caller's header: CHOLESKY_OPTIONS_INIT sets it */
    size_t chunk;                 /* the data's layout: 0 or 1 row-major (default), >= batch interleaved, else
                                     chunked by `chunk` matrices (06_tuning/README.md, common/layout.h) */
    cholesky_precision precision; /* CHOLESKY_PRECISION_HIGHEST (default), _HIGH or _MEDIUM (since 1.2) */
    int unaligned;                /* 1: execute also takes pointers that are only element-aligned (4 or 8 bytes) */
    cholesky_dtype dtype;         /* since 1.1: CHOLESKY_FLOAT32 (default) or CHOLESKY_FLOAT64 */
} cholesky_options;
#define CHOLESKY_OPTIONS_INIT                                                        \
    {                                                                                \
        sizeof(cholesky_options), 1, CHOLESKY_PRECISION_HIGHEST, 0, CHOLESKY_FLOAT32 \
    }

/* CHOLESKY_SUCCESS and *plan, for the current GPU; or a status with *plan NULL and the reason in
 * err (one line; err may be NULL, then cholesky_last_error() has it). Without a GPU or a driver:
 * CHOLESKY_STATUS_NO_DEVICE. */
cholesky_status cholesky_plan_create(cholesky_plan **plan, int n, size_t batch, const cholesky_options *opt, char *err,
                                     size_t len);
void cholesky_plan_destroy(cholesky_plan *plan);

/* Device memory execute needs in d_work (0: none, d_work may be NULL; 0 for no plan). */
size_t cholesky_plan_workspace_bytes(const cholesky_plan *plan);

/* One line: the configuration, where it came from, the conversions, the whole-GPU path's choices,
 * and the workspace (the only device memory execute uses besides the caller's arrays). "" for no plan. */
const char *cholesky_plan_explain(const cholesky_plan *plan);

/* Factor the plan's batch from d_in into d_out (the plan's layout; d_out == d_in: in place, else
 * d_in is left as it was), d_info[batch] as cuSOLVER's (0, or k > 0: the leading minor of order k is not positive
 * definite, a pivot <= 0 or NaN), on `stream`. Only the lower triangle of each input matrix is read
 * (LAPACK's uplo = 'L': the strict upper one may hold anything, NaN included); L in the lower
 * triangle, zeros above. d_in, d_out, d_info and d_work must not overlap, except d_out == d_in.
 * Returns CHOLESKY_SUCCESS, or a status (cholesky_last_error() says why): a bad
 * pointer or an overlap is refused (CHOLESKY_STATUS_INVALID_VALUE) before anything is enqueued. */
cholesky_status cholesky_execute(cholesky_plan *plan, const float *d_in, float *d_out, int *d_info, void *d_work,
                                 cudaStream_t stream);

/* The same for a float64 plan (since 1.1). Each execute takes only its own plan's type: the other
 * one is refused (CHOLESKY_STATUS_INVALID_VALUE), so a float array never reaches a double kernel. */
cholesky_status cholesky_execute_f64(cholesky_plan *plan, const double *d_in, double *d_out, int *d_info, void *d_work,
                                     cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
