/* test_library.c - the library's boundary (cholesky_plan.h), linked as the installed library is
 * (every failure a value returned to the door: common/cuda_check.h's CUDA_TRY):
 *   library arguments (no GPU needed)  100 000 seeded random calls of every function: n, batch up to
 *       SIZE_MAX, every option and its size, NULL, misaligned and destroyed-plan pointers, err
 *       buffers of every length. Never a crash, never a wrapped size, and always the status the
 *       header documents (an oracle here computes it from the arguments). Also run under ASan/UBSan
 *       (make SAN=1 test). Executes that would launch are never made (their pointers are fake).
 *   library threads (GPU)  8 threads, each with plans of its own, 50 calls each at 1 x 4096^2 and
 *       2 x 2048^2, in 5 rounds: every factor equal bit for bit to one thread's (the header's
 *       promise: same plan, same input, same bits; the whole-GPU factorizations take turns). The
 *       same in float64 at 1 x 2048^2 and 3 x 1100^2, 20 calls a round: there the whole-GPU
 *       factorizations do not take turns (each host thread has its own streams) and may overlap.
 *   library errors (GPU)  a CUDA error planted (course_fault_plant) at the first, a middle and the
 *       last checked CUDA call of an execute (whole GPU, captured into a graph: 1 x 4096^2; padded:
 *       3 x 300^2; a small family converted in the workspace: 1024 x 64^2), and at every one of a
 *       plan creation's: each call returns CHOLESKY_STATUS_CUDA_ERROR with the call named, leaves
 *       no error behind, and the next call gives the same bits as before. Under make SAN=1,
 *       LeakSanitizer checks that nothing the failed calls took on the host is left.
 *
 *   make build/06_tuning/library/test_library && build/06_tuning/library/test_library [errors|threads]
 *   (errors, threads: that group alone; make SAN=1 builds build-san/06_tuning/library/test_library, whose
 *   LeakSanitizer then checks the failed calls' host memory) */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "checks.h"
#include "cholesky_plan_internal.h"
#include "family.h"
#include "gpu_batch.h"
#include "harness.h"
#include "student_kernels.h"

#define ARGS "library arguments"
#define THREADS "library threads"
#define ERRORS "library errors"
#define CALLS 100000

static unsigned long long rng;
static unsigned long long next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}
static int pick(int count) { return (int)(next() % (unsigned)count); }

static int random_n(void)
{
    static const int ns[] = {-5, -1, 0, 1, 2, 31, 33, 64, 128, 129, 200, 1000, 4096, 65536, 65537, INT_MAX, INT_MIN};
    return pick(4) ? ns[pick(HARNESS_LEN(ns))] : (int)next();
}

static size_t random_batch(int n)
{
    const size_t per = n > 0 ? (size_t)n * n * sizeof(float) : 1, edge = ((size_t)1 << 60) / per;
    const size_t bs[] = {0, 1, 2, 7, 1000, (size_t)1 << 20, (size_t)1 << 40, SIZE_MAX, SIZE_MAX / 2, edge, edge + 1};
    return pick(4) ? bs[pick(HARNESS_LEN(bs))] : pick(2) ? next() : next() % 5000;
}

/* The options as a caller might pass them, in a buffer larger than the struct (a size past it is
 * refused, never read). */
typedef struct {
    cholesky_options o;
    char beyond[64];
} options_buffer;

static const cholesky_options *random_options(options_buffer *b, size_t batch)
{
    if (!pick(4)) return NULL;
    const cholesky_options init = CHOLESKY_OPTIONS_INIT;
    memset(b, 0, sizeof *b);
    b->o = init;
    const size_t first = offsetof(cholesky_options, unaligned) + sizeof(int);
    const size_t sizes[] = {0, 8, first - 1, first, sizeof b->o, sizeof b->o + 8, (size_t)next()};
    if (!pick(4)) b->o.size = sizes[pick(HARNESS_LEN(sizes))];
    const size_t chunks[] = {0, 1, 2, 32, batch, batch + 1, SIZE_MAX};
    b->o.chunk = pick(2) ? chunks[pick(HARNESS_LEN(chunks))] : 1;
    const int precisions[] = {0, 1, 2, 3, -1, 7};
    b->o.precision = (cholesky_precision)(pick(2) ? precisions[pick(HARNESS_LEN(precisions))] : 0);
    const int unaligned[] = {0, 1, 2, -1};
    b->o.unaligned = pick(2) ? unaligned[pick(HARNESS_LEN(unaligned))] : 0;
    return &b->o;
}

