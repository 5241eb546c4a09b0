/* checks.c - float64 reference and property checks; see checks.h for the contract. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "checks.h"
#include "cuda_check.h"
#include "host_alloc.h"

double potrf_flops(int n)
{
    double d = n;
    return d * d * d / 3.0 + d * d / 2.0 + d / 6.0;
}

double fwd_tol(int n, double kappa)
{
    const double u = FLT_EPSILON / 2.0;
    return 2.0 * n * u * (kappa > 1.0 ? kappa : 1.0) + 8.0 * u;
}

int ref_potrf_d(int n, double *a)
{
    for (int j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (int k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0.0)) return j + 1; /* also catches NaN */
        d = sqrt(d);
        a[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = a[i * n + j];
            for (int k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) a[i * n + j] = 0.0;
    return 0;
}

double fwd_tol_d(int n, double kappa)
{
    const double u = DBL_EPSILON / 2.0;
    return 2.0 * n * u * (kappa > 1.0 ? kappa : 1.0) + 8.0 * u;
}

int ref_potrf_ld(int n, long double *a)
{
    for (int j = 0; j < n; j++) {
        long double d = a[j * n + j];
        for (int k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0)) return j + 1; /* also catches NaN */
        d = sqrtl(d);
        a[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            long double s = a[i * n + j];
            for (int k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) a[i * n + j] = 0;
    return 0;
}

static double normalize(int n, double *v)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    s = sqrt(s);
    for (int i = 0; i < n; i++) v[i] /= s;
    return s;
}

double estimate_kappa(int n, const double *A, const double *L)
{
    double *v = host_alloc(2 * (size_t)n * sizeof(double), "float64 check workspace"), *w = v + n;
    double lmax = 0.0, lmin_inv = 0.0;
    for (int i = 0; i < n; i++) v[i] = 1.0 + 0.37 * sin(1.0 + i); /* not orthogonal to much */
    normalize(n, v);
    for (int it = 0; it < 30; it++) { /* power iteration: w = A v */
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += A[i * n + j] * v[j];
            w[i] = s;
        }
        lmax = normalize(n, w);
        memcpy(v, w, (size_t)n * sizeof(double));
    }
    for (int i = 0; i < n; i++) v[i] = 1.0 + 0.37 * cos(2.0 + i);
    normalize(n, v);
    for (int it = 0; it < 30; it++) { /* inverse iteration: solve L L^T w = v */
        for (int i = 0; i < n; i++) {
            double s = v[i];
            for (int k = 0; k < i; k++) s -= L[i * n + k] * w[k];
            w[i] = s / L[i * n + i];
        }
        for (int i = n - 1; i >= 0; i--) {
            double s = w[i];
            for (int k = i + 1; k < n; k++) s -= L[k * n + i] * w[k];
            w[i] = s / L[i * n + i];
        }
        lmin_inv = normalize(n, w);
        memcpy(v, w, (size_t)n * sizeof(double));
    }
    free(v);
    return lmax * lmin_inv;
}

/* check_factor and check_batch, once per element type (check_factor.inc). */
#define CF_NAME check_factor
#define CF_BATCH_NAME check_batch
#define CF_REAL float
#define CF_ACC double
#define CF_REF ref_potrf_d
#define CF_RESID_TOL RESID_TOL
#define CF_FWD_TOL fwd_tol
#define CF_DIGITS 9
#define CF_KAPPA estimate_kappa
#define CF_SAMPLED_NAME check_sampled_residual
#define CF_EPS FLT_EPSILON
#include "check_factor.inc"
#undef CF_NAME
#undef CF_BATCH_NAME
#undef CF_REAL
#undef CF_ACC
#undef CF_REF
#undef CF_RESID_TOL
#undef CF_FWD_TOL
#undef CF_DIGITS
#undef CF_KAPPA
#undef CF_SAMPLED_NAME
#undef CF_EPS

/* cond_2 of a double matrix from long double arrays: estimate_kappa on double copies (a few
 * percent is all it needs). */
