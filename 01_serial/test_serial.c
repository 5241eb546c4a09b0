/* test_serial.c - stage 01 tests.
 * CPU (runs everywhere, CI included): the serial and the OpenMP batch against the float64
 * reference, for n = 1, 2, 3, 7, 20, 31, 33, 64, 100, 128, 256 and every family; nonspd must
 * report the planted minor; a NaN matrix must fail without disturbing its neighbours; a pivot of
 * exactly zero or NaN (first, middle, last) must fail too. Every input's strict upper triangle holds
 * garbage (NaN, or values unlike the lower triangle's): only the lower triangle may be read. The
 * OpenMP batch runs on OPENMP_TEST_THREADS threads whatever OMP_NUM_THREADS and the CPU count say,
 * so that work done twice shows on one CPU, and it must be shared among them: which thread touched
 * each page of the batch first is seen without timing anything (first_touch.h). A data race between
 * the threads is ThreadSanitizer's to find (test_openmp_race, group "openmp races").
 * GPU (when there is one): the same inputs through cusolverDnSpotrf (one matrix) and
 * cusolverDnSpotrfBatched, whose info and factors ours must match. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cholesky_serial.h"
#include "cusolver_oracle.h"
#include "first_touch.h"
#include "generator.h"
#include "harness.h"
#include "host_alloc.h"

static int sizes[16] = {1, 2, 3, 7, 20, 31, 33, 64, 100, 128, 256}, NSIZES = 11; /* + hidden sizes when grading */

static size_t count_for(int n) { return n <= 33 ? 37 : n <= 100 ? 9 : 3; } /* odd counts */

/* More threads than a 2-core CI machine or a one-CPU Slurm job has: they then take turns, and a
 * batch factored once per thread (omp parallel without for) factors L again, which is wrong. */
#define OPENMP_TEST_THREADS 4

/* OpenMP batches whose factors were wrong, or right but factored by one thread: "openmp races"
 * judges only a loop that factors and shares the batch (the kit's stub, which does nothing, and a
 * serial loop have no race either: a pass there would be a point for nothing). */
static int openmp_wrong, openmp_unshared;

/* Expected infos: the planted minor for nonspd; NULL (= the reference's) for the others. */
static int *planted(const gen_params *p, int n, size_t count)
{
    if (p->family != FAMILY_NONSPD) return NULL;
    int *e = host_alloc(count * sizeof(int), "test buffers");
    for (size_t b = 0; b < count; b++) e[b] = gen_nonspd_fail_at(p, n, b);
    return e;
}

/* The OpenMP batch under ThreadSanitizer (test_openmp_race, beside this program): 1 if no race;
 * 0 and where, from its report; -1 when it could not run here (the group "openmp races" is then
 * not run: counted and shown, never a pass). Only a race between two accesses made inside the
 * parallel loop (both stacks in an outlined _omp_fn) counts: libgomp is not instrumented, so
 * ThreadSanitizer does not see its barriers, and an access after the region (free) seems to race
 * with the loop's. */
static int race_free(const char *self, char *where, size_t len)
{
    char dir[512], cmd[1400], line[512], here[128] = "";
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    /* setarch -R: an address space ThreadSanitizer knows, where the system allows it */
    snprintf(
        cmd, sizeof cmd,
        "p='%s/test_openmp_race'; export TSAN_OPTIONS=exitcode=66; "
        "out=$(setarch \"$(uname -m)\" -R \"$p\" 2>&1) || case $out in *ThreadSanitizer*) ;; *) out=$(\"$p\" 2>&1) ;; "
        "esac; printf '%%s\\nSUMMARY\\n' \"$out\"",
        dir);
    where[0] = '\0';
    FILE *f = popen(cmd, "r");
    if (!f) {
        snprintf(where, len, "no shell to run test_openmp_race");
        return -1;
    }
    int race = 0, ran = 0, side = -1, in_loop[2] = {0, 0};
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "WARNING: ThreadSanitizer: data race") || strncmp(line, "SUMMARY", 7) == 0) {
            if (in_loop[0] && in_loop[1] && !race) { /* the report before this line: both sides in the loop */
                race = 1;
                snprintf(where, len, "%s", here);
            }
            side = strncmp(line, "SUMMARY", 7) == 0 ? -1 : 0;
            in_loop[0] = in_loop[1] = 0;
            here[0] = '\0';
        } else if (strstr(line, "  Previous ")) side = 1;
        else if (strncmp(line, "  Thread ", 9) == 0 || strncmp(line, "  Location ", 11) == 0) side = -1;
        else if (side >= 0 && strstr(line, "_omp_fn")) in_loop[side] = 1;
        const char *at = strstr(line, "cholesky_serial.c:"); /* the first frame in the student's file */
        if (side >= 0 && at && !here[0])
            snprintf(here, sizeof here, "ThreadSanitizer's report: the race is at %.*s", (int)strcspn(at, " "), at);
        if (strstr(line, "FATAL: ThreadSanitizer") || strstr(line, "No such file") || strstr(line, "not found"))
            ran = -1; /* it could not run here, or it is not built (make test-stage-1 builds it) */
        else if (!ran) ran = 1;
    }
    pclose(f);
    if (!race && ran < 0) {
        snprintf(where, len, "ThreadSanitizer's test_openmp_race could not run here (make test-stage-1 builds it)");
        return -1;
    }
    return !race;
}

