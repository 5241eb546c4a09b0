/* checks.h - is a computed Cholesky factor right?
 *
 * The contract every stage meets (row-major, lower):
 *   - A = L L^T with L lower triangular and a positive diagonal; on return the strict upper
 *     triangle of each output matrix is ZERO (the kernels write it), so L can be used as is.
 *   - info = 0 on success; info = k > 0 when the leading minor of order k is not positive
 *     definite (the k-th pivot is <= 0 or NaN), as LAPACK and cuSOLVER report it. Of a matrix with
 *     info = k > 0 only the part LAPACK defines is checked: rows and columns 1..k-1 hold the factor
 *     of the leading minor of order k - 1 (lower triangle; residual as below); the rest is
 *     unspecified. The other matrices of the batch must be exact.
 *     One documented difference: cusolverDnSpotrfBatched (CUDA 13.0, measured on an H100) reports
 *     info 0 for a NaN pivot; the course follows LAPACK (info = that pivot's index), so the
 *     batched tests expect LAPACK's info on a NaN matrix and cuSOLVER's on every finite one.
 *
 * check_factor() compares one result with a float64 reference computed from the same input:
 *   finite        every element of L is finite (NaN fails every comparison below too)
 *   lower         the strict upper triangle is exactly zero
 *   positive diag l_ii > 0
 *   residual      ||A - L L^T||_F / (n ||A||_F) <= RESID_TOL
 *   forward       ||L - L64||_F / ||L64||_F <= fwd_tol(n, kappa)
 *   info          equals the reference's info
 */
#ifndef CHECKS_H
#define CHECKS_H

#include <float.h>
#include <math.h>
#include "portable.h" /* HD */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Cholesky is backward stable: the computed L is the exact factor of A + dA with
 * ||dA|| <= c n u || |L| |L^T| || (Higham, Accuracy and Stability, Thm 10.3), and for SPD A
 * || |L||L^T| || is of the order of ||A||. Dividing by n leaves a small multiple of the unit
 * roundoff u = FLT_EPSILON/2; in practice the errors partly cancel and we see about u. A
 * tolerance of 32 u (16 FLT_EPSILON ~ 1.9e-6) leaves room for every correct summation order,
 * while a dropped update, a wrong index or a missing barrier gives residuals of 1e-4 to 1. */
#define RESID_TOL (16.0 * FLT_EPSILON)

/* The forward error of L is the backward error amplified by up to cond_2(A) (Sun 1991;
 * Higham Thm 10.8): ||dL|| / ||L|| <~ n u kappa. Residual is the sharp test, this one a guard. */
double fwd_tol(int n, double kappa);

/* float64 reference: lower Cholesky in place, row-major; zeros the strict upper triangle;
 * returns info (0, or k = order of the first leading minor that is not positive definite). */
int ref_potrf_d(int n, double *a);

/* The same for float64 factors (the float64 tests of the library): the unit roundoff DBL_EPSILON / 2
 * in the bounds, and a long double reference (on x86-64 a 64-bit significand: 11 bits past double,
 * enough to measure a float64 factor's errors; where long double is double, the reference's own
 * errors are of the size it measures, and the bounds' factor 16 is the room left). */
#define RESID_TOL_D (16.0 * DBL_EPSILON)
double fwd_tol_d(int n, double kappa);
int ref_potrf_ld(int n, long double *a);

/* Estimate cond_2(A) of an SPD matrix (power iteration with A, inverse iteration with its
 * float64 factor L64). A lower bound that is tight to a few percent after 30 steps. */
double estimate_kappa(int n, const double *A, const double *L64);

typedef struct {
    int ok;       /* every test passed */
    int ref_info; /* info of the float64 reference */
    double resid, fwd, kappa;
    char detail[256]; /* the first problem: what, (matrix,) i, j, got, want */
} factor_check;

/* Check one n x n result L (row-major) with its info against input A. */
void check_factor(int n, const float *A, const float *L, int info, factor_check *r);

/* check_factor for a float64 result L of a float64 input A, held to RESID_TOL_D and fwd_tol_d against
 * the long double reference; a factor with float32's accuracy fails it. */
void check_factor_d(int n, const double *A, const double *L, int info, factor_check *r);

/* Check a whole batch (OpenMP). Returns the number of failing matrices; *first describes the
 * first failing one (its detail starts with "matrix b"), and max_resid/max_fwd are over all
 * matrices that factored. expect_info may be NULL: then each matrix's info must equal the
 * reference's; otherwise it must equal expect_info[b]. */
size_t check_batch(int n, size_t count, const float *A, const float *L, const int *info, const int *expect_info,
                   factor_check *first, double *max_resid, double *max_fwd);

size_t check_batch_d(int n, size_t count, const double *A, const double *L, const int *info, const int *expect_info,
                     factor_check *first, double *max_resid, double *max_fwd); /* check_batch for float64 */

