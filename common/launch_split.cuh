/* launch_split.cuh - one kernel over more blocks than one launch may have. A grid holds at most
 * 2^31 - 1 blocks in x; a batch of 2^31 small matrices at one per block (or a few per block of a
 * larger batch) needs more, so it goes in several launches, each told where it starts:
 *
 *     launch_split(blocks, [&](unsigned count, size_t first_block) {
 *         my_kernel<<<count, threads, shared>>>(..., first_block * per_block, ...);
 *     });
 *
 * The lambda launches `count` blocks that stand for blocks first_block .. first_block + count - 1
 * of the whole grid; every launch is followed by the check of the last error (KERNEL_CHECK).
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 20 --batch 100000 */
#ifndef LAUNCH_SPLIT_CUH
#define LAUNCH_SPLIT_CUH

#include <stddef.h>
#include "cuda_check.h"

#define LAUNCH_MAX_BLOCKS ((size_t)0x7fffffff) /* gridDim.x's limit */

template <typename LaunchPart>
static void launch_split(size_t blocks, LaunchPart launch_part)
{
    for (size_t first = 0; first < blocks; first += LAUNCH_MAX_BLOCKS) {
        const size_t count = blocks - first < LAUNCH_MAX_BLOCKS ? blocks - first : LAUNCH_MAX_BLOCKS;
        launch_part((unsigned)count, first);
        KERNEL_CHECK();
    }
}

#endif
