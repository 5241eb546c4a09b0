/* cholesky_plan.c - the plan and the execute of cholesky_plan.h: every decision at plan time,
 * launches only at execute time. The kernels stay where they are taught (stages 03-06); the
 * decisions are cholesky_policy.c's; this file sizes the workspace, keeps the whole-GPU path's
 * streams and graphs, explains the plan and orders the launches. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cholesky_plan_internal.h"
#include "cholesky_policy.h"
#include "cuda_check.h"
#include "door_status.h"
#include "family.h"
#include "cyclic_f64.h"
#include "dmma_batched_f64.h"
#include "grid_cholesky.h"
#include "grid_f64.h"
#include "layout_convert.h"
#include "tuned.h"

struct cholesky_plan {
    int n;
    int f64;     /* a float64 plan (cholesky_execute_f64): the cyclic or dmma kernel in float64, or grid_f64 */
    size_t elem; /* bytes an element: 4, or 8 */
    int device;  /* the GPU it was made on (-1: an explain-only plan) */
    size_t batch;
    size_t chunk;                  /* the caller's layout */
    batched_config cfg;            /* what runs */
    const batched_kernel_ops *ops; /* its launcher */
    int copy_first;                /* it works in place only: out of place, copy in to out first */
    size_t kchunk;                 /* the layout it runs in */
    int convert;                   /* 1: kchunk != chunk: in -> work (kchunk), factor there, work -> out */
    int grid;                      /* the whole-GPU path: in groups, with its own context */
    size_t group;                  /* grid: matrices a group */
    grid_policy policy;            /* grid: schedule, arithmetic, warpgroup MMA, launch rules */
    grid_context *ctx;             /* grid: streams, events, graphs */
    pthread_mutex_t grid_lock;     /* grid: one execute at a time enqueues on ctx's streams */
    int grid_f64;                  /* float64, n > 128: grid_f64.cu's tile tasks, ordered on the caller's stream */
    /* The workspace, in this order, each part 256-byte aligned: the converted batch, the grid's
     * padded copies, the grid's split panels (warpgroup MMA), the staged batch (unaligned plans). */
    size_t convert_bytes, pad_bytes, split_bytes, stage_bytes;
    int planted; /* cholesky_plan_plant_error: the next calls that fail on purpose */
    char explain[1280];
};

static size_t workspace_bytes(const cholesky_plan *p)
{
    return p->convert_bytes + p->pad_bytes + p->split_bytes + p->stage_bytes;
}

static size_t round256(size_t bytes) { return (bytes + 255) / 256 * 256; }

static const char *layout_words(size_t chunk, size_t batch, char *buf, size_t len)
{
    if (chunk <= 1) snprintf(buf, len, "row-major");
    else if (chunk >= batch) snprintf(buf, len, "interleaved");
    else snprintf(buf, len, "chunked (chunk %zu)", chunk);
    return buf;
}

/* The explanation grows a clause at a time; a clause that does not fit is cut, never written past the end. */
static void append(cholesky_plan *p, const char *fmt, ...)
{
    const size_t at = strlen(p->explain);
    va_list ap;
    va_start(ap, fmt);
    if (at + 1 < sizeof p->explain) vsnprintf(p->explain + at, sizeof p->explain - at, fmt, ap);
    va_end(ap);
}

/* The live plans: every call checks its plan here first, so that NULL, a destroyed plan or a
 * pointer that never was one is refused with a status instead of being read. A few plans at a
 * time (the Python package keeps a bounded cache): a list is enough. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static cholesky_plan **live;
static size_t live_count, live_room;

static int live_add(cholesky_plan *p)
{
    pthread_mutex_lock(&live_lock);
    int ok = 1;
    if (live_count == live_room) {
        const size_t room = live_room ? 2 * live_room : 16;
        cholesky_plan **grown = realloc(live, room * sizeof *grown);
        if (grown) live = grown, live_room = room;
        else ok = 0;
    }
    if (ok) live[live_count++] = p;
    pthread_mutex_unlock(&live_lock);
    return ok;
}

static int live_take(const cholesky_plan *p) /* 1: it was live (and is no longer) */
{
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (size_t k = 0; k < live_count && !found; k++)
        if (live[k] == p) live[k] = live[--live_count], found = 1;
    pthread_mutex_unlock(&live_lock);
    return found;
}

