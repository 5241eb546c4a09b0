/* rows_dispatch.cu - which rows-kernel instances exist, and picking one for n.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel rows --threads 32 --n 64 --batch 65536 */
#include <stdio.h>
#include "cuda_check.h"
#include "rows_kernel.cuh"
#include "rows_kernel.h"

static_assert(ROWS_FULL_N == ROWS_FULL_MAX, "rows_kernel.h and rows_kernel.cuh agree");
static_assert(ROWS_PARTS == 8,
              "one potrf_rows_partK per part: the rows_part*.cu files and the table in potrf_batched_rows");

/* The table of the instances, from the list (rows_kernel.h). */
#define ROWS_SIZE_ITEM_(NMAX, T1, T2, T3) {NMAX, {T1, T2, T3}},
extern "C" const rows_size rows_sizes[ROWS_NSIZES] = {ROWS_INSTANCES(ROWS_SIZE_ITEM_)};

extern "C" int rows_nmax_for(int n, int threads)
{
    for (int s = 0; s < ROWS_NSIZES; s++)
        if (n <= rows_sizes[s].nmax)
            for (int k = 0; k < ROWS_MAX_THREADS_PER_SIZE; k++)
                if (rows_sizes[s].threads[k] == threads) return rows_sizes[s].nmax;
    return 0;
}

extern "C" size_t rows_smem_need(int n, int threads, int per_block)
{
    const int nmax = rows_nmax_for(n, threads);
    return nmax ? rows_smem_bytes(nmax, threads, n, per_block) : 0;
}

extern "C" int potrf_batched_rows(int threads, int full, int per_block, int n, size_t batch, size_t chunk,
                                  const float *d_in, float *d_out, int *d_info, cudaStream_t stream)
{
    static int (*const parts[ROWS_PARTS])(ROWS_PART_ARGS) = {potrf_rows_part0, potrf_rows_part1, potrf_rows_part2,
                                                             potrf_rows_part3, potrf_rows_part4, potrf_rows_part5,
                                                             potrf_rows_part6, potrf_rows_part7};
    const int nmax = rows_nmax_for(n, threads);
    for (int s = 0; nmax && s < ROWS_NSIZES; s++)
        if (rows_sizes[s].nmax == nmax)
            return parts[s % ROWS_PARTS](nmax, threads, full, per_block, n, batch, chunk, d_in, d_out, d_info, stream);
    course_report("potrf_batched_rows: no instance for n = %d with %d threads per matrix\n", n, threads);
    return -1;
}
