/* sanitize_single_tile.c - every stage 02 kernel once, small (make sanitize-stage-2 runs it under
 * compute-sanitizer): the single-tile Cholesky for NB = 4, 8, 16, 32, padded and not, with n = 1,
 * an odd n and n = NB; and the four helpers alone on tiles of odd and full orders. */
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "cuda_check.h"
#include "host_alloc.h"
#include "single_tile.h"
#include "small_runs.h"

int main(int argc, char **argv)
{
    cli_no_arguments(argc, argv,
                     "usage: sanitize_single_tile   (small runs of every stage 02 kernel, for compute-sanitizer)\n");
    const size_t count = 3;
    float *d_A, *d_in, *d_out;
    int *d_info;
    CUDA_CHECK(cudaMalloc((void **)&d_A, count * 32 * 32 * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_info, count * sizeof(int)));
    for (int nb = 4; nb <= 32; nb *= 2)
        for (int pad = 0; pad <= 1; pad++) {
            const int ns[] = {1, nb / 2 + 1, nb};
            for (int s = 0; s < 3; s++) {
                int n = ns[s];
                size_t bytes = count * n * n * sizeof(float);
                float *A = small_batch(n, count), *L = host_alloc(bytes, "factors");
                int info[3];
                CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
                if (potrf_single_tile(nb, pad, n, d_A, count, d_info) != 0) return 2;
                CUDA_CHECK(cudaMemcpy(L, d_A, bytes, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(info, d_info, sizeof info, cudaMemcpyDeviceToHost));
                char what[64];
                snprintf(what, sizeof what, "single tile NB=%d pad=%d n=%d", nb, pad, n);
                small_check(what, n, count, A, L, info);
                free(A);
                free(L);
            }
        }
    /* The helpers alone and back to back (ops 4, 5: where a missing closing barrier races), three
     * tiles in, one out (the unit tests check the values). */
    CUDA_CHECK(cudaMalloc((void **)&d_in, 3 * 32 * 32 * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, 32 * 32 * sizeof(float)));
    const int nbs[] = {1, 5, 8, 16, 32};
    for (int k = 0; k < 5; k++) {
        int nb = nbs[k];
        float *T = small_batch(nb, 3);
        CUDA_CHECK(cudaMemcpy(d_in, T, 3 * (size_t)nb * nb * sizeof(float), cudaMemcpyHostToDevice));
        for (int op = 0; op < TILE_HELPER_OPS; op++) {
            CUDA_CHECK(cudaMemset(d_info, 0, sizeof(int)));
            if (tile_helper_test(nb, op, 0, 0, d_in, d_out, d_info) != 0) return 2;
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        free(T);
    }
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_info));
    return small_runs_end("sanitize_single_tile");
}
