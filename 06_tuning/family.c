/* family.c - registering stage 06's kernels with potrf_batched (batched_kernel_ops, stage 04). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "family.h"
#include "cuda_check.h"
#include "cyclic_kernel.h"
#include "grid_cholesky.h"
#include "rows_kernel.h"
#include "staged_kernel.h"

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
    return msg[0] ? -1 : 0;
}

static int cyclic_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                         int *d_info, cudaStream_t stream)
{
    return potrf_batched_cyclic(c->threads, c->per_block, n, batch, chunk, d_in, d_out, d_info, stream);
}

static void cyclic_describe(const batched_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "cyclic T=%d x%d", c->threads, c->per_block);
}

static const batched_kernel_ops cyclic_ops = {
    .name = "cyclic",
    .group = "cyclic kernel",
    .uses = BATCHED_USES_THREADS | BATCHED_OUT_OF_PLACE,
    .check = cyclic_check,
    .launch = cyclic_launch,
    .describe = cyclic_describe,
    .max_n = BATCHED_MAX_N,
};

size_t grid_group_size(int n, size_t batch)
{
    const size_t one = grid_batched_workspace_bytes(n, 1);
    if (!one || one * batch <= GRID_WORK_CAP) return batch;
    return GRID_WORK_CAP / one ? GRID_WORK_CAP / one : 1;
}

void grid_choose(int n, size_t group, grid_mode *mode, grid_math *math)
{
    /* GRID_MODE=stream|graph|lookahead|pairs|quads: a schedule by hand, to compare them on a batch. */
    const char *forced = getenv("GRID_MODE");
    const int by_hand = forced && *forced ? grid_mode_parse(forced) : -1;
    *mode = by_hand >= 0 ? (grid_mode)by_hand : grid_default_batched_mode(n, group);
    /* GRID_MATH=fp32|tf32x3: the updates' arithmetic by hand (default: grid_default_math). */
    const char *math_forced = getenv("GRID_MATH");
    const int math_by_hand = math_forced && *math_forced ? grid_math_parse(math_forced) : -1;
    *math = math_by_hand >= 0 ? (grid_math)math_by_hand : grid_default_math(n, group);
}

/* The batched whole-GPU path (stage 03) as a registered kernel, for the tests, benchmarks and
 * drivers that name it: the padded copy (n not a multiple of the tile) is kept per host thread
 * (the driver runs one per GPU) and grows as needed. (A plan, cholesky_plan.h, sizes it once.) */
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
        fprintf(stderr, "potrf_batched: the grid kernel reads row-major data only (chunk 1), not chunk %zu\n", chunk);
        return -1;
    }
    const size_t one = grid_batched_workspace_bytes(n, 1), group = grid_group_size(n, batch);
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    if (one && (grid_work.bytes < one * group || grid_work.device != device)) {
        if (grid_work.d_work && grid_work.device == device)
            CUDA_CHECK(cudaFree(grid_work.d_work)); /* waits for its users */
        CUDA_CHECK(cudaMalloc((void **)&grid_work.d_work, one * group));
        grid_work.bytes = one * group;
        grid_work.device = device;
    }
    grid_mode mode;
    grid_math math;
    grid_choose(n, group, &mode, &math);
    for (size_t first = 0; first < batch; first += group) {
        const size_t count = batch - first < group ? batch - first : group;
        const size_t at = first * n * n;
        if (potrf_grid_run(NULL, mode, math, n, count, d_in + at, d_out + at, one ? grid_work.d_work : NULL,
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

/* The staged kernel: one thread per matrix, row-major only. */
static int staged_check(const batched_config *c, int n, char *msg, size_t len)
{
    if (n > STAGED_MAX_N) snprintf(msg, len, "the staged kernel takes n <= %d, not %d", STAGED_MAX_N, n);
    else if (c->per_block < 32 || c->per_block > STAGED_MAX_BLOCK || c->per_block % 32)
        snprintf(msg, len,
                 "staged kernel: per_block (matrices = threads per block) must be a multiple of 32 up to %d, got %d",
                 STAGED_MAX_BLOCK, c->per_block);
    else if (staged_smem_need(n, c->per_block) > ROWS_SMEM_LIMIT)
        snprintf(msg, len,
                 "staged kernel: %d matrices of order %d per block need %zu bytes of shared memory (at most %d)",
                 c->per_block, n, staged_smem_need(n, c->per_block), ROWS_SMEM_LIMIT);
    return msg[0] ? -1 : 0;
}

static int staged_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                         int *d_info, cudaStream_t stream)
{
    if (chunk != 1) {
        fprintf(stderr, "potrf_batched: the staged kernel reads row-major data only (chunk 1), not chunk %zu\n", chunk);
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

/* The thread kernel in all orders: left is stage 04's (its own check and launcher). */
static const batched_kernel_ops *stage4_thread;

static int thread_check(const batched_config *c, int n, char *msg, size_t len)
{
    if (c->order == LOOK_LEFT) return stage4_thread->check(c, n, msg, len);
    batched_config left = *c;
    left.order = LOOK_LEFT;
    if (c->order != LOOK_RIGHT && c->order != LOOK_TOP)
        snprintf(msg, len, "unknown looking order %d (right, left or top)", (int)c->order);
    else stage4_thread->check(&left, n, msg, len);
    return msg[0] ? -1 : 0;
}

static int thread_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                         int *d_info, cudaStream_t stream)
{
    if (c->order == LOOK_LEFT) return stage4_thread->launch(c, n, batch, chunk, d_in, d_out, d_info, stream);
    return potrf_batched_thread_order(c->order, c->nb, c->unroll, c->per_block, n, batch, chunk, d_out, d_info, stream);
}

static void thread_describe(const batched_config *c, char *buf, size_t len)
{
    if (c->order == LOOK_LEFT) stage4_thread->describe(c, buf, len);
    else snprintf(buf, len, "thread %s NB=%d x%d u%d", looking_name(c->order), c->nb, c->per_block, c->unroll);
}

static batched_kernel_ops thread_ops = {
    .name = "thread",
    .group = NULL,
    .uses = BATCHED_USES_ORDER | BATCHED_USES_NB | BATCHED_USES_UNROLL,
    .check = thread_check,
    .launch = thread_launch,
    .describe = thread_describe,
    .max_n = BATCHED_MAX_N,
};

void family_init(void)
{
    if (stage4_thread) return;
    stage4_thread = batched_kernel_find(BATCHED_THREAD);
    thread_ops.group = stage4_thread->group;
    batched_register_kernel(BATCHED_THREAD, &thread_ops);
    batched_register_kernel(BATCHED_ROWS, &rows_ops);
    batched_register_kernel(BATCHED_CYCLIC, &cyclic_ops);
    batched_register_kernel(BATCHED_GRID, &grid_ops);
    batched_register_kernel(BATCHED_STAGED, &staged_ops);
}
