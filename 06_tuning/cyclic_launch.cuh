/* cyclic_launch.cuh - the host side of one cyclic-kernel instance: grid, shared memory, launch.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel cyclic --threads 64 --n 100 --batch 26844 */
#ifndef CYCLIC_LAUNCH_CUH
#define CYCLIC_LAUNCH_CUH

#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "cyclic_kernel.cuh"
#include "cyclic_kernel.h"

/* How many blocks of `kernel` an SM holds; the SM count in *sms. */
template <typename Kernel> static int cyclic_blocks_per_sm(Kernel kernel, int threads, size_t smem, int *sms)
{
    int dev, per_sm;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    return per_sm;
}

/* Do `blocks` blocks of `kernel` fill the GPU at least CYCLIC_CAP_WAVES times over? */
#define CYCLIC_CAP_WAVES 4
template <typename Kernel> static bool cyclic_many_waves(Kernel kernel, size_t blocks, int threads, size_t smem)
{
    int sms;
    const int per_sm = cyclic_blocks_per_sm(kernel, threads, smem, &sms);
    return blocks >= (size_t)CYCLIC_CAP_WAVES * sms * per_sm;
}

/* Does `wide` (the unrolled kernel, more registers) hold on an SM as many of these blocks as they
 * would use there with `narrow`: all of them at once (one wave), or as many as `narrow` holds? */
template <typename Wide, typename Narrow>
static bool cyclic_room_for(Wide wide, Narrow narrow, size_t blocks, int threads, size_t smem)
{
    int sms;
    const size_t per_sm_wide = cyclic_blocks_per_sm(wide, threads, smem, &sms),
                 per_sm_narrow = cyclic_blocks_per_sm(narrow, threads, smem, &sms);
    const size_t used = (blocks + sms - 1) / sms; /* blocks an SM gets if all fit at once */
    return per_sm_wide >= (used < per_sm_narrow ? used : per_sm_narrow);
}

template <int T, int A>
static int cyclic_launch_one(int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    const size_t smem = (size_t)per_block * cyclic_buf_floats(T, A) * sizeof(float),
                 blocks = (batch + per_block - 1) / per_block;
    bool capped = false; /* the register cap (cyclic_reg_cap) where the batch is many waves of blocks */
    if constexpr (cyclic_reg_cap(T, A) > 0)
        capped = cyclic_many_waves(potrf_cyclic_kernel_capped<T, A>, blocks, per_block * T, smem);
    bool unrolled = false; /* the steps written out where they cost no block a place on an SM */
    if constexpr (cyclic_unrolled(T, A))
        unrolled = !capped && cyclic_room_for(potrf_cyclic_kernel_unrolled<T, A>, potrf_cyclic_kernel<T, A>, blocks,
                                              per_block * T, smem);
    launch_split(blocks, [&](unsigned k, size_t first_block) {
        if constexpr (cyclic_unrolled(T, A))
            if (unrolled) {
                potrf_cyclic_kernel_unrolled<T, A>
                    <<<k, per_block * T, smem>>>(d_A, n, batch, chunk, first_block * per_block, per_block, d_info);
                return;
            }
        if constexpr (cyclic_reg_cap(T, A) > 0)
            if (capped) {
                potrf_cyclic_kernel_capped<T, A>
                    <<<k, per_block * T, smem>>>(d_A, n, batch, chunk, first_block * per_block, per_block, d_info);
                return;
            }
        potrf_cyclic_kernel<T, A>
            <<<k, per_block * T, smem>>>(d_A, n, batch, chunk, first_block * per_block, per_block, d_info);
    });
    return 0;
}

static int cyclic_not_compiled(int threads, int slots)
{
    fprintf(stderr, "potrf_batched_cyclic: T = %d with %d slots is not compiled in\n", threads, slots);
    return -1;
}

/* Launch instance (T, A) if it is the one asked for and this part compiles it. */
template <int PART, int T, int A> static void cyclic_try(int threads, int slots, int per_block, int n, size_t batch,
                                                         size_t chunk, float *d_A, int *d_info, int *rc)
{
    if constexpr (cyclic_part_of(T, A) == PART)
        if (threads == T && slots == A) *rc = cyclic_launch_one<T, A>(per_block, n, batch, chunk, d_A, d_info);
}

/* Part file K: potrf_cyclic_partK launches the instances of entries K, K + CYCLIC_PARTS, ... */
#define CYCLIC_TRY_ENTRY_(T, A) cyclic_try<PART, T, A>(threads, slots, per_block, n, batch, chunk, d_A, d_info, &rc);
template <int PART> static int cyclic_part_launch(CYCLIC_PART_ARGS)
{
    int rc = -2;
    CYCLIC_INSTANCES(CYCLIC_TRY_ENTRY_)
    return rc == -2 ? cyclic_not_compiled(threads, slots) : rc;
}
#define CYCLIC_PART(K)                                                                         \
    extern "C" int potrf_cyclic_part##K(CYCLIC_PART_ARGS)                                      \
    {                                                                                          \
        return cyclic_part_launch<K>(threads, slots, per_block, n, batch, chunk, d_A, d_info); \
    }

#endif