/* Pages the OpenMP batch must span for its sharing to show: with OPENMP_TEST_THREADS threads each
 * takes a contiguous range (or a few) of the batch, so that several pages are first touched by
 * other threads than the one that touches the first page. Smaller batches: the factors only. */
#define SHARING_PAGES 8

/* spotrf_batch_omp on A's copy (upper triangle poisoned) in memory that notes which thread touches
 * each page first: the threads that were first somewhere (-1: it cannot tell here), *pages. */
static int omp_batch_watched(int n, size_t count, const float *A, float *L, int *info, size_t *pages)
{
    const size_t bytes = count * (size_t)n * n * sizeof(float);
    float *W = first_touch_alloc(bytes);
    int threads = -1;
    *pages = 0;
    if (W) {
        memcpy(W, A, bytes);
        poison_strict_upper(n, count, W, UPPER_UNEQUAL);
        omp_set_num_threads(OPENMP_TEST_THREADS);
        if (first_touch_arm(W, bytes) == 0) {
            spotrf_batch_omp(n, count, W, info);
            threads = first_touch_disarm(pages);
        } else spotrf_batch_omp(n, count, W, info);
        memcpy(L, W, bytes);
        first_touch_free(W, bytes);
    } else {
        memcpy(L, A, bytes);
        poison_strict_upper(n, count, L, UPPER_UNEQUAL);
        omp_set_num_threads(OPENMP_TEST_THREADS);
        spotrf_batch_omp(n, count, L, info);
    }
    return threads;
}

/* After a failure with garbage above the diagonal: 1 when the same call on the symmetric input is
 * right, i.e. the code reads the upper triangle (the test then says so, not just "wrong"). */
static int reads_upper(int n, size_t count, const float *A, const int *expect, int openmp)
{
    const size_t elems = count * (size_t)n * n;
    float *L = host_alloc(elems * sizeof(float), "test buffers");
    int *info = host_alloc(count * sizeof(int), "test buffers");
    memcpy(L, A, elems * sizeof(float));
    if (openmp) {
        omp_set_num_threads(OPENMP_TEST_THREADS);
        spotrf_batch_omp(n, count, L, info);
    } else spotrf_batch_serial(n, count, L, info);
    factor_check first;
    const int right = check_batch(n, count, A, L, info, expect, &first, NULL, NULL) == 0;
    free(L);
    free(info);
    return right;
}

