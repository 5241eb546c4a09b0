/* small_runs.h - what the sanitizer programs (make sanitize-stage-N) share: a tiny seeded SPD
 * batch, and the check of its factors. The programs run every kernel configuration of a stage
 * once on a few small matrices (odd n, a partial last block or chunk), so that compute-sanitizer
 * (memcheck, racecheck, synccheck, initcheck) sees every code path in seconds. A wrong factor is
 * reported too, but the sanitizer's own report is the point. */
#ifndef SMALL_RUNS_H
#define SMALL_RUNS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* count spd matrices of order n, row-major, from a fixed seed (free() them). */
float *small_batch(int n, size_t count);

/* Check count row-major factors against A; prints "FAILED <what>: <detail>" and returns 0 on the
 * first wrong one, else 1. Counts the run in small_runs_total. */
int small_check(const char *what, int n, size_t count, const float *A, const float *L, const int *info);

/* Prints "<program>: <runs> runs, <failed> wrong" and returns the exit status (0 or 1). */
int small_runs_end(const char *program);

#ifdef __cplusplus
}
#endif

#endif
