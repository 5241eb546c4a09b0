/* cholesky_tuned.c - the stage 06 driver: the course's batch driver (common/batch_driver.c: files,
 * slices, GPUs, checks) with every slice factored through the one door, cholesky_plan.h. The
 * default, --kernel auto, is the plan's own choice for the run's n and batch size (the tuned table
 * of this GPU); a kernel named with its options is given to the plan as it is.
 *
 *   build/06_tuning/cholesky_tuned --n 100 --batch 26844               (auto: from the table)
 *   build/06_tuning/cholesky_tuned --n 100 --batch 26844 --explain     (what auto takes, and why)
 *   build/06_tuning/cholesky_tuned --input data.bin --output L.bin --info info.txt
 *   build/06_tuning/cholesky_tuned --n 64 --batch 4096 --kernel rows --threads 32 --per-block 2 --chunk 2
 *   build/06_tuning/cholesky_tuned --n 100 --batch 4096 --kernel cyclic --threads 64      (row-major, no conversion)
 *   build/06_tuning/cholesky_tuned --n 40 --batch 4096 --kernel thread --order top --nb 4 --chunk 64
 *   build/06_tuning/cholesky_tuned --n 1024 --batch 60 --kernel grid      (what auto takes past n = 128)
 *   build/06_tuning/cholesky_tuned --n 4096 --batch 2 --precision high    (one TF32 pass in the updates)
 *   build/06_tuning/cholesky_tuned --n 7 --batch 1000000 --kernel staged --per-block 128    (n <= 24, row-major)
 *
 * The slices move row-major (the data as they come); a plan whose kernel runs in another layout
 * converts in its workspace, which the slices' memory budget includes. The plan of the whole batch
 * (made to choose and explain) factors it when it goes in one slice on the GPU it was made on: one
 * plan a run. Otherwise each worker (GPU) keeps its own plans, one per slice size, all with the
 * configuration chosen for the whole batch, so every matrix is factored by the same kernel
 * whichever slice or GPU takes it. */
#include <stdio.h>
#include <string.h>
#include "batched_driver.h"
#include "cholesky_plan_internal.h"
#include "tuned.h"
#include "family.h"

#define PROG "cholesky_tuned"

typedef struct {
    int n;
    batched_config cfg;   /* what runs (auto's choice for the whole batch, or the one named) */
    size_t kchunk;        /* the layout it runs in */
    cholesky_plan *whole; /* the whole batch's plan, made on GPU whole_device */
    size_t batch;
    int whole_device;
    int precision; /* --precision: a cholesky_precision */
    struct {       /* a worker's plans: its full slices' and its last slice's */
        cholesky_plan *plan;
        size_t count;
    } plans[SLICED_MAX_WORKERS][2];
} stage6_kernels;

/* A plan for `count` row-major matrices with the run's configuration, or NULL (said on stderr). */
static cholesky_plan *plan_for(const stage6_kernels *s, size_t count, int explain_only)
{
    cholesky_options opt = CHOLESKY_OPTIONS_INIT;
    opt.precision = (cholesky_precision)s->precision;
    const grid_overrides forced = grid_overrides_env(); /* GRID_* by hand, to compare (grid_program.c) */
    const cholesky_internal_options in = {&s->cfg, s->kchunk, explain_only, &forced};
    cholesky_plan *p;
    char err[256];
    if (cholesky_plan_create_internal(&p, s->n, count, &opt, &in, err, sizeof err) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return NULL;
    }
    return p;
}

/* A kernel named on the command line starts from its family's defaults (family.h; --order as given),
 * then --nb, --threads, ... apply. */
static void defaults(batched_config *cfg, size_t *chunk)
{
    const family_kernel *f = family_find(cfg->kernel);
    if (!f) return;
    batched_config d = f->defaults;
    d.order = cfg->order;
    *cfg = d;
    *chunk = f->default_chunk;
}

static void validate(void *self, const char *opt, const char *value)
{
    (void)self;
    batched_options_validate(family_ops, PROG, 1, opt, value);
}

