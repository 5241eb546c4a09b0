/* test_float64.c - stage 06's door in float64 (cholesky_options.dtype = CHOLESKY_FLOAT64,
 * cholesky_execute_f64). Every run: float64 SPD matrices (the generator's, widened, with float64
 * noise in their last bits), mixed with a zero pivot, a negative one and a NaN, garbage above the
 * diagonal of the input the library gets, the output poisoned with NaN; every factor against the
 * long double reference (check_batch_d: float64's residual and forward-error bounds, and LAPACK's
 * dpotrf info: a NaN pivot fails), every info of a matrix without NaN against cuSOLVER's
 * cusolverDnDpotrf on the same matrix (cuSOLVER reports a NaN pivot as info 0, measured on the H200:
 * the one place where the library follows LAPACK rather than cuSOLVER); out of place, the input must
 * come back bit for bit.
 *   float64 decisions (no GPU)  what a float64 plan runs and says; refused dtypes, layouts, executes
 *   float64 batched             n = 1 .. 128 auto, every cyclic instance grid given, the tensor-core
 *                               kernel given at every tile count, row-major, interleaved and chunked, in
 *                               and out of place
 *   float64 whole GPU           n = 129 .. 1024 in batches against the reference; 4096, 4095, 8192, 8320
 *                               and 8321 alone (sampled residuals, float64's bound), an indefinite 4096
 *                               (info n/2 + 1)
 *   float64 door                a CUDA graph around execute (n = 1100: the look-ahead forked inside
 *                               it; and a new thread whose first call is captured), pointers 8 bytes
 *                               off (staged or refused)
 *
 *   make build/06_tuning/test_float64 && build/06_tuning/test_float64 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include "checks.h"
#include "cholesky_plan_internal.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "cyclic_f64.h"
#include "family.h"
#include "generator.h"
#include "harness.h"
#include "host_alloc.h"
#include "layout.h"

#define DECISIONS "float64 decisions"
#define BATCHED "float64 batched"
#define WHOLE "float64 whole GPU"
#define DOOR "float64 door"

/* Matrix b of a mixed batch: 1 a zero pivot (exact in any arithmetic), 2 a negative pivot, 4 a NaN
 * in the lower triangle; the others SPD with float64 noise in the last bits of every entry. */
static void make_batch(int n, size_t count, uint64_t seed, double *A)
{
    const size_t nn = (size_t)n * n;
    float *f = host_alloc(nn * sizeof(float), "a float matrix");
    for (size_t b = 0; b < count; b++) {
        double *M = A + b * nn;
        if (b == 1 && count > 5) gen_zero_pivot_host(n, gen_zero_pivot_place(n, (int)(seed % 3)), seed, f);
        else {
            const gen_params p = b == 2 && count > 5 ? gen_params_make(FAMILY_NONSPD, seed, 0, n / 2 + 1)
                                                     : gen_params_make(FAMILY_SPD, seed, 0, 0);
            gen_batch_host(&p, n, b, 1, f);
        }
        uint64_t s = seed * 6364136223846793005ull + b;
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                const double noise = b == 1 && count > 5 ? 0.0 : ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 1e-9;
                M[(size_t)i * n + j] = M[(size_t)j * n + i] = (double)f[(size_t)i * n + j] + noise;
            }
        if (b == 4 && count > 5) M[(size_t)(n - 1) * n] = M[n - 1] = NAN;
    }
    free(f);
}

/* Row-major <-> the plan's layout on the host (layout.h's index, the one the kernels use). */
static void layout_copy(int n, size_t count, size_t chunk, double *row, double *lay, int back)
{
    for (size_t b = 0; b < count; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                const size_t r = rowmajor_index(n, b, i, j),
                             l = chunk <= 1 ? r : chunked_index(n, chunk >= count ? count : chunk, count, b, i, j);
                if (back) row[r] = lay[l];
                else lay[l] = row[r];
            }
}

static cholesky_status plan_f64(cholesky_plan **plan, int n, size_t batch, size_t chunk, int unaligned,
                                const batched_config *given, int explain_only, char *err, size_t len)
{
    cholesky_options o = CHOLESKY_OPTIONS_INIT;
    o.dtype = CHOLESKY_FLOAT64;
    o.chunk = chunk;
    o.unaligned = unaligned;
    const cholesky_internal_options in = {given, 0, explain_only, NULL};
    return cholesky_plan_create_internal(plan, n, batch, &o, &in, err, len);
}

