/* course_cholesky.c - stage 06's one door (cholesky_plan.h) as a shared library for Python
 * (course_cholesky/__init__.py calls it through ctypes). Build: `make python`, which writes
 * build/06_tuning/libcourse_cholesky.so.
 *
 * Python makes one plan per (GPU, n, batch, alignment, host thread) and keeps it; a call is one
 * course_execute: the caller's device memory (a torch tensor, a cupy array) and the caller's stream,
 * as they are. Nothing is copied or allocated here and nothing waits for the GPU. A failure comes
 * back as the door's status (cholesky_status) with its message; nothing here exits or prints. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include "cholesky_plan_internal.h"
#include "tuned.h"

/* The caller's current GPU becomes `device` for the call and is given back after it, so that a
 * tensor on cuda:1 while cuda:0 is current leaves the framework's current device as it was. (This
 * library's CUDA runtime is its own, linked statically; the current device is the driver's, per
 * thread, and shared with the framework's runtime.) *previous: the one to give back, or -1. */
static int enter_device(int device, int *previous, char *msg, size_t len)
{
    *previous = -1;
    int current = -1;
    cudaError_t e = cudaGetDevice(&current);
    if (e != cudaSuccess) { /* said plainly: "driver version is insufficient" means no driver here */
        (void)cudaGetLastError();
        snprintf(msg, len, "no usable NVIDIA GPU here (CUDA says: %s)", cudaGetErrorString(e));
        return CHOLESKY_STATUS_CUDA_ERROR;
    }
    if (current == device) return 0;
    *previous = current;
    e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(msg, len, "cudaSetDevice(%d): %s", device, cudaGetErrorString(e));
        return CHOLESKY_STATUS_CUDA_ERROR;
    }
    return 0;
}

static void leave_device(int previous)
{
    if (previous >= 0 && cudaSetDevice(previous) != cudaSuccess) (void)cudaGetLastError();
}

/* A plan for `batch` row-major matrices of order n on GPU `device` (unaligned: it also takes
 * pointers only element-aligned; precision: a cholesky_precision; f64: float64 matrices), or NULL with the status in *status and the reason in msg.
 * explain: what it runs and why (one line); work_bytes: the workspace each call needs (the caller
 * allocates it, so that this library never calls cudaMalloc, which would wait for the GPU). */
void *course_plan_create(int device, int n, size_t batch, int unaligned, int precision, int f64, char *explain,
                         size_t elen, size_t *work_bytes, int *status, char *msg, size_t len)
{
    static pthread_once_t env_once = PTHREAD_ONCE_INIT;
    pthread_once(&env_once, tuned_env_apply); /* (also where course_tables_dir was never called) */
    cholesky_plan *plan = NULL;
    int previous;
    *status = enter_device(device, &previous, msg, len);
    if (*status) return NULL;
    cholesky_options opt = CHOLESKY_OPTIONS_INIT;
    opt.unaligned = unaligned;
    opt.precision = (cholesky_precision)precision;
    opt.dtype = f64 ? CHOLESKY_FLOAT64 : CHOLESKY_FLOAT32;
    /* The whole-GPU switches of stage 03 (GRID_MODE, GRID_MATH, ...: to compare by hand), read here,
     * in the package's own layer, and passed to the plan as options. */
    const grid_overrides forced = grid_overrides_env();
    const cholesky_internal_options in = {NULL, 0, 0, &forced};
    *status = (int)cholesky_plan_create_internal(&plan, n, batch, &opt, &in, msg, len);
    if (*status == CHOLESKY_SUCCESS) {
        snprintf(explain, elen, "%s", cholesky_plan_explain(plan));
        *work_bytes = cholesky_plan_workspace_bytes(plan);
    }
    leave_device(previous);
    return plan;
}

void course_plan_destroy(void *plan) { cholesky_plan_destroy((cholesky_plan *)plan); }

/* The tuned tables shipped inside the Python package (read before the first plan): the library's
 * own path to them is the course folder it was built in. */
void course_tables_dir(const char *dir)
{
    tuned_tables_dir_set(dir);
    tuned_env_apply(); /* TUNED_TABLE and TUNED_TABLES win over the package's copy (tuned_env.c) */
}

/* Factor the plan's batch from d_in into d_out (may be d_in) on GPU `device`, in the order of
 * `stream` (the framework's current stream, as it is: torch's default stream is NULL, the
 * default stream here too), info[m] as cuSOLVER's. Returns 0, or the door's status with the
 * reason in msg; nothing waits for the GPU. f64: the plan's and the arrays' type is float64. */
int course_execute(void *plan, int device, const void *d_in, void *d_out, int *d_info, void *d_work, void *stream,
                   int f64, char *msg, size_t len)
{
    int previous;
    int status = enter_device(device, &previous, msg, len);
    if (status) return status;
    status = f64 ? (int)cholesky_execute_f64((cholesky_plan *)plan, d_in, d_out, d_info, d_work, (cudaStream_t)stream)
                 : (int)cholesky_execute((cholesky_plan *)plan, d_in, d_out, d_info, d_work, (cudaStream_t)stream);
    if (status != CHOLESKY_SUCCESS)
        snprintf(msg, len, "%s: %s", cholesky_status_string((cholesky_status)status), cholesky_last_error());
    leave_device(previous);
    return status;
}
