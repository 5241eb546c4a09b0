/* test_tuning.c - stage 06 tests (GPU; skipped without one). Through the same machinery as stages
 * 04-05 (batched_testing.h: mixed batches of spd, ill-conditioned and non-SPD matrices with one
 * NaN, poisoned infos, a guard zone after the batch, every factor against
 * cusolverDnSpotrfBatched and a sample against float64):
 *   rows kernel     every compiled instance (NMAX x threads per matrix), two blocks sizes each,
 *                   over n in {1, 2, 7, 16, 31, 32, 33, 47, 64, 72, 96, 97, 100, 128} x batch in
 *                   {1, 3, 1000, 1025} x chunk in {1, 7, 32, interleaved} (blocks that straddle
 *                   chunks, partial last chunks and blocks); a batch past 2^31 floats; 1 GiB
 *   thread-per-matrix kernel   the right- and top-looking orders, NB x unroll
 *   tuned table     the checked-in table reads back, gives a valid configuration for every
 *                   n = 1..128 and batch size, and its picks factor correctly
 *   refused configurations     the rows kernel's limits */
#include <stdio.h>
#include <string.h>
#include "batched_testing.h"
#include "cuda_check.h"
#include "family.h"
#include "cyclic_kernel.h"
#include "rows_kernel.h"
#include "tuned.h"

#define MAX_CFG 40

/* The thread kernel in its new orders; per_block values that divide none of the batches. */
static const batched_config thread_orders[] = {
    {BATCHED_THREAD, LOOK_RIGHT, 4, 33, 1, 0}, {BATCHED_THREAD, LOOK_RIGHT, 8, 64, 2, 0}, {BATCHED_THREAD, LOOK_RIGHT, 2, 96, 4, 0},
    {BATCHED_THREAD, LOOK_TOP, 2, 32, 4, 0},   {BATCHED_THREAD, LOOK_TOP, 4, 64, 2, 0},   {BATCHED_THREAD, LOOK_TOP, 8, 48, 1, 0},
};
#define N_THREAD_ORDERS 6

/* Every rows instance that takes n, each with the smallest block (32 threads or T) and one of
 * three times as many matrices (so that per_block divides none of the batches). */
static int rows_configs(int n, batched_config *out)
{
    int k = 0;
    for (int s = 0; s < ROWS_NSIZES; s++) {
        if (n > rows_sizes[s].nmax) continue;
        for (int t = 0; t < ROWS_MAX_THREADS_PER_SIZE; t++) {
            const int T = rows_sizes[s].threads[t];
            if (!T) continue;
            const int small = T >= 32 ? 1 : 32 / T;
            const int pbs[2] = {small, 3 * small};
            for (int p = 0; p < 2; p++) { /* the small block with the steps written out where compiled */
                batched_config c = {BATCHED_ROWS, LOOK_LEFT, 0, pbs[p], p == 0 && n <= ROWS_FULL_N ? 0 : 1, T};
                char msg[256];
                if (batched_config_check(&c, n, msg, sizeof msg) == 0) out[k++] = c;
            }
        }
        break;
    }
    return k;
}

/* Every cyclic instance that takes n (the fewest slots for each grid), with one and three times
 * the smallest block (per_block then divides none of the batches). */
static int cyclic_configs(int n, batched_config *out)
{
    int k = 0;
    for (int s = 0; s < CYCLIC_NGRIDS; s++) {
        const int T = cyclic_grids[s].g * cyclic_grids[s].g, small = T >= 32 ? 1 : 32 / T;
        const int pbs[2] = {small, 3 * small};
        for (int p = 0; p < 2; p++) {
            batched_config c = {BATCHED_CYCLIC, LOOK_LEFT, 0, pbs[p], 0, T};
            char msg[256];
            if (batched_config_check(&c, n, msg, sizeof msg) == 0) out[k++] = c;
        }
    }
    return k;
}

