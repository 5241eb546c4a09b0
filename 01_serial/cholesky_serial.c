/* cholesky_serial.c - stage 01: the serial Cholesky every later stage is a faster version of.
 *
 * Row by row ("Cholesky-Banachiewicz", the natural order for row-major storage): row i needs only
 * rows 0..i of L, and both inner loops walk rows contiguously.
 *   for i = 0..n-1:
 *     for j = 0..i-1:  l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj      (dot product of two rows)
 *     l_ii = sqrt(a_ii - sum_{k<i} l_ik^2)                            (fails if <= 0 or NaN)
 */
#include <math.h>
#include "cholesky_serial.h"

int spotrf_serial(int n, float *a)
{
    // BEGIN SOLUTION: factor A in place row by row, reading only its lower triangle; zero the strict upper triangle; return 0, or i + 1 when pivot i (0-based) fails
    // stub: (void)n; (void)a;
    // stub: return -1;
    for (int i = 0; i < n; i++) {
        float *row_i = a + (size_t)i * n;
        for (int j = 0; j < i; j++) {
            const float *row_j = a + (size_t)j * n;
            float s = row_i[j];
            for (int k = 0; k < j; k++) s -= row_i[k] * row_j[k];
            row_i[j] = s / row_j[j];
        }
        float d = row_i[i];
        for (int k = 0; k < i; k++) d -= row_i[k] * row_i[k];
        if (!(d > 0.0f)) return i + 1; /* the test is written so that NaN fails it too */
        row_i[i] = sqrtf(d);
        for (int j = i + 1; j < n; j++) row_i[j] = 0.0f; /* the contract: upper part zero */
    }
    return 0;
    // END SOLUTION
}

void spotrf_batch_serial(int n, size_t count, float *a, int *info)
{
    for (size_t b = 0; b < count; b++) info[b] = spotrf_serial(n, a + b * (size_t)n * n);
}

void spotrf_batch_omp(int n, size_t count, float *a, int *info)
{
    // BEGIN SOLUTION: factor the count matrices in parallel with OpenMP, info[b] from spotrf_serial
    // stub: (void)n; (void)count; (void)a; (void)info;
    /* Matrices are independent: the easiest parallelism there is. schedule(static) gives each
     * thread one contiguous range of matrices, so each thread streams through its own memory. */
    _Pragma("omp parallel for schedule(static)")
    for (long long b = 0; b < (long long)count; b++) info[b] = spotrf_serial(n, a + (size_t)b * n * n);
    // END SOLUTION
}
