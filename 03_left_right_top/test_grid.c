/* test_grid.c - stage 03, part 2 (GPU; skipped without one): one matrix over the whole GPU
 * (potrf_grid) against the float64 reference and cusolverDnSpotrf on the same matrix.
 *   - spd, n in {1, 31, 32, 33, 100, 255, 256, 257, 1000, 1024, 2049} and illcond n in {100, 1000},
 *     every launch mode. The look-ahead, pairs and quads results get the full check (residual,
 *     forward error, properties, cuSOLVER within the bound); stream and graph launch the
 *     look-ahead's tasks in another order, so their results must be bit-identical to it.
 *   - nonspd with the failing minor at the start, inside and at the end of a tile, pivots of
 *     exactly zero (first, middle, last), and a NaN
 *     (on the diagonal, and off it): info exactly the first failing minor, as cuSOLVER's.
 *   - n = 4097 (spd) and 4096 (failing minor 4000), every mode: info, properties, a sampled residual
 *     and the forward error within 8x cuSOLVER's against a float64 factor from the GPU (check_large).
 *   - a batch (potrf_grid_batched): n = 1..256 x 5 matrices with a non-SPD and a NaN matrix among
 *     SPD ones, guard matrices and infos, every mode; one batch past a launch's 65535 matrices;
 *     a wide one (n = 512 x 160) whose matrices must equal their factors alone, bit for bit.
 *   - the tensor-core updates (GRID_TF32X3): all of the above in the look-ahead, pairs and quads modes,
 *     held to the same checks and tolerances as fp32 (0 points: the tasks are provided code), n = 10816
 *     (the quads' rounds of sixteen, eight and four panels, grid_round_panels, with GRID_LONG_ROUNDS=128)
 *     checked as n = 4097, and
 *     Gram matrices (not diagonally dominant) whose forward error must be within 8x cuSOLVER's.
 *   - a left-looking schedule written here from the provided tasks (n = 320, 1024): two updates of
 *     one column back to back on the chain, which the reference schedules never launch.
 *   - on a Hopper, the warpgroup bulk update alone (K = 64 .. 1024) against a float64 product.
 *   - bad arguments refused with a message.
 * Outputs are poisoned (info, the workspace) before every run and the input reloaded, with garbage
 * in its strict upper triangle (NaN, or values unlike the lower one's): only the lower one is read. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "gpu_batch.h"
#include "grid_cholesky.h"
#include "grid_tasks.h" /* GRID_MAX_BATCH */
#include "harness.h"
#include "host_alloc.h"

static const char *const GROUP = "whole GPU", *const BATCH_GROUP = "whole GPU batched";
static const char *const TENSOR_GROUP = "whole GPU tensor cores";
static const char *const HIGH_GROUP = "whole GPU precision high";
static const char *const MEDIUM_GROUP = "whole GPU precision medium";
/* the sizes, then room for the hidden ones; nspd_sizes counts the given ones at the start of main */
static int spd_sizes[16] = {1, 31, 32, 33, 100, 255, 256, 257, 1000, 1024, 2049}, nspd_sizes;
static const int illcond_sizes[] = {100, 1000};
#define N_ILLCOND (int)(sizeof illcond_sizes / sizeof illcond_sizes[0])

/* Factor the host matrix A with one mode and math into L (host); returns info. */
static int run_grid(grid_mode mode, grid_math math, int n, const float *A, float *L)
{
    size_t bytes = (size_t)n * n * sizeof(float), work = grid_workspace_bytes(n);
    float *d_A, *d_work = NULL;
    int *d_info, info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    if (work) {
        CUDA_CHECK(cudaMalloc((void **)&d_work, work));
        CUDA_CHECK(cudaMemset(d_work, 0xff, work)); /* NaN everywhere: nothing may read it unwritten */
    }
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    /* garbage above the diagonal, NaN or unequal in turn: only the lower triangle is read */
    poison_strict_upper_device(n, 1, 1, d_A, (n + mode) % 2 ? UPPER_UNEQUAL : UPPER_NAN, cudaStreamLegacy);
    CUDA_CHECK(cudaMemset(d_info, 0x7f, sizeof(int)));
    if (potrf_grid_math(mode, math, n, 1, d_A, d_work, d_info) != 0) info = -999;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
    if (info != -999) CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    return info;
}

/* Every mode on one matrix. planted: the failing minor the input was built with (0 for
 * SPD); the reference and cuSOLVER must agree with it. With a NaN in the input, info must be
 * LAPACK's (the reference's); cuSOLVER's is printed but not required (see checks.h).
 * GRID_TF32X3: the look-ahead, the pairs and the quads with the tensor-core updates, each held to exactly
 * the checks of fp32 (the other two modes would only repeat the look-ahead's tasks). */
static int modes_checked(grid_math math) { return math == GRID_FP32 ? GRID_MODE_COUNT : 3; }

static void check_matrix(harness *h, grid_math math, const char *what, int n, const float *A, int planted,
                         int nan_input)
{
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    float *C = host_alloc(bytes, "test buffers"), *Lref = host_alloc(bytes, "test buffers"),
          *L = host_alloc(bytes, "test buffers");
    double tol;
    int cinfo = oracle_potrf_host(n, A, C);
    compare_tolerances(n, 1, A, &tol);
    const int ref_info = run_grid(GRID_LOOKAHEAD, math, n, A, Lref);
    int ref_ok = 0; /* the look-ahead result passed its full check */
    for (int m = GRID_MODE_COUNT - 1; m >= GRID_MODE_COUNT - modes_checked(math);
         m--) { /* quads, pairs, look-ahead, then the two that must equal it */
        /* The look-ahead, the pairs and the quads (other summation orders: K = 2T, 4T) get the full check; stream
         * and graph launch the look-ahead's tasks in another order and must equal it bit for bit. */
        const int full = m == GRID_LOOKAHEAD || m == GRID_PAIRS || m == GRID_QUADS;
        float *mine = m == GRID_LOOKAHEAD ? Lref : L;
        int info = m == GRID_LOOKAHEAD ? ref_info : run_grid((grid_mode)m, math, n, A, L);
        char detail[256] = "", name[128];
        double md = 0;
        factor_check r = {0};
        int ok;
        if (full) {
            check_factor(n, A, mine, info, &r);
            ok = r.ok && info == planted && (info == cinfo || nan_input);
            snprintf(detail, sizeof detail, "%s",
                     !r.ok ? r.detail
                     : ok  ? ""
                           : "info is not the planted minor or cuSOLVER's");
            if (ok && !nan_input)
                ok = compare_factors_tol(n, 1, &tol, mine, &info, C, &cinfo, detail, sizeof detail, &md) == 0;
            if (m == GRID_LOOKAHEAD) ref_ok = ok;
        } else if (!ref_ok) { /* equal to a wrong result proves nothing */
            ok = 0;
            snprintf(detail, sizeof detail, "the look-ahead result this one must equal failed its check");
        } else {
            ok = info == ref_info && (info != 0 || memcmp(L, Lref, bytes) == 0);
            if (!ok) {
                size_t e = 0;
                while (e < nn && !memcmp(L + e, Lref + e, sizeof(float))) e++;
                snprintf(detail, sizeof detail,
                         "differs from the look-ahead result: info %d vs %d, first at (%zu, %zu)", info, ref_info,
                         e / n, e % n);
            }
        }
        snprintf(name, sizeof name, "%s%s %s", grid_mode_name((grid_mode)m), math == GRID_FP32 ? "" : " tf32x3", what);
        harness_check(h, ok, name, "%s info %d (cuSOLVER %d, planted %d), resid %.2g, diff to cuSOLVER %.2g", detail,
                      info, cinfo, planted, r.resid, md);
    }
    free(C);
    free(Lref);
    free(L);
}

