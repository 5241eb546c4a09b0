/* batch_driver.c - the batch drivers' body (batch_driver.h): a batch is read from a file (binary,
 * or the seed project's text format) or generated on the GPU, factored by the stage's kernels in
 * slices that fit the GPU memory (or --max-gpu-memory), the copies of one slice overlapping the
 * factorization of the next (sliced_run.h), checked, and written; the run reports its throughput
 * against the measured copy bandwidth.
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
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "dataset_io.h"
#include "generator.h"
#include "harness.h"
#include "host_alloc.h"
#include "timing.h"
#include "batch_driver.h"

/* The usage text, built once: the data options here, the kernel options from the stage (its
 * synopsis and lines), so that each option is described in one place. */
static const char *usage_text(const batch_kernels *k)
{
    static char text[6144];
    int w = snprintf(
        text, sizeof text,
        "usage: %s (--input FILE | --n N --batch B [--family spd|illcond|nonspd|hp3] [--seed S] [--kappa K])\n"
        "       %s\n"
        "       [--chunk C] [--check K] [--output FILE [--format bin|txt]] [--info FILE] [--max-gpu-memory SIZE]\n"
        "       [--gpus all|N|LIST]%s%s\n"
        "  (--opt value and --opt=value both work; -h, --help: this text)\n",
        k->prog, k->synopsis, k->options & BATCH_OPT_EXPLAIN ? " [--explain]" : "",
        k->options & BATCH_OPT_PRECISION ? " [--precision highest|high|medium]" : "");
    w += snprintf(
        text + w, sizeof text - w,
        "  --input FILE  binary or text dataset; NaN/Inf and non-SPD matrices are factored and flagged by info\n"
        "  --output      write the factors, row-major, in --format (default: the input file's format, else binary);\n"
        "                a matrix that failed (info > 0) is written as zeros\n"
        "  --info FILE   write every matrix's info, one per line (0 = factored; k > 0 = minor k not positive "
        "definite)\n"
        "  --chunk C     chunked interleaved layout with chunks of C matrices; 1 = row-major, the data as they come, "
        "no\n"
        "                conversion (default: simple interleaved, or the kernel's own default)\n"
        "%s",
        k->help ? k->help : "");
    snprintf(
        text + w, sizeof text - w,
        "  --check K     check K matrices spread over the batch against the float64 reference (default 8)\n"
        "  --max-gpu-memory SIZE  use at most SIZE bytes of GPU memory (suffix K, M or G; default 90%% of what is "
        "free);\n"
        "                a larger batch goes through in slices, copies overlapped with the factorization\n"
        "  --gpus        all (default): every visible GPU takes slices in turn, each with its own streams; N: the\n"
        "                first N; a list such as 0,1 (a GPU may repeat). Results are those of one GPU, bit for bit\n"
        "%s%s",
        k->options & BATCH_OPT_EXPLAIN ? "  --explain     say what would run and why, in one line, and stop\n" : "",
        k->options & BATCH_OPT_PRECISION
            ? "  --precision   highest (default): fp32-accurate; high: one TF32 product a term in the large matrices'\n"
              "                updates (faster; checked by the normwise residual ||A - L L^T||_1 <= 20 n eps "
              "||A||_1);\n"
              "                medium: as high, the warpgroup bulk (Hopper) in fp16 with rows scaled\n"
            : "");
    return text;
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
    if (!f) {
        snprintf(err, len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    int ok = 1;
    for (size_t b = 0; b < batch && ok; b++) ok = fprintf(f, "%d\n", info[b]) > 0;
    if (fclose(f) != 0) ok = 0;
    if (!ok) {
        snprintf(err, len, "%s: write error: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* --gpus: "N" (the first N GPUs) or "a,b,..." (these GPUs; one may repeat: two workers share it,
 * which tests the split on one GPU). Fills devices (if not NULL) and returns how many, or -1. A
 * plain number is a count ("2": GPUs 0 and 1); a list names devices ("1,": GPU 1 alone). */
static int parse_gpus(const char *v, int *devices)
{
    long long x;
    if (!strchr(v, ',')) {
        if (!cli_parse_ll(v, 1, SLICED_MAX_WORKERS, &x)) return -1;
        for (int k = 0; devices && k < (int)x; k++) devices[k] = k;
        return (int)x;
    }
    int count = 0;
    char tok[16];
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof tok || count == SLICED_MAX_WORKERS) return -1;
        memcpy(tok, p, len);
        tok[len] = 0;
        if (!cli_parse_ll(tok, 0, 63, &x)) return -1;
        if (devices) devices[count] = (int)x;
        count++;
        p += len + (p[len] == ',');
    }
    return count;
}

/* What the command line asked for. */
typedef struct {
    batch_kernel_args k; /* the stage's options, as given */
    long long n, batch, check;
    int fmt_given, gen_given, kappa_given;
    unsigned long long seed, budget;
    double kappa;
    family_t family;
    dataset_format fmt;
    const char *input, *output, *info_path, *gpus;
    size_t chunk; /* the layout the slices move in (the stage's prepare says) */
} driver_options;

/* Parse: every option's value checked on its own (cli_getopt and cli_bad_value exit 2). */
static driver_options parse_options(int argc, char **argv, const batch_kernels *k)
{
    enum {
        O_INPUT = 256,
        O_OUTPUT,
        O_INFO,
        O_FORMAT,
        O_N,
        O_BATCH,
        O_FAMILY,
        O_SEED,
        O_KAPPA,
        O_KERNEL,
        O_ORDER,
        O_NB,
        O_PER_BLOCK,
        O_UNROLL,
        O_CHUNK,
        O_CHECK,
        O_MAX_GPU_MEMORY,
        O_GPUS,
        O_THREADS,
        O_EXPLAIN,
        O_PRECISION
    };
    struct option longs[32] = {{"input", required_argument, 0, O_INPUT},
                               {"output", required_argument, 0, O_OUTPUT},
                               {"info", required_argument, 0, O_INFO},
                               {"format", required_argument, 0, O_FORMAT},
                               {"n", required_argument, 0, O_N},
                               {"batch", required_argument, 0, O_BATCH},
                               {"family", required_argument, 0, O_FAMILY},
                               {"seed", required_argument, 0, O_SEED},
                               {"kappa", required_argument, 0, O_KAPPA},
                               {"kernel", required_argument, 0, O_KERNEL},
                               {"order", required_argument, 0, O_ORDER},
                               {"nb", required_argument, 0, O_NB},
                               {"per-block", required_argument, 0, O_PER_BLOCK},
                               {"unroll", required_argument, 0, O_UNROLL},
                               {"chunk", required_argument, 0, O_CHUNK},
                               {"check", required_argument, 0, O_CHECK},
                               {"max-gpu-memory", required_argument, 0, O_MAX_GPU_MEMORY},
                               {"gpus", required_argument, 0, O_GPUS},
                               {"help", no_argument, 0, 'h'}};
    int nlongs = 19; /* the options every driver has; then the ones this driver offers */
    if (k->options & BATCH_OPT_THREADS) longs[nlongs++] = (struct option){"threads", required_argument, 0, O_THREADS};
    if (k->options & BATCH_OPT_EXPLAIN) longs[nlongs++] = (struct option){"explain", no_argument, 0, O_EXPLAIN};
    if (k->options & BATCH_OPT_PRECISION)
        longs[nlongs++] = (struct option){"precision", required_argument, 0, O_PRECISION};
    const char *prog = k->prog, *usage = usage_text(k);
    driver_options o = {.k = {.nb = -1, .per_block = -1, .unroll = -1, .threads = -1, .chunk = -1}, /* -1: not given */
                        .check = 8,
                        .seed = GEN_DEFAULT_SEED,
                        .kappa = GEN_DEFAULT_KAPPA,
                        .family = FAMILY_SPD,
                        .fmt = DATASET_BINARY,
                        .gpus = "all"};
    char n_range[48];
    snprintf(n_range, sizeof n_range, "an integer 1..%d", DATASET_MAX_N);
    int c;
    while ((c = cli_getopt(argc, argv, longs, prog, usage)) != -1) {
        const char *opt = longs[0].name, *v = optarg;
        for (const struct option *l = longs; l->name; l++)
            if (l->val == c) opt = l->name;
        char dashed[40];
        snprintf(dashed, sizeof dashed, "--%s", opt);
        switch (c) {
        case O_INPUT: o.input = v; break;
        case O_OUTPUT: o.output = v; break;
        case O_INFO: o.info_path = v; break;
        case O_FORMAT:
            if (dataset_format_parse(v, &o.fmt) != 0) cli_bad_value(prog, dashed, v, "bin or txt");
            o.fmt_given = 1;
            break;
        case O_N:
            if (!cli_parse_ll(v, 1, DATASET_MAX_N, &o.n)) cli_bad_value(prog, dashed, v, n_range);
            break;
        case O_BATCH:
            if (!cli_parse_ll(v, 1, (long long)1 << 40, &o.batch)) cli_bad_value(prog, dashed, v, "an integer >= 1");
            break;
        case O_FAMILY:
            if (family_parse(v, &o.family) != 0) cli_bad_value(prog, dashed, v, "spd, illcond, nonspd or hp3");
            o.gen_given = 1;
            break;
        case O_SEED:
            if (!cli_parse_ull(v, &o.seed)) cli_bad_value(prog, dashed, v, "an integer >= 0");
            o.gen_given = 1;
            break;
        case O_KAPPA:
            if (!cli_parse_double(v, 1.0, 1e12, &o.kappa) || !(o.kappa > 1.0))
                cli_bad_value(prog, dashed, v, "a number > 1, at most 1e12");
            o.kappa_given = 1;
            break;
        case O_KERNEL:
        case O_ORDER:
            if (k->validate) k->validate(k->factorizer.self, dashed, v);
            if (c == O_KERNEL) o.k.kernel = v;
            else o.k.order = v;
            break;
        case O_THREADS:
            if (!cli_parse_ll(v, 1, 1024, &o.k.threads)) cli_bad_value(prog, dashed, v, "an integer 1..1024");
            break;
        case O_NB:
            if (!cli_parse_ll(v, 1, 1024, &o.k.nb)) cli_bad_value(prog, dashed, v, "an integer 1..1024");
            break;
        case O_PER_BLOCK:
            if (!cli_parse_ll(v, 1, 1024, &o.k.per_block)) cli_bad_value(prog, dashed, v, "an integer 1..1024");
            break;
        case O_UNROLL:
            if (!cli_parse_ll(v, 0, 64, &o.k.unroll)) cli_bad_value(prog, dashed, v, "an integer 0..64");
            break;
        case O_CHUNK:
            if (!cli_parse_ll(v, 1, (long long)1 << 40, &o.k.chunk)) cli_bad_value(prog, dashed, v, "an integer >= 1");
            break;
        case O_EXPLAIN: o.k.explain = 1; break;
        case O_PRECISION:
            if (strcmp(v, "highest") && strcmp(v, "high") && strcmp(v, "medium"))
                cli_bad_value(prog, dashed, v, "highest, high or medium");
            o.k.precision = !strcmp(v, "high") ? 1 : !strcmp(v, "medium") ? 2 : 0;
            break;
        case O_CHECK:
            if (!cli_parse_ll(v, 0, 1 << 20, &o.check)) cli_bad_value(prog, dashed, v, "an integer 0..1048576");
            break;
        case O_GPUS:
            if (strcmp(v, "all") && parse_gpus(v, NULL) < 0)
                cli_bad_value(prog, dashed, v, "all; a count 1..16; or GPU numbers such as 0,1 or 1,");
            o.gpus = v;
            break;
        case O_MAX_GPU_MEMORY:
            if (!parse_size(v, &o.budget))
                cli_bad_value(prog, dashed, v, "bytes, at least 1 MiB, with an optional K, M or G");
            break;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s' (everything is an option; %s --help shows them)\n", prog,
                argv[optind], prog);
        exit(2);
    }
    return o;
}

/* Check: data options that do not apply are refused, not ignored; then the input (a file is read
 * here: its n decides the checks), then the stage's kernel options. Returns 0, 3 (--explain: said,
 * stop) or 2 after one message. */
static int check_options(driver_options *o, const batch_kernels *k, dataset *d, char *what, size_t what_len,
                         char *notes, size_t notes_len)
{
    const char *prog = k->prog, *refused = NULL;
    if (o->input && (o->gen_given || o->kappa_given))
        refused = "--family, --seed and --kappa describe a generated batch, not --input";
    else if (o->kappa_given && o->family != FAMILY_ILLCOND) refused = "--kappa applies only to --family illcond";
    else if (o->fmt_given && !o->output) refused = "--format applies only to --output";
    else if (!o->input == !o->n || (!o->input && !o->batch) || (o->input && o->batch))
        refused = "give either --input FILE or both --n and --batch";
    if (refused) {
        fprintf(stderr, "%s: %s\n", prog, refused);
        return 2;
    }
    char err[DATASET_ERR_LEN];
    if (o->input) {
        if (dataset_read_opts(o->input, d, DATASET_ALLOW_NONFINITE, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return 2;
        }
        o->n = d->n;
        o->batch = (long long)d->count;
        if (!o->fmt_given)
            o->fmt = file_is_binary(o->input) ? DATASET_BINARY : DATASET_TEXT; /* factors as the input came */
    }
    return k->prepare(k->factorizer.self, &o->k, (int)o->n, (size_t)o->batch, &o->chunk, what, what_len, notes,
                      notes_len);
}

static int run_batch(driver_options *o, const batch_kernels *k, dataset *d, const char *what, const char *notes);

/* The largest n the driver checks against the full float64 reference. */
#define CHECK_FULL_MAX_N 1024

int batch_driver_main(int argc, char **argv, const batch_kernels *k)
{
    driver_options o = parse_options(argc, argv, k);
    dataset d = {0, 0, NULL};
    char what[160] = "", notes[2048] = "";
    int status = check_options(&o, k, &d, what, sizeof what, notes, sizeof notes);
    if (status == 3) status = 0; /* --explain: said, not run */
    else if (!status) status = run_batch(&o, k, &d, what, notes);
    if (k->release) k->release(k->factorizer.self);
    dataset_free(&d); /* the file's data, whatever happened (run_batch may stop early: no GPU) */
    return status;
}

/* The run, step by step: the GPUs and their memory budget (plan_gpus), the host buffers
 * (run_buffers_alloc), what is about to run (print_header), the sliced run (sliced_run.h), what it
 * measured (print_measured), the failed matrices (report_failures), the checks (check_samples) and
 * the files (write_files). run_batch calls them in that order and frees the buffers on every path. */

/* The GPUs: every visible one by default, a worker each (--gpus picks them). The budget is per
 * worker: the least free memory of any GPU, shared by the workers on it (--max-gpu-memory caps it). */
typedef struct {
    int devices[SLICED_MAX_WORKERS], workers;
    unsigned long long budget;
} gpu_plan;

static int plan_gpus(const driver_options *o, const char *prog, gpu_plan *g)
{
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    if (!strcmp(o->gpus, "all")) {
        g->workers = visible < SLICED_MAX_WORKERS ? visible : SLICED_MAX_WORKERS;
        for (int k = 0; k < g->workers; k++) g->devices[k] = k;
    } else g->workers = parse_gpus(o->gpus, g->devices);
    size_t free_b = (size_t)-1, total_b = 0;
    for (int w = 0; w < g->workers; w++) {
        if (g->devices[w] >= visible) {
            fprintf(stderr, "%s: --gpus %s: there is no GPU %d (this machine shows %d: 0..%d)\n", prog, o->gpus,
                    g->devices[w], visible, visible - 1);
            return 2;
        }
        int sharing = 0;
        for (int v = 0; v < g->workers; v++) sharing += g->devices[v] == g->devices[w];
        size_t f, t;
        CUDA_CHECK(cudaSetDevice(g->devices[w]));
        CUDA_CHECK(cudaMemGetInfo(&f, &t));
        if (f / sharing < free_b) free_b = f / sharing, total_b = t;
    }
    CUDA_CHECK(cudaSetDevice(g->devices[0]));
    g->budget = o->budget ? o->budget : (unsigned long long)(free_b * 0.9);
    if (g->budget > free_b) {
        fprintf(stderr, "%s: --max-gpu-memory %.2f GiB, but only %.2f GiB of %.2f GiB are free%s\n", prog,
                g->budget / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0,
                g->workers > 1 ? " (per worker)" : "");
        return 2;
    }
    return 0;
}

/* The host side of a run. */
typedef struct {
    size_t nn, bytes;  /* floats per matrix, bytes of the whole batch */
    float *host;       /* the factors: the file's data (factored in place), an output buffer, or NULL */
    int owns_host;     /* host is ours to free (not the file's data) */
    int *info;         /* pinned, one per matrix */
    long long check;   /* matrices to check, spread over the batch */
    int sampled_check; /* past CHECK_FULL_MAX_N: by sampled residuals */
    size_t *sample;    /* their indices */
    float *sample_A;   /* their inputs, kept before the factorization overwrites them */
    float *sample_L;   /* their factors, when the factors are not kept on the host (pinned) */
    size_t nonfinite;  /* matrices of the file that hold NaN or Inf */
} run_buffers;

static void run_buffers_alloc(const driver_options *o, const dataset *d, const gen_params *p, run_buffers *r)
{
    const long long n = o->n, batch = o->batch;
    *r = (run_buffers){.nn = (size_t)n * n};
    r->bytes = (size_t)batch * r->nn * sizeof(float);
    r->owns_host = !o->input && o->output;
    r->host = o->input ? d->data : r->owns_host ? host_alloc(r->bytes, "the factors to write") : NULL;
    CUDA_CHECK(cudaMallocHost((void **)&r->info, (size_t)batch * sizeof(int)));
    r->check = o->check > batch ? batch : o->check;
    /* The float64 check costs n^3 / 3 per matrix on the CPU (seconds past n = 1024, an hour at
     * 32768): past CHECK_FULL_MAX_N at most two matrices, by the sampled residual (checks.h). */
    r->sampled_check = n > CHECK_FULL_MAX_N;
    if (r->sampled_check && r->check > 2) r->check = 2;
    r->sample = host_alloc_array((size_t)r->check + 1, sizeof(size_t), "sample list");
    r->sample_A = host_alloc_array((size_t)r->check + 1, r->nn * sizeof(float), "sampled inputs");
    for (long long s = 0; s < r->check; s++) {
        r->sample[s] = r->check > 1 ? (size_t)((double)(batch - 1) * s / (r->check - 1)) : 0;
        if (o->input) memcpy(r->sample_A + s * r->nn, d->data + r->sample[s] * r->nn, r->nn * sizeof(float));
        else gen_batch_host(p, (int)n, r->sample[s], 1, r->sample_A + s * r->nn);
    }
    if (!r->host) CUDA_CHECK(cudaMallocHost((void **)&r->sample_L, ((size_t)r->check + 1) * r->nn * sizeof(float)));
    if (o->input)
        for (long long b = 0; b < batch; b++) {
            int finite = 1;
            for (size_t k = 0; k < r->nn; k++) finite &= isfinite(d->data[b * r->nn + k]) != 0;
            r->nonfinite += !finite;
        }
}

static void run_buffers_free(run_buffers *r)
{
    if (r->owns_host) free(r->host); /* a file's data are freed by the caller */
    if (r->info) CUDA_CHECK(cudaFreeHost(r->info));
    if (r->sample_L) CUDA_CHECK(cudaFreeHost(r->sample_L));
    free(r->sample);
    free(r->sample_A);
}

static void print_header(const driver_options *o, const run_buffers *r, const char *what, const char *notes)
{
    printf("%lld matrices of order %lld (%.3f GB), %s\n", o->batch, o->n, r->bytes / 1e9, what);
    fputs(notes, stdout);
    if (o->input) printf("  read %s%s\n", o->input, r->nonfinite ? "" : " (all values finite)");
    else printf("  generating %s (seed %llu) on the GPU\n", family_name(o->family), o->seed);
}

/* Slices, throughput, each GPU's share and what overlapping the copies bought. */
static void print_measured(const driver_options *o, const run_buffers *r, const gpu_plan *g, const sliced_report *rep)
{
    const int n = (int)o->n, host = r->host != NULL;
    if (rep->slices > 1)
        printf("  %zu slices of %zu matrices (GPU budget %.2f GiB)%s\n", rep->slices, rep->slice,
               g->budget / 1073741824.0, rep->pinned || !host ? "" : "; host buffer not pinned, copies not overlapped");
    double moved = (double)(rep->bytes_in + rep->bytes_out);
    printf("  end to end in %.3f ms (one cold run; make bench-stage-4 times the kernels properly): %.1f GFLOP/s",
           rep->wall_ms, potrf_flops(n) * o->batch / (rep->wall_ms * 1e6));
    if (host) printf(", %.2f GB/s over the host link%s", moved / (rep->wall_ms * 1e6), rep->workers > 1 ? "s" : "");
    printf("\n");
    for (int w = 0; rep->workers > 1 && w < rep->workers; w++) { /* each GPU's share, and its own link */
        const sliced_worker_report *wr = &rep->worker[w];
        printf("    GPU %d: %zu matrices in %zu slices, %.3f ms, %.1f GFLOP/s", wr->device, wr->matrices, wr->slices,
               wr->wall_ms, potrf_flops(n) * wr->matrices / (wr->wall_ms * 1e6));
        if (host)
            printf(", %.2f GB/s over its link (measured %.1f GB/s in, %.1f out)",
                   2.0 * wr->matrices * r->nn * sizeof(float) / (wr->wall_ms * 1e6), wr->h2d_gbs, wr->d2h_gbs);
        printf("\n");
    }
    if (host || rep->slices > 1) /* what overlapping bought: the stages' sum against the wall time */
        printf("  stages summed over the slices: copy in %.3f ms, %s %.3f ms, copy out %.3f ms; overlap %.2fx\n",
               rep->h2d_ms, host ? "factor (with conversions)" : "generate and factor", rep->compute_ms, rep->d2h_ms,
               (rep->h2d_ms + rep->compute_ms + rep->d2h_ms) / rep->wall_ms);
    if (rep->h2d_gbs > 0) {
        /* The link is full duplex: copies in and out can run at the same time. */
        double bound = fmax(rep->bytes_in / (rep->h2d_gbs * 1e6), rep->bytes_out / (rep->d2h_gbs * 1e6));
        printf("  copy bandwidth measured%s: %.1f GB/s in, %.1f GB/s out; the copies alone need %.3f ms: %.0f %% of "
               "that bound"
               " (pinning took %.1f ms, not counted)\n",
               rep->workers > 1 ? ", summed over the GPUs' links" : "", rep->h2d_gbs, rep->d2h_gbs, bound,
               100.0 * bound / rep->wall_ms, rep->pin_ms);
    }
}

/* The matrices that are not positive definite: counted, the first five named, their factors
 * zeroed (the documented factor of a failed matrix). Returns how many. */
static size_t report_failures(const driver_options *o, run_buffers *r)
{
    size_t failed = 0, shown = 0;
    for (long long b = 0; b < o->batch; b++) {
        if (r->info[b] == 0) continue;
        failed++;
        if (shown++ < 5) printf("  matrix %lld: not positive definite, info = %d\n", b, r->info[b]);
        if (r->host) memset(r->host + b * r->nn, 0, r->nn * sizeof(float));
    }
    printf("  %zu of %lld matrices not positive definite", failed, o->batch);
    if (o->input) printf(" (%zu hold NaN or Inf)", r->nonfinite);
    printf("\n");
    return failed;
}

/* --check: the sampled matrices against the float64 reference (or, past CHECK_FULL_MAX_N, by
 * sampled residuals). 0: all good (or none asked), 1: a check failed. */
static int check_samples(const driver_options *o, const run_buffers *r)
{
    if (r->check <= 0) return 0;
    const int n = (int)o->n;
    double worst = 0;
    int bad = 0;
    long long unchecked = 0;
    for (long long s = 0; s < r->check; s++) {
        const size_t m = r->sample[s];
        const float *A = r->sample_A + s * r->nn, *L = r->host ? r->host + m * r->nn : r->sample_L + s * r->nn;
        factor_check fc;
        if (o->k.precision && r->info[m] == 0) { /* precision high: not fp32-accurate; the normwise residual */
            fc.resid = residual_norm1_ratio(n, A, L, r->sampled_check ? n / 64 + 1 : 1);
            fc.ok = fc.resid <= NORMWISE_BOUND(n);
            fc.ref_info = 0;
            snprintf(fc.detail, sizeof fc.detail, "||A - L L^T||_1 / ||A||_1 = %.3g > 20 n eps = %.3g", fc.resid,
                     NORMWISE_BOUND(n));
        } else if (r->sampled_check) { /* a failed matrix's minor would need the O(n^3) reference: not checked */
            double resid = 0;
            if (r->info[m] != 0) {
                unchecked++;
                continue;
            }
            fc.ok = check_sampled_residual(n, A, L, 4096, fc.detail, sizeof fc.detail, &resid);
            fc.ref_info = 0;
            fc.resid = resid;
        } else check_factor(n, A, L, r->info[m], &fc);
        if (!fc.ok) {
            if (bad++ == 0) printf("  CHECK FAILED matrix %zu: %s\n", m, fc.detail);
        } else if (fc.ref_info == 0 && fc.resid > worst) worst = fc.resid;
    }
    if (o->k.precision)
        printf("  checked %lld matrices (precision %s) by ||A - L L^T||_1 / ||A||_1%s: %s (worst %.2g, bound 20 n "
               "eps = %.2g)%s\n",
               r->check - unchecked, o->k.precision == 2 ? "medium" : "high",
               r->sampled_check ? " of every 64th row" : "", bad ? "FAILED" : "ok", worst, NORMWISE_BOUND(n),
               unchecked ? "; matrices with info != 0 not checked" : "");
    else if (r->sampled_check)
        printf("  checked %lld matrices by 4096 sampled entries of A - L L^T each (n > %d: a float64 factor would take "
               "minutes): %s (worst scaled residual %.2g)%s\n",
               r->check - unchecked, CHECK_FULL_MAX_N, bad ? "FAILED" : "ok", worst,
               unchecked ? "; matrices with info != 0 not checked" : "");
    else
        printf("  checked %lld matrices against the float64 reference: %s (max residual %.2g, bound %.2g)\n", r->check,
               bad ? "FAILED" : "ok", worst, RESID_TOL);
    return bad ? 1 : 0;
}

/* --info and --output. 0, or 2 when a file could not be written (said on stderr). */
static int write_files(const driver_options *o, const char *prog, const run_buffers *r, size_t failed)
{
    char err[DATASET_ERR_LEN];
    if (o->info_path) {
        if (write_infos(o->info_path, r->info, (size_t)o->batch, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return 2;
        }
        printf("  wrote %lld infos to %s (%zu nonzero)\n", o->batch, o->info_path, failed);
    }
    if (o->output) {
        dataset out = {(int)o->n, (size_t)o->batch, r->host};
        if (dataset_write(o->output, &out, o->fmt, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return 2;
        }
        printf("  wrote the factors to %s\n", o->output);
    }
    return 0;
}

static int run_batch(driver_options *o, const batch_kernels *k, dataset *d, const char *what, const char *notes)
{
    const char *prog = k->prog;
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        fprintf(stderr, "%s: no GPU: %s\n", prog, reason);
        return 2;
    }
    gpu_plan g;
    if (plan_gpus(o, prog, &g) != 0) return 2;
    gen_params p = gen_params_make(o->family, o->seed, o->kappa, 0);
    run_buffers r;
    run_buffers_alloc(o, d, &p, &r);
    print_header(o, &r, what, notes);
    sliced_job job = {.factorizer = k->factorizer,
                      .n = (int)o->n,
                      .batch = (size_t)o->batch,
                      .chunk = o->chunk,
                      .host = r.host,
                      .gen = o->input ? NULL : &p,
                      .info = r.info,
                      .nsamples = r.host ? 0 : (size_t)r.check,
                      .sample_index = r.sample,
                      .sample_out = r.sample_L,
                      .gpu_budget = (size_t)g.budget,
                      .to_layout = k->to_layout,
                      .from_layout = k->from_layout,
                      .devices = g.devices,
                      .workers = g.workers};
    sliced_report rep;
    int status = sliced_run(&job, &rep) != 0 ? 2 : 0;
    if (status == 0) {
        print_measured(o, &r, &g, &rep);
        status = check_samples(o, &r); /* first: the factors as the kernel left them */
        const size_t failed = report_failures(o, &r);
        if (write_files(o, prog, &r, failed) != 0) status = 2;
    }
    run_buffers_free(&r);
    if (fflush(stdout) != 0) status = 2;
    return status;
}
