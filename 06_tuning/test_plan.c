/* test_plan.c - stage 06's one door (cholesky_plan.h), group "plan and execute" (GPU; skipped
 * without one). Every run: a seeded SPD batch generated on the GPU in the caller's layout, the
 * output poisoned with NaN, execute on a stream of the test's own, then every info 0 and 4
 * matrices against the float64 reference (verify_generated_batch); out of place, the input must
 * come back as it went in.
 *   auto, row-major          n = 1 .. 1025 (register kernels, the whole-GPU path in place and padded)
 *   auto, chunked data       chunk 32 and interleaved
 *   given configurations     a kernel in another layout than the data (the conversions both ways)
 *   a CUDA graph             captured around execute, replayed on new matrices
 *   two host threads         two plans on two streams at once: the factors of one thread alone
 *   every family             its descriptor's defaults and first searched configuration (family.h)
 *   plan decisions (no GPU)  the layout a kernel runs in, the conversions and the workspace they take, the
 *                            explanation; refused plans: n = 0 and 65537, an empty batch, a
 *                            configuration that cannot run
 *
 *   make build/06_tuning/test_plan && build/06_tuning/test_plan */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cholesky_plan_internal.h"
#include "cyclic_kernel.h"
#include "cuda_check.h"
#include "family.h"
#include "gpu_batch.h"
#include "harness.h"
#include "student_kernels.h"

#define GROUP "plan and execute"

typedef struct {
    int n;
    size_t batch, chunk; /* the caller's layout (1 row-major) */
    batched_config cfg;  /* kernel = -1: auto */
    size_t kernel_chunk;
} plan_case;

#define AUTO                         \
    {                                \
        .kernel = (batched_kernel)-1 \
    }