static double estimate_kappa_ld(int n, const long double *A, const long double *L)
{
    const size_t nn = (size_t)n * n;
    double *a = host_alloc(2 * nn * sizeof(double), "float64 check workspace"), *l = a + nn;
    for (size_t k = 0; k < nn; k++) a[k] = (double)A[k], l[k] = (double)L[k];
    const double kappa = estimate_kappa(n, a, l);
    free(a);
    return kappa;
}

#define CF_NAME check_factor_d
#define CF_BATCH_NAME check_batch_d
#define CF_REAL double
#define CF_ACC long double
#define CF_REF ref_potrf_ld
#define CF_RESID_TOL RESID_TOL_D
#define CF_FWD_TOL fwd_tol_d
#define CF_DIGITS 17
#define CF_KAPPA estimate_kappa_ld
#define CF_SAMPLED_NAME check_sampled_residual_d
#define CF_EPS DBL_EPSILON
#include "check_factor.inc"

void compare_tolerances(int n, size_t count, const float *A, double *tol)
{
    size_t nn = (size_t)n * (size_t)n;
    _Pragma("omp parallel for schedule(dynamic, 16)")
    for (long long b = 0; b < (long long)count; b++) {
        /* kappa from the float64 factor of the same input */
        double *A64 = host_alloc(2 * nn * sizeof(double), "float64 check workspace"), *L64 = A64 + nn;
        for (size_t k = 0; k < nn; k++) A64[k] = L64[k] = A[(size_t)b * nn + k];
        tol[b] = 2.0 * fwd_tol(n, ref_potrf_d(n, L64) == 0 ? estimate_kappa(n, A64, L64) : 1.0);
        free(A64);
    }
}

size_t compare_factors_tol(int n, size_t count, const double *tol, const float *L1, const int *info1, const float *L2,
                           const int *info2, char *detail, size_t detail_len, double *max_diff)
{
    size_t nn = (size_t)n * (size_t)n, bad = 0, first_bad = (size_t)-1;
    double md = 0.0;
    if (detail && detail_len) detail[0] = 0;
    _Pragma("omp parallel for schedule(dynamic, 16) reduction(+ : bad) reduction(max : md)")
    for (long long b = 0; b < (long long)count; b++) {
        char msg[256] = "";
        const float *l1 = L1 + (size_t)b * nn, *l2 = L2 + (size_t)b * nn;
        if (info1[b] != info2[b]) {
            snprintf(msg, sizeof msg, "matrix %lld: info %d, cuSOLVER's %d", b, info1[b], info2[b]);
        } else if (info1[b] == 0) {
            double d = 0.0, s = 0.0, worst = -1.0;
            int wi = 0, wj = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j <= i; j++) {
                    double e = (double)l1[i * n + j] - (double)l2[i * n + j];
                    d += e * e;
                    s += (double)l2[i * n + j] * l2[i * n + j];
                    if (!(fabs(e) <= worst)) {
                        worst = fabs(e);
                        wi = i;
                        wj = j;
                    }
                }
            double rel = sqrt(d) / sqrt(s);
            if (rel > md || rel != rel) md = rel;
            int ui = -1, uj = -1; /* the strict upper parts must agree exactly (zero) */
            for (int i = 0; i < n && ui < 0; i++)
                for (int j = i + 1; j < n; j++)
                    if (!(l1[i * n + j] == l2[i * n + j])) {
                        ui = i;
                        uj = j;
                        break;
                    }
            if (ui >= 0)
                snprintf(msg, sizeof msg, "matrix %lld: upper element (%d, %d) is %.9g, cuSOLVER's %.9g", b, ui, uj,
                         (double)l1[ui * n + uj], (double)l2[ui * n + uj]);
            else if (!(rel <= tol[b]))
                snprintf(msg, sizeof msg,
                         "matrix %lld: differs from cuSOLVER by %.3g > %.3g (at (%d, %d): got %.9g, want %.9g)", b, rel,
                         tol[b], wi, wj, (double)l1[wi * n + wj], (double)l2[wi * n + wj]);
        }
        if (msg[0]) {
            bad++;
            _Pragma("omp critical")
            if ((size_t)b < first_bad) {
                first_bad = (size_t)b;
                if (detail) snprintf(detail, detail_len, "%s", msg);
            }
        }
    }
    if (max_diff) *max_diff = md;
    return bad;
}

