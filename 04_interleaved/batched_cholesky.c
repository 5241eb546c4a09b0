/* batched_cholesky.c - checking a batched configuration and dispatching it to its kernel. The
 * limits below are those of the kernels: a block has at most 1024 threads, and only the listed
 * NB and unroll values are compiled (templates, so the tile loops unroll completely).
 *
 * The kernels sit in a small table (batched_kernel_ops); every function that looks one up also
 * takes another stage's lookup (the _in versions), so a later stage runs its own kernels through
 * this stage's checks and tests without this file knowing them. */
#include <stdio.h>
#include <string.h>
#include "batched_cholesky.h"
#include "cuda_check.h"

batched_config batched_config_default(void)
{
    batched_config c = THREAD_CONFIG(4, 64, 2);
    return c;
}

static int compiled(int v, const int *list, int count)
{
    for (int k = 0; k < count; k++)
        if (list[k] == v) return 1;
    return 0;
}

static int tiles_check(const batched_config *cfg, int n, char *msg, size_t len)
{
    static const int tile_nbs[] = {4, 8, 16, 32};
    (void)n;
    if (!compiled(cfg->nb, tile_nbs, 4))
        snprintf(msg, len, "the tile kernel has NB = 4, 8, 16 or 32 compiled in, not %d", cfg->nb);
    else if (cfg->order < 0 || cfg->order >= LOOK_COUNT)
        snprintf(msg, len, "unknown looking order %d (right, left or top)", (int)cfg->order);
    else if (cfg->per_block < 1 || cfg->per_block * cfg->nb * cfg->nb > 1024)
        snprintf(msg, len,
                 "tile kernel: per_block x NB x NB threads must be 1..1024, so per_block <= %d for NB = %d (got %d)",
                 1024 / (cfg->nb * cfg->nb), cfg->nb, cfg->per_block);
    return msg[0] ? -1 : 0;
}

static int thread_check(const batched_config *cfg, int n, char *msg, size_t len)
{
    static const int thread_nbs[] = {2, 4, 8}, unrolls[] = {1, 2, 4};
    (void)n;
    if (!compiled(cfg->nb, thread_nbs, 3))
        snprintf(msg, len, "the thread-per-matrix kernel has NB = 2, 4 or 8 compiled in, not %d", cfg->nb);
    else if (!compiled(cfg->unroll, unrolls, 3))
        snprintf(msg, len, "unroll = %d is not compiled in (1, 2 or 4)", cfg->unroll);
    else if (cfg->order != LOOK_LEFT)
        snprintf(msg, len, "the stage 04 thread-per-matrix kernel is left-looking only (stage 06 adds right and top)");
    else if (cfg->per_block < 1 || cfg->per_block > 256)
        snprintf(msg, len, "thread-per-matrix kernel: per_block (threads = matrices per block) must be 1..256, got %d",
                 cfg->per_block);
    return msg[0] ? -1 : 0;
}

/* In place only: potrf_batched_on hands them d_out == d_in. */
static int tiles_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                        int *d_info, cudaStream_t stream)
{
    (void)d_in;
    return potrf_batched_tiles(c->order, c->nb, c->per_block, n, batch, chunk, d_out, d_info, stream);
}

static int thread_launch(const batched_config *c, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                         int *d_info, cudaStream_t stream)
{
    (void)d_in;
    return potrf_batched_thread(c->nb, c->unroll, c->per_block, n, batch, chunk, d_out, d_info, stream);
}

static void tiles_describe(const batched_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "tiles %s NB=%d x%d", looking_name(c->order), c->nb, c->per_block);
}

static void thread_describe(const batched_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "thread NB=%d x%d u%d", c->nb, c->per_block, c->unroll);
}

const batched_kernel_ops batched_tiles_ops = {
    .name = "tiles",
    .group = "tile kernel",
    .uses = BATCHED_USES_ORDER | BATCHED_USES_NB,
    .check = tiles_check,
    .launch = tiles_launch,
    .describe = tiles_describe,
    .max_n = BATCHED_MAX_N,
};
const batched_kernel_ops batched_thread_ops = {
    .name = "thread",
    .group = BATCHED_THREAD_GROUP,
    .uses = BATCHED_USES_NB | BATCHED_USES_UNROLL,
    .check = thread_check,
    .launch = thread_launch,
    .describe = thread_describe,
    .max_n = BATCHED_MAX_N,
};
const batched_kernel_ops *batched_kernel_find(batched_kernel k)
{
    return k == BATCHED_TILES ? &batched_tiles_ops : k == BATCHED_THREAD ? &batched_thread_ops : NULL;
}

