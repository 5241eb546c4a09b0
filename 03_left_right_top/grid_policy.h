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

/* What a caller forces by hand, to compare (-1 each: the rule's choice). Nothing here reads the
 * environment: the stage's programs fill it from GRID_MODE, GRID_MATH, GRID_WGMMA, ...
 * (grid_overrides_env, grid_program.c), stage 06's library from its plan's options. */
typedef struct {
    int mode;        /* a grid_mode (GRID_MODE) */
    int math;        /* a grid_math (GRID_MATH); it wins over the default math, and over precision high */
    int wgmma;       /* 0: never the warpgroup MMA (GRID_WGMMA=0) */
    int wgmma_band;  /* 0: the next round's band on mma.sync (GRID_WGMMA_BAND=0) */
    int wg_narrow;   /* 0: the warpgroup bulk in 128 x 256 blocks everywhere, 1: 128 x 128 (GRID_WG_NARROW) */
    int long_rounds; /* rounds of 16 panels while more than this many tile columns remain, 0 never (GRID_LONG_ROUNDS) */
    int column_tc;   /* one column's update on the tensor cores from this K on, 0 never (GRID_COLUMN_TC) */
    int trsm_tiles;  /* 1 or 2: tiles a TRSM block, everywhere (GRID_TRSM_TILES) */
} grid_overrides;
#define GRID_OVERRIDES_NONE            \
    {                                  \
        -1, -1, -1, -1, -1, -1, -1, -1 \
    }
/* 1 when o (may be NULL) forces anything; its words ("mode quads, math fp32, ...") into buf. */
int grid_overrides_describe(const grid_overrides *o, char *buf, size_t len);
/* The stage's programs: from the environment (grid_program.c; never linked into stage 06's library). */
grid_overrides grid_overrides_env(void);

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
const char *grid_math_name(grid_math math); /* "fp32", "tf32x3", "tf32", "f16", "f16x3" */
int grid_math_parse(const char *name);      /* the math, or -1 */

/* The fastest mode for one matrix: the look-ahead up to n = 4032 (its critical path is shorter),
 * the quads above (rounds of grid_round_panels). Measurements: LIMITS.md, "The policy's rules". */
grid_mode grid_default_mode(int n);

/* The same for a batch, by the tiles a step's update touches (batch x nt^2, nt = tiles a side): the
 * look-ahead while they are few (its critical path is shorter), the pairs past 4096 (the update is
 * most of the time: reading the trailing matrices half as often wins), the quads only for matrices
 * past n = 8192 and for one matrix past n = 4096. Measurements: LIMITS.md, "The policy's rules". */
grid_mode grid_default_batched_mode(int n, size_t batch);

/* The updates' arithmetic for n x batch: the tensor cores (GRID_TF32X3) from 4096 tiles a step
 * (batch x nt^2; one matrix from n = 4033), where the updates are most of the time, and GRID_F16X3
 * there where the warpgroup bulk runs; fp32 below, where the chain of panel tasks is, and on a GPU
 * without TF32 tensor cores. Measurements: LIMITS.md, "The policy's rules". */
grid_math grid_default_math(int n, size_t batch);

/* 1 when the GPU can run GRID_TF32X3 (TF32 tensor cores: compute capability 8.0 or newer). */
int grid_tensor_cores(int device);

/* 1 when a call with this math and shape runs its bulk updates on Hopper's warpgroup MMA
 * (grid_wgmma.cuh): a tensor-core math on compute capability 9.0 (a Hopper build; GRID_WGMMA=0 turns it off), n
 * large enough, and the split panel's workspace (4 KiB a row, 8 for one matrix past 8192; at most
 * 512 MiB): grid_split_workspace_bytes, 0 where the mma.sync updates run. */
int grid_warpgroup_update(grid_math math, int n, size_t batch); /* (the environment's overrides: grid_program.c) */
size_t grid_split_workspace_bytes(grid_math math, int n, size_t batch, const grid_overrides *o);

/* The launchers' rules for the current GPU: early starts of the chain's kernels (compute capability
 * 9.0+), the band on the warpgroup MMA, its SM count, the warpgroup bulk's blocks by their rule,
 * rounds of 16 panels past GRID_LONG_ROUNDS_ABOVE columns, one column's update on the tensor cores
 * from GRID_COLUMN_TENSOR_FROM_K, tiles a TRSM block by their rule; each as o forces it (NULL:
 * nothing forced). Safe from several threads. */
grid_rules grid_rules_for(const grid_overrides *o);
/* The same with the environment's overrides (grid_program.c: the stage's programs). */
grid_rules grid_rules_current(void);

/* grid_round_panels: panels in the quads' round that starts at tile column k, by the matrix's size
 * (nt tiles a side). Past n = 8192: 4, or 8 with the tensor-core updates while at least
 * GRID_EIGHT_PANELS_FROM columns remain (K = 8T reads the trailing matrix half as often again, worth
 * it while a round's bulk outlasts the next round's chain); for one matrix on the warpgroup MMA, 16
 * (GRID_MAX_PANELS) while more than GRID_LONG_ROUNDS_ABOVE remain (only past n = 16384: below, the
 * round's chain of 16 panels outlasts its bulk). n = 4033 .. 8192 (and 4096): 2 (4 where
 * the band runs on the warpgroup MMA: one 256-wide block column, one split for band and bulk) while
 * at least GRID_TWO_PANELS_FROM columns remain, then 1 (the look-ahead's short chain where the bulk
 * no longer hides it). Otherwise 4. Measurements: LIMITS.md, "The policy's rules". */
#define GRID_EIGHT_PANELS_FROM 96
#define GRID_LONG_ROUNDS_ABOVE 256
/* grid_column_tensor: one column's update on the tensor cores from this K on (fp32 below); 128 beat 512
 * at n = 8192 .. 32768 in both maths, the batched shapes level (LIMITS.md, "The policy's rules"). */
#define GRID_COLUMN_TENSOR_FROM_K 128
#define GRID_QUADS_FROM_TILES 128
#define GRID_TWO_PANELS_ABOVE_TILES 63
#define GRID_TWO_PANELS_FROM 48

/* All of it for one shape: what a plan keeps and every call of it runs. */
typedef struct {
    grid_mode mode;     /* the schedule */
    grid_math math;     /* the updates' arithmetic */
    size_t split_bytes; /* the warpgroup update's workspace; 0: the mma.sync updates */
    grid_rules rules;   /* the launchers' choices for this GPU */
    grid_math second;   /* precision high (math GRID_TF32): the fp32-accurate math of its second chance
                           (grid_cholesky.c); else the same as math */
} grid_policy;

/* The course's choice for `batch` matrices of order n on the current GPU: grid_default_batched_mode,
 * grid_default_math, the warpgroup update where the split workspace fits, grid_rules_for; o (may be
 * NULL) forces a mode, a math or a rule by hand (to compare them). No GPU to ask (a plan made only to
 * be explained): fp32, no warpgroup MMA, zero rules. It asks the GPU: call it when planning, not per
 * call. */
void grid_policy_choose(int n, size_t batch, const grid_overrides *o, grid_policy *out);
/* The same with the schedule and the arithmetic given (o's mode and math not read). */
void grid_policy_for(grid_mode mode, grid_math math, int n, size_t batch, const grid_overrides *o, grid_policy *out);

#ifdef __cplusplus
}
#endif

#endif