/* One batch through a plan: 1 when every factor and info is right (detail: the first problem). */
static int run_batch(int n, size_t count, size_t chunk, const batched_config *given, int in_place, uint64_t seed,
                     char *detail, size_t len)
{
    const size_t nn = (size_t)n * n, bytes = count * nn * sizeof(double);
    double *A = host_alloc(bytes, "A"), *P = host_alloc(bytes, "poisoned A"), *lay = host_alloc(bytes, "layout"),
           *L = host_alloc(bytes, "L"), *ref = host_alloc(bytes, "cuSOLVER's L");
    int *info = host_alloc(count * sizeof(int), "info"), *want = host_alloc(count * sizeof(int), "cuSOLVER's info");
    make_batch(n, count, seed, A);
    memcpy(P, A, bytes);
    poison_strict_upper_d(n, count, P, UPPER_MIXED); /* NaN in even matrices, 2 a_ji + 1 in odd ones */
    oracle_dpotrf_host(n, count, P, ref, want);      /* (it reads the lower triangle only, as we do) */
    layout_copy(n, count, chunk, P, lay, 0);
    cholesky_plan *plan = NULL;
    char err[512];
    int ok = 0;
    if (plan_f64(&plan, n, count, chunk, 0, given, 0, err, sizeof err) != CHOLESKY_SUCCESS) {
        snprintf(detail, len, "plan refused: %s", err);
        goto done;
    }
    double *d_in, *d_out;
    void *d_work = NULL;
    int *d_info;
    const size_t wbytes = cholesky_plan_workspace_bytes(plan);
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, count * sizeof(int)));
    d_out = d_in;
    if (!in_place) CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    if (wbytes) CUDA_CHECK(cudaMalloc(&d_work, wbytes));
    CUDA_CHECK(cudaMemcpy(d_in, lay, bytes, cudaMemcpyHostToDevice));
    if (!in_place) CUDA_CHECK(cudaMemset(d_out, 0xff, bytes)); /* NaN */
    CUDA_CHECK(cudaMemset(d_info, 0x7f, count * sizeof(int)));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    const cholesky_status st = cholesky_execute_f64(plan, d_in, d_out, d_info, d_work, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    double *back = host_alloc(bytes, "the input after");
    CUDA_CHECK(cudaMemcpy(back, d_in, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(lay, d_out, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, d_info, count * sizeof(int), cudaMemcpyDeviceToHost));
    layout_copy(n, count, chunk, L, lay, 1);
    double *orig = host_alloc(bytes, "the input before");
    layout_copy(n, count, chunk, P, orig, 0);
    const int input_kept = in_place || memcmp(back, orig, bytes) == 0;
    free(orig);
    free(back);
    CUDA_CHECK(cudaFree(d_in));
    if (!in_place) CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    if (st != CHOLESKY_SUCCESS) {
        snprintf(detail, len, "execute: %s: %s", cholesky_status_string(st), cholesky_last_error());
        goto done;
    }
    if (!input_kept) {
        snprintf(detail, len, "out of place, the input changed");
        goto done;
    }
    for (size_t b = 0; b < count; b++)
        if (!(b == 4 && count > 5) && info[b] != want[b]) { /* the NaN matrix: LAPACK's rule, checked below */
            snprintf(detail, len, "matrix %zu: info %d, cuSOLVER's %d", b, info[b], want[b]);
            goto done;
        }
    factor_check first;
    double resid, fwd;
    const size_t bad = check_batch_d(n, count, A, L, info, NULL, &first, &resid, &fwd);
    if (bad) snprintf(detail, len, "%zu bad matrices; %s", bad, first.detail);
    else snprintf(detail, len, "residual %.2g, forward %.2g; %s", resid, fwd, cholesky_plan_explain(plan));
    ok = !bad;
done:
    cholesky_plan_destroy(plan);
    free(A), free(P), free(lay), free(L), free(ref), free(info), free(want);
    return ok;
}

/* One large matrix: sampled residuals against float64's bound (check_sampled_residual_d), the info
 * against cuSOLVER's; indefinite: its pivot n/2 + 1 made negative. */
static int run_large(int n, int indefinite, char *detail, size_t len)
{
    const size_t nn = (size_t)n * n, bytes = nn * sizeof(double);
    double *A = host_alloc(bytes, "A"), *L = host_alloc(bytes, "L");
    float *f = host_alloc(nn * sizeof(float), "a float matrix");
    const gen_params p =
        indefinite ? gen_params_make(FAMILY_NONSPD, 77, 0, n / 2 + 1) : gen_params_make(FAMILY_SPD, 77, 0, 0);
    gen_batch_host(&p, n, 0, 1, f);
    for (size_t e = 0; e < nn; e++) A[e] = f[e];
    for (int i = 0; i < n; i++) /* float64 bits past float32's, symmetric */
        for (int j = 0; j < i; j++)
            A[(size_t)i * n + j] = A[(size_t)j * n + i] = f[(size_t)i * n + j] + 1e-9 / (1 + i + j);
    free(f);
    cholesky_plan *plan = NULL;
    char err[512];
    int ok = 0, info = -1;
    if (plan_f64(&plan, n, 1, 1, 0, NULL, 0, err, sizeof err) != CHOLESKY_SUCCESS) {
        snprintf(detail, len, "plan refused: %s", err);
        goto done;
    }
    double *d_A;
    void *d_work;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan)));
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    const cholesky_status st = cholesky_execute_f64(plan, d_A, d_A, d_info, d_work, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    CUDA_CHECK(cudaFree(d_work));
    if (st != CHOLESKY_SUCCESS) {
        snprintf(detail, len, "execute: %s", cholesky_last_error());
        goto done;
    }
    if (indefinite) {
        int want;
        double *Lc = host_alloc(bytes, "cuSOLVER's L");
        oracle_dpotrf_host(n, 1, A, Lc, &want);
        free(Lc);
        ok = info == want && info == n / 2 + 1;
        snprintf(detail, len, "info %d, cuSOLVER's %d (want %d)", info, want, n / 2 + 1);
        goto done;
    }
    double worst;
    char what[256] = "";
    ok = info == 0 && check_sampled_residual_d(n, A, L, 4000, what, sizeof what, &worst);
    snprintf(detail, len, "info %d, worst sampled residual %.3g (bound %.3g) %s", info, worst, 4.0 * n * DBL_EPSILON,
             what);
done:
    cholesky_plan_destroy(plan);
    free(A), free(L);
    return ok;
}