/* What the header says create answers, where the arguments decide it (-1: a plan may be made). */
static int expected_create(cholesky_plan **plan, int n, size_t batch, const cholesky_options *o)
{
    const size_t first = offsetof(cholesky_options, unaligned) + sizeof(int);
    if (!plan || (o && (o->size < first || o->size > sizeof *o)) || n < 1 || n > CHOLESKY_MAX_N || batch < 1)
        return CHOLESKY_STATUS_INVALID_VALUE;
    if (batch > ((size_t)1 << 60) / ((size_t)n * n * sizeof(float))) return CHOLESKY_STATUS_INVALID_VALUE;
    if (o && ((o->precision < 0 || o->precision > 2) || (o->unaligned != 0 && o->unaligned != 1)))
        return CHOLESKY_STATUS_INVALID_VALUE;
    return -1;
}

#define POOL 16
typedef struct {
    cholesky_plan *plan;
    int unaligned, explain_only;
    size_t bytes, infos; /* the batch's and its infos' sizes: the fake arrays may overlap */
} pooled;

/* [a, a + na) and [b, b + nb) share a byte: the header's rule, computed here on its own */
static int overlap(uintptr_t a, size_t na, uintptr_t b, size_t nb) { return na && nb && a < b + nb && b < a + na; }

typedef struct {
    long calls, failures;
    char first[512]; /* the first wrong answer */
} tally;

static void wrong(tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wrong(tally *t, const char *fmt, ...)
{
    if (!t->failures++) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->first, sizeof t->first, fmt, ap);
        va_end(ap);
    }
}

/* One create, public or explain-only, held to the oracle; a plan made goes into the pool. */
static void one_create(tally *t, pooled *pool, int *live, cholesky_plan **gone, int *ngone, int have_gpu)
{
    const int n = random_n(), internal = pick(2);
    const size_t batch = random_batch(n);
    options_buffer buf;
    const cholesky_options *o = random_options(&buf, batch);
    char err[300];
    const size_t lens[] = {0, 1, 5, sizeof err};
    const size_t len = lens[pick(4)];
    char *e = pick(5) ? err : NULL;
    memset(err, 'x', sizeof err);
    cholesky_plan *plan = (cholesky_plan *)&err, **where = pick(20) ? &plan : NULL;
    const cholesky_internal_options in = {NULL, 0, 1, NULL};
    const int want = expected_create(where, n, batch, o);
    const cholesky_status st = internal ? cholesky_plan_create_internal(where, n, batch, o, &in, e, len)
                                        : cholesky_plan_create(where, n, batch, o, e, len);
    t->calls++;
    char what[160];
    snprintf(what, sizeof what, "%s create(n = %d, batch = %zu, options %s size %zu): %s",
             internal ? "explain-only" : "public", n, batch, o ? "given," : "NULL,", o ? o->size : 0,
             cholesky_status_string(st));
    if (want >= 0 && (int)st != want) wrong(t, "%s, want %s", what, cholesky_status_string((cholesky_status)want));
    if (want < 0 && !internal && !have_gpu && st != CHOLESKY_STATUS_NO_DEVICE)
        wrong(t, "%s, want no device (no GPU here)", what);
    if (want < 0 && st != CHOLESKY_SUCCESS && st != CHOLESKY_STATUS_NOT_SUPPORTED && st != CHOLESKY_STATUS_NO_DEVICE &&
        st != CHOLESKY_STATUS_OUT_OF_MEMORY)
        wrong(t, "%s: not a status the header gives for such arguments", what);
    if (st != CHOLESKY_SUCCESS && e && len && memchr(err, 0, len) == NULL)
        wrong(t, "%s: err not ended inside its %zu bytes", what, len);
    if (where && st != CHOLESKY_SUCCESS && plan) wrong(t, "%s: *plan not NULL after a failure", what);
    if (st != CHOLESKY_SUCCESS) {
        if (!strstr(cholesky_last_error(), st == CHOLESKY_STATUS_NO_DEVICE ? "no NVIDIA GPU / driver" : ""))
            wrong(t, "%s: message '%s'", what, cholesky_last_error());
        return;
    }
    const size_t work = cholesky_plan_workspace_bytes(plan), bytes = batch * (size_t)n * n * sizeof(float);
    const size_t explain = strlen(cholesky_plan_explain(plan));
    if (explain == 0 || explain >= 1280) wrong(t, "%s: explanation of %zu characters", what, explain);
    if (work > 2 * bytes + ((size_t)4 << 30)) wrong(t, "%s: workspace %zu bytes for a batch of %zu", what, work, bytes);
    const int slot = *live < POOL ? (*live)++ : pick(POOL);
    if (slot < *live - 1 || *live == POOL) { /* a full pool: the plan there goes first */
        if (pool[slot].plan && *ngone < 4096) gone[(*ngone)++] = pool[slot].plan;
        cholesky_plan_destroy(pool[slot].plan);
    }
    pool[slot] = (pooled){plan, o && o->unaligned == 1, internal, bytes, batch * sizeof(int)};
}

