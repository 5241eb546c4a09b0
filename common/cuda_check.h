/* cuda_check.h - every CUDA runtime call, cuSOLVER call and kernel launch is checked.
 *
 *   CUDA_CHECK(cudaMalloc(&p, bytes));
 *   my_kernel<<<grid, block>>>(...); KERNEL_CHECK();
 *   CUSOLVER_CHECK(cusolverDnCreate(&handle));
 *
 * On failure they print the failing expression, the error's name and file:line, then exit(1) (in a
 * program; stage 06's library returns a status instead, see cuda_check_failed below).
 * KERNEL_CHECK() reads the launch error; with -DDEBUG_SYNC (make DEBUG=1) it also synchronizes so
 * that an error inside the kernel is reported at the launch that caused it. */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

static inline const char *cusolver_status_name(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "CUSOLVER_STATUS_(other)";
    }
}

/* What a failed check does is decided when the program is linked: the drivers and tests link
 * common/check_exit.c (print, then exit(1)); stage 06's library links its own, which records the
 * error for the call in progress and returns it as a status, so that nothing in the caller's
 * process dies (06_tuning/library/check_status.c). */
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
void cuda_check_failed(const char *kind, const char *name, const char *detail, const char *expr, const char *file,
                       int line);
/* A call refused for its arguments (the caller then returns an error): the programs print the
 * message on stderr; the library keeps it for the caller's status (cholesky_last_error). */
void course_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The programs' course_report: from course_report_capture(buf, len) on, this thread's messages go
 * into buf (the last one) instead of stderr, until course_report_capture(NULL, 0); the tests of
 * refused calls read them there, so that a test run prints only the harness's lines. */
void course_report_capture(char *buf, size_t len);
#ifdef __cplusplus
}
#endif

#define CUDA_CHECK(expr)                                                                                            \
    do {                                                                                                            \
        cudaError_t err_ = (expr);                                                                                  \
        if (err_ != cudaSuccess)                                                                                    \
            cuda_check_failed("CUDA", cudaGetErrorName(err_), cudaGetErrorString(err_), #expr, __FILE__, __LINE__); \
    } while (0)

#define CUSOLVER_CHECK(expr)                                                                         \
    do {                                                                                             \
        cusolverStatus_t st_ = (expr);                                                               \
        if (st_ != CUSOLVER_STATUS_SUCCESS)                                                          \
            cuda_check_failed("cuSOLVER", cusolver_status_name(st_), "", #expr, __FILE__, __LINE__); \
    } while (0)

#ifdef DEBUG_SYNC
#define KERNEL_CHECK()                       \
    do {                                     \
        CUDA_CHECK(cudaGetLastError());      \
        CUDA_CHECK(cudaDeviceSynchronize()); \
    } while (0)
/* A launch on stream s: synchronize s, unless it is being captured into a CUDA graph (nothing runs
 * then, and waiting would end the capture with an error). */
#define KERNEL_CHECK_ON(s)                                                                 \
    do {                                                                                   \
        enum cudaStreamCaptureStatus capture_;                                             \
        CUDA_CHECK(cudaGetLastError());                                                    \
        CUDA_CHECK(cudaStreamIsCapturing((s), &capture_));                                 \
        if (capture_ == cudaStreamCaptureStatusNone) CUDA_CHECK(cudaStreamSynchronize(s)); \
    } while (0)
#else
#define KERNEL_CHECK() CUDA_CHECK(cudaGetLastError())
#define KERNEL_CHECK_ON(s) CUDA_CHECK(cudaGetLastError())
#endif

#endif
