/* cuda_check.h - every CUDA runtime call, cuSOLVER call and kernel launch is checked, in one of two
 * ways.
 *
 * In a program (a driver, a benchmark, a test): the check ends the program on a failure, printing
 * the failing expression, the error's name and file:line, then exit(1) (common/check_exit.c).
 *   CUDA_CHECK(cudaMalloc(&p, bytes));
 *   my_kernel<<<grid, block>>>(...); KERNEL_CHECK();
 *   CUSOLVER_CHECK(cusolverDnCreate(&handle));
 *
 * In code a library reaches (the launchers of stages 03-06, stage 06's door): the failure is a value.
 * CUDA_TRY notes it (cuda_check_note: the message, for whoever called) and returns -1 from the
 * function it is in, which returns an int (0: done); TRY passes such a -1 on, so that the error
 * climbs back to the door (cholesky_execute), which frees what the call took and returns a status.
 *   static int launch_thing(...) { CUDA_TRY(cudaEventRecord(e, s)); kernel<<<...>>>(...); KERNEL_TRY_ON(s); return 0; }
 *   TRY(launch_thing(...));
 * A program that calls such a launcher checks what it returns (CALL_CHECK: print, exit).
 * KERNEL_CHECK()/KERNEL_TRY() read the launch error; with -DDEBUG_SYNC (make DEBUG=1) they also
 * synchronize so that an error inside the kernel is reported at the launch that caused it. */
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

#include <stddef.h>
/* On a function that returns its error: a caller that ignores it is warned at compile time. */
#define MUST_CHECK __attribute__((warn_unused_result))
#ifdef __cplusplus
extern "C" {
#endif
/* A program's failed check: print, then exit(1) (common/check_exit.c; never linked into the library:
 * 06_tuning/library/check_no_exit.sh fails its link if anything references exit). */
void cuda_check_failed(const char *kind, const char *name, const char *detail, const char *expr, const char *file,
                       int line);
/* A program's failed call of a launcher that returns its error (CALL_CHECK): exit(1). */
void call_check_failed(const char *expr, const char *file, int line);

/* A failure noted as a value (CUDA_TRY): where course_report's messages go (below), then returns -1.
 * kind: "CUDA", "cuSOLVER" or "course" (a broken rule of the course's own code). It also clears a
 * non-sticky error, so that the next call does not find it. */
int cuda_check_note(const char *kind, const char *name, const char *detail, const char *expr, const char *file,
                    int line);

/* A call refused for its arguments (the caller then returns an error): on stderr, unless this
 * thread captures its messages (below). */
void course_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* From course_report_capture(buf, len) on, this thread's messages (course_report's and
 * cuda_check_note's) go into buf instead of stderr, the first one only (the cause; what follows
 * it is mostly its consequence), until course_report_capture(NULL, 0). The tests of refused calls
 * keep them out of the test output; stage 06's door keeps them for its status. */
void course_report_capture(char *buf, size_t len);
/* What capture is set now (to restore it afterwards), and the kind of the message captured. */
void course_report_captured(char **buf, size_t *len);
typedef enum {
    COURSE_NOTE_NONE = 0,
    COURSE_NOTE_REFUSED,       /* course_report: the arguments */
    COURSE_NOTE_CUDA,          /* a CUDA or cuSOLVER call failed */
    COURSE_NOTE_OUT_OF_MEMORY, /* ... with cudaErrorMemoryAllocation */
    COURSE_NOTE_INTERNAL       /* a rule of the course's own code was broken */
} course_note_kind;
course_note_kind course_report_captured_kind(void);

/* Planted failures, for the tests of the error paths: course_fault_plant(k) makes this thread's k-th
 * CUDA_TRY / KERNEL_TRY from then on fail without making its call (k = 0: none); course_fault_checks
 * counts this thread's TRY checks, so that a test can find the first, a middle and the last. */
void course_fault_plant(long k);
long course_fault_checks(void);
int course_fault_due(void);
#define COURSE_FAULT_ERROR cudaErrorNotPermitted /* what a planted failure says it was */
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

/* The library's forms: note the failure, return -1 (the function returns int). */
#define CUDA_TRY(expr)                                                                                        \
    do {                                                                                                      \
        const cudaError_t err_ = course_fault_due() ? COURSE_FAULT_ERROR : (expr);                            \
        if (err_ != cudaSuccess)                                                                              \
            return cuda_check_note("CUDA", cudaGetErrorName(err_), cudaGetErrorString(err_), #expr, __FILE__, \
                                   __LINE__);                                                                 \
    } while (0)
/* A call of the course's own that returns 0, or -1 with its failure noted already. */
#define TRY(call)                   \
    do {                            \
        if ((call) != 0) return -1; \
    } while (0)
/* In a program: such a call, checked like CUDA_CHECK (the noted message is on stderr already). */
#define CALL_CHECK(call)                                               \
    do {                                                               \
        if ((call) != 0) call_check_failed(#call, __FILE__, __LINE__); \
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
#define KERNEL_TRY()                       \
    do {                                   \
        CUDA_TRY(cudaGetLastError());      \
        CUDA_TRY(cudaDeviceSynchronize()); \
    } while (0)
#define KERNEL_TRY_ON(s)                                                                 \
    do {                                                                                 \
        enum cudaStreamCaptureStatus capture_;                                           \
        CUDA_TRY(cudaGetLastError());                                                    \
        CUDA_TRY(cudaStreamIsCapturing((s), &capture_));                                 \
        if (capture_ == cudaStreamCaptureStatusNone) CUDA_TRY(cudaStreamSynchronize(s)); \
    } while (0)
#else
#define KERNEL_CHECK() CUDA_CHECK(cudaGetLastError())
#define KERNEL_CHECK_ON(s) CUDA_CHECK(cudaGetLastError())
#define KERNEL_TRY() CUDA_TRY(cudaGetLastError())
#define KERNEL_TRY_ON(s) CUDA_TRY(cudaGetLastError())
#endif

#endif
