/* grid_policy.c - see grid_policy.h: every rule of the whole-GPU Cholesky, asked once per plan. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_check.h"
#include "grid_policy.h"

static const char *const mode_names[GRID_MODE_COUNT] = {"stream", "graph", "lookahead", "pairs", "quads"};

const char *grid_mode_name(grid_mode mode) { return mode >= 0 && mode < GRID_MODE_COUNT ? mode_names[mode] : "?"; }

int grid_mode_parse(const char *name)
{
    for (int m = 0; m < GRID_MODE_COUNT; m++)
        if (!strcmp(name, mode_names[m])) return m;
    return -1;
}

static const char *const math_names[GRID_MATH_COUNT] = {"fp32", "tf32x3", "tf32", "f16", "f16x3"};

const char *grid_math_name(grid_math math) { return math >= 0 && math < GRID_MATH_COUNT ? math_names[math] : "?"; }

int grid_math_parse(const char *name)
{
    for (int m = 0; m < GRID_MATH_COUNT; m++)
        if (!strcmp(name, math_names[m])) return m;
    return -1;
}

static size_t tiles_a_side(int n) { return ((size_t)n + GRID_TILE - 1) / GRID_TILE; }

grid_mode grid_default_mode(int n) { return grid_default_batched_mode(n, 1); }

grid_mode grid_default_batched_mode(int n, size_t batch)
{
    const size_t nt = tiles_a_side(n);
    if (nt > GRID_QUADS_FROM_TILES || (batch == 1 && nt > GRID_TWO_PANELS_ABOVE_TILES)) return GRID_QUADS;
    return batch * nt * nt > 4096 ? GRID_PAIRS : GRID_LOOKAHEAD;
}

/* The questions the plan asks the GPU. A failure is noted (cuda_check.h) and answered with the
 * plainest choice; the door then refuses the plan with the noted error. */
static int ask_major(int device, int *major)
{
    CUDA_TRY(cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, device));
    return 0;
}

static int ask_device(int *device)
{
    CUDA_TRY(cudaGetDevice(device));
    return 0;
}

static int ask_sm_count(int device, int *sms)
{
    CUDA_TRY(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device));
    return 0;
}

int grid_tensor_cores(int device)
{
    static int cache[64]; /* by device: 0 not asked, 1 yes, 2 no (asked once: no query on later calls) */
    if (device >= 0 && device < 64 && cache[device]) return cache[device] == 1;
    int major;
    if (ask_major(device, &major) != 0) return 0;
    if (device >= 0 && device < 64) cache[device] = major >= 8 ? 1 : 2;
    return major >= 8;
}

grid_math grid_default_math(int n, size_t batch)
{
    int device;
    if (ask_device(&device) != 0 || !grid_tensor_cores(device)) return GRID_FP32;
    const size_t nt = tiles_a_side(n);
    if (batch * nt * nt < 4096) return GRID_FP32;
    /* Where the warpgroup bulk runs, its three products in fp16 (GRID_F16X3): twice the rate and half
     * the bytes of three TF32 ones (LIMITS.md, "The fp32-accurate bulk in three fp16 products"). */
    return grid_split_workspace_bytes(GRID_TF32X3, n, batch, NULL) ? GRID_F16X3 : GRID_TF32X3;
}

/* Where the warpgroup update takes over (below it the blocks of K = 128 mostly fill and drain), and
 * the most memory its workspace takes (256 MiB for one 32768 x 32768, 8 KiB a row); beyond the cap
 * (a batch of large ones), the mma.sync updates: no new memory. Measurements: LIMITS.md, "The
 * policy's rules". */
#define GRID_WGMMA_FROM_N 2048
#define GRID_SPLIT_MAX_BYTES ((size_t)512 << 20)

size_t grid_split_workspace_bytes(grid_math math, int n, size_t batch, const grid_overrides *o)
{
    if (!grid_math_tensor(math) || n < GRID_WGMMA_FROM_N || n > GRID_MAX_N || (o && o->wgmma == 0) ||
        !grid_wgmma_hardware())
        return 0;
    const size_t N = tiles_a_side(n) * GRID_TILE;
    const size_t b = batch < GRID_MAX_BATCH ? batch : GRID_MAX_BATCH;
    const grid_rules rules = grid_rules_for(o);
    const size_t need = grid_split_bytes((int)N, b, grid_split_panels((int)N, b, &rules));
    return need <= GRID_SPLIT_MAX_BYTES ? need : 0;
}

/* The GPU's part of the rules, asked once per device (under a lock: plans may be made by several
 * threads at once). */