static float *make_matrix(family_t fam, int n, int fail_at, unsigned long long seed)
{
    gen_params p = gen_params_make(fam, harness_seed(seed), 1e4, fail_at);
    float *A = host_alloc((size_t)n * n * sizeof(float), "test buffers");
    gen_batch_host(&p, n, 0, 1, A);
    return A;
}

static void test_sizes(harness *h, grid_math math)
{
    for (int s = 0; s < nspd_sizes; s++) {
        int n = spd_sizes[s];
        float *A = make_matrix(FAMILY_SPD, n, 0, 3000 + n);
        char what[64];
        snprintf(what, sizeof what, "spd n=%d", n);
        check_matrix(h, math, what, n, A, 0, 0);
        free(A);
    }
    for (int s = 0; s < N_ILLCOND; s++) {
        int n = illcond_sizes[s];
        float *A = make_matrix(FAMILY_ILLCOND, n, 0, 3100 + n);
        char what[64];
        snprintf(what, sizeof what, "illcond n=%d", n);
        check_matrix(h, math, what, n, A, 0, 0);
        free(A);
    }
}

/* Failing minors where tile boundaries make mistakes likely: the first row of the second tile
 * (65), the middle of a tile (161), the last row of a tile (256, also the last row of a 128 x 128
 * update block); n = 515 is not a multiple of the tile. Then a NaN on the diagonal (row 300) and one off it (row 140):
 * the first NaN pivot is that row's, info = row + 1 (LAPACK's rule). */
static const int fails[] = {65, 161, 256}, nan_row[] = {300, 140}, nan_col[] = {300, 70};
#define N_FAILS (int)(sizeof fails / sizeof fails[0])
#define N_NANS (int)(sizeof nan_row / sizeof nan_row[0])
#define N_ZEROS 3 /* pivots of exactly zero (gen_zero_pivot_host): the first, a middle and the last */

static void test_failures(harness *h, grid_math math)
{
    const int n = 515;
    for (int f = 0; f < N_FAILS; f++) {
        float *A = make_matrix(FAMILY_NONSPD, n, fails[f], 3200 + f);
        char what[64];
        snprintf(what, sizeof what, "nonspd n=%d failing minor %d", n, fails[f]);
        check_matrix(h, math, what, n, A, fails[f], 0);
        free(A);
    }
    for (int place = 0; place < N_ZEROS; place++) {
        const int k = gen_zero_pivot_place(n, place);
        float *A = host_alloc((size_t)n * n * sizeof(float), "test buffers");
        gen_zero_pivot_host(n, k, harness_seed(3250 + place), A);
        char what[64];
        snprintf(what, sizeof what, "zero pivot n=%d failing minor %d", n, k + 1);
        check_matrix(h, math, what, n, A, k + 1, 0);
        free(A);
    }
    for (int f = 0; f < N_NANS; f++) {
        float *A = make_matrix(FAMILY_SPD, n, 0, 3300 + f);
        A[(size_t)nan_row[f] * n + nan_col[f]] = NAN;
        A[(size_t)nan_col[f] * n + nan_row[f]] = NAN;
        char what[64];
        snprintf(what, sizeof what, "NaN at (%d, %d) n=%d", nan_row[f], nan_col[f], n);
        check_matrix(h, math, what, n, A, nan_row[f] + 1, 1);
        free(A);
    }
}

/* Large n, checked without an O(n^3) reference on the CPU: check_sampled_residual (properties and
 * 4096 sampled entries of A - L L^T), and the forward error of the worst row against a float64 factor
 * computed on the GPU (cusolverDnDpotrf), within 8x cuSOLVER's float32 one on the same matrix.
 * Why not a bound from kappa: the spd family is diagonally dominant, so its updates are small next to
 * the diagonal, and at n = 4097 the generic bound (kappa <= 2n + 2) passed a factor that had missed a
 * whole 64-column panel's update (planted: a forward error about 1000x cuSOLVER's); the residual is
 * blind to it too (the missed terms are below 4 n eps |l_i| |l_j|). */
#define LARGE_FWD_FACTOR 8.0

/* The worst row: max over i of ||L_i - L64_i|| / ||L64_i|| (a bug that spoils a few rows barely
 * moves the norm of the whole factor at n = 4097; a planted one that left the last row without 20
 * steps' updates moved it by 2x cuSOLVER's only). */
static double forward_error(int n, const float *L, const double *L64)
{
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double diff = 0, norm = 0;
        for (int j = 0; j <= i; j++) {
            const double d = (double)L[(size_t)i * n + j] - L64[(size_t)i * n + j];
            diff += d * d;
            norm += L64[(size_t)i * n + j] * L64[(size_t)i * n + j];
        }
        const double r = sqrt(diff / norm);
        if (isnan(r)) return r;
        if (r > worst) worst = r;
    }
    return worst;
}

/* A test name's word for the math: "" for fp32, else " tf32x3" or " f16x3". */
static const char *math_label(grid_math math)
{
    return math == GRID_F16X3 ? " f16x3" : math == GRID_FP32 ? "" : " tf32x3";
}

static void check_large(harness *h, grid_math math, int n, int fail_at)
{
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    gen_params p = gen_params_make(fail_at ? FAMILY_NONSPD : FAMILY_SPD, harness_seed(3400 + n), 0, fail_at);
    float *A = host_alloc(bytes, "test buffers"), *C = host_alloc(bytes, "test buffers"),
          *L = host_alloc(bytes, "test buffers");
    double *L64 = fail_at ? NULL : host_alloc_array(nn, sizeof(double), "test buffers");
    gen_batch_host(&p, n, 0, 1, A);
    int cinfo = oracle_potrf_host(n, A, C);
    double cusolver_fwd = 0;
    int reference_ok = 1;
    if (L64) {
        int info64 = oracle_potrf_double_host(n, A, L64);
        cusolver_fwd = forward_error(n, C, L64);
        /* the reference must be one: it factored, and cuSOLVER's float32 factor agrees with it */
        reference_ok = info64 == 0 && cinfo == 0 && cusolver_fwd <= fwd_tol(n, 1.0);
    }
    for (int m = GRID_MODE_COUNT - modes_checked(math); m < GRID_MODE_COUNT; m++) {
        int info = run_grid((grid_mode)m, math, n, A, L);
        char detail[256] = "", name[128];
        int ok = info == cinfo && info == fail_at;
        if (!ok) snprintf(detail, sizeof detail, "info %d, cuSOLVER %d, planted %d", info, cinfo, fail_at);
        double worst = 0;
        if (ok && info == 0) ok = check_sampled_residual(n, A, L, 4096, detail, sizeof detail, &worst);
        if (ok && info == 0 && !reference_ok) {
            snprintf(detail, sizeof detail, "the float64 reference failed: cuSOLVER float32 differs from it by %.3g",
                     cusolver_fwd);
            ok = 0;
        }
        if (ok && info == 0) {
            const double fwd = forward_error(n, L, L64), bound = LARGE_FWD_FACTOR * cusolver_fwd;
            printf("  accuracy %s%s n=%d: forward error (worst row) %.3g, cuSOLVER %.3g\n",
                   grid_mode_name((grid_mode)m), math_label(math), n, fwd, cusolver_fwd);
            if (!(fwd <= bound)) {
                snprintf(detail, sizeof detail, "forward error %.3g > %.3g (%.0fx cuSOLVER's %.3g)", fwd, bound,
                         LARGE_FWD_FACTOR, cusolver_fwd);
                ok = 0;
            }
        }
        snprintf(name, sizeof name, "%s%s %s n=%d", grid_mode_name((grid_mode)m), math_label(math),
                 fail_at ? "nonspd" : "spd", n);
        harness_check(h, ok, name, "%s (worst sampled residual %.3g)", detail, worst);
    }
    free(A);
    free(C);
    free(L);
    free(L64);
}

