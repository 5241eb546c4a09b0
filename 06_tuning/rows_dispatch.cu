/* rows_dispatch.cu - which rows-kernel instances exist, and picking one for n. */
#include <stdio.h>
#include "rows_kernel.cuh"
#include "rows_kernel.h"

static_assert(ROWS_FULL_N == ROWS_FULL_MAX, "rows_kernel.h and rows_kernel.cuh agree");

/* Must match the ROWS_FILE lines of rows_nmax*.cu (test_tuning launches every entry). */
extern "C" const rows_size rows_sizes[ROWS_NSIZES] = {
    {16, {4, 8, 16}}, {32, {8, 16, 32}}, {48, {16, 32, 0}}, {64, {16, 32, 64}},
    {80, {32, 64, 0}}, {96, {32, 64, 0}}, {112, {64, 128, 0}}, {128, {64, 128, 0}},
};

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

extern "C" int potrf_batched_rows(int threads, int full, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    switch (rows_nmax_for(n, threads)) {
    case 16: return potrf_rows_16(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 32: return potrf_rows_32(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 48: return potrf_rows_48(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 64: return potrf_rows_64(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 80: return potrf_rows_80(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 96: return potrf_rows_96(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 112: return potrf_rows_112(threads, full, per_block, n, batch, chunk, d_A, d_info);
    case 128: return potrf_rows_128(threads, full, per_block, n, batch, chunk, d_A, d_info);
    }
    fprintf(stderr, "potrf_batched_rows: no instance for n = %d with %d threads per matrix\n", n, threads);
    return -1;
}