static grid_rules gpu_rules(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static grid_rules cache[64]; /* by device (sm_count 0: not yet) */
    int device;
    grid_rules r = {0};
    if (ask_device(&device) != 0) return r;
    pthread_mutex_lock(&lock);
    if (device >= 0 && device < 64) r = cache[device];
    pthread_mutex_unlock(&lock);
    if (r.sm_count) return r;
    int major, sms;
    if (ask_major(device, &major) != 0 || ask_sm_count(device, &sms) != 0) return r;
    /* A chain kernel launched so that it may start before the kernel ahead of it on the stream has
     * finished (chain_wait_and_release in grid_tasks.cu), where the GPU can. */
    r.chain_overlap = major >= 9;
    r.sm_count = sms;
    pthread_mutex_lock(&lock);
    if (device >= 0 && device < 64) cache[device] = r;
    pthread_mutex_unlock(&lock);
    return r;
}

grid_rules grid_rules_for(const grid_overrides *o)
{
    const grid_overrides none = GRID_OVERRIDES_NONE;
    if (!o) o = &none;
    grid_rules r = gpu_rules();
    /* The next round's band on the warpgroup MMA where the bulk runs there: a whole number of
     * 256-wide block columns (the split it makes then serves the triangle below it too); forced off:
     * the mma.sync band (to compare). */
    r.wgmma_band = o->wgmma_band != 0;
    /* The warpgroup bulk's blocks by grid_wgmma_narrow's rule; forced: 128 x 256 (0) / 128 x 128 (1)
     * everywhere (to compare). */
    r.wgmma_narrow = o->wg_narrow == 0 ? 1 : o->wg_narrow == 1 ? 2 : 0;
    /* Rounds of GRID_MAX_PANELS while more than GRID_LONG_ROUNDS_ABOVE tile columns remain; forced:
     * while more than that many remain, 0 never (to compare). */
    r.long_rounds = o->long_rounds >= 0 ? o->long_rounds : GRID_LONG_ROUNDS_ABOVE;
    /* One column's update on the tensor cores from K = GRID_COLUMN_TENSOR_FROM_K on; forced: from K
     * on, 0 never (to compare). */
    r.column_tensor = o->column_tc >= 0 ? o->column_tc : GRID_COLUMN_TENSOR_FROM_K;
    /* Tiles a TRSM block by grid_trsm_tiles's rule; forced: 1 or 2 everywhere (to compare). */
    r.trsm_tiles = o->trsm_tiles == 1 || o->trsm_tiles == 2 ? o->trsm_tiles : 0;
    return r;
}

