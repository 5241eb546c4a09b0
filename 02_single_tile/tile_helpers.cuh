/* tile_helpers.cuh - the four tile operations every GPU stage is built from.
 *
 * A tile is an NB x NB block of a matrix held in shared memory, row-major with row stride LD
 * (tile_ld<NB, PAD>()). NB x NB threads work on it; thread (ty, tx) = (tile_row(), tile_col())
 * = (threadIdx.z, threadIdx.y) owns element (ty, tx). threadIdx.x is kept for the matrix: stages
 * 02-03 launch blocks of (1, NB, NB); from stage 04 on a block holds blockDim.x matrices, and
 * putting the matrix in x makes the 32 threads of a warp span neighbouring matrices, whose
 * elements lie side by side in the interleaved layouts (coalesced loads). Only the lower triangle of diagonal tiles is
 * read or written. The helpers do not know where a tile came from (one matrix, a tiled matrix,
 * an interleaved batch): loading and storing is the caller's job (stages 03-05 do it).
 *
 *   spotrf_tile(A, info)  A <- L with A = L L^T            (Cholesky of a diagonal tile)
 *   strsm_tile(B, L)      B <- B L^-T                       (an off-diagonal tile below L)
 *   ssyrk_tile(C, A)      C <- C - A A^T, lower part        (update of a diagonal tile)
 *   sgemm_tile(C, A, B)   C <- C - A B^T                    (update of an off-diagonal tile)
 *
 * Barriers: each helper ends with __syncthreads() so its result is visible to every thread,
 * and assumes the caller synchronized after writing its inputs. With several matrices in a block
 * the barriers are shared, so every matrix of a block must take the same path (same n, no early
 * return for one matrix).
 *
 * Bank conflicts: shared memory has 32 banks of 4 bytes; word w lives in bank w mod 32. In
 * sgemm_tile a warp's 32 threads (same ty, tx = 0..31 when NB = 32) read B[tx][k]: words
 * tx*LD + k. With LD = 32 they all fall in bank k: a 32-way conflict, 32 serialized accesses.
 * With LD = 33 they fall in banks (tx + k) mod 32: all different, one access. So PAD = 1 makes LD
 * the smallest odd number >= NB (odd LD is coprime with 32). A[ty][k] is the same word for the
 * whole warp: a broadcast, no conflict.
 * Alone: make build/02_single_tile/bench_single_tile && build/02_single_tile/bench_single_tile */
#ifndef TILE_HELPERS_CUH
#define TILE_HELPERS_CUH

template <int NB, int PAD> __host__ __device__ constexpr int tile_ld() { return PAD ? (NB | 1) : NB; }

/* The element of the tile the calling thread owns (see above for why x is not used). */
__device__ __forceinline__ int tile_row() { return (int)threadIdx.z; }
__device__ __forceinline__ int tile_col() { return (int)threadIdx.y; }

/* In-place Cholesky of the diagonal tile. *info (shared, one per matrix, 0 before the first tile)
 * receives base + k + 1 for the first pivot k that is <= 0 or NaN, and keeps a value already there:
 * stage 03 passes the same info to every diagonal tile and goes on after a failure, so the first
 * failure must win. base is the tile's first row in the whole matrix. After a failure the entries
 * from the failing column on may hold anything (NaN, say) and nothing there is checked; the columns
 * before it hold the factor. */
template <int NB, int LD> __device__ void spotrf_tile(float *A, int *info, int base)
{
    // BEGIN SOLUTION: Cholesky of the NB x NB diagonal tile, one element per thread, column by column; record the first bad pivot
    const int tx = tile_col(), ty = tile_row();
    for (int k = 0; k < NB; k++) {
        if (ty == k && tx == k) { // one thread takes the pivot's square root
            float d = A[k * LD + k];
            if (!(d > 0.0f) && *info == 0) *info = base + k + 1;
            A[k * LD + k] = sqrtf(d); // NaN for a bad pivot: propagates, harmless
        }
        __syncthreads(); // the pivot is ready for the column
        if (tx == k && ty > k) A[ty * LD + k] /= A[k * LD + k];
        __syncthreads(); // column k of L is ready for the update
        if (tx > k && tx <= ty) A[ty * LD + tx] -= A[ty * LD + k] * A[tx * LD + k];
        __syncthreads(); // trailing lower triangle updated before pivot k+1
    }
    // END SOLUTION
}

/* B <- B L^-T: solve X L^T = B, each row of X on its own (rows do not depend on each other); thread
 * (ty, tx) computes x[ty][tx]. Within a row, column j of X needs columns 0..j-1, so the sweep goes
 * column by column, all rows at once. */
template <int NB, int LD> __device__ void strsm_tile(float *B, const float *L)
{
    // BEGIN SOLUTION: B <- B L^-T, column by column
    const int tx = tile_col(), ty = tile_row();
    for (int j = 0; j < NB; j++) {
        if (tx == j) B[ty * LD + j] /= L[j * LD + j];
        __syncthreads(); // x[.][j] final before the others use it
        if (tx > j) B[ty * LD + tx] -= B[ty * LD + j] * L[tx * LD + j];
        __syncthreads(); // column j's contribution applied everywhere
    }
    // END SOLUTION
}

/* C <- C - A A^T on the lower triangle of a diagonal tile. */
template <int NB, int LD> __device__ void ssyrk_tile(float *C, const float *A)
{
    // BEGIN SOLUTION: C <- C - A A^T on the lower triangle
    const int tx = tile_col(), ty = tile_row();
    if (tx <= ty) {
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < NB; k++) s += A[ty * LD + k] * A[tx * LD + k];
        C[ty * LD + tx] -= s;
    }
    __syncthreads(); // C complete before anyone reads it
    // END SOLUTION
}

/* C <- C - A B^T for a full off-diagonal tile. */
template <int NB, int LD> __device__ void sgemm_tile(float *C, const float *A, const float *B)
{
    // BEGIN SOLUTION: C <- C - A B^T
    const int tx = tile_col(), ty = tile_row();
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NB; k++) s += A[ty * LD + k] * B[tx * LD + k];
    C[ty * LD + tx] -= s;
    __syncthreads(); // C complete before anyone reads it
    // END SOLUTION
}

#endif
