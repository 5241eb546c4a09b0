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
 * checks its launch: it returns 0, or -1 with the error noted (CUDA_TRY, common/cuda_check.h), which
 * its caller passes on (TRY) up to whoever asked for the factorization. */
#ifndef GRID_TASKS_H
#define GRID_TASKS_H

#include <stddef.h>
#include <cuda_runtime.h>
#include "cuda_check.h" /* MUST_CHECK */

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
 * about 2 bits, or one TF32 product (GRID_TF32: the operands rounded to 11 significant bits, the
 * sums in fp32; a user's explicit choice, never a default), or GRID_F16: as GRID_TF32, except that the
 * warpgroup bulk (Hopper) multiplies fp16 operands, each row scaled by a power of two (the same 11
 * bits, twice the tensor cores' rate, half the bytes). GRID_F16X3: as GRID_TF32X3, except that the
 * warpgroup bulk splits each operand, its row scaled as GRID_F16's, into two fp16 parts (hi and what
 * hi left out: 22 bits, as two TF32 parts) and adds three fp16 products (twice the rate and half the
 * bytes of three TF32 ones); fp32-accurate normwise, the fp32-accurate default where the warpgroup
 * bulk runs (grid_policy_choose). POTRF and TRSM always run in fp32. */
typedef enum {
    GRID_FP32 = 0,
    GRID_TF32X3 = 1,
    GRID_TF32 = 2,
    GRID_F16 = 3,
    GRID_F16X3 = 4,
    GRID_MATH_COUNT = 5
} grid_math;
/* 1 for the maths that run the updates on the tensor cores. */
static inline int grid_math_tensor(grid_math math)
{
    return math == GRID_TF32X3 || math == GRID_TF32 || math == GRID_F16 || math == GRID_F16X3;
}
/* 1 for the tensor-core maths that are fp32-accurate (three products a term). */
static inline int grid_math_accurate_tensor(grid_math math) { return math == GRID_TF32X3 || math == GRID_F16X3; }
/* 1 for the maths whose warpgroup bulk multiplies fp16 (rows scaled by powers of two). */
static inline int grid_math_half(grid_math math) { return math == GRID_F16 || math == GRID_F16X3; }
/* 1 for the user's reduced maths (one pass, not fp32-accurate; the second chance). */
static inline int grid_math_reduced(grid_math math) { return math == GRID_TF32 || math == GRID_F16; }

/* The workspace of the warpgroup update (grid_wgmma.cuh, Hopper): the panel of an update split once
 * into TF32 hi and lo tiles, grid_split_bytes(N, batch, grid_split_panels(N, batch, rules)) bytes. A split
 * is written once and read by the updates that use that panel: the next round's band (on main) and
 * the trailing triangle (on the bulk's stream) share one. Every reader waits for `written`; the
 * next split waits for every reader (`read`), whatever streams they ran on, so any schedule stays
 * correct. Make it with grid_split_create; grid_split_begin before each enqueue (nothing recorded
 * yet), and grid_split_forget whenever the matrices change (what it holds is stale then). */
typedef struct {
    float *panel;        /* device memory */
    cudaEvent_t written; /* recorded after each split */
    cudaEvent_t read[2]; /* recorded after the updates that read the current split */
    int readers;         /* read[] recorded since the last split (0 .. 2) */
    int kcol, K, origin; /* what it holds: columns kcol .. kcol + K - 1, rows origin ..; K = 0: nothing */
} grid_split;
MUST_CHECK int grid_split_create(grid_split *s, size_t bytes); /* 0, or -1: a CUDA error (noted; nothing held) */
void grid_split_destroy(grid_split *s);
void grid_split_begin(grid_split *s);
void grid_split_forget(grid_split *s);
size_t grid_split_bytes(int N, size_t batch, int panels); /* room for K = panels T */

/* What the launchers would otherwise ask the GPU or the environment at every launch, asked once
 * when a factorization is planned (grid_rules_current, grid_policy.c) and carried by its grid_plan,
 * so that a launch decides nothing. All zeros is valid (and the plainest): no early start, the
 * mma.sync band, no wave rules. */
typedef struct {
    int chain_overlap; /* 1: a chain kernel may start before the one ahead ends (compute capability 9.0+) */
    int wgmma_band;    /* 1: with a split, the next round's band runs on the warpgroup MMA too */
    int sm_count;      /* the GPU's SMs, for the update launcher's wave rules (0: none applies) */
    int wgmma_narrow;  /* the warpgroup bulk's blocks: 0 by grid_wgmma_narrow's rule, 1 128 x 256, 2 128 x 128 */
    int long_rounds;   /* rounds of GRID_MAX_PANELS while more tile columns remain (grid_round_panels); 0 never */
    int column_tensor; /* one column's update on the tensor cores from this K on (grid_column_tensor); 0 never */
    int trsm_tiles;    /* tiles a TRSM block (grid_trsm_tiles): 0 by the rule, else 1 or 2 everywhere */
} grid_rules;

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
    grid_split *split; /* a tensor-core math on Hopper: the bulk update runs on the warpgroup MMA; NULL: mma.sync */
    grid_rules rules;  /* the launchers' GPU-dependent choices (grid_rules_for); zeros: the plainest */
} grid_plan;