/* Agreement of two float32 factors of the same matrices (ours vs cuSOLVER): for each matrix with
 * info 0 in both, ||L1 - L2||_F / ||L2||_F <= 2 fwd_tol(n, kappa) (both are within fwd_tol of
 * the exact factor), the strict upper triangles are equal, and the infos must be equal. Returns
 * the number of disagreeing matrices. */
size_t compare_factors(int n, size_t count, const float *A, const float *L1, const int *info1, const float *L2,
                       const int *info2, char *detail, size_t detail_len, double *max_diff);

/* compare_factors in two steps, for tests that compare many results with the same cuSOLVER
 * factors: the per-matrix tolerances 2 fwd_tol(n, kappa_b) once (tol[count]), then any number of
 * comparisons. The strict upper triangles must be equal (zero in both). */
void compare_tolerances(int n, size_t count, const float *A, double *tol);
size_t compare_factors_tol(int n, size_t count, const double *tol, const float *L1, const int *info1, const float *L2,
                           const int *info2, char *detail, size_t detail_len, double *max_diff);
/* Set the strict upper triangle of count row-major matrices to zero (for cuSOLVER's output,
 * which leaves that part as it was). */
void zero_strict_upper(int n, size_t count, float *L);

/* Only the lower triangle of an input is read (LAPACK's uplo = 'L', cuSOLVER and torch alike): the
 * tests put garbage in the strict upper triangle of the copy a kernel gets, and keep the symmetric
 * A for the checks. `kind` UPPER_NAN: NaN (read, it spreads into the factor); UPPER_UNEQUAL: 2 a_ji
 * + 1 (a kernel that reads it factors another matrix); UPPER_MIXED: NaN in even matrices, unequal
 * in odd ones. */
typedef enum { UPPER_NAN = 0, UPPER_UNEQUAL = 1, UPPER_MIXED = 2 } upper_garbage;
void poison_strict_upper(int n, size_t count, float *a, upper_garbage kind);
void poison_strict_upper_d(int n, size_t count, double *a, upper_garbage kind); /* float64 inputs */
HD static inline int upper_garbage_is_nan(upper_garbage kind, size_t b)
{
    return kind == UPPER_NAN || (kind == UPPER_MIXED && b % 2 == 0);
}
HD static inline float upper_garbage_value(upper_garbage kind, size_t b, float a_ji)
{
    return upper_garbage_is_nan(kind, b) ? NAN : 2.0f * a_ji + 1.0f;
}

/* Benchmarks check what they timed before they report it (report.h). These sample 4 matrices of
 * a row-major batch (first, last and two between) and run check_factor on each: A and L on the
 * host, or the input d_A, the result d_L and d_info on the device. 1 if all pass; else 0 and
 * the first problem on stderr. */
int verify_sampled_host(int n, size_t count, const float *A, const float *L, const int *info);
int verify_sampled_device(int n, size_t count, const float *d_A, const float *d_L, const int *d_info);

/* For one matrix too large for an O(n^3) float64 check (n in the thousands): every element of L
 * is finite, the strict upper triangle zero, the diagonal positive, and `samples` entries (i, j)
 * drawn with a fixed seed satisfy |a_ij - l_i . l_j| <= 4 n eps ||l_i|| ||l_j|| (Higham's
 * componentwise bound gamma_(n+1) |L| |L^T|, with room; a missed or doubled tile update gives
 * errors of order 1). O(n^2 + samples n). Returns 1 when all hold; else 0 and the first problem in
 * detail. *worst (may be NULL) gets the largest scaled sampled residual. */
int check_sampled_residual(int n, const float *A, const float *L, int samples, char *detail, size_t len, double *worst);
/* The same for a float64 factor (long double sums, the bound with DBL_EPSILON). */
int check_sampled_residual_d(int n, const double *A, const double *L, int samples, char *detail, size_t len,
                             double *worst);

/* The normwise residual ||A - L L^T||_1 / ||A||_1 of one factor, in float64 (A symmetric, its lower
 * triangle read; L lower). ||.||_1 of a symmetric matrix is its largest row sum: `rows` row sums of
 * the residual (every `step`-th row from 0, step >= 1; step 1: the exact norm, O(n^3 / 3) with
 * OpenMP; a larger step gives a lower estimate in O(n^3 / step)). The check of gpu-mode's Cholesky
 * problem, which any precision a user may choose must pass: ratio <= NORMWISE_BOUND(n). */
double residual_norm1_ratio(int n, const float *A, const float *L, int step);
#define NORMWISE_BOUND(n) (20.0 * (n)*FLT_EPSILON)

/* LAPACK flop count of one n x n Cholesky: n^3/3 + n^2/2 + n/6. */
double potrf_flops(int n);

#ifdef __cplusplus
}
#endif

#endif