/* One more clause of a description: ", " between clauses, never past the buffer. */
static void say(char *buf, size_t len, const char *fmt, ...)
{
    const size_t at = strlen(buf);
    if (at + 3 >= len) return;
    if (at) strcpy(buf + at, ", ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + strlen(buf), len - strlen(buf), fmt, ap);
    va_end(ap);
}

int grid_overrides_describe(const grid_overrides *o, char *buf, size_t len)
{
    if (!len) return 0;
    buf[0] = '\0';
    if (!o) return 0;
    if (o->mode >= 0) say(buf, len, "mode %s", grid_mode_name((grid_mode)o->mode));
    if (o->math >= 0) say(buf, len, "math %s", grid_math_name((grid_math)o->math));
    if (o->wgmma == 0) say(buf, len, "no warpgroup MMA");
    if (o->wgmma_band == 0) say(buf, len, "the band on mma.sync");
    if (o->wg_narrow == 0 || o->wg_narrow == 1) say(buf, len, "warpgroup blocks 128 x %d", o->wg_narrow ? 128 : 256);
    if (o->long_rounds >= 0) say(buf, len, "long rounds past %d columns", o->long_rounds);
    if (o->column_tc >= 0) say(buf, len, "a column on the tensor cores from K = %d", o->column_tc);
    if (o->trsm_tiles == 1 || o->trsm_tiles == 2) say(buf, len, "%d tiles a TRSM block", o->trsm_tiles);
    return buf[0] != '\0';
}

/* The warpgroup bulk in blocks of 128 x 128, two an SM, for one matrix of n = 4097 .. 16384 with the
 * fp32-accurate math; 128 x 256, one an SM, elsewhere. Measurements: LIMITS.md, "The policy's rules". */
int grid_wgmma_narrow(const grid_plan *p)
{
    if (p->rules.wgmma_narrow) return p->rules.wgmma_narrow == 2; /* GRID_WG_NARROW */
    return p->math == GRID_TF32X3 && p->batch == 1 && p->ld > 4096 && p->ld <= 16384;
}

/* Room for rounds of GRID_MAX_PANELS only where grid_round_panels can give one: one matrix past
 * n = 8192 with more tile columns than the rules' long_rounds, its band on the warpgroup MMA; 8 (a
 * batch, a smaller matrix) otherwise. */
int grid_split_panels(int N, size_t batch, const grid_rules *r)
{
    const int nt = N / GRID_TILE;
    const int long_rounds =
        batch == 1 && nt > GRID_QUADS_FROM_TILES && r->wgmma_band && r->long_rounds && nt > r->long_rounds;
    return long_rounds ? GRID_MAX_PANELS : 8;
}

int grid_round_panels(const grid_plan *p, int k)
{
    const int left = p->nt - k; /* tile columns from k on */
    if (p->nt > GRID_QUADS_FROM_TILES) {
        if (!grid_math_tensor(p->math)) return 4;
        /* the long rounds: on the warpgroup MMA, band included, with a split that has room */
        const int long_ok = p->split && grid_split_panels((int)p->ld, (size_t)p->batch, &p->rules) == GRID_MAX_PANELS;
        if (long_ok && left > p->rules.long_rounds) return GRID_MAX_PANELS;
        return left >= GRID_EIGHT_PANELS_FROM ? 8 : 4;
    }
    if (p->nt > GRID_TWO_PANELS_ABOVE_TILES) {
        const int band_wgmma = grid_math_tensor(p->math) && p->split; /* a split: the warpgroup MMA */
        return left >= GRID_TWO_PANELS_FROM ? (band_wgmma ? 4 : 2) : 1;
    }
    return 4;
}

/* The look-ahead's tensor-core bulk (K = T) in blocks of 64 x 64 while the blocks of 128 would be one
 * to four waves (two blocks per SM): its last wave is then a short one, where the bulk is still on the
 * critical path. Measurements: LIMITS.md, "The policy's rules". */
int grid_bulk_blocks_of_64(const grid_plan *p, size_t triangle128)
{
    const size_t wave = 2 * (size_t)p->rules.sm_count;
    return grid_math_tensor(p->math) && triangle128 >= wave && triangle128 < 4 * wave;
}

/* Quarter tiles where the chain is the whole time: n = 1024 .. 4096, while the column's tiles (of
 * every matrix) are fewer than half the SMs; past 4096 the bulk runs beside the column and four times
 * the blocks take SMs from it. Measurements: LIMITS.md, "The policy's rules". */
int grid_quarter_column(const grid_plan *p, int c)
{
    const size_t N = p->ld;
    return N >= 1024 && N <= 4096 && 2 * (size_t)(p->nt - c) * p->batch < (size_t)p->rules.sm_count;
}

/* The chain's column updates by K >= rules.column_tensor columns (two panels or more before the column
 * in its round; the launcher compiles it from K = 128) on the tensor cores, in the plan's math: in fp32
 * they made a round's chain longer than its bulk. Measurements: LIMITS.md, "The policy's rules". */
int grid_column_tensor(const grid_plan *p, int K)
{
    return grid_math_tensor(p->math) && p->rules.column_tensor && K >= p->rules.column_tensor;
}

/* Tiles a TRSM block (a thread holds its row of each; the factor is the same): 2 in every step of a
 * factorization whose first step has at least one tile an SM (every matrix's together), where the
 * TRSM is bound by its loads of L_kk from shared memory and two rows share each; 1 otherwise, where a
 * block's chain of columns is the time. Per factorization, not per step: 64 x 256 with two tiles in
 * its first step only was slower than with either everywhere. Measurements: LIMITS.md, "The policy's
 * rules". */
int grid_trsm_tiles(const grid_plan *p)
{
    if (p->rules.trsm_tiles) return p->rules.trsm_tiles;
    const size_t first_step = (size_t)(p->nt - 1) * (size_t)p->batch;
    return p->rules.sm_count && first_step >= (size_t)p->rules.sm_count ? 2 : 1;
}

void grid_policy_for(grid_mode mode, grid_math math, int n, size_t batch, const grid_overrides *o, grid_policy *out)
{
    memset(out, 0, sizeof *out);
    out->mode = mode;
    out->math = math;
    out->split_bytes = grid_split_workspace_bytes(math, n, batch, o);
    out->rules = grid_rules_for(o);
    out->second = grid_math_reduced(math) ? grid_default_math(n, batch) : math;
}

void grid_policy_choose(int n, size_t batch, const grid_overrides *o, grid_policy *out)
{
    int gpus = 0; /* no GPU to ask (a plan made to be explained): fp32, nothing else */
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1) {
        (void)cudaGetLastError();
        memset(out, 0, sizeof *out);
        out->mode = grid_default_batched_mode(n, batch);
        out->math = GRID_FP32;
        return;
    }
    /* A schedule or an arithmetic by hand, to compare them on a batch. */
    const int mode = o && o->mode >= 0 && o->mode < GRID_MODE_COUNT ? o->mode : -1;
    const int math = o && o->math >= 0 && o->math < GRID_MATH_COUNT ? o->math : -1;
    grid_policy_for(mode >= 0 ? (grid_mode)mode : grid_default_batched_mode(n, batch),
                    math >= 0 ? (grid_math)math : grid_default_math(n, batch), n, batch, o, out);
    if (math < 0 && out->math == GRID_F16X3 && !out->split_bytes) /* no warpgroup bulk (o->wgmma 0): its name */
        out->math = out->second = GRID_TF32X3;
}
