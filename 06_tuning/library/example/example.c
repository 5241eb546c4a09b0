/* example.c - a program outside the course that factors with the installed libcourse_cholesky
 * (README.md here: how to build it with pkg-config or CMake).
 *
 *   ./example [N [BATCH]]     default 64 1024
 *
 * It makes BATCH symmetric, diagonally dominant (so positive definite) matrices of order N,
 * row-major, factors them on the GPU through one plan, and checks every info and, on up to 8
 * matrices, 2000 entries of L L^T against A. Exit 0: right; 1: a wrong factor or a failed call;
 * 2: bad arguments; 77: no NVIDIA GPU or driver here (the library's CHOLESKY_STATUS_NO_DEVICE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <course_cholesky/cholesky_plan.h>

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fprintf(stderr, "example: %s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

static unsigned long long rng = 88172645463325252ull;
static double uniform(void) /* xorshift64: -1 .. 1 */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 64;
    const long batch = argc > 2 ? atol(argv[2]) : 1024;
    if (n < 1 || batch < 1) {
        fprintf(stderr, "usage: example [N [BATCH]] (both >= 1)\n");
        return 2;
    }
    printf("example: libcourse_cholesky %d (header %d)\n", cholesky_version(), CHOLESKY_VERSION);
    cholesky_options opt = CHOLESKY_OPTIONS_INIT; /* row-major, fp32-accurate */
    cholesky_plan *plan;
    char err[512];
    const cholesky_status st = cholesky_plan_create(&plan, n, (size_t)batch, &opt, err, sizeof err);
    if (st == CHOLESKY_STATUS_NO_DEVICE) {
        printf("example: %s: %s\n", cholesky_status_string(st), err);
        return 77;
    }
    if (st != CHOLESKY_SUCCESS) {
        fprintf(stderr, "example: %s: %s\n", cholesky_status_string(st), err);
        return 1;
    }
    printf("example: %s\n", cholesky_plan_explain(plan));

    const size_t nn = (size_t)n * n, count = (size_t)batch * nn;
    float *a = malloc(count * sizeof *a), *l = malloc(count * sizeof *l);
    int *info = malloc((size_t)batch * sizeof *info);
    if (!a || !l || !info) {
        fprintf(stderr, "example: out of host memory\n");
        return 1;
    }
    for (long m = 0; m < batch; m++) /* off the diagonal in -1 .. 1, n on it: diagonally dominant */
        for (int i = 0; i < n; i++) {
            a[m * nn + (size_t)i * n + i] = (float)n;
            for (int j = 0; j < i; j++)
                a[m * nn + (size_t)i * n + j] = a[m * nn + (size_t)j * n + i] = (float)uniform();
        }
    float *d_a = NULL;
    int *d_info = NULL;
    void *d_work = NULL;
    const size_t work = cholesky_plan_workspace_bytes(plan);
    int ok = cuda_ok(cudaMalloc((void **)&d_a, count * sizeof *d_a), "cudaMalloc") &&
             cuda_ok(cudaMalloc((void **)&d_info, (size_t)batch * sizeof *d_info), "cudaMalloc") &&
             (!work || cuda_ok(cudaMalloc(&d_work, work), "cudaMalloc")) &&
             cuda_ok(cudaMemcpy(d_a, a, count * sizeof *a, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (ok) { /* in place, on the default stream */
        const cholesky_status e = cholesky_execute(plan, d_a, d_a, d_info, d_work, 0);
        if (e != CHOLESKY_SUCCESS) fprintf(stderr, "example: %s: %s\n", cholesky_status_string(e), cholesky_last_error());
        ok = e == CHOLESKY_SUCCESS && cuda_ok(cudaDeviceSynchronize(), "the factorization") &&
             cuda_ok(cudaMemcpy(l, d_a, count * sizeof *l, cudaMemcpyDeviceToHost), "cudaMemcpy") &&
             cuda_ok(cudaMemcpy(info, d_info, (size_t)batch * sizeof *info, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    double worst = 0;
    const double bound = 20.0 * n * 5.96e-8 * n; /* |A - L L^T|_ij against the float32 bound, |A| <= n */
    for (long m = 0; ok && m < batch; m++)
        if (info[m] != 0) {
            fprintf(stderr, "example: matrix %ld: info %d (want 0: it is positive definite)\n", m, info[m]);
            ok = 0;
        }
    for (long m = 0; ok && m < batch && m < 8; m++) {
        const float *L = l + m * nn, *A = a + m * nn;
        for (int t = 0; t < 2000; t++) {
            int i = (int)((uniform() + 1) / 2 * n), j = (int)((uniform() + 1) / 2 * n);
            i = i >= n ? n - 1 : i, j = j >= n ? n - 1 : j;
            if (j > i) {
                if (L[(size_t)i * n + j] != 0) ok = 0; /* zeros above the diagonal */
                const int s = i;
                i = j, j = s;
            }
            double sum = 0;
            for (int k = 0; k <= j; k++) sum += (double)L[(size_t)i * n + k] * L[(size_t)j * n + k];
            const double r = fabs(sum - A[(size_t)i * n + j]);
            if (!(r <= worst)) worst = r; /* NaN too */
        }
    }
    ok = ok && worst <= bound;
    printf("example: n = %d, batch = %ld: every info 0: %s; largest |A - L L^T| entry %.3g (bound %.3g): %s\n", n, batch,
           ok ? "yes" : "no", worst, bound, ok ? "right" : "WRONG");
    cudaFree(d_a);
    cudaFree(d_info);
    cudaFree(d_work);
    cholesky_plan_destroy(plan);
    free(a);
    free(l);
    free(info);
    return ok ? 0 : 1;
}
