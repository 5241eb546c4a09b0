/* layout.h - where element (i, j) of matrix b lives in a batch of `batch` n x n matrices.
 *
 * Three layouts, all row-major inside a matrix (element (i, j) is number i*n + j):
 *
 *   row-major     matrix after matrix:            index = b*n*n + (i*n + j)
 *   interleaved   element after element:          index = (i*n + j)*batch + b
 *                 (element (i, j) of all matrices lies side by side, so thread b of a warp
 *                  reading "its" a_ij touches the address next to thread b+1's)
 *   chunked       interleaved inside chunks of c matrices, chunk after chunk:
 *                 index = start*n*n + (i*n + j)*w + (b - start)
 *                 with start = (b / c)*c the first matrix of b's chunk and
 *                 w = min(c, batch - start) the width of that chunk.
 *
 * The last chunk may be partial: when batch is not a multiple of c it holds only
 * w = batch - start matrices, stored interleaved with stride w (not c). Nothing is padded, so
 * every layout of a batch occupies exactly batch*n*n floats, every index is < batch*n*n, and
 * no matrix is skipped. Chunked with c >= batch is the interleaved layout; chunked with c = 1
 * is the row-major layout. All indices are 64-bit: 2^24 matrices of n = 20 hold 6.7e9 floats.
 *
 * The functions are inline and __host__ __device__: kernels, GPU converters and host
 * converters use the very same arithmetic. */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "portable.h"

HD static inline size_t rowmajor_index(int n, size_t b, int i, int j)
{
    return b * (size_t)n * (size_t)n + (size_t)i * (size_t)n + (size_t)j;
}

HD static inline size_t interleaved_index(int n, size_t batch, size_t b, int i, int j)
{
    return ((size_t)i * (size_t)n + (size_t)j) * batch + b;
}

/* First matrix of b's chunk, and the chunk's width (c, or less for the last chunk). */
HD static inline size_t chunk_start(size_t chunk, size_t b) { return (b / chunk) * chunk; }

HD static inline size_t chunk_width(size_t chunk, size_t batch, size_t start)
{
    return (batch - start < chunk) ? batch - start : chunk;
}

/* Every layout above stores matrix b with equally spaced elements: element (i, j) sits at
 * base + (i*n + j)*stride. Row-major: base = b*n*n, stride 1. Interleaved: base = b, stride =
 * batch. Chunked: base = start*n*n + (b - start), stride = the chunk's width. Kernels compute
 * this place once per matrix (one 64-bit division) and then address elements with one multiply. */
typedef struct {
    size_t base, stride;
} matrix_place;

HD static inline matrix_place chunked_place(int n, size_t chunk, size_t batch, size_t b)
{
    size_t start = chunk_start(chunk, b);
    matrix_place p = {start * (size_t)n * (size_t)n + (b - start), chunk_width(chunk, batch, start)};
    return p;
}

HD static inline size_t chunked_index(int n, size_t chunk, size_t batch, size_t b, int i, int j)
{
    matrix_place p = chunked_place(n, chunk, batch, b);
    return p.base + ((size_t)i * (size_t)n + (size_t)j) * p.stride;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Host converters between row-major and chunked (chunk = batch gives interleaved).
 * in and out must not overlap. chunk >= 1. */
void rowmajor_to_chunked_host(int n, size_t batch, size_t chunk, const float *in, float *out);
void chunked_to_rowmajor_host(int n, size_t batch, size_t chunk, const float *in, float *out);

#ifdef __cplusplus
}
#endif

#endif