/* Decisions and refusals, without a GPU (plans made to be explained). */
static void decision_tests(harness *h)
{
    static const struct {
        int n;
        size_t batch, chunk;
        const char *phrase;
    } says[] = {{1, 10, 1, "cyclic T=16 x4 in float64"},
                {20, 1000, 1, "cyclic T=16 x2 in float64"},
                {25, 1000, 1, "cyclic T=32 x1 in float64"},
                {25, 4096, 1, "cyclic T=16 x2 in float64"},
                {48, 4095, 1, "cyclic T=32 x1 in float64"},
                {48, 100000, 1, "cyclic T=16 x2 in float64"},
                {49, 100000, 1, "cyclic T=64 x1 in float64"},
                {20, 1000, 32, "cyclic T=32 x1 in float64"},
                {40, 100000, 32, "cyclic T=64 x1 in float64"},
                {40, 1000, 1, "cyclic T=64 x1 in float64"},
                {64, 1000, 1, "cyclic T=32 x1 in float64"},
                {72, 1000, 1, "cyclic T=64 x1 in float64"},
                {73, 1000, 1, "dmma in float64"},
                {80, 1000, 32, "cyclic T=64 x1 in float64"},
                {96, 1000, 1, "dmma in float64"},
                {100, 1000, 32, "cyclic T=128 x1 in float64"},
                {97, 1000, 1, "dmma in float64"},
                {128, 1024, 1, "FP64 tensor cores; the float64 rule"},
                {128, 5, 5, "interleaved float64"},
                {129, 3, 1, "whole GPU in float64"},
                {32768, 1, 1, "FP64 tensor cores"}};
    char err[512], name[160];
    for (size_t k = 0; k < sizeof says / sizeof says[0]; k++) {
        cholesky_plan *plan = NULL;
        const cholesky_status st =
            plan_f64(&plan, says[k].n, says[k].batch, says[k].chunk, 0, NULL, 1, err, sizeof err);
        const char *ex = plan ? cholesky_plan_explain(plan) : err;
        snprintf(name, sizeof name, "float64 n=%d batch=%zu chunk=%zu says \"%s\"", says[k].n, says[k].batch,
                 says[k].chunk, says[k].phrase);
        harness_check(h, st == CHOLESKY_SUCCESS && strstr(ex, says[k].phrase), name, "%s", ex);
        cholesky_plan_destroy(plan);
    }
    cholesky_plan *plan = NULL;
    cholesky_status st = plan_f64(&plan, 200, 4, 2, 0, NULL, 1, err, sizeof err);
    harness_check(h, st == CHOLESKY_STATUS_NOT_SUPPORTED && !plan && strstr(err, "row-major"),
                  "float64 n=200 chunked refused (row-major only)", "%s", err);
    cholesky_options o = CHOLESKY_OPTIONS_INIT;
    o.dtype = (cholesky_dtype)2;
    st = cholesky_plan_create(&plan, 10, 10, &o, err, sizeof err);
    harness_check(h, st == CHOLESKY_STATUS_INVALID_VALUE && !plan && strstr(err, "dtype 2"), "dtype 2 refused", "%s",
                  err);
    /* A caller built against version 1.0 (its options end at `unaligned`): float32, as it meant. */
    o = (cholesky_options)CHOLESKY_OPTIONS_INIT;
    o.size = offsetof(cholesky_options, unaligned) + sizeof o.unaligned;
    o.dtype = CHOLESKY_FLOAT64; /* past its size: never read */
    const cholesky_internal_options explain = {NULL, 0, 1, NULL};
    st = cholesky_plan_create_internal(&plan, 40, 100, &o, &explain, err, sizeof err);
    harness_check(h, st == CHOLESKY_SUCCESS && plan && !strstr(cholesky_plan_explain(plan), "float64"),
                  "options of version 1.0: a float32 plan", "%s", plan ? cholesky_plan_explain(plan) : err);
    /* each execute takes its own type only (checked before the plan's GPU is asked for) */
    const float *fp = (const float *)(uintptr_t)0x100000;
    const double *dp = (const double *)(uintptr_t)0x100000;
    st = cholesky_execute_f64(plan, dp, (double *)dp, (int *)(uintptr_t)0x900000, NULL, 0);
    harness_check(h, st == CHOLESKY_STATUS_INVALID_VALUE && strstr(cholesky_last_error(), "float32"),
                  "cholesky_execute_f64 refuses a float32 plan", "%s", cholesky_last_error());
    cholesky_plan_destroy(plan);
    plan = NULL;
    st = plan_f64(&plan, 40, 100, 1, 0, NULL, 1, err, sizeof err);
    st = cholesky_execute(plan, fp, (float *)fp, (int *)(uintptr_t)0x900000, NULL, 0);
    harness_check(h, st == CHOLESKY_STATUS_INVALID_VALUE && strstr(cholesky_last_error(), "float64"),
                  "cholesky_execute refuses a float64 plan", "%s", cholesky_last_error());
    st = cholesky_execute_f64(plan, (const double *)(uintptr_t)0x100004, (double *)(uintptr_t)0x800000,
                              (int *)(uintptr_t)0x900000, NULL, 0);
    harness_check(h, st == CHOLESKY_STATUS_MISALIGNED, "cholesky_execute_f64 refuses a pointer 4 bytes off", "%s",
                  cholesky_last_error());
    cholesky_plan_destroy(plan);
    const batched_config dmma = DMMA_CONFIG;
    plan = NULL;
    st = plan_f64(&plan, 64, 10, 32, 0, &dmma, 1, err, sizeof err);
    harness_check(h, st == CHOLESKY_STATUS_INVALID_VALUE && !plan && strstr(err, "row-major"),
                  "float64 dmma chunked refused (row-major only)", "%s", err);
    st = plan_f64(&plan, 129, 10, 1, 0, &dmma, 1, err, sizeof err);
    harness_check(h, st == CHOLESKY_STATUS_INVALID_VALUE && !plan && strstr(err, "n <= 128"),
                  "float64 dmma at n=129 refused", "%s", err);
    const batched_config bad = CYCLIC_CONFIG(32, 1);
    plan = NULL;
    st = plan_f64(&plan, 100, 10, 1, 0, &bad, 1, err, sizeof err);
    harness_check(h, st == CHOLESKY_STATUS_INVALID_VALUE && !plan, "float64 cyclic T=32 at n=100 refused", "%s", err);
}

