/* batched_testing.h - the machinery the stage 04 and 05 tests share: a mixed test batch with
 * cuSOLVER's answer, and one configuration run on it in one layout, checked completely. */
#ifndef BATCHED_TESTING_H
#define BATCHED_TESTING_H

#include <stddef.h>
#include <stdint.h>
#include "batched_cholesky.h"
#include "harness.h"

/* A batch of families mixed matrix by matrix (b mod 6): spd (0, 2, 4), a failing pivot (1: in turn
 * a pivot of exactly zero, gen_zero_pivot_host, and a NaN pivot, each at the first, a middle and
 * the last place), illcond (3, kappa 1e4), nonspd (5: a planted negative pivot) and, from 3
 * matrices on, one matrix with a NaN in its last row. The kernels factor a copy whose strict upper
 * triangles hold garbage (NaN, or values unlike the lower triangle's): only the lower one is read. */
typedef struct {
    int n;
    size_t batch;
    float *A;     /* row-major input, symmetric: what the checks compare with */
    float *in;    /* what the kernels get: A with garbage in each strict upper triangle (UPPER_MIXED) */
    int *planted; /* the info the generator planted: 0, the failing minor, or n for the NaN */
    float *C;     /* cusolverDnSpotrfBatched's factors (strict upper set to zero) and infos */
    int *cinfo;
    double *tol;              /* per matrix: how far our factor may be from cuSOLVER's (compare_tolerances) */
    unsigned char *nan_pivot; /* per matrix: 1 where a NaN pivot was planted (cinfo set as below) */
    size_t nan_matrix;        /* the matrix holding a NaN ((size_t)-1: none); cinfo there is set to */
    int cusolver_nan_info;    /* the LAPACK answer n, and this is what cuSOLVER said (0: see .c) */
} test_batch;

void test_batch_mixed(test_batch *t, int n, size_t batch, uint64_t seed);
void test_batch_free(test_batch *t);

/* The chunked layout straight from its definition, index = (b div c) c n^2 + (i n + j) w +
 * (b mod c) with w the chunk's width, deliberately NOT using layout.h: a bug there must not
 * be able to hide itself by being used on both sides of a test. chunk >= batch: interleaved. */
void pack_chunked_independent(int n, size_t batch, size_t chunk, const float *rowmajor, float *packed);
void unpack_chunked_independent(int n, size_t batch, size_t chunk, const float *packed, float *rowmajor);

/* One layout of one test batch on the device, ready to run configurations on. */
typedef struct {
    const test_batch *t;
    size_t chunk;
    float *packed;       /* host: the input in the layout */
    float *d_base, *d_A; /* device: the allocation; the batch at d_A, then GUARD floats that must stay untouched */
    int *d_info;         /* device: batch infos, then GUARD ints */
    float *out, *L;      /* host: the result in the layout and unpacked */
    int *info;
} layout_run;

void layout_run_begin(layout_run *r, const test_batch *t, size_t chunk);
/* The same with the batch `offset` floats past the allocation's start (offset 1: no longer 8- or
 * 16-byte aligned, as a slice of a larger array may be), for the kernels' unaligned roads. */
void layout_run_begin_at(layout_run *r, const test_batch *t, size_t chunk, size_t offset);
/* Restore the input, poison the infos, factor with cfg, and check: nothing written past the
 * end, every info equal to cuSOLVER's, every factor within tolerance of cuSOLVER's with a zero
 * upper part, and a sample of matrices against the float64 reference. 1 if all hold; else 0
 * and the first problem in detail. */
int layout_run_check(batched_kernel_lookup kernels, layout_run *r, const batched_config *cfg, char *detail, size_t len);
void layout_run_end(layout_run *r);

/* A batch of at least `bytes` generated on the GPU straight into the layout, factored with cfg,
 * and checked by sampling: every info must be 0, and `samples` matrices spread over the batch
 * (first and last included) are regenerated on the host and checked against the float64
 * reference and cuSOLVER. Adds its test to h; skips when the GPU lacks the memory. */
void test_large_batch(harness *h, batched_kernel_lookup kernels, const char *group, const batched_config *cfg, int n,
                      size_t chunk, size_t bytes, int samples);

/* Every cfg in cfgs over every n in ns x batch in batches, in layout chunk (0: interleaved,
 * i.e. chunk = batch), each one harness test named "<prefix> <cfg> n=.. batch=..", in the
 * group of its kernel (batched_group_name); per (n, batch) one more test, in the group
 * "cuSOLVER agreement", that cuSOLVER finds the planted infos. */
void test_configs(harness *h, batched_kernel_lookup kernels, const char *prefix, const batched_config *cfgs, int ncfg,
                  const int *ns, int nn, const size_t *batches, int nb, const size_t *chunks, int nc);

/* The same, with every run whose chunk is smaller than its batch in the group of its kernel "on
 * chunks" (batched_chunks_group_name): stage 04 grades there that a kernel finds its matrix through
 * chunked_place (one that hard-codes the interleaved index passes every chunk = batch run). */
void test_configs_on_chunks(harness *h, batched_kernel_lookup kernels, const char *prefix, const batched_config *cfgs,
                            int ncfg, const int *ns, int nn, const size_t *batches, int nb, const size_t *chunks,
                            int nc);
const char *batched_chunks_group_name(batched_kernel k); /* "tile kernel on chunks", ... */

/* The sizes the stage 04 and 05 tests run: n, batch (and chunk) lists, extended by the hidden
 * grading sizes when harness_extra() (n 5, 47, 97; batch 2049; chunk 17), and the configurations,
 * extended by two with 7 matrices per block. The arrays must have room for 4 more entries. */
/* How many configurations an array with room holds (the given ones first, zeros after). */
static inline int given_configs(const batched_config *c, int room)
{
    int k = 0;
    while (k < room && c[k].per_block > 0) k++;
    return k;
}
void add_hidden_sizes(int *ns, int *nn, size_t *batches, int *nb, size_t *chunks, int *nc, batched_config *cfgs,
                      int *ncfg);

/* 1 if cfg factors a small mixed batch of order n right (60 matrices, row-major, checked as
 * layout_run_check does): the probe with which a sanity group that runs a student's kernel decides
 * whether to run (harness_requires). */
int batched_kernel_works(batched_kernel_lookup kernels, const batched_config *cfg, int n);

/* "tile kernel" or "thread-per-matrix kernel": the test group (learning goal) of a kernel. */
const char *batched_group_name(batched_kernel_lookup kernels, batched_kernel k);

/* How many configurations of cfgs use kernel k (for the test plans). */
int count_kernel_configs(const batched_config *cfgs, int ncfg, batched_kernel k);

#endif