static void test_refusals(harness *h)
{
    float *d_A;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, 64 * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, 64 * sizeof(int)));
    const struct { batched_config c; int n; const char *what; } bad[] = {
        {{BATCHED_ROWS, LOOK_LEFT, 0, 1, 1, 8}, 100, "threads = 8 at n = 100 (not compiled)"},
        {{BATCHED_ROWS, LOOK_LEFT, 0, 1, 1, 64}, 129, "n = 129 (past the largest instance)"},
        {{BATCHED_ROWS, LOOK_LEFT, 0, 1, 0, 64}, 100, "steps written out at n = 100 (not compiled)"},
        {{BATCHED_ROWS, LOOK_LEFT, 0, 3, 1, 8}, 20, "3 x 8 threads per block (not a whole warp)"},
        {{BATCHED_ROWS, LOOK_LEFT, 0, 4, 1, 128}, 100, "4 x 128 threads per block (more than 256)"},
        {{BATCHED_ROWS, LOOK_LEFT, 0, 4, 1, 64}, 128, "4 matrices of order 128 per block (shared memory)"},
        {{BATCHED_CYCLIC, LOOK_LEFT, 0, 1, 0, 32}, 20, "cyclic kernel, 32 threads (not a square grid)"},
        {{BATCHED_CYCLIC, LOOK_LEFT, 0, 1, 0, 16}, 65, "cyclic kernel, 4 x 4 threads at n = 65"},
        {{BATCHED_CYCLIC, LOOK_LEFT, 0, 2, 0, 256}, 100, "cyclic kernel, 2 x 256 threads per block"},
        {{BATCHED_CYCLIC, LOOK_LEFT, 0, 1, 0, 64}, 129, "cyclic kernel, n = 129"},
        {{BATCHED_THREAD, (looking_order)7, 4, 64, 1, 0}, 20, "thread kernel, unknown looking order"},
        {{BATCHED_THREAD, LOOK_TOP, 16, 64, 1, 0}, 20, "thread top-looking NB = 16 (not compiled)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char msg[256], name[128];
        int refused = batched_config_check(&bad[k].c, bad[k].n, msg, sizeof msg) == -1 && msg[0] &&
                      potrf_batched(&bad[k].c, bad[k].n, 1, 1, d_A, d_info) == -1;
        snprintf(name, sizeof name, "refuses %s", bad[k].what);
        harness_check(h, refused, name, "message: %s", msg);
    }
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
}

/* The checked-in table: every entry valid (tuned_table_read checks them), every n and batch gets a
 * configuration, and the picks for the two classroom sizes factor a mixed batch correctly. */
#define TABLE_NS 5
static const int table_ns[TABLE_NS] = {3, 20, 47, 100, 128};

static void test_table(harness *h)
{
    const tuned_table *t = tuned_table_default();
    harness_check(h, t != NULL, "the tuned table reads back", t ? "%d entries, measured on %s" : "unreadable (see stderr)",
                  t ? t->count : 0, t ? t->gpu : "");
    int all = t != NULL, first_bad = 0;
    size_t bad_batch = 0;
    for (int rm = 0; rm < 2; rm++)
    for (int n = 1; n <= 128 && all; n++)
        for (size_t batch = 1; batch <= ((size_t)1 << 28) && all; batch *= 4) {
            batched_config cfg;
            size_t chunk;
            char why[256], msg[256];
            if (tuned_choose(t, n, batch, rm, &cfg, &chunk, why, sizeof why) != 0 || batched_config_check(&cfg, n, msg, sizeof msg) != 0)
                all = 0, first_bad = n, bad_batch = batch;
        }
    harness_check(h, all, "auto has a valid configuration for every n = 1..128 and batch 1..2^28",
                  all ? "yes" : "none for n = %d, batch %zu", first_bad, bad_batch);
    for (int a = 0; a < TABLE_NS; a++)
        for (int cls = 0; cls < 2; cls++) {
            char name[160], detail[320] = "no table";
            const size_t batch = cls ? 1500 : 1001; /* near the 1024 and 16384 classes, not multiples of anything;
                                                       the second for row-major data */
            batched_config cfg;
            size_t chunk = 0;
            int ok = t && tuned_choose(t, table_ns[a], batch, cls, &cfg, &chunk, detail, sizeof detail) == 0;
            snprintf(name, sizeof name, "auto n=%d batch=%zu", table_ns[a], batch);
            if (ok) {
                test_batch tb;
                test_batch_mixed(&tb, table_ns[a], batch, harness_seed(6000 + table_ns[a]));
                layout_run r;
                layout_run_begin(&r, &tb, chunk ? chunk : batch);
                char cname[96];
                tuned_format(&cfg, chunk, cname, sizeof cname);
                ok = layout_run_check(&r, &cfg, detail, sizeof detail);
                snprintf(name + strlen(name), sizeof name - strlen(name), " (%s)", cname);
                layout_run_end(&r);
                test_batch_free(&tb);
            }
            harness_check(h, ok, name, "%s", detail);
        }
}

