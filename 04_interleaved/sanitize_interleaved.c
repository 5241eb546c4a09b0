/* sanitize_interleaved.c - every stage 04 kernel once, small (make sanitize-stage-4 runs it, and
 * a sliced run of the driver, under compute-sanitizer): the tile kernel in the three looking
 * orders for NB = 4, 8, 16, 32 and the thread-per-matrix kernel for NB = 2, 4, 8 and unroll 1, 2,
 * 4, on odd n and batches that leave the last block partial, simple interleaved layout. */
#include "batched_small_run.h"
#include "cli.h"
#include "gpu_batch.h"
#include "small_runs.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv,
                     "usage: sanitize_interleaved   (small runs of every stage 04 kernel, for compute-sanitizer)\n");
    for (int order = 0; order < LOOK_COUNT; order++)
        for (int nb = 4; nb <= 32; nb *= 2) {
            int per_block = 1024 / (nb * nb) < 3 ? 1024 / (nb * nb) : 3; /* 7 = 2 x 3 + 1: a partial last block */
            batched_config cfg = TILES_CONFIG((looking_order)order, nb, per_block);
            small_run_batched(batched_kernel_find, &cfg, 5, 7, 0, rowmajor_to_chunked_device,
                              chunked_to_rowmajor_device);
            small_run_batched(batched_kernel_find, &cfg, 33, 7, 0, rowmajor_to_chunked_device,
                              chunked_to_rowmajor_device);
        }
    const int ns[] = {1, 7, 33};
    for (int nb = 2; nb <= 8; nb *= 2)
        for (int unroll = 1; unroll <= 4; unroll *= 2)
            for (int s = 0; s < 3; s++) {
                batched_config cfg = THREAD_CONFIG(nb, 32, unroll);
                small_run_batched(batched_kernel_find, &cfg, ns[s], 37, 0, rowmajor_to_chunked_device,
                                  chunked_to_rowmajor_device);
            }
    return small_runs_end("sanitize_interleaved");
}
