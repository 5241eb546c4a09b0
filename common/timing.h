/* timing.h - honest timings (the protocol of the top README, "Where results appear").
 *
 * time_gpu(): for each of warmup + repeats runs, call restore (untimed: put the pristine input
 * back), flush the L2 cache by writing a buffer twice its size (untimed), then time run between
 * two CUDA events on the default stream. Warm-up runs are not counted. Reports the median and
 * the minimum of the repeats.
 * time_copy_roofline(): the same for cudaMemcpy of `bytes` device to device: every byte read once
 * and written once, the memory-bound floor that a batched factorization cannot beat by much.
 * time_host(): wall clock, same protocol, for the CPU stage. */
#ifndef TIMING_H
#define TIMING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double median_ms, min_ms;
    int repeats;
    /* What report_row may claim about the result that was timed: TIMING_REFERENCE for a library
     * call, a copy or a conversion (nothing to verify); otherwise the caller checks the result
     * after timing and sets TIMING_VERIFIED or TIMING_WRONG. A wrong result never becomes a row. */
    int verified;
} timing_stats;

enum { TIMING_WRONG = 0, TIMING_VERIFIED = 1, TIMING_REFERENCE = -1 };

typedef void (*timed_fn)(void *ctx);

#define TIMING_WARMUP 2
#define TIMING_REPEATS 7

timing_stats time_gpu(timed_fn run, timed_fn restore, void *ctx, int warmup, int repeats);

/* time_gpu() for work that overwrites its input (an in-place factorization): before every run,
 * outside the timed region, copy `bytes` from d_pristine to d_work on the device. */
timing_stats time_gpu_restoring(timed_fn run, void *ctx, void *d_work, const void *d_pristine, size_t bytes);
timing_stats time_host(timed_fn run, timed_fn restore, void *ctx, int warmup, int repeats);
timing_stats time_copy_roofline(size_t bytes, int repeats);

/* Write over a buffer of twice the L2 size so the next kernel starts with a cold cache. */
void l2_flush(void);

#ifdef __cplusplus
}
#endif

#endif
