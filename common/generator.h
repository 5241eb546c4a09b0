/* generator.h - deterministic, seeded families of test matrices, element by element.
 *
 * Every element is a pure function of (family, seed, n, matrix b, i, j): a counter-based hash,
 * no random-number state. So the GPU can fill gigabytes in milliseconds (one thread per element,
 * gpu_batch.cu), the host can regenerate any single matrix of that batch to check it, and
 * the same seed always gives the same bytes. Only exact float operations are used (integer
 * conversions, power-of-two scalings, single adds and multiplies that no compiler can fuse into
 * an FMA), so the host and the device produce bit-identical matrices.
 *
 * Families (all symmetric):
 *   spd      a_ij = u_ij in [-1, 1) off the diagonal, a_ii = n + 1 + u_ii.
 *            Diagonally dominant, so SPD; Gershgorin puts every eigenvalue in [1, 2n + 2],
 *            so cond_2(A) <= 2n + 2. The default.
 *   illcond  a_ij = d_i d_j rho^|i-j|: a Kac-Murdock-Szego core scaled by d_i in [1, 2).
 *            The core's eigenvalues lie in [(1-rho)/(1+rho), (1+rho)/(1-rho)], and rho is chosen
 *            from the requested kappa so that cond_2(core) < kappa; the scaling changes the
 *            condition number by at most a factor 4.
 *   nonspd   spd, except a_kk = -(1 + |u|) for the planted k (1-based). Leading minors of
 *            order < k are diagonally dominant hence positive definite; the k-th pivot is
 *            a_kk - sum l_kj^2 <= -1, so Cholesky must report info = k exactly.
 *   hp3      the seed project's recipe, A = randi(n, n); A = (A + A')/2 + n*I, with randi
 *            uniform on the integers 1..n. Kept to teach that it is NOT positive definite for n
 *            above about 8 (see datasets/README.md for the measured failure rate).
 */
#ifndef GENERATOR_H
#define GENERATOR_H

#include <stdint.h>
#include <stddef.h>
#include "portable.h"

typedef enum { FAMILY_SPD = 0, FAMILY_ILLCOND, FAMILY_NONSPD, FAMILY_HP3, FAMILY_COUNT } family_t;

typedef struct {
    family_t family;
    uint64_t seed;
    float rho;   /* illcond only: set by gen_params_make from kappa */
    int fail_at; /* nonspd only: planted leading minor k in 1..n; 0 = a random k per matrix */
} gen_params;

#define GEN_DEFAULT_SEED 2017u
#define GEN_DEFAULT_KAPPA 1.0e4

