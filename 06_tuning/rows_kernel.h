/* rows_kernel.h - launching stage 06's rows kernel (rows_kernel.cuh) from C. */
#ifndef ROWS_KERNEL_H
#define ROWS_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compiled sizes: NMAX (the largest n of an instance) and the threads per matrix T that each
 * NMAX has. T is kept where NMAX^2 / T floats fit in registers (at most 3 x 128: no spills). */
#define ROWS_NSIZES 8
#define ROWS_MAX_THREADS_PER_SIZE 3
typedef struct {
    int nmax;
    int threads[ROWS_MAX_THREADS_PER_SIZE]; /* 0: none */
} rows_size;
extern const rows_size rows_sizes[ROWS_NSIZES];

/* The instance for n with T threads per matrix: its NMAX, or 0 when none is compiled. */
int rows_nmax_for(int n, int threads);

/* Shared memory one block needs, in bytes. */
size_t rows_smem_need(int n, int threads, int per_block);

/* Instances with every step written out exist for n <= ROWS_FULL_N; all have the loop version. */
#define ROWS_FULL_N 64

/* Launch (arguments checked by the caller): 0, or -1 with a message on stderr. full: every step
 * written out, else a loop over the steps. */
int potrf_batched_rows(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);

/* One per NMAX file (rows_nmax*.cu). */
int potrf_rows_16(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_32(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_48(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_64(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_80(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_96(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_112(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_rows_128(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);

#ifdef __cplusplus
}
#endif

#endif