int main(void)
{
    harness h;
    family_init();
    harness_begin(&h, "stage-6");
    int ns[20] = {1, 2, 7, 16, 31, 32, 33, 47, 64, 72, 96, 97, 100, 128}, nn = 14, nb = 4, nc = 4;
    size_t batches[8] = {1, 3, 1000, 1025}, chunks[8] = {1, 7, 32, 0};
    if (harness_extra()) { /* the hidden grading sizes */
        ns[nn++] = 5;
        ns[nn++] = 50;
        ns[nn++] = 113;
        batches[nb++] = 2049;
        chunks[nc++] = 17;
    }
    batched_config cfg[MAX_CFG];
    int rows_tests = 0;
    for (int a = 0; a < nn; a++) rows_tests += rows_configs(ns[a], cfg) * nb * nc;
    int cyclic_tests = 0;
    for (int a = 0; a < nn; a++) cyclic_tests += cyclic_configs(ns[a], cfg) * nb * nc;
    const char *const groups[] = {"rows kernel", "thread-per-matrix kernel", "cuSOLVER agreement", "batch past 2^31 floats",
                                  "tuned table", "refused configurations", "cyclic kernel"};
    harness_plan(&h, groups[0], rows_tests + 1);
    harness_plan(&h, groups[1], N_THREAD_ORDERS * nn * nb * nc);
    harness_plan(&h, groups[2], 3 * nn * nb);
    harness_plan(&h, groups[3], 1);
    harness_plan(&h, groups[4], 2 + 2 * TABLE_NS);
    harness_plan(&h, groups[5], 12);
    harness_plan(&h, groups[6], cyclic_tests + 1);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        for (int g = 0; g < 7; g++) harness_skip_rest(&h, groups[g], reason);
        return harness_end(&h);
    }
    for (int a = 0; a < nn; a++) {
        const int k = rows_configs(ns[a], cfg);
        test_configs(&h, "rows", cfg, k, &ns[a], 1, batches, nb, chunks, nc);
    }
    for (int a = 0; a < nn; a++) {
        const int k = cyclic_configs(ns[a], cfg);
        test_configs(&h, "cyclic", cfg, k, &ns[a], 1, batches, nb, chunks, nc);
    }
    test_configs(&h, "orders", thread_orders, N_THREAD_ORDERS, ns, nn, batches, nb, chunks, nc);
    const batched_config rows20 = {BATCHED_ROWS, LOOK_LEFT, 0, 8, 0, 8}, rows100 = {BATCHED_ROWS, LOOK_LEFT, 0, 1, 1, 64};
    /* 2.4e9 floats: past 32-bit offsets (skipped, and worth 0 points, on GPUs with less memory). */
    test_large_batch(&h, groups[3], &rows20, 20, 8, (size_t)9 << 30, 64);
    test_large_batch(&h, groups[0], &rows100, 100, 1, (size_t)1 << 30, 32);
    const batched_config cyclic128 = {BATCHED_CYCLIC, LOOK_LEFT, 0, 1, 0, 64};
    test_large_batch(&h, groups[6], &cyclic128, 128, 1, (size_t)1 << 30, 32);
    harness_group(&h, groups[4]);
    test_table(&h);
    harness_group(&h, groups[5]);
    test_refusals(&h);
    return harness_end(&h);
}
