/* family_cyclic.c - the cyclic kernel as a family descriptor (family.h): GR x GC threads per matrix,
 * each holding the lower triangle of its 2D-cyclic share in registers (cyclic_kernel.cuh). */
#include <stdio.h>
#include "cyclic_kernel.h"
#include "family.h"

static int cyclic_check(const batched_config *c, int n, char *msg, size_t len)
{
    const int most = cyclic_max_n(c->threads);
    if (!most)
        snprintf(msg, len, "the cyclic kernel takes threads = 16, 32, 64, 128 or 256 (a 4 x 4 .. 16 x 16 grid), not %d",
                 c->threads);
    else if (n > most)
        snprintf(msg, len, "the cyclic kernel with %d threads per matrix takes n <= %d, not %d", c->threads, most, n);
    else if (c->per_block < 1 || c->per_block * c->threads > 256 || c->per_block * c->threads % 32)
        snprintf(msg, len, "cyclic kernel: per_block x threads must be a multiple of 32 up to 256, got %d x %d",
                 c->per_block, c->threads);
    else if (!cyclic_variant_exists(c->threads, n, c->unroll))
        snprintf(msg, len,
                 "cyclic kernel: variant (unroll) %d is not compiled for n = %d with %d threads (0 the rules' choice, "
                 "1 loop, 2 unrolled, 3 capped; + 4 trimmed)",
                 c->unroll, n, c->threads);
    return msg[0] ? -1 : 0;
}

static int cyclic_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                         int *d_info, cudaStream_t stream)
{
    return potrf_batched_cyclic(c->threads, c->per_block, c->unroll, n, batch, chunk, d_in, d_out, d_info, stream);
}

static void cyclic_describe(const batched_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "cyclic T=%d x%d%s%s", c->threads, c->per_block, c->unroll ? " " : "",
             cyclic_variant_name(c->unroll));
}

static const batched_kernel_ops cyclic_ops = {
    .name = "cyclic",
    .group = "cyclic kernel",
    .uses = BATCHED_USES_THREADS | BATCHED_USES_UNROLL | BATCHED_OUT_OF_PLACE,
    .check = cyclic_check,
    .launch = cyclic_launch,
    .describe = cyclic_describe,
    .max_n = BATCHED_MAX_N,
};

/* Every grid that takes n, with as many matrices a block as fit 32 .. 256 threads; row-major only
 * (its threads read their rows straight from memory). Each as its rules pick the variant (0), and
 * in the full sweep every variant compiled for n besides, so that the table can hold one the rules
 * would not take. The quick sweep leaves it out below n = 32. */
static int cyclic_search(int n, int quick, batched_config *cfg, size_t *chunk, int room)
{
    int k = 0;
    for (int s = 0; s < CYCLIC_NGRIDS; s++) {
        const int T = cyclic_grids[s].threads;
        if (n > cyclic_max_n(T) || (quick && n < 32)) continue;
        for (int block = T < 32 ? 32 : T; block <= 256; block *= 2)
            for (int v = 0; v <= (quick ? 0 : CYCLIC_MAX_VARIANT); v++) {
                batched_config c = CYCLIC_CONFIG(T, block / T);
                c.unroll = v;
                if (cyclic_variant_exists(T, n, v)) k = family_offer(n, &c, 1, cfg, chunk, k, room);
            }
    }
    return k;
}

const family_kernel family_cyclic = {
    .id = BATCHED_CYCLIC,
    .ops = &cyclic_ops,
    .defaults = CYCLIC_CONFIG(64, 1),
    .default_chunk = 1,
    .help = "  --kernel cyclic: --threads 16, 32, 64 (default), 128 or 256 (a 4 x 4 .. 16 x 16 grid), --per-block M "
            "(default 1);\n"
            "                 --unroll: 0 (default) as the rules pick for the batch, 1 a loop, 2 the steps written "
            "out,\n"
            "                 3 register-capped; + 4: one row slot less (wide grids); chunk 1 by default (row-major)\n",
    .search = cyclic_search,
};
