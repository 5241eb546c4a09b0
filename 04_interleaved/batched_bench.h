/* batched_bench.h - the stage 04-05 benchmark, shared: for n = 20, 30, ..., 100, a batch of at
 * least 1 GiB (far larger than the L2) is generated on the GPU, and in the same run we time
 * cusolverDnSpotrfBatched on it (row-major), a device-to-device copy of the same bytes (the
 * roofline), the conversions row-major <-> each layout, and every case on its layout. Every
 * timed result is rechecked afterwards (all infos 0, sampled matrices against float64). */
#ifndef BATCHED_BENCH_H
#define BATCHED_BENCH_H

#include <stddef.h>
#include "batched_cholesky.h"
#include "report.h"

typedef struct {
    batched_config cfg;
    size_t chunk; /* 0: simple interleaved; else chunked with chunks of this many matrices */
} bench_case;

/* BENCH_NS / BENCH_BYTES in the environment shrink the run (e.g. BENCH_NS="20 100"). */
void bench_batched(const env_stamp *e, const char *stage, const bench_case *cases, int ncases);

#endif