static const plan_case cases[] = {
    {1, 1000, 1, AUTO, 0},
    {7, 1000, 1, AUTO, 0},
    {20, 3, 1, AUTO, 0},
    {33, 1000, 1, AUTO, 0},
    {64, 1000, 1, AUTO, 0},
    {100, 1, 1, AUTO, 0},
    {128, 1000, 1, AUTO, 0},
    {129, 3, 1, AUTO, 0},
    {200, 7, 1, AUTO, 0},
    {256, 3, 1, AUTO, 0},
    {1000, 2, 1, AUTO, 0},
    {1025, 1, 1, AUTO, 0},
    {40, 1000, 32, AUTO, 0},
    {40, 1000, 1000, AUTO, 0},
    {130, 5, 3, AUTO, 0},
    {40, 1000, 1, THREAD_CONFIG(4, 64, 2), 64}, /* row-major data, a kernel on chunks of 64 */
    {20, 1000, 32, STAGED_CONFIG(64), 0},       /* chunked data, a row-major-only kernel */
    {50, 999, 1000, ROWS_CONFIG(32, 2, 1), 0},  /* interleaved data, run as they are */
    {100, 300, 1, CYCLIC_CONFIG(64, 1), 0},
    /* The cyclic kernel's variants, given (the plan takes the rules' choice when they are not). */
    {50, 1000, 1, CYCLIC_VARIANT(32, 1, CYCLIC_LOOP), 0},
    {50, 1000, 1, CYCLIC_VARIANT(32, 2, CYCLIC_UNROLLED), 0},
    {50, 1000, 1, CYCLIC_VARIANT(32, 1, CYCLIC_LOOP + CYCLIC_TRIMMED), 0},
    {72, 1000, 1, CYCLIC_VARIANT(64, 1, CYCLIC_CAPPED), 0},
    {90, 999, 1, CYCLIC_VARIANT(128, 1, CYCLIC_UNROLLED), 0},
    {85, 999, 1, CYCLIC_VARIANT(128, 1, CYCLIC_LOOP + CYCLIC_TRIMMED), 0},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

static gen_params seeded(int k) { return gen_params_make(FAMILY_SPD, harness_seed(4000 + k), 0, 0); }

/* The public options and the course's own (a configuration by hand, a plan only explained), in one. */
typedef struct {
    size_t chunk;
    const batched_config *config;
    size_t kernel_chunk;
    int unaligned, precision;
} test_options;

static cholesky_status create(cholesky_plan **plan, int n, size_t batch, const test_options *t, int explain_only,
                              char *err, size_t len)
{
    cholesky_options o = CHOLESKY_OPTIONS_INIT;
    o.chunk = t->chunk;
    o.unaligned = t->unaligned;
    o.precision = (cholesky_precision)t->precision;
    const cholesky_internal_options in = {t->config, t->kernel_chunk, explain_only, NULL};
    return cholesky_plan_create_internal(plan, n, batch, &o, &in, err, len);
}

static int make_plan(const plan_case *c, cholesky_plan **plan, char *err, size_t len)
{
    const test_options o = {c->chunk, (int)c->cfg.kernel >= 0 ? &c->cfg : NULL, c->kernel_chunk, 0, 0};
    return create(plan, c->n, c->batch, &o, 0, err, len);
}

/* One case, in place or out of place: 1 if right, else 0 with the reason in detail. */
static int run_case(const plan_case *c, int k, int in_place, char *detail, size_t len)
{
    cholesky_plan *plan;
    if (make_plan(c, &plan, detail, len) != 0) return 0;
    const size_t bytes = c->batch * (size_t)c->n * c->n * sizeof(float), work = cholesky_plan_workspace_bytes(plan);
    float *d_in, *d_out, *d_keep;
    int *d_info;
    void *d_work = NULL;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_keep, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, c->batch * sizeof(int)));
    if (work) CUDA_CHECK(cudaMalloc(&d_work, work));
    const gen_params p = seeded(k);
    gen_batch_device(&p, c->n, 0, c->batch, c->chunk, d_in);
    /* garbage above the diagonal: only the lower triangle is read, and out of place it stays */
    poison_strict_upper_device(c->n, c->batch, c->chunk, d_in, UPPER_MIXED, cudaStreamLegacy);
    CUDA_CHECK(cudaMemcpy(d_keep, d_in, bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xff, bytes)); /* NaN */
    CUDA_CHECK(cudaMemset(d_info, 0x7f, c->batch * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    float *out = in_place ? d_in : d_out;
    int ok = cholesky_execute(plan, d_in, out, d_info, d_work, s) == 0;
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaGetLastError());
    if (!ok) snprintf(detail, len, "execute refused");
    else ok = verify_generated_batch(&p, c->n, c->batch, c->chunk, out, d_info, 4, "  plan");
    if (ok && !in_place) { /* the input as it went in */
        char *a = malloc(bytes), *b = malloc(bytes);
        CUDA_CHECK(cudaMemcpy(a, d_in, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(b, d_keep, bytes, cudaMemcpyDeviceToHost));
        ok = memcmp(a, b, bytes) == 0;
        free(a);
        free(b);
        if (!ok) snprintf(detail, len, "out of place changed the input");
    }
    if (ok) snprintf(detail, len, "%s", cholesky_plan_explain(plan));
    else if (!detail[0]) snprintf(detail, len, "wrong factors (see above); %s", cholesky_plan_explain(plan));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_keep));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaStreamDestroy(s));
    cholesky_plan_destroy(plan);
    return ok;
}

