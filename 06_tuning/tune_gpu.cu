/* tune_gpu.cu - see tune_gpu.h. */
#include "cuda_check.h"
#include "tune_gpu.h"

__global__ void count_nonzero_kernel(const int *x, size_t count, unsigned long long *total)
{
    unsigned long long mine = 0;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        mine += x[k] != 0;
    if (mine) atomicAdd(total, mine);
}

extern "C" size_t count_nonzero_device(const int *d_x, size_t count)
{
    unsigned long long *d_total, total = 0;
    CUDA_CHECK(cudaMalloc((void **)&d_total, sizeof *d_total));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof *d_total));
    count_nonzero_kernel<<<1024, 256>>>(d_x, count, d_total);
    KERNEL_CHECK();
    CUDA_CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_total));
    return (size_t)total;
}
