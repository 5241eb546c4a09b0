/* test_chunked.c - stage 05 tests (GPU; skipped without one). The stage 04 kernels on the chunked
 * interleaved layout: every looking order x NB for the tile kernel and the thread-per-matrix
 * kernel, over n in {1, 7, 20, 31, 33, 64, 100, 128} x batch in {1, 3, 1000, 1025, 4096} x
 * chunk in {1, 8, 32, 64, 100} - chunk 1 is row-major, and most batches end in a partial chunk -
 * each batch mixing spd, ill-conditioned, non-SPD and one NaN matrix, against
 * cusolverDnSpotrfBatched. The input is packed and the result unpacked by the test's own code
 * (batched_testing.h), not by layout.h, so an index bug cannot hide on both sides. Then a batch
 * past 2^31 floats and a 1 GiB one in chunks, checked by sampling. */
#include <stdio.h>
#include "batched_testing.h"

/* per_block deliberately unrelated to the chunk: blocks straddle chunks and the last chunk */
static const batched_config configs[] = {
    {BATCHED_TILES, LOOK_RIGHT, 8, 5, 1}, {BATCHED_TILES, LOOK_LEFT, 8, 5, 1}, {BATCHED_TILES, LOOK_TOP, 8, 5, 1},
    {BATCHED_TILES, LOOK_TOP, 4, 16, 1},  {BATCHED_TILES, LOOK_RIGHT, 16, 3, 1},
    {BATCHED_THREAD, LOOK_LEFT, 4, 64, 2}, {BATCHED_THREAD, LOOK_LEFT, 8, 32, 1},
};

int main(void)
{
    harness h;
    harness_begin(&h, "stage-5");
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        const char *names[] = {"kernels x orders x NB x n x batch x chunk vs cuSOLVER (chunked)", "large batches by sampling"};
        for (int k = 0; k < 2; k++) harness_skip(&h, names[k], reason);
        return harness_end(&h);
    }
    const int ns[] = {1, 7, 20, 31, 33, 64, 100, 128};
    const size_t batches[] = {1, 3, 1000, 1025, 4096}, chunks[] = {1, 8, 32, 64, 100};
    test_configs(&h, "chunked", configs, sizeof configs / sizeof configs[0], ns, 8, batches, 5, chunks, 5);
    const batched_config fast = {BATCHED_THREAD, LOOK_LEFT, 4, 64, 2}, tiles = {BATCHED_TILES, LOOK_LEFT, 8, 16, 1};
    test_large_batch(&h, &fast, 20, 64, (size_t)9 << 30, 64); /* 2.4e9 floats: past 32-bit offsets */
    test_large_batch(&h, &tiles, 100, 16, (size_t)1 << 30, 32);
    return harness_end(&h);
}