/* A batch through potrf_grid_batched: matrix 1 is not positive definite (minor planted inside a
 * tile), matrix 3 holds a NaN (off the diagonal), the others SPD; one guard matrix before and
 * after the batch and guard infos, poisoned and checked untouched. Every matrix gets the full
 * check of one matrix (float64 reference, info as planted, cuSOLVER agreement), in every mode:
 * a bad matrix must not disturb its neighbours, and matrix b must not write into matrix b + 1.
 * n: one tile and less, several tiles with padding, exact tiles (in place). */
static const int batched_sizes[] = {1, 33, 65, 200, 256};
#define BATCHED_COUNT 5
#define GUARD_VALUE 12345.0f

static void check_batched(harness *h, grid_mode mode, grid_math math, int n, size_t batch)
{
    const size_t nn = (size_t)n * n, total = (batch + 2) * nn;
    float *A = host_alloc(batch * nn * sizeof(float), "test buffers"),
          *L = host_alloc(total * sizeof(float), "test buffers");
    float *C = host_alloc(batch * nn * sizeof(float), "test buffers");
    int *planted = host_alloc_array(batch, sizeof(int), "test buffers"),
        *info = host_alloc_array(batch + 2, sizeof(int), "test buffers");
    int *cinfo = host_alloc_array(batch, sizeof(int), "test buffers");
    double *tol = host_alloc_array(batch, sizeof(double), "test buffers");
    for (size_t b = 0; b < batch; b++) {
        const int bad = batch > 1 && b == 1 && n > 2, nan = batch > 3 && b == 3 && n > 2;
        planted[b] = bad ? n / 2 + 1 : nan ? n - 1 + 1 : 0;
        gen_params p =
            gen_params_make(bad ? FAMILY_NONSPD : FAMILY_SPD, harness_seed(3500 + n), 0, bad ? planted[b] : 0);
        gen_batch_host(&p, n, b, 1, A + b * nn);
        if (nan) A[b * nn + (size_t)(n - 1) * n + 1] = A[b * nn + (size_t)1 * n + (n - 1)] = NAN; /* row n-1: info n */
        cinfo[b] = oracle_potrf_host(n, A + b * nn, C + b * nn);
    }
    compare_tolerances(n, batch, A, tol);
    size_t work = grid_batched_workspace_bytes(n, batch);
    float *d_A, *d_work = NULL;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, total * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, (batch + 2) * sizeof(int)));
    if (work) {
        CUDA_CHECK(cudaMalloc((void **)&d_work, work));
        CUDA_CHECK(cudaMemset(d_work, 0xff, work));
    }
    for (size_t e = 0; e < total; e++) L[e] = GUARD_VALUE; /* the guards, then the batch between them */
    memcpy(L + nn, A, batch * nn * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_A, L, total * sizeof(float), cudaMemcpyHostToDevice));
    poison_strict_upper_device(n, batch, 1, d_A + nn, UPPER_MIXED, cudaStreamLegacy); /* only the lower is read */
    CUDA_CHECK(cudaMemset(d_info, 0x7f, (batch + 2) * sizeof(int)));
    int ok = potrf_grid_math(mode, math, n, batch, d_A + nn, d_work, d_info + 1) == 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(L, d_A, total * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, d_info, (batch + 2) * sizeof(int), cudaMemcpyDeviceToHost));
    char detail[256] = "";
    if (!ok) snprintf(detail, sizeof detail, "potrf_grid_batched refused the call");
    for (size_t e = 0; ok && e < nn; e++)
        if (L[e] != GUARD_VALUE || L[(batch + 1) * nn + e] != GUARD_VALUE) {
            ok = 0;
            snprintf(detail, sizeof detail, "a guard matrix was written at element %zu", e);
        }
    if (ok && (info[0] != 0x7f7f7f7f || info[batch + 1] != 0x7f7f7f7f)) {
        ok = 0;
        snprintf(detail, sizeof detail, "a guard info was written: %d, %d", info[0], info[batch + 1]);
    }
    double worst = 0, md = 0;
    for (size_t b = 0; ok && b < batch; b++) {
        const float *Lb = L + (b + 1) * nn;
        factor_check r;
        check_factor(n, A + b * nn, Lb, info[b + 1], &r);
        const int nan = planted[b] && cinfo[b] != planted[b]; /* cuSOLVER's info on NaN is not required */
        if (!r.ok) snprintf(detail, sizeof detail, "matrix %zu: %.200s", b, r.detail), ok = 0;
        else if (info[b + 1] != planted[b] || (!nan && info[b + 1] != cinfo[b]))
            snprintf(detail, sizeof detail, "matrix %zu: info %d, planted %d, cuSOLVER %d", b, info[b + 1], planted[b],
                     cinfo[b]),
                ok = 0;
        else if (info[b + 1] == 0 && compare_factors_tol(n, 1, tol + b, Lb, info + b + 1, C + b * nn, cinfo + b, detail,
                                                         sizeof detail, &md) != 0)
            ok = 0;
        if (r.ref_info == 0 && r.resid > worst) worst = r.resid;
    }
    char name[96];
    snprintf(name, sizeof name, "batched %s%s n=%d x%zu", grid_mode_name(mode), math == GRID_FP32 ? "" : " tf32x3", n,
             batch);
    harness_check(h, ok, name, "%s (max residual %.2g, diff to cuSOLVER %.2g)", detail, worst, md);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    free(A);
    free(L);
    free(C);
    free(planted);
    free(info);
    free(cinfo);
    free(tol);
}

/* A wide batch (n = 512, every launch fills the GPU several times over, zero_upper's rows too):
 * three of its matrices, factored again alone, must give the same bits, and pass the full check. */
static void check_wide_batch(harness *h)
{
    const int n = 512;
    const size_t batch = 160, nn = (size_t)n * n, bytes = nn * sizeof(float);
    const grid_mode mode = grid_default_batched_mode(n, batch);
    const grid_math math = grid_default_math(n, batch);
    float *A = host_alloc(batch * bytes, "test buffers"), *L = host_alloc(batch * bytes, "test buffers"),
          *alone = host_alloc(bytes, "test buffers");
    int *info = host_alloc_array(batch, sizeof(int), "test buffers"), alone_info = -1;
    gen_params p = gen_params_make(FAMILY_SPD, harness_seed(3700), 0, 0);
    gen_batch_host(&p, n, 0, batch, A);
    float *d_A;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, batch * bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_A, A, batch * bytes, cudaMemcpyHostToDevice));
    poison_strict_upper_device(n, batch, 1, d_A, UPPER_MIXED, cudaStreamLegacy); /* only the lower is read */
    CUDA_CHECK(cudaMemset(d_info, 0x7f, batch * sizeof(int)));
    int ok = potrf_grid_math(mode, math, n, batch, d_A, NULL, d_info) == 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(L, d_A, batch * bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, d_info, batch * sizeof(int), cudaMemcpyDeviceToHost));
    char detail[256] = "";
    if (!ok) snprintf(detail, sizeof detail, "potrf_grid_batched refused the call");
    const size_t picked[3] = {0, batch / 2, batch - 1};
    for (int t = 0; ok && t < 3; t++) {
        const size_t b = picked[t];
        factor_check r;
        check_factor(n, A + b * nn, L + b * nn, info[b], &r);
        CUDA_CHECK(cudaMemcpy(d_A, A + b * nn, bytes, cudaMemcpyHostToDevice));
        poison_strict_upper_device(n, 1, 1, d_A, UPPER_UNEQUAL, cudaStreamLegacy);
        CUDA_CHECK(cudaMemset(d_info, 0x7f, sizeof(int)));
        ok = potrf_grid_math(mode, math, n, 1, d_A, NULL, d_info) == 0;
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(alone, d_A, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&alone_info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
        if (!r.ok || info[b] != 0)
            snprintf(detail, sizeof detail, "matrix %zu: info %d %.200s", b, info[b], r.detail), ok = 0;
        else if (!ok || alone_info != 0 || memcmp(alone, L + b * nn, bytes))
            snprintf(detail, sizeof detail, "matrix %zu: alone (info %d) it gives other bits than in the batch", b,
                     alone_info),
                ok = 0;
    }
    char name[96];
    snprintf(name, sizeof name, "batched %s%s n=%d x%zu: each matrix as alone, bit for bit", grid_mode_name(mode),
             math == GRID_FP32 ? "" : " tf32x3", n, batch);
    harness_check(h, ok, name, "%s", detail);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    free(A);
    free(L);
    free(alone);
    free(info);
}

