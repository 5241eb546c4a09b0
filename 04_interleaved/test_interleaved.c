/* test_interleaved.c - stage 04 tests (GPU; skipped without one). On the simple interleaved
 * layout: the tile kernel in every looking order x NB in {4, 8, 16} (and 32) and the
 * thread-per-matrix kernel x NB x unroll, over n in {1, 7, 20, 31, 33, 64, 100, 128} x batch in
 * {1, 3, 1000, 1025, 4096}, each batch mixing spd, ill-conditioned, non-SPD and one NaN matrix,
 * all against cusolverDnSpotrfBatched (batched_testing.h says what is checked); a batch past
 * 2^31 floats and a 1 GiB one, checked by sampling; refused configurations. Both kernels again on
 * chunks of 32 (graded apart: a kernel must use chunked_place). */
#include <stdio.h>
#include "batched_testing.h"
#include "cuda_check.h"

/* per_block values that do not divide the batch sizes, so the last block is always partial */
static batched_config configs[32] = {
    TILES_CONFIG(LOOK_RIGHT, 4, 16), TILES_CONFIG(LOOK_LEFT, 4, 16), TILES_CONFIG(LOOK_TOP, 4, 16),
    TILES_CONFIG(LOOK_RIGHT, 8, 5),  TILES_CONFIG(LOOK_LEFT, 8, 5),  TILES_CONFIG(LOOK_TOP, 8, 5),
    TILES_CONFIG(LOOK_RIGHT, 16, 3), TILES_CONFIG(LOOK_LEFT, 16, 3), TILES_CONFIG(LOOK_TOP, 16, 3),
    TILES_CONFIG(LOOK_LEFT, 32, 1),  THREAD_CONFIG(2, 32, 1),        THREAD_CONFIG(4, 64, 2),
    THREAD_CONFIG(8, 96, 4),         THREAD_CONFIG(4, 33, 1),
};
static int ncfg; /* set in main from the table */

/* Configurations the check must refuse (each one test: the plan is this table's length). */
static const struct {
    batched_config c;
    int n;
    const char *what;
} bad[] = {
    {THREAD_CONFIG(4, 64, 2), 0, "n = 0"},
    {THREAD_CONFIG(4, 64, 2), BATCHED_MAX_N + 1, "n past BATCHED_MAX_N"},
    {TILES_CONFIG(LOOK_LEFT, 12, 1), 8, "tile NB = 12 (not compiled)"},
    {TILES_CONFIG(LOOK_LEFT, 8, 17), 8, "tiles: 17 x 8 x 8 threads > 1024"},
    {TILES_CONFIG((looking_order)5, 8, 1), 8, "unknown looking order"},
    {THREAD_CONFIG(16, 64, 1), 8, "thread NB = 16 (not compiled)"},
    {THREAD_CONFIG(4, 64, 3), 8, "unroll = 3 (not compiled)"},
    {THREAD_CONFIG(4, 512, 1), 8, "512 threads per block (thread kernel: at most 256)"},
};
#define N_REFUSALS ((int)(sizeof bad / sizeof bad[0]))

static void test_refusals(harness *h)
{
    char said[512]; /* the launchers' messages, kept from the test output (course_report_capture) */
    course_report_capture(said, sizeof said);
    /* A refusal comes before any CUDA call, so these run without a GPU too; the matrix and info
     * pointers are never touched (NULL: a call that is not refused fails loudly). */
    for (int k = 0; k < N_REFUSALS; k++) {
        char msg[256], name[128];
        int refused = batched_config_check(&bad[k].c, bad[k].n, msg, sizeof msg) == -1 && msg[0] &&
                      potrf_batched(&bad[k].c, bad[k].n, 1, 1, NULL, NULL) == -1;
        snprintf(name, sizeof name, "refuses %s", bad[k].what);
        harness_check(h, refused, name, "message: %s", msg);
    }
    course_report_capture(NULL, 0);
}

int main(void)
{
    harness h;
    harness_begin(&h, "stage-4");
    int ns[12] = {1, 7, 20, 31, 33, 64, 100, 128}, nn = harness_given_ints(ns, HARNESS_LEN(ns));
    size_t batches[8] = {1, 3, 1000, 1025, 4096}, interleaved[] = {0};
    int nb = harness_given_sizes(batches, HARNESS_LEN(batches));
    ncfg = given_configs(configs, HARNESS_LEN(configs));
    add_hidden_sizes(ns, &nn, batches, &nb, NULL, NULL, configs, &ncfg);
    const int runs = nn * nb;
    /* The same kernels on chunks of 32 matrices (the last one partial), so that a kernel must find
     * its matrix through chunked_place: one that hard-codes the interleaved index passes every run
     * above and fails every one of these. */
    const int chunk_ns[] = {7, 33, 100};
    const size_t chunk_batches[] = {1000, 1025}, chunk32[] = {32};
    const int chunk_runs = HARNESS_LEN(chunk_ns) * HARNESS_LEN(chunk_batches);
    const char *const groups[] = {"tile kernel",
                                  "thread-per-matrix kernel",
                                  "cuSOLVER agreement",
                                  "batch past 2^31 floats",
                                  "refused configurations",
                                  batched_chunks_group_name(BATCHED_TILES),
                                  batched_chunks_group_name(BATCHED_THREAD)};
    harness_plan(&h, groups[0], count_kernel_configs(configs, ncfg, BATCHED_TILES) * runs + 1);
    harness_plan(&h, groups[1], count_kernel_configs(configs, ncfg, BATCHED_THREAD) * runs);
    harness_plan(&h, groups[2], runs + chunk_runs);
    harness_plan(&h, groups[3], 1);
    harness_plan(&h, groups[4], N_REFUSALS);
    harness_plan(&h, groups[5], count_kernel_configs(configs, ncfg, BATCHED_TILES) * chunk_runs);
    harness_plan(&h, groups[6], count_kernel_configs(configs, ncfg, BATCHED_THREAD) * chunk_runs);
    harness_group(&h, groups[4]); /* host checks: with or without a GPU */
    test_refusals(&h);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        for (int g = 0; g < HARNESS_LEN(groups); g++)
            if (g != 4) harness_skip_rest(&h, groups[g], reason);
        return harness_end(&h);
    }
    test_configs(&h, batched_kernel_find, "interleaved", configs, ncfg, ns, nn, batches, nb, interleaved, 1);
    test_configs_on_chunks(&h, batched_kernel_find, "interleaved", configs, ncfg, chunk_ns, HARNESS_LEN(chunk_ns),
                           chunk_batches, HARNESS_LEN(chunk_batches), chunk32, 1);
    const batched_config fast = THREAD_CONFIG(4, 64, 2), tiles = TILES_CONFIG(LOOK_TOP, 8, 8);
    /* 2.4e9 floats: past 32-bit offsets. Needs ~19 GiB: on a smaller GPU it is skipped, so its
     * group is worth 0 points (a grade must not depend on the GPU's memory). */
    if (harness_needs(&h, groups[3], groups[1]))
        test_large_batch(&h, batched_kernel_find, groups[3], &fast, 20, 0, (size_t)9 << 30, 64);
    test_large_batch(&h, batched_kernel_find, groups[0], &tiles, 33, 0, (size_t)1 << 30, 32);
    return harness_end(&h);
}
