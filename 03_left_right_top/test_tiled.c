/* test_tiled.c - stage 03 tests (GPU; skipped without one): the right-, left- and top-looking
 * kernels x NB in {4, 8, 16, 32} x n in {1, 2, 7, 8, 9, 31, 32, 33, 47, 64, 97, 100, 127, 255, 256, 1001} x
 * spd / illcond / nonspd, each against the float64 reference and cusolverDnSpotrf on the same
 * matrix (same info; factors within the bound); a matrix in the seed project's text format; bad
 * arguments. Outputs are poisoned where the kernel must write (info) and the input is reloaded
 * for every variant, with garbage in its strict upper triangle (only the lower one is read). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checks.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "dataset_io.h"
#include "generator.h"
#include "gpu_batch.h"
#include "harness.h"
#include "tiled_cholesky.h"
#include "host_alloc.h"

static const int nbs[] = {4, 8, 16, 32};
/* The graded groups: one learning goal per loop order (03_left_right_top/points.tsv). A matrix of
 * one tile (n <= NB) is factored by POTRF alone in every order, so it cannot tell a tiled order
 * from a wrong one (an update skipped, the wrong tiles updated): those cases are sanity, in a group
 * of their own without points, and the points come from the matrices of two tiles and more. */
static const char *const order_groups[LOOK_COUNT] = {"right-looking", "left-looking", "top-looking"};
static const char *const one_tile_groups[LOOK_COUNT] = {"right-looking, one tile", "left-looking, one tile",
                                                        "top-looking, one tile"};
static const char *variant_group(int order, int nb, int n)
{
    return n <= nb ? one_tile_groups[order] : order_groups[order];
}
enum { TEXT_N = 10 }; /* the seed-format file's matrix */
/* Most sizes are not a multiple of every NB: only those show a dropped or mishandled remainder tile
 * (a multiple of NB, such as 32, 64 and 256, tests the tile edges instead). */
static int family_sizes[20] = {1, 2, 7, 8, 9, 31, 32, 33, 47, 64, 97, 100, 127, 255, 256, 1001},
           nfamily_sizes = 16; /* + hidden */

/* Pivots of exactly zero (gen_zero_pivot_host) at the first, a middle and the last place, in
 * matrices of several tiles: every order must report info k + 1 (a test `d < 0` in spotrf_tile, or a
 * pivot's row lost between tiles, gives 0 or another minor). Graded in a group of their own. */
#define PIVOT_GROUP "failing pivots"
static int pivot_sizes[8] = {9, 33, 100}, npivot_sizes = 3; /* + hidden */

/* Factor A (n x n, host) with every order and NB; compare each with cuSOLVER's result C/cinfo.
 * group: NULL for the order's own (variant_group), else this one. */
static void check_all_variants(harness *h, const char *what, int n, const float *A, int planted, const char *group)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *L = host_alloc(bytes, "test buffers"), *C = host_alloc(bytes, "test buffers"), *d_A;
    int *d_info, info;
    int cinfo = oracle_potrf_host(n, A, C);
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    for (int o = 0; o < LOOK_COUNT; o++)
        for (int a = 0; a < 4; a++) {
            char name[96];
            snprintf(name, sizeof name, "%s NB=%d %s", looking_name((looking_order)o), nbs[a], what);
            harness_group(h, group ? group : variant_group(o, nbs[a], n));
            if (!group && n <= nbs[a] && harness_failures(h, order_groups[o])) {
                /* sanity that runs the student's order: after a graded failure of it, skipped */
                char why[128];
                snprintf(why, sizeof why, "needs '%s' to pass first (one tile runs your order too)", order_groups[o]);
                harness_skip(h, name, why);
                continue;
            }
            harness_start(h, "%s", name); /* a kernel that hangs or crashes is named by it */
            CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
            /* garbage above the diagonal, NaN or unequal in turn: only the lower triangle is read */
            poison_strict_upper_device(n, 1, 1, d_A, (o + a) % 2 ? UPPER_UNEQUAL : UPPER_NAN, cudaStreamLegacy);
            CUDA_CHECK(cudaMemset(d_info, 0x7f, sizeof(int)));
            int rc = potrf_tiled((looking_order)o, nbs[a], n, d_A, d_info);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
            factor_check r;
            char detail[256] = "";
            double md = 0;
            int ok = rc == 0;
            if (ok) {
                check_factor(n, A, L, info, &r);
                ok = r.ok && (planted == 0 || info == planted);
                snprintf(detail, sizeof detail, "%s", r.ok ? (ok ? "" : "info is not the planted minor") : r.detail);
            }
            if (ok) ok = compare_factors(n, 1, A, L, &info, C, &cinfo, detail, sizeof detail, &md) == 0;
            harness_check(h, ok, name, "%s info %d (cuSOLVER %d), resid %.2g, diff to cuSOLVER %.2g", detail, info,
                          cinfo, ok ? r.resid : 0.0, md);
        }
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    free(L);
    free(C);
}