/* The tests test_batched runs: every size and mode with BATCHED_COUNT matrices, one batch past
 * GRID_MAX_BATCH (two launches per task) in the default mode, and one wide batch. */
#define NBATCHED_SIZES ((int)(sizeof batched_sizes / sizeof *batched_sizes))
#define NBATCHED_TESTS (NBATCHED_SIZES * GRID_MODE_COUNT + 2)

static void test_batched(harness *h)
{
    for (int s = 0; s < NBATCHED_SIZES; s++)
        for (int m = 0; m < GRID_MODE_COUNT; m++)
            check_batched(h, (grid_mode)m, GRID_FP32, batched_sizes[s], BATCHED_COUNT);
    check_batched(h, GRID_LOOKAHEAD, GRID_FP32, 3, GRID_MAX_BATCH + 2);
    check_wide_batch(h);
}

/* Accuracy that tells the maths apart. The generator's SPD matrices are diagonally dominant: the
 * updates are small next to the diagonal, so even plain TF32 updates (3 digits) pass the checks
 * above. A Gram matrix A = G G^T / (2n), G n x 2n uniform in [-1, 1) (cond(A) about 34), is not:
 * its factor is built by the updates. The forward error ||L - L64||_F / ||L64||_F must be within
 * 8x cuSOLVER's on the same matrix; plain TF32 is about 1000x off (planted on the H100). */
static const int gram_sizes[] = {300, 700};
#define NGRAM ((int)(sizeof gram_sizes / sizeof *gram_sizes))
static const struct {
    grid_mode mode;
    grid_math math;
} runs[] = {
    {GRID_LOOKAHEAD, GRID_FP32}, {GRID_LOOKAHEAD, GRID_TF32X3}, {GRID_PAIRS, GRID_TF32X3}, {GRID_QUADS, GRID_TF32X3}};
#define NGRAM_RUNS ((int)(sizeof runs / sizeof *runs))
#define NGRAM_TESTS (NGRAM * NGRAM_RUNS)

static float *gram_matrix(int n, unsigned long long seed)
{
    const int m = 2 * n;
    double *G = host_alloc_array((size_t)n * m, sizeof(double), "test buffers");
    float *A = host_alloc((size_t)n * n * sizeof(float), "test buffers");
    unsigned long long x = seed * 2654435761ull + 1;
    for (size_t e = 0; e < (size_t)n * m; e++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        G[e] = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double d = 0;
            for (int k = 0; k < m; k++) d += G[(size_t)i * m + k] * G[(size_t)j * m + k];
            A[(size_t)i * n + j] = A[(size_t)j * n + i] = (float)(d / m);
        }
    free(G);
    return A;
}

static void test_accuracy(harness *h)
{
    for (int s = 0; s < NGRAM; s++) {
        const int n = gram_sizes[s];
        float *A = gram_matrix(n, harness_seed(3600 + n)),
              *C = host_alloc((size_t)n * n * sizeof(float), "test buffers");
        float *L = host_alloc((size_t)n * n * sizeof(float), "test buffers");
        factor_check rc;
        const int cinfo = oracle_potrf_host(n, A, C);
        check_factor(n, A, C, cinfo, &rc);
        for (int r = 0; r < NGRAM_RUNS; r++) {
            factor_check mine;
            const int info = run_grid(runs[r].mode, runs[r].math, n, A, L);
            check_factor(n, A, L, info, &mine);
            const double bound = 8 * rc.fwd;
            const int ok = rc.ok && cinfo == 0 && mine.ok && info == 0 && mine.fwd <= bound;
            char name[96];
            snprintf(name, sizeof name, "%s %s gram n=%d accuracy", grid_mode_name(runs[r].mode),
                     grid_math_name(runs[r].math), n);
            harness_check(h, ok, name,
                          "forward error %.3g (cuSOLVER %.3g, bound %.3g), residual %.3g (cuSOLVER %.3g)%s%s", mine.fwd,
                          rc.fwd, bound, mine.resid, rc.resid, mine.ok ? "" : ": ", mine.ok ? "" : mine.detail);
            printf("  accuracy %s: forward error %.3g, residual %.3g; cuSOLVER %.3g, %.3g\n", name, mine.fwd,
                   mine.resid, rc.fwd, rc.resid);
        }
        free(A);
        free(C);
        free(L);
    }
}

/* The tensor-core updates: every matrix of the fp32 group (sizes, ill-conditioned, failing minors,
 * NaNs, the large ones) in the three look-ahead modes, then the batches. */
#define NTENSOR_BATCHED (NBATCHED_SIZES * 3)

static void test_tensor(harness *h)
{
    test_sizes(h, GRID_TF32X3);
    test_failures(h, GRID_TF32X3);
    test_accuracy(h);
    check_large(h, GRID_TF32X3, 4097, 0);
    check_large(h, GRID_TF32X3, 4096, 4000);
    /* the quads' rounds of eight panels (grid_round_panels), at least two of them, then rounds of
     * four; on a Hopper three rounds of sixteen first (GRID_LONG_ROUNDS in main) and their bands on
     * the warpgroup MMA, each split reused by the triangle */
    const int eight_nt =
        GRID_EIGHT_PANELS_FROM + 9 > GRID_QUADS_FROM_TILES + 1 ? GRID_EIGHT_PANELS_FROM + 9 : GRID_QUADS_FROM_TILES + 1;
    check_large(h, GRID_TF32X3, GRID_TILE * eight_nt, 0);
    for (int s = 0; s < NBATCHED_SIZES; s++) {
        check_batched(h, GRID_LOOKAHEAD, GRID_TF32X3, batched_sizes[s], BATCHED_COUNT);
        check_batched(h, GRID_PAIRS, GRID_TF32X3, batched_sizes[s], BATCHED_COUNT);
        check_batched(h, GRID_QUADS, GRID_TF32X3, batched_sizes[s], BATCHED_COUNT);
    }
}

/* The provided tasks under a schedule other than the reference ones: left-looking by hand, each
 * column brought up to date one panel at a time (launch_update_tasks(k, c, c + 1) for every k < c,
 * back to back on one stream), then its POTRF and TRSM. Two updates of the same column then follow
 * each other on the chain, which a task that read its tile before the chain's wait would get wrong
 * (see early_load in grid_tasks.cu): a student's schedule may look like this. */
static const char *const SCHEDULE_GROUP = "whole GPU other schedules";
static const int left_sizes[] = {320, 1024};
#define N_LEFT_SIZES ((int)(sizeof left_sizes / sizeof *left_sizes))

