/* hp3_study.c - how often is the seed project's recipe A = randi(n,n); A = (A+A')/2 + n*I
 * positive definite? Factors 1000 seeded hp3 matrices per n with the float64 reference.
 *
 *   build/datasets/hp3_study [count]     (make hp3-study)
 *
 * Why it fails: the symmetric part has entries around (n+1)/2, so it is close to a rank-one
 * matrix with eigenvalue ~ n(n+1)/2, plus a random symmetric part whose eigenvalues spread to about
 * +-sqrt(n) * (n/sqrt(12)) ~ 0.29 n^1.5 (semicircle law). Adding n*I shifts everything by n:
 * once 0.29 n^1.5 > n (n above about 12, earlier by chance) the smallest eigenvalue goes negative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cli.h"
#include "generator.h"
#include "host_alloc.h"

int main(int argc, char **argv)
{
    long long count = 1000;
    int args = cli_help_only(
        argc, argv,
        "usage: hp3_study [COUNT]   how often the seed project's recipe is SPD, COUNT matrices per n (default 1000)\n");
    if (args > 1) {
        fprintf(stderr, "hp3_study: one argument at most (COUNT), got %d\n", args);
        return 2;
    }
    if (args == 1 && !cli_parse_ll(argv[optind], 1, 1000000, &count))
        cli_bad_value("hp3_study", "COUNT", argv[optind], "an integer 1..1000000");
    gen_params p = gen_params_make(FAMILY_HP3, GEN_DEFAULT_SEED, 0, 0);
    printf("| n | not SPD (of %lld) | share |\n| ---: | ---: | ---: |\n", count);
    for (int n = 4; n <= 100; n += (n < 16 ? 1 : (n < 40 ? 4 : 10))) {
        long long bad = 0;
        _Pragma("omp parallel for reduction(+ : bad) schedule(dynamic)")
        for (long long b = 0; b < count; b++) {
            double *w = host_alloc((size_t)n * n * sizeof(double), "float64 workspace");
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) w[i * n + j] = gen_element(&p, n, (uint64_t)b, i, j);
            bad += ref_potrf_d(n, w) != 0;
            free(w);
        }
        printf("| %d | %lld | %.1f %% |\n", n, bad, 100.0 * bad / count);
    }
    return 0;
}