static void run_cpu(harness *h, int gpu, const char *gpu_reason)
{
    for (int f = 0; f < FAMILY_COUNT; f++)
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s];
            size_t count = count_for(n), elems = count * n * n;
            gen_params p = gen_params_make((family_t)f, harness_seed(1000 + n), 1e4, 0);
            float *A = host_alloc(elems * sizeof(float), "test buffers"),
                  *L = host_alloc(elems * sizeof(float), "test buffers"),
                  *C = host_alloc(elems * sizeof(float), "test buffers");
            int *info = host_alloc(count * sizeof(int), "test buffers"),
                *cinfo = host_alloc(count * sizeof(int), "test buffers"), *expect = planted(&p, n, count);
            gen_batch_host(&p, n, 0, count, A);
            for (int variant = 0; variant < 2; variant++) {
                char name[96];
                snprintf(name, sizeof name, "%s %s n=%d batch=%zu vs float64", variant ? "openmp" : "serial",
                         family_name((family_t)f), n, count);
                harness_group(h, variant ? "openmp" : "serial");
                harness_start(h, "%s", name);
                for (size_t b = 0; b < count; b++) info[b] = -99; /* poison */
                int threads = 0;
                size_t pages = 0;
                if (variant == 0) {
                    memcpy(L, A, elems * sizeof(float));
                    poison_strict_upper(n, count, L, UPPER_NAN); /* NaN: read, it spreads into the factor */
                    spotrf_batch_serial(n, count, L, info);
                } else threads = omp_batch_watched(n, count, A, L, info, &pages);
                factor_check first;
                double mr, mf;
                size_t bad = check_batch(n, count, A, L, info, expect, &first, &mr, &mf);
                if (bad && reads_upper(n, count, A, expect, variant))
                    snprintf(first.detail, sizeof first.detail,
                             "wrong with garbage above the diagonal, right with a symmetric input: your code reads the "
                             "upper triangle (only a[i n + j] with j <= i may be read) ");
                char errors[64] = ""; /* none computed when every matrix failed on its info */
                if (mr > 0 || mf > 0) snprintf(errors, sizeof errors, " max resid %.2g, max fwd %.2g", mr, mf);
                const int judged = variant && pages >= SHARING_PAGES;
                if (variant && bad) openmp_wrong++;
                if (variant && threads < 0 && elems * sizeof(float) >= SHARING_PAGES * 4096)
                    harness_skip(h, name, "this machine cannot show which threads touched the batch (first_touch.h)");
                else if (judged && !bad && threads < 2 && ++openmp_unshared)
                    harness_check(h, 0, name,
                                  "right factors, but one thread did all the work: the batch was not shared among "
                                  "the %d OpenMP threads (every one of its %zu pages was first touched by the same "
                                  "thread)",
                                  OPENMP_TEST_THREADS, pages);
                else if (judged)
                    harness_check(h, bad == 0, name, "%s%s, shared: %d threads first on its %zu pages",
                                  bad ? first.detail : "", errors, threads, pages);
                else harness_check(h, bad == 0, name, "%s%s", bad ? first.detail : "", errors);
            }
            char name[96];
            harness_group(h, "cuSOLVER agreement");
            snprintf(name, sizeof name, "cuSOLVER %s n=%d batch=%zu", family_name((family_t)f), n, count);
            if (!gpu) {
                harness_skip(h, name, gpu_reason);
            } else {
                harness_start(h, "%s", name);
                /* L still holds the OpenMP result. One matrix through cusolverDnSpotrf ... */
                int one = oracle_potrf_host(n, A, C);
                char detail[256] = "";
                double md1 = 0, md = 0;
                size_t bad = compare_factors(n, 1, A, L, info, C, &one, detail, sizeof detail, &md1);
                /* ... and the whole batch through cusolverDnSpotrfBatched. */
                oracle_potrf_batched_host(n, count, A, C, cinfo);
                if (!bad) bad = compare_factors(n, count, A, L, info, C, cinfo, detail, sizeof detail, &md);
                harness_check(h, bad == 0, name, "%s potrf and potrfBatched: max rel diff %.2g", detail,
                              md > md1 ? md : md1);
            }
            free(A);
            free(L);
            free(C);
            free(info);
            free(cinfo);
            free(expect);
        }
}

/* A NaN in one matrix: its info is > 0, the matrices around it are untouched by it. Once with
 * spotrf_batch_serial (group "serial") and once with spotrf_batch_omp (group "openmp"), so that a
 * student who has written only spotrf_serial so far loses nothing of "serial" to the OpenMP stub. */
static void run_nan(harness *h, int openmp)
{
    int n = 20;
    size_t count = 5, nn = (size_t)n * n;
    gen_params p = gen_params_make(FAMILY_SPD, harness_seed(77), 0, 0);
    float *A = host_alloc(count * nn * sizeof(float), "test buffers"),
          *L = host_alloc(count * nn * sizeof(float), "test buffers");
    int info[5];
    gen_batch_host(&p, n, 0, count, A);
    harness_group(h, openmp ? "openmp" : "serial");
    const char *name = openmp ? "NaN matrix fails alone (openmp)" : "NaN matrix fails alone";
    harness_start(h, "%s", name);
    A[2 * nn + 9 * n + 4] = A[2 * nn + 4 * n + 9] = NAN; /* matrix 2, element (9, 4) */
    memcpy(L, A, count * nn * sizeof(float));
    poison_strict_upper(n, count, L, UPPER_UNEQUAL);
    for (size_t b = 0; b < count; b++) info[b] = -99; /* poison */
    if (openmp) {
        omp_set_num_threads(OPENMP_TEST_THREADS);
        spotrf_batch_omp(n, count, L, info);
    } else spotrf_batch_serial(n, count, L, info);
    factor_check first;
    size_t bad = check_batch(n, count, A, L, info, NULL, &first, NULL, NULL);
    const int right = bad == 0 && info[2] == 10 && info[0] == 0 && info[1] == 0 && info[3] == 0 && info[4] == 0;
    if (openmp && !right) openmp_wrong++;
    harness_check(h, right, name, "infos %d %d %d %d %d (want 0 0 10 0 0) %s", info[0], info[1], info[2], info[3],
                  info[4], bad ? first.detail : "");
    free(A);
    free(L);
}