static void check_left_looking_by_hand(harness *h, int n)
{
    const size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    float *A = make_matrix(FAMILY_SPD, n, 0, 3400 + n), *C = host_alloc(bytes, "test buffers"),
          *L = host_alloc(bytes, "test buffers"), *d_A;
    int *d_info, info = -1;
    double tol, md = 0;
    const int cinfo = oracle_potrf_host(n, A, C);
    compare_tolerances(n, 1, A, &tol);
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    poison_strict_upper_device(n, 1, 1, d_A, UPPER_NAN, cudaStreamLegacy); /* only the lower is read */
    CUDA_CHECK(cudaMemset(d_info, 0, sizeof(int)));
    grid_plan p = {d_A, (size_t)n, n / GRID_TILE, d_info, 1, nn, GRID_FP32, NULL, grid_rules_current()};
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int c = 0; c < p.nt; c++) {
        for (int k = 0; k < c; k++) CALL_CHECK(launch_update_tasks(&p, k, c, c + 1, s));
        CALL_CHECK(launch_potrf_task(&p, c, s));
        CALL_CHECK(launch_trsm_tasks(&p, c, s));
    }
    CALL_CHECK(launch_zero_upper(d_A, n, 1, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    factor_check r = {0};
    char detail[256] = "", name[96];
    check_factor(n, A, L, info, &r);
    int ok = r.ok && info == 0 && cinfo == 0;
    snprintf(detail, sizeof detail, "%s", !r.ok ? r.detail : ok ? "" : "info is not 0");
    if (ok) ok = compare_factors_tol(n, 1, &tol, L, &info, C, &cinfo, detail, sizeof detail, &md) == 0;
    snprintf(name, sizeof name, "left-looking by hand, one panel at a time, spd n=%d", n);
    harness_check(h, ok, name, "%s info %d (cuSOLVER %d), resid %.2g, diff to cuSOLVER %.2g", detail, info, cinfo,
                  r.resid, md);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    free(A);
    free(C);
    free(L);
}

/* The calls that must be refused (return -1), one row each, through the entry point they name:
 * the plan is the table's length. */
typedef enum { ONE_MATRIX, BATCHED, WITH_MATH } grid_entry;
typedef struct {
    const char *name, *detail;
    grid_entry entry;
    grid_mode mode;
    grid_math math;
    int n;
    size_t batch;
    int null_matrix;
} refused_call;
static const refused_call refused_calls[] = {
    {"grid refuses n = 0", "n = 0", ONE_MATRIX, GRID_STREAM, GRID_FP32, 0, 1, 0},
    {"grid refuses n too large", "n = GRID_MAX_N + 1", ONE_MATRIX, GRID_STREAM, GRID_FP32, GRID_MAX_N + 1, 1, 0},
    {"grid refuses a NULL matrix", "d_A", ONE_MATRIX, GRID_GRAPH, GRID_FP32, 64, 1, 1},
    {"grid refuses an unknown mode", "mode GRID_MODE_COUNT", ONE_MATRIX, (grid_mode)GRID_MODE_COUNT, GRID_FP32, 64, 1,
     0},
    {"grid refuses batch 0", "batch 0", BATCHED, GRID_STREAM, GRID_FP32, 64, 0, 0},
    {"grid refuses a missing workspace", "n = 7", ONE_MATRIX, GRID_STREAM, GRID_FP32, 7, 1, 0},
    {"grid refuses an unknown math", "math GRID_MATH_COUNT", WITH_MATH, GRID_PAIRS, (grid_math)GRID_MATH_COUNT, 64, 1,
     0},
};
#define N_REFUSED_CALLS (int)(sizeof refused_calls / sizeof refused_calls[0])

static void test_bad_arguments(harness *h)
{
    char said[512]; /* the launchers' messages, kept from the test output (course_report_capture) */
    course_report_capture(said, sizeof said);
    float *d_A;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, 64 * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    for (int i = 0; i < N_REFUSED_CALLS; i++) {
        const refused_call *c = &refused_calls[i];
        float *A = c->null_matrix ? NULL : d_A;
        int got;
        switch (c->entry) {
        case ONE_MATRIX: got = potrf_grid(c->mode, c->n, A, NULL, d_info); break;
        case BATCHED: got = potrf_grid_batched(c->mode, c->n, c->batch, A, NULL, d_info); break;
        default: got = potrf_grid_math(c->mode, c->math, c->n, c->batch, A, NULL, d_info); break;
        }
        harness_check(h, got == -1, c->name, "%s: returned %d", c->detail, got);
    }
    course_report_capture(NULL, 0);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
}

/* The warpgroup bulk update (grid_wgmma.cuh, Hopper only) on its own: one trailing triangle minus
 * the panel's product, K = 64 .. 1024 (the long rounds'), row blocks odd and even, a batch of two
 * (the split's stride; n = 640 with K = 512: one row block, partly past the matrix), each a
 * triangle of at least two tile columns (one column takes the column kernel); with `band` > 0, a
 * band of that many tile columns first (as the quads' next round: its own launch, which makes the
 * split; one column: the column update, on the tensor cores from K = 128) and then the triangle
 * below and right of it (which reuses that split from a lower row block), against a float64 product
 * on the host, next to the mma.sync update on the same matrix: within 4x its worst error and under
 * 1e-5 of sum |l_ik l_jk| (2e-5 at K = 1024; a missing lo term gives about 1e-4), and every entry
 * it must not touch (above the diagonal, left of and above the triangle) unchanged. Each case in
 * both block shapes (128 x 256, and 128 x 128 two an SM), whatever the rule picks. */
static const char *const WGMMA_GROUP = "whole GPU warpgroup update";
static const struct {
    int n, panels, batch, band;
} wg_cases[] = {{576, 1, 1, 0},   {640, 8, 2, 0},   {1088, 4, 1, 0}, {1088, 3, 1, 0},
                {2048, 8, 1, 0},  {640, 4, 2, 4},   {1088, 4, 1, 4}, {2048, 8, 1, 8},
                {2048, 16, 1, 0}, {2048, 16, 1, 8}, {2048, 8, 1, 1}, {2048, 16, 1, 1}};
#define N_WG_CASES ((int)(sizeof wg_cases / sizeof *wg_cases))

/* The worst error of the update in R against float64, relative to sum |l_ik l_jk|; -1 when an entry
 * outside the triangle changed. */
static double update_error(int n, int K, size_t batch, const float *A, const float *R, int with_c)
{
    double worst = 0;
    for (size_t b = 0; b < batch; b++) {
        const float *a = A + b * n * n, *r = R + b * n * n;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                const size_t at = (size_t)i * n + j;
                if (j > i || j < K) {
                    if (memcmp(&a[at], &r[at], sizeof(float))) return -1;
                    continue;
                }
                double sum = 0, scale = 0;
                for (int k = 0; k < K; k++) {
                    sum += (double)a[(size_t)i * n + k] * a[(size_t)j * n + k];
                    scale += fabs((double)a[(size_t)i * n + k] * a[(size_t)j * n + k]);
                }
                if (with_c) scale += fabs((double)a[at]); /* rows scaled apart: C's own rounding may lead */
                const double e = fabs(r[at] - (a[at] - sum)) / (scale > 0 ? scale : 1);
                if (!(e <= worst)) worst = e; /* NaN wins */
            }
    }
    return worst;
}

/* math GRID_F16 (precision medium): the same update with the fp16 bulk, against the one-pass TF32
 * mma.sync update (the same 11 significant bits): within 2x its worst error and under 2e-3; scaled:
 * row i of the matrix times 2^(i * 37 % 61 - 30), which fp16 alone (6e-5 .. 65504) could not hold. */