static int is_live(const cholesky_plan *p)
{
    if (!p) return 0;
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (size_t k = 0; k < live_count && !found; k++) found = live[k] == p;
    pthread_mutex_unlock(&live_lock);
    return found;
}

/* The whole-GPU factorizations of one GPU take turns (cholesky_plan.h): two at once, from two
 * plans, gave a wrong factor at n = 4096 on the warpgroup MMA (H100; 03 LIMITS, "seen, not
 * explained"). Each waits on the GPU for the one enqueued before it (an event, per device), so
 * that no host waits and a captured graph carries the same order (external event nodes). */
#define TURN_DEVICES 64
static struct {
    pthread_mutex_t lock;
    cudaEvent_t done; /* recorded after the last whole-GPU execute enqueued on this device */
    int made;
} turn[TURN_DEVICES];
static pthread_once_t turn_once = PTHREAD_ONCE_INIT;
static void turn_init(void)
{
    for (int d = 0; d < TURN_DEVICES; d++) pthread_mutex_init(&turn[d].lock, NULL);
}

static int turn_event(int device) /* under its lock */
{
    if (!turn[device].made) {
        CUDA_TRY(cudaEventCreateWithFlags(&turn[device].done, cudaEventDisableTiming));
        turn[device].made = 1;
    }
    return 0;
}

static int turn_make(int device) /* at plan time, on `device`: 0, or -1 (noted) */
{
    pthread_once(&turn_once, turn_init);
    pthread_mutex_lock(&turn[device].lock);
    const int rc = turn_event(device);
    pthread_mutex_unlock(&turn[device].lock);
    return rc;
}

static void plan_free(cholesky_plan *p)
{
    if (!p) return;
    if (p->grid) pthread_mutex_destroy(&p->grid_lock);
    grid_context_destroy(p->ctx);
    free(p);
}

/* plan_create's work: its failures are the door's (door_fail, or noted by what it calls and heard). */
static cholesky_status make_plan(cholesky_plan *p, int n, size_t batch, const cholesky_options *opt,
                                 const cholesky_internal_options *in);

int cholesky_version(void) { return CHOLESKY_VERSION; }

cholesky_status cholesky_plan_create(cholesky_plan **plan, int n, size_t batch, const cholesky_options *opt, char *err,
                                     size_t len)
{
    return cholesky_plan_create_internal(plan, n, batch, opt, NULL, err, len);
}

/* The GPU the plan is for: the current one. No GPU, or no driver, is said as such (CUDA's own
 * words for it, "insufficient driver", read as "upgrade your driver"). */
static cholesky_status plan_device(int *device)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        (void)cudaGetLastError();
        char older[96] = ""; /* CUDA says "insufficient driver" for none and for one too old alike */
        if (e == cudaErrorInsufficientDriver)
            snprintf(older, sizeof older, ", or a driver older than this library's CUDA %d.%d needs",
                     CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return door_fail(CHOLESKY_STATUS_NO_DEVICE, "no NVIDIA GPU / driver on this machine%s (CUDA says: %s)", older,
                         e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA-capable device is detected");
    }
    const cudaError_t g = cudaGetDevice(device);
    if (g != cudaSuccess) {
        (void)cudaGetLastError();
        return door_fail(CHOLESKY_STATUS_CUDA_ERROR, "cudaGetDevice: %s", cudaGetErrorString(g));
    }
    if (*device < 0 || *device >= TURN_DEVICES)
        return door_fail(CHOLESKY_STATUS_NOT_SUPPORTED, "GPU %d: the library takes GPUs 0 .. %d", *device,
                         TURN_DEVICES - 1);
    return CHOLESKY_SUCCESS;
}

