/* test_chunked.c - stage 05 tests (GPU; skipped without one). The stage 04 kernels on the chunked
 * interleaved layout: every looking order x NB for the tile kernel and the thread-per-matrix
 * kernel, over n in {1, 7, 20, 31, 33, 64, 100, 128} x batch in {1, 3, 1000, 1025, 4096} x
 * chunk in {1, 8, 32, 64, 100} - chunk 1 is row-major, and most batches end in a partial chunk -
 * each batch mixing spd, ill-conditioned, non-SPD and one NaN matrix, against
 * cusolverDnSpotrfBatched. The input is packed and the result unpacked by the test's own code
 * (batched_testing.h), not by layout.h, so an index bug cannot hide on both sides. Then a batch
 * past 2^31 floats and a 1 GiB one in chunks, checked by sampling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batched_testing.h"
#include "cuda_check.h"
#include "layout_convert.h"
#include "host_alloc.h"

/* per_block deliberately unrelated to the chunk: blocks straddle chunks and the last chunk */
static batched_config configs[16] = {
    TILES_CONFIG(LOOK_RIGHT, 8, 5), TILES_CONFIG(LOOK_LEFT, 8, 5),   TILES_CONFIG(LOOK_TOP, 8, 5),
    TILES_CONFIG(LOOK_TOP, 4, 16),  TILES_CONFIG(LOOK_RIGHT, 16, 3), THREAD_CONFIG(4, 64, 2),
    THREAD_CONFIG(8, 32, 1),
};
static int ncfg; /* set in main from the table */

/* The tiled converters (this stage's exercise) against the test's own packing formula, for odd
 * n, odd batches, chunks that divide nothing and the two extremes (1: row-major, batch:
 * interleaved), with poisoned outputs. */
static const int conv_ns[] = {1, 5, 20, 33};
static const size_t conv_batches[] = {1, 31, 1025}, conv_chunks[] = {1, 7, 32, 100, 0 /* = batch */};
#define CONV_NS HARNESS_LEN(conv_ns)
#define CONV_BATCHES HARNESS_LEN(conv_batches)
#define CONV_CHUNKS HARNESS_LEN(conv_chunks)
#define CONV_TESTS (CONV_NS * CONV_BATCHES * CONV_CHUNKS * 2) /* both directions */

static void test_converters(harness *h)
{
    harness_group(h, "tiled layout converters");
    for (int a = 0; a < CONV_NS; a++)
        for (int bi = 0; bi < CONV_BATCHES; bi++) {
            const int n = conv_ns[a];
            const size_t batch = conv_batches[bi], total = batch * n * n;
            float *rm = host_alloc(total * sizeof(float), "test buffers"),
                  *want = host_alloc(total * sizeof(float), "test buffers"),
                  *got = host_alloc(total * sizeof(float), "test buffers");
            float *d_in, *d_out;
            CUDA_CHECK(cudaMalloc((void **)&d_in, total * sizeof(float)));
            CUDA_CHECK(cudaMalloc((void **)&d_out, (total + 64) * sizeof(float)));
            for (size_t k = 0; k < total; k++) rm[k] = (float)(k % 1000003) + 0.5f; /* every value distinct */
            for (int ci = 0; ci < CONV_CHUNKS; ci++) {
                const size_t chunk = conv_chunks[ci] ? conv_chunks[ci] : batch;
                pack_chunked_independent(n, batch, chunk, rm, want);
                for (int dir = 0; dir < 2; dir++) {
                    const float *src = dir ? want : rm, *expect = dir ? rm : want;
                    CUDA_CHECK(cudaMemcpy(d_in, src, total * sizeof(float), cudaMemcpyHostToDevice));
                    CUDA_CHECK(cudaMemset(d_out, 0xff, (total + 64) * sizeof(float))); /* poison: NaN, and a guard */
                    if (dir) CALL_CHECK(chunked_to_rowmajor_tiled(n, batch, chunk, d_in, d_out, cudaStreamLegacy));
                    else CALL_CHECK(rowmajor_to_chunked_tiled(n, batch, chunk, d_in, d_out, cudaStreamLegacy));
                    CUDA_CHECK(cudaDeviceSynchronize());
                    CUDA_CHECK(cudaMemcpy(got, d_out, total * sizeof(float), cudaMemcpyDeviceToHost));
                    unsigned guard[64];
                    CUDA_CHECK(cudaMemcpy(guard, d_out + total, sizeof guard, cudaMemcpyDeviceToHost));
                    size_t bad = total;
                    for (size_t k = 0; k < total && bad == total; k++)
                        if (memcmp(&got[k], &expect[k], sizeof(float)) != 0) bad = k;
                    int guard_ok = 1;
                    for (int g = 0; g < 64; g++) guard_ok &= guard[g] == 0xffffffffu;
                    char name[128];
                    snprintf(name, sizeof name, "%s n=%d batch=%zu chunk=%zu",
                             dir ? "chunked -> row-major" : "row-major -> chunked", n, batch, chunk);
                    if (bad < total)
                        harness_check(h, 0, name, "output element %zu: got %.9g, want %.9g", bad, (double)got[bad],
                                      (double)expect[bad]);
                    else harness_check(h, guard_ok, name, guard_ok ? "bit-exact" : "wrote past the end of the batch");
                }
            }
            CUDA_CHECK(cudaFree(d_in));
            CUDA_CHECK(cudaFree(d_out));
            free(rm);
            free(want);
            free(got);
        }
}