/* splitmix64's finalizer: a bijective 64-bit mix with good avalanche. */
HD static inline uint64_t gen_mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 64 random bits for (seed, matrix b, i, j, stream). Different streams give independent values
 * for the same position (the diagonal of nonspd, hp3's two halves, ...). */
HD static inline uint64_t gen_bits(uint64_t seed, uint64_t b, uint32_t i, uint32_t j, uint32_t stream)
{
    uint64_t pos = ((uint64_t)i << 32) | (uint64_t)j;
    return gen_mix64(seed ^ gen_mix64(b ^ gen_mix64(pos ^ ((uint64_t)stream << 56) ^ 0x5851F42D4C957F2Dull)));
}

/* Uniform in [-1, 1), a multiple of 2^-31: an exact int -> float conversion (24 bits kept) times
 * a power of two, so host and device agree bit for bit. */
HD static inline float gen_sym_uniform(uint64_t bits)
{
    int32_t r = (int32_t)(bits >> 40) - (1 << 23); /* in [-2^23, 2^23) */
    return (float)r * (1.0f / 8388608.0f);
}

/* rho^k by repeated squaring: the same multiplications in the same order everywhere. */
HD static inline float gen_powi(float rho, int k)
{
    float result = 1.0f, base = rho;
    while (k > 0) {
        if (k & 1) result *= base;
        base *= base;
        k >>= 1;
    }
    return result;
}

/* The planted failing minor (1-based) of matrix b of a nonspd batch. */
HD static inline int gen_nonspd_fail_at(const gen_params *p, int n, uint64_t b)
{
    if (p->fail_at > 0) return p->fail_at <= n ? p->fail_at : n;
    return 1 + (int)(gen_bits(p->seed, b, 0xFFFFFFFFu, 0xFFFFFFFFu, 7) % (uint64_t)n);
}

/* Element (i, j) of matrix b. */
HD static inline float gen_element(const gen_params *p, int n, uint64_t b, int i, int j)
{
    uint32_t lo = (uint32_t)(i < j ? i : j), hi = (uint32_t)(i < j ? j : i); /* symmetric */
    switch (p->family) {
    case FAMILY_ILLCOND: {
        float di = (float)(256u + (uint32_t)(gen_bits(p->seed, b, (uint32_t)i, 0, 3) >> 56)) * (1.0f / 256.0f);
        float dj = (float)(256u + (uint32_t)(gen_bits(p->seed, b, (uint32_t)j, 0, 3) >> 56)) * (1.0f / 256.0f);
        float core = gen_powi(p->rho, (int)(hi - lo));
        return (di * dj) * core;
    }
    case FAMILY_HP3: {
        uint64_t r1 = 1 + gen_bits(p->seed, b, (uint32_t)i, (uint32_t)j, 4) % (uint64_t)n;
        uint64_t r2 = 1 + gen_bits(p->seed, b, (uint32_t)j, (uint32_t)i, 4) % (uint64_t)n;
        float v = (float)(r1 + r2) * 0.5f; /* (A + A')/2: exact, small integers and halves */
        return i == j ? v + (float)n : v;
    }
    case FAMILY_NONSPD:
        if (i == j && i + 1 == gen_nonspd_fail_at(p, n, b)) {
            float u = gen_sym_uniform(gen_bits(p->seed, b, lo, hi, 2));
            return -1.0f - (u < 0.0f ? -u : u);
        }
        /* fall through - everything else is the spd matrix */
    case FAMILY_SPD:
    default: {
        float u = gen_sym_uniform(gen_bits(p->seed, b, lo, hi, 1));
        return i == j ? (float)(n + 1) + u : u;
    }
    }
}

#ifdef __cplusplus
extern "C" {
#endif

/* Family names as used on command lines: "spd", "illcond", "nonspd", "hp3". */
const char *family_name(family_t f);
int family_parse(const char *name, family_t *out); /* 0 on success, -1 if unknown */

/* Fill in params; kappa (> 1) is used by illcond only, fail_at by nonspd only. */
gen_params gen_params_make(family_t family, uint64_t seed, double kappa, int fail_at);

/* Fill count matrices b = first .. first+count-1 of a batch, row-major, into out. OpenMP. */
void gen_batch_host(const gen_params *p, int n, size_t first, size_t count, float *out);

/* A matrix whose pivot k (0-based) is exactly zero in any order of float arithmetic: A = L0 L0^T
 * with L0 unit lower triangular except L0[k][k] = 0, its other entries in {-1, 0, 1} (seeded). Every
 * intermediate value of a Cholesky is then a small integer, so the pivot is 0, not a rounding's
 * +-ulp: LAPACK's info is k + 1, and a test written `d < 0` instead of `!(d > 0)` accepts it. k = -1
 * gives the same kind of matrix, positive definite (every pivot 1). */
void gen_zero_pivot_host(int n, int k, uint64_t seed, float *out);

/* The tests' three places for a zero pivot (0-based): 0 the first, 1 a middle, 2 the last. */
static inline int gen_zero_pivot_place(int n, int place) { return place == 0 ? 0 : place == 1 ? n / 2 : n - 1; }

#ifdef __cplusplus
}
#endif

#endif
