/* family.c - stage 06's kernel families (family.h), registered with stage 04's potrf_batched.
 * Adding a family: its descriptor in a file of its own (family_rows.c shows one), and one line in
 * the list below. The plan, the driver, make tune and test_plan loop over this list. */
#include <pthread.h>
#include <stdio.h>
#include "family.h"

const family_kernel *const family_list[] = {
    &family_thread, /* stage 04's, in all three orders */
    &family_tiles,  /* stage 04's */
    &family_rows,   &family_cyclic, &family_grid, &family_staged,
};
const int family_count = (int)(sizeof family_list / sizeof *family_list);

const family_kernel *family_find(batched_kernel id)
{
    for (int f = 0; f < family_count; f++)
        if (family_list[f]->id == id) return family_list[f];
    return NULL;
}

static void register_all(void)
{
    for (int f = 0; f < family_count; f++)
        if (family_list[f]->ops) batched_register_kernel(family_list[f]->id, family_list[f]->ops());
}

void family_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT; /* the first plans may be made by two threads at once */
    pthread_once(&once, register_all);
}

int family_offer(int n, const batched_config *cfg, size_t chunk, batched_config *out, size_t *chunks, int k, int room)
{
    char msg[256];
    if (k >= room || batched_config_check(cfg, n, msg, sizeof msg) != 0) return k;
    out[k] = *cfg;
    chunks[k] = chunk;
    return k + 1;
}
