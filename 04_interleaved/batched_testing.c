/* batched_testing.c - see batched_testing.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "gpu_batch.h"
#include "batched_testing.h"
#include "host_alloc.h"

#define GUARD 4096       /* floats / ints after each device array that must stay untouched */
#define GUARD_BYTE 0x5a  /* 0x5a5a5a5a: 1.5e16 as a float, 1515870810 as an int */
#define POISON_BYTE 0x7f /* infos start as 0x7f7f7f7f, never a valid info */

void test_batch_mixed(test_batch *t, int n, size_t batch, uint64_t seed)
{
    size_t nn = (size_t)n * n;
    t->n = n;
    t->batch = batch;
    t->A = host_alloc(batch * nn * sizeof(float), "test buffers");
    t->C = host_alloc(batch * nn * sizeof(float), "test buffers");
    t->planted = host_alloc(batch * sizeof(int), "test buffers");
    t->cinfo = host_alloc(batch * sizeof(int), "test buffers");
    t->tol = host_alloc(batch * sizeof(double), "test buffers");
    t->nan_pivot = host_alloc(batch, "test buffers");
    memset(t->nan_pivot, 0, batch);
    gen_params spd = gen_params_make(FAMILY_SPD, seed, 0, 0), ill = gen_params_make(FAMILY_ILLCOND, seed + 1, 1e4, 0),
               bad = gen_params_make(FAMILY_NONSPD, seed + 2, 0, 0);
    _Pragma("omp parallel for schedule(dynamic, 64)")
    for (long long b = 0; b < (long long)batch; b++) {
        if (b % 6 == 1) { /* a failing pivot k: info k + 1; in turn a pivot of exactly zero and a NaN
                             pivot (an SPD matrix with a_kk = NaN), each first, middle and last */
            const uint64_t turn = (uint64_t)b / 6;
            const int k = gen_zero_pivot_place(n, (int)(turn / 2 % 3));
            float *a = t->A + (size_t)b * nn;
            if (turn % 2 == 0) gen_zero_pivot_host(n, k, gen_mix64(seed + 3 + (uint64_t)b), a);
            else {
                gen_batch_host(&spd, n, (size_t)b, 1, a);
                a[(size_t)k * n + k] = NAN;
                t->nan_pivot[b] = 1;
            }
            t->planted[b] = k + 1;
            continue;
        }
        const gen_params *p = b % 6 == 3 ? &ill : b % 6 == 5 ? &bad : &spd;
        gen_batch_host(p, n, (size_t)b, 1, t->A + (size_t)b * nn);
        t->planted[b] = p == &bad ? gen_nonspd_fail_at(&bad, n, (uint64_t)b) : 0;
    }
    t->nan_matrix = (size_t)-1;
    if (batch >= 3) { /* one NaN in the last row: every leading minor up to n-1 is fine */
        size_t b = t->nan_matrix =
            batch / 2 - (batch / 2 % 2); /* on an SPD matrix (b % 6 = 0, 2, 4): n is the answer */
        t->A[b * nn + (size_t)(n - 1) * n] = t->A[b * nn + (size_t)(n - 1)] = NAN; /* A stays symmetric */
        t->planted[b] = n;
    }
    oracle_potrf_batched_host(n, batch, t->A, t->C, t->cinfo);
    /* cusolverDnSpotrfBatched (CUDA 13.0) does not flag a NaN pivot: it reports info 0 and NaN
     * factors. The course follows LAPACK here (a NaN pivot is not positive: info = its index, as
     * spotrf_tile and the float64 reference do), so for the NaN matrix the expected info is the
     * planted one; every finite matrix must agree with cuSOLVER exactly. */
    if (t->nan_matrix != (size_t)-1) {
        t->cusolver_nan_info = t->cinfo[t->nan_matrix];
        t->cinfo[t->nan_matrix] = t->planted[t->nan_matrix];
    }
    for (size_t b = 0; b < batch; b++)
        if (t->nan_pivot[b]) t->cinfo[b] = t->planted[b];
    compare_tolerances(n, batch, t->A, t->tol);
    t->in = host_alloc(batch * nn * sizeof(float), "test buffers");
    memcpy(t->in, t->A, batch * nn * sizeof(float));
    poison_strict_upper(n, batch, t->in, UPPER_MIXED);
}

