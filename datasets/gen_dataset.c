/* gen_dataset.c - write a seeded batch of test matrices to a file.
 *
 *   build/datasets/gen_dataset [--family spd|illcond|nonspd|hp3] [--n N] [--count C]
 *                              [--seed S] [--kappa K] [--fail-at k] [--format bin|txt]
 *                              [--out FILE]
 *
 * Same arguments, same bytes (common/generator.h). The batch is generated and written in slabs
 * of about 64 MB, so any size fits in memory; large runs print their progress on stderr.
 * Bad arguments: one line saying what is wrong and what is allowed, exit status 2 (common/cli.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "dataset_io.h"
#include "generator.h"
#include "cli.h"
#include "host_alloc.h"

static const char *usage_text(void)
{
    static char text[1400];
    snprintf(text, sizeof text,
             "usage: gen_dataset [--family spd|illcond|nonspd|hp3] [--n N] [--count C] [--seed S]\n"
             "                   [--kappa K] [--fail-at k] [--format bin|txt] [--out FILE]\n"
             "  --family   spd (default), illcond (condition number ~kappa), nonspd (info = k),\n"
             "             hp3 (the seed project's recipe, not SPD for n > ~8)\n"
             "  --n        matrix order, 1..%d (default 32)\n"
             "  --count    number of matrices, >= 1 (default 1024)\n"
             "  --seed     64-bit seed (default %u)\n"
             "  --kappa    illcond only: condition number of the core, > 1 (default %g)\n"
             "  --fail-at  nonspd only: the leading minor that fails, 1..n; 0 = random per matrix (default 0)\n"
             "  --format   bin (default) or txt (line 1 count, line 2 n, then count*n rows)\n"
             "  --out      output file; missing directories are created\n"
             "             (default datasets/data/<family>_n<N>_c<C>_s<S>.<format>)\n"
             "  --opt value and --opt=value both work; -h, --help: this text\n",
             DATASET_MAX_N, GEN_DEFAULT_SEED, GEN_DEFAULT_KAPPA);
    return text;
}

int main(int argc, char **argv)
{
    family_t family = FAMILY_SPD;
    long long n = 32, count = 1024, fail_at = 0;
    unsigned long long seed = GEN_DEFAULT_SEED;
    double kappa = GEN_DEFAULT_KAPPA;
    int kappa_given = 0, fail_at_given = 0;
    dataset_format fmt = DATASET_BINARY;
    const char *out = NULL, *prog = "gen_dataset";
    static const struct option longs[] = {{"family", required_argument, 0, 'f'}, {"n", required_argument, 0, 'n'},
                                          {"count", required_argument, 0, 'c'},  {"seed", required_argument, 0, 's'},
                                          {"kappa", required_argument, 0, 'k'},  {"fail-at", required_argument, 0, 'a'},
                                          {"format", required_argument, 0, 'F'}, {"out", required_argument, 0, 'o'},
                                          {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    char n_range[48], fail_range[48];
    snprintf(n_range, sizeof n_range, "an integer 1..%d", DATASET_MAX_N);
    snprintf(fail_range, sizeof fail_range, "an integer 0..%d", DATASET_MAX_N);
    int c;
    while ((c = cli_getopt(argc, argv, longs, prog, usage_text())) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'f':
            if (family_parse(v, &family) != 0) cli_bad_value(prog, "--family", v, "spd, illcond, nonspd or hp3");
            break;
        case 'n':
            if (!cli_parse_ll(v, 1, DATASET_MAX_N, &n)) cli_bad_value(prog, "--n", v, n_range);
            break;
        case 'c':
            if (!cli_parse_ll(v, 1, (long long)1 << 40, &count)) cli_bad_value(prog, "--count", v, "an integer >= 1");
            break;
        case 's':
            if (!cli_parse_ull(v, &seed)) cli_bad_value(prog, "--seed", v, "an integer >= 0");
            break;
        case 'k':
            if (!cli_parse_double(v, 1.0, 1e12, &kappa) || !(kappa > 1.0))
                cli_bad_value(prog, "--kappa", v, "a number > 1, at most 1e12");
            kappa_given = 1;
            break;
        case 'a':
            if (!cli_parse_ll(v, 0, DATASET_MAX_N, &fail_at)) cli_bad_value(prog, "--fail-at", v, fail_range);
            fail_at_given = 1;
            break;
        case 'F':
            if (dataset_format_parse(v, &fmt) != 0) cli_bad_value(prog, "--format", v, "bin or txt");
            break;
        case 'o': out = v; break;
        }
    }
    if (optind < argc) {
        fprintf(stderr,
                "gen_dataset: unexpected argument '%s' (everything is an option; gen_dataset --help shows them)\n",
                argv[optind]);
        return 2;
    }
    /* Options that do not apply are refused rather than silently ignored. */
    if (kappa_given && family != FAMILY_ILLCOND) {
        fprintf(stderr, "gen_dataset: --kappa applies only to --family illcond (this is %s)\n", family_name(family));
        return 2;
    }
    if (fail_at_given && family != FAMILY_NONSPD) {
        fprintf(stderr, "gen_dataset: --fail-at applies only to --family nonspd (this is %s)\n", family_name(family));
        return 2;
    }
    if ((double)count * (double)n * (double)n * sizeof(float) > (double)(1ULL << 50)) {
        fprintf(stderr, "gen_dataset: %lld matrices of order %lld would be %.3g bytes; at most 1 PiB\n", count, n,
                (double)count * (double)n * (double)n * sizeof(float));
        return 2;
    }
    if (family == FAMILY_NONSPD && fail_at > n) {
        fprintf(stderr, "gen_dataset: --fail-at %lld is larger than n = %lld\n", fail_at, n);
        return 2;
    }
    char def[256];
    if (!out) {
        snprintf(def, sizeof def, "datasets/data/%s_n%lld_c%lld_s%llu.%s", family_name(family), n, count, seed,
                 fmt == DATASET_BINARY ? "bin" : "txt");
        out = def;
    }

    /* A file that cannot fit is refused before the first byte (not after filling the disk). */
    char err0[DATASET_ERR_LEN];
    if (dataset_make_parent_dirs(out, err0, sizeof err0) != 0) {
        fprintf(stderr, "gen_dataset: %s\n", err0);
        return 2;
    }
    double need =
        DATASET_HEADER_BYTES + (double)count * (double)n * (double)n * sizeof(float) * (fmt == DATASET_TEXT ? 4 : 1);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash) slash[slash == dir ? 1 : 0] = 0;
    else snprintf(dir, sizeof dir, ".");
    struct stat st;
    struct statvfs vfs;
    if (!(stat(out, &st) == 0 && !S_ISREG(st.st_mode)) && statvfs(dir, &vfs) == 0 &&
        need > (double)vfs.f_bavail * (double)vfs.f_frsize) {
        fprintf(stderr, "gen_dataset: %s: the file needs about %.3g GB but its filesystem has %.3g GB free\n", out,
                need / 1e9, (double)vfs.f_bavail * (double)vfs.f_frsize / 1e9);
        return 2;
    }
    gen_params p = gen_params_make(family, seed, kappa, (int)fail_at);
    size_t nn = (size_t)n * (size_t)n;
    size_t slab = (64u << 20) / (nn * sizeof(float));
    if (slab < 1) slab = 1;
    if (slab > (size_t)count) slab = (size_t)count;
    float *buf = host_alloc(slab * nn * sizeof(float), "a slab of generated matrices");

    /* Write the header with dataset_write on the first slab, then append the rest raw: the
     * payload is matrix after matrix, so slabs simply follow each other. */
    char err[DATASET_ERR_LEN];
    FILE *f = NULL;
    time_t last = time(NULL);
    for (size_t first = 0; first < (size_t)count; first += slab) {
        size_t k = (size_t)count - first < slab ? (size_t)count - first : slab;
        gen_batch_host(&p, (int)n, first, k, buf);
        if (first == 0 && (fmt == DATASET_TEXT || k == (size_t)count)) {
            dataset d = {(int)n, (size_t)count, buf};
            if (k != (size_t)count) { /* text of a large batch: generate it whole */
                free(buf);
                d.data = buf = host_alloc_array((size_t)count * nn, sizeof(float), "the whole batch (text output)");
                gen_batch_host(&p, (int)n, 0, (size_t)count, buf);
            }
            if (dataset_write(out, &d, fmt, err, sizeof err) != 0) {
                fprintf(stderr, "gen_dataset: %s\n", err);
                goto fail;
            }
            break;
        }
        if (first == 0) {
            dataset d = {(int)n, (size_t)count, buf};
            if (dataset_write_header(out, &d, &f, err, sizeof err) != 0) {
                fprintf(stderr, "gen_dataset: %s\n", err);
                goto fail;
            }
        }
        if (fwrite(buf, sizeof(float), k * nn, f) != k * nn) {
            fprintf(stderr, "gen_dataset: %s: write error: %s\n", out, strerror(errno));
            goto fail;
        }
        if (time(NULL) - last >= 2) {
            last = time(NULL);
            fprintf(stderr, "gen_dataset: %zu of %lld matrices written\n", first + k, count);
        }
    }
    if (f) {
        int bad = fclose(f) != 0;
        f = NULL;
        if (bad) {
            fprintf(stderr, "gen_dataset: %s: write error: %s\n", out, strerror(errno));
            goto fail;
        }
    }
    printf("wrote %s: %lld %s matrices of order %lld, seed %llu (%.1f MB)\n", out, count, family_name(family), n, seed,
           (double)count * nn * sizeof(float) / 1e6);
    free(buf);
    return 0;
fail: /* nothing leaks, and a half-written file is not left looking complete */
    if (f) fclose(f);
    free(buf);
    /* only a regular file we were writing: never a device such as /dev/full */
    if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) remove(out);
    return 2;
}
