/* rows_launch.cuh - the host side of one rows-kernel instance: shared memory, grid, launch.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel rows --threads 32 --n 64 --batch 65536 */
#ifndef ROWS_LAUNCH_CUH
#define ROWS_LAUNCH_CUH

#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "rows_kernel.cuh"
#include "rows_kernel.h"

template <int NMAX, int T, bool FULL> static int rows_launch_one(int per_block, int n, size_t batch, size_t chunk,
                                                                 const float *d_in, float *d_out, int *d_info,
                                                                 cudaStream_t stream)
{
    static int optin_of[64]; /* once per instance and GPU: allow all the shared memory the GPU offers a block */
    const int optin = launch_smem_optin(potrf_rows_kernel<NMAX, T, FULL>, optin_of);
    if (!optin) return -1; /* a CUDA error, noted */
    const size_t smem = rows_smem_bytes(NMAX, T, n, per_block);
    if (smem > (size_t)optin) {
        course_report("potrf_batched_rows: %d matrices of order %d per block need %zu bytes of shared memory, this GPU "
                      "offers %d\n",
                      per_block, n, smem, optin);
        return -1;
    }
    return launch_split((batch + per_block - 1) / per_block, stream, [&](unsigned k, size_t first_block) {
        potrf_rows_kernel<NMAX, T, FULL><<<k, per_block * T, smem, stream>>>(
            d_in, d_out, n, batch, chunk, first_block * per_block, per_block, d_info);
    });
}

static int rows_not_compiled(int nmax, int threads)
{
    course_report("potrf_batched_rows: NMAX = %d with %d threads per matrix is not compiled in\n", nmax, threads);
    return -1;
}

/* full: every step written out (NMAX <= ROWS_FULL_MAX only); else the loop over k. */
template <int NMAX, int T> static int rows_launch(int full, int per_block, int n, size_t batch, size_t chunk,
                                                  const float *d_in, float *d_out, int *d_info, cudaStream_t stream)
{
    if (!full) return rows_launch_one<NMAX, T, false>(per_block, n, batch, chunk, d_in, d_out, d_info, stream);
    if constexpr (NMAX <= ROWS_FULL_MAX)
        return rows_launch_one<NMAX, T, true>(per_block, n, batch, chunk, d_in, d_out, d_info, stream);
    return rows_not_compiled(NMAX, T);
}

/* The list (rows_kernel.h) as compile-time data: which part file compiles entry s, and the rules
 * an entry must keep. */
#define ROWS_NMAX_ITEM_(NMAX, T1, T2, T3) NMAX,
constexpr int rows_list_nmax[] = {ROWS_INSTANCES(ROWS_NMAX_ITEM_)};
constexpr int rows_part_of(int nmax)
{
    for (int s = 0; s < ROWS_NSIZES; s++)
        if (rows_list_nmax[s] == nmax) return s % ROWS_PARTS;
    return -1;
}
constexpr bool rows_list_ok()
{
    for (int s = 0; s < ROWS_NSIZES; s++)
        if (rows_list_nmax[s] % 4 || (s && rows_list_nmax[s] <= rows_list_nmax[s - 1])) return false;
    return true;
}
static_assert(rows_list_ok(), "ROWS_INSTANCES: each NMAX a multiple of 4, increasing");

/* Launch instance (NMAX, T) if it is the one asked for and this part compiles it (T = 0: none). */
template <int PART, int NMAX, int T> static void rows_try(int nmax, int threads, int full, int per_block, int n,
                                                          size_t batch, size_t chunk, const float *d_in, float *d_out,
                                                          int *d_info, cudaStream_t stream, int *rc)
{
    if constexpr (T > 0 && rows_part_of(NMAX) == PART)
        if (nmax == NMAX && threads == T)
            *rc = rows_launch<NMAX, T>(full, per_block, n, batch, chunk, d_in, d_out, d_info, stream);
}

/* Part file K: potrf_rows_partK launches the instances of entries K, K + ROWS_PARTS, ... */
#define ROWS_TRY_ENTRY_(NMAX, T1, T2, T3)                                                                        \
    rows_try<PART, NMAX, T1>(nmax, threads, full, per_block, n, batch, chunk, d_in, d_out, d_info, stream, &rc); \
    rows_try<PART, NMAX, T2>(nmax, threads, full, per_block, n, batch, chunk, d_in, d_out, d_info, stream, &rc); \
    rows_try<PART, NMAX, T3>(nmax, threads, full, per_block, n, batch, chunk, d_in, d_out, d_info, stream, &rc);
template <int PART> static int rows_part_launch(ROWS_PART_ARGS)
{
    int rc = -2;
    ROWS_INSTANCES(ROWS_TRY_ENTRY_)
    return rc == -2 ? rows_not_compiled(nmax, threads) : rc;
}
#define ROWS_PART(K)                                                                                              \
    extern "C" int potrf_rows_part##K(ROWS_PART_ARGS)                                                             \
    {                                                                                                             \
        return rows_part_launch<K>(nmax, threads, full, per_block, n, batch, chunk, d_in, d_out, d_info, stream); \
    }

#endif