static void check_wgmma_math(harness *h, grid_math math, int scaled, int n, int panels, size_t batch, int band,
                             int narrow)
{
    const size_t count = batch * n * n, bytes = count * sizeof(float);
    float *A = host_alloc(bytes, "test buffers"), *R = host_alloc(bytes, "test buffers"), *d_A;
    unsigned long long x = harness_seed(3700 + n + panels);
    for (size_t e = 0; e < count; e++) { /* uniform in [-1, 1) */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        A[e] = (float)((double)(x >> 11) / 4503599627370496.0 - 1.0);
        if (scaled) A[e] = ldexpf(A[e], (int)(e / n % n * 37 % 61) - 30);
    }
    int *d_info;
    grid_split split;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    const grid_rules rules = grid_rules_current();
    const int fits = grid_split_panels(n, batch, &rules), room = fits > panels ? fits : panels; /* one matrix */
    CALL_CHECK(grid_split_create(&split, grid_split_bytes(n, batch, room)));
    grid_plan p = {d_A, (size_t)n, n / GRID_TILE, d_info, (int)batch, (size_t)n * n, math, NULL, grid_rules_current()};
    p.rules.wgmma_narrow = narrow ? 2 : 1; /* blocks of 128 x 128 (two an SM) or 128 x 256, whatever the rule */
    double err[2];
    for (int v = 0; v < 2; v++) { /* mma.sync, then the warpgroup MMA */
        p.split = v ? &split : NULL;
        CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
        if (band) CALL_CHECK(launch_update_group_tasks(&p, 0, panels, panels, panels + band, cudaStreamLegacy));
        CALL_CHECK(launch_update_group_tasks(&p, 0, panels, panels + band, p.nt, cudaStreamLegacy));
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(R, d_A, bytes, cudaMemcpyDeviceToHost));
        err[v] = update_error(n, panels * GRID_TILE, batch, A, R, scaled);
    }
    char name[128];
    const int f16 = math == GRID_F16;
    snprintf(name, sizeof name, "warpgroup update%s n=%d K=%d batch %zu%s%s, blocks of 128 x %d",
             f16                  ? " fp16"
             : math == GRID_F16X3 ? " fp16x3"
                                  : "",
             n, panels * GRID_TILE, batch, band ? ", band then triangle" : "",
             scaled ? ", rows scaled 2^-30..2^30" : "", narrow ? 128 : 256);
    const double bound = f16 ? 2e-3 : panels <= 8 ? 1e-5 : 2e-5; /* K = 1024: 1.2e-5 for both (H100) */
    const int ok = err[0] >= 0 && err[1] >= 0 && err[1] <= (f16 ? 2 : 4) * err[0] + 1e-9 && err[1] <= bound;
    harness_check(h, ok, name,
                  "worst error / sum |l_ik l_jk|: warpgroup %.3g, mma.sync %.3g%s (-1: an entry outside the triangle "
                  "changed)",
                  err[1], err[0], f16 ? " (one TF32 pass)" : "");
    grid_split_destroy(&split);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    free(A);
    free(R);
}

static void check_wgmma_update(harness *h, int n, int panels, size_t batch, int band, int narrow)
{
    check_wgmma_math(h, GRID_TF32X3, 0, n, panels, batch, band, narrow);
}

/* Precision `high` (GRID_TF32, one TF32 product a term): not fp32-accurate, so not held to the checks
 * above but to the normwise residual that gpu-mode's problem accepts (NORMWISE_BOUND, checks.h),
 * with info exact. The Gram matrix (its factor made by the updates) must come out less accurate
 * than with tf32x3 and different from it: else the one-pass products did not run. */
typedef struct {
    const char *what;
    grid_mode mode;
    family_t family;
    double kappa;
    int n, fail_at, scaled; /* scaled: D A D, D = 2^-20 .. 2^20 */
} reduced_case;
static const reduced_case high_cases[] = {
    {"spd n=1024 (mma.sync)", GRID_LOOKAHEAD, FAMILY_SPD, 0, 1024, 0, 0},
    {"spd n=2048 (warpgroup bulk)", GRID_PAIRS, FAMILY_SPD, 0, 2048, 0, 0},
    {"spd n=4097 (padded, warpgroup band and bulk)", GRID_QUADS, FAMILY_SPD, 0, 4097, 0, 0},
    {"illcond n=2048, condition 1e3", GRID_QUADS, FAMILY_ILLCOND, 1e3, 2048, 0, 0},
    {"nonspd n=1500, minor 1100", GRID_PAIRS, FAMILY_NONSPD, 0, 1500, 1100, 0},
};
#define N_HIGH_CASES ((int)(sizeof high_cases / sizeof high_cases[0]))
#define N_SECOND_TESTS 3
#define N_HIGH_TESTS (N_HIGH_CASES + 1 + N_SECOND_TESTS)

/* Out of place (potrf_grid_run, d_in != d_out): the factor into L; returns info, or -999 when the
 * call refused or the input (with garbage above its diagonal) was changed. */
static int run_grid_out_of_place(grid_mode mode, grid_math math, int n, const float *A, float *L)
{
    const size_t bytes = (size_t)n * n * sizeof(float), work = grid_workspace_bytes(n);
    float *d_in, *d_out, *d_work = NULL, *back = host_alloc(bytes, "test buffers"),
                         *given = host_alloc(bytes, "test buffers");
    int *d_info, info = -999;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    if (work) CUDA_CHECK(cudaMalloc((void **)&d_work, work));
    CUDA_CHECK(cudaMemcpy(d_in, A, bytes, cudaMemcpyHostToDevice));
    poison_strict_upper_device(n, 1, 1, d_in, n % 2 ? UPPER_UNEQUAL : UPPER_NAN, cudaStreamLegacy);
    CUDA_CHECK(cudaMemcpy(given, d_in, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(d_out, 0xff, bytes));
    const int rc = potrf_grid_run(NULL, mode, math, n, 1, d_in, d_out, d_work, d_info, cudaStreamLegacy);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(L, d_out, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(back, d_in, bytes, cudaMemcpyDeviceToHost));
    if (rc == 0 && memcmp(back, given, bytes) == 0)
        CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_info));
    if (d_work) CUDA_CHECK(cudaFree(d_work));
    free(back);
    free(given);
    return info;
}

/* x x^T / 8 + 0.01 I with x n x 8 uniform of variance 1: SPD, eigenvalues up to about n over 0.01.
 * One TF32 pass perturbs it by more than 0.01 (gpu-mode's "damped low rank" family). */
static float *damped_low_rank(int n, unsigned long long seed)
{
    float *x = host_alloc((size_t)n * 8 * sizeof(float), "test buffers"),
          *A = host_alloc((size_t)n * n * sizeof(float), "test buffers");
    unsigned long long r = seed * 2654435761ull + 1;
    for (size_t e = 0; e < (size_t)n * 8; e++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        x[e] = (float)(((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0) * 1.7320508075688772); /* variance 1 */
    }
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double d = 0;
            for (int k = 0; k < 8; k++) d += (double)x[(size_t)i * 8 + k] * x[(size_t)j * 8 + k];
            A[(size_t)i * n + j] = A[(size_t)j * n + i] = (float)(d / 8 + (i == j ? 0.01 : 0.0));
        }
    free(x);
    return A;
}

/* Precision high's second chance (grid_cholesky.c) on a damped low-rank matrix, n = 4096: in place
 * TF32's false info stands (nothing of A is left); out of place the batch is factored again with
 * the fp32-accurate math (the policy's second: f16x3 where the warpgroup bulk runs, else tf32x3),
 * decided on the GPU (graph: an IF node) or by the host (stream mode), and the factor is that math's
 * own, bit for bit. */
