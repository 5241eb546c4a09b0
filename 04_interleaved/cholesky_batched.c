/* cholesky_batched.c - the stage 04-05 driver: factor a batch in the (chunked) interleaved layout.
 *
 *   build/04_interleaved/cholesky_batched --n 20 --batch 1000000            (generated on the GPU)
 *   build/04_interleaved/cholesky_batched --input datasets/data/x.bin --output L.bin
 *   build/04_interleaved/cholesky_batched --n 64 --batch 4096 --kernel tiles --order top --nb 8 --per-block 8 --chunk 32
 *
 * A file (binary, or the seed project's text format) is read on the host, copied to the GPU and
 * converted there from row-major to the layout; a generated batch is written straight into the
 * layout on the GPU, so it can be as large as the GPU's memory. Each step reports its time.
 * --check K regenerates (or rereads) K matrices spread over the batch and checks them against
 * the float64 reference; --output writes the factors back, row-major, in the format asked.
 * Exit status: 0 success, 1 a check failed, 2 bad arguments, input or memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batched_cholesky.h"
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "dataset_io.h"
#include "generator.h"
#include "gpu_batch.h"
#include "harness.h"
#include "layout.h"
#include "host_alloc.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cholesky_batched (--input FILE | --n N --batch B [--family spd|illcond|nonspd|hp3] [--seed S] [--kappa K])\n"
            "                        [--kernel thread|tiles] [--order left|right|top] [--nb NB] [--per-block M] [--unroll U]\n"
            "                        [--chunk C] [--check K] [--output FILE [--format bin|txt]]\n"
            "  --output      write the factors, row-major, in --format (default: the input file's format, else binary)\n"
            "  --chunk C     chunked interleaved layout with chunks of C matrices (default: simple interleaved)\n"
            "  --kernel      thread: one thread per matrix, register tiles (default); tiles: stage 02 helpers, NB x NB threads per matrix\n"
            "  defaults      thread NB=4, 64 matrices per block, unroll 2; tiles: left-looking\n"
            "  --check K     check K matrices spread over the batch against the float64 reference (default 8)\n");
}

/* A binary dataset starts with the magic; anything else that dataset_read accepted is text. */
static int file_is_binary(const char *path)
{
    char magic[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    return got == sizeof magic && memcmp(magic, DATASET_MAGIC, sizeof magic) == 0;
}

static float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CUDA_CHECK(cudaEventSynchronize(b));
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

int main(int argc, char **argv)
{
    batched_config cfg = batched_config_default();
    long long n = 0, batch = 0, check = 8, nb = -1, per_block = -1, unroll = -1, chunk = 0;
    unsigned long long seed = GEN_DEFAULT_SEED;
    double kappa = GEN_DEFAULT_KAPPA;
    family_t family = FAMILY_SPD;
    dataset_format fmt = DATASET_BINARY;
    int fmt_given = 0;
    const char *input = NULL, *output = NULL;
    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) { usage(stdout); return 0; }
        if (!val) { fprintf(stderr, "cholesky_batched: %s needs a value\n", opt); usage(stderr); return 2; }
        int ok = 1;
        if (!strcmp(opt, "--input")) input = val;
        else if (!strcmp(opt, "--output")) output = val;
        else if (!strcmp(opt, "--format")) ok = (fmt_given = dataset_format_parse(val, &fmt) == 0);
        else if (!strcmp(opt, "--n")) ok = cli_parse_ll(val, 1, DATASET_MAX_N, &n);
        else if (!strcmp(opt, "--batch")) ok = cli_parse_ll(val, 1, (long long)1 << 40, &batch);
        else if (!strcmp(opt, "--family")) ok = family_parse(val, &family) == 0;
        else if (!strcmp(opt, "--seed")) ok = cli_parse_ull(val, &seed);
        else if (!strcmp(opt, "--kappa")) ok = cli_parse_double(val, 1.0, 1e12, &kappa) && kappa > 1.0;
        else if (!strcmp(opt, "--kernel")) ok = batched_kernel_parse(val, &cfg.kernel) == 0;
        else if (!strcmp(opt, "--order")) ok = looking_order_parse(val, &cfg.order) == 0;
        else if (!strcmp(opt, "--nb")) ok = cli_parse_ll(val, 1, 1024, &nb);
        else if (!strcmp(opt, "--per-block")) ok = cli_parse_ll(val, 1, 1024, &per_block);
        else if (!strcmp(opt, "--unroll")) ok = cli_parse_ll(val, 1, 64, &unroll);
        else if (!strcmp(opt, "--chunk")) ok = cli_parse_ll(val, 1, (long long)1 << 40, &chunk);
        else if (!strcmp(opt, "--check")) ok = cli_parse_ll(val, 0, 1 << 20, &check);
        else { fprintf(stderr, "cholesky_batched: unknown option %s\n", opt); usage(stderr); return 2; }
        if (!ok) { fprintf(stderr, "cholesky_batched: bad value for %s: '%s'\n", opt, val); usage(stderr); return 2; }
        a++;
    }
    if (cfg.kernel == BATCHED_TILES) { cfg.nb = 8; cfg.per_block = 8; }
    if (nb > 0) cfg.nb = (int)nb;
    if (per_block > 0) cfg.per_block = (int)per_block;
    if (unroll > 0) cfg.unroll = (int)unroll;
    if (!input == !n || (!input && !batch) || (input && batch)) {
        fprintf(stderr, "cholesky_batched: give either --input FILE or both --n and --batch\n");
        usage(stderr);
        return 2;
    }

    /* The input: a file now (its n decides the checks below), or the generator's parameters. */
    dataset d = {0, 0, NULL};
    char err[DATASET_ERR_LEN];
    if (input) {
        if (dataset_read(input, &d, err, sizeof err) != 0) { fprintf(stderr, "cholesky_batched: %s\n", err); return 2; }
        n = d.n;
        batch = (long long)d.count;
        if (!fmt_given) fmt = file_is_binary(input) ? DATASET_BINARY : DATASET_TEXT; /* factors as the input came */
    }
    char msg[256], name[64];
    if (batched_config_check(&cfg, (int)n, msg, sizeof msg) != 0) { fprintf(stderr, "cholesky_batched: %s\n", msg); return 2; }
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) { fprintf(stderr, "cholesky_batched: no GPU: %s\n", reason); return 2; }
    size_t nn = (size_t)n * n, elems = (size_t)batch * nn, lay_chunk = chunk ? (size_t)chunk : (size_t)batch;
    size_t bytes = elems * sizeof(float), info_bytes = (size_t)batch * sizeof(int);
    int need_rowmajor = input || output; /* a row-major staging buffer for the conversions */
    size_t need = bytes * (need_rowmajor ? 2 : 1) + info_bytes, free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
        fprintf(stderr, "cholesky_batched: %lld matrices of order %lld need %.2f GiB of GPU memory%s; %.2f GiB of %.2f GiB are free\n",
                batch, n, need / 1073741824.0, need_rowmajor ? " (the batch and a row-major staging copy)" : "",
                free_b / 1073741824.0, total_b / 1073741824.0);
        return 2;
    }
    char layout[64] = "simple interleaved";
    if (chunk) snprintf(layout, sizeof layout, "chunked, %lld matrices per chunk", chunk);
    printf("%lld matrices of order %lld (%.3f GB), layout %s, kernel %s\n", batch, n, bytes / 1e9, layout,
           batched_config_name(&cfg, name, sizeof name));

    float *d_A, *d_rm = NULL;
    int *d_info;
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, info_bytes));
    if (need_rowmajor) CUDA_CHECK(cudaMalloc((void **)&d_rm, bytes));
    gen_params p = gen_params_make(family, seed, kappa, 0);
    if (input) {
        CUDA_CHECK(cudaMemcpy(d_rm, d.data, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaEventRecord(t0, 0));
        rowmajor_to_chunked_device((int)n, (size_t)batch, lay_chunk, d_rm, d_A);
        CUDA_CHECK(cudaEventRecord(t1, 0));
        printf("  read %s, converted row-major -> layout on the GPU in %.3f ms\n", input, elapsed_ms(t0, t1));
    } else {
        CUDA_CHECK(cudaEventRecord(t0, 0));
        gen_batch_device(&p, (int)n, 0, (size_t)batch, lay_chunk, d_A);
        CUDA_CHECK(cudaEventRecord(t1, 0));
        printf("  generated %s (seed %llu) on the GPU in %.3f ms\n", family_name(family), seed, elapsed_ms(t0, t1));
    }
    CUDA_CHECK(cudaEventRecord(t0, 0));
    if (potrf_batched(&cfg, (int)n, (size_t)batch, lay_chunk, d_A, d_info) != 0) return 2;
    CUDA_CHECK(cudaEventRecord(t1, 0));
    float ms = elapsed_ms(t0, t1);
    printf("  factored in %.3f ms (one cold run, %.1f GFLOP/s; make bench-stage-4 times it properly)\n", ms,
           potrf_flops((int)n) * batch / (ms * 1e6));

    int *info = host_alloc(info_bytes, "driver buffers");
    CUDA_CHECK(cudaMemcpy(info, d_info, info_bytes, cudaMemcpyDeviceToHost));
    size_t failed = 0;
    for (long long b = 0; b < batch; b++)
        if (info[b] != 0 && failed++ < 5) printf("  matrix %lld: not positive definite, info = %d\n", b, info[b]);
    printf("  %zu of %lld matrices not positive definite\n", failed, batch);

    /* Back to row-major: the whole batch for --output, else only the sampled matrices. */
    float *host = NULL;
    if (need_rowmajor) {
        CUDA_CHECK(cudaEventRecord(t0, 0));
        chunked_to_rowmajor_device((int)n, (size_t)batch, lay_chunk, d_A, d_rm);
        CUDA_CHECK(cudaEventRecord(t1, 0));
        printf("  converted layout -> row-major on the GPU in %.3f ms\n", elapsed_ms(t0, t1));
    }
    int status = 0;
    if (check > batch) check = batch;
    if (check > 0) {
        float *A = host_alloc(nn * sizeof(float), "driver buffers"), *L = host_alloc(nn * sizeof(float), "driver buffers");
        int device;
        struct cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        size_t max_pitch = prop.memPitch;
        double worst = 0;
        int bad = 0;
        for (long long s = 0; s < check; s++) {
            size_t b = check > 1 ? (size_t)((double)(batch - 1) * s / (check - 1)) : 0;
            if (input) memcpy(A, d.data + b * nn, nn * sizeof(float));
            else gen_batch_host(&p, (int)n, b, 1, A);
            if (need_rowmajor) CUDA_CHECK(cudaMemcpy(L, d_rm + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
            else { /* matrix b's n^2 elements are equally spaced in the layout: one strided copy */
                matrix_place pl = chunked_place((int)n, lay_chunk, (size_t)batch, b);
                if (pl.stride * sizeof(float) <= max_pitch)
                    CUDA_CHECK(cudaMemcpy2D(L, sizeof(float), d_A + pl.base, pl.stride * sizeof(float), sizeof(float), nn,
                                            cudaMemcpyDeviceToHost));
                else /* past the pitch limit (batches of > 5e8 matrices, so n <= 6): element by element */
                    for (size_t e = 0; e < nn; e++)
                        CUDA_CHECK(cudaMemcpy(L + e, d_A + pl.base + e * pl.stride, sizeof(float), cudaMemcpyDeviceToHost));
            }
            factor_check fc;
            check_factor((int)n, A, L, info[b], &fc);
            if (!fc.ok) {
                if (bad++ == 0) printf("  CHECK FAILED matrix %zu: %s\n", b, fc.detail);
            } else if (fc.ref_info == 0 && fc.resid > worst)
                worst = fc.resid;
        }
        printf("  checked %lld matrices against the float64 reference: %s (max residual %.2g, bound %.2g)\n", check,
               bad ? "FAILED" : "ok", worst, RESID_TOL);
        status = bad ? 1 : 0;
        free(A); free(L);
    }
    if (output) {
        host = host_alloc(bytes, "driver buffers");
        if (!host) { fprintf(stderr, "cholesky_batched: no host memory for %.2f GiB of output\n", bytes / 1073741824.0); return 2; }
        CUDA_CHECK(cudaMemcpy(host, d_rm, bytes, cudaMemcpyDeviceToHost));
        dataset out = {(int)n, (size_t)batch, host};
        if (dataset_write(output, &out, fmt, err, sizeof err) != 0) { fprintf(stderr, "cholesky_batched: %s\n", err); return 2; }
        printf("  wrote the factors to %s\n", output);
        free(host);
    }
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
    if (d_rm) CUDA_CHECK(cudaFree(d_rm));
    dataset_free(&d);
    free(info);
    return status;
}
