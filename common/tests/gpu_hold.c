/* gpu_hold.c - hold part of the GPU's memory for a while, as another user's process would:
 *
 *   build/common/tests/gpu_hold GIB SECONDS
 *
 * Used by make load-test to check that the driver shares the GPU: it must find the memory that
 * is left and go through in slices. Prints "holding" once the memory is taken. */
#include <stdio.h>
#include <unistd.h>
#include "cli.h"
#include "cuda_check.h"

int main(int argc, char **argv)
{
    long long gib, seconds;
    if (argc != 3 || !cli_parse_ll(argv[1], 1, 1024, &gib) || !cli_parse_ll(argv[2], 1, 3600, &seconds)) {
        fprintf(argc == 2 && argv[1][0] == '-' ? stdout : stderr, "usage: gpu_hold GIB SECONDS\n");
        return argc == 2 && argv[1][0] == '-' ? 0 : 2;
    }
    void *p;
    cudaError_t e = cudaMalloc(&p, (size_t)gib << 30);
    if (e != cudaSuccess) {
        fprintf(stderr, "gpu_hold: cannot take %lld GiB: %s\n", gib, cudaGetErrorString(e));
        return 2;
    }
    CUDA_CHECK(cudaMemset(p, 0, (size_t)gib << 30));
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("holding %lld GiB for %lld s\n", gib, seconds);
    fflush(stdout);
    sleep((unsigned)seconds);
    CUDA_CHECK(cudaFree(p));
    return 0;
}
