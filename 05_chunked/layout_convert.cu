/* layout_convert.cu - stage 05: the tiled layout converters (layout_convert.h).
 *
 * A chunk of w matrices is, row-major, a w x n^2 array (matrix after matrix) and, chunked, an
 * n^2 x w array (element after element): converting is a transpose. The provided converters
 * (common/gpu_batch.cu) move one element per thread, so one side is coalesced and the other
 * reads or writes addresses n^2 floats apart. Here a block moves a TT x TT tile - TT matrices
 * x TT elements - through shared memory: it reads the tile along whichever dimension is
 * contiguous in the source, synchronizes, and writes it along whichever is contiguous in the
 * destination. Consecutive matrices of one chunk are neighbours in the chunked layout, and
 * chunked_place (common/layout.h) gives each matrix's base and stride, partial last chunk
 * included.
 * Alone: make build/05_chunked/bench_chunked && BENCH_NS=64 BENCH_BYTES=67108864 build/05_chunked/bench_chunked */
#include "cuda_check.h"
#include "layout.h"
#include "layout_convert.h"

#define TT 32   /* tile: TT matrices x TT elements */
#define TROWS 8 /* block of TT x TROWS threads, each moving TT / TROWS values */

/* Block (x, y) moves elements e0 .. e0+TT-1 of matrices m0 .. m0+TT-1, for m0 = TT*t, t = y,
 * y + gridDim.y, ... A block is TT x TROWS threads: thread (tx, ty) takes r = ty, ty + TROWS, ...
 * and, with tx, one value per r on each side. On the row-major side tx walks elements (e0 + tx of
 * matrix m0 + r), on the chunked side matrices (m0 + tx, element e0 + r): each side coalesced.
 * The tile is already padded to TT + 1 columns (see the banks question in the README). Elements or
 * matrices past the end are neither read nor written. */
__global__ void transpose_kernel(int n, size_t batch, size_t chunk, const float *in, float *out, int to_chunked)
{
    __shared__ float tile[TT][TT + 1];
    const size_t nn = (size_t)n * (size_t)n, e0 = (size_t)blockIdx.x * TT;
    const size_t tiles = (batch + TT - 1) / TT;
    for (size_t t = blockIdx.y; t < tiles; t += gridDim.y) {
        // BEGIN SOLUTION: move tile t (TT matrices x TT elements) through tile[][] with coalesced reads and coalesced writes
        // stub: (void)tile[threadIdx.y][threadIdx.x]; (void)e0; (void)nn; (void)in; (void)out; (void)to_chunked; (void)n; (void)chunk;
        /* tile[r][c]: matrix m0 + r, element e0 + c. Thread x of a warp owns matrix mx for the
         * chunked side and element e0 + x for the row-major side. */
        const size_t m0 = t * TT, mx = m0 + threadIdx.x;
        matrix_place px = {0, 0};
        if (mx < batch) px = chunked_place(n, chunk, batch, mx);
        for (int r = threadIdx.y; r < TT; r += TROWS) {
            const size_t m = m0 + r, e = e0 + threadIdx.x;
            if (to_chunked) { /* row-major source: a warp reads 32 consecutive elements */
                if (m < batch && e < nn) tile[r][threadIdx.x] = in[m * nn + e];
            } else if (mx < batch && e0 + r < nn) { /* chunked source: 32 consecutive matrices */
                tile[threadIdx.x][r] = in[px.base + (e0 + r) * px.stride];
            }
        }
        __syncthreads(); /* the whole tile is in shared memory */
        for (int r = threadIdx.y; r < TT; r += TROWS) {
            const size_t m = m0 + r, e = e0 + threadIdx.x;
            if (to_chunked) {
                if (mx < batch && e0 + r < nn) out[px.base + (e0 + r) * px.stride] = tile[threadIdx.x][r];
            } else if (m < batch && e < nn) {
                out[m * nn + e] = tile[r][threadIdx.x];
            }
        }
        __syncthreads(); /* the tile is reused by the next t */
        // END SOLUTION
    }
}

static int launch_transpose(int n, size_t batch, size_t chunk, const float *in, float *out, int to_chunked,
                            cudaStream_t stream)
{
    const size_t nn = (size_t)n * (size_t)n, etiles = (nn + TT - 1) / TT, mtiles = (batch + TT - 1) / TT;
    dim3 grid((unsigned)etiles, (unsigned)(mtiles < 65535 ? mtiles : 65535));
    transpose_kernel<<<grid, dim3(TT, TROWS), 0, stream>>>(n, batch, chunk, in, out, to_chunked);
    KERNEL_TRY_ON(stream);
    return 0;
}

extern "C" int rowmajor_to_chunked_tiled(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                         cudaStream_t stream)
{
    return launch_transpose(n, batch, chunk, d_in, d_out, 1, stream);
}

extern "C" int chunked_to_rowmajor_tiled(int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                                         cudaStream_t stream)
{
    return launch_transpose(n, batch, chunk, d_in, d_out, 0, stream);
}