cholesky_status cholesky_plan_create_internal(cholesky_plan **plan, int n, size_t batch, const cholesky_options *opt,
                                              const cholesky_internal_options *in, char *err, size_t len)
{
    door_begin();
    if (!plan) {
        door_fail(CHOLESKY_STATUS_INVALID_VALUE, "cholesky_plan_create: plan is NULL (where should the plan go?)");
        if (err && len) snprintf(err, len, "%s", cholesky_last_error());
        return CHOLESKY_STATUS_INVALID_VALUE;
    }
    *plan = NULL;
    cholesky_plan *p = calloc(1, sizeof *p);
    if (!p) door_fail(CHOLESKY_STATUS_OUT_OF_MEMORY, "out of host memory");
    else {
        p->device = -1;
        door_ear ear;
        door_listen(&ear);
        (void)make_plan(p, n, batch, opt, in); /* (its status is the door's: door_fail, or what was heard) */
        door_heard(&ear);
    }
    cholesky_status status = door_status_now();
    if (status == CHOLESKY_SUCCESS && !live_add(p))
        status = door_fail(CHOLESKY_STATUS_OUT_OF_MEMORY, "out of host memory");
    if (status != CHOLESKY_SUCCESS) {
        plan_free(p);
        if (err && len) snprintf(err, len, "%s", cholesky_last_error());
        return status;
    }
    *plan = p;
    return CHOLESKY_SUCCESS;
}

/* The fields of the caller's options that its header had (opt->size), the rest as defaults. */
static cholesky_status read_options(const cholesky_options *opt, cholesky_options *o)
{
    const cholesky_options defaults = CHOLESKY_OPTIONS_INIT;
    *o = defaults;
    if (!opt) return CHOLESKY_SUCCESS;
    const size_t first = offsetof(cholesky_options, unaligned) + sizeof opt->unaligned; /* version 1.0's */
    if (opt->size < first || opt->size > sizeof *o)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE,
                         "options.size = %zu: start from CHOLESKY_OPTIONS_INIT (this library takes %zu .. %zu)",
                         opt->size, first, sizeof *o);
    memcpy(o, opt, opt->size);
    return CHOLESKY_SUCCESS;
}

/* The batch's bytes, or 0 when they do not fit (no GPU holds 2^60 bytes; the workspace's parts,
 * each at most that and 255, then add up without wrapping). */
static size_t batch_bytes_checked(int n, size_t batch, size_t elem)
{
    const size_t per = (size_t)n * n * elem, most = (size_t)1 << 60;
    return batch > most / per ? 0 : batch * per;
}

/* A float64 plan (cholesky_policy_choose_f64 decides): no conversion (the cyclic kernel reads every
 * layout, the whole-GPU path row-major only), the workspace the tile inverses and the staging. */
static cholesky_status make_plan_f64(cholesky_plan *p, const cholesky_options *o, const batched_config *given,
                                     size_t batch_bytes)
{
    char msg[256], lay[64];
    cholesky_choice c;
    if (cholesky_policy_choose_f64(p->n, p->batch, p->chunk, given, &c, msg, sizeof msg) != 0)
        return door_fail(given ? CHOLESKY_STATUS_INVALID_VALUE : CHOLESKY_STATUS_NOT_SUPPORTED, "%s", msg);
    p->cfg = c.cfg;
    p->kchunk = p->chunk;
    p->grid_f64 = c.cfg.kernel == BATCHED_GRID;
    p->pad_bytes = p->grid_f64 ? round256(grid_f64_workspace_bytes(p->batch)) : 0;
    p->stage_bytes = o->unaligned ? round256(batch_bytes) : 0;
    append(p, "n = %d, %zu %s float64 matrices: %s", p->n, p->batch, layout_words(p->chunk, p->batch, lay, sizeof lay),
           c.why);
    if (o->precision != CHOLESKY_PRECISION_HIGHEST)
        append(p, "; precision %s asked: float64 arithmetic runs",
               o->precision == CHOLESKY_PRECISION_HIGH ? "high" : "medium");
    if (p->stage_bytes) append(p, "; pointers not 16-byte aligned staged through the workspace");
    append(p, "; workspace %zu bytes", workspace_bytes(p));
    if (p->pad_bytes) append(p, " (the diagonal tiles' inverses)");
    return CHOLESKY_SUCCESS;
}