int batched_config_check_in(batched_kernel_lookup kernels, const batched_config *cfg, int n, char *msg, size_t len)
{
    const batched_kernel_ops *ops = kernels(cfg->kernel);
    msg[0] = '\0';
    const int most = ops && ops->max_n ? ops->max_n : BATCHED_MAX_N;
    if (n < 1 || n > most)
        snprintf(msg, len, "n = %d is not supported: the %s kernel takes 1 <= n <= %d (larger matrices: stage 03)", n,
                 ops ? ops->name : "batched", most);
    else if (!ops) snprintf(msg, len, "unknown kernel %d (tiles or thread)", (int)cfg->kernel);
    else ops->check(cfg, n, msg, len);
    return msg[0] ? -1 : 0;
}

int batched_config_check(const batched_config *cfg, int n, char *msg, size_t len)
{
    return batched_config_check_in(batched_kernel_find, cfg, n, msg, len);
}

const char *batched_config_name_in(batched_kernel_lookup kernels, const batched_config *cfg, char *buf, size_t len)
{
    const batched_kernel_ops *ops = kernels(cfg->kernel);
    if (ops) ops->describe(cfg, buf, len);
    else snprintf(buf, len, "kernel %d", (int)cfg->kernel);
    return buf;
}

const char *batched_config_name(const batched_config *cfg, char *buf, size_t len)
{
    return batched_config_name_in(batched_kernel_find, cfg, buf, len);
}

int batched_kernel_parse_in(batched_kernel_lookup kernels, const char *s, batched_kernel *k)
{
    for (int id = 0; id < BATCHED_MAX_KERNELS; id++) {
        const batched_kernel_ops *ops = kernels((batched_kernel)id);
        if (ops && strcmp(s, ops->name) == 0) {
            *k = (batched_kernel)id;
            return 0;
        }
    }
    return -1;
}

int batched_kernel_parse(const char *s, batched_kernel *k)
{
    return batched_kernel_parse_in(batched_kernel_find, s, k);
}

int looking_order_parse(const char *s, looking_order *o)
{
    for (int k = 0; k < LOOK_COUNT; k++)
        if (strcmp(s, looking_name((looking_order)k)) == 0) {
            *o = (looking_order)k;
            return 0;
        }
    return -1;
}

int potrf_batched_on_in(batched_kernel_lookup kernels, const batched_config *cfg, int n, size_t batch, size_t chunk,
                        const float *d_in, float *d_out, int *d_info, cudaStream_t stream)
{
    char msg[256];
    if (batched_config_check_in(kernels, cfg, n, msg, sizeof msg) != 0 || batch < 1 || chunk < 1) {
        course_report("potrf_batched: %s\n", msg[0] ? msg : "batch and chunk must be >= 1");
        return -1;
    }
    const batched_kernel_ops *ops = kernels(cfg->kernel);
    if (d_in != d_out && !(ops->uses & BATCHED_OUT_OF_PLACE)) { /* every layout is dense: batch n^2 floats */
        const size_t bytes = batch * (size_t)n * n * sizeof(float);
        CUDA_TRY(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, stream));
        d_in = d_out;
    }
    return ops->launch(cfg, n, batch, chunk, d_in, d_out, d_info, stream);
}

int potrf_batched_on(const batched_config *cfg, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                     int *d_info, cudaStream_t stream)
{
    return potrf_batched_on_in(batched_kernel_find, cfg, n, batch, chunk, d_in, d_out, d_info, stream);
}

int potrf_batched_in(batched_kernel_lookup kernels, const batched_config *cfg, int n, size_t batch, size_t chunk,
                     float *d_A, int *d_info)
{
    return potrf_batched_on_in(kernels, cfg, n, batch, chunk, d_A, d_A, d_info, cudaStreamLegacy);
}

int potrf_batched(const batched_config *cfg, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    return potrf_batched_in(batched_kernel_find, cfg, n, batch, chunk, d_A, d_info);
}
