/* layout_host.c - host converters between the row-major and the (chunked) interleaved layouts.
 * The GPU converters are in gpu_batch.cu; both use the index functions of layout.h. */
#include "layout.h"

void rowmajor_to_chunked_host(int n, size_t batch, size_t chunk, const float *in, float *out)
{
    _Pragma("omp parallel for schedule(static)")
    for (long long b = 0; b < (long long)batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                out[chunked_index(n, chunk, batch, (size_t)b, i, j)] = in[rowmajor_index(n, (size_t)b, i, j)];
}

void chunked_to_rowmajor_host(int n, size_t batch, size_t chunk, const float *in, float *out)
{
    _Pragma("omp parallel for schedule(static)")
    for (long long b = 0; b < (long long)batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                out[rowmajor_index(n, (size_t)b, i, j)] = in[chunked_index(n, chunk, batch, (size_t)b, i, j)];
}
