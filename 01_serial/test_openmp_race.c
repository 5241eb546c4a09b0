/* test_openmp_race.c - spotrf_batch_omp on 4 threads, built with ThreadSanitizer (01_serial/stage.mk).
 * test_serial runs it before its openmp group: a variable the threads share by mistake (a temporary
 * declared outside the loop, a parallel region without `for`) is a data race that ThreadSanitizer
 * reports whatever the CPU count, even where -O3 keeps the variable in a register and the factors
 * come out right. Exit 0: no race; 66 (TSAN_OPTIONS=exitcode=66): a race, reported on stderr. */
#include <omp.h>
#include <stdlib.h>
#include "cholesky_serial.h"

int main(void)
{
    enum { N = 16, COUNT = 64 };
    float *a = malloc(sizeof(float) * N * N * COUNT);
    int *info = malloc(sizeof(int) * COUNT);
    if (!a || !info) return 2;
    for (int b = 0; b < COUNT; b++) /* diagonally dominant: SPD */
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) a[(b * N + i) * N + j] = i == j ? N + 1.0f : 1.0f / (1 + i + j);
    omp_set_num_threads(4); /* whatever OMP_NUM_THREADS says, as the openmp group runs it */
    spotrf_batch_omp(N, COUNT, a, info);
    free(a);
    free(info);
    return 0;
}
