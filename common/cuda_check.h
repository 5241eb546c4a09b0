/* cuda_check.h - every CUDA runtime call, cuSOLVER call and kernel launch is checked.
 *
 *   CUDA_CHECK(cudaMalloc(&p, bytes));
 *   my_kernel<<<grid, block>>>(...); KERNEL_CHECK();
 *   CUSOLVER_CHECK(cusolverDnCreate(&handle));
 *
 * On failure they print the failing expression, the error's name and file:line, then exit(1).
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

#define CUDA_CHECK(expr)                                                                                     \
    do {                                                                                                     \
        cudaError_t err_ = (expr);                                                                           \
        if (err_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", __FILE__, __LINE__, cudaGetErrorName(err_), \
                    cudaGetErrorString(err_), #expr);                                                        \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

#define CUSOLVER_CHECK(expr)                                                                                        \
    do {                                                                                                            \
        cusolverStatus_t st_ = (expr);                                                                              \
        if (st_ != CUSOLVER_STATUS_SUCCESS) {                                                                       \
            fprintf(stderr, "%s:%d: cuSOLVER error %s (%d) in %s\n", __FILE__, __LINE__, cusolver_status_name(st_), \
                    (int)st_, #expr);                                                                               \
            exit(1);                                                                                                \
        }                                                                                                           \
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
