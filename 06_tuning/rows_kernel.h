/* rows_kernel.h - launching stage 06's rows kernel (rows_kernel.cuh) from C. */
#ifndef ROWS_KERNEL_H
#define ROWS_KERNEL_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The compiled instances, one line each: X(NMAX, T1, T2, T3) is the instance for n <= NMAX with
 * T1, T2 and T3 threads per matrix (0: none). This list is the only place an instance is named:
 * the table rows_sizes[] below, its length, the launch dispatch and the compiled code all come from
 * it (rows_launch.cuh), and test_tuning and sanitize_tuning launch every entry. So adding a size
 * is one line here. Rules (checked when it compiles): NMAX a multiple of 4 and increasing down the
 * list; T a power of two from 4 to 128 with NMAX^2 / T <= 3 x 128 floats (they must fit in
 * registers). Why so many sizes: an instance computes with NMAX rows and NMAX columns of
 * registers whatever n is, so n = 20 in the NMAX = 32 instance wastes a third of its work and
 * needs 128 registers where the NMAX = 20 one needs 64. */
#define ROWS_INSTANCES(X) \
    X(8, 4, 8, 0)         \
    X(12, 4, 8, 0)        \
    X(16, 4, 8, 16)       \
    X(20, 4, 8, 16)       \
    X(24, 4, 8, 16)       \
    X(28, 8, 16, 0)       \
    X(32, 8, 16, 32)      \
    X(36, 8, 16, 32)      \
    X(40, 8, 16, 32)      \
    X(44, 8, 16, 32)      \
    X(48, 16, 32, 0)      \
    X(52, 16, 32, 0)      \
    X(56, 16, 32, 0)      \
    X(60, 16, 32, 0)      \
    X(64, 16, 32, 64)     \
    X(80, 32, 64, 0)      \
    X(96, 32, 64, 0)      \
    X(112, 64, 128, 0)    \
    X(128, 64, 128, 0)

#define ROWS_MAX_THREADS_PER_SIZE 3
#define ROWS_COUNT_ONE_(NMAX, T1, T2, T3) +1
enum { ROWS_NSIZES = 0 ROWS_INSTANCES(ROWS_COUNT_ONE_) };
typedef struct {
    int nmax;
    int threads[ROWS_MAX_THREADS_PER_SIZE]; /* 0: none */
} rows_size;
extern const rows_size rows_sizes[ROWS_NSIZES];

/* The compiled code is shared out over ROWS_PARTS files, rows_part0.cu .. (entry s of the list in
 * file s % ROWS_PARTS), so that make compiles them in parallel. */
#define ROWS_PARTS 8

/* The instance for n with T threads per matrix: its NMAX, or 0 when none is compiled. */
int rows_nmax_for(int n, int threads);

/* Shared memory one block needs, in bytes. */
size_t rows_smem_need(int n, int threads, int per_block);

/* Instances with every step written out exist for n <= ROWS_FULL_N; all have the loop version. */
#define ROWS_FULL_N 64

/* Launch (arguments checked by the caller) on stream, reading d_in and writing d_out (may be
 * d_in): 0, or -1 with a message on stderr. full: every step written out, else a loop over the steps. */
int potrf_batched_rows(int threads, int full, int per_block, int n, size_t batch, size_t chunk, const float *d_in,
                       float *d_out, int *d_info, cudaStream_t stream);

/* One per part file (rows_part*.cu): the instance (nmax, threads) if that file holds it. */
#define ROWS_PART_ARGS                                                                                    \
    int nmax, int threads, int full, int per_block, int n, size_t batch, size_t chunk, const float *d_in, \
        float *d_out, int *d_info, cudaStream_t stream
int potrf_rows_part0(ROWS_PART_ARGS);
int potrf_rows_part1(ROWS_PART_ARGS);
int potrf_rows_part2(ROWS_PART_ARGS);
int potrf_rows_part3(ROWS_PART_ARGS);
int potrf_rows_part4(ROWS_PART_ARGS);
int potrf_rows_part5(ROWS_PART_ARGS);
int potrf_rows_part6(ROWS_PART_ARGS);
int potrf_rows_part7(ROWS_PART_ARGS);

#ifdef __cplusplus
}
#endif

#endif