/* One execute with fake pointers, whose answer the arguments decide before anything launches. */
static void one_execute(tally *t, const pooled *pool, int live, cholesky_plan *const *gone, int ngone, int have_gpu)
{
    int k = live ? pick(live) : -1;
    cholesky_plan *plan = k >= 0 ? pool[k].plan : NULL;
    int is_live = k >= 0, unaligned = k >= 0 && pool[k].unaligned, explain_only = k >= 0 && pool[k].explain_only;
    size_t bytes = k >= 0 ? pool[k].bytes : 0, nbinfo = k >= 0 ? pool[k].infos : 0;
    const int which = pick(8);
    if (which == 0) plan = NULL, is_live = 0;
    if (which == 1 && ngone) { /* (its address may be a new plan's now: then that one) */
        plan = gone[pick(ngone)], is_live = 0;
        for (int m = 0; m < live; m++)
            if (pool[m].plan == plan)
                is_live = 1, unaligned = pool[m].unaligned, explain_only = pool[m].explain_only, bytes = pool[m].bytes,
                nbinfo = pool[m].infos;
    }
    const uintptr_t ins[] = {0, 0x100000, 0x100004, 0x100001, 0x100010};
    const uintptr_t infos[] = {0, 0x200000, 0x200002};
    const uintptr_t works[] = {0, 0x300000, 0x300010};
    const uintptr_t in = ins[pick(5)], out = pick(2) ? in : ins[pick(5)], info = infos[pick(3)], work = works[pick(3)];
    const size_t need = is_live ? cholesky_plan_workspace_bytes(plan) : 0;
    int want;
    if (!is_live || !in || !out || !info || (need && !work)) want = CHOLESKY_STATUS_INVALID_VALUE;
    else if (((in | out) % CHOLESKY_ALIGNMENT && !unaligned) || info % sizeof(int) || work % 256)
        want = CHOLESKY_STATUS_MISALIGNED;
    else if ((in != out && overlap(in, bytes, out, bytes)) || overlap(in, bytes, info, nbinfo) ||
             overlap(out, bytes, info, nbinfo) || overlap(in, bytes, work, need) || overlap(out, bytes, work, need) ||
             overlap(info, nbinfo, work, need))
        want = CHOLESKY_STATUS_INVALID_VALUE; /* only in == out may share memory */
    else if (explain_only) want = CHOLESKY_STATUS_INVALID_VALUE;
    else return; /* it would launch on fake pointers: never made */
    (void)have_gpu;
    const cholesky_status st =
        cholesky_execute(plan, (const float *)in, (float *)out, (int *)info, (void *)work, (cudaStream_t)0);
    t->calls++;
    if ((int)st != want)
        wrong(t, "execute(%s plan, in %#lx, out %#lx, info %#lx, work %#lx; needs %zu): %s, want %s",
              is_live ? "a live"
              : plan  ? "a destroyed"
                      : "no",
              (unsigned long)in, (unsigned long)out, (unsigned long)info, (unsigned long)work, need,
              cholesky_status_string(st), cholesky_status_string((cholesky_status)want));
}

static void one_query(tally *t, const pooled *pool, int live, cholesky_plan *const *gone, int ngone)
{
    t->calls++;
    if (ngone) {
        cholesky_plan *p = gone[pick(ngone)];
        int still = 0; /* (a destroyed plan's address may be a new plan's now) */
        for (int k = 0; k < live; k++) still |= pool[k].plan == p;
        if (!still && (cholesky_plan_workspace_bytes(p) != 0 || strcmp(cholesky_plan_explain(p), "") != 0))
            wrong(t, "a destroyed plan's queries: workspace %zu, explain '%.40s'", cholesky_plan_workspace_bytes(p),
                  cholesky_plan_explain(p));
        if (!still) cholesky_plan_destroy(p); /* again: nothing */
    }
    if (cholesky_plan_workspace_bytes(NULL) != 0 || strcmp(cholesky_plan_explain(NULL), "") != 0)
        wrong(t, "NULL's queries: not 0 and \"\"");
    cholesky_plan_destroy(NULL);
    const char *s = cholesky_status_string((cholesky_status)(int)(next() % 20) - 5);
    if (!s || !*s) wrong(t, "a status without words");
}

