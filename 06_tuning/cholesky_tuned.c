/* cholesky_tuned.c - the stage 06 driver: stage 04's driver (batched_driver.c) with the whole
 * kernel family and `--kernel auto`, the default, which takes the configuration the tuned table
 * of this GPU (tuned.h: tuned_table_pick) holds for the run's n and batch size.
 *
 *   build/06_tuning/cholesky_tuned --n 100 --batch 26844               (auto: from the table)
 *   build/06_tuning/cholesky_tuned --input data.bin --output L.bin --info info.txt
 *   build/06_tuning/cholesky_tuned --n 64 --batch 4096 --kernel rows --threads 32 --per-block 2 --chunk 2
 *   build/06_tuning/cholesky_tuned --n 100 --batch 4096 --kernel cyclic --threads 64      (row-major, no conversion)
 *   build/06_tuning/cholesky_tuned --n 40 --batch 4096 --kernel thread --order top --nb 4 --chunk 64
 *   build/06_tuning/cholesky_tuned --n 1024 --batch 60 --kernel grid      (what auto takes past n = 128)
 *   build/06_tuning/cholesky_tuned --n 7 --batch 1000000 --kernel staged --per-block 128    (n <= 24, row-major) */
#include <stdio.h>
#include "batched_driver.h"
#include "family.h"
#include "layout_convert.h"
#include "tuned.h"

static int choose(int n, size_t batch, batched_config *cfg, size_t *chunk, char *why, size_t len)
{
    const tuned_table *t = tuned_table_default();
    if (!t) {
        snprintf(why, len, "the tuned table could not be read (make tune writes one; TUNED_TABLE=FILE picks another)");
        return -1;
    }
    return tuned_choose(t, n, batch, 1, cfg, chunk, why, len); /* the driver's data are row-major */
}

/* A kernel named on the command line starts from these (then --nb, --threads, ... apply). The
 * rows, cyclic, grid and staged kernels read row-major data as they are, so their default chunk is 1. */
static void defaults(batched_config *cfg, size_t *chunk)
{
    if (cfg->kernel == BATCHED_TILES) cfg->nb = 8, cfg->per_block = 8;
    else if (cfg->kernel == BATCHED_ROWS) cfg->threads = 32, cfg->per_block = 2, cfg->unroll = 1, *chunk = 1;
    else if (cfg->kernel == BATCHED_CYCLIC)
        cfg->threads = 64, cfg->per_block = 1, cfg->unroll = 0, cfg->nb = 0, *chunk = 1;
    else if (cfg->kernel == BATCHED_GRID) cfg->per_block = 1, cfg->unroll = 0, cfg->nb = 0, *chunk = 1;
    else if (cfg->kernel == BATCHED_STAGED) cfg->per_block = 64, cfg->unroll = 0, cfg->nb = 0, *chunk = 1;
}

int main(int argc, char **argv)
{
    family_init();
    const batched_driver_hooks hooks = {
        "cholesky_tuned",
        "                conversions to and from a layout other than row-major use stage 05's tiled converter\n"
        "  --kernel auto (default): the tuned table's configuration and chunk for this n and batch size\n"
        "  --kernel rows: --threads T threads per matrix (default 32), --per-block M matrices per block (default 2),\n"
        "                 unroll 0 (every step written out, n <= 64) or 1 (a loop, the default); chunk 1 by default\n"
        "  --kernel cyclic: --threads 16, 32, 64 (default), 128 or 256 (a 4 x 4 .. 16 x 16 grid), --per-block M "
        "(default 1);\n"
        "                 chunk 1 by default (row-major: no conversion)\n"
        "  --kernel grid: stage 03's whole-GPU tile tasks for the batch (any n; row-major: chunk 1)\n"
        "  --kernel staged: one thread per matrix, n <= 24, --per-block M matrices per block (32 .. 256, default 64);\n"
        "                 row-major only (chunk 1)\n",
        choose,
        defaults,
        rowmajor_to_chunked_tiled,
        chunked_to_rowmajor_tiled};
    return batched_driver_main(argc, argv, &hooks);
}
