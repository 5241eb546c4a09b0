/* test_single_tile.c - stage 02 tests (GPU; skipped without one).
 * 1. Each helper on seeded random tiles for every NB from 1 to 32, against float64 on the CPU;
 *    spotrf_tile also on a zero pivot, on a NaN pivot with a nonzero base, and with a failure
 *    already recorded in info (the first one wins).
 * 2. ssyrk_tile and sgemm_tile followed by sgemm_tile in one block, reading what other threads
 *    wrote: a missing closing barrier may show here (and always under racecheck: test_barriers.sh).
 * 3. The single-tile kernel (n <= NB) against cusolverDnSpotrf / cusolverDnSpotrfBatched, for
 *    NB in {4, 8, 16, 32}, with and without padding, on spd, illcond and nonspd matrices (the
 *    nonspd batches hold a pivot of exactly zero and a NaN pivot too). Every input's strict upper
 *    triangle holds garbage (NaN, or values unlike the lower triangle's): only the lower one is read.
 * 4. Unsupported arguments are refused with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checks.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "generator.h"
#include "gpu_batch.h"
#include "harness.h"
#include "single_tile.h"
#include "host_alloc.h"

static const char *const op_names[TILE_HELPER_OPS] = {
    "spotrf_tile", "strsm_tile", "ssyrk_tile", "sgemm_tile", "ssyrk_tile then sgemm_tile", "sgemm_tile twice"};
#define BACK_TO_BACK "helpers back to back"

/* Ops 4 and 5 (tile_helper_test): T0' = T0 - T1 T1^T (lower part; op 4) or T0 - T1 T2^T (op 5), then
 * T2 - T1 T0'^T. The bound of the second adds what the first's rounding can move it, |T1| bound0. */
static void back_to_back_reference(int nb, int op, const float *in, double *want, double *bound)
{
    const float *T0 = in, *T1 = in + nb * nb, *T2 = in + 2 * nb * nb;
    const double u = FLT_EPSILON / 2, g = 4.0 * (nb + 2) * u;
    double *M = host_alloc(2 * (size_t)nb * nb * sizeof(double), "test buffers"), *Mb = M + nb * nb;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) {
            double s = T0[i * nb + j], a = fabs(s);
            if (!(op == 4 && j > i)) /* ssyrk leaves the strict upper part as it was */
                for (int k = 0; k < nb; k++) {
                    const double t = (double)T1[i * nb + k] * (op == 4 ? T1 : T2)[j * nb + k];
                    s -= t;
                    a += fabs(t);
                }
            M[i * nb + j] = s;
            Mb[i * nb + j] = op == 4 && j > i ? 0 : g * a;
        }
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) {
            double s = T2[i * nb + j], a = fabs(s), e = 0;
            for (int k = 0; k < nb; k++) {
                s -= T1[i * nb + k] * M[j * nb + k];
                a += fabs(T1[i * nb + k] * M[j * nb + k]);
                e += fabs((double)T1[i * nb + k]) * Mb[j * nb + k];
            }
            want[i * nb + j] = s;
            bound[i * nb + j] = g * a + 2 * e;
        }
    free(M);
}

/* Float64 result of each helper on the same inputs; bound[] the rounding-error bound per element
 * (gamma_NB = NB u times the sum of |terms|, Higham ch. 3), so a correct helper always passes. */
static void helper_reference(int nb, int op, const float *in, double *want, double *bound)
{
    if (op >= 4) {
        back_to_back_reference(nb, op, in, want, bound);
        return;
    }
    const float *T0 = in, *T1 = in + nb * nb, *T2 = in + 2 * nb * nb;
    const double u = FLT_EPSILON / 2, g = 4.0 * (nb + 2) * u;
    for (int i = 0; i < nb * nb; i++) {
        want[i] = T0[i];
        bound[i] = 0;
    }
    if (op == 0) {
        ref_potrf_d(nb, want);
        for (int i = 0; i < nb; i++)
            for (int j = 0; j <= i; j++)
                bound[i * nb + j] = g * sqrt(fabs((double)T0[i * nb + i]) * fabs((double)T0[j * nb + j]));
    } else if (op == 1) { /* X L^T = B, row by row, and |X| |L^T| for the bound */
        for (int r = 0; r < nb; r++)
            for (int j = 0; j < nb; j++) {
                double s = T0[r * nb + j], a = fabs((double)T0[r * nb + j]);
                for (int k = 0; k < j; k++) {
                    s -= want[r * nb + k] * T1[j * nb + k];
                    a += fabs(want[r * nb + k] * T1[j * nb + k]);
                }
                want[r * nb + j] = s / T1[j * nb + j];
                bound[r * nb + j] = 64 * g * a / fabs((double)T1[j * nb + j]);
            }
    } else {
        const float *B = op == 2 ? T1 : T2;
        for (int i = 0; i < nb; i++)
            for (int j = 0; j < nb; j++) {
                if (op == 2 && j > i) continue; /* ssyrk: lower part only, upper untouched */
                double s = T0[i * nb + j], a = fabs(s);
                for (int k = 0; k < nb; k++) {
                    s -= (double)T1[i * nb + k] * B[j * nb + k];
                    a += fabs((double)T1[i * nb + k] * B[j * nb + k]);
                }
                want[i * nb + j] = s;
                bound[i * nb + j] = g * a;
            }
    }
}

