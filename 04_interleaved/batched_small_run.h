/* batched_small_run.h - one small batched run for the sanitizer programs of stages 04 and 05:
 * a seeded SPD batch goes into the layout (with to_layout), is factored by cfg, comes back (with
 * to_rowmajor) and is checked (common/small_runs.h). */
#ifndef BATCHED_SMALL_RUN_H
#define BATCHED_SMALL_RUN_H

#include <stddef.h>
#include "batched_cholesky.h"
#include "gpu_batch.h" /* layout_converter */

/* chunk 0: the simple interleaved layout. */
void small_run_batched(batched_kernel_lookup kernels, const batched_config *cfg, int n, size_t batch, size_t chunk,
                       layout_converter to_layout, layout_converter to_rowmajor);

#endif
