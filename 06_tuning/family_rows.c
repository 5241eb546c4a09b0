/* family_rows.c - the rows kernel as a family descriptor (family.h): T threads per matrix, rows in
 * registers (rows_kernel.cuh). */
#include <stdio.h>
#include <string.h>
#include "family.h"
#include "rows_kernel.h"

/* The most shared memory any current GPU gives one block (H100: 227 KiB); the launcher checks
 * the real GPU's figure. */
#define ROWS_SMEM_LIMIT (227 * 1024)

static int rows_check(const batched_config *c, int n, char *msg, size_t len)
{
    if (!rows_nmax_for(n, c->threads)) {
        char list[160] = "";
        for (int s = 0; s < ROWS_NSIZES; s++)
            if (n <= rows_sizes[s].nmax) {
                for (int k = 0; k < ROWS_MAX_THREADS_PER_SIZE; k++)
                    if (rows_sizes[s].threads[k])
                        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", list[0] ? ", " : "",
                                 rows_sizes[s].threads[k]);
                break;
            }
        if (list[0])
            snprintf(msg, len, "the rows kernel has threads = %s compiled in for n = %d, not %d", list, n, c->threads);
        else snprintf(msg, len, "the rows kernel takes n <= %d, not %d", rows_sizes[ROWS_NSIZES - 1].nmax, n);
    } else if (c->unroll != 0 && c->unroll != 1)
        snprintf(msg, len, "rows kernel: unroll is 0 (every step written out) or 1 (a loop over the steps), not %d",
                 c->unroll);
    else if (c->unroll == 0 && n > ROWS_FULL_N)
        snprintf(msg, len, "rows kernel: every step written out (unroll 0) is compiled for n <= %d only, not %d",
                 ROWS_FULL_N, n);
    else if (c->per_block < 1 || c->per_block * c->threads > 256 || c->per_block * c->threads % 32)
        snprintf(msg, len, "rows kernel: per_block x threads must be a multiple of 32 up to 256, got %d x %d",
                 c->per_block, c->threads);
    else if (rows_smem_need(n, c->threads, c->per_block) > ROWS_SMEM_LIMIT)
        snprintf(msg, len,
                 "rows kernel: %d matrices of order %d per block need %zu bytes of shared memory (at most %d)",
                 c->per_block, n, rows_smem_need(n, c->threads, c->per_block), ROWS_SMEM_LIMIT);
    return msg[0] ? -1 : 0;
}

static int rows_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                       int *d_info, cudaStream_t stream)
{
    return potrf_batched_rows(c->threads, c->unroll == 0, c->per_block, n, batch, chunk, d_in, d_out, d_info, stream);
}

static void rows_describe(const batched_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "rows T=%d x%d %s", c->threads, c->per_block, c->unroll ? "loop" : "full");
}

static const batched_kernel_ops rows_ops = {
    .name = "rows",
    .group = "rows kernel",
    .uses = BATCHED_USES_THREADS | BATCHED_USES_UNROLL | BATCHED_OUT_OF_PLACE,
    .check = rows_check,
    .launch = rows_launch,
    .describe = rows_describe,
    .max_n = BATCHED_MAX_N,
};

/* The smallest instance that takes n, each of its thread counts, 32 .. 256 threads a block, the
 * steps written out or a loop; in chunks of a block's matrices (the coalesced case), and, in the
 * full sweep, on row-major data too (the same block on data as users hold them). */
static int rows_search(int n, int quick, batched_config *cfg, size_t *chunk, int room)
{
    int k = 0;
    for (int s = 0; s < ROWS_NSIZES; s++) {
        if (n > rows_sizes[s].nmax) continue;
        for (int t = 0; t < ROWS_MAX_THREADS_PER_SIZE; t++) {
            const int T = rows_sizes[s].threads[t];
            if (!T) continue;
            for (int block = 32; block <= 256; block *= 2) {
                if (block < T || (quick && block != 64 && block != 128 && block != T)) continue;
                for (int unroll = 0; unroll < 2; unroll++) {
                    const batched_config c = ROWS_CONFIG(T, block / T, unroll);
                    const int before = k;
                    k = family_offer(n, &c, (size_t)(block / T), cfg, chunk, k, room);
                    if (k > before && !quick && block / T > 1) k = family_offer(n, &c, 1, cfg, chunk, k, room);
                }
            }
        }
        break;
    }
    return k;
}

const family_kernel family_rows = {
    .id = BATCHED_ROWS,
    .ops = &rows_ops,
    .defaults = ROWS_CONFIG(32, 2, 1),
    .default_chunk = 1,
    .help =
        "  --kernel rows: --threads T threads per matrix (default 32), --per-block M matrices per block (default 2),\n"
        "                 unroll 0 (every step written out, n <= 64) or 1 (a loop, the default); chunk 1 by default\n",
    .search = rows_search,
};
