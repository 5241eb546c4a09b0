/* cyclic_launch.cuh - the host side of one cyclic-kernel instance: grid, shared memory, launch.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel cyclic --threads 64 --n 100 --batch 26844 */
#ifndef CYCLIC_LAUNCH_CUH
#define CYCLIC_LAUNCH_CUH

#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "cyclic_kernel.cuh"
#include "cyclic_kernel.h"

/* How many blocks of Kernel an SM holds with `threads` threads (a multiple of 16, at most
 * CYCLIC_MAX_BLOCK) and `smem` bytes each: asked once per device and block size (the answer is a
 * function of the kernel, the GPU and the block; asking at every launch cost microseconds of a
 * 10-microsecond factorization). */
template <auto Kernel> static int cyclic_blocks_per_sm(int threads, size_t smem)
{
    static int cache[CYCLIC_MAX_BLOCK / 16 + 1][64];         /* by block size, then device */
    return launch_per_device(cache[threads / 16], [&](int) { /* 0: a CUDA error, noted */
                                                             int per_sm;
                                                             const int failed = [&]() {
                                                                 CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                                                     &per_sm, Kernel, threads, smem));
                                                                 return 0;
                                                             }();
                                                             return failed ? 0 : per_sm;
    });
}

/* Do `blocks` blocks of Kernel fill the GPU at least CYCLIC_CAP_WAVES times over? */
#define CYCLIC_CAP_WAVES 4
template <auto Kernel> static bool cyclic_many_waves(size_t blocks, int threads, size_t smem)
{
    return blocks >= (size_t)CYCLIC_CAP_WAVES * launch_sm_count() * cyclic_blocks_per_sm<Kernel>(threads, smem);
}

/* Does Wide (the unrolled kernel, more registers) take no more waves of blocks than Narrow (the
 * loop)? One wave: it holds all the blocks at once; more: as many waves as the loop. (The rule was
 * "as many blocks an SM as the loop uses"; when the loop's registers fell from 114 to 88 at
 * T = 128, A = 6, that sent 1024 matrices of n = 90 to the loop although both take two waves:
 * 50.3 -> 62.2 us on the H100. A tie in waves goes to the unrolled code, faster a step.) */
template <auto Wide, auto Narrow> static bool cyclic_room_for(size_t blocks, int threads, size_t smem)
{
    const size_t wide = cyclic_blocks_per_sm<Wide>(threads, smem), narrow = cyclic_blocks_per_sm<Narrow>(threads, smem),
                 sms = launch_sm_count();
    if (!wide || !narrow) return false;
    return (blocks + sms * wide - 1) / (sms * wide) <= (blocks + sms * narrow - 1) / (sms * narrow);
}

/* The rules for an instance with R row slots where the variant was not given (0): the register
 * cap (cyclic_reg_cap) where the batch is many waves of blocks; else the steps written out where
 * they cost no wave (cyclic_room_for); else the loop. */
template <int T, int A, int R> static int cyclic_rule_rows(size_t blocks, int block_threads, size_t smem)
{
    if constexpr (cyclic_reg_cap(T, A) > 0)
        if (cyclic_many_waves<potrf_cyclic_kernel_capped<T, A, R>>(blocks, block_threads, smem)) return CYCLIC_CAPPED;
    if constexpr (cyclic_unrolled(T, R))
        if (cyclic_room_for<potrf_cyclic_kernel_unrolled<T, A, R, true>, potrf_cyclic_kernel<T, A, R>>(
                blocks, block_threads, smem)) /* (the in-place instance: the more registers of the two) */
            return CYCLIC_UNROLLED;
    return CYCLIC_LOOP;
}

