/* cusolver_oracle.h - cuSOLVER as the reference every GPU stage is tested and timed against.
 *
 * Row-major lower == column-major upper. Our matrices are row-major and we want A = L L^T with L
 * lower. cuSOLVER is column-major: it reads our buffer as A^T, which is A again (A is symmetric).
 * Asking it for the UPPER factor U (A = U^T U, column-major) writes U into the upper triangle of
 * the column-major array, i.e. U^T = L into the lower triangle of our row-major buffer. So we pass
 * CUBLAS_FILL_MODE_UPPER and get L row-major, with no transposes. cuSOLVER leaves the other
 * triangle untouched; zero_strict_upper() (checks.h) clears it before comparisons. */
#ifndef CUSOLVER_ORACLE_H
#define CUSOLVER_ORACLE_H

#include <stddef.h>
#include <cusolverDn.h>
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One matrix, host in and out, cusolverDnSpotrf; L gets the factor with a zero upper part.
 * Returns info. */
int oracle_potrf_host(int n, const float *A, float *L);

/* One matrix in float64 on the GPU (cusolverDnDpotrf on A widened): the reference for orders whose
 * O(n^3) float64 factor would take minutes on the CPU. L64 gets the factor with a zero upper part.
 * Returns info. */
int oracle_potrf_double_host(int n, const float *A, double *L64);

/* A float64 batch, host in and out, cusolverDnDpotrf matrix by matrix (one handle and workspace):
 * L gets the factors with zero upper parts, info[count] LAPACK's dpotrf infos. Only the lower
 * triangle of A is read (the upper one may hold garbage). */
void oracle_dpotrf_host(int n, size_t count, const double *A, double *L, int *info);

/* A batch, host in and out, cusolverDnSpotrfBatched; info[count]. */
void oracle_potrf_batched_host(int n, size_t count, const float *A, float *L, int *info);

/* For timing: a batch already on the device (count row-major matrices at d_A, factored in
 * place). Setup builds the handle and the pointer array outside the timed region. */
typedef struct {
    cusolverDnHandle_t handle;
    float **d_ptrs;
    int *d_info;
    int n;
    size_t count;
} oracle_batched;

void oracle_batched_setup(oracle_batched *o, int n, float *d_A, size_t count);
void oracle_batched_run(oracle_batched *o); /* asynchronous, on the default stream */
void oracle_batched_teardown(oracle_batched *o);

/* For timing one matrix: handle and workspace set up outside the timed region. */
typedef struct {
    cusolverDnHandle_t handle;
    float *d_A, *d_work;
    int *d_info;
    int n, lwork;
} oracle_single;

void oracle_single_setup(oracle_single *o, int n, float *d_A);
void oracle_single_run(oracle_single *o);
void oracle_single_teardown(oracle_single *o);

/* Timings (timing.h protocol: the input is restored from a pristine copy outside the timed
 * region; handle, pointer array and workspace are set up outside it too). */
timing_stats oracle_time_potrf(int n, const float *A_host);
timing_stats oracle_time_potrf_batched(int n, size_t count, const float *d_pristine);
/* The same matrix through the 64-bit generic API, cusolverDnXpotrf (fp32 data and compute): the
 * one a user of CUDA 11+ examples calls; it may pick another algorithm than cusolverDnSpotrf. */
timing_stats oracle_time_xpotrf(int n, const float *A_host);

#ifdef __cplusplus
}
#endif

#endif
