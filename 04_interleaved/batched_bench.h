/* batched_bench.h - the stage 04-05 benchmark, shared: for n = 20, 30, ..., 100, a batch of at
 * least 1 GiB (far larger than the L2) is generated on the GPU, and in the same run we time
 * cusolverDnSpotrfBatched on it (row-major), a device-to-device copy of the same bytes (the
 * roofline), the conversions row-major <-> each layout, and every case on its layout. Every
 * timed result is checked before its row is written (all infos 0, sampled matrices against
 * float64; a conversion must give back the input): a wrong result gets no row. */
#ifndef BATCHED_BENCH_H
#define BATCHED_BENCH_H

#include <stddef.h>
#include "batched_cholesky.h"
#include "gpu_batch.h" /* layout_converter */
#include "report.h"

typedef struct {
    batched_config cfg;
    size_t chunk; /* 0: simple interleaved; else chunked with chunks of this many matrices */
} bench_case;

/* A layout converter: rowmajor_to_chunked_device and its pair (common/gpu_batch.h), or stage
 * 05's tiled ones. */

/* BENCH_NS / BENCH_BYTES in the environment shrink the run (e.g. BENCH_NS="20 100"). The
 * conversion rows time to_layout / to_rowmajor (NULL: the provided converters of common/). */
#define BENCH_BATCHED_USAGE(prog, stage)                                              \
    "usage: " prog "   (stage " stage " benchmark, configured by the environment)\n"  \
    "  BENCH_NS=\"20 60 100\"   the orders to run, 1..1024 (default 20 30 ... 100)\n" \
    "  BENCH_BYTES=B           bytes per batch, 1 MiB .. 1 TiB (default 1 GiB)\n"     \
    "  BENCH_CSV=FILE          append the rows there (default build/bench.csv)\n"
/* The orders (ns, *count) and bytes per batch the environment asks for; a bad value exits 2 with a
 * message. Called before the GPU is looked for too, so that a typo fails on any machine. */
size_t bench_batched_env(int ns[16], int *count);
void bench_batched(const env_stamp *e, const char *stage, const bench_case *cases, int ncases,
                   layout_converter to_layout, layout_converter to_rowmajor);

#endif