static void test_families(harness *h)
{
    const int *ns = family_sizes;
    const family_t fams[] = {FAMILY_SPD, FAMILY_ILLCOND, FAMILY_NONSPD};
    for (int f = 0; f < 3; f++)
        for (int s = nfamily_sizes - 1; s >= 0; s--) { /* largest first: the one-tile sanity cases come last */
            int n = ns[s];
            gen_params p = gen_params_make(fams[f], harness_seed(300 + n), 1e4, 0);
            float *A = host_alloc((size_t)n * n * sizeof(float), "test buffers");
            gen_batch_host(&p, n, 0, 1, A);
            char what[64];
            snprintf(what, sizeof what, "%s n=%d", family_name(fams[f]), n);
            check_all_variants(h, what, n, A, fams[f] == FAMILY_NONSPD ? gen_nonspd_fail_at(&p, n, 0) : 0, NULL);
            free(A);
        }
}

static void test_zero_pivots(harness *h)
{
    for (int s = 0; s < npivot_sizes; s++)
        for (int place = 0; place < 3; place++) {
            const int n = pivot_sizes[s], k = gen_zero_pivot_place(n, place);
            float *A = host_alloc((size_t)n * n * sizeof(float), "test buffers");
            gen_zero_pivot_host(n, k, harness_seed(330 + 3 * n + place), A);
            char what[64];
            snprintf(what, sizeof what, "zero pivot n=%d minor %d", n, k + 1);
            check_all_variants(h, what, n, A, k + 1, PIVOT_GROUP);
            free(A);
        }
}

/* The seed project's single-matrix text file: line 1 n, then n rows. */
static void test_text_file(harness *h)
{
    char path[] = "/tmp/cholesky-seed-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    FILE *f = fdopen(fd, "w");
    int n = TEXT_N;
    gen_params p = gen_params_make(FAMILY_SPD, 4, 0, 0);
    fprintf(f, "%d\n", n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) fprintf(f, j + 1 < n ? "%.6f " : "%.6f\n", (double)gen_element(&p, n, 0, i, j));
    fclose(f);
    dataset d;
    char err[DATASET_ERR_LEN];
    if (dataset_read(path, &d, err, sizeof err) != 0 || d.count != 1 || d.n != n) {
        for (int o = 0; o < LOOK_COUNT; o++) /* every planned test of the file fails */
            for (int a = 0; a < 4; a++) {
                harness_group(h, variant_group(o, nbs[a], n));
                harness_check(h, 0, "seed-format text matrix", "%s", err);
            }
    } else {
        check_all_variants(h, "seed-format text n=10", n, d.data, 0, NULL);
        dataset_free(&d);
    }
    unlink(path);
}

/* The calls that must be refused (return -1), one row each: the plan is the table's length. */
typedef struct {
    const char *name, *detail;
    looking_order order;
    int nb, n;
} refused_call;
static const refused_call refused_calls[] = {
    {"refuses an NB not compiled in", "NB = 12", LOOK_LEFT, 12, 5},
    {"refuses n = 0", "n = 0", LOOK_TOP, 8, 0},
    {"refuses an unknown order", "order 7", (looking_order)7, 8, 4},
};
#define N_REFUSED_CALLS (int)(sizeof refused_calls / sizeof refused_calls[0])

static void test_bad_arguments(harness *h)
{
    char said[512]; /* the launchers' messages, kept from the test output (course_report_capture) */
    course_report_capture(said, sizeof said);
    /* A refusal comes before any CUDA call, so these run without a GPU too; the matrix and info
     * pointers are never touched (NULL: a call that is not refused fails loudly). */
    for (int i = 0; i < N_REFUSED_CALLS; i++) {
        const refused_call *c = &refused_calls[i];
        const int got = potrf_tiled(c->order, c->nb, c->n, NULL, NULL);
        harness_check(h, got == -1, c->name, "%s: returned %d", c->detail, got);
    }
    course_report_capture(NULL, 0);
}

int main(void)
{
    harness h;
    harness_begin(&h, "stage-3");
    if (harness_extra()) {
        family_sizes[nfamily_sizes++] = 5;
        family_sizes[nfamily_sizes++] = 65;
        family_sizes[nfamily_sizes++] = 129;
        pivot_sizes[npivot_sizes++] = 65;
    }
    int one_tile = 0, tiled = 0; /* per order: the three families at every size, and the text file, for each NB */
    for (int a = 0; a < 4; a++) {
        for (int s = 0; s < nfamily_sizes; s++) *(family_sizes[s] <= nbs[a] ? &one_tile : &tiled) += 3;
        *(TEXT_N <= nbs[a] ? &one_tile : &tiled) += 1;
    }
    for (int o = 0; o < LOOK_COUNT; o++) {
        harness_plan(&h, order_groups[o], tiled);
        harness_plan(&h, one_tile_groups[o], one_tile);
    }
    harness_plan(&h, PIVOT_GROUP, LOOK_COUNT * 4 * 3 * npivot_sizes);
    harness_plan(&h, "argument checks", N_REFUSED_CALLS);
    harness_group(&h, "argument checks"); /* host checks: with or without a GPU */
    test_bad_arguments(&h);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        for (int o = 0; o < LOOK_COUNT; o++) {
            harness_skip_rest(&h, order_groups[o], reason);
            harness_skip_rest(&h, one_tile_groups[o], reason);
        }
        harness_skip_rest(&h, PIVOT_GROUP, reason);
        return harness_end(&h);
    }
    test_families(&h);
    test_text_file(&h);
    test_zero_pivots(&h);
    return harness_end(&h);
}