size_t compare_factors(int n, size_t count, const float *A, const float *L1, const int *info1, const float *L2,
                       const int *info2, char *detail, size_t detail_len, double *max_diff)
{
    double *tol = host_alloc(count * sizeof(double), "float64 check workspace");
    compare_tolerances(n, count, A, tol);
    size_t bad = compare_factors_tol(n, count, tol, L1, info1, L2, info2, detail, detail_len, max_diff);
    free(tol);
    return bad;
}

void zero_strict_upper(int n, size_t count, float *L)
{
    for (size_t b = 0; b < count; b++)
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) L[b * (size_t)n * n + (size_t)i * n + j] = 0.0f;
}

void poison_strict_upper(int n, size_t count, float *a, upper_garbage kind)
{
    for (size_t b = 0; b < count; b++)
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                float *m = a + b * (size_t)n * n;
                m[(size_t)i * n + j] = upper_garbage_value(kind, b, m[(size_t)j * n + i]);
            }
}

void poison_strict_upper_d(int n, size_t count, double *a, upper_garbage kind)
{
    for (size_t b = 0; b < count; b++)
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                double *m = a + b * (size_t)n * n;
                m[(size_t)i * n + j] = upper_garbage_is_nan(kind, b) ? NAN : 2.0 * m[(size_t)j * n + i] + 1.0;
            }
}

/* ---- verifying a benchmark's result ------------------------------------------------------- */

static size_t sample_index(size_t count, int s) { return (size_t)((double)(count - 1) * s / 3); }

int verify_sampled_host(int n, size_t count, const float *A, const float *L, const int *info)
{
    const size_t nn = (size_t)n * n;
    for (int s = 0; s < 4; s++) {
        size_t b = sample_index(count, s);
        factor_check fc;
        check_factor(n, A + b * nn, L + b * nn, info[b], &fc);
        if (!fc.ok) {
            fprintf(stderr, "result check after timing: matrix %zu: %s\n", b, fc.detail);
            return 0;
        }
    }
    return 1;
}

int verify_sampled_device(int n, size_t count, const float *d_A, const float *d_L, const int *d_info)
{
    const size_t nn = (size_t)n * n;
    float *A = host_alloc(4 * nn * sizeof(float), "float64 check workspace"),
          *L = host_alloc(4 * nn * sizeof(float), "float64 check workspace");
    int info[4];
    for (int s = 0; s < 4; s++) {
        size_t b = sample_index(count, s);
        CUDA_CHECK(cudaMemcpy(A + s * nn, d_A + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(L + s * nn, d_L + b * nn, nn * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&info[s], d_info + b, sizeof(int), cudaMemcpyDeviceToHost));
    }
    int ok = verify_sampled_host(n, 4, A, L, info);
    free(A);
    free(L);
    return ok;
}

double residual_norm1_ratio(int n, const float *A, const float *L, int step)
{
    if (step < 1) step = 1;
    double norm_a = 0, norm_r = 0;
    int not_finite = 0; /* a NaN or an infinity anywhere: the ratio is NaN (a max would drop it) */
#pragma omp parallel for reduction(max : norm_a) schedule(static)
    for (int i = 0; i < n; i++) { /* row sums of |A|, from its lower triangle */
        double s = 0;
        for (int j = 0; j < n; j++) s += fabs((double)(j <= i ? A[(size_t)i * n + j] : A[(size_t)j * n + i]));
        if (s > norm_a) norm_a = s;
    }
#pragma omp parallel for reduction(max : norm_r) reduction(| : not_finite) schedule(dynamic)
    for (int i = 0; i < n; i += step) {
        const float *li = L + (size_t)i * n;
        double s = 0;
        for (int j = 0; j < n; j++) {
            const float *lj = L + (size_t)j * n;
            const int last = i < j ? i : j;
            double dot = 0;
            for (int k = 0; k <= last; k++) dot += (double)li[k] * lj[k];
            s += fabs((double)(j <= i ? A[(size_t)i * n + j] : A[(size_t)j * n + i]) - dot);
        }
        if (!isfinite(s)) not_finite = 1;
        else if (s > norm_r) norm_r = s;
    }
    if (not_finite) return NAN;
    return norm_a > 0 ? norm_r / norm_a : norm_r;
}
