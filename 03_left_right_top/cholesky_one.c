/* cholesky_one.c - the stage 03 driver: ONE matrix, factored by the whole GPU (potrf_grid), or,
 * up to n = 32, by part 1's single block (one launch: faster than anything there).
 *
 *   build/03_left_right_top/cholesky_one --n 4096                       (generated, spd, seed 2017)
 *   build/03_left_right_top/cholesky_one --input A.bin --output L.bin   (a file with one matrix)
 *   build/03_left_right_top/cholesky_one --n 8192 --mode stream --family illcond --seed 7
 *   build/03_left_right_top/cholesky_one --n 16384 --math fp32          (the updates on the fp32 cores)
 *   build/03_left_right_top/cholesky_one --n 16384 --math f16           (precision medium: fp16 bulk)
 *
 * Prints info (as cusolverDnSpotrf: 0, or the first failing minor), the median time of 7 warm runs
 * beside cusolverDnSpotrf's on the same matrix, and the check of the result (float64 reference up
 * to n = 2048, check_sampled_residual above). Exit 0 when the factor is right (or info > 0 and
 * cuSOLVER agrees), 1 when it is not, 2 for bad arguments or input. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cli.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "dataset_io.h"
#include "generator.h"
#include "grid_cholesky.h"
#include "harness.h"
#include "tiled_cholesky.h"
#include "host_alloc.h"
#include "timing.h"

static const char usage[] =
    "usage: cholesky_one (--n N | --input FILE) [options]\n"
    "  --n N            generate one n x n matrix, 1..65536\n"
    "  --input FILE     read one matrix (binary or the seed project's text format)\n"
    "  --family NAME    spd | illcond | nonspd | hp3, for --n (default spd)\n"
    "  --seed S         generator seed, for --n (default 2017)\n"
    "  --mode MODE      block | stream | graph | lookahead | pairs | quads (default: block up to n = 32,\n"
    "                   lookahead up to n = 4032, quads above; block = part 1's one-block kernel)\n"
    "  --math MATH      fp32 | tf32x3 | f16x3 | tf32 | f16: the updates on the fp32 cores, on the tensor\n"
    "                   cores with fp32 accuracy (three TF32 products, or on Hopper's warpgroup bulk three\n"
    "                   fp16 ones; default: where it is faster, see grid_default_math), one TF32 product a\n"
    "                   term (precision high), or the warpgroup bulk in scaled fp16 (precision medium; the\n"
    "                   last two checked by gpu-mode's normwise residual)\n"
    "  --output FILE    write L (binary; .txt: text)\n"
    "  --residual       also print gpu-mode's normwise residual ||A - L L^T||_1 / ||A||_1 in units of n eps,\n"
    "                   whatever the math (every row up to n = 2048, 64 rows above: plot_precision.py)\n"
    "  --opt value and --opt=value both work; -h, --help: this text\n";

typedef struct {
    int n;
    const char *input, *output;
    family_t family;
    unsigned long long seed;
    int mode; /* a grid_mode, MODE_BLOCK, or MODE_DEFAULT */
    int math; /* a grid_math, or MODE_DEFAULT */
    int residual;
} options;

enum { MODE_BLOCK = GRID_MODE_COUNT, MODE_DEFAULT = -1 };

static void bad(const char *opt, const char *value, const char *allowed)
{
    cli_bad_value("cholesky_one", opt, value, allowed);
}

