/* harness.h - the test harness every stage's tests use.
 *
 *   harness h; harness_begin(&h, "stage-1/serial");
 *   harness_check(&h, ok, "spd n=7", "resid %.3g", r);   one test: PASS or FAIL with a detail
 *   harness_skip(&h, "cusolver n=7", reason);            counted as skipped; reason printed once
 *   return harness_end(&h);                              prints "N passed, N failed, N skipped"
 *
 * FAIL lines are always printed, PASS lines only with TEST_VERBOSE=1. When the environment
 * variable TEST_RESULTS names a file, every test is appended to it as one tab-separated line
 * "suite <TAB> test <TAB> PASS|FAIL|SKIP <TAB> detail": the machine-readable record that
 * `make test` sums up (common/test_summary.py) for the points table. */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *suite;
    int passed, failed, skipped;
    int verbose;
    FILE *record;
    char last_skip_reason[256];
} harness;

void harness_begin(harness *h, const char *suite);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int harness_check(harness *h, int ok, const char *name, const char *fmt, ...);
void harness_skip(harness *h, const char *name, const char *reason);
int harness_end(harness *h); /* exit status: 0 if nothing failed, 1 otherwise */

/* 1 if a CUDA device can be used; otherwise 0 and the reason in reason[len]. */
int gpu_available(char *reason, size_t len);

#ifdef __cplusplus
}
#endif

#endif
