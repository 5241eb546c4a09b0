/* batched_driver.c - the stage 04-05 driver's body: factor a batch in the (chunked) interleaved
 * layout. cholesky_batched.c (stage 04) runs it as is; stage 06's driver runs it with an `auto`
 * kernel that looks the configuration up in its tuned table (batched_driver.h).
 *
 * A file (binary, or the seed project's text format) is read on the host, copied to the GPU,
 * converted there to the layout, factored, converted back and copied back; a generated batch is
 * written straight into the layout on the GPU. Batches larger than the GPU memory (or than
 * --max-gpu-memory) go through in slices, the copies of one overlapping the factorization of the
 * next (sliced_run.h); the run reports its throughput against the measured copy bandwidth.
 *
 * Real data: matrices that are not positive definite, or that hold NaN or Inf, are factored like
 * any other and flagged by their info (LAPACK's rule: info = k > 0 when the leading minor of
 * order k is not positive definite, NaN included). --info writes every info, one per line. The
 * factor written for a failed matrix is all zeros, so that the factors file always reads back.
 * --check K checks K matrices spread over the batch against the float64 reference.
 * Exit status: 0 success, 1 a check failed, 2 bad arguments, input or memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batched_cholesky.h"
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "dataset_io.h"
#include "generator.h"
#include "harness.h"
#include "host_alloc.h"
#include "sliced_run.h"
#include "batched_driver.h"

static void usage(FILE *f, const batched_driver_hooks *hooks)
{
    char kernels[128] = "";
    for (int k = 0; k < BATCHED_MAX_KERNELS; k++) {
        const batched_kernel_ops *ops = batched_kernel_find((batched_kernel)k);
        if (ops) snprintf(kernels + strlen(kernels), sizeof kernels - strlen(kernels), "%s%s", kernels[0] ? "|" : "", ops->name);
    }
    fprintf(f,
            "usage: %s (--input FILE | --n N --batch B [--family spd|illcond|nonspd|hp3] [--seed S] [--kappa K])\n"
            "       [--kernel %s%s] [--order left|right|top] [--nb NB] [--per-block M] [--unroll U]%s\n"
            "       [--chunk C] [--check K] [--output FILE [--format bin|txt]] [--info FILE] [--max-gpu-memory SIZE]\n",
            hooks->prog, hooks->choose ? "auto|" : "", kernels, hooks->choose ? " [--threads T]" : "");
    if (hooks->help) fputs(hooks->help, f);
    fprintf(f,
            "  --input FILE  binary or text dataset; NaN/Inf and non-SPD matrices are factored and flagged by info\n"
            "  --output      write the factors, row-major, in --format (default: the input file's format, else binary);\n"
            "                a matrix that failed (info > 0) is written as zeros\n"
            "  --info FILE   write every matrix's info, one per line (0 = factored; k > 0 = minor k not positive definite)\n"
            "  --chunk C     chunked interleaved layout with chunks of C matrices; 1 = row-major, the data as they come, no\n"
            "                conversion (default: simple interleaved, or the kernel's own default)\n"
            "  --kernel      thread: one thread per matrix, register tiles (default); tiles: stage 02 helpers, NB x NB threads per matrix\n"
            "  --order       tiles only (default left); --unroll: thread only (default 2)\n"
            "  defaults      thread NB=4, 64 matrices per block, unroll 2; tiles NB=8, 8 matrices per block\n"
            "  --check K     check K matrices spread over the batch against the float64 reference (default 8)\n"
            "  --max-gpu-memory SIZE  use at most SIZE bytes of GPU memory (suffix K, M or G; default 90%% of what is free);\n"
            "                a larger batch goes through in slices, copies overlapped with the factorization\n");
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

/* "256M", "4G", "1000000": bytes, at least 1 MiB. */
static int parse_size(const char *s, unsigned long long *out)
{
    char *end;
    double v = strtod(s, &end);
    unsigned long long unit = 1;
    if (*end == 'K' || *end == 'k') unit = 1ull << 10;
    else if (*end == 'M' || *end == 'm') unit = 1ull << 20;
    else if (*end == 'G' || *end == 'g') unit = 1ull << 30;
    if (unit > 1) end++;
    if (end == s || *end || !(v >= 1) || v * unit < (1 << 20) || v * unit > 1e15) return 0;
    *out = (unsigned long long)(v * unit);
    return 1;
}

