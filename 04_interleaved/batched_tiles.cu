/* batched_tiles.cu - stages 04-05, the tile kernel: the three loop orders of stage 03 on a whole
 * batch in the (chunked) interleaved layout, one launch. Compared with stage 03 only two things
 * change:
 *   1. where a tile comes from: load_tile/store_tile for a batched_matrix (tile_batched.cuh);
 *   2. how blocks map to matrices: a block of per_block x NB x NB threads holds per_block
 *      consecutive matrices; matrix m of the block (threadIdx.x) has its own four tiles and its
 *      own info in shared memory, so nothing is shared between matrices but the barriers.
 * The helpers (stage 02) and the loop orders (looking_orders.cuh) are used unchanged.
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 32 --batch 100000 --kernel tiles --nb 8 */
#include <stdio.h>
#include "batched_cholesky.h"
#include "cuda_check.h"
#include "launch_split.cuh"
#include "tile_batched.cuh"   /* batched_matrix and its load_tile / store_tile */
#include "looking_orders.cuh" /* the three orders of stage 03 */

/* Shared memory: every matrix of the block has four tiles (and an info); a tile takes
 * tile_floats<NB>() floats, NB x LD made odd. Consecutive threads of a warp belong to consecutive
 * matrices, so the same element of the same tile of neighbouring matrices must fall in different
 * banks: what must be an odd distance apart (coprime with the 32 banks) is that tile of matrix m
 * and of matrix m + 1. A matrix's four tiles side by side would put it 4 x tile_floats apart, an
 * even distance: a warp's matrices would no longer fall in different banks (bank conflicts). */
template <int NB> __host__ __device__ constexpr int tile_floats() { return (NB * tile_ld<NB, 1>()) | 1; }

template <int NB> static size_t shared_bytes(int per_block)
{
    return (size_t)per_block * (4 * tile_floats<NB>() * sizeof(float) + sizeof(int));
}

template <int NB, looking_order ORDER> __global__ void __launch_bounds__(1024)
    potrf_tiles_kernel(float *A, int n, size_t batch, size_t chunk, size_t first, int *info)
{
    static_assert(NB >= 1 && NB * NB <= 1024, "one matrix's NB x NB threads must fit in a block");
    constexpr int LD = tile_ld<NB, 1>(), TS = tile_floats<NB>();
    extern __shared__ float smem[];
    // BEGIN SOLUTION: give matrix threadIdx.x its four tiles and its info in smem, find its place, factor it, store its info
    // stub: (void)A; (void)n; (void)batch; (void)chunk; (void)first; (void)info; (void)smem;
    const int m = threadIdx.x, per_block = blockDim.x;
    float *Sd = smem + m * TS, *Sc = Sd + per_block * TS, *Sa = Sc + per_block * TS, *Sb = Sa + per_block * TS;
    int *s_info = (int *)(smem + 4 * per_block * TS);
    int *my_info = s_info + m; /* one info per matrix, never one per block */
    const size_t b = first + (size_t)blockIdx.x * per_block + m;
    batched_matrix M = batched_matrix_at(A, n, batch, chunk, b);
    if (tile_row() == 0 && tile_col() == 0) *my_info = 0;
    __syncthreads();
    factor_tiled<NB, LD, ORDER>(M, n, Sd, Sc, Sa, Sb, my_info);
    if (M.present && tile_row() == 0 && tile_col() == 0) info[b] = *my_info;
    // END SOLUTION
}

template <int NB, looking_order ORDER>
static int launch(int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info, cudaStream_t stream)
{
    size_t blocks = 0;
    // BEGIN SOLUTION: how many blocks of per_block matrices cover the batch
    blocks = (batch + per_block - 1) / per_block; /* ceil: the tail block runs */
    // END SOLUTION
    return launch_split(
        blocks, stream,
        [&](unsigned k, size_t first_block) { /* past 2^31 - 1 blocks: several launches */
                                              potrf_tiles_kernel<NB, ORDER>
                                                  <<<k, dim3(per_block, NB, NB), shared_bytes<NB>(per_block), stream>>>(
                                                      d_A, n, batch, chunk, first_block * per_block, d_info);
        });
}

template <int NB> static int launch_order(looking_order order, int per_block, int n, size_t batch, size_t chunk,
                                          float *d_A, int *d_info, cudaStream_t stream)
{
    if (order == LOOK_RIGHT) return launch<NB, LOOK_RIGHT>(per_block, n, batch, chunk, d_A, d_info, stream);
    if (order == LOOK_LEFT) return launch<NB, LOOK_LEFT>(per_block, n, batch, chunk, d_A, d_info, stream);
    if (order == LOOK_TOP) return launch<NB, LOOK_TOP>(per_block, n, batch, chunk, d_A, d_info, stream);
    return 0;
}

extern "C" int potrf_batched_tiles(looking_order order, int nb, int per_block, int n, size_t batch, size_t chunk,
                                   float *d_A, int *d_info, cudaStream_t stream)
{
    switch (nb) {
    case 4: return launch_order<4>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    case 8: return launch_order<8>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    case 16: return launch_order<16>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    case 32: return launch_order<32>(order, per_block, n, batch, chunk, d_A, d_info, stream);
    }
    course_report("potrf_batched_tiles: nb = %d is not compiled in\n", nb);
    return -1;
}
