/* grid_tasks.h - the tasks of a tiled Cholesky of ONE large matrix spread over the whole GPU:
 * one thread block per tile task, one kernel launch per kind of task and step.
 *
 * The matrix (row-major, lower) is cut into T x T tiles (T = GRID_TILE), nt = N / T a side
 * (N = n rounded up to a multiple of T; see grid_cholesky.c for the padding). Step k of right-looking Cholesky:
 *
 *   POTRF   (k,k) <- chol(A_kk)                          1 block
 *   TRSM    (i,k) <- A_ik L_kk^-T          for k < i     nt-k-1 blocks, all at once
 *   UPDATE  (i,j) <- A_ij - L_ik L_jk^T    for k < j <= i  one block per tile, or per 2 x 2
 *                                                          tiles (SYRK on the diagonal)
 *
 * The tasks of one launch are independent; the launches of one step depend on each other in
 * this order, and step k+1 needs only column k+1 of step k's update. These launchers are the
 * building blocks of grid_schedule.c; every one is asynchronous on the stream it is given and
 * checks its launch. */
#ifndef GRID_TASKS_H
#define GRID_TASKS_H

#include <stddef.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The tile: T x T. 64 measured best on the H100: a tile of 128 made every factorization
 * 1.9-2.0x slower (n = 256..8192), because step k's POTRF and TRSM run one block per tile and
 * lie on the critical path: 8 times the work per block and twice the steps in a chain. The
 * reuse that a larger tile would give the update comes from its 128 x 128 blocks instead. */
#define GRID_TILE 64

/* A launch's grid has at most this many blocks in y: the matrices of one launch. */
#define GRID_MAX_BATCH 65535

/* The arithmetic of the UPDATE tasks (the bulk of the work): the fp32 cores, or the tensor cores
 * with every operand split into two TF32 parts (3xTF32, grid_tf32x3.cuh), as accurate as fp32 to
 * about 2 bits. POTRF and TRSM always run in fp32. */
typedef enum { GRID_FP32 = 0, GRID_TF32X3 = 1, GRID_MATH_COUNT = 2 } grid_math;

/* The workspace of the warpgroup update (grid_wgmma.cuh, Hopper): the panel of an update split
 * once into TF32 hi and lo tiles, grid_split_bytes(N, batch) bytes. A split is written once and
 * read by the updates that use that panel: the next round's band (on main) and the trailing
 * triangle (on the bulk's stream) share one. Every reader waits for `written`; the next split waits
 * for every reader (`read`), whatever streams they ran on, so any schedule stays correct. Make it
 * with grid_split_create; grid_split_begin before each enqueue (nothing recorded yet), and
 * grid_split_forget whenever the matrices change (what it holds is stale then). */
typedef struct {
    float *panel;        /* device memory */
    cudaEvent_t written; /* recorded after each split */
    cudaEvent_t read[2]; /* recorded after the updates that read the current split */
    int readers;         /* read[] recorded since the last split (0 .. 2) */
    int kcol, K, origin; /* what it holds: columns kcol .. kcol + K - 1, rows origin ..; K = 0: nothing */
} grid_split;
int grid_split_create(grid_split *s, size_t bytes); /* 0, or a CUDA error (nothing then held) */
void grid_split_destroy(grid_split *s);
void grid_split_begin(grid_split *s);
void grid_split_forget(grid_split *s);
size_t grid_split_bytes(int N, size_t batch);

/* What one factorization works on: `batch` matrices of the same order, factored together (every
 * launch runs its tasks for every matrix: blockIdx.y is the matrix). */
typedef struct {
    float *A;          /* the first N x N row-major matrix the tasks factor (the caller's, or the padded copy) */
    size_t ld;         /* its row stride: N */
    int nt;            /* tiles a side: N / GRID_TILE */
    int *info;         /* device, one per matrix: the first failing minor (set by POTRF tasks; must start at 0) */
    int batch;         /* matrices: 1 .. GRID_MAX_BATCH */
    size_t stride;     /* floats from one matrix to the next: N * N */
    grid_math math;    /* the updates' arithmetic */
    grid_split *split; /* GRID_TF32X3 on Hopper: the bulk update runs on the warpgroup MMA; NULL: mma.sync */
} grid_plan;

/* Step k's POTRF of the diagonal tile (k,k): one block of T threads per matrix. On a pivot <= 0
 * or NaN, the matrix's info becomes k T + j + 1 if it is still 0 (so the first failure wins). */
void launch_potrf_task(const grid_plan *p, int k, cudaStream_t s);

/* Step k's TRSM of the tiles (i,k), k < i < nt, with L_kk: nt-k-1 blocks. Nothing when k = nt-1. */
void launch_trsm_tasks(const grid_plan *p, int k, cudaStream_t s);

/* Step k's update of the tiles (i,j) with first <= j < last and j <= i < nt, each minus
 * L_ik L_jk^T (tile columns first..last-1 of the trailing matrix; first > k). One column
 * (last = first + 1: a block per tile or per quarter tile down it), a band of them (one block per
 * 128 x 128 down each two), or everything from column first on (last = nt: one block per 128 x 128, two tiles a side);
 * nothing when first >= last. The whole trailing matrix is first = k+1, last = nt. */
void launch_update_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s);

/* The updates of steps k and k+1 in one: (i,j) -= L_ik L_jk^T + L_i,k+1 L_j,k+1^T, i.e. a product
 * with K = 2T (the two panels are adjacent columns of A). The same columns as above; first > k+1.
 * Half the reads and writes of the trailing matrix, twice the work per block. */
