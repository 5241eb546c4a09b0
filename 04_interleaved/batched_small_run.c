/* batched_small_run.c - see batched_small_run.h. */
#include <stdio.h>
#include <stdlib.h>
#include "batched_small_run.h"
#include "cuda_check.h"
#include "host_alloc.h"
#include "small_runs.h"

void small_run_batched(batched_kernel_lookup kernels, const batched_config *cfg, int n, size_t batch, size_t chunk,
                       layout_converter to_layout, layout_converter to_rowmajor)
{
    const size_t bytes = batch * (size_t)n * n * sizeof(float), lay_chunk = chunk ? chunk : batch;
    float *A = small_batch(n, batch), *L = host_alloc(bytes, "factors"), *d_rm, *d_lay;
    int *info = host_alloc(batch * sizeof(int), "infos"), *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_rm, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_lay, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_info, batch * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_rm, A, bytes, cudaMemcpyHostToDevice));
    CALL_CHECK(to_layout(n, batch, lay_chunk, d_rm, d_lay, cudaStreamLegacy));
    if (potrf_batched_in(kernels, cfg, n, batch, lay_chunk, d_lay, d_info) != 0) exit(2);
    CALL_CHECK(to_rowmajor(n, batch, lay_chunk, d_lay, d_rm, cudaStreamLegacy));
    CUDA_CHECK(cudaMemcpy(L, d_rm, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, d_info, batch * sizeof(int), cudaMemcpyDeviceToHost));
    char what[128], name[64];
    snprintf(what, sizeof what, "%s n=%d batch=%zu chunk=%zu", batched_config_name_in(kernels, cfg, name, sizeof name),
             n, batch, chunk);
    small_check(what, n, batch, A, L, info);
    CUDA_CHECK(cudaFree(d_rm));
    CUDA_CHECK(cudaFree(d_lay));
    CUDA_CHECK(cudaFree(d_info));
    free(A);
    free(L);
    free(info);
}
