/* grid_policy.h - every choice of the whole-GPU Cholesky for one shape on one GPU, made once before
 * the first launch: the schedule, the updates' arithmetic, the warpgroup MMA and its workspace, and
 * the launchers' rules (panels per round, the bulk's block size, quarter columns, early starts).
 * grid_policy.c holds the rules with the measurements behind them; the launchers only read the
 * result (grid_plan.rules, the split they are given). Stage 06's library asks here when it makes a
 * plan (06_tuning/library/cholesky_policy.c) and keeps the answer. */
#ifndef GRID_POLICY_H
#define GRID_POLICY_H

#include <stddef.h>
#include "grid_tasks.h" /* grid_math, grid_rules, grid_plan */

#ifdef __cplusplus
extern "C" {
#endif

#define GRID_MAX_N 65536

/* How the tasks are launched: the road from one launch per task kind and step to a graph. */
typedef enum {
    GRID_STREAM = 0,    /* enqueue_right_looking on one stream, launched every call */
    GRID_GRAPH = 1,     /* the same launches captured once as a CUDA Graph, replayed */
    GRID_LOOKAHEAD = 2, /* enqueue_lookahead (two streams), captured as a CUDA Graph */
    GRID_PAIRS = 3,     /* enqueue_lookahead_pairs (two panels per update), captured as a CUDA Graph */
    GRID_QUADS = 4,     /* enqueue_lookahead_quads (four panels per update), captured as a CUDA Graph */
    GRID_MODE_COUNT = 5
} grid_mode;

const char *grid_mode_name(grid_mode mode); /* "stream", "graph", "lookahead", "pairs", "quads" */
int grid_mode_parse(const char *name);      /* the mode, or -1 */
const char *grid_math_name(grid_math math); /* "fp32", "tf32x3", "tf32" */
int grid_math_parse(const char *name);      /* the math, or -1 */

/* The fastest mode for n, measured on the H100: the look-ahead up to n = 4032 (its critical path
 * is shorter), the quads above: past n = 8192 in rounds of 4 or 8 panels (K = 4T: 16384 31.8 vs
 * 34.4 ms for the pairs, 32768 236 vs 269), at n = 4033 .. 8192 in rounds of 2 panels (4 where the
 * band runs on the warpgroup MMA), then of 1 for the last 47 columns (grid_round_panels: 8192 5.25
 * vs 5.38 ms for the pairs, 6144 2.89 vs 3.03; with rounds of 4 the pairs won at 8192, 6.13 vs
 * 6.49; 4096 tf32x3 1.19-1.20 ms against the look-ahead's 1.27-1.28). */
grid_mode grid_default_mode(int n);

/* The same for a batch, by the tiles a step's update touches (batch x nt^2, nt = tiles a side):
 * the look-ahead while they are few (its critical path is shorter), the pairs past 4096 (the
 * update is most of the time; reading the trailing matrices half as often wins). The quads only
 * for matrices past n = 8192 (nt > 128) and for one matrix past n = 4096 (the rule above): on
 * batches of smaller ones they lost to the pairs at every shape of make bench-gpumode, in rounds
 * of 4 panels (640 x 512 2.07 vs 2.00 ms, 60 x 1024 1.18 vs 1.10, 8 x 2048 1.31 vs 1.19).
 * Measured on the H100 (make bench-gpumode, GRID_MODE=...): 640 x 512 3.00 vs 3.39 ms, 60 x 1024
 * 1.94 vs 2.26, 8 x 2048 2.03 vs 2.26 for the pairs; 16 x 512 0.23 vs 0.27, 4 x 1024 0.47 vs
 * 0.55, 2 x 2048 1.01 vs 1.12 for the look-ahead. */
grid_mode grid_default_batched_mode(int n, size_t batch);

/* The updates' arithmetic for n x batch: the tensor cores (GRID_TF32X3) from 4096 tiles a step
 * (batch x nt^2; one matrix from n = 4033), where the updates are most of the time; fp32 below,
 * where the chain of panel tasks is most of the time and the tensor-core blocks' longer start does
 * not pay. H100, make bench-stage-3, since the split of grid_tf32x3.cuh costs two instructions:
 * n = 4096 look-ahead 1.71 ms fp32 vs 1.63 tf32x3; n = 8192 pairs 8.05 vs 6.13; n = 16384 quads
 * 46.7 vs 31.8. fp32 on a GPU without TF32 tensor cores. */
grid_math grid_default_math(int n, size_t batch);

/* 1 when the GPU can run GRID_TF32X3 (TF32 tensor cores: compute capability 8.0 or newer). */
int grid_tensor_cores(int device);

/* 1 when a call with this math and shape runs its bulk updates on Hopper's warpgroup MMA
 * (grid_wgmma.cuh): tf32x3 on compute capability 9.0 (a Hopper build; GRID_WGMMA=0 turns it off), n
 * large enough, and the split panel's workspace (about 4 KiB a row, at most 512 MiB):
 * grid_split_workspace_bytes, 0 where the mma.sync updates run. */
int grid_warpgroup_update(grid_math math, int n, size_t batch);
size_t grid_split_workspace_bytes(grid_math math, int n, size_t batch);

/* The launchers' rules for the current GPU: early starts of the chain's kernels (compute capability
 * 9.0+), the band on the warpgroup MMA (unless GRID_WGMMA_BAND=0, to compare), its SM count. */
grid_rules grid_rules_current(void);

/* grid_round_panels: panels in the quads' round that starts at tile column k, by the matrix's size
 * (nt tiles a side):
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
#define GRID_EIGHT_PANELS_FROM 96
#define GRID_QUADS_FROM_TILES 128
#define GRID_TWO_PANELS_ABOVE_TILES 63
#define GRID_TWO_PANELS_FROM 48

/* All of it for one shape: what a plan keeps and every call of it runs. */
typedef struct {
    grid_mode mode;     /* the schedule */
    grid_math math;     /* the updates' arithmetic */
    size_t split_bytes; /* the warpgroup update's workspace; 0: the mma.sync updates */
    grid_rules rules;   /* the launchers' choices for this GPU */
} grid_policy;

/* The course's choice for `batch` matrices of order n on the current GPU: grid_default_batched_mode,
 * grid_default_math, the warpgroup update where grid_warpgroup_update says so, grid_rules_current.
 * GRID_MODE=stream|graph|lookahead|pairs|quads and GRID_MATH=fp32|tf32x3 in the environment choose
 * by hand (to compare them). No GPU to ask (a plan made only to be explained): fp32, no warpgroup
 * MMA, zero rules. It asks the GPU and reads the environment: call it when planning, not per call. */
void grid_policy_choose(int n, size_t batch, grid_policy *out);
/* The same with the schedule and the arithmetic given (the environment is not read). */
void grid_policy_for(grid_mode mode, grid_math math, int n, size_t batch, grid_policy *out);

#ifdef __cplusplus
}
#endif

#endif
