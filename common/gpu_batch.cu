/* gpu_batch.cu - see gpu_batch.h. 64-bit indices throughout: a batch that fills an 80 GB GPU
 * holds ~2e10 floats. The generator is one thread per element (it computes every value, so its
 * writes just need to be coalesced); the converters are tiled transposes (below). */
#include "cuda_check.h"
#include "gpu_batch.h"
#include "layout.h"

/* Thread k handles element k of the destination, walking the chunked layout in storage order:
 * chunk after chunk, inside a chunk element (i, j) after element, matrix after matrix. */
__device__ static void chunked_position(int n, size_t batch, size_t chunk, size_t k, size_t *b, int *i, int *j)
{
    size_t nn = (size_t)n * (size_t)n;
    size_t start = (k / (chunk * nn)) * chunk;          /* the first matrix of k's chunk */
    size_t width = chunk_width(chunk, batch, start);
    size_t in_chunk = k - start * nn;                   /* offset inside the chunk */
    size_t elem = in_chunk / width;                     /* i*n + j */
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

/* The converters are transposes. A chunk of w matrices is, row-major, a w x n^2 array (matrix
 * after matrix) and, chunked, an n^2 x w array (element after element). Moving one element per
 * thread makes one side coalesced and the other a gather with a stride of n^2 floats. Instead a
 * block moves a 32 x 32 tile (32 matrices x 32 elements) through shared memory: it reads 32
 * consecutive floats per warp on one side, synchronizes, and writes 32 consecutive floats per
 * warp on the other (consecutive matrices of one chunk are neighbours in the chunked layout). */
#define TT 32          /* tile: TT matrices x TT elements */
#define TROWS 8        /* block of TT x TROWS threads, each moving TT / TROWS values */

__global__ void transpose_kernel(int n, size_t batch, size_t chunk, const float *in, float *out, int to_chunked)
{
    __shared__ float tile[TT][TT + 1];       /* +1: a column of the tile spans all 32 banks */
    const size_t nn = (size_t)n * (size_t)n, e0 = (size_t)blockIdx.x * TT;
    const size_t tiles = (batch + TT - 1) / TT;
    for (size_t t = blockIdx.y; t < tiles; t += gridDim.y) {
        const size_t m0 = t * TT, mx = m0 + threadIdx.x;          /* this thread's matrix in x */
        matrix_place px = {0, 0};
        if (mx < batch) px = chunked_place(n, chunk, batch, mx);
        for (int r = threadIdx.y; r < TT; r += TROWS) {
            /* read: row-major along elements, or chunked along matrices - coalesced either way */
            size_t m = m0 + r, e = e0 + threadIdx.x;
            if (to_chunked) tile[r][threadIdx.x] = (m < batch && e < nn) ? in[m * nn + e] : 0.0f;
            else tile[r][threadIdx.x] = (mx < batch && e0 + r < nn) ? in[px.base + (e0 + r) * px.stride] : 0.0f;
        }
        __syncthreads();
        for (int r = threadIdx.y; r < TT; r += TROWS) {
            size_t m = m0 + r, e = e0 + threadIdx.x;
            if (to_chunked) {
                if (mx < batch && e0 + r < nn) out[px.base + (e0 + r) * px.stride] = tile[threadIdx.x][r];
            } else if (m < batch && e < nn)
                out[m * nn + e] = tile[threadIdx.x][r];
        }
        __syncthreads();                     /* the tile is reused by the next t */
    }
}

static void launch_transpose(int n, size_t batch, size_t chunk, const float *in, float *out, int to_chunked)
{
    size_t nn = (size_t)n * (size_t)n, etiles = (nn + TT - 1) / TT, mtiles = (batch + TT - 1) / TT;
    dim3 grid((unsigned)etiles, (unsigned)(mtiles < 65535 ? mtiles : 65535));
    transpose_kernel<<<grid, dim3(TT, TROWS)>>>(n, batch, chunk, in, out, to_chunked);
    KERNEL_CHECK();
}

/* A grid-stride loop with enough blocks to fill any GPU; capped so the grid size stays legal. */
static unsigned grid_for(size_t total)
{
    size_t blocks = (total + 255) / 256;
    return (unsigned)(blocks < 65536 * 4 ? (blocks ? blocks : 1) : 65536 * 4);
}

extern "C" void gen_batch_device(const gen_params *p, int n, size_t first, size_t count, size_t chunk, float *d_out)
{
    gen_kernel<<<grid_for(count * n * n), 256>>>(*p, n, first, count, chunk, d_out);
    KERNEL_CHECK();
}

extern "C" void rowmajor_to_chunked_device(int n, size_t batch, size_t chunk, const float *d_in, float *d_out)
{
    launch_transpose(n, batch, chunk, d_in, d_out, 1);
}

extern "C" void chunked_to_rowmajor_device(int n, size_t batch, size_t chunk, const float *d_in, float *d_out)
{
    launch_transpose(n, batch, chunk, d_in, d_out, 0);
}