static void argument_tests(harness *h)
{
    char reason[256];
    const int have_gpu = gpu_available(reason, sizeof reason);
    rng = harness_seed(83) | 1;
    tally creates = {0}, executes = {0}, queries = {0};
    pooled pool[POOL] = {{0}};
    cholesky_plan *gone[4096];
    int live = 0, ngone = 0;
    while (creates.calls + executes.calls + queries.calls < CALLS) { /* (an execute that would launch is not made) */
        const int what = pick(10);
        if (what < 4) one_create(&creates, pool, &live, gone, &ngone, have_gpu);
        else if (what < 8) one_execute(&executes, pool, live, gone, ngone, have_gpu);
        else one_query(&queries, pool, live, gone, ngone);
    }
    for (int k = 0; k < live; k++) cholesky_plan_destroy(pool[k].plan);
    harness_check(h, !creates.failures, "create: random arguments, the documented status", "%ld calls, %ld wrong%s%s",
                  creates.calls, creates.failures, creates.failures ? "; first: " : "", creates.first);
    harness_check(h, !executes.failures,
                  "execute: NULL, misaligned, overlapping, destroyed, no workspace: refused as documented",
                  "%ld calls, %ld wrong%s%s", executes.calls, executes.failures, executes.failures ? "; first: " : "",
                  executes.first);
    harness_check(h, !queries.failures, "queries and destroy of NULL and destroyed plans: 0, \"\", nothing",
                  "%ld calls, %ld wrong%s%s", queries.calls, queries.failures, queries.failures ? "; first: " : "",
                  queries.first);
    harness_check(h, creates.calls + executes.calls + queries.calls >= CALLS, "at least 100 000 calls made",
                  "%ld creates, %ld executes, %ld queries", creates.calls, executes.calls, queries.calls);
    /* The sizes at the edge, named: the batch whose bytes are 2^60 is taken, one more is refused. */
    const cholesky_internal_options in = {NULL, 0, 1, NULL};
    cholesky_plan *p = NULL;
    const size_t edge = ((size_t)1 << 60) / ((size_t)65536 * 65536 * sizeof(float));
    const cholesky_status a = cholesky_plan_create_internal(&p, 65536, edge, NULL, &in, NULL, 0);
    cholesky_plan_destroy(p);
    const cholesky_status b = cholesky_plan_create_internal(&p, 65536, edge + 1, NULL, &in, NULL, 0);
    const cholesky_status c = cholesky_plan_create_internal(&p, 3, SIZE_MAX, NULL, &in, NULL, 0);
    harness_check(h, a == CHOLESKY_SUCCESS && b == CHOLESKY_STATUS_INVALID_VALUE && c == CHOLESKY_STATUS_INVALID_VALUE,
                  "65536^2 x 2^28 planned, one more and SIZE_MAX of 3^2 refused, never wrapped", "%s, %s, %s",
                  cholesky_status_string(a), cholesky_status_string(b), cholesky_status_string(c));
    harness_check(h, cholesky_version() == CHOLESKY_VERSION, "the version query is the header's", "%d, header %d",
                  cholesky_version(), CHOLESKY_VERSION);
}

/* ---- several threads, each its own plans: the same bits as one thread ---- */
typedef struct {
    int n;
    size_t batch;
    int f64;                        /* a float64 plan (cholesky_execute_f64) */
    const void *d_in;               /* float, or double where f64 */
    const unsigned long long *want; /* the hash of one thread's factor */
    int calls, wrong, failed;
    char why[256];
} thread_job;

static unsigned long long hash_bytes(const void *p, size_t bytes)
{
    const unsigned long long *w = p;
    unsigned long long h = 1469598103934665603ull;
    for (size_t k = 0; k < bytes / 8; k++) h = (h ^ w[k]) * 1099511628211ull;
    return h;
}

