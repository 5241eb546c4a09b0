/* cusolver_oracle.c - see cusolver_oracle.h. */
#include <stdlib.h>
#include "checks.h"
#include "cuda_check.h"
#include "cusolver_oracle.h"
#include "host_alloc.h"

void oracle_single_setup(oracle_single *o, int n, float *d_A)
{
    o->n = n;
    o->d_A = d_A;
    CUSOLVER_CHECK(cusolverDnCreate(&o->handle));
    CUSOLVER_CHECK(cusolverDnSpotrf_bufferSize(o->handle, CUBLAS_FILL_MODE_UPPER, n, d_A, n, &o->lwork));
    CUDA_CHECK(cudaMalloc((void **)&o->d_work, (size_t)(o->lwork > 0 ? o->lwork : 1) * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&o->d_info, sizeof(int)));
}

void oracle_single_run(oracle_single *o)
{
    CUSOLVER_CHECK(
        cusolverDnSpotrf(o->handle, CUBLAS_FILL_MODE_UPPER, o->n, o->d_A, o->n, o->d_work, o->lwork, o->d_info));
}

void oracle_single_teardown(oracle_single *o)
{
    CUDA_CHECK(cudaFree(o->d_work));
    CUDA_CHECK(cudaFree(o->d_info));
    CUSOLVER_CHECK(cusolverDnDestroy(o->handle));
}

int oracle_potrf_host(int n, const float *A, float *L)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *d_A;
    int info = -1;
    oracle_single o;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    oracle_single_setup(&o, n, d_A);
    oracle_single_run(&o);
    CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&info, o.d_info, sizeof(int), cudaMemcpyDeviceToHost));
    oracle_single_teardown(&o);
    CUDA_CHECK(cudaFree(d_A));
    zero_strict_upper(n, 1, L);
    return info;
}

int oracle_potrf_double_host(int n, const float *A, double *L64)
{
    const size_t nn = (size_t)n * n;
    for (size_t e = 0; e < nn; e++) L64[e] = A[e];
    double *d_A, *d_work;
    int *d_info, lwork = 0, info = -1;
    cusolverDnHandle_t handle;
    CUSOLVER_CHECK(cusolverDnCreate(&handle));
    CUDA_CHECK(cudaMalloc((void **)&d_A, nn * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_A, L64, nn * sizeof(double), cudaMemcpyHostToDevice));
    /* row-major lower = column-major upper, as in oracle_single_run */
    CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_UPPER, n, d_A, n, &lwork));
    CUDA_CHECK(cudaMalloc((void **)&d_work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    CUSOLVER_CHECK(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_UPPER, n, d_A, n, d_work, lwork, d_info));
    CUDA_CHECK(cudaMemcpy(L64, d_A, nn * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_info));
    CUDA_CHECK(cudaFree(d_A));
    CUSOLVER_CHECK(cusolverDnDestroy(handle));
    for (size_t e = 0; e < nn; e++)
        if (e % n > e / n) L64[e] = 0.0;
    return info;
}

void oracle_dpotrf_host(int n, size_t count, const double *A, double *L, int *info)
{
    const size_t nn = (size_t)n * n;
    double *d_A, *d_work;
    int *d_info, lwork = 0;
    cusolverDnHandle_t handle;
    CUSOLVER_CHECK(cusolverDnCreate(&handle));
    CUDA_CHECK(cudaMalloc((void **)&d_A, nn * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    /* row-major lower = column-major upper, as in oracle_single_run */
    CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_UPPER, n, d_A, n, &lwork));
    CUDA_CHECK(cudaMalloc((void **)&d_work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
    for (size_t b = 0; b < count; b++) {
        CUDA_CHECK(cudaMemcpy(d_A, A + b * nn, nn * sizeof(double), cudaMemcpyHostToDevice));
        CUSOLVER_CHECK(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_UPPER, n, d_A, n, d_work, lwork, d_info));
        CUDA_CHECK(cudaMemcpy(L + b * nn, d_A, nn * sizeof(double), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(info + b, d_info, sizeof(int), cudaMemcpyDeviceToHost));
        for (size_t e = 0; e < nn; e++)
            if (e % n > e / n) L[b * nn + e] = 0.0;
    }
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_info));
    CUDA_CHECK(cudaFree(d_A));
    CUSOLVER_CHECK(cusolverDnDestroy(handle));
}

void oracle_batched_setup(oracle_batched *o, int n, float *d_A, size_t count)
{
    o->n = n;
    o->count = count;
    float **ptrs = host_alloc(count * sizeof(float *), "cuSOLVER pointer array");
    for (size_t b = 0; b < count; b++) ptrs[b] = d_A + b * (size_t)n * n;
    CUSOLVER_CHECK(cusolverDnCreate(&o->handle));
    CUDA_CHECK(cudaMalloc((void **)&o->d_ptrs, count * sizeof(float *)));
    CUDA_CHECK(cudaMemcpy(o->d_ptrs, ptrs, count * sizeof(float *), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&o->d_info, count * sizeof(int)));
    free(ptrs);
}