static void test_second_chance(harness *h, grid_math math, int modes)
{
    const int n = 4096;
    grid_policy policy; /* the second chance's math: the fp32-accurate default (f16x3 on Hopper) */
    const grid_overrides o = grid_overrides_env();
    grid_policy_for(GRID_QUADS, math, n, 1, &o, &policy);
    const grid_math second = policy.second;
    const size_t bytes = (size_t)n * n * sizeof(float);
    const char *alone = math == GRID_F16 ? "fp16" : "TF32";
    float *A = damped_low_rank(n, harness_seed(5300)), *L = host_alloc(bytes, "test buffers"),
          *R = host_alloc(bytes, "test buffers");
    char name[96];
    const int in_place = run_grid(GRID_QUADS, math, n, A, L);
    snprintf(name, sizeof name, "damped low rank n=4096 in place: %s alone meets a pivot <= 0", alone);
    harness_check(h, in_place > 0, name,
                  "info %d (a false failure is what the second chance is for; 0 means the matrix does not test it)",
                  in_place);
    const grid_mode mode_of[2] = {GRID_QUADS, GRID_STREAM};
    for (int m = 0; m < modes; m++) {
        const int info = run_grid_out_of_place(mode_of[m], math, n, A, L),
                  ref = run_grid_out_of_place(mode_of[m], second, n, A, R);
        const int same = memcmp(L, R, bytes) == 0;
        harness_check(h, info == 0 && ref == 0 && same,
                      mode_of[m] == GRID_QUADS ? "damped low rank n=4096 out of place, graph: the IF node refactors"
                                               : "damped low rank n=4096 out of place, stream mode: the host refactors",
                      "info %d (%s alone %d; -999: refused or the input changed); the factor %s %s's", info,
                      grid_math_name(second), ref, same ? "equals" : "differs from", grid_math_name(second));
    }
    free(A);
    free(L);
    free(R);
}

/* One generated matrix in a reduced math (high or medium): info exact (the planted minor), and
 * within gpu-mode's normwise bound when it is 0. */
static void check_reduced(harness *h, const reduced_case *c, grid_math math, unsigned long long seed)
{
    const int n = c->n;
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *A = host_alloc(bytes, "test buffers"), *L = host_alloc(bytes, "test buffers");
    gen_params p = gen_params_make(c->family, seed, c->kappa, c->fail_at);
    gen_batch_host(&p, n, 0, 1, A);
    if (c->scaled) /* D A D: SPD still, entries 2^-40 .. 2^40 times A's */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                A[(size_t)i * n + j] = ldexpf(A[(size_t)i * n + j], (i * 37 % 41 - 20) + (j * 37 % 41 - 20));
    const int info = run_grid(c->mode, math, n, A, L);
    double ratio = -1;
    int ok = info == c->fail_at;
    if (ok && info == 0) ok = (ratio = residual_norm1_ratio(n, A, L, 1)) <= NORMWISE_BOUND(n);
    harness_check(h, ok, c->what, "%s %s: info %d (planted %d), ||A - L L^T||_1 / ||A||_1 = %.3g (bound %.3g)",
                  grid_mode_name(c->mode), grid_math_name(math), info, c->fail_at, ratio, NORMWISE_BOUND(n));
    free(A);
    free(L);
}

static void test_precision_high(harness *h)
{
    for (int c = 0; c < N_HIGH_CASES; c++) check_reduced(h, &high_cases[c], GRID_TF32, harness_seed(5100 + c));
    const int n = 700;
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *A = gram_matrix(n, harness_seed(5200)), *L = host_alloc(bytes, "test buffers"),
          *L3 = host_alloc(bytes, "test buffers");
    const int info = run_grid(GRID_LOOKAHEAD, GRID_TF32, n, A, L),
              info3 = run_grid(GRID_LOOKAHEAD, GRID_TF32X3, n, A, L3);
    const double r1 = residual_norm1_ratio(n, A, L, 1), r3 = residual_norm1_ratio(n, A, L3, 1);
    const int ok = info == 0 && info3 == 0 && r1 <= NORMWISE_BOUND(n) && r1 > 2 * r3 && memcmp(L, L3, bytes) != 0;
    harness_check(h, ok, "gram n=700: within the bound, less accurate than tf32x3 (one pass ran)",
                  "info %d / %d; residual tf32 %.3g, tf32x3 %.3g (bound %.3g)%s", info, info3, r1, r3,
                  NORMWISE_BOUND(n), memcmp(L, L3, bytes) ? "" : "; the same bits as tf32x3");
    free(A);
    free(L);
    free(L3);
    test_second_chance(h, GRID_TF32, 2);
}

/* Precision medium (GRID_F16): the warpgroup bulk's products in scaled fp16 (Hopper only: the group
 * is skipped elsewhere, where medium is high's arithmetic). The update alone against one TF32 pass,
 * with and without rows far outside fp16's range; whole factorizations held to gpu-mode's bound with
 * info exact (a row-scaled SPD matrix D A D, D = 2^-20 .. 2^20, included); the factor must differ
 * from high's (else fp16 did not run); the second chance as high's. */
static const struct {
    int n, panels, batch, band;
} f16_cases[] = {{640, 8, 2, 0}, {1088, 3, 1, 0}, {2048, 16, 1, 8}, {2048, 8, 1, 1}};
#define N_F16_CASES ((int)(sizeof f16_cases / sizeof *f16_cases))
static const reduced_case medium_cases[] = {
    {"spd n=2048 (warpgroup bulk)", GRID_PAIRS, FAMILY_SPD, 0, 2048, 0, 0},
    {"spd n=4097 (padded, warpgroup band and bulk)", GRID_QUADS, FAMILY_SPD, 0, 4097, 0, 0},
    {"illcond n=2048, condition 1e3", GRID_QUADS, FAMILY_ILLCOND, 1e3, 2048, 0, 0},
    {"spd n=4096, rows and columns scaled by 2^-20 .. 2^20", GRID_QUADS, FAMILY_SPD, 0, 4096, 0, 1},
    {"nonspd n=2500, minor 2100", GRID_PAIRS, FAMILY_NONSPD, 0, 2500, 2100, 0},
};
#define N_MEDIUM_CASES ((int)(sizeof medium_cases / sizeof medium_cases[0]))
#define N_MEDIUM_TESTS (2 * N_F16_CASES + N_MEDIUM_CASES + 1 + 2)

/* One generated SPD matrix of n = 4096 factored in the quads with `math` and with `other`: their
 * infos, their normwise residuals ||A - L L^T||_1 / ||A||_1, and whether the factors have the same bits. */
typedef struct {
    int info[2];
    double ratio[2];
    int same;
} two_maths;
static two_maths spd_in_two_maths(grid_math math, grid_math other, unsigned long long seed)
{
    const int n = 4096;
    const size_t bytes = (size_t)n * n * sizeof(float);
    float *A = host_alloc(bytes, "test buffers"),
          *L[2] = {host_alloc(bytes, "test buffers"), host_alloc(bytes, "test buffers")};
    gen_params p = gen_params_make(FAMILY_SPD, seed, 0, 0);
    gen_batch_host(&p, n, 0, 1, A);
    two_maths t;
    for (int m = 0; m < 2; m++) {
        t.info[m] = run_grid(GRID_QUADS, m ? other : math, n, A, L[m]);
        t.ratio[m] = residual_norm1_ratio(n, A, L[m], 1);
    }
    t.same = memcmp(L[0], L[1], bytes) == 0;
    free(A);
    free(L[0]);
    free(L[1]);
    return t;
}

static void test_precision_medium(harness *h)
{
    for (int c = 0; c < 2 * N_F16_CASES; c++)
        check_wgmma_math(h, GRID_F16, c % 2, f16_cases[c / 2].n, f16_cases[c / 2].panels, f16_cases[c / 2].batch,
                         f16_cases[c / 2].band, 0);
    for (int c = 0; c < N_MEDIUM_CASES; c++) check_reduced(h, &medium_cases[c], GRID_F16, harness_seed(5400 + c));
    const two_maths t = spd_in_two_maths(GRID_F16, GRID_TF32, harness_seed(5500));
    harness_check(h, t.info[0] == 0 && t.info[1] == 0 && t.ratio[0] <= NORMWISE_BOUND(4096) && !t.same,
                  "spd n=4096: within the bound, not high's bits (fp16 ran)",
                  "info %d (high %d), ratio %.3g (bound %.3g)%s", t.info[0], t.info[1], t.ratio[0],
                  NORMWISE_BOUND(4096), t.same ? "; the same bits as high" : "");
    test_second_chance(h, GRID_F16, 1); /* in place, and through the graph's IF node */
}