/* Step k's POTRF of the diagonal tile (k,k): one block of T threads per matrix. On a pivot <= 0
 * or NaN, the matrix's info becomes k T + j + 1 if it is still 0 (so the first failure wins). */
MUST_CHECK int launch_potrf_task(const grid_plan *p, int k, cudaStream_t s);

/* Step k's TRSM of the tiles (i,k), k < i < nt, with L_kk: nt-k-1 blocks. Nothing when k = nt-1. */
MUST_CHECK int launch_trsm_tasks(const grid_plan *p, int k, cudaStream_t s);

/* Step k's update of the tiles (i,j) with first <= j < last and j <= i < nt, each minus
 * L_ik L_jk^T (tile columns first..last-1 of the trailing matrix; first > k). One column
 * (last = first + 1: a block per tile or per quarter tile down it), a band of them (one block per
 * 128 x 128 down each two), or everything from column first on (last = nt: one block per 128 x 128, two tiles a side);
 * nothing when first >= last. The whole trailing matrix is first = k+1, last = nt. */
MUST_CHECK int launch_update_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s);

/* The updates of steps k and k+1 in one: (i,j) -= L_ik L_jk^T + L_i,k+1 L_j,k+1^T, i.e. a product
 * with K = 2T (the two panels are adjacent columns of A). The same columns as above; first > k+1.
 * Half the reads and writes of the trailing matrix, twice the work per block. */
MUST_CHECK int launch_update_pair_tasks(const grid_plan *p, int k, int first, int last, cudaStream_t s);
/* The updates of the panels k .. k+panels-1 in one (K = panels T), 1 <= panels <= GRID_MAX_PANELS;
 * first >= k + panels. Columns: any band first..last-1 (one column: a block per tile or quarter
 * tile; more: blocks of 128 x 128 down each two of them), or everything from first on (last = nt: the triangle).
 * launch_update_tasks and launch_update_pair_tasks are this with 1 and 2 panels. */
#define GRID_MAX_PANELS 16
MUST_CHECK int launch_update_group_tasks(const grid_plan *p, int k, int panels, int first, int last, cudaStream_t s);
/* 1 when the tensor-core bulk updates can run on Hopper's warpgroup MMA (grid_wgmma.cuh): a Hopper
 * build (sm_90a) and a GPU of compute capability 9.0. Asked when planning (grid_policy.c, which
 * also takes the caller's "never": grid_overrides.wgmma); a plan that may use it carries a split
 * workspace, and the launchers take the warpgroup MMA wherever a plan has one. */
int grid_wgmma_hardware(void);
/* The same, unless GRID_WGMMA=0 in the environment (the mma.sync kernels, to compare): the stage's
 * programs' question (grid_program.c). */
int grid_wgmma_available(void);
/* Panels in the quads' round that starts at tile column k (the rule and its measurements:
 * grid_policy.c). */
int grid_round_panels(const grid_plan *p, int k);
/* The update launcher's two shape rules (grid_policy.c): the look-ahead's tensor-core trailing
 * triangle in blocks of 64 instead of 128 (triangle128: its blocks of 128, every matrix); one
 * column's update in quarter tiles (c: the column, in tiles). */
int grid_bulk_blocks_of_64(const grid_plan *p, size_t triangle128);
int grid_quarter_column(const grid_plan *p, int c);
/* 1 when one column's update by K columns runs on the tensor cores (blocks of 64 down it) instead of
 * update_column_kernel's fp32 (grid_policy.c). */
int grid_column_tensor(const grid_plan *p, int K);
/* Tiles a TRSM block, 1 or 2, the same in every step (grid_policy.c). The factor does not depend on it. */
int grid_trsm_tiles(const grid_plan *p);
/* The panels a plan's split has room for: the longest round it can have under these rules
 * (grid_policy.c; the same condition as grid_round_panels). */
int grid_split_panels(int N, size_t batch, const grid_rules *rules);
/* The warpgroup bulk's blocks (grid_policy.c): 1 for 128 x 128, two an SM; 0 for 128 x 256. */
int grid_wgmma_narrow(const grid_plan *p);

/* The frame around the steps (grid_cholesky.c), for `batch` matrices: the caller's n x n ones
 * packed n * n apart, the padded ones N x N apart. When n is not a multiple of T, the tasks work on
 * a padded N x N copy: copy_in writes the lower triangle of the n x n matrix, zeros above it and
 * the identity in the padding (which factors to the identity and never touches the real part, as the remainder
 * tiles of the single-block kernel do); copy_out writes the factor back with zeros above the
 * diagonal. In place (n a multiple of T), zero_upper writes those zeros. */
MUST_CHECK int launch_copy_in(const float *A, int n, float *W, size_t ld, int N, int batch, cudaStream_t s);
MUST_CHECK int launch_copy_out(const float *W, size_t ld, int N, float *A, int n, int batch, cudaStream_t s);
MUST_CHECK int launch_zero_upper(float *A, int n, int batch, cudaStream_t s);

/* Precision high's second chance (grid_cholesky.c): set an IF node's condition to 1 when any of
 * the batch's infos is nonzero (a captured launch; the node that follows reads it). */
MUST_CHECK int launch_set_if_failed(cudaGraphConditionalHandle h, const int *info, size_t batch, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
