/* dataset_check.c - read a dataset file (binary or text), validate it and factor every matrix
 * with the float64 reference Cholesky.
 *
 *   build/datasets/dataset_check FILE
 *
 * Prints the batch's shape and how many matrices are SPD; the first one that is not, with its
 * info. Exit status 0 for a valid file (SPD or not), 2 for a file that cannot be read (the
 * message names the file and the problem), as for bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include "checks.h"
#include "dataset_io.h"

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: dataset_check FILE\n");
        return 2;
    }
    dataset d;
    char err[DATASET_ERR_LEN];
    if (dataset_read(argv[1], &d, err, sizeof err) != 0) {
        fprintf(stderr, "dataset_check: %s\n", err);
        return 2;
    }
    size_t nn = (size_t)d.n * d.n, failed = 0, first = 0;
    int first_info = 0;
    double *w = malloc(nn * sizeof(double));
    for (size_t b = 0; b < d.count; b++) {
        for (size_t k = 0; k < nn; k++) w[k] = d.data[b * nn + k];
        int info = ref_potrf_d(d.n, w);
        if (info && !failed++) { first = b; first_info = info; }
    }
    printf("%s: %zu matrices of order %d; %zu SPD, %zu not", argv[1], d.count, d.n, d.count - failed, failed);
    if (failed) printf(" (first: matrix %zu, info %d)", first, first_info);
    printf("\n");
    free(w);
    dataset_free(&d);
    return 0;
}