/* The batched cases: auto at every n, and each instance grid given. */
static const int given_threads[] = {16, 32, 64, 128, 256};
static const int given_ns[] = {1, 7, 31, 33, 64};
static const int given_ns_4x4[] = {1, 7, 19, 33, 47}; /* 4 x 4 threads take n <= 48: slots 2, 5, 9, 12 */
static const int large_batch[][2] = {{11, 4099}, {37, 4097}, {48, 5001}};
#define NLARGE_BATCH ((int)(sizeof large_batch / sizeof large_batch[0]))
#define NGIVEN ((int)(sizeof given_threads / sizeof given_threads[0]) * (int)(sizeof given_ns / sizeof given_ns[0] + 1))
/* The tensor-core kernel given: every tile count, full and partial last tiles */
static const int dmma_ns[] = {1, 7, 16, 17, 31, 33, 48, 64, 65, 80, 96, 97, 100, 108, 111, 112, 113, 127, 128};
#define NDMMA ((int)(sizeof dmma_ns / sizeof dmma_ns[0]))
static const size_t layouts[][2] = {{40, 32}, {33, 33}, {100, 7}, {128, 200}}; /* (n, chunk) with batch 61 */
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))
static const int whole_ns[] = {129, 200, 300, 1024};
static const size_t whole_batches[] = {7, 6, 3, 2};
#define NWHOLE ((int)(sizeof whole_ns / sizeof whole_ns[0]))
/* (n, indefinite): 4095 takes the 128 x 128 trailing blocks with 8-byte copies, the even n 16-byte ones;
 * past 128 tiles, 8320 takes 16-tile panels and their next columns by the copy engine, 8321 12-tile ones */