/* Each helper is tested at every NB = 1 .. HELPER_MAX_NB: one test per NB (the plan). */
#define HELPER_MAX_NB 32

/* spotrf_tile (op 0) on the nb x nb tile `tile` with base and a preset info: the info it leaves. */
static int helper_info(int nb, int base, int preset, const float *tile, float *d_in, float *d_out, int *d_info)
{
    int info = -12345;
    CUDA_CHECK(cudaMemcpy(d_in, tile, (size_t)nb * nb * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_info, 0x7f, sizeof(int))); /* poison: the kernel must write it */
    if (tile_helper_test(nb, 0, base, preset, d_in, d_out, d_info) != 0) return -1;
    CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    return info;
}

static void test_helpers(harness *h)
{
    float *in = host_alloc(3 * HELPER_MAX_NB * HELPER_MAX_NB * sizeof(float), "test buffers"),
          *out = host_alloc(HELPER_MAX_NB * HELPER_MAX_NB * sizeof(float), "test buffers"), *d_in, *d_out;
    double *want = host_alloc(HELPER_MAX_NB * HELPER_MAX_NB * sizeof(double), "test buffers"),
           *bound = host_alloc(HELPER_MAX_NB * HELPER_MAX_NB * sizeof(double), "test buffers"),
           *L = host_alloc(HELPER_MAX_NB * HELPER_MAX_NB * sizeof(double), "test buffers");
    int *d_info, info;
    CUDA_CHECK(cudaMalloc((void **)&d_in, 3 * HELPER_MAX_NB * HELPER_MAX_NB * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, HELPER_MAX_NB * HELPER_MAX_NB * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    for (int nb = 1; nb <= HELPER_MAX_NB; nb++)
        for (int op = 0; op < TILE_HELPER_OPS; op++) {
            gen_params spd = gen_params_make(FAMILY_SPD, harness_seed(500 + nb), 0, 0);
            const unsigned long long s0 = harness_seed(7), s1 = harness_seed(8), s2 = harness_seed(9);
            /* T0: SPD for spotrf, random otherwise; T1: a factored SPD tile for strsm, random otherwise. */
            for (int i = 0; i < nb; i++)
                for (int j = 0; j < nb; j++) {
                    in[i * nb + j] =
                        op == 0 ? gen_element(&spd, nb, 0, i, j) : gen_sym_uniform(gen_bits(s0, op, i, j, 0));
                    L[i * nb + j] = gen_element(&spd, nb, 1, i, j);
                    in[nb * nb + i * nb + j] = gen_sym_uniform(gen_bits(s1, op, i, j, 0));
                    in[2 * nb * nb + i * nb + j] = gen_sym_uniform(gen_bits(s2, op, i, j, 0));
                }
            if (op == 1) {
                ref_potrf_d(nb, L);
                for (int k = 0; k < nb * nb; k++) in[nb * nb + k] = (float)L[k];
            }
            helper_reference(nb, op, in, want, bound);
            CUDA_CHECK(cudaMemcpy(d_in, in, 3 * nb * nb * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemset(d_out, 0xff, HELPER_MAX_NB * HELPER_MAX_NB * sizeof(float))); /* poison: NaN */
            char name[64];
            snprintf(name, sizeof name, "%s NB=%d", op_names[op], nb);
            harness_group(h, op < 4 ? op_names[op] : BACK_TO_BACK);
            harness_start(h, "%s", name); /* a helper that hangs or crashes is named by it */
            int rc = tile_helper_test(nb, op, 0, 0, d_in, d_out, d_info);
            CUDA_CHECK(cudaMemcpy(out, d_out, nb * nb * sizeof(float), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
            int ok = rc == 0 && info == 0, wi = 0, wj = 0;
            for (int i = 0; i < nb && ok; i++)
                for (int j = 0; j < nb && ok; j++) {
                    if ((op == 0 || op == 2) && j > i) continue; /* upper part unspecified in a tile */
                    if (!(fabs(out[i * nb + j] - want[i * nb + j]) <= bound[i * nb + j] + 1e-30)) {
                        ok = 0;
                        wi = i;
                        wj = j;
                    }
                }
            if (op == 0 && ok) { /* the info contract: */
                /* a NaN pivot k2 (not > 0 either) in a tile whose first row is row `base` of its matrix */
                const int k2 = gen_zero_pivot_place(nb, (nb + 1) % 3), base = 3 * nb + 1;
                in[k2 * nb + k2] = NAN;
                const int nan_info = helper_info(nb, base, 0, in, d_in, d_out, d_info);
                /* a pivot k of exactly zero, alone, and again with a failure already recorded (preset) */
                const int k = gen_zero_pivot_place(nb, nb % 3), preset = 2 * nb + 5;
                gen_zero_pivot_host(nb, k, harness_seed(600 + nb), in);
                const int zero_info = helper_info(nb, 0, 0, in, d_in, d_out, d_info),
                          kept = helper_info(nb, base, preset, in, d_in, d_out, d_info);
                ok = zero_info == k + 1 && nan_info == base + k2 + 1 && kept == preset;
                harness_check(h, ok, name,
                              "within the rounding bound; a zero pivot at %d: info %d (want %d); a NaN pivot at %d "
                              "with base %d: info %d (want %d); a zero pivot after info = %d: info %d (want it kept)",
                              k, zero_info, k + 1, k2, base, nan_info, base + k2 + 1, preset, kept);
                continue;
            }
            harness_check(h, ok, name,
                          ok ? "within the rounding bound"
                             : "rc %d info %d; at (%d, %d): got %.9g, want %.9g (bound %.3g)",
                          rc, info, wi, wj, (double)out[wi * nb + wj], want[wi * nb + wj], bound[wi * nb + wj]);
        }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_info));
    free(in);
    free(out);
    free(want);
    free(bound);
    free(L);
}

/* The sizes n = 1, 2, 3, NB-1, NB without repeats (for NB = 4, 3 comes once). */
static int kernel_sizes(int nb, int *ns)
{
    const int all[] = {1, 2, 3, nb - 1, nb};
    int count = 0;
    for (int s = 0; s < 5; s++)
        if (all[s] >= 1 && (count == 0 || all[s] > ns[count - 1])) ns[count++] = all[s];
    return count;
}

static const int kernel_nbs[] = {4, 8, 16, 32};

static int kernel_test_count(void)
{
    int ns[5], count = 0;
    for (int a = 0; a < 4; a++) count += 2 * 3 * kernel_sizes(kernel_nbs[a], ns);
    return count;
}

static void test_kernel(harness *h)
{
    const int *nbs = kernel_nbs;
    const family_t fams[] = {FAMILY_SPD, FAMILY_ILLCOND, FAMILY_NONSPD};
    for (int a = 0; a < 4; a++)
        for (int pad = 0; pad < 2; pad++)
            for (int f = 0; f < 3; f++) {
                int nb = nbs[a], ns[5], nsizes = kernel_sizes(nb, ns);
                for (int s = 0; s < nsizes; s++) {
                    int n = ns[s];
                    size_t count = 5, elems = count * n * n;
                    gen_params p = gen_params_make(fams[f], harness_seed(40 + n), 1e4, 0);
                    float *A = host_alloc(elems * sizeof(float), "test buffers"),
                          *L = host_alloc(elems * sizeof(float), "test buffers"),
                          *C = host_alloc(elems * sizeof(float), "test buffers"), *d_A;
                    int info[5], cinfo[5], *d_info;
                    gen_batch_host(&p, n, 0, count, A);
                    int nan_pivot = -1; /* matrix 1: a pivot of exactly zero; 3: a NaN pivot (info names it) */
                    if (fams[f] == FAMILY_NONSPD) {
                        gen_zero_pivot_host(n, gen_zero_pivot_place(n, n % 3), harness_seed(61 + n), A + (size_t)n * n);
                        gen_params spd = gen_params_make(FAMILY_SPD, harness_seed(70 + n), 0, 0);
                        gen_batch_host(&spd, n, 3, 1, A + (size_t)3 * n * n);
                        nan_pivot = gen_zero_pivot_place(n, (n + 1) % 3);
                        A[(size_t)3 * n * n + (size_t)nan_pivot * n + nan_pivot] = NAN;
                    }
                    CUDA_CHECK(cudaMalloc((void **)&d_A, elems * sizeof(float)));
                    CUDA_CHECK(cudaMalloc((void **)&d_info, count * sizeof(int)));
                    CUDA_CHECK(cudaMemcpy(d_A, A, elems * sizeof(float), cudaMemcpyHostToDevice));
                    /* garbage above the diagonal (A keeps the symmetric matrices for the checks) */
                    poison_strict_upper_device(n, count, 1, d_A, UPPER_MIXED, cudaStreamLegacy);
                    CUDA_CHECK(cudaMemset(d_info, 0x7f, count * sizeof(int))); /* poison */
                    char name[96];
                    snprintf(name, sizeof name, "single tile NB=%d pad=%d %s n=%d", nb, pad, family_name(fams[f]), n);
                    harness_start(h, "%s", name);
                    int rc = potrf_single_tile(nb, pad, n, d_A, count, d_info);
                    CUDA_CHECK(cudaMemcpy(L, d_A, elems * sizeof(float), cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(info, d_info, count * sizeof(int), cudaMemcpyDeviceToHost));
                    factor_check first;
                    double mr = 0, md = 0;
                    char detail[256] = "";
                    size_t bad = rc ? count : check_batch(n, count, A, L, info, NULL, &first, &mr, NULL);
                    if (!bad) {
                        int one = oracle_potrf_host(n, A + n * n, C); /* one matrix through cusolverDnSpotrf */
                        bad =
                            compare_factors(n, 1, A + n * n, L + n * n, info + 1, C, &one, detail, sizeof detail, &md);
                        oracle_potrf_batched_host(n, count, A, C, cinfo);
                        /* cuSOLVER reports 0 for a NaN pivot; the course follows LAPACK (checks.h) */
                        if (nan_pivot >= 0) cinfo[3] = nan_pivot + 1;
                        if (!bad) bad = compare_factors(n, count, A, L, info, C, cinfo, detail, sizeof detail, &md);
                    } else {
                        snprintf(detail, sizeof detail, "%s", rc ? "launcher refused" : first.detail);
                    }
                    harness_check(h, bad == 0, name, "%s max resid %.2g, max diff to cuSOLVER %.2g", detail, mr, md);
                    CUDA_CHECK(cudaFree(d_A));
                    CUDA_CHECK(cudaFree(d_info));
                    free(A);
                    free(L);
                    free(C);
                }
            }
}

/* The calls that must be refused (return -1), one row each: the plan is the table's length. */
typedef struct {
    const char *name, *detail;
    int helper; /* 1: tile_helper_test(nb, ...), 0: potrf_single_tile(nb, 1, n, ...) */
    int nb, n;
} refused_call;
static const refused_call refused_calls[] = {
    {"refuses n > NB", "n = 5, NB = 4", 0, 4, 5},
    {"refuses an NB not compiled in", "NB = 12", 0, 12, 5},
    {"refuses n = 0", "n = 0", 0, 8, 0},
    {"helper test refuses NB = 33", "NB = 33", 1, 33, 0},
};
#define N_REFUSED_CALLS (int)(sizeof refused_calls / sizeof refused_calls[0])

static void test_bad_arguments(harness *h)
{
    char said[512]; /* the launchers' messages, kept from the test output (course_report_capture) */
    course_report_capture(said, sizeof said);
    float *d_A;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, 64 * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    for (int i = 0; i < N_REFUSED_CALLS; i++) {
        const refused_call *c = &refused_calls[i];
        const int got = c->helper ? tile_helper_test(c->nb, 0, 0, 0, d_A, d_A, d_info)
                                  : potrf_single_tile(c->nb, 1, c->n, d_A, 1, d_info);
        harness_check(h, got == -1, c->name, "%s: returned %d", c->detail, got);
    }
    course_report_capture(NULL, 0);
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_info));
}

int main(void)
{
    harness h;
    harness_begin(&h, "stage-2");
    for (int op = 0; op < 4; op++) harness_plan(&h, op_names[op], HELPER_MAX_NB);
    harness_plan(&h, BACK_TO_BACK, 2 * HELPER_MAX_NB);
    harness_plan(&h, "single-tile kernel", kernel_test_count());
    harness_plan(&h, "argument checks", N_REFUSED_CALLS);
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        for (int op = 0; op < 4; op++) harness_skip_rest(&h, op_names[op], reason);
        harness_skip_rest(&h, BACK_TO_BACK, reason);
        harness_skip_rest(&h, "single-tile kernel", reason);
        harness_skip_rest(&h, "argument checks", reason);
        return harness_end(&h);
    }
    test_helpers(&h);
    harness_group(&h, "single-tile kernel");
    test_kernel(&h);
    harness_group(&h, "argument checks");
    test_bad_arguments(&h);
    return harness_end(&h);
}
