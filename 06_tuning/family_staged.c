/* family_staged.c - the staged kernel as a family descriptor (family.h): one thread per matrix for
 * the smallest orders, row-major data staged through shared memory (staged_kernel.cu). */
#include <stdio.h>
#include "cuda_check.h"
#include "family.h"
#include "staged_kernel.h"

/* The most shared memory any current GPU gives one block (H100: 227 KiB); the launcher checks
 * the real GPU's figure. */
#define STAGED_SMEM_LIMIT (227 * 1024)

static int staged_check(const batched_config *c, int n, char *msg, size_t len)
{
    if (n > STAGED_MAX_N) snprintf(msg, len, "the staged kernel takes n <= %d, not %d", STAGED_MAX_N, n);
    else if (c->per_block < 32 || c->per_block > STAGED_MAX_BLOCK || c->per_block % 32)
        snprintf(msg, len,
                 "staged kernel: per_block (matrices = threads per block) must be a multiple of 32 up to %d, got %d",
                 STAGED_MAX_BLOCK, c->per_block);
    else if (staged_smem_need(n, c->per_block) > STAGED_SMEM_LIMIT)
        snprintf(msg, len,
                 "staged kernel: %d matrices of order %d per block need %zu bytes of shared memory (at most %d)",
                 c->per_block, n, staged_smem_need(n, c->per_block), STAGED_SMEM_LIMIT);
    return msg[0] ? -1 : 0;
}

static int staged_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                         int *d_info, cudaStream_t stream)
{
    if (chunk != 1) {
        course_report("potrf_batched: the staged kernel reads row-major data only (chunk 1), not chunk %zu\n", chunk);
        return -1;
    }
    return potrf_batched_staged(c->per_block, n, batch, d_in, d_out, d_info, stream);
}

static void staged_describe(const batched_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "staged x%d", c->per_block);
}

static const batched_kernel_ops staged_ops = {
    .name = "staged",
    .group = "staged kernel",
    .uses = BATCHED_ROWMAJOR_ONLY | BATCHED_OUT_OF_PLACE,
    .check = staged_check,
    .launch = staged_launch,
    .describe = staged_describe,
    .max_n = STAGED_MAX_N,
};

/* 32 .. STAGED_MAX_BLOCK matrices (= threads) a block, row-major; the quick sweep 64 and 128. */
static int staged_search(int n, int quick, batched_config *cfg, size_t *chunk, int room)
{
    int k = 0;
    for (int block = 32; block <= STAGED_MAX_BLOCK && n <= STAGED_MAX_N; block *= 2) {
        const batched_config c = STAGED_CONFIG(block);
        if (!quick || block == 64 || block == 128) k = family_offer(n, &c, 1, cfg, chunk, k, room);
    }
    return k;
}

const family_kernel family_staged = {
    .id = BATCHED_STAGED,
    .ops = &staged_ops,
    .defaults = STAGED_CONFIG(64),
    .default_chunk = 1,
    .help =
        "  --kernel staged: one thread per matrix, n <= 24, --per-block M matrices per block (32 .. 256, default 64);\n"
        "                 row-major only (chunk 1)\n",
    .search = staged_search,
};