/* Pivots of exactly zero (gen_zero_pivot_host), and NaN ones (a NaN on the diagonal of an SPD
 * matrix), at the first, a middle and the last position, each between two positive definite
 * neighbours: info k + 1 for it, 0 and the full factor for them. (A test written d <= 0 lets the
 * NaN through: NaN <= 0 is false.) */
static const char *const PIVOT_PLACES[3] = {"first", "middle", "last"};

/* 1 when this place's pivot is not an earlier place's (small n: first, middle and last coincide). */
static int new_place(int n, int place)
{
    for (int before = 0; before < place; before++)
        if (gen_zero_pivot_place(n, before) == gen_zero_pivot_place(n, place)) return 0;
    return 1;
}

static void run_zero_pivots(harness *h)
{
    harness_group(h, "failing pivots");
    for (int nan = 0; nan < 2; nan++)
        for (int s = 0; s < NSIZES; s++)
            for (int place = 0; place < 3; place++) {
                const int n = sizes[s], k = gen_zero_pivot_place(n, place);
                const size_t count = 3, nn = (size_t)n * n;
                char name[96];
                snprintf(name, sizeof name, "%s pivot, %s (minor of order %d), n=%d", nan ? "NaN" : "zero",
                         PIVOT_PLACES[place], k + 1, n);
                if (!new_place(n, place)) continue; /* n = 1: one pivot; n = 2: the middle is the last */
                harness_start(h, "%s", name);
                float *A = host_alloc(count * nn * sizeof(float), "test buffers"),
                      *L = host_alloc(count * nn * sizeof(float), "test buffers");
                const uint64_t seed = harness_seed(3000 + 3 * n + place);
                gen_zero_pivot_host(n, -1, seed, A);
                gen_zero_pivot_host(n, nan ? -1 : k, seed + 1, A + nn);
                if (nan) A[nn + (size_t)k * n + k] = NAN;
                gen_zero_pivot_host(n, -1, seed + 2, A + 2 * nn);
                memcpy(L, A, count * nn * sizeof(float));
                poison_strict_upper(n, count, L, UPPER_NAN);
                int info[3] = {-99, -99, -99}, expect[3] = {0, k + 1, 0};
                spotrf_batch_serial(n, count, L, info);
                factor_check first;
                size_t bad = check_batch(n, count, A, L, info, expect, &first, NULL, NULL);
                harness_check(h, bad == 0, name, "infos %d %d %d (want 0 %d 0) %s", info[0], info[1], info[2], k + 1,
                              bad ? first.detail : "");
                free(A);
                free(L);
            }
}

static int zero_pivot_tests(void)
{
    int t = 0;
    for (int s = 0; s < NSIZES; s++)
        for (int place = 0; place < 3; place++) t += new_place(sizes[s], place);
    return 2 * t; /* zero and NaN */
}

/* ThreadSanitizer's verdict on the OpenMP batch (race_free), as one test of its own group: where
 * it cannot run, the group is not run here (counted and shown), never passed. */
static void run_race(harness *h, int race, const char *where)
{
    harness_group(h, "openmp races");
    const char *name = "no data race between the OpenMP threads (ThreadSanitizer)";
    if (openmp_wrong)
        harness_skip(h, name, "not judged until spotrf_batch_omp factors every batch right (group openmp)");
    else if (openmp_unshared)
        harness_skip(h, name, "not judged until spotrf_batch_omp shares the batch among the threads (group openmp)");
    else if (race < 0) harness_skip(h, name, where);
    else
        harness_check(h, race == 1, name, "%s%s",
                      race == 1 ? "test_openmp_race: none reported"
                                : "two threads wrote one variable without a barrier (a data race: make it private, "
                                  "e.g. declared inside the loop); ",
                      race == 1 ? "" : where);
}

int main(int argc, char **argv)
{
    (void)argc;
    harness h;
    harness_begin(&h, "stage-1");
    if (harness_extra()) {
        sizes[NSIZES++] = 5;
        sizes[NSIZES++] = 47;
        sizes[NSIZES++] = 97;
    }
    harness_plan(&h, "serial", FAMILY_COUNT * NSIZES + 1);
    harness_plan(&h, "failing pivots", zero_pivot_tests());
    harness_plan(&h, "openmp", FAMILY_COUNT * NSIZES + 1);
    harness_plan(&h, "openmp races", 1);
    harness_plan_gpu(&h, "cuSOLVER agreement", FAMILY_COUNT * NSIZES);
    char reason[256];
    int gpu = gpu_available(reason, sizeof reason);
    char race_where[512];
    const int race = race_free(argv[0], race_where, sizeof race_where);
    run_cpu(&h, gpu, reason);
    run_nan(&h, 0);
    run_nan(&h, 1);
    run_zero_pivots(&h);
    run_race(&h, race, race_where);
    return harness_end(&h);
}