int main(void)
{
    harness h;
    harness_begin(&h, "stage-5");
    int ns[12] = {1, 7, 20, 31, 33, 64, 100, 128}, nn = harness_given_ints(ns, HARNESS_LEN(ns));
    size_t batches[8] = {1, 3, 1000, 1025, 4096}, chunks[8] = {1, 8, 32, 64, 100};
    int nb = harness_given_sizes(batches, HARNESS_LEN(batches)), nc = harness_given_sizes(chunks, HARNESS_LEN(chunks));
    ncfg = given_configs(configs, HARNESS_LEN(configs));
    add_hidden_sizes(ns, &nn, batches, &nb, chunks, &nc, configs, &ncfg);
    const int runs = nn * nb;
    const char *const groups[] = {"tiled layout converters", "tile kernel", "thread-per-matrix kernel",
                                  "cuSOLVER agreement", "batch past 2^31 floats"};
    harness_plan(&h, groups[0], CONV_TESTS);
    harness_plan(&h, groups[1], count_kernel_configs(configs, ncfg, BATCHED_TILES) * runs * nc + 1);
    harness_plan(&h, groups[2], count_kernel_configs(configs, ncfg, BATCHED_THREAD) * runs * nc);
    harness_plan(&h, groups[3], runs);
    harness_plan(&h, groups[4], 1);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        for (int g = 0; g < 5; g++) harness_skip_rest(&h, groups[g], reason);
        return harness_end(&h);
    }
    test_converters(&h);
    /* Stage 04's kernels (yours, graded there) on chunks: only those that factor a small batch right
     * run here, so that a bug of stage 04 fails only stage 04's graded tests. */
    const batched_config fast = THREAD_CONFIG(4, 64, 2), tiles = TILES_CONFIG(LOOK_LEFT, 8, 16);
    const int tiles_ok = batched_kernel_works(batched_kernel_find, &tiles, 33),
              thread_ok = batched_kernel_works(batched_kernel_find, &fast, 33);
    harness_requires(&h, groups[1], tiles_ok, "your stage 04 tile kernel");
    harness_requires(&h, groups[2], thread_ok, "your stage 04 thread kernel");
    harness_requires(&h, groups[4], thread_ok, "your stage 04 thread kernel");
    batched_config working[HARNESS_LEN(configs)];
    int nworking = 0;
    for (int c = 0; c < ncfg; c++)
        if (configs[c].kernel == BATCHED_TILES ? tiles_ok : thread_ok) working[nworking++] = configs[c];
    test_configs(&h, batched_kernel_find, "chunked", working, nworking, ns, nn, batches, nb, chunks, nc);
    if (thread_ok)
        test_large_batch(&h, batched_kernel_find, groups[4], &fast, 20, 64, (size_t)9 << 30,
                         64); /* past 32-bit offsets; 0 points (memory) */
    if (tiles_ok) test_large_batch(&h, batched_kernel_find, groups[1], &tiles, 100, 16, (size_t)1 << 30, 32);
    return harness_end(&h);
}