static cholesky_status make_plan(cholesky_plan *p, int n, size_t batch, const cholesky_options *opt,
                                 const cholesky_internal_options *in)
{
    char why[256] = "", msg[256], lay[64], klay[64];
    cholesky_options o;
    if (read_options(opt, &o) != CHOLESKY_SUCCESS) return CHOLESKY_STATUS_INVALID_VALUE;
    const batched_config *given = in ? in->config : NULL;
    if (n < 1 || n > CHOLESKY_MAX_N)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "n = %d: the plan takes n = 1 .. %d", n, CHOLESKY_MAX_N);
    if (batch < 1) return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "an empty batch: nothing to plan");
    if (o.dtype != CHOLESKY_FLOAT32 && o.dtype != CHOLESKY_FLOAT64)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "dtype %d: CHOLESKY_FLOAT32 (0) or CHOLESKY_FLOAT64 (1)",
                         (int)o.dtype);
    p->f64 = o.dtype == CHOLESKY_FLOAT64;
    p->elem = p->f64 ? sizeof(double) : sizeof(float);
    const size_t batch_bytes = batch_bytes_checked(n, batch, p->elem);
    if (!batch_bytes)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "%zu matrices of order %d: more bytes than any GPU holds",
                         batch, n);
    if (o.precision != CHOLESKY_PRECISION_HIGHEST && o.precision != CHOLESKY_PRECISION_HIGH &&
        o.precision != CHOLESKY_PRECISION_MEDIUM)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE,
                         "precision %d: CHOLESKY_PRECISION_HIGHEST (0), CHOLESKY_PRECISION_HIGH (1) or "
                         "CHOLESKY_PRECISION_MEDIUM (2)",
                         (int)o.precision);
    if (o.unaligned != 0 && o.unaligned != 1)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "unaligned = %d: 0 or 1", o.unaligned);
    if (!(in && in->explain_only)) {
        const cholesky_status found = plan_device(&p->device);
        if (found != CHOLESKY_SUCCESS) return found;
    }
    const int precision = o.precision;
    p->n = n;
    p->batch = batch;
    p->chunk = o.chunk > 1 ? (o.chunk > batch ? batch : o.chunk) : 1;
    if (p->f64) return make_plan_f64(p, &o, given, batch_bytes);
    cholesky_choice c; /* every decision: cholesky_policy.c */
    const grid_overrides *forced = in ? in->grid : NULL;
    if (cholesky_policy_choose(n, batch, p->chunk, given, in ? in->kernel_chunk : 0, precision, forced, &c, msg,
                               sizeof msg) != 0)
        return door_fail(given ? CHOLESKY_STATUS_INVALID_VALUE : CHOLESKY_STATUS_NOT_SUPPORTED, "%s", msg);
    p->cfg = c.cfg;
    p->kchunk = c.kchunk;
    snprintf(why, sizeof why, "%s", c.why);
    p->ops = family_ops(p->cfg.kernel);
    p->copy_first = !(p->ops->uses & BATCHED_OUT_OF_PLACE);
    p->convert = p->kchunk != p->chunk;
    /* The converted batch, rounded up so that the padded copies after it start 256-byte aligned
     * (their tasks read float4s). */
    p->convert_bytes = p->convert ? round256(batch_bytes) : 0;
    p->stage_bytes = o.unaligned ? round256(batch_bytes) : 0;
    char name[96];
    tuned_format(&p->cfg, p->kchunk, name, sizeof name);
    /* tuned_choose's why starts with the configuration's name: "rows T=16 x4 full c=1, tuned for ..." */
    if (strncmp(why, name, strlen(name)) == 0)
        append(p, "n = %d, %zu %s matrices: %s", n, batch, layout_words(p->chunk, batch, lay, sizeof lay), why);
    else
        append(p, "n = %d, %zu %s matrices: %s (%s)", n, batch, layout_words(p->chunk, batch, lay, sizeof lay), name,
               why);
    if (p->convert)
        append(p, "; converted to %s and back in the workspace", layout_words(p->kchunk, batch, klay, sizeof klay));
    if (p->cfg.kernel == BATCHED_GRID) {
        p->grid = 1;
        p->group = c.group;
        p->policy = c.grid;
        p->pad_bytes = round256(grid_batched_workspace_bytes(n, p->group));
        p->split_bytes = round256(p->policy.split_bytes);
        /* Its streams and events on this GPU; with no GPU to make them on (a plan made to be
         * explained), execute falls back to the thread's own context (grid_cholesky.h). */
        if (p->device >= 0) {
            if (!(p->ctx = grid_context_create())) return CHOLESKY_STATUS_CUDA_ERROR; /* (noted: heard) */
            if (turn_make(p->device) != 0) return CHOLESKY_STATUS_CUDA_ERROR;
        }
        pthread_mutex_init(&p->grid_lock, NULL);
        append(p, "; whole GPU: %s schedule, %s updates%s%s%s", grid_mode_name(p->policy.mode),
               grid_math_name(p->policy.math), p->split_bytes ? " on warpgroup MMA" : "",
               p->split_bytes && p->policy.rules.wgmma_band ? " (the next round's band too)" : "",
               p->pad_bytes ? ", padded to the tile in the workspace" : ", in place");
        if (p->group < batch) append(p, ", in groups of %zu", p->group);
        if (p->policy.rules.sm_count)
            append(p, ", launch rules for %d SMs%s", p->policy.rules.sm_count,
                   p->policy.rules.chain_overlap ? " with early chain starts" : "");
        char words[256];
        if (grid_overrides_describe(forced, words, sizeof words)) append(p, "; forced by the caller: %s", words);
    }
    if (p->grid && p->policy.math == GRID_F16X3 && p->split_bytes)
        append(p, "; fp32-accurate: the warpgroup bulk as three fp16 products (each row scaled by a power of two "
                  "and split into hi and lo parts, 22 bits as 3xTF32's; fp32 sums)");
    if (precision == CHOLESKY_PRECISION_HIGH || precision == CHOLESKY_PRECISION_MEDIUM) {
        const char *asked = precision == CHOLESKY_PRECISION_HIGH ? "high" : "medium";
        if (p->grid && p->policy.math == GRID_F16)
            append(p, "; precision medium: the warpgroup bulk in fp16 (rows scaled by powers of two, fp32 sums), "
                      "the rest of the updates one TF32 product a term (not fp32-accurate; a pivot <= 0 refactors "
                      "the batch fp32-accurately when in != out)");
        else if (p->grid && p->policy.math == GRID_TF32)
            append(p,
                   "; precision %s: one TF32 product a term in the updates%s (not fp32-accurate; a pivot <= 0 "
                   "refactors the batch fp32-accurately when in != out)",
                   asked, precision == CHOLESKY_PRECISION_MEDIUM ? " (no warpgroup bulk here: high's arithmetic)" : "");
        else append(p, "; precision %s asked: fp32 arithmetic runs at this size (as fast here)", asked);
    }
    if (p->stage_bytes) append(p, "; pointers not 16-byte aligned staged through the workspace");
    append(p, "; workspace %zu bytes", workspace_bytes(p));
    if (p->split_bytes) append(p, " (split panels %zu)", p->split_bytes);
    if (!given) {
        const char *notice;
        tuned_table_load(&notice, NULL);
        if (notice[0]) append(p, "; %s", notice);
    }
    return CHOLESKY_SUCCESS;
}