void test_batch_free(test_batch *t)
{
    free(t->A);
    free(t->in);
    free(t->C);
    free(t->planted);
    free(t->cinfo);
    free(t->tol);
    free(t->nan_pivot);
}

static size_t independent_index(int n, size_t batch, size_t chunk, size_t b, int i, int j)
{
    size_t first = (b / chunk) * chunk, width = batch - first < chunk ? batch - first : chunk;
    return first * n * n + ((size_t)i * n + j) * width + b % chunk;
}

void pack_chunked_independent(int n, size_t batch, size_t chunk, const float *rowmajor, float *packed)
{
    _Pragma("omp parallel for schedule(static)")
    for (long long b = 0; b < (long long)batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                packed[independent_index(n, batch, chunk, (size_t)b, i, j)] = rowmajor[((size_t)b * n + i) * n + j];
}

void unpack_chunked_independent(int n, size_t batch, size_t chunk, const float *packed, float *rowmajor)
{
    _Pragma("omp parallel for schedule(static)")
    for (long long b = 0; b < (long long)batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                rowmajor[((size_t)b * n + i) * n + j] = packed[independent_index(n, batch, chunk, (size_t)b, i, j)];
}

void layout_run_begin(layout_run *r, const test_batch *t, size_t chunk) { layout_run_begin_at(r, t, chunk, 0); }

void layout_run_begin_at(layout_run *r, const test_batch *t, size_t chunk, size_t offset)
{
    size_t elems = t->batch * t->n * t->n;
    r->t = t;
    r->chunk = chunk;
    r->packed = host_alloc(elems * sizeof(float), "test buffers");
    r->out = host_alloc((elems + GUARD) * sizeof(float), "test buffers");
    r->L = host_alloc(elems * sizeof(float), "test buffers");
    r->info = host_alloc((t->batch + GUARD) * sizeof(int), "test buffers");
    pack_chunked_independent(t->n, t->batch, chunk, t->in, r->packed);
    CUDA_CHECK(cudaMalloc((void **)&r->d_base, (offset + elems + GUARD) * sizeof(float)));
    r->d_A = r->d_base + offset;
    CUDA_CHECK(cudaMalloc((void **)&r->d_info, (t->batch + GUARD) * sizeof(int)));
}

void layout_run_end(layout_run *r)
{
    CUDA_CHECK(cudaFree(r->d_base));
    CUDA_CHECK(cudaFree(r->d_info));
    free(r->packed);
    free(r->out);
    free(r->L);
    free(r->info);
}

static int guard_intact(const void *p)
{
    const unsigned char *c = p;
    for (size_t k = 0; k < GUARD * 4; k++)
        if (c[k] != GUARD_BYTE) return 0;
    return 1;
}

/* The matrices the float64 check looks at: first, last, middle, and a few of each family. */
static int sample_matrices(size_t batch, size_t *which)
{
    size_t cand[] = {0, batch - 1, batch / 2, 1, 3, 5, batch - 2, batch / 2 + 1};
    int k = 0;
    for (int c = 0; c < 8; c++) {
        if (cand[c] >= batch) continue;
        int seen = 0;
        for (int d = 0; d < k; d++) seen |= which[d] == cand[c];
        if (!seen) which[k++] = cand[c];
    }
    return k;
}

/* One run of cfg on the packed input `in` (the layout's), checked completely (layout_run_check). */
static int run_checked(batched_kernel_lookup kernels, layout_run *r, const batched_config *cfg, const float *in,
                       char *detail, size_t len)
{
    const test_batch *t = r->t;
    const int n = t->n;
    size_t nn = (size_t)n * n, elems = t->batch * nn;
    detail[0] = '\0';
    CUDA_CHECK(cudaMemcpy(r->d_A, in, elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(r->d_A + elems, GUARD_BYTE, GUARD * sizeof(float)));
    CUDA_CHECK(cudaMemset(r->d_info, POISON_BYTE, t->batch * sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_info + t->batch, GUARD_BYTE, GUARD * sizeof(int)));
    if (potrf_batched_in(kernels, cfg, n, t->batch, r->chunk, r->d_A, r->d_info) != 0) {
        snprintf(detail, len, "the configuration was refused");
        return 0;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->out, r->d_A, (elems + GUARD) * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r->info, r->d_info, (t->batch + GUARD) * sizeof(int), cudaMemcpyDeviceToHost));
    if (!guard_intact(r->out + elems) || !guard_intact(r->info + t->batch)) {
        snprintf(detail, len, "wrote past the end of the batch (guard zone changed)");
        return 0;
    }
    unpack_chunked_independent(n, t->batch, r->chunk, r->out, r->L);
    double md;
    if (compare_factors_tol(n, t->batch, t->tol, r->L, r->info, t->C, t->cinfo, detail, len, &md) != 0) return 0;
    size_t which[8];
    int k = sample_matrices(t->batch, which);
    for (int s = 0; s < k; s++) {
        size_t b = which[s];
        factor_check fc;
        check_factor(n, t->A + b * nn, r->L + b * nn, r->info[b], &fc);
        if (!fc.ok || r->info[b] != t->planted[b]) {
            snprintf(detail, len, "matrix %zu: %s (info %d, planted %d)", b, fc.ok ? "wrong info" : fc.detail,
                     r->info[b], t->planted[b]);
            return 0;
        }
    }
    snprintf(detail, len, "max diff to cuSOLVER %.2g", md);
    return 1;
}

int layout_run_check(batched_kernel_lookup kernels, layout_run *r, const batched_config *cfg, char *detail, size_t len)
{
    if (run_checked(kernels, r, cfg, r->packed, detail, len)) return 1;
    /* Wrong with garbage above the diagonal: right with the symmetric input? Then the kernel reads
     * the upper triangle, and the test says so rather than only "wrong". */
    const test_batch *t = r->t;
    float *sym = host_alloc(t->batch * (size_t)t->n * t->n * sizeof(float), "test buffers");
    char again[320];
    pack_chunked_independent(t->n, t->batch, r->chunk, t->A, sym);
    const int upper = run_checked(kernels, r, cfg, sym, again, sizeof again);
    free(sym);
    if (upper) {
        char first[320];
        snprintf(first, sizeof first, "%s", detail);
        snprintf(detail, len,
                 "wrong with garbage above the diagonal, right with a symmetric input: the kernel reads the upper "
                 "triangle (only (i, j) with j <= i may be read); %s",
                 first);
    }
    return 0;
}

static void configs_run(harness *h, batched_kernel_lookup kernels, const char *prefix, const batched_config *cfgs,
                        int ncfg, const int *ns, int nn, const size_t *batches, int nb, const size_t *chunks, int nc,
                        int chunk_groups);

void test_configs(harness *h, batched_kernel_lookup kernels, const char *prefix, const batched_config *cfgs, int ncfg,
                  const int *ns, int nn, const size_t *batches, int nb, const size_t *chunks, int nc)
{
    configs_run(h, kernels, prefix, cfgs, ncfg, ns, nn, batches, nb, chunks, nc, 0);
}

void test_configs_on_chunks(harness *h, batched_kernel_lookup kernels, const char *prefix, const batched_config *cfgs,
                            int ncfg, const int *ns, int nn, const size_t *batches, int nb, const size_t *chunks,
                            int nc)
{
    configs_run(h, kernels, prefix, cfgs, ncfg, ns, nn, batches, nb, chunks, nc, 1);
}

const char *batched_chunks_group_name(batched_kernel k)
{
    return k == BATCHED_TILES    ? "tile kernel on chunks"
           : k == BATCHED_THREAD ? "thread-per-matrix kernel on chunks"
                                 : NULL;
}

static void configs_run(harness *h, batched_kernel_lookup kernels, const char *prefix, const batched_config *cfgs,
                        int ncfg, const int *ns, int nn, const size_t *batches, int nb, const size_t *chunks, int nc,
                        int chunk_groups)
{
    for (int a = 0; a < nn; a++)
        for (int bi = 0; bi < nb; bi++) {
            test_batch t;
            test_batch_mixed(&t, ns[a], batches[bi], harness_seed(4000 + ns[a]));
            int agree = 1; /* cuSOLVER itself must find the planted minors of the finite matrices */
            for (size_t b = 0; b < t.batch; b++) agree &= b == t.nan_matrix || t.cinfo[b] == t.planted[b];
            char name[160], detail[320];
            harness_group(h, "cuSOLVER agreement");
            snprintf(name, sizeof name, "%s cuSOLVER finds the planted infos n=%d batch=%zu", prefix, ns[a],
                     batches[bi]);
            harness_check(h, agree, name,
                          "cusolverDnSpotrfBatched vs the generator (on the NaN matrix it says %d, LAPACK %d)",
                          t.nan_matrix == (size_t)-1 ? 0 : t.cusolver_nan_info, t.nan_matrix == (size_t)-1 ? 0 : t.n);
            for (int ci = 0; ci < nc; ci++) {
                size_t chunk = chunks[ci] ? chunks[ci] : t.batch;
                layout_run r;
                layout_run_begin(&r, &t, chunk);
                for (int c = 0; c < ncfg; c++) {
                    char cname[64];
                    if (chunks[ci])
                        snprintf(name, sizeof name, "%s %s n=%d batch=%zu chunk=%zu", prefix,
                                 batched_config_name_in(kernels, &cfgs[c], cname, sizeof cname), ns[a], batches[bi],
                                 chunk);
                    else
                        snprintf(name, sizeof name, "%s %s n=%d batch=%zu", prefix,
                                 batched_config_name_in(kernels, &cfgs[c], cname, sizeof cname), ns[a], batches[bi]);
                    harness_group(h, chunk_groups && chunk < t.batch ? batched_chunks_group_name(cfgs[c].kernel)
                                                                     : batched_group_name(kernels, cfgs[c].kernel));
                    harness_start(h, "%s", name); /* a kernel that hangs or crashes is named by it */
                    int ok = layout_run_check(kernels, &r, &cfgs[c], detail, sizeof detail);
                    harness_check(h, ok, name, "%s", detail);
                }
                layout_run_end(&r);
            }
            test_batch_free(&t);
        }
}

void add_hidden_sizes(int *ns, int *nn, size_t *batches, int *nb, size_t *chunks, int *nc, batched_config *cfgs,
                      int *ncfg)
{
    if (!harness_extra()) return;
    ns[(*nn)++] = 5;
    ns[(*nn)++] = 47;
    ns[(*nn)++] = 97;
    batches[(*nb)++] = 2049;
    if (chunks) chunks[(*nc)++] = 17;
    const batched_config tiles7 = TILES_CONFIG(LOOK_LEFT, 4, 7), thread7 = THREAD_CONFIG(4, 7, 2);
    cfgs[(*ncfg)++] = tiles7;
    cfgs[(*ncfg)++] = thread7;
}

const char *batched_group_name(batched_kernel_lookup kernels, batched_kernel k)
{
    const batched_kernel_ops *ops = kernels(k);
    return ops ? ops->group : "unknown kernel";
}

int count_kernel_configs(const batched_config *cfgs, int ncfg, batched_kernel k)
{
    int count = 0;
    for (int c = 0; c < ncfg; c++) count += cfgs[c].kernel == k;
    return count;
}

void test_large_batch(harness *h, batched_kernel_lookup kernels, const char *group, const batched_config *cfg, int n,
                      size_t chunk, size_t bytes, int samples)
{
    harness_group(h, group);
    size_t nn = (size_t)n * n, batch = (bytes + nn * sizeof(float) - 1) / (nn * sizeof(float)), elems = batch * nn;
    char name[160], cname[64];
    snprintf(name, sizeof name, "%.1f GiB batch (%zu matrices, %.2g floats) %s n=%d chunk=%zu, sampled",
             (double)elems * sizeof(float) / (1 << 30), batch, (double)elems,
             batched_config_name_in(kernels, cfg, cname, sizeof cname), n, chunk ? chunk : batch);
    if (!chunk) chunk = batch;
    size_t free_b, total_b, need = 2 * elems * sizeof(float) + batch * sizeof(int) + (256u << 20);
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
        char reason[160];
        snprintf(reason, sizeof reason, "needs %.1f GiB of GPU memory, %.1f GiB free", need / 1073741824.0,
                 free_b / 1073741824.0);
        harness_skip(h, name, reason);
        return;
    }
    gen_params p = gen_params_make(FAMILY_SPD, harness_seed(77), 0, 0);
    float *d_A, *d_L;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_L, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_info, POISON_BYTE, batch * sizeof(int)));
    gen_batch_device(&p, n, 0, batch, chunk, d_A);
    poison_strict_upper_device(n, batch, chunk, d_A, UPPER_MIXED, cudaStreamLegacy); /* only the lower one is read */
    int ok = potrf_batched_in(kernels, cfg, n, batch, chunk, d_A, d_info) == 0;
    char detail[320] = "refused";
    if (ok) {
        CALL_CHECK(chunked_to_rowmajor_device(n, batch, chunk, d_A, d_L, cudaStreamLegacy)); /* then the samples */
        int *info = host_alloc(batch * sizeof(int), "test buffers");
        CUDA_CHECK(cudaMemcpy(info, d_info, batch * sizeof(int), cudaMemcpyDeviceToHost));
        size_t bad = 0, first_bad = 0;
        for (size_t b = 0; b < batch; b++)
            if (info[b] != 0 && bad++ == 0) first_bad = b;
        if (bad) {
            ok = 0;
            snprintf(detail, sizeof detail, "%zu matrices with info != 0, first %zu (info %d)", bad, first_bad,
                     info[first_bad]);
        }
        float *A = host_alloc(samples * nn * sizeof(float), "test buffers"),
              *L = host_alloc(samples * nn * sizeof(float), "test buffers"),
              *C = host_alloc(samples * nn * sizeof(float), "test buffers");
        int *cinfo = host_alloc(samples * sizeof(int), "test buffers"),
            *sinfo = host_alloc(samples * sizeof(int), "test buffers");
        for (int s = 0; s < samples; s++) { /* evenly spread, first and last included */
            size_t b = samples > 1 ? (size_t)((double)(batch - 1) * s / (samples - 1)) : 0;
            gen_batch_host(&p, n, b, 1, A + s * nn);
            sinfo[s] = info[b];
            CUDA_CHECK(cudaMemcpy(L + s * nn, d_L + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
        }
        oracle_potrf_batched_host(n, samples, A, C, cinfo);
        factor_check fc;
        if (ok && check_batch(n, samples, A, L, sinfo, NULL, &fc, NULL, NULL) != 0) {
            ok = 0;
            snprintf(detail, sizeof detail, "sample %s", fc.detail);
        }
        double md = 0;
        if (ok && compare_factors(n, samples, A, L, sinfo, C, cinfo, detail, sizeof detail, &md) != 0) ok = 0;
        if (ok)
            snprintf(detail, sizeof detail, "all infos 0; %d samples match float64 and cuSOLVER (max diff %.2g)",
                     samples, md);
        free(info);
        free(A);
        free(L);
        free(C);
        free(cinfo);
        free(sinfo);
    }
    harness_check(h, ok, name, "%s", detail);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_L));
    CUDA_CHECK(cudaFree(d_info));
}

int batched_kernel_works(batched_kernel_lookup kernels, const batched_config *cfg, int n)
{
    test_batch t;
    layout_run r;
    char detail[256];
    test_batch_mixed(&t, n, 60, 4242);
    layout_run_begin(&r, &t, 1); /* row-major: every kernel reads it */
    const int ok = layout_run_check(kernels, &r, cfg, detail, sizeof detail);
    layout_run_end(&r);
    test_batch_free(&t);
    return ok;
}
