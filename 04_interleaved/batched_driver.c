/* batched_driver.c - see batched_driver.h. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "batched_driver.h"

const char *batched_options_synopsis(batched_kernel_lookup kernels, int with_auto, int with_threads)
{
    static char text[320];
    char names[128] = "";
    for (int k = 0; k < BATCHED_MAX_KERNELS; k++) {
        const batched_kernel_ops *ops = kernels((batched_kernel)k);
        if (ops) snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? "|" : "", ops->name);
    }
    snprintf(text, sizeof text, "[--kernel %s%s] [--order left|right|top] [--nb NB] [--per-block M] [--unroll U]%s",
             with_auto ? "auto|" : "", names, with_threads ? " [--threads T]" : "");
    return text;
}

const char *batched_options_help(batched_kernel_lookup kernels, const char *extra, int with_auto)
{
    static char text[3072];
    char order[128] = "", unroll[128] = "", nb[128] = "";
    for (int k = 0; k < BATCHED_MAX_KERNELS; k++) {
        const batched_kernel_ops *ops = kernels((batched_kernel)k);
        if (!ops) continue;
        if (ops->uses & BATCHED_USES_ORDER)
            snprintf(order + strlen(order), sizeof order - strlen(order), " %s", ops->name);
        if (ops->uses & BATCHED_USES_UNROLL)
            snprintf(unroll + strlen(unroll), sizeof unroll - strlen(unroll), " %s", ops->name);
        if (ops->uses & BATCHED_USES_NB) snprintf(nb + strlen(nb), sizeof nb - strlen(nb), " %s", ops->name);
    }
    snprintf(text, sizeof text,
             "%s"
             "  --kernel thread: one thread per matrix, register tiles%s\n"
             "  --kernel tiles: stage 02 helpers, NB x NB threads per matrix\n"
             "  --order       left (default), right or top; read by:%s\n"
             "  --unroll      read by:%s; --nb read by:%s\n"
             "  defaults      thread NB=4, 64 matrices per block, unroll 2; tiles NB=8, 8 matrices per block\n",
             extra ? extra : "", with_auto ? "" : " (default)", order, unroll, nb);
    return text;
}

void batched_options_validate(batched_kernel_lookup kernels, const char *prog, int with_auto, const char *opt,
                              const char *value)
{
    if (!strcmp(opt, "--order")) {
        looking_order o;
        if (looking_order_parse(value, &o) != 0) cli_bad_value(prog, opt, value, "left, right or top");
        return;
    }
    batched_kernel k;
    if ((with_auto && !strcmp(value, "auto")) || batched_kernel_parse_in(kernels, value, &k) == 0) return;
    char names[192] = "";
    snprintf(names, sizeof names, "one of %s", with_auto ? "auto" : "");
    for (int i = 0; i < BATCHED_MAX_KERNELS; i++) {
        const batched_kernel_ops *ops = kernels((batched_kernel)i);
        if (ops)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     strlen(names) > strlen("one of ") ? ", " : "", ops->name);
    }
    cli_bad_value(prog, opt, value, names);
}

int batched_config_from_args(batched_kernel_lookup kernels, const batch_kernel_args *a, int n,
                             void (*defaults)(batched_config *cfg, size_t *chunk), batched_config *cfg, size_t *chunk,
                             char *msg, size_t len)
{
    *cfg = batched_config_default();
    if (a->kernel && batched_kernel_parse_in(kernels, a->kernel, &cfg->kernel) != 0) {
        snprintf(msg, len, "bad value for --kernel: '%s'", a->kernel);
        return -1;
    }
    if (a->order) looking_order_parse(a->order, &cfg->order);
    const batched_kernel_ops *ops = kernels(cfg->kernel);
    const char *refused = NULL;
    if (a->order && !(ops->uses & BATCHED_USES_ORDER))
        refused = cfg->kernel == BATCHED_THREAD
                      ? "--order applies only to --kernel tiles (the thread kernel is left-looking)"
                      : "--order does not apply to this kernel";
    else if (a->unroll >= 0 && !(ops->uses & BATCHED_USES_UNROLL)) refused = "--unroll applies only to --kernel thread";
    else if (a->threads > 0 && !(ops->uses & BATCHED_USES_THREADS)) refused = "--threads does not apply to this kernel";
    else if (a->nb > 0 && !(ops->uses & BATCHED_USES_NB)) refused = "--nb does not apply to this kernel";
    if (refused) {
        snprintf(msg, len, "%s", refused);
        return -1;
    }
    size_t default_chunk = 0; /* the named kernel's defaults, then the options given override them */
    if (defaults) defaults(cfg, &default_chunk);
    else if (cfg->kernel == BATCHED_TILES) {
        cfg->nb = 8;
        cfg->per_block = 8;
    }
    *chunk = a->chunk > 0 ? (size_t)a->chunk : default_chunk;
    if (*chunk != 1 && (ops->uses & BATCHED_ROWMAJOR_ONLY)) {
        snprintf(msg, len, "bad value for --chunk: '%zu' (the %s kernel reads row-major data only: --chunk 1)", *chunk,
                 ops->name);
        return -1;
    }
    if (a->nb > 0) cfg->nb = (int)a->nb;
    if (a->per_block > 0) cfg->per_block = (int)a->per_block;
    if (a->unroll >= 0) cfg->unroll = (int)a->unroll;
    if (a->threads > 0) cfg->threads = (int)a->threads;
    return batched_config_check_in(kernels, cfg, n, msg, len);
}

const char *batched_layout_words(size_t chunk, char *buf, size_t len)
{
    if (chunk == 1) snprintf(buf, len, "layout row-major (chunk = 1: no conversion)");
    else if (chunk) snprintf(buf, len, "layout chunked, %zu matrices per chunk", chunk);
    else snprintf(buf, len, "layout simple interleaved");
    return buf;
}
