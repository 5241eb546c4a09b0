/* course_cholesky.c - stage 06's `--kernel auto` for row-major batches, as a shared library for
 * Python (course_cholesky/__init__.py calls it through ctypes). Build: `make python`, which
 * writes build/06_tuning/libcourse_cholesky.so.
 *
 * The matrices are the caller's device memory (a torch tensor, a cupy array): nothing is copied
 * or allocated here and nothing waits for the GPU. The kernels of the course launch on the legacy
 * default stream; to run them in the order of the caller's stream, the call is fenced with two
 * events: the default stream waits for the caller's stream, the kernels run, and the caller's
 * stream waits for them. Both waits happen on the GPU, the host goes on at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include "family.h"
#include "layout_convert.h"
#include "tuned.h"

/* The largest n of the register kernels (rows, cyclic, thread). Past it `auto` takes the grid
 * kernel, which allocates its workspace and schedules its own streams: not for this library. */
#define COURSE_PY_MAX_N 128
#define COURSE_PY_MAX_GPUS 64

static void say(char *msg, size_t len, const char *what, cudaError_t e)
{
    snprintf(msg, len, "%s: %s", what, cudaGetErrorString(e));
}

/* This library's CUDA runtime is its own (linked statically): it is told the caller's device. */
static int use_device(int device, char *msg, size_t len)
{
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) say(msg, len, "cudaSetDevice", e);
    return e == cudaSuccess ? 0 : -1;
}

/* auto's configuration for `batch` row-major matrices of order n: 0, or -1 with the reason in msg. */
static int pick(int n, size_t batch, batched_config *cfg, size_t *chunk, char *msg, size_t len)
{
    family_init();
    if (n < 1 || n > COURSE_PY_MAX_N) {
        snprintf(msg, len, "n = %d: this library takes n = 1..%d (larger matrices: stage 03's whole-GPU Cholesky)", n,
                 COURSE_PY_MAX_N);
        return -1;
    }
    if (batch < 1) {
        snprintf(msg, len, "an empty batch");
        return -1;
    }
    /* The choice is remembered: tuned_choose checks every entry of the table against n (about
     * 30 us for 800 entries), which at 1024 matrices would cost more than the kernels. A small
     * table of recent (device, n, batch), under a lock: ctypes lets other Python threads run. */
    static struct {
        int device, n;
        size_t batch;
        batched_config cfg;
        size_t chunk;
    } seen[256];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int device = 0;
    cudaGetDevice(&device);
    const size_t slot = ((size_t)n * 131 + batch * 7 + (size_t)device) % 256;
    pthread_mutex_lock(&lock);
    const int hit = seen[slot].n == n && seen[slot].batch == batch && seen[slot].device == device;
    if (hit) *cfg = seen[slot].cfg, *chunk = seen[slot].chunk;
    pthread_mutex_unlock(&lock);
    if (hit) return 0;
    const tuned_table *t = tuned_table_default();
    if (!t) {
        snprintf(msg, len, "no tuned table could be read (06_tuning/tables)");
        return -1;
    }
    if (tuned_choose(t, n, batch, 1, cfg, chunk, msg, len) != 0) return -1;
    pthread_mutex_lock(&lock);
    seen[slot].n = n, seen[slot].batch = batch, seen[slot].device = device, seen[slot].cfg = *cfg,
    seen[slot].chunk = *chunk;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* What auto does for such a batch: its configuration in words (desc), and the scratch bytes it
 * needs (a configuration in another layout converts into a scratch buffer and back: the caller
 * allocates it, so that this library never calls cudaMalloc, which would wait for the whole GPU). */
int course_choose(int device, int n, size_t batch, char *desc, size_t dlen, size_t *scratch_bytes, char *msg,
                  size_t len)
{
    batched_config cfg;
    size_t chunk;
    if (use_device(device, msg, len) != 0 || pick(n, batch, &cfg, &chunk, msg, len) != 0) return -1;
    tuned_format(&cfg, chunk, desc, dlen);
    *scratch_bytes = chunk == 1 ? 0 : batch * (size_t)n * n * sizeof(float);
    return 0;
}

/* Factor `batch` row-major matrices of order n at d_A in place (L in the lower triangle, zeros
 * above) on GPU `device`, info[m] as cuSOLVER's, in the order of `stream` (NULL: the legacy default stream).
 * d_scratch: course_choose's scratch bytes of device memory (NULL when it said 0). Returns 0, or -1
 * with the reason in msg; nothing waits for the GPU. */
int course_potrf_rowmajor(int device, float *d_A, int n, size_t batch, int *d_info, float *d_scratch, void *stream,
                          char *msg, size_t len)
{
    batched_config cfg;
    size_t chunk;
    char desc[128];
    if (use_device(device, msg, len) != 0 || pick(n, batch, &cfg, &chunk, msg, len) != 0) return -1;
    tuned_format(&cfg, chunk, desc, sizeof desc);
    if (chunk != 1 && !d_scratch) {
        snprintf(msg, len, "auto's choice (%s) needs scratch (course_choose says how much)", desc);
        return -1;
    }
    static cudaEvent_t ins[COURSE_PY_MAX_GPUS], outs[COURSE_PY_MAX_GPUS]; /* the fences, made once per GPU */
    if (device < 0 || device >= COURSE_PY_MAX_GPUS) {
        snprintf(msg, len, "GPU %d: this library takes GPUs 0..%d", device, COURSE_PY_MAX_GPUS - 1);
        return -1;
    }
    cudaEvent_t in = ins[device], out = outs[device];
    cudaError_t e = cudaSuccess;
    if (!in && ((e = cudaEventCreateWithFlags(&ins[device], cudaEventDisableTiming)) != cudaSuccess ||
                (e = cudaEventCreateWithFlags(&outs[device], cudaEventDisableTiming)) != cudaSuccess)) {
        say(msg, len, "cudaEventCreate", e);
        return -1;
    }
    in = ins[device], out = outs[device];
    cudaStream_t s = (cudaStream_t)stream;
    if (s && ((e = cudaEventRecord(in, s)) != cudaSuccess ||
              (e = cudaStreamWaitEvent(cudaStreamLegacy, in, 0)) != cudaSuccess)) {
        say(msg, len, "waiting for the caller's stream", e);
        return -1;
    }
    int rc;
    if (chunk == 1) rc = potrf_batched(&cfg, n, batch, 1, d_A, d_info);
    else {
        rowmajor_to_chunked_tiled(n, batch, chunk, d_A, d_scratch);
        rc = potrf_batched(&cfg, n, batch, chunk, d_scratch, d_info);
        if (rc == 0) chunked_to_rowmajor_tiled(n, batch, chunk, d_scratch, d_A);
    }
    if (rc != 0) {
        snprintf(msg, len, "potrf_batched refused %s for n = %d", desc, n);
        return -1;
    }
    if ((e = cudaGetLastError()) != cudaSuccess) {
        say(msg, len, "launch", e);
        return -1;
    }
    if (s && ((e = cudaEventRecord(out, cudaStreamLegacy)) != cudaSuccess ||
              (e = cudaStreamWaitEvent(s, out, 0)) != cudaSuccess)) {
        say(msg, len, "handing back to the caller's stream", e);
        return -1;
    }
    return 0;
}
