/* dataset_check.c - read a dataset file (binary or text), validate it and factor every matrix
 * with the float64 reference Cholesky.
 *
 *   build/datasets/dataset_check [--allow-nonfinite] FILE
 *
 * Prints the batch's shape and how many matrices are SPD; the first one that is not, with its
 * info. NaN and Inf values make the file invalid unless --allow-nonfinite is given (then the
 * matrices holding them are counted, and the reference flags them through info as LAPACK does).
 * Exit status 0 for a valid file (SPD or not), 2 for a file that cannot be read (the message
 * names the file and the problem), as for bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cli.h"
#include "dataset_io.h"
#include "host_alloc.h"

static const char *usage =
    "usage: dataset_check [--allow-nonfinite] FILE\n"
    "  validates a dataset (binary or text) and factors every matrix with the float64 reference\n"
    "  --allow-nonfinite   accept NaN and Inf values (counted per matrix) instead of refusing the file\n"
    "  exit status: 0 valid file, 2 unreadable or invalid file or bad arguments\n";

int main(int argc, char **argv)
{
    const char *path = NULL;
    unsigned flags = 0;
    static const struct option longs[] = {
        {"allow-nonfinite", no_argument, 0, 'a'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    while (cli_getopt(argc, argv, longs, "dataset_check", usage) != -1)
        flags |= DATASET_ALLOW_NONFINITE; /* the one option */
    if (optind + 1 < argc) {
        fprintf(stderr, "dataset_check: one FILE only (got '%s' and '%s')\n", argv[optind], argv[optind + 1]);
        return 2;
    }
    if (optind < argc) path = argv[optind];
    if (!path) {
        fprintf(stderr, "dataset_check: no FILE given (dataset_check --help shows the usage)\n");
        return 2;
    }
    dataset d;
    char err[DATASET_ERR_LEN];
    if (dataset_read_opts(path, &d, flags, err, sizeof err) != 0) {
        fprintf(stderr, "dataset_check: %s\n", err);
        return 2;
    }
    size_t nn = (size_t)d.n * d.n, failed = 0, first = 0, nonfinite = 0;
    int first_info = 0;
    double *w = host_alloc_array(nn, sizeof(double), "float64 workspace");
    for (size_t b = 0; b < d.count; b++) {
        int finite = 1;
        for (size_t k = 0; k < nn; k++) {
            w[k] = d.data[b * nn + k];
            finite &= isfinite(w[k]) != 0;
        }
        nonfinite += !finite;
        int info = ref_potrf_d(d.n, w);
        if (info && !failed++) {
            first = b;
            first_info = info;
        }
    }
    printf("%s: %zu matrices of order %d; %zu SPD, %zu not", path, d.count, d.n, d.count - failed, failed);
    if (failed) printf(" (first: matrix %zu, info %d)", first, first_info);
    if (flags & DATASET_ALLOW_NONFINITE) printf("; %zu hold NaN or Inf", nonfinite);
    printf("\n");
    free(w);
    dataset_free(&d);
    return fflush(stdout) == 0 ? 0 : 2;
}
