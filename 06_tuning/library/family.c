/* family.c - the library's kernel families (family.h): the list, and the lookup through which
 * stage 04's checks and launch path take them. Adding a family: its descriptor in a file of its own
 * (06_tuning/family_rows.c shows one), and one line in the list below. The plan, the driver, make
 * tune and test_plan loop over this list. */
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

const batched_kernel_ops *family_ops(batched_kernel k)
{
    const family_kernel *f = family_find(k);
    return f ? f->ops : NULL;
}

int family_config_check(const batched_config *cfg, int n, char *msg, size_t len)
{
    return batched_config_check_in(family_ops, cfg, n, msg, len);
}

const char *family_config_name(const batched_config *cfg, char *buf, size_t len)
{
    return batched_config_name_in(family_ops, cfg, buf, len);
}

int family_kernel_parse(const char *name, batched_kernel *k) { return batched_kernel_parse_in(family_ops, name, k); }

int family_launch(const batched_config *cfg, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                  int *d_info, cudaStream_t stream)
{
    return potrf_batched_on_in(family_ops, cfg, n, batch, chunk, d_in, d_out, d_info, stream);
}

int family_offer(int n, const batched_config *cfg, size_t chunk, batched_config *out, size_t *chunks, int k, int room)
{
    char msg[256];
    if (k >= room || family_config_check(cfg, n, msg, sizeof msg) != 0) return k;
    out[k] = *cfg;
    chunks[k] = chunk;
    return k + 1;
}