static const int large[][2] = {{4096, 0}, {4095, 0}, {8192, 0}, {8320, 0}, {8321, 0}, {4096, 1}};
#define NLARGE ((int)(sizeof large / sizeof large[0]))

static int run_graph(char *detail, size_t len);
static int graph_cases(int first, int last, char *detail, size_t len);
static int run_graph_fresh_thread(char *detail, size_t len);
static int run_offset(int unaligned, char *detail, size_t len);

int main(void)
{
    harness h;
    harness_begin(&h, "stage-6");
    harness_plan(&h, DECISIONS, harness_count(&h, decision_tests));
    harness_plan_gpu(&h, BATCHED, 128 + NLARGE_BATCH + NGIVEN + NDMMA + NLAYOUTS);
    harness_plan_gpu(&h, WHOLE, NWHOLE * 2 + NLARGE);
    harness_plan_gpu(&h, DOOR, 4);
    harness_group(&h, DECISIONS);
    decision_tests(&h);
    char reason[256], detail[1024], name[160];
    if (!gpu_available(reason, sizeof reason)) {
        harness_skip_rest(&h, BATCHED, reason);
        harness_skip_rest(&h, WHOLE, reason);
        harness_skip_rest(&h, DOOR, reason);
        return harness_end(&h);
    }
    harness_group(&h, BATCHED);
    for (int n = 1; n <= 128; n++) {
        const size_t batch = n % 3 ? 37 : 300;
        snprintf(name, sizeof name, "auto n=%d batch=%zu %s", n, batch, n % 2 ? "in place" : "out of place");
        harness_start(&h, "%s", name);
        harness_check(&h, run_batch(n, batch, 1, NULL, n % 2, harness_seed(100 + n), detail, sizeof detail), name, "%s",
                      detail);
    }
    /* Large batches: two matrices a warp (4 x 4 threads) at n <= 48, the last block a matrix short */
    for (int k = 0; k < NLARGE_BATCH; k++) {
        const int n = large_batch[k][0], batch = large_batch[k][1];
        snprintf(name, sizeof name, "auto n=%d batch=%d %s", n, batch, k % 2 ? "in place" : "out of place");
        harness_start(&h, "%s", name);
        harness_check(&h, run_batch(n, batch, 1, NULL, k % 2, harness_seed(250 + k), detail, sizeof detail), name, "%s",
                      detail);
    }
    for (size_t t = 0; t < sizeof given_threads / sizeof given_threads[0]; t++)
        for (size_t k = 0; k <= sizeof given_ns / sizeof given_ns[0]; k++) {
            const int T = given_threads[t], most = cyclic_f64_max_n(T),
                      n = k == sizeof given_ns / sizeof given_ns[0] ? most
                          : T == 16                                 ? given_ns_4x4[k]
                                                                    : given_ns[k];
            const batched_config c = CYCLIC_CONFIG(T, 256 / T);
            snprintf(name, sizeof name, "given cyclic T=%d x%d n=%d batch=23", T, 256 / T, n);
            harness_start(&h, "%s", name);
            harness_check(&h,
                          run_batch(n, 23, 1, &c, (int)k % 2, harness_seed(300 + 10 * t + k), detail, sizeof detail),
                          name, "%s", detail);
        }
    for (int k = 0; k < NDMMA; k++) {
        const batched_config c = DMMA_CONFIG;
        snprintf(name, sizeof name, "given dmma n=%d batch=%d %s", dmma_ns[k], 29 + k,
                 k % 2 ? "in place" : "out of place");
        harness_start(&h, "%s", name);
        harness_check(&h, run_batch(dmma_ns[k], 29 + k, 1, &c, k % 2, harness_seed(600 + k), detail, sizeof detail),
                      name, "%s", detail);
    }
    for (int k = 0; k < NLAYOUTS; k++) {
        const int n = (int)layouts[k][0];
        const size_t chunk = layouts[k][1];
        snprintf(name, sizeof name, "auto n=%d batch=61 chunk=%zu%s", n, chunk, chunk >= 61 ? " (interleaved)" : "");
        harness_start(&h, "%s", name);
        harness_check(&h, run_batch(n, 61, chunk, NULL, k % 2, harness_seed(500 + k), detail, sizeof detail), name,
                      "%s", detail);
    }
    harness_group(&h, WHOLE);
    for (int k = 0; k < NWHOLE; k++)
        for (int in_place = 1; in_place >= 0; in_place--) {
            snprintf(name, sizeof name, "whole GPU n=%d batch=%zu %s", whole_ns[k], whole_batches[k],
                     in_place ? "in place" : "out of place");
            harness_start(&h, "%s", name);
            harness_check(&h,
                          run_batch(whole_ns[k], whole_batches[k], 1, NULL, in_place, harness_seed(700 + k), detail,
                                    sizeof detail),
                          name, "%s", detail);
        }
    for (int k = 0; k < NLARGE; k++) {
        snprintf(name, sizeof name, "whole GPU n=%d%s", large[k][0], large[k][1] ? " indefinite at n/2 + 1" : "");
        harness_start(&h, "%s", name);
        harness_check(&h, run_large(large[k][0], large[k][1], detail, sizeof detail), name, "%s", detail);
    }
    harness_group(&h, DOOR);
    harness_start(&h, "a CUDA graph");
    harness_check(&h, run_graph(detail, sizeof detail),
                  "a CUDA graph around cholesky_execute_f64 (n=48, n=300 and n=1100)", "%s", detail);
    harness_check(&h, run_graph_fresh_thread(detail, sizeof detail),
                  "a new thread's first call captured (n=1100), then eager: the same bits", "%s", detail);
    harness_check(&h, run_offset(1, detail, sizeof detail), "pointers 8 bytes off, unaligned plan: staged", "%s",
                  detail);
    harness_check(&h, run_offset(0, detail, sizeof detail), "pointers 8 bytes off, aligned plan: refused", "%s",
                  detail);
    return harness_end(&h);
}

