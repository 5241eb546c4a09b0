/* cholesky_plan.c - the plan and the execute of cholesky_plan.h: every decision at plan time,
 * launches only at execute time. The kernels stay where they are taught (stages 03-06); this file
 * only picks and orders them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cholesky_plan.h"
#include "cuda_check.h"
#include "cyclic_kernel.h"
#include "family.h"
#include "grid_cholesky.h"
#include "layout_convert.h"
#include "tuned.h"

struct cholesky_plan {
    int n;
    size_t batch;
    size_t chunk;                    /* the caller's layout */
    batched_config cfg;              /* what runs */
    const batched_kernel_ops *ops;   /* its launcher */
    int copy_first;                  /* it works in place only: out of place, copy in to out first */
    size_t kchunk;                   /* the layout it runs in */
    int convert;                     /* 1: kchunk != chunk: in -> work (kchunk), factor there, work -> out */
    int grid;                        /* the whole-GPU path: in groups, with its own context */
    size_t group;                    /* grid: matrices a group */
    grid_mode mode;                  /* grid: schedule */
    grid_math math;                  /* grid: arithmetic */
    grid_context *ctx;               /* grid: streams, events, graph */
    size_t convert_bytes, pad_bytes; /* the workspace: the converted batch, then the grid's padded copies */
    char explain[1024];
};

static const char *layout_words(size_t chunk, size_t batch, char *buf, size_t len)
{
    if (chunk <= 1) snprintf(buf, len, "row-major");
    else if (chunk >= batch) snprintf(buf, len, "interleaved");
    else snprintf(buf, len, "chunked (chunk %zu)", chunk);
    return buf;
}

/* The explanation grows a clause at a time; a clause that does not fit is cut, never written past the end. */
static void append(cholesky_plan *p, const char *fmt, ...)
{
    const size_t at = strlen(p->explain);
    va_list ap;
    va_start(ap, fmt);
    if (at + 1 < sizeof p->explain) vsnprintf(p->explain + at, sizeof p->explain - at, fmt, ap);
    va_end(ap);
}

static int fail(char *err, size_t len, const char *what)
{
    snprintf(err, len, "%s", what);
    return -1;
}

int cholesky_plan_create(cholesky_plan **plan, int n, size_t batch, const cholesky_options *opt, char *err, size_t len)
{
    family_init();
    *plan = NULL;
    char why[256] = "", msg[256], lay[64], klay[64];
    if (n < 1 || n > CHOLESKY_MAX_N) {
        snprintf(err, len, "n = %d: the plan takes n = 1 .. %d", n, CHOLESKY_MAX_N);
        return -1;
    }
    if (batch < 1) return fail(err, len, "an empty batch: nothing to plan");
    cholesky_plan *p = calloc(1, sizeof *p);
    if (!p) return fail(err, len, "out of host memory");
    p->n = n;
    p->batch = batch;
    p->chunk = opt && opt->chunk > 1 ? (opt->chunk > batch ? batch : opt->chunk) : 1;
    if (opt && opt->config) {
        p->cfg = *opt->config;
        p->kchunk = opt->kernel_chunk ? opt->kernel_chunk : p->chunk;
        snprintf(why, sizeof why, "given");
    } else {
        const tuned_table *t = tuned_table_default();
        if (!t) {
            free(p);
            return fail(err, len, "no tuned table could be read (06_tuning/tables; make tune writes one)");
        }
        if (tuned_choose(t, n, batch, p->chunk == 1, &p->cfg, &p->kchunk, why, sizeof why) != 0) {
            free(p);
            return fail(err, len, why);
        }
    }
    if (p->kchunk == 0 || p->kchunk > batch) p->kchunk = batch; /* 0 in the table: interleaved */
    const batched_kernel_ops *ops = batched_kernel_find(p->cfg.kernel);
    if (ops && (ops->uses & BATCHED_ROWMAJOR_ONLY)) p->kchunk = 1;
    /* Data already in a layout of their own: the kernel runs in it, unless it reads row-major only. */
    else if (p->chunk != 1 && p->kchunk != p->chunk) p->kchunk = p->chunk;
    if (batched_config_check(&p->cfg, n, msg, sizeof msg) != 0) {
        free(p);
        return fail(err, len, msg);
    }
    /* The cyclic kernel's variant, when not given: its rules' choice for this batch, made now. */
    if (p->cfg.kernel == BATCHED_CYCLIC && p->cfg.unroll == 0)
        p->cfg.unroll = cyclic_variant_choose(p->cfg.threads, p->cfg.per_block, n, batch);
    p->ops = batched_kernel_find(p->cfg.kernel);
    p->copy_first = !(p->ops->uses & BATCHED_OUT_OF_PLACE);
    p->convert = p->kchunk != p->chunk;
    /* The converted batch, rounded up so that the padded copies after it start 256-byte aligned
     * (their tasks read float4s). */
    p->convert_bytes = p->convert ? (batch * (size_t)n * n * sizeof(float) + 255) / 256 * 256 : 0;
    char name[96];
    tuned_format(&p->cfg, p->kchunk, name, sizeof name);
    /* tuned_choose's why starts with the configuration's name: "rows T=16 x4 full c=1, tuned for ..." */
    if (strncmp(why, name, strlen(name)) == 0)
        append(p, "n = %d, %zu %s matrices: %s", n, batch, layout_words(p->chunk, batch, lay, sizeof lay), why);
    else
        append(p, "n = %d, %zu %s matrices: %s (%s)", n, batch, layout_words(p->chunk, batch, lay, sizeof lay), name,
               why);
    if (p->convert)
        append(p, "; converted to %s and back in the workspace", layout_words(p->kchunk, batch, klay, sizeof klay));
    if (p->cfg.kernel == BATCHED_GRID) {
        p->grid = 1;
        p->group = grid_group_size(n, batch);
        grid_choose(n, p->group, &p->mode, &p->math);
        p->pad_bytes = grid_batched_workspace_bytes(n, p->group);
        /* Its streams and events on this GPU; with no GPU to make them on (a plan made to be
         * explained), execute falls back to the thread's own context (grid_cholesky.h). */
        int gpus = 0;
        if (cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0) {
            if (!(p->ctx = grid_context_create())) {
                free(p);
                return fail(err, len, "out of host memory");
            }
        } else (void)cudaGetLastError();
        append(p, "; whole GPU: %s schedule, %s updates%s", grid_mode_name(p->mode), grid_math_name(p->math),
               p->pad_bytes ? ", padded to the tile in the workspace" : ", in place");
        if (p->group < batch) append(p, ", in groups of %zu", p->group);
    }
    append(p, "; workspace %zu bytes", p->convert_bytes + p->pad_bytes);
    *plan = p;
    return 0;
}

