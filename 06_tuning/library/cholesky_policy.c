/* cholesky_policy.c - see cholesky_policy.h. */
#include <stdio.h>
#include <stdlib.h>
#include "cholesky_plan.h" /* cholesky_precision */
#include "cholesky_policy.h"
#include "cyclic_kernel.h"
#include "family.h"
#include "tuned.h"

size_t grid_group_size(int n, size_t batch)
{
    const size_t one = grid_batched_workspace_bytes(n, 1);
    if (!one || one * batch <= GRID_WORK_CAP) return batch;
    return GRID_WORK_CAP / one ? GRID_WORK_CAP / one : 1;
}

int cholesky_policy_choose(int n, size_t batch, size_t chunk, const batched_config *given, size_t given_kchunk,
                           int precision, const grid_overrides *forced, cholesky_choice *out, char *err, size_t len)
{
    out->why[0] = '\0';
    if (given) {
        out->cfg = *given;
        out->kchunk = given_kchunk ? given_kchunk : chunk;
        snprintf(out->why, sizeof out->why, "given");
    } else {
        const char *notice, *error;
        const tuned_table *t = tuned_table_load(&notice, &error);
        if (!t) {
            snprintf(err, len, "no tuned table could be read (06_tuning/tables; make tune writes one): %s", error);
            return -1;
        }
        if (tuned_choose(t, n, batch, chunk == 1, &out->cfg, &out->kchunk, out->why, sizeof out->why) != 0) {
            snprintf(err, len, "%s", out->why);
            return -1;
        }
    }
    /* The layout: 0 in the table means interleaved; a kernel that reads row-major only gets it; data
     * already in a layout of their own are factored in it (no conversion there and back). */
    if (out->kchunk == 0 || out->kchunk > batch) out->kchunk = batch;
    const batched_kernel_ops *ops = family_ops(out->cfg.kernel);
    if (ops && (ops->uses & BATCHED_ROWMAJOR_ONLY)) out->kchunk = 1;
    else if (chunk != 1 && out->kchunk != chunk) out->kchunk = chunk;
    if (family_config_check(&out->cfg, n, err, len) != 0) return -1;
    /* The cyclic kernel's variant, when not given: its rules' choice for this batch. */
    if (out->cfg.kernel == BATCHED_CYCLIC && out->cfg.unroll == 0)
        out->cfg.unroll = cyclic_variant_choose(out->cfg.threads, out->cfg.per_block, n, batch);
    if (out->cfg.kernel == BATCHED_GRID) {
        out->group = grid_group_size(n, batch);
        grid_policy_choose(n, out->group, forced, &out->grid);
        /* Precision high: the one-pass TF32 updates where the tensor cores would run 3xTF32; fp32
         * updates stay (the smaller shapes, where they are the faster path anyway). */
        if (precision == CHOLESKY_PRECISION_HIGH && out->grid.math == GRID_TF32X3)
            grid_policy_for(out->grid.mode, GRID_TF32, n, out->group, forced, &out->grid);
    }
    return 0;
}