/* Capture execute in a graph, replay it on new matrices: the factors equal an eager call's bit for bit.
 * n = 1100 takes the whole-GPU path's look-ahead, its chain and bulk forked to two streams of the
 * calling thread's inside the capture. */
static const int graph_ns[] = {48, 300, 1100};
static const size_t graph_counts[] = {500, 3, 1};
static int run_graph(char *detail, size_t len) { return graph_cases(0, 3, detail, len); }

/* Cases first .. last - 1 of graph_ns. */
static int graph_cases(int first, int last, char *detail, size_t len)
{
    for (int k = first; k < last; k++) {
        const int n = graph_ns[k];
        const size_t count = graph_counts[k], bytes = count * (size_t)n * n * sizeof(double);
        double *A = host_alloc(bytes, "A"), *L1 = host_alloc(bytes, "eager"), *L2 = host_alloc(bytes, "replayed");
        make_batch(n, count, 900 + k, A);
        cholesky_plan *plan;
        char err[512];
        if (plan_f64(&plan, n, count, 1, 0, NULL, 0, err, sizeof err) != CHOLESKY_SUCCESS) {
            snprintf(detail, len, "plan: %s", err);
            return 0;
        }
        double *d_in, *d_out;
        int *d_info;
        void *d_work = NULL;
        CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_info, count * sizeof(int)));
        if (cholesky_plan_workspace_bytes(plan)) CUDA_CHECK(cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan)));
        cudaStream_t s;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMemcpy(d_in, A, bytes, cudaMemcpyHostToDevice));
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        const cholesky_status st = cholesky_execute_f64(plan, d_in, d_out, d_info, d_work, s);
        CUDA_CHECK(cudaStreamEndCapture(s, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CUDA_CHECK(cudaGraphLaunch(exec, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaMemcpy(L2, d_out, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemset(d_out, 0, bytes));
        const cholesky_status eager = cholesky_execute_f64(plan, d_in, d_out, d_info, d_work, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaMemcpy(L1, d_out, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
        CUDA_CHECK(cudaStreamDestroy(s));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaFree(d_info));
        if (d_work) CUDA_CHECK(cudaFree(d_work));
        const int same = memcmp(L1, L2, bytes) == 0;
        cholesky_plan_destroy(plan);
        free(A), free(L1), free(L2);
        if (st != CHOLESKY_SUCCESS || eager != CHOLESKY_SUCCESS || !same) {
            snprintf(detail, len, "n=%d: captured %s, eager %s, %s", n, cholesky_status_string(st),
                     cholesky_status_string(eager), same ? "same bits" : "the replay differs from the eager call");
            return 0;
        }
    }
    snprintf(detail, len, "replays equal eager calls bit for bit");
    return 1;
}

/* A new host thread whose FIRST call is captured: its streams are not made inside a capture, so the
 * captured call runs on the caller's stream alone; the eager call after it forks. Same bits. */
typedef struct {
    char detail[1024];
    int ok;
} fresh_thread;

static void *fresh_thread_run(void *arg)
{
    fresh_thread *t = (fresh_thread *)arg;
    t->ok = graph_cases(2, 3, t->detail, sizeof t->detail);
    return NULL;
}

static int run_graph_fresh_thread(char *detail, size_t len)
{
    fresh_thread t = {"", 0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, fresh_thread_run, &t) != 0 || pthread_join(thread, NULL) != 0) {
        snprintf(detail, len, "no thread");
        return 0;
    }
    snprintf(detail, len, "%s", t.detail);
    return t.ok;
}

/* A view one double into a buffer (8-byte aligned, not 16): staged by an unaligned plan, else refused. */
static int run_offset(int unaligned, char *detail, size_t len)
{
    const int n = 40;
    const size_t count = 50, nn = (size_t)n * n, bytes = count * nn * sizeof(double);
    double *A = host_alloc(bytes, "A"), *L = host_alloc(bytes, "L");
    int *info = host_alloc(count * sizeof(int), "info");
    make_batch(n, count, 990, A);
    cholesky_plan *plan;
    char err[512];
    if (plan_f64(&plan, n, count, 1, unaligned, NULL, 0, err, sizeof err) != CHOLESKY_SUCCESS) {
        snprintf(detail, len, "plan: %s", err);
        return 0;
    }
    double *d_buf;
    int *d_info;
    void *d_work = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_buf, bytes + 2 * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, count * sizeof(int)));
    if (cholesky_plan_workspace_bytes(plan)) CUDA_CHECK(cudaMalloc(&d_work, cholesky_plan_workspace_bytes(plan)));
    CUDA_CHECK(cudaMemcpy(d_buf + 1, A, bytes, cudaMemcpyHostToDevice));
    const cholesky_status st = cholesky_execute_f64(plan, d_buf + 1, d_buf + 1, d_info, d_work, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(L, d_buf + 1, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, d_info, count * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    int ok;
    if (!unaligned) {
        ok = st == CHOLESKY_STATUS_MISALIGNED;
        snprintf(detail, len, "%s: %s", cholesky_status_string(st), cholesky_last_error());
    } else {
        factor_check first;
        double resid, fwd;
        const size_t bad = st == CHOLESKY_SUCCESS ? check_batch_d(n, count, A, L, info, NULL, &first, &resid, &fwd) : 1;
        ok = st == CHOLESKY_SUCCESS && !bad;
        snprintf(detail, len, "%s; %s", cholesky_status_string(st), bad ? first.detail : cholesky_plan_explain(plan));
    }
    cholesky_plan_destroy(plan);
    free(A), free(L), free(info);
    return ok;
}
