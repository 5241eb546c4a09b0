/* cyclic_launch.cuh - the host side of one cyclic-kernel instance: grid, shared memory, launch. */
#ifndef CYCLIC_LAUNCH_CUH
#define CYCLIC_LAUNCH_CUH

#include <stdio.h>
#include "cuda_check.h"
#include "cyclic_kernel.cuh"
#include "cyclic_kernel.h"

template <int G, int A>
static int cyclic_launch_one(int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    const size_t smem = (size_t)per_block * cyclic_buf_floats(G, A) * sizeof(float);
    const size_t max_blocks = 0x7fffffffULL, blocks = (batch + per_block - 1) / per_block;
    for (size_t first_block = 0; first_block < blocks; first_block += max_blocks) {
        const size_t k = blocks - first_block < max_blocks ? blocks - first_block : max_blocks;
        potrf_cyclic_kernel<G, A><<<(unsigned)k, per_block * G * G, smem>>>(d_A, n, batch, chunk, first_block * per_block,
                                                                             per_block, d_info);
        KERNEL_CHECK();
    }
    return 0;
}

static int cyclic_not_compiled(int g, int slots)
{
    fprintf(stderr, "potrf_batched_cyclic: G = %d with %d slots is not compiled in\n", g, slots);
    return -1;
}

/* Launch instance (G, A) if slots == A (A = 0: no instance). */
template <int G, int A>
static bool cyclic_try(int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info, int *rc)
{
    if constexpr (A > 0) {
        if (slots == A) { *rc = cyclic_launch_one<G, A>(per_block, n, batch, chunk, d_A, d_info); return true; }
    }
    return false;
}

/* One file: CYCLIC_FILE(NAME, G, A1, ..., A6) defines potrf_cyclic_NAME for the grid side G and
 * those slot counts (0: none). */
#define CYCLIC_FILE(NAME, G, A1, A2, A3, A4, A5, A6)                                                                          \
    extern "C" int potrf_cyclic_##NAME(int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info) \
    {                                                                                                                         \
        int rc = -1;                                                                                                          \
        if (cyclic_try<G, A1>(slots, per_block, n, batch, chunk, d_A, d_info, &rc) ||                                         \
            cyclic_try<G, A2>(slots, per_block, n, batch, chunk, d_A, d_info, &rc) ||                                         \
            cyclic_try<G, A3>(slots, per_block, n, batch, chunk, d_A, d_info, &rc) ||                                         \
            cyclic_try<G, A4>(slots, per_block, n, batch, chunk, d_A, d_info, &rc) ||                                         \
            cyclic_try<G, A5>(slots, per_block, n, batch, chunk, d_A, d_info, &rc) ||                                         \
            cyclic_try<G, A6>(slots, per_block, n, batch, chunk, d_A, d_info, &rc))                                           \
            return rc;                                                                                                        \
        return cyclic_not_compiled(G, slots);                                                                                 \
    }

#endif