void cholesky_plan_destroy(cholesky_plan *p)
{
    if (p && live_take(p)) plan_free(p); /* NULL, or destroyed already: nothing */
}

void cholesky_plan_plant_error(cholesky_plan *p, int calls)
{
    if (is_live(p)) p->planted = calls;
}

size_t cholesky_plan_workspace_bytes(const cholesky_plan *p) { return is_live(p) ? workspace_bytes(p) : 0; }

const char *cholesky_plan_explain(const cholesky_plan *p) { return is_live(p) ? p->explain : ""; }

const batched_config *cholesky_plan_config(const cholesky_plan *p, size_t *kernel_chunk)
{
    if (!is_live(p)) return NULL;
    if (kernel_chunk) *kernel_chunk = p->kchunk;
    return &p->cfg;
}

/* The whole-GPU path, row-major from in into out, group by group. */
static int run_grid(cholesky_plan *p, const float *in, float *out, int *info, float *pad, float *split, cudaStream_t s)
{
    const size_t nn = (size_t)p->n * p->n;
    for (size_t first = 0; first < p->batch; first += p->group) {
        const size_t count = p->batch - first < p->group ? p->batch - first : p->group;
        if (potrf_grid_execute(p->ctx, &p->policy, p->n, count, in + first * nn, out + first * nn, pad, split,
                               info + first, s) != 0)
            return -1;
    }
    return 0;
}

