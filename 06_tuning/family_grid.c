/* family_grid.c - stage 03's whole-GPU tile tasks for a batch as a family descriptor (family.h):
 * any n up to GRID_MAX_N, row-major data only; the medium and large matrices (n > 128) where one
 * block per matrix leaves the GPU idle. */
#include <stdio.h>
#include <stdlib.h>
#include "cuda_check.h"
#include "family.h"
#include "grid_cholesky.h"
#include "cholesky_policy.h" /* the group size */

/* As a registered kernel, for the tests, benchmarks and drivers that name it: the padded copy (n not
 * a multiple of the tile) is kept per host thread (the driver runs one per GPU) and grows as needed.
 * (A plan, cholesky_plan.h, sizes it once.) */
static _Thread_local struct {
    float *d_work;
    size_t bytes;
    int device;
} grid_work;

static int grid_check(const batched_config *c, int n, char *msg, size_t len)
{
    (void)n;
    if (c->per_block != 1)
        snprintf(msg, len, "grid kernel: a matrix is spread over many blocks: per_block is 1, not %d", c->per_block);
    return msg[0] ? -1 : 0;
}

static int grid_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                       int *d_info, cudaStream_t stream)
{
    (void)c;
    if (chunk != 1) {
        course_report("potrf_batched: the grid kernel reads row-major data only (chunk 1), not chunk %zu\n", chunk);
        return -1;
    }
    const size_t one = grid_batched_workspace_bytes(n, 1), group = grid_group_size(n, batch);
    int device;
    CUDA_TRY(cudaGetDevice(&device));
    if (one && (grid_work.bytes < one * group || grid_work.device != device)) {
        float *old = grid_work.device == device ? grid_work.d_work : NULL;
        grid_work.d_work = NULL;
        grid_work.bytes = 0;
        if (old) CUDA_TRY(cudaFree(old)); /* waits for its users */
        CUDA_TRY(cudaMalloc((void **)&grid_work.d_work, one * group));
        grid_work.bytes = one * group;
        grid_work.device = device;
    }
    grid_policy policy;                          /* asked on every call: a program's path (a plan asks once) */
    grid_policy_choose(n, group, NULL, &policy); /* (the rules: a plan takes a program's overrides) */
    for (size_t first = 0; first < batch; first += group) {
        const size_t count = batch - first < group ? batch - first : group;
        const size_t at = first * n * n;
        if (potrf_grid_execute(NULL, &policy, n, count, d_in + at, d_out + at, one ? grid_work.d_work : NULL, NULL,
                               d_info + first, stream) != 0)
            return -1;
    }
    return 0;
}

static void grid_describe(const batched_config *c, char *buf, size_t len)
{
    (void)c;
    snprintf(buf, len, "grid");
}

static const batched_kernel_ops grid_ops = {
    .name = "grid",
    .group = "batched whole GPU",
    .uses = BATCHED_ROWMAJOR_ONLY | BATCHED_OUT_OF_PLACE,
    .check = grid_check,
    .launch = grid_launch,
    .describe = grid_describe,
    .max_n = GRID_MAX_N,
};

/* Past the register kernels (n > 128), row-major. */
static int grid_search(int n, int quick, batched_config *cfg, size_t *chunk, int room)
{
    (void)quick;
    const batched_config c = GRID_CONFIG(1);
    return n > 128 ? family_offer(n, &c, 1, cfg, chunk, 0, room) : 0;
}

const family_kernel family_grid = {
    .id = BATCHED_GRID,
    .ops = &grid_ops,
    .defaults = GRID_CONFIG(1),
    .default_chunk = 1,
    .help = "  --kernel grid: stage 03's whole-GPU tile tasks for the batch (any n; row-major: chunk 1)\n",
    .search = grid_search,
};