/* A graph captured around execute on (n, batch), replayed on matrices of another seed. */
static int run_graph(int n, size_t batch, char *detail, size_t len)
{
    cholesky_plan *plan;
    if (cholesky_plan_create(&plan, n, batch, NULL, detail, len) != 0) return 0;
    const size_t bytes = batch * (size_t)n * n * sizeof(float), work = cholesky_plan_workspace_bytes(plan);
    float *d_in, *d_out;
    int *d_info;
    void *d_work = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    if (work) CUDA_CHECK(cudaMalloc(&d_work, work));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const gen_params first = seeded(900), second = seeded(901);
    gen_batch_device(&first, n, 0, batch, 1, d_in);
    CUDA_CHECK(cudaDeviceSynchronize());
    int ok = cholesky_execute(plan, d_in, d_out, d_info, d_work, s) == 0; /* a warm-up, as graphs want */
    CUDA_CHECK(cudaStreamSynchronize(s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ok = ok && cholesky_execute(plan, d_in, d_out, d_info, d_work, s) == 0;
    CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    gen_batch_device(&second, n, 0, batch, 1, d_in);
    poison_strict_upper_device(n, batch, 1, d_in, UPPER_MIXED, cudaStreamLegacy);
    CUDA_CHECK(cudaMemset(d_out, 0xff, bytes));
    CUDA_CHECK(cudaMemset(d_info, 0x7f, batch * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    ok = ok && verify_generated_batch(&second, n, batch, 1, d_out, d_info, 4, "  graph");
    snprintf(detail, len, "%s", cholesky_plan_explain(plan));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaStreamDestroy(s));
    cholesky_plan_destroy(plan);
    return ok;
}

/* Two host threads, each its plan and stream, factoring again and again at once. */
typedef struct {
    int n;
    size_t batch;
    int device;
    float *d_in, *d_out;
    int *d_info;
    int ok;
} worker_job;

static void *worker(void *arg)
{
    worker_job *j = arg;
    CUDA_CHECK(cudaSetDevice(j->device));
    cholesky_plan *plan;
    char err[256];
    j->ok = cholesky_plan_create(&plan, j->n, j->batch, NULL, err, sizeof err) == 0;
    if (!j->ok) return NULL;
    void *d_work = NULL;
    if (cholesky_plan_workspace_bytes(plan)) CUDA_CHECK(cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan)));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int r = 0; r < 20 && j->ok; r++) j->ok = cholesky_execute(plan, j->d_in, j->d_out, j->d_info, d_work, s) == 0;
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    cholesky_plan_destroy(plan);
    return NULL;
}

