/* sanitize_tuning.c - every stage 06 kernel once, small (make sanitize-stage-6 runs it under
 * compute-sanitizer): every rows instance (NMAX x threads per matrix, steps written out and the
 * loop) at an n inside its range with a partial last block and chunk, every cyclic instance
 * (G x slots) on row-major data with a partial last block (batches this small take an instance's
 * steps written out where it has them: cyclic_unrolled; its loop kernel is the one of earlier runs), every staged instance (n = 1 ..
 * STAGED_MAX_N) with a partial last block, and the thread kernel's right- and top-looking orders. */
#include <stdio.h>
#include "batched_small_run.h"
#include "cli.h"
#include "family.h"
#include "gpu_batch.h"
#include "cyclic_kernel.h"
#include "rows_kernel.h"
#include "staged_kernel.h"
#include "small_runs.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv,
                     "usage: sanitize_tuning   (small runs of every stage 06 kernel, for compute-sanitizer)\n");
    const size_t batch = 37; /* not a multiple of any block or chunk below */
    int below = 0;
    for (int s = 0; s < ROWS_NSIZES; s++) {
        const int n =
            rows_sizes[s].nmax - 3 > below ? rows_sizes[s].nmax - 3 : rows_sizes[s].nmax; /* odd-ish, inside */
        below = rows_sizes[s].nmax;
        for (int t = 0; t < ROWS_MAX_THREADS_PER_SIZE; t++) {
            const int T = rows_sizes[s].threads[t];
            if (!T) continue;
            for (int unroll = n <= ROWS_FULL_N ? 0 : 1; unroll < 2; unroll++) {
                const int per_block = T >= 32 ? 2 - (T == 128) : 32 / T;
                batched_config cfg = ROWS_CONFIG(T, per_block, unroll);
                small_run_batched(family_ops, &cfg, n, batch, (size_t)per_block, rowmajor_to_chunked_device,
                                  chunked_to_rowmajor_device);
                if (unroll == (n <= ROWS_FULL_N ? 0 : 1)) /* row-major, n = NMAX: the 16-byte road */
                    small_run_batched(family_ops, &cfg, rows_sizes[s].nmax, batch, 1, rowmajor_to_chunked_device,
                                      chunked_to_rowmajor_device);
            }
        }
    }
    for (int s = 0; s < CYCLIC_NGRIDS; s++)
        for (int k = 0; k < CYCLIC_MAX_SLOTS && cyclic_grids[s].slots[k]; k++) {
            const int T = cyclic_grids[s].threads,
                      n = cyclic_grids[s].cols * cyclic_grids[s].slots[k] - 1; /* the instance's largest n, less one */
            const int per_block = T == 16 ? 4 : T <= 64 ? 3 : 1;
            batched_config cfg = CYCLIC_CONFIG(T, per_block);
            small_run_batched(family_ops, &cfg, n, per_block == 1 ? 3 : 2 * per_block + 1, 1,
                              rowmajor_to_chunked_device, chunked_to_rowmajor_device);
        }
    for (int n = 1; n <= STAGED_MAX_N; n++) {
        batched_config cfg = STAGED_CONFIG(32);
        small_run_batched(family_ops, &cfg, n, batch, 1, rowmajor_to_chunked_device, chunked_to_rowmajor_device);
    }
    batched_config right = THREAD_ORDER_CONFIG(LOOK_RIGHT, 4, 32, 2), top = THREAD_ORDER_CONFIG(LOOK_TOP, 8, 32, 1);
    small_run_batched(family_ops, &right, 33, batch, 17, rowmajor_to_chunked_device, chunked_to_rowmajor_device);
    small_run_batched(family_ops, &top, 20, batch, 32, rowmajor_to_chunked_device, chunked_to_rowmajor_device);
    return small_runs_end("sanitize_tuning");
}
