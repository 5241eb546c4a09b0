/* family_thread.c - stage 04's one thread per matrix in all three looking orders as a family
 * descriptor (family.h): left-looking is stage 04's kernel itself, right and top thread_orders.cu. */
#include <stdio.h>
#include "family.h"

static const batched_kernel_ops *const stage4_thread = &batched_thread_ops; /* left-looking: its check, launcher */

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

static const batched_kernel_ops thread_ops = {
    .name = "thread",
    .group = BATCHED_THREAD_GROUP, /* stage 04's: graded in the same group */
    .uses = BATCHED_USES_ORDER | BATCHED_USES_NB | BATCHED_USES_UNROLL,
    .check = thread_check,
    .launch = thread_launch,
    .describe = thread_describe,
    .max_n = BATCHED_MAX_N,
};

/* Every order, NB and unroll, 32 or 64 matrices a block in chunks of as many (a block's matrices
 * one contiguous range: the coalesced case); up to n = 128 (one thread per matrix: seconds per run
 * past it). The quick sweep: NB = 4 and 8, unroll 1 and 2, left-looking, plus NB = 4 u1 of each order. */
static int thread_search(int n, int quick, batched_config *cfg, size_t *chunk, int room)
{
    static const int nbs[] = {2, 4, 8}, unrolls[] = {1, 2, 4};
    int k = 0;
    for (int o = 0; o < LOOK_COUNT && n <= 128; o++)
        for (int a = quick; a < 3; a++)
            for (int u = 0; u < (quick ? 2 : 3); u++) {
                const looking_order order = (looking_order)o;
                if (quick && order != LOOK_LEFT && (nbs[a] != 4 || u)) continue;
                const int pbs[] = {32, 64};
                for (int p = order == LOOK_LEFT && !quick ? 0 : 1; p < 2; p++) {
                    const batched_config c = THREAD_ORDER_CONFIG(order, nbs[a], pbs[p], unrolls[u]);
                    if (k < room) cfg[k] = c, chunk[k++] = (size_t)pbs[p]; /* tuned with its check at run time */
                }
            }
    return k;
}

const family_kernel family_thread = {
    .id = BATCHED_THREAD,
    .ops = &thread_ops,
    .defaults = THREAD_CONFIG(4, 64, 2),
    .default_chunk = 0,
    .help = NULL,
    .search = thread_search,
};