/* The configuration was checked when the plan was made: straight to its family's launcher. */
static int run_kernel(cholesky_plan *p, const float *in, float *out, int *info, float *pad, float *split,
                      cudaStream_t s)
{
    if (p->grid) return run_grid(p, in, out, info, pad, split, s);
    if (p->copy_first && in != out) { /* every layout is dense: batch n^2 floats */
        CUDA_TRY(cudaMemcpyAsync(out, in, p->batch * (size_t)p->n * p->n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        in = out;
    }
    return p->ops->launch(&p->cfg, p->n, p->batch, p->kchunk, in, out, info, s);
}

/* The plan's layout from in into out (both 16-byte aligned). */
static int run_aligned(cholesky_plan *p, const float *d_in, float *d_out, int *d_info, char *work, cudaStream_t s)
{
    float *conv = (float *)work;
    float *pad = p->pad_bytes ? (float *)(work + p->convert_bytes) : NULL;
    float *split = p->split_bytes ? (float *)(work + p->convert_bytes + p->pad_bytes) : NULL;
    if (!p->convert) return run_kernel(p, d_in, d_out, d_info, pad, split, s);
    /* The kernel's layout in the workspace: one pass in, the factor in place there, one pass out. */
    if (p->chunk == 1) TRY(rowmajor_to_chunked_tiled(p->n, p->batch, p->kchunk, d_in, conv, s));
    else TRY(chunked_to_rowmajor_tiled(p->n, p->batch, p->chunk, d_in, conv, s));
    TRY(run_kernel(p, conv, conv, d_info, pad, split, s));
    if (p->chunk == 1) TRY(chunked_to_rowmajor_tiled(p->n, p->batch, p->kchunk, conv, d_out, s));
    else TRY(rowmajor_to_chunked_tiled(p->n, p->batch, p->chunk, conv, d_out, s));
    return 0;
}

/* A float64 plan: its tile tasks (the inverses at the workspace's start), its tensor-core kernel or
 * its cyclic kernel. */
static int run_f64(cholesky_plan *p, const double *d_in, double *d_out, int *d_info, char *work, cudaStream_t s)
{
    if (p->grid_f64) return potrf_grid_f64(p->n, p->batch, d_in, d_out, d_info, (double *)work, s);
    if (p->cfg.kernel == BATCHED_DMMA) return potrf_batched_dmma_f64(p->n, p->batch, d_in, d_out, d_info, s);
    return potrf_batched_cyclic_f64(p->cfg.threads, p->cfg.per_block, p->n, p->batch, p->kchunk, d_in, d_out, d_info,
                                    s);
}

static int run_any(cholesky_plan *p, const void *d_in, void *d_out, int *d_info, char *work, cudaStream_t s)
{
    return p->f64 ? run_f64(p, d_in, d_out, d_info, work, s) : run_aligned(p, d_in, d_out, d_info, work, s);
}

/* A pointer only element-aligned: the batch is copied into the workspace (cudaMemcpyAsync takes any
 * alignment), factored there in place and copied out. */
static int run(cholesky_plan *p, const void *d_in, void *d_out, int *d_info, char *work, int staged, cudaStream_t s)
{
    if (!staged) return run_any(p, d_in, d_out, d_info, work, s);
    char *stage = work + workspace_bytes(p) - p->stage_bytes;
    const size_t bytes = p->batch * (size_t)p->n * p->n * p->elem;
    CUDA_TRY(cudaMemcpyAsync(stage, d_in, bytes, cudaMemcpyDeviceToDevice, s));
    TRY(run_any(p, stage, stage, d_info, work, s));
    CUDA_TRY(cudaMemcpyAsync(d_out, stage, bytes, cudaMemcpyDeviceToDevice, s));
    return 0;
}

/* The call, in its turn on the GPU where it is a whole-GPU one: 0, or -1 (the error noted). */
static int execute_turn(cholesky_plan *p, const void *d_in, void *d_out, int *d_info, char *work, int staged,
                        cudaStream_t s)
{
    if (p->planted > 0) { /* a real CUDA error (a NULL event), for the tests of what follows one */
        p->planted--;
        CUDA_TRY(cudaStreamWaitEvent(s, (cudaEvent_t)0, 0));
    }
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (p->grid) { /* after the whole-GPU execute enqueued before this one, on any plan of this GPU */
        CUDA_TRY(cudaStreamIsCapturing(s, &capture));
        const int inside = capture == cudaStreamCaptureStatusActive;
        CUDA_TRY(cudaStreamWaitEvent(s, turn[p->device].done, inside ? cudaEventWaitExternal : 0));
    }
    TRY(run(p, d_in, d_out, d_info, work, staged, s));
    if (p->grid)
        CUDA_TRY(cudaEventRecordWithFlags(turn[p->device].done, s,
                                          capture == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : 0));
    return 0;
}

/* [a, a + na) and [b, b + nb) share a byte (addresses far below 2^63: no wrap). */
static int ranges_meet(uintptr_t a, size_t na, uintptr_t b, size_t nb) { return na && nb && a < b + nb && b < a + na; }

/* A partial overlap would factor half-written data silently: the four arrays must be apart, except
 * d_out == d_in exactly (in place). */
static int buffers_overlap(const cholesky_plan *p, const void *d_in, const void *d_out, const int *d_info,
                           const void *d_work)
{
    const size_t bytes = p->batch * (size_t)p->n * p->n * p->elem, infos = p->batch * sizeof(int),
                 work = workspace_bytes(p);
    const uintptr_t in = (uintptr_t)d_in, out = (uintptr_t)d_out, info = (uintptr_t)d_info, w = (uintptr_t)d_work;
    return (in != out && ranges_meet(in, bytes, out, bytes)) || ranges_meet(in, bytes, info, infos) ||
           ranges_meet(out, bytes, info, infos) || ranges_meet(in, bytes, w, work) ||
           ranges_meet(out, bytes, w, work) || ranges_meet(info, infos, w, work);
}

/* cholesky_execute and cholesky_execute_f64: `f64` says which the caller called. */
static cholesky_status execute(cholesky_plan *p, const void *d_in, void *d_out, int *d_info, void *d_work,
                               cudaStream_t s, int f64)
{
    door_begin();
    if (!is_live(p)) return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "cholesky_execute: no plan (NULL or destroyed)");
    if (p->f64 != f64)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE,
                         p->f64 ? "cholesky_execute: the plan is float64 (cholesky_execute_f64 takes it)"
                                : "cholesky_execute_f64: the plan is float32 (cholesky_execute takes it; "
                                  "cholesky_options.dtype = CHOLESKY_FLOAT64 makes a float64 plan)");
    if (!d_in || !d_out || !d_info)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "cholesky_execute: a device pointer is NULL");
    if (workspace_bytes(p) && !d_work)
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE,
                         "cholesky_execute: the plan needs a workspace of %zu bytes (cholesky_plan_workspace_bytes)",
                         workspace_bytes(p));
    const int staged = ((uintptr_t)d_in | (uintptr_t)d_out) % CHOLESKY_ALIGNMENT != 0;
    if (p->f64 && ((uintptr_t)d_in | (uintptr_t)d_out) % sizeof(double))
        return door_fail(CHOLESKY_STATUS_MISALIGNED, "cholesky_execute_f64: input or output is not 8-byte aligned "
                                                     "(one double)");
    if (staged && !p->stage_bytes)
        return door_fail(CHOLESKY_STATUS_MISALIGNED,
                         "cholesky_execute: input or output is not %d-byte aligned; make the plan with "
                         "cholesky_options.unaligned = 1 to take it",
                         CHOLESKY_ALIGNMENT);
    if ((uintptr_t)d_info % sizeof(int) || (uintptr_t)d_work % 256)
        return door_fail(CHOLESKY_STATUS_MISALIGNED,
                         "cholesky_execute: info must be int-aligned and the workspace 256-byte aligned");
    if (buffers_overlap(p, d_in, d_out, d_info, d_work))
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE,
                         "cholesky_execute: input, output, info and workspace overlap (only d_out == d_in, in place, "
                         "may share memory)");
    if (p->device < 0) /* (after the argument checks, which the tests of the arguments reach without a GPU) */
        return door_fail(CHOLESKY_STATUS_INVALID_VALUE, "cholesky_execute: the plan was made to be explained only");
    if (p->grid) {
        pthread_mutex_lock(&p->grid_lock);
        if (grid_context_in_foreign_capture(p->ctx, s)) {
            pthread_mutex_unlock(&p->grid_lock);
            return door_fail(CHOLESKY_STATUS_BUSY,
                             "cholesky_execute: the plan's streams are in an open capture of another stream "
                             "(one plan per thread, or end that capture first)");
        }
    }
    if (p->grid) pthread_mutex_lock(&turn[p->device].lock);
    door_ear ear;
    door_listen(&ear);
    const int rc = execute_turn(p, d_in, d_out, d_info, (char *)d_work, staged, s);
    if (rc != 0 && p->grid) grid_context_recover(p->ctx, s);
    if (p->grid) pthread_mutex_unlock(&turn[p->device].lock);
    if (p->grid) pthread_mutex_unlock(&p->grid_lock);
    cholesky_status status = door_heard(&ear);
    if (status == CHOLESKY_SUCCESS && rc != 0)
        status = door_fail(CHOLESKY_STATUS_INTERNAL_ERROR, "cholesky_execute: a launcher refused the plan's call");
    return status;
}

cholesky_status cholesky_execute(cholesky_plan *p, const float *d_in, float *d_out, int *d_info, void *d_work,
                                 cudaStream_t s)
{
    return execute(p, d_in, d_out, d_info, d_work, s, 0);
}

cholesky_status cholesky_execute_f64(cholesky_plan *p, const double *d_in, double *d_out, int *d_info, void *d_work,
                                     cudaStream_t s)
{
    return execute(p, d_in, d_out, d_info, d_work, s, 1);
}