static options parse(int argc, char **argv)
{
    options o = {0, NULL, NULL, FAMILY_SPD, GEN_DEFAULT_SEED, MODE_DEFAULT, MODE_DEFAULT, 0};
    static const struct option longs[] = {{"n", required_argument, 0, 'n'},      {"input", required_argument, 0, 'i'},
                                          {"family", required_argument, 0, 'f'}, {"seed", required_argument, 0, 's'},
                                          {"mode", required_argument, 0, 'm'},   {"output", required_argument, 0, 'o'},
                                          {"math", required_argument, 0, 'M'},   {"residual", no_argument, 0, 'r'},
                                          {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    int c;
    long long v;
    while ((c = cli_getopt(argc, argv, longs, "cholesky_one", usage)) != -1) {
        switch (c) {
        case 'n':
            if (!cli_parse_ll(optarg, 1, GRID_MAX_N, &v)) bad("--n", optarg, "an integer 1..65536");
            o.n = (int)v;
            break;
        case 'i': o.input = optarg; break;
        case 'r': o.residual = 1; break;
        case 'o': o.output = optarg; break;
        case 'f':
            if (family_parse(optarg, &o.family) != 0) bad("--family", optarg, "spd, illcond, nonspd or hp3");
            break;
        case 's':
            if (!cli_parse_ull(optarg, &o.seed)) bad("--seed", optarg, "a non-negative integer");
            break;
        case 'M':
            if ((o.math = grid_math_parse(optarg)) < 0) bad("--math", optarg, "fp32, tf32x3, f16x3, tf32 or f16");
            break;
        case 'm':
            o.mode = !strcmp(optarg, "block") ? MODE_BLOCK : grid_mode_parse(optarg);
            if (o.mode < 0) bad("--mode", optarg, "block, stream, graph, lookahead, pairs or quads");
            break;
        }
    }
    if (optind < argc) {
        fprintf(stderr,
                "cholesky_one: unexpected argument '%s' (everything is an option; cholesky_one --help shows them)\n",
                argv[optind]);
        exit(2);
    }
    if (!o.n == !o.input) {
        fprintf(stderr, "cholesky_one: give exactly one of --n and --input (cholesky_one --help shows the usage)\n");
        exit(2);
    }
    return o;
}

typedef struct {
    int mode, math, n;
    float *d_A, *d_work;
    int *d_info;
} run_ctx;

static void run(void *p)
{
    run_ctx *c = p;
    int rc = c->mode == MODE_BLOCK
                 ? potrf_tiled(LOOK_RIGHT, c->n <= 16 ? 16 : 32, c->n, c->d_A, c->d_info)
                 : potrf_grid_math((grid_mode)c->mode, (grid_math)c->math, c->n, 1, c->d_A, c->d_work, c->d_info);
    if (rc != 0) exit(2);
}

/* Device memory for the matrix, its workspace and a pristine copy, with a clear refusal. */
static void *device_alloc(size_t bytes, const char *what)
{
    void *p;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        size_t free_b = 0, total = 0;
        (void)cudaGetLastError();
        cudaMemGetInfo(&free_b, &total);
        fprintf(stderr, "cholesky_one: not enough GPU memory for %s: asked %.1f MiB, %.1f MiB free of %.1f\n", what,
                bytes / 1048576.0, free_b / 1048576.0, total / 1048576.0);
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    dataset d = {0, 0, NULL};
    char err[DATASET_ERR_LEN], reason[256];
    const int have_gpu = gpu_available(reason, sizeof reason);
    if (o.input) {
        if (dataset_read_opts(o.input, &d, DATASET_ALLOW_NONFINITE, err, sizeof err) != 0) {
            fprintf(stderr, "cholesky_one: %s\n", err);
            return 2;
        }
        if (d.count != 1) {
            fprintf(
                stderr,
                "cholesky_one: %s holds %zu matrices; this driver factors one (the batched drivers: stages 04-06)\n",
                o.input, d.count);
            dataset_free(&d);
            return 2;
        }
    }
    if (!have_gpu) { /* the input was checked; nothing more to do here */
        fprintf(stderr, "cholesky_one: SKIP (%s)\n", reason);
        dataset_free(&d);
        return 0;
    }
    if (!o.input) {
        gen_params p = gen_params_make(o.family, o.seed, GEN_DEFAULT_KAPPA, 0);
        d.n = o.n;
        d.count = 1;
        d.data = host_alloc((size_t)o.n * o.n * sizeof(float), "the matrix");
        gen_batch_host(&p, o.n, 0, 1, d.data);
    }
    const int n = d.n;
    if (o.mode == MODE_DEFAULT) o.mode = n <= 32 ? MODE_BLOCK : (int)grid_default_mode(n);
    if (o.math == MODE_DEFAULT) o.math = (int)grid_default_math(n, 1);
    const size_t bytes = (size_t)n * n * sizeof(float), work = grid_workspace_bytes(n);
    run_ctx c = {o.mode,
                 o.math,
                 n,
                 device_alloc(bytes, "the matrix"),
                 work ? device_alloc(work, "the padded copy") : NULL,
                 device_alloc(sizeof(int), "info")};
    float *d_pristine = device_alloc(bytes, "a pristine copy"), *L = host_alloc(bytes, "the factor");
    CUDA_CHECK(cudaMemcpy(d_pristine, d.data, bytes, cudaMemcpyHostToDevice));
    timing_stats t = time_gpu_restoring(run, &c, c.d_A, d_pristine, bytes);
    timing_stats tc = oracle_time_potrf(n, d.data);
    int info;
    CUDA_CHECK(cudaMemcpy(L, c.d_A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&info, c.d_info, sizeof info, cudaMemcpyDeviceToHost));
    const int warpgroup = o.mode != MODE_BLOCK && grid_warpgroup_update((grid_math)o.math, o.n, 1);
    printf("n = %d, mode %s: info %d; %s updates%s; %.4f ms (cusolverDnSpotrf %.4f ms, x cuSOLVER %.2f), %.1f "
           "GFLOP/s\n",
           n, o.mode == MODE_BLOCK ? "block" : grid_mode_name((grid_mode)o.mode), info,
           o.mode == MODE_BLOCK ? "fp32" : grid_math_name((grid_math)o.math), warpgroup ? " (warpgroup MMA)" : "",
           t.median_ms, tc.median_ms, tc.median_ms / t.median_ms, potrf_flops(n) / (t.median_ms * 1e6));
    int ok;
    if (o.mode != MODE_BLOCK && grid_math_reduced((grid_math)o.math)) { /* not fp32-accurate: the normwise check */
        const int step = n <= 4096 ? 1 : n / 64;                        /* past 4096, 64 rows: a lower estimate */
        if (info) {                                                     /* a failing minor: cuSOLVER's */
            float *C = host_alloc(bytes, "cuSOLVER's factor");
            const int cinfo = oracle_potrf_host(n, d.data, C);
            ok = info == cinfo;
            printf("check (cuSOLVER's info %d): %s\n", cinfo, ok ? "ok" : "WRONG");
            free(C);
        } else {
            const double ratio = residual_norm1_ratio(n, d.data, L, step);
            ok = ratio <= NORMWISE_BOUND(n);
            printf("check (||A - L L^T||_1 / ||A||_1 %s= %.3g, bound 20 n eps = %.3g): %s\n",
                   step > 1 ? "of 64 rows " : "", ratio, NORMWISE_BOUND(n), ok ? "ok" : "WRONG");
        }
    } else if (n <= 2048) {
        factor_check r;
        check_factor(n, d.data, L, info, &r);
        ok = r.ok;
        printf("check (float64 reference): %s%s\n", ok ? "ok" : "WRONG: ", ok ? "" : r.detail);
    } else {
        float *C = host_alloc(bytes, "cuSOLVER's factor");
        int cinfo = oracle_potrf_host(n, d.data, C);
        ok = info == cinfo && (info != 0 || check_sampled_residual(n, d.data, L, 4096, err, sizeof err, NULL));
        if (info != cinfo) snprintf(err, sizeof err, "info %d, cuSOLVER's %d", info, cinfo);
        printf("check (cuSOLVER's info, sampled residual): %s%s\n", ok ? "ok" : "WRONG: ", ok ? "" : err);
        free(C);
    }
    if (o.residual && info == 0) { /* the same quantity for every math, so that they can be compared */
        const int step = n <= 2048 ? 1 : n / 64;
        const double ratio = residual_norm1_ratio(n, d.data, L, step);
        printf("residual: ||A - L L^T||_1 / ||A||_1 = %.4g = %.4g n eps (%s; math %s)\n", ratio,
               ratio / (n * (double)FLT_EPSILON), step > 1 ? "64 rows" : "every row",
               o.mode == MODE_BLOCK ? "fp32" : grid_math_name((grid_math)o.math));
    }
    if (o.output) {
        dataset out = {n, 1, L};
        size_t len = strlen(o.output);
        dataset_format fmt = len > 4 && !strcmp(o.output + len - 4, ".txt") ? DATASET_TEXT : DATASET_BINARY;
        if (dataset_make_parent_dirs(o.output, err, sizeof err) != 0 ||
            dataset_write(o.output, &out, fmt, err, sizeof err) != 0) {
            fprintf(stderr, "cholesky_one: %s\n", err);
            return 2;
        }
    }
    CUDA_CHECK(cudaFree(c.d_A));
    CUDA_CHECK(cudaFree(d_pristine));
    CUDA_CHECK(cudaFree(c.d_info));
    if (c.d_work) CUDA_CHECK(cudaFree(c.d_work));
    free(L);
    dataset_free(&d);
    return ok ? 0 : 1;
}