void oracle_batched_run(oracle_batched *o)
{
    CUSOLVER_CHECK(
        cusolverDnSpotrfBatched(o->handle, CUBLAS_FILL_MODE_UPPER, o->n, o->d_ptrs, o->n, o->d_info, (int)o->count));
}

void oracle_batched_teardown(oracle_batched *o)
{
    CUDA_CHECK(cudaFree(o->d_ptrs));
    CUDA_CHECK(cudaFree(o->d_info));
    CUSOLVER_CHECK(cusolverDnDestroy(o->handle));
}

void oracle_potrf_batched_host(int n, size_t count, const float *A, float *L, int *info)
{
    size_t bytes = count * (size_t)n * n * sizeof(float);
    float *d_A;
    oracle_batched o;
    CUDA_CHECK(cudaMalloc((void **)&d_A, bytes));
    CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
    oracle_batched_setup(&o, n, d_A, count);
    oracle_batched_run(&o);
    CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, o.d_info, count * sizeof(int), cudaMemcpyDeviceToHost));
    oracle_batched_teardown(&o);
    CUDA_CHECK(cudaFree(d_A));
    zero_strict_upper(n, count, L);
}

static void run_batched(void *p) { oracle_batched_run(p); }
static void run_single(void *p) { oracle_single_run(p); }

timing_stats oracle_time_potrf_batched(int n, size_t count, const float *d_pristine)
{
    size_t bytes = count * (size_t)n * n * sizeof(float);
    float *d_work;
    oracle_batched o;
    CUDA_CHECK(cudaMalloc((void **)&d_work, bytes));
    oracle_batched_setup(&o, n, d_work, count);
    timing_stats t = time_gpu_restoring(run_batched, &o, d_work, d_pristine, bytes);
    oracle_batched_teardown(&o);
    CUDA_CHECK(cudaFree(d_work));
    return t;
}

timing_stats oracle_time_potrf(int n, const float *A_host)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *d_pristine, *d_work;
    oracle_single o;
    CUDA_CHECK(cudaMalloc((void **)&d_pristine, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_work, bytes));
    CUDA_CHECK(cudaMemcpy(d_pristine, A_host, bytes, cudaMemcpyHostToDevice));
    oracle_single_setup(&o, n, d_work);
    timing_stats t = time_gpu_restoring(run_single, &o, d_work, d_pristine, bytes);
    oracle_single_teardown(&o);
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_pristine));
    return t;
}

/* cusolverDnXpotrf: its workspace comes in two parts, device and host, both sized outside the timed region. */
typedef struct {
    cusolverDnHandle_t handle;
    cusolverDnParams_t params;
    float *d_A;
    void *d_work, *h_work;
    size_t d_bytes, h_bytes;
    int *d_info, n;
} oracle_x;

static void run_x(void *p)
{
    oracle_x *o = p;
    CUSOLVER_CHECK(cusolverDnXpotrf(o->handle, o->params, CUBLAS_FILL_MODE_UPPER, o->n, CUDA_R_32F, o->d_A, o->n,
                                    CUDA_R_32F, o->d_work, o->d_bytes, o->h_work, o->h_bytes, o->d_info));
}

timing_stats oracle_time_xpotrf(int n, const float *A_host)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *d_pristine;
    oracle_x o = {0};
    o.n = n;
    CUDA_CHECK(cudaMalloc((void **)&d_pristine, bytes));
    CUDA_CHECK(cudaMalloc((void **)&o.d_A, bytes));
    CUDA_CHECK(cudaMemcpy(d_pristine, A_host, bytes, cudaMemcpyHostToDevice));
    CUSOLVER_CHECK(cusolverDnCreate(&o.handle));
    CUSOLVER_CHECK(cusolverDnCreateParams(&o.params));
    CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(o.handle, o.params, CUBLAS_FILL_MODE_UPPER, n, CUDA_R_32F, o.d_A, n,
                                               CUDA_R_32F, &o.d_bytes, &o.h_bytes));
    CUDA_CHECK(cudaMalloc(&o.d_work, o.d_bytes ? o.d_bytes : 1));
    o.h_work = host_alloc(o.h_bytes ? o.h_bytes : 1, "cusolverDnXpotrf host workspace");
    CUDA_CHECK(cudaMalloc((void **)&o.d_info, sizeof(int)));
    timing_stats t = time_gpu_restoring(run_x, &o, o.d_A, d_pristine, bytes);
    int info;
    CUDA_CHECK(cudaMemcpy(&info, o.d_info, sizeof info, cudaMemcpyDeviceToHost));
    if (info != 0) t.verified = TIMING_WRONG; /* the bench's matrices are SPD: anything else is a failure */
    CUDA_CHECK(cudaFree(o.d_work));
    CUDA_CHECK(cudaFree(o.d_info));
    CUDA_CHECK(cudaFree(o.d_A));
    CUDA_CHECK(cudaFree(d_pristine));
    free(o.h_work);
    CUSOLVER_CHECK(cusolverDnDestroyParams(o.params));
    CUSOLVER_CHECK(cusolverDnDestroy(o.handle));
    return t;
}