/* Factor job's batch `calls` times with a plan of this thread's own; each factor's hash. */
static int factor_hashes(thread_job *j, unsigned long long *hashes, int calls)
{
    const size_t bytes = j->batch * (size_t)j->n * j->n * (j->f64 ? sizeof(double) : sizeof(float));
    cholesky_plan *plan = NULL;
    void *d_out = NULL, *h_out = malloc(bytes);
    int *d_info = NULL;
    void *d_work = NULL;
    cudaStream_t s = NULL;
    cholesky_options opt = CHOLESKY_OPTIONS_INIT;
    opt.dtype = j->f64 ? CHOLESKY_FLOAT64 : CHOLESKY_FLOAT32;
    int ok = h_out && cholesky_plan_create(&plan, j->n, j->batch, &opt, j->why, sizeof j->why) == CHOLESKY_SUCCESS;
    const size_t work = ok ? cholesky_plan_workspace_bytes(plan) : 0;
    ok = ok && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
         cudaMalloc(&d_out, bytes) == cudaSuccess &&
         cudaMalloc((void **)&d_info, j->batch * sizeof(int)) == cudaSuccess &&
         (!work || cudaMalloc(&d_work, work) == cudaSuccess);
    for (int c = 0; ok && c < calls; c++) {
        ok = (j->f64 ? cholesky_execute_f64(plan, j->d_in, d_out, d_info, d_work, s)
                     : cholesky_execute(plan, j->d_in, d_out, d_info, d_work, s)) == CHOLESKY_SUCCESS &&
             cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s) == cudaSuccess &&
             cudaStreamSynchronize(s) == cudaSuccess;
        if (ok) hashes[c] = hash_bytes(h_out, bytes);
        else if (!j->why[0]) snprintf(j->why, sizeof j->why, "call %d: %s", c, cholesky_last_error());
    }
    if (!ok && !j->why[0]) snprintf(j->why, sizeof j->why, "setup: %s", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_out), cudaFree(d_info), cudaFree(d_work);
    if (s) cudaStreamDestroy(s);
    cholesky_plan_destroy(plan);
    free(h_out);
    return ok;
}

static void *thread_body(void *arg)
{
    thread_job *j = arg;
    unsigned long long hashes[64];
    j->failed = !factor_hashes(j, hashes, j->calls);
    for (int c = 0; !j->failed && c < j->calls; c++) j->wrong += hashes[c] != *j->want;
    return NULL;
}

/* One thread's float64 batch: the generator's matrices widened (the upper triangle NaN: only the lower
 * is read), and that thread's factor checked by sampled residuals against float64's bound. */
