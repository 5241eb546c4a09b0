/* bench_interleaved.c - stage 04 benchmark (make bench-stage-4): the tile kernel in the three
 * looking orders and the thread-per-matrix kernel on the simple interleaved layout, n = 20..100,
 * 1 GiB batches, against cusolverDnSpotrfBatched and the copy roofline (batched_bench.h). */
#include "cli.h"
#include "batched_bench.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv, BENCH_BATCHED_USAGE("bench_interleaved", "04"));
    int ns[16], count;
    bench_batched_env(ns, &count); /* a bad BENCH_NS or BENCH_BYTES fails here, GPU or not */
    env_stamp e;
    if (!bench_begin_gpu("stage-4", &e)) return 0;
    const bench_case cases[] = {
        {TILES_CONFIG(LOOK_RIGHT, 8, 16), 0}, {TILES_CONFIG(LOOK_LEFT, 8, 16), 0}, {TILES_CONFIG(LOOK_TOP, 8, 16), 0},
        {TILES_CONFIG(LOOK_LEFT, 16, 4), 0},  {THREAD_CONFIG(2, 64, 1), 0},        {THREAD_CONFIG(4, 64, 2), 0},
        {THREAD_CONFIG(8, 64, 2), 0},         {THREAD_CONFIG(8, 32, 1), 0},
    };
    bench_batched(&e, "04", cases, sizeof cases / sizeof cases[0], NULL, NULL);
    return 0;
}
