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

/* A kernel named on the command line starts from its family's defaults (family.h; --order as given),
 * then --nb, --threads, ... apply. */
static void defaults(batched_config *cfg, size_t *chunk)
{
    const family_kernel *f = family_find(cfg->kernel);
    if (!f) return;
    batched_config d = f->defaults;
    d.order = cfg->order;
    *cfg = d;
    *chunk = f->default_chunk;
}

/* The --kernel lines: auto's, then every family's that stage 04's driver does not print. */
static const char *help_text(void)
{
    static char text[2048];
    int at =
        snprintf(text, sizeof text, "%s",
                 "                conversions to and from a layout other than row-major use stage 05's tiled "
                 "converter\n"
                 "  --kernel auto (default): the tuned table's configuration and chunk for this n and batch size\n");
    for (int f = 0; f < family_count; f++)
        if (family_list[f]->help) at += snprintf(text + at, sizeof text - at, "%s", family_list[f]->help);
    return text;
}

int main(int argc, char **argv)
{
    family_init();
    const batched_driver_hooks hooks = {
        "cholesky_tuned", help_text(), choose, defaults, rowmajor_to_chunked_tiled, chunked_to_rowmajor_tiled};
    return batched_driver_main(argc, argv, &hooks);
}