static int thread_input_f64(const gen_params *p, int n, size_t batch, double **d_in, char *why, size_t len)
{
    const size_t nn = (size_t)n * n;
    float *f = malloc(nn * sizeof(float));
    double *A = malloc(batch * nn * sizeof(double));
    int ok = f && A;
    for (size_t b = 0; ok && b < batch; b++) {
        gen_batch_host(p, n, b, 1, f);
        for (size_t e = 0; e < nn; e++) A[b * nn + e] = e % n > e / n ? NAN : f[e];
    }
    ok = ok && cudaMalloc((void **)d_in, batch * nn * sizeof(double)) == cudaSuccess &&
         cudaMemcpy(*d_in, A, batch * nn * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess;
    /* One thread's factor against A (its lower triangle mirrored for the check). */
    double *L = ok ? malloc(batch * nn * sizeof(double)) : NULL;
    cholesky_plan *plan = NULL;
    cholesky_options opt = CHOLESKY_OPTIONS_INIT;
    opt.dtype = CHOLESKY_FLOAT64;
    double *d_L = NULL;
    int *d_info = NULL, *info = malloc(batch * sizeof(int));
    void *d_work = NULL;
    ok = ok && L && info && cholesky_plan_create(&plan, n, batch, &opt, why, len) == CHOLESKY_SUCCESS &&
         cudaMalloc((void **)&d_L, batch * nn * sizeof(double)) == cudaSuccess &&
         cudaMalloc((void **)&d_info, batch * sizeof(int)) == cudaSuccess &&
         (!cholesky_plan_workspace_bytes(plan) ||
          cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan)) == cudaSuccess) &&
         cholesky_execute_f64(plan, *d_in, d_L, d_info, d_work, 0) == CHOLESKY_SUCCESS &&
         cudaMemcpy(L, d_L, batch * nn * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess &&
         cudaMemcpy(info, d_info, batch * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess;
    if (!ok && !why[0]) snprintf(why, len, "one thread's factor: %s", cholesky_last_error());
    for (size_t b = 0; ok && b < batch; b++) {
        double *Ab = A + b * nn;
        for (int r = 0; r < n; r++)
            for (int c = r + 1; c < n; c++) Ab[(size_t)r * n + c] = Ab[(size_t)c * n + r];
        char what[160];
        ok = info[b] == 0 && check_sampled_residual_d(n, Ab, L + b * nn, 2000, what, sizeof what, NULL);
        if (!ok) snprintf(why, len, "one thread's factor of matrix %zu: info %d; %s", b, info[b], info[b] ? "" : what);
    }
    cudaFree(d_L), cudaFree(d_info), cudaFree(d_work);
    cholesky_plan_destroy(plan);
    free(f), free(A), free(L), free(info);
    return ok;
}

static void thread_test(harness *h, int n, size_t batch, int f64, int calls)
{
    char name[160], why[256] = "";
    snprintf(name, sizeof name, "8 threads, a plan each, %d calls x 5 rounds at %zu x %d^2%s: one thread's bits", calls,
             batch, n, f64 ? " in float64" : "");
    harness_start(h, "%s", name);
    const size_t bytes = batch * (size_t)n * n * sizeof(float);
    const gen_params p = gen_params_make(FAMILY_SPD, harness_seed(8300 + n), 0, 0);
    void *d_in = NULL;
    int ok;
    if (f64) ok = thread_input_f64(&p, n, batch, (double **)&d_in, why, sizeof why);
    else { /* One thread's factor, checked against the float64 reference. */
        if (cudaMalloc(&d_in, bytes) != cudaSuccess) {
            harness_check(h, 0, name, "cudaMalloc of %zu bytes", bytes);
            return;
        }
        gen_batch_device(&p, n, 0, batch, 1, d_in);
        poison_strict_upper_device(n, batch, 1, d_in, UPPER_MIXED, cudaStreamLegacy); /* only the lower is read */
        float *d_check = NULL;
        int *d_info = NULL;
        cholesky_plan *plan = NULL;
        if (cholesky_plan_create(&plan, n, batch, NULL, NULL, 0) == CHOLESKY_SUCCESS &&
            cudaMalloc((void **)&d_check, bytes) == cudaSuccess &&
            cudaMalloc((void **)&d_info, batch * 4) == cudaSuccess) {
            void *d_work = NULL;
            const size_t work = cholesky_plan_workspace_bytes(plan);
            ok = (!work || cudaMalloc(&d_work, work) == cudaSuccess) &&
                 cholesky_execute(plan, d_in, d_check, d_info, d_work, 0) == CHOLESKY_SUCCESS &&
                 cudaDeviceSynchronize() == cudaSuccess &&
                 verify_generated_batch(&p, n, batch, 1, d_check, d_info, 2, "  lib");
            cudaFree(d_work);
        } else ok = 0;
        cudaFree(d_check), cudaFree(d_info);
        cholesky_plan_destroy(plan);
    }
    /* One thread's hash, made the way every thread makes its own. */
    thread_job one = {n, batch, f64, d_in, NULL, 1, 0, 0, ""};
    unsigned long long want = 0;
    ok = ok && factor_hashes(&one, &want, 1);
    if (one.why[0] && !why[0]) snprintf(why, sizeof why, "%s", one.why);
    int wrong = 0, failed = 0, total = 0;
    for (int round = 0; ok && round < 5; round++) {
        thread_job jobs[8];
        pthread_t tid[8];
        for (int k = 0; k < 8; k++) {
            jobs[k] = (thread_job){n, batch, f64, d_in, &want, calls, 0, 0, ""};
            pthread_create(&tid[k], NULL, thread_body, &jobs[k]);
        }
        for (int k = 0; k < 8; k++) {
            pthread_join(tid[k], NULL);
            wrong += jobs[k].wrong, failed += jobs[k].failed, total += jobs[k].calls;
            if (jobs[k].failed && !why[0]) snprintf(why, sizeof why, "%s", jobs[k].why);
        }
    }
    cudaFree(d_in);
    harness_check(h, ok && !wrong && !failed, name,
                  "%s%d calls, %d factors differ from one thread's, %d threads failed%s%s",
                  ok ? "" : "one thread's factor wrong or not made; ", total, wrong, failed, why[0] ? ": " : "", why);
}

/* ---- planted CUDA errors: a status, nothing left behind, the next call right ---- */

/* 64 outputs 256 bytes apart in one allocation: every execute gets one it has not had lately, so
 * that the whole-GPU path captures its launches again (a kept graph is replayed: 16 are kept). */
typedef struct {
    cholesky_plan *plan;
    const float *d_in;
    float *d_outs;
    int *d_info;
    void *d_work;
    cudaStream_t s;
    size_t bytes;
    int next;
} error_rig;

static float *fresh_out(error_rig *r) { return r->d_outs + (size_t)(r->next++ % 64) * 64; }

/* One execute into a fresh output; its factor's hash in *hash when it succeeds. */
static cholesky_status execute_fresh(error_rig *r, float *h_out, unsigned long long *hash)
{
    float *out = fresh_out(r);
    const cholesky_status st = cholesky_execute(r->plan, r->d_in, out, r->d_info, r->d_work, r->s);
    if (st == CHOLESKY_SUCCESS && hash) {
        if (cudaMemcpyAsync(h_out, out, r->bytes, cudaMemcpyDeviceToHost, r->s) != cudaSuccess ||
            cudaStreamSynchronize(r->s) != cudaSuccess)
            return CHOLESKY_STATUS_CUDA_ERROR;
        *hash = hash_bytes(h_out, r->bytes);
    }
    return st;
}

static void planted_execute(harness *h, error_rig *r, float *h_out, unsigned long long want, int n, size_t batch,
                            long at, long of, const char *where)
{
    char name[160];
    snprintf(name, sizeof name, "%zu x %d^2: a CUDA error at the %s checked call of an execute (%ld of %ld)", batch, n,
             where, at, of);
    harness_start(h, "%s", name);
    course_fault_plant(at);
    const cholesky_status st = execute_fresh(r, h_out, NULL);
    course_fault_plant(0);
    char said[256];
    snprintf(said, sizeof said, "%s", cholesky_last_error());
    const cudaError_t after = cudaStreamSynchronize(r->s), left = cudaGetLastError();
    unsigned long long again = 0;
    const cholesky_status next = execute_fresh(r, h_out, &again);
    harness_check(h,
                  st == CHOLESKY_STATUS_CUDA_ERROR && strstr(said, "cudaErrorNotPermitted") && after == cudaSuccess &&
                      left == cudaSuccess && next == CHOLESKY_SUCCESS && again == want,
                  name, "status \"%s\" (%s); then the stream %s, %s left; the next call: %s, %s",
                  cholesky_status_string(st), said, cudaGetErrorName(after), cudaGetErrorName(left),
                  cholesky_status_string(next), again == want ? "the same bits" : "OTHER BITS");
}

/* Plan creation with a CUDA error at each of its checked calls: a status, no plan; then a plan. */
static void planted_creates(harness *h, int n, size_t batch)
{
    char name[160];
    snprintf(name, sizeof name, "%zu x %d^2: a CUDA error at each checked call of a plan creation", batch, n);
    harness_start(h, "%s", name);
    cholesky_plan *plan = NULL;
    const long before = course_fault_checks();
    int ok = cholesky_plan_create(&plan, n, batch, NULL, NULL, 0) == CHOLESKY_SUCCESS;
    const long checks = course_fault_checks() - before;
    cholesky_plan_destroy(plan);
    char why[256] = "";
    for (long k = 1; ok && k <= checks; k++) {
        plan = (cholesky_plan *)1;
        course_fault_plant(k);
        const cholesky_status st = cholesky_plan_create(&plan, n, batch, NULL, NULL, 0);
        course_fault_plant(0);
        if (st != CHOLESKY_STATUS_CUDA_ERROR || plan != NULL ||
            !strstr(cholesky_last_error(), "cudaErrorNotPermitted")) {
            snprintf(why, sizeof why, "check %ld: status \"%s\", plan %s (%s)", k, cholesky_status_string(st),
                     plan ? "made" : "NULL", cholesky_last_error());
            ok = 0;
        }
        if (plan && plan != (cholesky_plan *)1) cholesky_plan_destroy(plan);
        plan = NULL;
        if (ok && cholesky_plan_create(&plan, n, batch, NULL, NULL, 0) != CHOLESKY_SUCCESS) {
            snprintf(why, sizeof why, "after check %ld: no plan (%s)", k, cholesky_last_error());
            ok = 0;
        }
        cholesky_plan_destroy(plan);
    }
    /* (A plan of a small family makes no CUDA call once its GPU's answers are kept: nothing to plant.) */
    harness_check(
        h, ok && (checks > 0 || n <= 128) && cudaGetLastError() == cudaSuccess, name, "%ld checked calls%s%s%s", checks,
        checks ? ", each refused the plan" : " (none after the first plan of this shape)", why[0] ? "; " : "", why);
}

static int error_test(harness *h, int n, size_t batch)
{
    const size_t bytes = batch * (size_t)n * n * sizeof(float);
    const gen_params gp = gen_params_make(FAMILY_SPD, harness_seed(8400 + n), 0, 0);
    error_rig r = {NULL, NULL, NULL, NULL, NULL, NULL, bytes, 0};
    float *d_in = NULL, *h_out = malloc(bytes);
    unsigned long long want = 0, counted = 0;
    char why[256] = "";
    int ok = h_out && cudaMalloc((void **)&d_in, bytes) == cudaSuccess &&
             cudaMalloc((void **)&r.d_outs, bytes + 64 * 256) == cudaSuccess &&
             cudaMalloc((void **)&r.d_info, batch * sizeof(int)) == cudaSuccess &&
             cudaStreamCreateWithFlags(&r.s, cudaStreamNonBlocking) == cudaSuccess &&
             cholesky_plan_create(&r.plan, n, batch, NULL, why, sizeof why) == CHOLESKY_SUCCESS;
    const size_t work = ok ? cholesky_plan_workspace_bytes(r.plan) : 0;
    ok = ok && (!work || cudaMalloc(&r.d_work, work) == cudaSuccess);
    long checks = 0;
    if (ok) {
        r.d_in = d_in;
        gen_batch_device(&gp, n, 0, batch, 1, d_in);
        poison_strict_upper_device(n, batch, 1, d_in, UPPER_MIXED, cudaStreamLegacy); /* only the lower is read */
        float *first = fresh_out(&r);
        ok = cholesky_execute(r.plan, d_in, first, r.d_info, r.d_work, r.s) == CHOLESKY_SUCCESS &&
             cudaStreamSynchronize(r.s) == cudaSuccess &&
             verify_generated_batch(&gp, n, batch, 1, first, r.d_info, 2, "  lib") &&
             cudaMemcpy(h_out, first, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
        want = ok ? hash_bytes(h_out, bytes) : 0;
        const long before = course_fault_checks();
        ok = ok && execute_fresh(&r, h_out, &counted) == CHOLESKY_SUCCESS && counted == want;
        checks = course_fault_checks() - before;
        if (!ok && !why[0]) snprintf(why, sizeof why, "the calls without an error: %s", cholesky_last_error());
    }
    if (!ok) {
        harness_check(h, 0, "planted errors: the rig", "%zu x %d^2: %s", batch, n, why[0] ? why : "setup failed");
        harness_skip_rest(h, ERRORS, "the rig failed");
    } else {
        planted_execute(h, &r, h_out, want, n, batch, 1, checks, "first");
        planted_execute(h, &r, h_out, want, n, batch, (checks + 1) / 2, checks, "middle");
        planted_execute(h, &r, h_out, want, n, batch, checks, checks, "last");
        planted_creates(h, n, batch);
    }
    cholesky_plan_destroy(r.plan);
    cudaFree(d_in), cudaFree(r.d_outs), cudaFree(r.d_info), cudaFree(r.d_work);
    if (r.s) cudaStreamDestroy(r.s);
    free(h_out);
    return ok;
}

int main(int argc, char **argv)
{
    /* test_library errors|threads: that group alone (errors: make SAN=1's LeakSanitizer run of it on
     * a GPU). */
    const char *only = argc > 1 && (!strcmp(argv[1], "errors") || !strcmp(argv[1], "threads")) ? argv[1] : NULL;
    char skipped[96];
    snprintf(skipped, sizeof skipped, "not asked for (test_library %s)", only ? only : "");
    harness h;
    harness_begin(&h, "library");
    harness_plan(&h, ARGS, harness_count(&h, argument_tests));
    harness_plan(&h, THREADS, 4);
    harness_plan(&h, ERRORS, 12);
    harness_group(&h, ARGS);
    if (only) harness_skip_rest(&h, ARGS, skipped);
    else argument_tests(&h);
    harness_group(&h, THREADS);
    char reason[256], what[160];
    if (only && strcmp(only, "threads")) harness_skip_rest(&h, THREADS, skipped);
    else if (!gpu_available(reason, sizeof reason)) harness_skip_rest(&h, THREADS, reason);
    else if (harness_requires(&h, THREADS, student_kernels_work(what, sizeof what), what)) {
        thread_test(&h, 4096, 1, 0, 50);
        thread_test(&h, 2048, 2, 0, 50);
        thread_test(&h, 2048, 1, 1, 20); /* float64: the look-ahead's two streams, no turn */
        thread_test(&h, 1100, 3, 1, 20);
    }
    harness_group(&h, ERRORS);
    if (only && strcmp(only, "errors")) harness_skip_rest(&h, ERRORS, skipped);
    else if (!gpu_available(reason, sizeof reason)) harness_skip_rest(&h, ERRORS, reason);
    else if (harness_requires(&h, ERRORS, student_kernels_work(what, sizeof what), what)) {
        (void)(error_test(&h, 4096, 1) && error_test(&h, 300, 3) && error_test(&h, 64, 1024));
    }
    return harness_end(&h);
}
