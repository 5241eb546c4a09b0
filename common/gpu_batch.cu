/* gpu_batch.cu - see gpu_batch.h. 64-bit indices throughout: a batch that fills an 80 GB GPU
 * holds ~2e10 floats. The generator and the converters are one thread per destination element.
 * Alone: make build/common/tests/test_common && build/common/tests/test_common */
#include <stdio.h>
#include <stdlib.h>
#include "checks.h"
#include "cuda_check.h"
#include "host_alloc.h"
#include "gpu_batch.h"
#include "layout.h"

/* Thread k handles element k of the destination, walking the chunked layout in storage order:
 * chunk after chunk, inside a chunk element (i, j) after element, matrix after matrix. */
__device__ static void chunked_position(int n, size_t batch, size_t chunk, size_t k, size_t *b, int *i, int *j)
{
    size_t nn = (size_t)n * (size_t)n;
    size_t start = (k / (chunk * nn)) * chunk; /* the first matrix of k's chunk */
    size_t width = chunk_width(chunk, batch, start);
    size_t in_chunk = k - start * nn; /* offset inside the chunk */
    size_t elem = in_chunk / width;   /* i*n + j */
    *b = start + in_chunk % width;
    *i = (int)(elem / (size_t)n);
    *j = (int)(elem % (size_t)n);
}

__global__ void gen_kernel(gen_params p, int n, size_t first, size_t count, size_t chunk, float *out)
{
    size_t total = count * (size_t)n * (size_t)n;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
        size_t b;
        int i, j;
        chunked_position(n, count, chunk, k, &b, &i, &j);
        out[k] = gen_element(&p, n, first + b, i, j);
    }
}

/* The provided converters move one element per thread, thread k writing element k of the
 * destination: the writes are coalesced, the reads are a gather (neighbouring threads read
 * addresses n^2 floats apart on one of the two sides). Simple and obviously right; stage 05's
 * exercise is the tiled version that coalesces both sides (05_chunked/layout_convert.cu). */
__global__ void to_chunked_kernel(int n, size_t batch, size_t chunk, const float *in, float *out)
{
    const size_t nn = (size_t)n * (size_t)n, total = batch * nn;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
        size_t b;
        int i, j;
        chunked_position(n, batch, chunk, k, &b, &i, &j);
        out[k] = in[b * nn + (size_t)i * n + j];
    }
}

__global__ void to_rowmajor_kernel(int n, size_t batch, size_t chunk, const float *in, float *out)
{
    const size_t nn = (size_t)n * (size_t)n, total = batch * nn;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
        const matrix_place p = chunked_place(n, chunk, batch, k / nn);
        out[k] = in[p.base + (k % nn) * p.stride];
    }
}

/* One thread per element; only the strict upper ones change, each from its mirror below. */
__global__ void poison_upper_kernel(int n, size_t batch, size_t chunk, float *a, upper_garbage kind)
{
    const size_t nn = (size_t)n * (size_t)n, total = batch * nn;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
        const int i = (int)(k % nn / n), j = (int)(k % nn % n);
        if (j <= i) continue;
        const matrix_place p = chunked_place(n, chunk, batch, k / nn);
        a[p.base + ((size_t)i * n + j) * p.stride] =
            upper_garbage_value(kind, k / nn, a[p.base + ((size_t)j * n + i) * p.stride]);
    }
}

/* A grid-stride loop with enough blocks to fill any GPU; capped so the grid size stays legal. */
static unsigned grid_for(size_t total)
{
    size_t blocks = (total + 255) / 256;
    return (unsigned)(blocks < 65536 * 4 ? (blocks ? blocks : 1) : 65536 * 4);
}

extern "C" void gen_batch_device_on(const gen_params *p, int n, size_t first, size_t count, size_t chunk, float *d_out,
                                    cudaStream_t stream)
{
    gen_kernel<<<grid_for(count * n * n), 256, 0, stream>>>(*p, n, first, count, chunk, d_out);
    KERNEL_CHECK_ON(stream);
}

extern "C" void gen_batch_device(const gen_params *p, int n, size_t first, size_t count, size_t chunk, float *d_out)
{
    gen_batch_device_on(p, n, first, count, chunk, d_out, cudaStreamLegacy);
}

extern "C" void poison_strict_upper_device(int n, size_t batch, size_t chunk, float *d_a, upper_garbage kind,
                                           cudaStream_t stream)
{
    poison_upper_kernel<<<grid_for(batch * n * n), 256, 0, stream>>>(n, batch, chunk, d_a, kind);
    KERNEL_CHECK_ON(stream);
}

extern "C" int rowmajor_to_chunked_device(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                          cudaStream_t stream)
{
    to_chunked_kernel<<<grid_for(batch * n * n), 256, 0, stream>>>(n, batch, chunk, d_in, d_out);
    KERNEL_TRY_ON(stream);
    return 0;
}

extern "C" int chunked_to_rowmajor_device(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                          cudaStream_t stream)
{
    to_rowmajor_kernel<<<grid_for(batch * n * n), 256, 0, stream>>>(n, batch, chunk, d_in, d_out);
    KERNEL_TRY_ON(stream);
    return 0;
}

extern "C" void copy_matrix_from_layout(int n, size_t batch, size_t chunk, const float *d_lay, size_t b, float *host,
                                        cudaStream_t stream)
{
    const size_t nn = (size_t)n * n;
    const matrix_place pl = chunked_place(n, chunk, batch, b);
    int device, max_pitch;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, device));
    if (pl.stride * sizeof(float) <= (size_t)(unsigned)max_pitch)
        CUDA_CHECK(cudaMemcpy2DAsync(host, sizeof(float), d_lay + pl.base, pl.stride * sizeof(float), sizeof(float), nn,
                                     cudaMemcpyDeviceToHost, stream));
    else /* strides past the pitch limit (batches of > 5e8 matrices, so n <= 6) */
        for (size_t e = 0; e < nn; e++)
            CUDA_CHECK(cudaMemcpyAsync(host + e, d_lay + pl.base + e * pl.stride, sizeof(float), cudaMemcpyDeviceToHost,
                                       stream));
}

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

extern "C" int verify_generated_batch(const gen_params *p, int n, size_t batch, size_t chunk, const float *d_L,
                                      const int *d_info, int samples, const char *who)
{
    size_t bad = count_nonzero_device(d_info, batch);
    if (bad) {
        fprintf(stderr, "%s: %zu matrices with info != 0\n", who, bad);
        return 0;
    }
    const size_t nn = (size_t)n * n;
    float *A = (float *)host_alloc(nn * sizeof(float), "the sampled matrices"),
          *L = (float *)host_alloc(nn * sizeof(float), "the sampled matrices");
    int ok = 1;
    for (int s = 0; s < samples && ok; s++) {
        size_t b = samples > 1 ? (size_t)((double)(batch - 1) * s / (samples - 1)) : 0;
        gen_batch_host(p, n, b, 1, A);
        copy_matrix_from_layout(n, batch, chunk, d_L, b, L, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        factor_check fc;
        check_factor(n, A, L, 0, &fc);
        if (!fc.ok) {
            fprintf(stderr, "%s: matrix %zu: %s\n", who, b, fc.detail);
            ok = 0;
        }
    }
    free(A);
    free(L);
    return ok;
}
