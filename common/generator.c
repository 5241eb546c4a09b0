/* generator.c - host side of the seeded matrix families (the element formulas are in
 * generator.h; gpu_batch.cu is the device side). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "generator.h"
#include "host_alloc.h"
#include "layout.h"

static const char *const family_names[FAMILY_COUNT] = {"spd", "illcond", "nonspd", "hp3"};

const char *family_name(family_t f) { return (f >= 0 && f < FAMILY_COUNT) ? family_names[f] : "?"; }

int family_parse(const char *name, family_t *out)
{
    for (int f = 0; f < FAMILY_COUNT; f++)
        if (strcmp(name, family_names[f]) == 0) {
            *out = (family_t)f;
            return 0;
        }
    return -1;
}

gen_params gen_params_make(family_t family, uint64_t seed, double kappa, int fail_at)
{
    gen_params p;
    p.family = family;
    p.seed = seed;
    /* KMS: cond < ((1 + rho)/(1 - rho))^2, so rho = (sqrt(kappa) - 1)/(sqrt(kappa) + 1). */
    double s = sqrt(kappa > 1.0 ? kappa : 1.0);
    p.rho = (float)((s - 1.0) / (s + 1.0));
    p.fail_at = fail_at;
    return p;
}

void gen_batch_host(const gen_params *p, int n, size_t first, size_t count, float *out)
{
    _Pragma("omp parallel for schedule(static)")
    for (long long k = 0; k < (long long)count; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                out[rowmajor_index(n, (size_t)k, i, j)] = gen_element(p, n, first + (size_t)k, i, j);
}

void gen_zero_pivot_host(int n, int k, uint64_t seed, float *out)
{
    /* L0 first (n^2 draws), then its Gram matrix in integers: O(n^3 / 6), a few ms at n = 1024 */
    signed char *L0 = host_alloc((size_t)n * n, "zero-pivot matrix");
    for (int i = 0; i < n; i++)
        for (int m = 0; m <= i; m++)
            L0[(size_t)i * n + m] =
                (signed char)(m == i ? (i != k) : (int)(gen_bits(seed, 0, (uint32_t)i, (uint32_t)m, 9) % 3) - 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            int s = 0; /* (L0 L0^T)_ij = sum over m <= j of L0[i][m] L0[j][m] */
            for (int m = 0; m <= j; m++) s += L0[(size_t)i * n + m] * L0[(size_t)j * n + m];
            out[(size_t)i * n + j] = out[(size_t)j * n + i] = (float)s;
        }
    free(L0);
}