/* GRID_F16X3, the fp32-accurate default where the warpgroup bulk runs (Hopper only: skipped
 * elsewhere, where it is tf32x3's arithmetic): the update alone against the three-pass mma.sync update
 * (as the tf32x3 warpgroup update: within 4x its worst error, under 1e-5 of sum |l_ik l_jk|), rows
 * scaled 2^-30 .. 2^30 included; whole factorizations held to the tensor-core group's large checks
 * (n = 4097, a failing minor at 4000 and the 16-, 8- and 4-panel rounds of n = 8256, in the three
 * look-ahead modes); a row-scaled SPD matrix (D A D, D = 2^-20 .. 2^20) within gpu-mode's bound; an
 * SPD n = 4096 within 3x tf32x3's normwise residual and not its bits (fp16 ran). */
static const char *const F16X3_GROUP = "whole GPU fp32-accurate f16x3";
static const struct {
    int n, panels, batch, band;
} x3_cases[] = {{640, 8, 2, 0}, {1088, 3, 1, 0}, {2048, 16, 1, 8}, {2048, 8, 1, 1}};
#define N_X3_CASES ((int)(sizeof x3_cases / sizeof *x3_cases))
#define N_F16X3_TESTS (2 * N_X3_CASES + 3 * 3 + 2)

static void test_f16x3(harness *h)
{
    for (int c = 0; c < 2 * N_X3_CASES; c++)
        check_wgmma_math(h, GRID_F16X3, c % 2, x3_cases[c / 2].n, x3_cases[c / 2].panels, x3_cases[c / 2].batch,
                         x3_cases[c / 2].band, 0);
    const int eight_nt =
        GRID_EIGHT_PANELS_FROM + 9 > GRID_QUADS_FROM_TILES + 1 ? GRID_EIGHT_PANELS_FROM + 9 : GRID_QUADS_FROM_TILES + 1;
    check_large(h, GRID_F16X3, 4097, 0);
    check_large(h, GRID_F16X3, 4096, 4000);
    check_large(h, GRID_F16X3, GRID_TILE * eight_nt, 0);
    const reduced_case scaled = {
        "spd n=4096, rows and columns scaled by 2^-20 .. 2^20", GRID_QUADS, FAMILY_SPD, 0, 4096, 0, 1};
    check_reduced(h, &scaled, GRID_F16X3, harness_seed(5600));
    const two_maths t = spd_in_two_maths(GRID_F16X3, GRID_TF32X3, harness_seed(5700));
    harness_check(h, t.info[0] == 0 && t.info[1] == 0 && t.ratio[0] <= 3 * t.ratio[1] && !t.same,
                  "spd n=4096: within 3x tf32x3's residual, not its bits (fp16 ran)",
                  "info %d (tf32x3 %d), ||A - L L^T||_1 / ||A||_1 %.3g (tf32x3 %.3g)%s", t.info[0], t.info[1],
                  t.ratio[0], t.ratio[1], t.same ? "; the same bits as tf32x3" : "");
}

int main(void)
{
    harness h;
    harness_begin(&h, "stage-3-grid");
    /* Rounds of 16 panels while more than 128 tile columns remain (the default starts past n = 16384,
     * too large to check here): n = 10816 then runs three of them before its rounds of 8 and 4. */
    setenv("GRID_LONG_ROUNDS", "128", 0);
    while (nspd_sizes < 16 && spd_sizes[nspd_sizes] > 0) nspd_sizes++;
    if (harness_extra()) {
        spd_sizes[nspd_sizes++] = 47;
        spd_sizes[nspd_sizes++] = 97;
        spd_sizes[nspd_sizes++] = 1500;
    }
    const int matrices = nspd_sizes + N_ILLCOND + N_FAILS + N_ZEROS + N_NANS; /* test_sizes and test_failures */
    harness_plan(&h, GROUP, modes_checked(GRID_FP32) * (matrices + 2));
    harness_plan(&h, BATCH_GROUP, NBATCHED_TESTS);
    harness_plan(&h, TENSOR_GROUP, modes_checked(GRID_TF32X3) * (matrices + 3) + NGRAM_TESTS + NTENSOR_BATCHED);
    harness_plan(&h, SCHEDULE_GROUP, N_LEFT_SIZES);
    harness_plan(&h, "whole GPU argument checks", N_REFUSED_CALLS);
    harness_plan(&h, WGMMA_GROUP, 2 * N_WG_CASES);
    harness_plan(&h, HIGH_GROUP, N_HIGH_TESTS);
    harness_plan(&h, MEDIUM_GROUP, N_MEDIUM_TESTS);
    harness_plan(&h, F16X3_GROUP, N_F16X3_TESTS);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        harness_skip_rest(&h, GROUP, reason);
        harness_skip_rest(&h, BATCH_GROUP, reason);
        harness_skip_rest(&h, TENSOR_GROUP, reason);
        harness_skip_rest(&h, SCHEDULE_GROUP, reason);
        harness_skip_rest(&h, "whole GPU argument checks", reason);
        harness_skip_rest(&h, WGMMA_GROUP, reason);
        harness_skip_rest(&h, HIGH_GROUP, reason);
        harness_skip_rest(&h, MEDIUM_GROUP, reason);
        harness_skip_rest(&h, F16X3_GROUP, reason);
        return harness_end(&h);
    }
    harness_group(&h, GROUP);
    test_sizes(&h, GRID_FP32);
    test_failures(&h, GRID_FP32);
    check_large(&h, GRID_FP32, 4097, 0);
    check_large(&h, GRID_FP32, 4096, 4000);
    /* The sanity groups below run your schedule too: after a failure of it above, they are skipped. */
    harness_group(&h, BATCH_GROUP);
    if (harness_needs(&h, BATCH_GROUP, GROUP)) test_batched(&h);
    harness_group(&h, TENSOR_GROUP);
    if (harness_needs(&h, TENSOR_GROUP, GROUP)) test_tensor(&h);
    harness_group(&h, SCHEDULE_GROUP);
    for (int s = 0; s < N_LEFT_SIZES; s++) check_left_looking_by_hand(&h, left_sizes[s]);
    harness_group(&h, "whole GPU argument checks");
    test_bad_arguments(&h);
    harness_group(&h, WGMMA_GROUP);
    if (grid_wgmma_available())
        for (int c = 0; c < 2 * N_WG_CASES; c++) /* each case in both block shapes (grid_wgmma_narrow) */
            check_wgmma_update(&h, wg_cases[c / 2].n, wg_cases[c / 2].panels, wg_cases[c / 2].batch,
                               wg_cases[c / 2].band, c % 2);
    else
        harness_skip_rest(&h, WGMMA_GROUP,
                          "no warpgroup MMA here (a Hopper build on compute capability 9.0; GRID_WGMMA=0 not set)");
    harness_group(&h, HIGH_GROUP);
    if (harness_needs(&h, HIGH_GROUP, GROUP)) test_precision_high(&h);
    harness_group(&h, MEDIUM_GROUP);
    if (!grid_wgmma_available())
        harness_skip_rest(&h, MEDIUM_GROUP, "no warpgroup MMA here: precision medium is high's arithmetic");
    else if (harness_needs(&h, MEDIUM_GROUP, GROUP)) test_precision_medium(&h);
    harness_group(&h, F16X3_GROUP);
    if (!grid_wgmma_available())
        harness_skip_rest(&h, F16X3_GROUP, "no warpgroup MMA here: f16x3 is tf32x3's arithmetic");
    else if (harness_needs(&h, F16X3_GROUP, GROUP)) test_f16x3(&h);
    return harness_end(&h);
}
