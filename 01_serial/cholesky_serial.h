/* cholesky_serial.h - stage 01: Cholesky on the CPU, one matrix at a time. */
#ifndef CHOLESKY_SERIAL_H
#define CHOLESKY_SERIAL_H

#include <stddef.h>
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A = L L^T for one n x n row-major matrix, in place, from its lower triangle only (the strict
 * upper triangle may hold anything: it is never read): on return the lower triangle holds L and
 * the strict upper triangle is zero. Returns 0, or k when the leading minor of order k is not
 * positive definite or its pivot is NaN (then the matrix holds a partial result). */
int spotrf_serial(int n, float *a);

/* count matrices stored one after the other (row-major), info[count]. */
void spotrf_batch_serial(int n, size_t count, float *a, int *info);

/* The same batch, matrices shared among OpenMP threads (one matrix per thread at a time). */
void spotrf_batch_omp(int n, size_t count, float *a, int *info);

/* Wall-clock timing of the serial (omp = 0) or OpenMP (omp = 1) batch on count matrices A,
 * restored from A before every repeat (timing.h protocol; used by the benchmarks of later
 * stages to put stage 01 in their tables). */
timing_stats time_spotrf_cpu(int n, size_t count, const float *A, int omp, int repeats);

#ifdef __cplusplus
}
#endif

#endif
