/* course_cholesky.c - stage 06's one door (cholesky_plan.h) as a shared library for Python
 * (course_cholesky/__init__.py calls it through ctypes). Build: `make python`, which writes
 * build/06_tuning/libcourse_cholesky.so.
 *
 * Python makes one plan per (GPU, n, batch) and keeps it; a call is one course_execute: the
 * caller's device memory (a torch tensor, a cupy array) and the caller's stream, as they are.
 * Nothing is copied or allocated here and nothing waits for the GPU. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include "cholesky_plan.h"

/* This library's CUDA runtime is its own (linked statically): it is told the caller's device,
 * and asked again only when the thread's last call named another. */
static _Thread_local int current = -1;

static int use_device(int device, char *msg, size_t len)
{
    if (device == current) return 0;
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        snprintf(msg, len, "cudaSetDevice(%d): %s", device, cudaGetErrorString(e));
        return -1;
    }
    current = device;
    return 0;
}

/* A plan for `batch` row-major matrices of order n on GPU `device`, or NULL with the reason in
 * msg. explain: what it runs and why (one line); work_bytes: the workspace each call needs (the
 * caller allocates it, so that this library never calls cudaMalloc, which would wait for the GPU). */
void *course_plan_create(int device, int n, size_t batch, char *explain, size_t elen, size_t *work_bytes, char *msg,
                         size_t len)
{
    cholesky_plan *plan;
    if (use_device(device, msg, len) != 0 || cholesky_plan_create(&plan, n, batch, NULL, msg, len) != 0) return NULL;
    snprintf(explain, elen, "%s", cholesky_plan_explain(plan));
    *work_bytes = cholesky_plan_workspace_bytes(plan);
    return plan;
}

void course_plan_destroy(void *plan) { cholesky_plan_destroy((cholesky_plan *)plan); }

/* Factor the plan's batch from d_in into d_out (may be d_in) on GPU `device`, in the order of
 * `stream` (the framework's current stream, as it is: torch's default stream is NULL, the
 * default stream here too), info[m] as cuSOLVER's. Returns 0, or -1 with the reason in msg; nothing waits for the GPU. */
int course_execute(void *plan, int device, const float *d_in, float *d_out, int *d_info, void *d_work, void *stream,
                   char *msg, size_t len)
{
    if (use_device(device, msg, len) != 0) return -1;
    if (cholesky_execute((cholesky_plan *)plan, d_in, d_out, d_info, d_work, (cudaStream_t)stream) != 0) {
        snprintf(msg, len, "cholesky_execute refused the call (see stderr)");
        return -1;
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(msg, len, "launch: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