static int write_infos(const char *path, const int *info, size_t batch, char *err, size_t len)
{
    if (dataset_make_parent_dirs(path, err, len) != 0) return -1;
    FILE *f = fopen(path, "w");
    if (!f) { snprintf(err, len, "%s: cannot create: %s", path, strerror(errno)); return -1; }
    int ok = 1;
    for (size_t b = 0; b < batch && ok; b++) ok = fprintf(f, "%d\n", info[b]) > 0;
    if (fclose(f) != 0) ok = 0;
    if (!ok) { snprintf(err, len, "%s: write error: %s", path, strerror(errno)); return -1; }
    return 0;
}

int batched_driver_main(int argc, char **argv, const batched_driver_hooks *hooks)
{
    const char *prog = hooks->prog;
    batched_config cfg = batched_config_default();
    long long n = 0, batch = 0, check = 8, nb = -1, per_block = -1, unroll = -1, chunk = 0, threads = -1;
    int kernel_auto = hooks->choose != NULL; /* the default where there is a tuned table */
    unsigned long long seed = GEN_DEFAULT_SEED, budget = 0;
    double kappa = GEN_DEFAULT_KAPPA;
    family_t family = FAMILY_SPD;
    dataset_format fmt = DATASET_BINARY;
    int fmt_given = 0, gen_given = 0, kappa_given = 0, order_given = 0;
    const char *input = NULL, *output = NULL, *info_path = NULL;
    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) { usage(stdout, hooks); return 0; }
        if (!val) { fprintf(stderr, "%s: %s needs a value\n", prog, opt); usage(stderr, hooks); return 2; }
        int ok = 1;
        if (!strcmp(opt, "--input")) input = val;
        else if (!strcmp(opt, "--output")) output = val;
        else if (!strcmp(opt, "--info")) info_path = val;
        else if (!strcmp(opt, "--format")) ok = (fmt_given = dataset_format_parse(val, &fmt) == 0);
        else if (!strcmp(opt, "--n")) ok = cli_parse_ll(val, 1, DATASET_MAX_N, &n);
        else if (!strcmp(opt, "--batch")) ok = cli_parse_ll(val, 1, (long long)1 << 40, &batch);
        else if (!strcmp(opt, "--family")) ok = (gen_given = family_parse(val, &family) == 0);
        else if (!strcmp(opt, "--seed")) ok = (gen_given = cli_parse_ull(val, &seed));
        else if (!strcmp(opt, "--kappa")) ok = (kappa_given = cli_parse_double(val, 1.0, 1e12, &kappa) && kappa > 1.0);
        else if (!strcmp(opt, "--kernel")) {
            kernel_auto = hooks->choose && !strcmp(val, "auto");
            ok = kernel_auto || batched_kernel_parse(val, &cfg.kernel) == 0;
        }
        else if (!strcmp(opt, "--threads") && hooks->choose) ok = cli_parse_ll(val, 1, 1024, &threads);
        else if (!strcmp(opt, "--order")) ok = (order_given = looking_order_parse(val, &cfg.order) == 0);
        else if (!strcmp(opt, "--nb")) ok = cli_parse_ll(val, 1, 1024, &nb);
        else if (!strcmp(opt, "--per-block")) ok = cli_parse_ll(val, 1, 1024, &per_block);
        else if (!strcmp(opt, "--unroll")) ok = cli_parse_ll(val, 0, 64, &unroll);
        else if (!strcmp(opt, "--chunk")) ok = cli_parse_ll(val, 1, (long long)1 << 40, &chunk);
        else if (!strcmp(opt, "--check")) ok = cli_parse_ll(val, 0, 1 << 20, &check);
        else if (!strcmp(opt, "--max-gpu-memory")) ok = parse_size(val, &budget);
        else { fprintf(stderr, "%s: unknown option %s\n", prog, opt); usage(stderr, hooks); return 2; }
        if (!ok) { fprintf(stderr, "%s: bad value for %s: '%s'\n", prog, opt, val); usage(stderr, hooks); return 2; }
        a++;
    }
    /* Options that do not apply are refused, not ignored. */
    const char *refused = NULL;
    if (input && (gen_given || kappa_given)) refused = "--family, --seed and --kappa describe a generated batch, not --input";
    else if (kappa_given && family != FAMILY_ILLCOND) refused = "--kappa applies only to --family illcond";
    else if (fmt_given && !output) refused = "--format applies only to --output";
    else if (kernel_auto && (order_given || nb > 0 || per_block > 0 || unroll >= 0 || threads > 0 || chunk))
        refused = "--order, --nb, --per-block, --unroll, --threads and --chunk pick a configuration by hand: give --kernel too";
    if (!refused && !kernel_auto) {
        unsigned uses = batched_kernel_find(cfg.kernel)->uses;
        if (order_given && !(uses & BATCHED_USES_ORDER))
            refused = cfg.kernel == BATCHED_THREAD ? "--order applies only to --kernel tiles (the thread kernel is left-looking)"
                                                   : "--order does not apply to this kernel";
        else if (unroll >= 0 && !(uses & BATCHED_USES_UNROLL)) refused = "--unroll applies only to --kernel thread";
        else if (threads > 0 && !(uses & BATCHED_USES_THREADS)) refused = "--threads does not apply to this kernel";
        else if (nb > 0 && !(uses & BATCHED_USES_NB)) refused = "--nb does not apply to this kernel";
    }
    if (refused) { fprintf(stderr, "%s: %s\n", prog, refused); return 2; }
    size_t default_chunk = 0;
    if (!kernel_auto && hooks->defaults) hooks->defaults(&cfg, &default_chunk);
    if (!kernel_auto && !chunk) chunk = (long long)default_chunk;
    else if (cfg.kernel == BATCHED_TILES) { cfg.nb = 8; cfg.per_block = 8; }
    if (nb > 0) cfg.nb = (int)nb;
    if (per_block > 0) cfg.per_block = (int)per_block;
    if (unroll >= 0) cfg.unroll = (int)unroll;
    if (threads > 0) cfg.threads = (int)threads;
    if (!input == !n || (!input && !batch) || (input && batch)) {
        fprintf(stderr, "%s: give either --input FILE or both --n and --batch\n", prog);
        usage(stderr, hooks);
        return 2;
    }

    /* The input: a file now (its n decides the checks below), or the generator's parameters. */
    dataset d = {0, 0, NULL};
    char err[DATASET_ERR_LEN];
    if (input) {
        if (dataset_read_opts(input, &d, DATASET_ALLOW_NONFINITE, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return 2;
        }
        n = d.n;
        batch = (long long)d.count;
        if (!fmt_given) fmt = file_is_binary(input) ? DATASET_BINARY : DATASET_TEXT; /* factors as the input came */
    }
    char msg[256], name[64], why[160] = "";
    if (kernel_auto) {
        size_t tuned_chunk = 0;
        if (hooks->choose((int)n, (size_t)batch, &cfg, &tuned_chunk, why, sizeof why) != 0) {
            fprintf(stderr, "%s: --kernel auto: %s\n", prog, why);
            return 2;
        }
        chunk = (long long)tuned_chunk;
    }
    if (batched_config_check(&cfg, (int)n, msg, sizeof msg) != 0) { fprintf(stderr, "%s: %s\n", prog, msg); return 2; }
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) { fprintf(stderr, "%s: no GPU: %s\n", prog, reason); return 2; }
    const size_t nn = (size_t)n * n, bytes = (size_t)batch * nn * sizeof(float);
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (!budget) budget = (unsigned long long)(free_b * 0.9);
    else if (budget > free_b) {
        fprintf(stderr, "%s: --max-gpu-memory %.2f GiB, but only %.2f GiB of %.2f GiB are free\n", prog,
                budget / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0);
        return 2;
    }

    /* The host side of the run: the file's data (factored in place), or an output buffer. */
    gen_params p = gen_params_make(family, seed, kappa, 0);
    float *host = input ? d.data : output ? host_alloc(bytes, "the factors to write") : NULL;
    int *info;
    CUDA_CHECK(cudaMallocHost((void **)&info, (size_t)batch * sizeof(int)));
    if (check > batch) check = batch;
    size_t *sample = host_alloc_array((size_t)check + 1, sizeof(size_t), "sample list");
    float *sample_A = host_alloc_array((size_t)check + 1, nn * sizeof(float), "sampled inputs"), *sample_L = NULL;
    for (long long s = 0; s < check; s++) {
        sample[s] = check > 1 ? (size_t)((double)(batch - 1) * s / (check - 1)) : 0;
        if (input) memcpy(sample_A + s * nn, d.data + sample[s] * nn, nn * sizeof(float)); /* before it is overwritten */
        else gen_batch_host(&p, (int)n, sample[s], 1, sample_A + s * nn);
    }
    if (!host) CUDA_CHECK(cudaMallocHost((void **)&sample_L, ((size_t)check + 1) * nn * sizeof(float)));
    size_t nonfinite = 0;
    if (input)
        for (long long b = 0; b < batch; b++) {
            int finite = 1;
            for (size_t k = 0; k < nn; k++) finite &= isfinite(d.data[b * nn + k]) != 0;
            nonfinite += !finite;
        }

    char layout[64] = "simple interleaved";
    if (chunk == 1) snprintf(layout, sizeof layout, "row-major (chunk = 1: no conversion)");
    else if (chunk) snprintf(layout, sizeof layout, "chunked, %lld matrices per chunk", chunk);
    printf("%lld matrices of order %lld (%.3f GB), layout %s, kernel %s\n", batch, n, bytes / 1e9, layout,
           batched_config_name(&cfg, name, sizeof name));
    if (why[0]) printf("  --kernel auto: %s\n", why);
    if (input) printf("  read %s%s\n", input, nonfinite ? "" : " (all values finite)");
    else printf("  generating %s (seed %llu) on the GPU\n", family_name(family), seed);

    sliced_job job = {&cfg, (int)n, (size_t)batch, (size_t)chunk, host, input ? NULL : &p, info,
                      host ? 0 : (size_t)check, sample, sample_L, (size_t)budget, hooks->to_layout, hooks->from_layout};
    sliced_report rep;
    if (sliced_run(&job, &rep) != 0) return 2;
    if (rep.slices > 1)
        printf("  %zu slices of %zu matrices (GPU budget %.2f GiB)%s\n", rep.slices, rep.slice, budget / 1073741824.0,
               rep.pinned || !host ? "" : "; host buffer not pinned, copies not overlapped");
    double moved = (double)(rep.bytes_in + rep.bytes_out);
    printf("  end to end in %.3f ms (one cold run; make bench-stage-4 times the kernels properly): %.1f GFLOP/s", rep.wall_ms,
           potrf_flops((int)n) * batch / (rep.wall_ms * 1e6));
    if (host) printf(", %.2f GB/s over the host link", moved / (rep.wall_ms * 1e6));
    printf("\n");
    if (host || rep.slices > 1) /* what overlapping bought: the stages' sum against the wall time */
        printf("  stages summed over the slices: copy in %.3f ms, %s %.3f ms, copy out %.3f ms; overlap %.2fx\n", rep.h2d_ms,
               host ? "factor (with conversions)" : "generate and factor", rep.compute_ms, rep.d2h_ms,
               (rep.h2d_ms + rep.compute_ms + rep.d2h_ms) / rep.wall_ms);
    if (rep.h2d_gbs > 0) {
        /* The link is full duplex: copies in and out can run at the same time. */
        double bound = fmax(rep.bytes_in / (rep.h2d_gbs * 1e6), rep.bytes_out / (rep.d2h_gbs * 1e6));
        printf("  copy bandwidth measured: %.1f GB/s in, %.1f GB/s out; the copies alone need %.3f ms: %.0f %% of that bound"
               " (pinning took %.1f ms, not counted)\n", rep.h2d_gbs, rep.d2h_gbs, bound, 100.0 * bound / rep.wall_ms, rep.pin_ms);
    }

    size_t failed = 0, shown = 0;
    for (long long b = 0; b < batch; b++) {
        if (info[b] == 0) continue;
        failed++;
        if (shown++ < 5) printf("  matrix %lld: not positive definite, info = %d\n", b, info[b]);
        if (host) memset(host + b * nn, 0, nn * sizeof(float)); /* the documented factor of a failed matrix */
    }
    printf("  %zu of %lld matrices not positive definite", failed, batch);
    if (input) printf(" (%zu hold NaN or Inf)", nonfinite);
    printf("\n");

    int status = 0;
    if (check > 0) {
        double worst = 0;
        int bad = 0;
        for (long long s = 0; s < check; s++) {
            const float *L = host ? host + sample[s] * nn : sample_L + s * nn;
            factor_check fc;
            check_factor((int)n, sample_A + s * nn, L, info[sample[s]], &fc);
            if (!fc.ok) {
                if (bad++ == 0) printf("  CHECK FAILED matrix %zu: %s\n", sample[s], fc.detail);
            } else if (fc.ref_info == 0 && fc.resid > worst)
                worst = fc.resid;
        }
        printf("  checked %lld matrices against the float64 reference: %s (max residual %.2g, bound %.2g)\n", check,
               bad ? "FAILED" : "ok", worst, RESID_TOL);
        status = bad ? 1 : 0;
    }
    if (info_path) {
        if (write_infos(info_path, info, (size_t)batch, err, sizeof err) != 0) { fprintf(stderr, "%s: %s\n", prog, err); return 2; }
        printf("  wrote %lld infos to %s (%zu nonzero)\n", batch, info_path, failed);
    }
    if (output) {
        dataset out = {(int)n, (size_t)batch, host};
        if (dataset_write(output, &out, fmt, err, sizeof err) != 0) { fprintf(stderr, "%s: %s\n", prog, err); return 2; }
        printf("  wrote the factors to %s\n", output);
    }
    if (input) dataset_free(&d);
    else free(host);
    CUDA_CHECK(cudaFreeHost(info));
    if (sample_L) CUDA_CHECK(cudaFreeHost(sample_L));
    free(sample);
    free(sample_A);
    if (fflush(stdout) != 0) return 2;
    return status;
}