/* The rules of instance (T, A) for a batch: a wide grid (4 x 8, 8 x 16) whose rows end at n or
 * past it with one row slot less takes that instance where the batch is many waves of blocks: the
 * last row slot holds only padding then, and every step updates it. H100, same run, 1 GiB of
 * row-major matrices, 4 x 8 grid (rowmajor auto): n = 49, 50, 52 1.10x, 1.11x, 1.13x faster (n = 50
 * 0.893 -> 0.806 ms, 80 -> 89 % of the copy roofline; n = 52 0.836 -> 0.740, 86 -> 97 %), n = 33
 * and 41 1.04x and 1.03x. For 1024 matrices (one wave, a matrix's chain of steps is the time) the
 * trimmed code was 2-3 % slower at n = 49..52 (4 x 8) and 2.5-2.8 % faster at n = 81 and 88
 * (8 x 16): too little either way, so they keep the full one. */
template <int T, int A> static int cyclic_rule(int per_block, int n, size_t batch)
{
    constexpr int TRIMMED = cyclic_trimmed_rows(T, A);
    const size_t smem = (size_t)per_block * cyclic_buf_elements(T, A) * sizeof(float),
                 blocks = (batch + per_block - 1) / per_block;
    if constexpr (TRIMMED > 0)
        if (n <= cyclic_grid_rows(T) * TRIMMED &&
            cyclic_many_waves<potrf_cyclic_kernel<T, A, TRIMMED>>(blocks, per_block * T, smem))
            return CYCLIC_TRIMMED + cyclic_rule_rows<T, A, TRIMMED>(blocks, per_block * T, smem);
    return cyclic_rule_rows<T, A, cyclic_full_rows(T, A)>(blocks, per_block * T, smem);
}

/* A batch of two waves of blocks: each block of the first asks L2, halfway through its matrix, for
 * the matrix of the block that will take its place (`ahead` matrices further), so that the second
 * wave reads from L2 what it would wait for from memory (registers make 1024 matrices of
 * n = 90..128 two waves). Halfway, not at the start: there the requests compete with the first
 * wave's own loads. The measurements: the README's round eight. */
template <auto Kernel> static size_t cyclic_ahead(size_t blocks, int threads, size_t smem, int per_block)
{
    const size_t wave = (size_t)launch_sm_count() * cyclic_blocks_per_sm<Kernel>(threads, smem);
    return wave && blocks > wave && blocks <= 2 * wave ? wave * per_block : 0;
}

/* Plain, or its twin Ahead (the same kernel with AHEAD) where the batch is two waves; instances
 * without a twin (cyclic_prefetches) pass Plain twice and PREFETCHES false. */
template <auto Plain, auto Ahead, bool PREFETCHES>
static void cyclic_launch_kernel(unsigned k, int threads, size_t smem, cudaStream_t stream, const float *d_in,
                                 float *d_out, int n, size_t batch, size_t chunk, size_t first, int per_block,
                                 size_t blocks, int *d_info)
{
    if constexpr (PREFETCHES) {
        const size_t ahead = cyclic_ahead<Ahead>(blocks, threads, smem, per_block);
        if (ahead) {
            Ahead<<<k, threads, smem, stream>>>(d_in, d_out, n, batch, chunk, first, per_block, ahead, d_info);
            return;
        }
    }
    Plain<<<k, threads, smem, stream>>>(d_in, d_out, n, batch, chunk, first, per_block, 0, d_info);
}

/* Launch instance (T, A, R) as `kind` (CYCLIC_LOOP, _UNROLLED or _CAPPED; a kind this instance
 * does not compile was refused by cyclic_variant_exists: the loop then). */
