/* grid_program.c - the whole-GPU Cholesky as the stage's programs call it (cholesky_one, bench_grid,
 * test_grid, sanitize_tiled, and stage 06's drivers): the calls that name a mode and a math and leave
 * the rest to the policy, and the switches a person sets in the environment to compare by hand
 * (GRID_MODE, GRID_MATH, GRID_WGMMA, GRID_WGMMA_BAND, GRID_WG_NARROW, GRID_LONG_ROUNDS,
 * GRID_COLUMN_TC, GRID_TRSM_TILES), read here and passed on as grid_overrides. Only programs link
 * this file: stage 06's library reads no environment (its plans take the same overrides as options). */
#include <stdlib.h>
#include <string.h>
#include "grid_cholesky.h"

/* -1 when unset or empty; else what parse makes of it (a bad value: -1, the rule's). */
static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : -1;
}

grid_overrides grid_overrides_env(void)
{
    grid_overrides o = GRID_OVERRIDES_NONE;
    const char *mode = getenv("GRID_MODE"), *math = getenv("GRID_MATH");
    if (mode && *mode) o.mode = grid_mode_parse(mode); /* stream|graph|lookahead|pairs|quads */
    if (math && *math) o.math = grid_math_parse(math); /* fp32|tf32x3|tf32|f16|f16x3 */
    const char *wgmma = getenv("GRID_WGMMA"), *band = getenv("GRID_WGMMA_BAND"), *narrow = getenv("GRID_WG_NARROW");
    if (wgmma && !strcmp(wgmma, "0")) o.wgmma = 0;    /* the mma.sync updates */
    if (band && !strcmp(band, "0")) o.wgmma_band = 0; /* the next round's band on mma.sync */
    if (narrow && (!strcmp(narrow, "0") || !strcmp(narrow, "1"))) o.wg_narrow = atoi(narrow);
    o.long_rounds = env_int("GRID_LONG_ROUNDS");
    o.column_tc = env_int("GRID_COLUMN_TC");
    o.trsm_tiles = env_int("GRID_TRSM_TILES");
    if (o.trsm_tiles != 1 && o.trsm_tiles != 2) o.trsm_tiles = -1;
    return o;
}

grid_rules grid_rules_current(void)
{
    const grid_overrides o = grid_overrides_env();
    return grid_rules_for(&o);
}

int grid_wgmma_available(void)
{
    const grid_overrides o = grid_overrides_env();
    return o.wgmma != 0 && grid_wgmma_hardware();
}

int grid_warpgroup_update(grid_math math, int n, size_t batch)
{
    const grid_overrides o = grid_overrides_env();
    return grid_split_workspace_bytes(math, n, batch, &o) > 0;
}

int potrf_grid(grid_mode mode, int n, float *d_A, float *d_work, int *d_info)
{
    return potrf_grid_batched(mode, n, 1, d_A, d_work, d_info);
}

int potrf_grid_batched(grid_mode mode, int n, size_t batch, float *d_A, float *d_work, int *d_info)
{
    return potrf_grid_math(mode, GRID_FP32, n, batch, d_A, d_work, d_info);
}

int potrf_grid_math(grid_mode mode, grid_math math, int n, size_t batch, float *d_A, float *d_work, int *d_info)
{
    return potrf_grid_run(NULL, mode, math, n, batch, d_A, d_A, d_work, d_info, cudaStreamLegacy);
}

/* The policy of a call that names its mode and math (checked by potrf_grid_execute), with the
 * environment's rules. */
int potrf_grid_run(grid_context *ctx, grid_mode mode, grid_math math, int n, size_t batch, const float *d_in,
                   float *d_out, float *d_work, int *d_info, cudaStream_t stream)
{
    grid_policy policy = {mode, math, 0, {0, 0, 0, 0, 0, 0, 0}, math};
    const grid_overrides o = grid_overrides_env();
    if (n >= 1 && n <= GRID_MAX_N && batch >= 1 && mode >= 0 && mode < GRID_MODE_COUNT && math >= 0 &&
        math < GRID_MATH_COUNT)
        grid_policy_for(mode, math, n, batch, &o, &policy);
    return potrf_grid_execute(ctx, &policy, n, batch, d_in, d_out, d_work, NULL, d_info, stream);
}
