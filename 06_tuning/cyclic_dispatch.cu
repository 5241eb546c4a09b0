/* cyclic_dispatch.cu - which cyclic-kernel instances exist, and picking one for n. */
#include <stdio.h>
#include "cyclic_kernel.cuh"
#include "cyclic_kernel.h"

/* Must match the CYCLIC_FILE lines of cyclic_g*.cu (test_tuning launches every entry). */
extern "C" const cyclic_grid cyclic_grids[CYCLIC_NGRIDS] = {
    {4, {8, 12, 16}},
    {8, {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
    {16, {4, 5, 6, 7, 8}},
};

static const cyclic_grid *grid_for(int threads)
{
    for (int s = 0; s < CYCLIC_NGRIDS; s++)
        if (cyclic_grids[s].g * cyclic_grids[s].g == threads) return &cyclic_grids[s];
    return NULL;
}

/* The fewest slots that hold n (0: none). */
static int slots_for(const cyclic_grid *gr, int n)
{
    for (int k = 0; gr && k < CYCLIC_MAX_SLOTS; k++)
        if (gr->slots[k] && n <= gr->g * gr->slots[k]) return gr->slots[k];
    return 0;
}

extern "C" int cyclic_max_n(int threads)
{
    const cyclic_grid *gr = grid_for(threads);
    int most = 0;
    for (int k = 0; gr && k < CYCLIC_MAX_SLOTS; k++)
        if (gr->g * gr->slots[k] > most) most = gr->g * gr->slots[k];
    return most;
}

extern "C" size_t cyclic_smem_need(int n, int threads, int per_block)
{
    const cyclic_grid *gr = grid_for(threads);
    const int a = slots_for(gr, n);
    return a ? (size_t)per_block * cyclic_buf_floats(gr->g, a) * sizeof(float) : 0;
}

extern "C" int potrf_batched_cyclic(int threads, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info)
{
    const cyclic_grid *gr = grid_for(threads);
    const int a = slots_for(gr, n);
    if (a) switch (gr->g) {
        case 4: return potrf_cyclic_g4(a, per_block, n, batch, chunk, d_A, d_info);
        case 8: return a <= 11 ? potrf_cyclic_g8(a, per_block, n, batch, chunk, d_A, d_info)
                               : potrf_cyclic_g8b(a, per_block, n, batch, chunk, d_A, d_info);
        case 16: return potrf_cyclic_g16(a, per_block, n, batch, chunk, d_A, d_info);
        }
    fprintf(stderr, "potrf_batched_cyclic: no instance for n = %d with %d threads per matrix\n", n, threads);
    return -1;
}
