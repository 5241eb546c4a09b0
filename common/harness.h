/* harness.h - the test harness every stage's tests use.
 *
 *   harness h; harness_begin(&h, "stage-1");
 *   harness_plan(&h, "serial", 66);                      every group's test count, BEFORE any test
 *   harness_plan(&h, "openmp", 66);
 *   harness_group(&h, "serial");                         the group the next tests belong to
 *   harness_start(&h, "spd n=7");                        (optional) the test about to run, so that a
 *                                                        hang or crash in it is reported by this name
 *   harness_check(&h, ok, "spd n=7", "resid %.3g", r);   one test: PASS or FAIL with a detail
 *   harness_skip(&h, "cusolver n=7", reason);            one test skipped (reason printed once)
 *   harness_skip_rest(&h, "openmp", reason);             every planned test of a group not yet run
 *   return harness_end(&h);                              prints "N passed, N failed, N skipped"
 *
 * Why plans: grading must not be foolable. A program that crashes, calls exit() or hangs stops
 * reporting; because every group's count was written down first, the runner
 * (common/course/run_suite.py) turns each planned test that never reported into a FAIL. A group that
 * reports fewer or more tests than it planned fails at harness_end too.
 *
 * Groups are learning goals; their weights live in the stage's points.tsv, not here.
 * FAIL lines are always printed, PASS lines only with TEST_VERBOSE=1. When the environment
 * variable TEST_RESULTS names a file, the harness appends tab-separated records to it:
 *   PLAN <group> <count>      TEST <group> <name> PASS|FAIL|SKIP <detail>      END <program>
 *   START <group> <name>      (harness_start: the test now running; the runner names it if it hangs)
 * which run_suite.py and test_summary.py turn into the points table. */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HARNESS_MAX_GROUPS 16

typedef struct {
    const char *suite;
    int passed, failed, skipped;
    int verbose;
    FILE *record;
    char last_skip_reason[256];
    int ngroups, current; /* current: index of the group of the next test */
    const char *group_name[HARNESS_MAX_GROUPS];
    int planned[HARNESS_MAX_GROUPS], reported[HARNESS_MAX_GROUPS], failures[HARNESS_MAX_GROUPS];
    int counting, counted; /* inside harness_count: checks are only counted */
} harness;

void harness_begin(harness *h, const char *suite);
void harness_plan(harness *h, const char *group, int count);
/* The same for a group that runs on a GPU only: where there is none and the program stops before
 * reaching it (a crash), its tests count as not run (SKIP) rather than failed (run_suite.py). */
void harness_plan_gpu(harness *h, const char *group, int count);
void harness_group(harness *h, const char *group);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void harness_start(harness *h, const char *fmt, ...);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int harness_check(harness *h, int ok, const char *name, const char *fmt, ...);
void harness_skip(harness *h, const char *name, const char *reason);
void harness_skip_rest(harness *h, const char *group, const char *reason);
int harness_end(harness *h); /* exit status: 0 if nothing failed and every plan was met, 1 otherwise */

/* How many tests of a group have failed so far (0 for a group never planned). */
int harness_failures(const harness *h, const char *group);
/* A sanity group (0 points) that runs the student's code of a graded group: when that group has
 * failed a test, the rest of the sanity group is skipped with the reason, and 0 is returned, so
 * that a student's bug fails only graded tests; else 1 (run it). */
int harness_needs(harness *h, const char *group, const char *graded);
/* The same with the answer of a probe (ok: a quick check of that code passed; what: the code, for
 * the reason, e.g. "your stage 04 tile kernel"). */
int harness_requires(harness *h, const char *group, int ok, const char *what);

/* The length of a table the tests iterate: plans come from it, never from a number beside it. */
#define HARNESS_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* A list the hidden grading sizes may extend (an array with room: the given entries first, zeros
 * after): how many are given. */
static inline int harness_given_ints(const int *a, int room)
{
    int k = 0;
    while (k < room && a[k] > 0) k++;
    return k;
}
static inline int harness_given_sizes(const size_t *a, int room)
{
    int k = 0;
    while (k < room && a[k] > 0) k++;
    return k;
}

/* A group's plan from its own tests, for tests cheap enough to run twice (no GPU):
 *   harness_plan(&h, "file format", harness_count(&h, file_format_tests));
 * runs file_format_tests(&h) once with every check and skip only counted (nothing printed or
 * recorded, harness_group ignored) and returns the count, so that no number is kept by hand. */
int harness_count(harness *h, void (*tests)(harness *));

/* Hidden variants, for grading (make grade): GRADE_SEED=S in the environment changes every seed
 * the tests draw matrices from (harness_seed), and GRADE_EXTRA=1 asks the tests to add sizes a
 * student cannot have tuned for (harness_extra: n = 5, 47, 97; batch 2049; chunk 17; 7 matrices
 * per block). Hard-coded answers fail them. */
unsigned long long harness_seed(unsigned long long base);
int harness_extra(void);

/* 1 if a CUDA device can be used; otherwise 0 and the reason in reason[len], as it is: "no NVIDIA
 * driver" (none installed), "NVIDIA driver older than the CUDA runtime", or "no CUDA device". */
int gpu_available(char *reason, size_t len);

#ifdef __cplusplus
}
#endif

#endif
