/* sanitize_chunked.c - every stage 05 kernel once, small (make sanitize-stage-5 runs it under
 * compute-sanitizer): the tiled converters there and back for several chunks and odd n with a
 * partial last chunk, and both batched kernels on chunked layouts through them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batched_small_run.h"
#include "cli.h"
#include "cuda_check.h"
#include "host_alloc.h"
#include "layout_convert.h"
#include "small_runs.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv,
                     "usage: sanitize_chunked   (small runs of every stage 05 kernel, for compute-sanitizer)\n");
    const size_t batch = 70, chunks[] = {1, 17, 32, 64, 70};
    const int ns[] = {1, 7, 33};
    int wrong = 0;
    for (int s = 0; s < 3; s++)
        for (int c = 0; c < 5; c++) { /* a round trip must give back the input bit for bit */
            int n = ns[s];
            size_t bytes = batch * n * n * sizeof(float);
            float *A = small_batch(n, batch), *B = host_alloc(bytes, "round trip"), *d_rm, *d_lay;
            CUDA_CHECK(cudaMalloc((void **)&d_rm, bytes));
            CUDA_CHECK(cudaMalloc((void **)&d_lay, bytes));
            CUDA_CHECK(cudaMemcpy(d_rm, A, bytes, cudaMemcpyHostToDevice));
            CALL_CHECK(rowmajor_to_chunked_tiled(n, batch, chunks[c], d_rm, d_lay, cudaStreamLegacy));
            CUDA_CHECK(cudaMemset(d_rm, 0, bytes));
            CALL_CHECK(chunked_to_rowmajor_tiled(n, batch, chunks[c], d_lay, d_rm, cudaStreamLegacy));
            CUDA_CHECK(cudaMemcpy(B, d_rm, bytes, cudaMemcpyDeviceToHost));
            if (memcmp(A, B, bytes) != 0) {
                printf("FAILED round trip n=%d chunk=%zu\n", n, chunks[c]);
                wrong++;
            }
            CUDA_CHECK(cudaFree(d_rm));
            CUDA_CHECK(cudaFree(d_lay));
            free(A);
            free(B);
        }
    batched_config thread = THREAD_CONFIG(4, 32, 2), left = TILES_CONFIG(LOOK_LEFT, 8, 4),
                   right = TILES_CONFIG(LOOK_RIGHT, 4, 8), top = TILES_CONFIG(LOOK_TOP, 16, 2);
    small_run_batched(batched_kernel_find, &thread, 33, batch, 17, rowmajor_to_chunked_tiled,
                      chunked_to_rowmajor_tiled);
    small_run_batched(batched_kernel_find, &thread, 7, batch, 32, rowmajor_to_chunked_tiled, chunked_to_rowmajor_tiled);
    small_run_batched(batched_kernel_find, &left, 33, batch, 17, rowmajor_to_chunked_tiled, chunked_to_rowmajor_tiled);
    small_run_batched(batched_kernel_find, &right, 7, batch, 32, rowmajor_to_chunked_tiled, chunked_to_rowmajor_tiled);
    small_run_batched(batched_kernel_find, &top, 20, batch, 64, rowmajor_to_chunked_tiled, chunked_to_rowmajor_tiled);
    return small_runs_end("sanitize_chunked") || wrong;
}