static int prepare(void *self, const batch_kernel_args *a, int n, size_t batch, size_t *chunk, char *what,
                   size_t what_len, char *notes, size_t notes_len)
{
    stage6_kernels *s = self;
    const int automatic = !a->kernel || !strcmp(a->kernel, "auto");
    char msg[256], layout[64], name[96];
    if (automatic && (a->order || a->nb > 0 || a->per_block > 0 || a->unroll >= 0 || a->threads > 0 || a->chunk > 0)) {
        fprintf(stderr, PROG ": --order, --nb, --per-block, --unroll, --threads and --chunk pick a configuration by "
                             "hand: give --kernel too\n");
        return 2;
    }
    s->n = n;
    s->precision = a->precision;
    /* Without a GPU the plan is made to be explained (the driver then says SKIP, not the library's
     * no-device status); --explain never needs one. */
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess) (void)cudaGetLastError(), gpus = 0;
    const int explain_only = a->explain || gpus < 1;
    cholesky_plan *whole = NULL; /* the plan of the whole batch: what runs and why */
    if (automatic) {
        cholesky_options opt = CHOLESKY_OPTIONS_INIT;
        opt.precision = (cholesky_precision)a->precision;
        const grid_overrides forced = grid_overrides_env();
        const cholesky_internal_options in = {NULL, 0, explain_only, &forced};
        if (cholesky_plan_create_internal(&whole, n, batch, &opt, &in, msg, sizeof msg) != 0) {
            fprintf(stderr, PROG ": --kernel auto: %s\n", msg);
            return 2;
        }
        s->cfg = *cholesky_plan_config(whole, &s->kchunk);
    } else {
        size_t given = 0;
        if (batched_config_from_args(family_ops, a, n, defaults, &s->cfg, &given, msg, sizeof msg) != 0) {
            fprintf(stderr, PROG ": %s\n", msg);
            return 2;
        }
        s->kchunk = given ? given : batch; /* 0: simple interleaved */
        if (!(whole = plan_for(s, batch, explain_only))) return 2;
        cholesky_plan_config(whole, &s->kchunk);
    }
    if (a->explain) {
        printf("%s\n", cholesky_plan_explain(whole));
        cholesky_plan_destroy(whole);
        return 3;
    }
    const size_t shown = s->kchunk >= batch && s->kchunk > 1 ? 0 : s->kchunk;
    snprintf(what, what_len, "%s%s, kernel %s", batched_layout_words(shown, layout, sizeof layout),
             s->kchunk == 1 ? "" : " (converted from row-major on the GPU)",
             family_config_name(&s->cfg, name, sizeof name));
    snprintf(notes, notes_len, "  %s: %s\n", automatic ? "--kernel auto" : "plan", cholesky_plan_explain(whole));
    s->whole = whole; /* kept: it factors the batch when one slice on this GPU takes it all */
    s->batch = batch;
    if (cudaGetDevice(&s->whole_device) != cudaSuccess) s->whole_device = -1;
    *chunk = 1; /* the slices stay row-major: the plan converts */
    return 0;
}

static size_t workspace_bytes(void *self, size_t slice)
{
    const stage6_kernels *s = self;
    if (s->whole && slice == s->batch) return cholesky_plan_workspace_bytes(s->whole);
    cholesky_plan *p = plan_for(self, slice, 0);
    const size_t bytes = p ? cholesky_plan_workspace_bytes(p) : 0;
    cholesky_plan_destroy(p);
    return bytes;
}

static int factor(void *self, int worker, size_t first, size_t count, size_t chunk, const float *d_in, float *d_out,
                  int *d_info, void *d_work, cudaStream_t stream)
{
    (void)first;
    (void)chunk; /* 1: prepare asked for row-major slices */
    stage6_kernels *s = self;
    int device;
    if (s->whole && count == s->batch && cudaGetDevice(&device) == cudaSuccess && device == s->whole_device) {
        if (cholesky_execute(s->whole, d_in, d_out, d_info, d_work, stream) == CHOLESKY_SUCCESS) return 0;
        fprintf(stderr, "cholesky_execute: %s\n", cholesky_last_error());
        return -1;
    }
    int k = s->plans[worker][0].count == count ? 0 : s->plans[worker][1].count == count ? 1 : -1;
    if (k < 0) { /* a new slice size (at most two a worker, but any count works) */
        k = s->plans[worker][0].plan ? 1 : 0;
        cholesky_plan_destroy(s->plans[worker][k].plan);
        s->plans[worker][k].count = 0;
        if (!(s->plans[worker][k].plan = plan_for(s, count, 0))) return -1;
        s->plans[worker][k].count = count;
    }
    if (cholesky_execute(s->plans[worker][k].plan, d_in, d_out, d_info, d_work, stream) != CHOLESKY_SUCCESS) {
        fprintf(stderr, "cholesky_execute: %s\n", cholesky_last_error());
        return -1;
    }
    return 0;
}

static void release(void *self)
{
    stage6_kernels *s = self;
    cholesky_plan_destroy(s->whole);
    s->whole = NULL;
    for (int w = 0; w < SLICED_MAX_WORKERS; w++)
        for (int k = 0; k < 2; k++) cholesky_plan_destroy(s->plans[w][k].plan);
}

/* The --kernel lines: auto's, then every family's that stage 04's lines do not cover. */
static const char *family_help(void)
{
    static char text[2048];
    int at = snprintf(text, sizeof text, "%s",
                      "                conversions to and from a layout other than row-major run in the plan's "
                      "workspace (stage 05's tiled converter)\n"
                      "  --kernel auto (default): the tuned table's configuration and layout for this n and batch "
                      "size\n");
    for (int f = 0; f < family_count; f++)
        if (family_list[f]->help) at += snprintf(text + at, sizeof text - at, "%s", family_list[f]->help);
    return text;
}

int main(int argc, char **argv)
{
    tuned_env_apply(); /* TUNED_TABLE, TUNED_TABLES: the tuned table by hand (tuned_env.c) */
    static stage6_kernels s;
    const batch_kernels kernels = {.prog = PROG,
                                   .options = BATCH_OPT_THREADS | BATCH_OPT_EXPLAIN | BATCH_OPT_PRECISION,
                                   .synopsis = batched_options_synopsis(family_ops, 1, 1),
                                   .help = batched_options_help(family_ops, family_help(), 1),
                                   .validate = validate,
                                   .prepare = prepare,
                                   .factorizer = {factor, workspace_bytes, &s},
                                   .release = release};
    return batch_driver_main(argc, argv, &kernels);
}