static int run_threads(char *detail, size_t len)
{
    worker_job jobs[2] = {{.n = 50, .batch = 2000}, {.n = 400, .batch = 6}};
    float *alone[2];
    int ok = 1;
    CUDA_CHECK(cudaGetDevice(&jobs[0].device));
    jobs[1].device = jobs[0].device;
    for (int k = 0; k < 2; k++) {
        const size_t bytes = jobs[k].batch * (size_t)jobs[k].n * jobs[k].n * sizeof(float);
        CUDA_CHECK(cudaMalloc((void **)&jobs[k].d_in, bytes));
        CUDA_CHECK(cudaMalloc((void **)&jobs[k].d_out, bytes));
        CUDA_CHECK(cudaMalloc((void **)&jobs[k].d_info, jobs[k].batch * sizeof(int)));
        const gen_params p = seeded(910 + k);
        gen_batch_device(&p, jobs[k].n, 0, jobs[k].batch, 1, jobs[k].d_in);
        CUDA_CHECK(cudaDeviceSynchronize());
        worker(&jobs[k]); /* alone first: the reference */
        alone[k] = malloc(bytes);
        CUDA_CHECK(cudaMemcpy(alone[k], jobs[k].d_out, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemset(jobs[k].d_out, 0xff, bytes));
        ok = ok && jobs[k].ok;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    pthread_t t[2];
    for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, worker, &jobs[k]);
    for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    for (int k = 0; k < 2; k++) {
        const size_t bytes = jobs[k].batch * (size_t)jobs[k].n * jobs[k].n * sizeof(float);
        float *both = malloc(bytes);
        CUDA_CHECK(cudaMemcpy(both, jobs[k].d_out, bytes, cudaMemcpyDeviceToHost));
        const gen_params p = seeded(910 + k);
        ok = ok && jobs[k].ok && memcmp(both, alone[k], bytes) == 0 &&
             verify_generated_batch(&p, jobs[k].n, jobs[k].batch, 1, jobs[k].d_out, jobs[k].d_info, 4, "  threads");
        free(both);
        free(alone[k]);
        CUDA_CHECK(cudaFree(jobs[k].d_in));
        CUDA_CHECK(cudaFree(jobs[k].d_out));
        CUDA_CHECK(cudaFree(jobs[k].d_info));
    }
    snprintf(detail, len, "2000 x 50^2 and 6 x 400^2, 20 calls each at once: %s",
             ok ? "bit for bit those of each alone" : "differ from each alone, or wrong");
    return ok;
}

/* Every family of the list (family.h), through a plan: its defaults in its default layout, and the
 * first configuration of its make tune search space, at the first of these orders both take. */
static int family_case(const family_kernel *f, int use_search, plan_case *c)
{
    static const int ns[] = {20, 40, 200};
    char msg[256];
    for (int i = 0; i < 3; i++) {
        batched_config cfg[64];
        size_t chunk[64];
        const int k = f->search(ns[i], 0, cfg, chunk, 64);
        if (k < 1 || family_config_check(&f->defaults, ns[i], msg, sizeof msg) != 0) continue;
        *c = (plan_case){ns[i], 999, 1, use_search ? cfg[0] : f->defaults, use_search ? chunk[0] : f->default_chunk};
        if (!c->kernel_chunk) c->kernel_chunk = c->batch; /* 0: interleaved */
        return 1;
    }
    return 0;
}

static const struct {
    int n;
    size_t batch;
    batched_config cfg;
    const char *phrase;
} refusals[] = {
    {0, 10, AUTO, "n = 0"},
    {65537, 1, AUTO, "n = 65537"},
    {20, 0, AUTO, "empty batch"},
    {200, 10, ROWS_CONFIG(32, 2, 1), "rows kernel takes n <="},
    {50, 10, CYCLIC_VARIANT(16, 2, CYCLIC_LOOP + CYCLIC_TRIMMED), "not compiled"}, /* a 4 x 4 grid trims nothing */
    {56, 10, CYCLIC_VARIANT(32, 1, CYCLIC_LOOP + CYCLIC_TRIMMED), "not compiled"}, /* n needs the last row slot */
    {100, 10, CYCLIC_VARIANT(64, 1, CYCLIC_UNROLLED), "not compiled"},             /* A = 13: no unrolled code */
    {50, 10, CYCLIC_VARIANT(32, 1, 9), "not compiled"},
};
#define NREFUSALS ((int)(sizeof refusals / sizeof *refusals))

/* ---- the plan's decisions: no GPU needed (a plan of the register kernels touches no device) ---- */
#define DECISIONS "plan decisions"

static void decision(harness *h, const char *name, int n, size_t batch, const test_options *o, int want_convert,
                     size_t want_kchunk, const char *want_phrase)
{
    cholesky_plan *plan = NULL;
    char err[256];
    if (create(&plan, n, batch, o, 1, err, sizeof err) != 0) {
        harness_check(h, 0, name, "refused: %s", err);
        return;
    }
    size_t kchunk;
    cholesky_plan_config(plan, &kchunk);
    const size_t work = cholesky_plan_workspace_bytes(plan), floats = batch * (size_t)n * n;
    const int converts = work > 0, work_ok = converts ? work >= floats * sizeof(float) && work % 256 == 0 : 1;
    const char *why = cholesky_plan_explain(plan);
    harness_check(h, converts == want_convert && kchunk == want_kchunk && work_ok && strstr(why, want_phrase), name,
                  "kernel chunk %zu (want %zu), workspace %zu bytes (want %s), explain: %s", kchunk, want_kchunk, work,
                  want_convert ? "the converted batch, 256-byte multiple" : "none", why);
    cholesky_plan_destroy(plan);
}

static void decision_tests(harness *h)
{
    const batched_config thread = THREAD_CONFIG(4, 64, 2), staged = STAGED_CONFIG(64), rows = ROWS_CONFIG(32, 2, 1);
    const test_options row_major = {1, NULL, 0, 0, 0}, chunked32 = {32, NULL, 0, 0, 0};
    const test_options thread64 = {1, &thread, 64, 0, 0}, staged_on_chunks = {32, &staged, 0, 0, 0},
                       rows_interleaved = {999, &rows, 0, 0, 0};
    decision(h, "auto, row-major n=64 batch=1024: the table's row-major entry, no conversion", 64, 1024, &row_major, 0,
             1, "n = 64, 1024 row-major matrices: ");
    decision(h, "auto, chunked data: run in the caller's chunks", 40, 1000, &chunked32, 0, 32, "chunked (chunk 32)");
    decision(h, "thread kernel on chunks of 64, row-major data: converted in the workspace", 40, 1001, &thread64, 1, 64,
             "converted to chunked (chunk 64) and back in the workspace");
    decision(h, "staged kernel, chunked data: converted to row-major", 7, 1000, &staged_on_chunks, 1, 1,
             "converted to row-major and back");
    decision(h, "rows kernel, interleaved data: run as they are", 33, 999, &rows_interleaved, 0, 999,
             "999 interleaved matrices: rows T=32 x2 loop");
    /* Precision high: said in the explanation; on the batched kernels (and with no GPU to ask for
     * tensor cores) fp32 runs and the explanation says so; a value that is no precision is refused. */
    const test_options high = {1, NULL, 0, 0, CHOLESKY_PRECISION_HIGH}, bogus = {1, NULL, 0, 0, 7};
    decision(h, "precision high on the batched kernels: fp32 runs, and the plan says so", 64, 1024, &high, 0, 1,
             "precision high asked: fp32 arithmetic runs at this size");
    const test_options medium = {1, NULL, 0, 0, CHOLESKY_PRECISION_MEDIUM};
    decision(h, "precision medium on the batched kernels: fp32 runs, and the plan says so", 64, 1024, &medium, 0, 1,
             "precision medium asked: fp32 arithmetic runs at this size");
    {
        cholesky_plan *p7 = NULL;
        char e7[256] = "";
        const int r7 = create(&p7, 64, 8, &bogus, 1, e7, sizeof e7);
        harness_check(h, r7 == CHOLESKY_STATUS_INVALID_VALUE && !p7 && strstr(e7, "precision 7"),
                      "a precision that is none is refused", "%s", e7);
    }
    /* The explanation of the longest words still ends inside its buffer. */
    const test_options huge = {(size_t)1 << 39, &thread, (size_t)1 << 37, 0, 0};
    cholesky_plan *plan = NULL;
    char err[256];
    const int rc = create(&plan, 128, (size_t)1 << 40, &huge, 1, err, sizeof err);
    const size_t len = rc == 0 ? strlen(cholesky_plan_explain(plan)) : 0;
    harness_check(h, rc == 0 && len > 0 && len < 1280, "the longest explanation stays inside its buffer",
                  "%zu characters", len);
    cholesky_plan_destroy(plan);
    float x;
    int info;
    harness_check(h,
                  rc == 0 && cholesky_execute(NULL, &x, &x, &info, NULL, 0) == CHOLESKY_STATUS_INVALID_VALUE &&
                      strstr(cholesky_last_error(), "no plan"),
                  "execute without a plan is refused", "%s", cholesky_last_error());
    for (int k = 0; k < NREFUSALS; k++) {
        plan = NULL;
        const test_options o = {1, (int)refusals[k].cfg.kernel >= 0 ? &refusals[k].cfg : NULL, 0, 0, 0};
        char detail[256] = "", name[96];
        const int r = create(&plan, refusals[k].n, refusals[k].batch, &o, 1, detail, sizeof detail);
        snprintf(name, sizeof name, "refused: n=%d batch=%zu", refusals[k].n, refusals[k].batch);
        harness_check(h, r != CHOLESKY_SUCCESS && !plan && strstr(detail, refusals[k].phrase), name, "%s", detail);
    }
}

int main(void)
{
    harness h;
    harness_begin(&h, "stage-6");
    static const int graph_ns[] = {64, 300, 1000};
    static const size_t graph_batches[] = {1000, 3, 2};
    harness_plan(&h, DECISIONS, harness_count(&h, decision_tests));
    harness_plan(&h, GROUP, 2 * NCASES + 2 * family_count + 3 + 1 + 1);
    harness_group(&h, DECISIONS);
    decision_tests(&h);
    harness_group(&h, GROUP);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        harness_skip_rest(&h, GROUP, reason);
        return harness_end(&h);
    }
    char what[160]; /* every family runs here, yours too: only when they factor a small batch right */
    if (!harness_requires(&h, GROUP, student_kernels_work(what, sizeof what), what)) return harness_end(&h);
    char detail[768], name[160];
    for (int k = 0; k < NCASES; k++)
        for (int in_place = 1; in_place >= 0; in_place--) {
            const plan_case *c = &cases[k];
            char cfg[96] = "auto";
            if ((int)c->cfg.kernel >= 0) family_config_name(&c->cfg, cfg, sizeof cfg);
            snprintf(name, sizeof name, "%s n=%d batch=%zu chunk=%zu %s", cfg, c->n, c->batch, c->chunk,
                     in_place ? "in place" : "out of place");
            harness_start(&h, "%s", name);
            detail[0] = '\0';
            harness_check(&h, run_case(c, k, in_place, detail, sizeof detail), name, "%s", detail);
        }
    for (int f = 0; f < family_count; f++)
        for (int use_search = 0; use_search < 2; use_search++) {
            const family_kernel *fk = family_list[f];
            plan_case c;
            char cfg[96] = "?";
            const int found = family_case(fk, use_search, &c);
            if (found) family_config_name(&c.cfg, cfg, sizeof cfg);
            snprintf(name, sizeof name, "family %s: its %s (%s) n=%d through a plan", family_ops(fk->id)->name,
                     use_search ? "first searched configuration" : "defaults", cfg, found ? c.n : 0);
            harness_start(&h, "%s", name);
            detail[0] = '\0';
            harness_check(&h, found && run_case(&c, 100 + f, 0, detail, sizeof detail), name, "%s",
                          found ? detail : "no order of 20, 40, 200 that its defaults and search take");
        }
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "CUDA graph around execute, n=%d batch=%zu", graph_ns[k], graph_batches[k]);
        harness_start(&h, "%s", name);
        detail[0] = '\0';
        harness_check(&h, run_graph(graph_ns[k], graph_batches[k], detail, sizeof detail), name, "%s", detail);
    }
    /* The rules' variant of the cyclic kernel is a decision of the plan: made once, shown, launched as is. */
    {
        const batched_config cyc = CYCLIC_CONFIG(64, 1);
        const test_options o = {1, &cyc, 0, 0, 0};
        cholesky_plan *plan = NULL;
        char err[256] = "";
        const int rc = create(&plan, 100, 300, &o, 0, err, sizeof err);
        const batched_config *got = rc == 0 ? cholesky_plan_config(plan, NULL) : NULL;
        const char *why = rc == 0 ? cholesky_plan_explain(plan) : err;
        harness_check(&h, got && got->unroll > 0 && strstr(why, cyclic_variant_name(got->unroll)),
                      "the plan takes the cyclic kernel's variant at plan time", "%s", why);
        cholesky_plan_destroy(plan);
    }
    harness_start(&h, "two threads, two plans, two streams");
    harness_check(&h, run_threads(detail, sizeof detail), "two threads, two plans, two streams", "%s", detail);
    return harness_end(&h);
}
