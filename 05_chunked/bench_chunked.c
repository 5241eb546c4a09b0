/* bench_chunked.c - stage 05 benchmark (make bench-stage-5): the stage 04 kernels on the chunked
 * layout, with one chunk per block (chunk = matrices per block: each block reads and writes one
 * contiguous range) and, for the thread kernel, a few other chunk sizes; n = 20..100, 1 GiB
 * batches, against cusolverDnSpotrfBatched and the copy roofline (batched_bench.h). */
#include "cli.h"
#include "batched_bench.h"
#include "layout_convert.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv, BENCH_BATCHED_USAGE("bench_chunked", "05"));
    int ns[16], count;
    bench_batched_env(ns, &count); /* a bad BENCH_NS or BENCH_BYTES fails here, GPU or not */
    env_stamp e;
    if (!bench_begin_gpu("stage-5", &e)) return 0;
    const bench_case cases[] = {
        {TILES_CONFIG(LOOK_RIGHT, 8, 16), 16}, {TILES_CONFIG(LOOK_LEFT, 8, 16), 16},
        {TILES_CONFIG(LOOK_TOP, 8, 16), 16},   {THREAD_CONFIG(4, 64, 2), 64},
        {THREAD_CONFIG(4, 64, 2), 32},         {THREAD_CONFIG(4, 64, 2), 256},
        {THREAD_CONFIG(2, 64, 1), 64},         {THREAD_CONFIG(8, 64, 2), 64},
        {THREAD_CONFIG(8, 32, 1), 32},
    };
    bench_batched(&e, "05", cases, sizeof cases / sizeof cases[0], rowmajor_to_chunked_tiled,
                  chunked_to_rowmajor_tiled);
    return 0;
}