void cholesky_plan_destroy(cholesky_plan *p)
{
    if (!p) return;
    grid_context_destroy(p->ctx);
    free(p);
}

size_t cholesky_plan_workspace_bytes(const cholesky_plan *p) { return p->convert_bytes + p->pad_bytes; }

const char *cholesky_plan_explain(const cholesky_plan *p) { return p->explain; }

const batched_config *cholesky_plan_config(const cholesky_plan *p, size_t *kernel_chunk)
{
    if (kernel_chunk) *kernel_chunk = p->kchunk;
    return &p->cfg;
}

/* The whole-GPU path, row-major from in into out, group by group. */
static int run_grid(cholesky_plan *p, const float *in, float *out, int *info, float *pad, cudaStream_t s)
{
    const size_t nn = (size_t)p->n * p->n;
    for (size_t first = 0; first < p->batch; first += p->group) {
        const size_t count = p->batch - first < p->group ? p->batch - first : p->group;
        if (potrf_grid_run(p->ctx, p->mode, p->math, p->n, count, in + first * nn, out + first * nn, pad, info + first,
                           s) != 0)
            return -1;
    }
    return 0;
}

/* The configuration was checked when the plan was made: straight to its family's launcher. */
static int run_kernel(cholesky_plan *p, const float *in, float *out, int *info, float *pad, cudaStream_t s)
{
    if (p->grid) return run_grid(p, in, out, info, pad, s);
    if (p->copy_first && in != out) { /* every layout is dense: batch n^2 floats */
        CUDA_CHECK(
            cudaMemcpyAsync(out, in, p->batch * (size_t)p->n * p->n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        in = out;
    }
    return p->ops->launch(&p->cfg, p->n, p->batch, p->kchunk, in, out, info, s);
}

int cholesky_execute(cholesky_plan *p, const float *d_in, float *d_out, int *d_info, void *d_work, cudaStream_t s)
{
    if (!p || !d_in || !d_out || !d_info || (cholesky_plan_workspace_bytes(p) && !d_work)) {
        fprintf(stderr, "cholesky_execute: %s\n",
                !p                                   ? "no plan"
                : !d_work && d_in && d_out && d_info ? "the plan needs a workspace (cholesky_plan_workspace_bytes)"
                                                     : "a device pointer is NULL");
        return -1;
    }
    float *conv = (float *)d_work, *pad = p->pad_bytes ? (float *)((char *)d_work + p->convert_bytes) : NULL;
    if (!p->convert) return run_kernel(p, d_in, d_out, d_info, pad, s);
    /* The kernel's layout in the workspace: one pass in, the factor in place there, one pass out. */
    if (p->chunk == 1) rowmajor_to_chunked_tiled(p->n, p->batch, p->kchunk, d_in, conv, s);
    else chunked_to_rowmajor_tiled(p->n, p->batch, p->chunk, d_in, conv, s);
    if (run_kernel(p, conv, conv, d_info, pad, s) != 0) return -1;
    if (p->chunk == 1) chunked_to_rowmajor_tiled(p->n, p->batch, p->kchunk, conv, d_out, s);
    else rowmajor_to_chunked_tiled(p->n, p->batch, p->chunk, conv, d_out, s);
    return 0;
}