template <int T, int A, int R> static int cyclic_launch_one(int kind, int per_block, int n, size_t batch, size_t chunk,
                                                            const float *d_in, float *d_out, int *d_info,
                                                            cudaStream_t stream)
{
    constexpr bool PF = cyclic_prefetches(T, A);
    const size_t smem = (size_t)per_block * cyclic_buf_elements(T, A) * sizeof(float),
                 blocks = (batch + per_block - 1) / per_block;
    const int threads = per_block * T;
    return launch_split(blocks, stream, [&](unsigned k, size_t first_block) {
        const size_t first = first_block * per_block;
        if constexpr (cyclic_unrolled(T, R))
            if (kind == CYCLIC_UNROLLED) {
                if (d_in == d_out)
                    cyclic_launch_kernel<potrf_cyclic_kernel_unrolled<T, A, R, true>,
                                         potrf_cyclic_kernel_unrolled<T, A, R, true, PF>, PF>(
                        k, threads, smem, stream, d_in, d_out, n, batch, chunk, first, per_block, blocks, d_info);
                else
                    cyclic_launch_kernel<potrf_cyclic_kernel_unrolled<T, A, R, false>,
                                         potrf_cyclic_kernel_unrolled<T, A, R, false, PF>, PF>(
                        k, threads, smem, stream, d_in, d_out, n, batch, chunk, first, per_block, blocks, d_info);
                return;
            }
        if constexpr (cyclic_reg_cap(T, A) > 0)
            if (kind == CYCLIC_CAPPED) {
                cyclic_launch_kernel<potrf_cyclic_kernel_capped<T, A, R>, potrf_cyclic_kernel_capped<T, A, R, PF>, PF>(
                    k, threads, smem, stream, d_in, d_out, n, batch, chunk, first, per_block, blocks, d_info);
                return;
            }
        cyclic_launch_kernel<potrf_cyclic_kernel<T, A, R>, potrf_cyclic_kernel<T, A, R, PF>, PF>(
            k, threads, smem, stream, d_in, d_out, n, batch, chunk, first, per_block, blocks, d_info);
    });
}

static int cyclic_not_compiled(int threads, int slots)
{
    course_report("potrf_batched_cyclic: T = %d with %d slots is not compiled in\n", threads, slots);
    return -1;
}

/* Instance (T, A), if it is the one asked for and this part compiles it: with batch = 0 only the
 * variant its rules pick (into *rc); else launched as `variant` (0: its rules' choice). */
template <int PART, int T, int A> static void cyclic_try(int threads, int slots, int variant, int per_block, int n,
                                                         size_t batch, size_t chunk, const float *d_in, float *d_out,
                                                         int *d_info, cudaStream_t stream, int *rc)
{
    if constexpr (cyclic_part_of(T, A) == PART)
        if (threads == T && slots == A) {
            if (variant == 0 || !d_in) variant = cyclic_rule<T, A>(per_block, n, batch);
            if (!d_in) {
                *rc = variant;
                return;
            }
            constexpr int TRIMMED = cyclic_trimmed_rows(T, A);
            const int kind = variant & ~CYCLIC_TRIMMED;
            if constexpr (TRIMMED > 0)
                if (variant & CYCLIC_TRIMMED) {
                    *rc =
                        cyclic_launch_one<T, A, TRIMMED>(kind, per_block, n, batch, chunk, d_in, d_out, d_info, stream);
                    return;
                }
            *rc = cyclic_launch_one<T, A, cyclic_full_rows(T, A)>(kind, per_block, n, batch, chunk, d_in, d_out, d_info,
                                                                  stream);
        }
}

/* Part file K: potrf_cyclic_partK launches the instances of entries K, K + CYCLIC_PARTS, ... */
#define CYCLIC_TRY_ENTRY_(T, A) \
    cyclic_try<PART, T, A>(threads, slots, variant, per_block, n, batch, chunk, d_in, d_out, d_info, stream, &rc);
template <int PART> static int cyclic_part_launch(CYCLIC_PART_ARGS)
{
    int rc = -2;
    CYCLIC_INSTANCES(CYCLIC_TRY_ENTRY_)
    return rc == -2 ? cyclic_not_compiled(threads, slots) : rc;
}
#define CYCLIC_PART(K)                                                                                         \
    extern "C" int potrf_cyclic_part##K(CYCLIC_PART_ARGS)                                                      \
    {                                                                                                          \
        return cyclic_part_launch<K>(threads, slots, variant, per_block, n, batch, chunk, d_in, d_out, d_info, \
                                     stream);                                                                  \
    }

#endif