void launch_update_pair_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s);
/* The updates of the panels k .. k+panels-1 in one (K = panels T), 1 <= panels <= GRID_MAX_PANELS;
 * first >= k + panels. Columns: any band first..last-1 (one column: a block per tile or quarter
 * tile; more: blocks of 128 x 128 down each two of them), or everything from first on (last = nt: the triangle).
 * launch_update_tasks and launch_update_pair_tasks are this with 1 and 2 panels. */
#define GRID_MAX_PANELS 8
void launch_update_group_tasks(const grid_plan *p, int k, int panels, int first, int last, cudaStream_t s);
/* 1 when the GRID_TF32X3 bulk updates may run on Hopper's warpgroup MMA (grid_wgmma.cuh): a Hopper
 * build (sm_90a), a GPU of compute capability 9.0, and not GRID_WGMMA=0 in the environment (the
 * mma.sync kernels, for comparison). The plan must also carry a split workspace. */
int grid_wgmma_available(void);
/* Ask now, for the current GPU, what the launchers would ask on their first call (its compute
 * capability, GRID_WGMMA and GRID_WGMMA_BAND), so that a later call queries and reads nothing. */
void grid_tasks_prepare(void);
/* Panels in the quads' round that starts at tile column k, by the matrix's size (nt tiles a side):
 * - nt > GRID_QUADS_FROM_TILES (n > 8192): 4, or 8 with the tensor-core updates while at least
 *   GRID_EIGHT_PANELS_FROM tile columns remain. Eight panels read and write the trailing matrix
 *   half as often again (K = 8T), but make the chain of a round twice as long: worth it only while
 *   the bulk update of a round takes longer than the next round's chain. H100, same run, quads
 *   tf32x3 (mma.sync updates then): n = 16384 28.6-29.1 -> 27.7 ms, 12288 13.7-13.8 -> 13.4 with
 *   160 columns. Since the next round's band runs on the warpgroup MMA too (its chain part got
 *   shorter), 96 (H100, same run): 16384 19.03-19.15 -> 18.43-18.77 ms (64: 18.58-18.64, 112:
 *   18.51-18.53, 128: 18.79-18.90, 144: 19.06-19.10), 12288 10.24 -> 9.86, 10240 7.25 -> 6.78,
 *   32768 120.4 -> 119.6.
 * - GRID_TWO_PANELS_ABOVE_TILES < nt <= GRID_QUADS_FROM_TILES (n = 4033 .. 8192): 2 while at least
 *   GRID_TWO_PANELS_FROM columns remain, then 1: the pairs' K = 2T where the bulk is long, the
 *   look-ahead's short chain at the end, where the bulk no longer hides it. H100, same run, one
 *   matrix, against the pairs (the default there before): tf32x3 n = 4160 1.66 -> 1.49 ms, 5120
 *   2.24 -> 2.09, 6144 3.03 -> 2.89, 7168 4.09-4.11 -> 3.97, 8192 5.38-5.40 -> 5.25-5.26; fp32 4160
 *   1.90 -> 1.65, 8192 7.47 -> 7.15. n = 4096 (nt = 64) joined when its tf32x3 band went to the
 *   warpgroup MMA: the trailing triangle of its first steps (K = T, blocks of 4 slices) then took
 *   longer than the chain and held the SMs the chain's TRSM waited for (issue 54, LIMITS.md); with
 *   rounds of 4 while 48 columns remain, H100, same run, two runs each: 1.268-1.282 -> 1.190-1.204
 *   ms (rounds of 4 while 40 / 52 / 56 / 64 remain: 1.193-1.201 / 1.219-1.222 / 1.230-1.242 /
 *   1.248-1.256; 24 / 16: 1.271-1.280 / 1.313-1.321). Below nt = 64 the default math is fp32 and
 *   the look-ahead stays ahead (fp32 rounds of 2, while 48 / 56 remain: 3840 1.224-1.226 ->
 *   1.243-1.251 / 1.236-1.245 ms, 3584 1.082-1.085 -> 1.099-1.106 / 1.094-1.099), so smaller
 *   matrices keep rounds of 4 when asked for quads. Where the band runs on the warpgroup MMA
 *   (tf32x3 on a Hopper), 4 instead of 2: a band of four tile columns is one 256-wide block column
 *   there, and the round's split serves band and bulk.
 *   H100, same run, two runs each: 4160 1.394-1.395 -> 1.375 ms, 5120 1.946-1.958 -> 1.926-1.935,
 *   6144 2.662-2.665 -> 2.645-2.646, 7168 3.557-3.562 -> 3.483-3.510, 8192 4.706-4.712 ->
 *   4.421-4.464.
 * - otherwise 4. */
#define GRID_EIGHT_PANELS_FROM 96
#define GRID_QUADS_FROM_TILES 128
#define GRID_TWO_PANELS_ABOVE_TILES 63
#define GRID_TWO_PANELS_FROM 48
int grid_round_panels(const grid_plan *p, int k);

/* The frame around the steps (grid_cholesky.c), for `batch` matrices: the caller's n x n ones
 * packed n * n apart, the padded ones N x N apart. When n is not a multiple of T, the tasks work on
 * a padded N x N copy: copy_in writes the lower triangle of the n x n matrix, zeros above it and
 * the identity in the padding (which factors to the identity and never touches the real part, as the remainder
 * tiles of the single-block kernel do); copy_out writes the factor back with zeros above the
 * diagonal. In place (n a multiple of T), zero_upper writes those zeros. */
void launch_copy_in(const float *A, int n, float *W, size_t ld, int N, int batch, cudaStream_t s);
void launch_copy_out(const float *W, size_t ld, int N, float *A, int n, int batch, cudaStream_t s);
void launch_zero_upper(float *A, int n, int batch, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
