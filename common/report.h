/* report.h - benchmark result rows with an environment stamp.
 *
 * Every row says what ran (stage, variant, n, batch), how long (median and min of repeats),
 * the rate (GFLOP/s with the LAPACK count n^3/3 + n^2/2 + n/6 per matrix), how it compares with
 * cuSOLVER timed in the same run on the same matrices (x cuSOLVER = t_cusolver / t), and the
 * fraction of the copy roofline (t_copy / t, where t_copy is a device-to-device copy of the same
 * bytes). Rows go to stdout as they are measured (progress) and, as CSV, to the file named by
 * the environment variable BENCH_CSV (default build/bench.csv), each with the GPU, its compute
 * capability and SM count, the driver and runtime versions, the host and the commit
 * (environment variable GIT_COMMIT, set by the Makefile). */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char gpu[256]; /* "none" without a GPU */
    int cc_major, cc_minor, sms;
    size_t l2_bytes, mem_bytes;
    int driver, runtime; /* e.g. 13000 */
    char commit[48];
    char host[64];
} env_stamp;

void env_stamp_read(env_stamp *e);
void env_stamp_print(const env_stamp *e); /* one line "# GPU ..., CUDA ..., commit ..." */

/* Start of a GPU-only benchmark: with a GPU, read and print the stamp and return 1; without
 * one, print "SKIP <stage> bench: <reason>" (also into $BENCH_CSV.skipped, for the closing summary
 * of bench_table.py) and return 0. */
int bench_begin_gpu(const char *stage, env_stamp *e);

/* t_cusolver_ms / t_copy_ms <= 0 mean "not measured" (printed as '-'). A row whose t.verified is
 * TIMING_WRONG is not written: it prints "NOT VERIFIED" instead (a kernel that does nothing must
 * not look fast). The CSV column `verified` says "yes" (checked after timing) or "reference". */
void report_row(const env_stamp *e, const char *stage, const char *variant, int n, size_t batch, timing_stats t,
                double t_cusolver_ms, double t_copy_ms);

#ifdef __cplusplus
}
#endif

#endif
