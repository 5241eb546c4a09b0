/* grid_cholesky.c - the frame around the whole-GPU Cholesky of one matrix: argument checks,
 * info reset, the padded copy when n is not a multiple of the tile, the launch mode (streams or
 * a CUDA Graph, captured once and replayed). The steps are in grid_schedule.c, the tile tasks
 * in grid_tasks.cu, the choices they follow in grid_policy.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_check.h"
#include "grid_cholesky.h"
#include "grid_schedule.h"

static size_t padded_order(int n) { return ((size_t)n + GRID_TILE - 1) / GRID_TILE * GRID_TILE; }

size_t grid_workspace_bytes(int n) { return grid_batched_workspace_bytes(n, 1); }

size_t grid_batched_workspace_bytes(int n, size_t batch)
{
    if (n < 1 || n > GRID_MAX_N || n % GRID_TILE == 0) return 0;
    size_t N = padded_order(n);
    return batch * N * N * sizeof(float);
}

/* Everything one factorization of a batch launches, in stream order on s (and side, for the
 * look-ahead): the matrices in groups of at most GRID_MAX_BATCH (a launch's grid in y). From d_in
 * into d_out: the padded copy reads one and writes the other; without it the factor is made in
 * d_out, a copy of d_in first where they differ. 0, or -1 at the first failed launch (noted). */
static int enqueue_all(const grid_policy *pol, int n, size_t batch, const float *d_in, float *d_out, float *d_work,
                       int *d_info, grid_split *split, cudaStream_t s, cudaStream_t side, cudaEvent_t events[2])
{
    if (split) grid_split_begin(split); /* its first user in this enqueue waits for nothing */
    const size_t N = padded_order(n), nn = (size_t)n * n;
    CUDA_TRY(cudaMemsetAsync(d_info, 0, batch * sizeof(int), s));
    if (!d_work && d_in != d_out)
        CUDA_TRY(cudaMemcpyAsync(d_out, d_in, batch * nn * sizeof(float), cudaMemcpyDeviceToDevice, s));
    for (size_t first = 0; first < batch; first += GRID_MAX_BATCH) {
        const int count = (int)(batch - first < GRID_MAX_BATCH ? batch - first : GRID_MAX_BATCH);
        float *A = d_out + first * nn;
        grid_plan p = {d_work ? d_work + first * N * N : A,
                       N,
                       (int)(N / GRID_TILE),
                       d_info + first,
                       count,
                       N * N,
                       pol->math,
                       split,
                       pol->rules};
        if (split) grid_split_forget(split); /* other matrices: what it holds is stale */
        if (d_work) TRY(launch_copy_in(d_in + first * nn, n, p.A, p.ld, (int)N, count, s));
        if (pol->mode == GRID_LOOKAHEAD) TRY(enqueue_lookahead(&p, s, side, events));
        else if (pol->mode == GRID_PAIRS) TRY(enqueue_lookahead_pairs(&p, s, side, events));
        else if (pol->mode == GRID_QUADS) TRY(enqueue_lookahead_quads(&p, s, side, events));
        else TRY(enqueue_right_looking(&p, s));
        if (d_work) TRY(launch_copy_out(p.A, p.ld, (int)N, A, n, count, s));
        else TRY(launch_zero_upper(A, n, count, s));
    }
    return 0;
}

/* A context (grid_context_create, or the calling thread's own): its streams, the events that fork
 * them from the caller's stream and join them back, and the graphs of its last few calls. A call
 * whose pointers match a kept graph replays it; else the launches are captured again and the least
 * recently used graph is updated in place (cudaGraphExecUpdate: no new instantiation), so that new
 * pointers on each call (a training loop's new tensors) cost a capture, not an instantiation, and
 * pointers that come back cost nothing. 16: a framework's caching allocator hands a loop's tensors
 * back from a few addresses in turn (8 inputs in turn and their outputs: 8 pointer sets), and a
 * capture and update cost 4-6 % of a call at 8 x 2048^2 .. 1 x 16384^2 (H100: new tensors 1.04-1.06x
 * the same tensor's time with 4 graphs kept, 1.00-1.01x with 16). */
#define GRID_GRAPHS 16
typedef struct {
    cudaGraphExec_t exec; /* NULL: empty */
    unsigned long long used;
    grid_policy policy;
    int n;
    size_t batch;
    const float *in;
    float *out, *work;
    int *info;
    grid_split *planned; /* what it was made with */
    float *planned_panel;
} grid_graph;

struct grid_context {
    int device; /* the streams' GPU + 1 (0: none yet) */
    cudaStream_t s, side;
    cudaEvent_t events[2], fork, join;
    grid_graph graphs[GRID_GRAPHS];
    unsigned long long calls;
    int capturing;      /* 1 between our own BeginCapture and EndCapture (grid_context_recover) */
    grid_split split;   /* the warpgroup update's workspace (panel NULL until a call needs it) */
    size_t split_bytes; /* its size */
    int panel_given;    /* 1: split.panel is the caller's (potrf_grid_execute), never freed here */
};

/* Its streams and events (0), or -1 on a CUDA error (noted; what it made is for context_close). */
static int context_make(grid_context *c, int device)
{
    memset(c, 0, sizeof *c);
    /* The critical path (POTRF, TRSM, the next column) at the GPU's highest priority, the bulk
     * of the update at its lowest: when a block of the bulk ends, a waiting block of the chain
     * gets the place first. A graph keeps them (captured per kernel, used with
     * cudaGraphInstantiateFlagUseNodePriority). H100, same run: n = 8192 pairs tf32x3 7.00 ->
     * 6.34 ms, 16384 quads tf32x3 33.8 -> 30.7 ms; no change up to n = 2048 (no bulk to pass). */
    int least, greatest;
    CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_TRY(cudaStreamCreateWithPriority(&c->s, cudaStreamNonBlocking, greatest));
    CUDA_TRY(cudaStreamCreateWithPriority(&c->side, cudaStreamNonBlocking, least));
    for (int k = 0; k < 2; k++) CUDA_TRY(cudaEventCreateWithFlags(&c->events[k], cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&c->fork, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&c->join, cudaEventDisableTiming));
    TRY(grid_split_create(&c->split, 0)); /* its events; the panel when a call needs it */
    (void)grid_tensor_cores(device);
    c->device = device + 1;
    return 0;
}

/* What the context holds, given back (what context_make made, all of it or up to an error).
 * Errors are not fatal here: a library's plans may be destroyed while its process ends and the
 * CUDA runtime is already unloading (Python frees its objects then). */
static void context_close(grid_context *c)
{
    for (int g = 0; g < GRID_GRAPHS; g++)
        if (c->graphs[g].exec) (void)cudaGraphExecDestroy(c->graphs[g].exec);
    if (c->s) (void)cudaStreamDestroy(c->s);
    if (c->side) (void)cudaStreamDestroy(c->side);
    for (int k = 0; k < 2; k++)
        if (c->events[k]) (void)cudaEventDestroy(c->events[k]);
    if (c->fork) (void)cudaEventDestroy(c->fork);
    if (c->join) (void)cudaEventDestroy(c->join);
    if (c->panel_given) c->split.panel = NULL; /* the caller's */
    grid_split_destroy(&c->split);
    (void)cudaGetLastError(); /* what those left, so that the next call does not report it */
    memset(c, 0, sizeof *c);
}

static int context_open(grid_context *c, int device)
{
    if (context_make(c, device) == 0) return 0;
    context_close(c);
    return -1;
}

grid_context *grid_context_create(void)
{
    grid_context *c = (grid_context *)malloc(sizeof *c);
    if (!c) {
        (void)cuda_check_note("CUDA", "cudaErrorMemoryAllocation", "out of host memory", "malloc", __FILE__, __LINE__);
        return NULL;
    }
    int device;
    const cudaError_t e = course_fault_due() ? COURSE_FAULT_ERROR : cudaGetDevice(&device);
    if (e != cudaSuccess)
        (void)cuda_check_note("CUDA", cudaGetErrorName(e), cudaGetErrorString(e), "cudaGetDevice", __FILE__, __LINE__);
    if (e != cudaSuccess || context_open(c, device) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void grid_context_destroy(grid_context *c)
{
    if (!c) return;
    context_close(c);
    free(c);
}

/* The warpgroup update's workspace for this call, or NULL (the mma.sync updates): where the policy
 * has one (grid_split_workspace_bytes), the caller's, else the context's own, which grows outside a
 * capture only (cudaMalloc is not allowed in one); failing to get it is not an error: mma.sync then.
 * given: the caller's panel (potrf_grid_execute), used as it is; NULL: the context's own, grown
 * here outside a capture. -1: a CUDA error (noted) freeing the old one. */
static int split_for(grid_context *c, size_t need, int capturing, float *given, grid_split **split)
{
    *split = NULL;
    if (!need) return 0;
    if (given) {
        if (!c->panel_given && c->split.panel) {
            float *old = c->split.panel;
            c->split.panel = NULL;
            c->split_bytes = 0;
            CUDA_TRY(cudaFree(old));
        }
        c->split.panel = given;
        c->split_bytes = need;
        c->panel_given = 1;
        *split = &c->split;
        return 0;
    }
    if (c->panel_given) { /* the caller's panel was for its calls only */
        c->split.panel = NULL;
        c->split_bytes = 0;
        c->panel_given = 0;
    }
    if (need > c->split_bytes && !capturing) {
        float *old = c->split.panel;
        c->split.panel = NULL;
        c->split_bytes = 0;
        if (old) CUDA_TRY(cudaFree(old));
        if (cudaMalloc((void **)&c->split.panel, need) != cudaSuccess) {
            (void)cudaGetLastError();
            c->split.panel = NULL;
            return 0;
        }
        c->split_bytes = need;
    }
    if (need <= c->split_bytes) *split = &c->split;
    return 0;
}

/* Per host thread (the multi-GPU driver runs one per GPU), for the calls that name no context.
 * (A thread that moves to another GPU opens a new one; the old one is left to the process's end.) */
static _Thread_local grid_context own;

/* potrf_grid, potrf_grid_batched, potrf_grid_math and potrf_grid_run, the stage's programs' calls
 * that take their choices from the environment: grid_program.c. */

/* Field by field: a struct's padding is not part of its value. */
static int same_policy(const grid_policy *a, const grid_policy *b)
{
    return a->mode == b->mode && a->math == b->math && a->second == b->second && a->split_bytes == b->split_bytes &&
           a->rules.chain_overlap == b->rules.chain_overlap && a->rules.wgmma_band == b->rules.wgmma_band &&
           a->rules.sm_count == b->rules.sm_count && a->rules.wgmma_narrow == b->rules.wgmma_narrow &&
           a->rules.long_rounds == b->rules.long_rounds && a->rules.column_tensor == b->rules.column_tensor &&
           a->rules.trsm_tiles == b->rules.trsm_tiles;
}

/* 1 when a kept graph was made for this shape (only its pointers may differ). */
static int same_shape(const grid_graph *e, const grid_policy *pol, int n, size_t batch)
{
    return same_policy(&e->policy, pol) && e->n == n && e->batch == batch;
}

/* Precision high's second chance. One TF32 product a term (GRID_TF32) perturbs A by about
 * n u_tf32 |L| |L^T|: a matrix whose smallest eigenvalue is below that (a damped low-rank one of
 * gpu-mode's problem: x x^T / 8 + 0.01 I, from n = 1024) meets a pivot <= 0 and gets info > 0 although
 * it is SPD. So where the input is still there afterwards (out of place: d_in != d_out), the batch
 * is factored again with the fp32-accurate math when any of its infos is nonzero, decided on the
 * GPU: an IF node after a kernel that sets its condition (CUDA 12.4's conditional nodes), in our
 * graph or in the caller's capture; only in the stream mode (no graph) does the host read the infos.
 * A matrix that is not SPD gets the fp32-accurate math's info, as with precision highest. In place,
 * nothing of A is left: info > 0 is then TF32's (the README says so). */
static int second_chance(const grid_policy *pol, const float *d_in, const float *d_out)
{
    return grid_math_reduced(pol->math) && d_in != d_out;
}

/* (Its split workspace is the same size: the tensor-core maths split the same panels.) */
static grid_policy second_policy(const grid_policy *pol)
{
    grid_policy hp = *pol;
    hp.math = pol->second;
    if (!grid_math_tensor(hp.math)) hp.split_bytes = 0;
    return hp;
}

static int add_second_chance(grid_context *c, cudaGraph_t body, const int *d_info, size_t batch);

/* Our own capture on c->s of what enqueue_all launches (then the second chance's IF node around
 * body, if any), into *graph: 0, or -1 on a CUDA error (noted; the capture is ended and its graph
 * dropped). */
static int capture_all(grid_context *c, const grid_policy *pol, int n, size_t batch, const float *d_in, float *d_out,
                       float *d_work, int *d_info, grid_split *split, cudaGraph_t body, cudaGraph_t *graph)
{
    *graph = NULL;
    c->capturing = 1;
    const cudaError_t began =
        course_fault_due() ? COURSE_FAULT_ERROR : cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal);
    if (began != cudaSuccess) {
        c->capturing = 0;
        return cuda_check_note("CUDA", cudaGetErrorName(began), cudaGetErrorString(began), "cudaStreamBeginCapture",
                               __FILE__, __LINE__);
    }
    int enqueued = enqueue_all(pol, n, batch, d_in, d_out, d_work, d_info, split, c->s, c->side, c->events);
    if (enqueued == 0 && body) enqueued = add_second_chance(c, body, d_info, batch);
    const cudaError_t ended = cudaStreamEndCapture(c->s, graph);
    c->capturing = 0;
    if (enqueued != 0 || ended != cudaSuccess) {
        if (ended == cudaSuccess && *graph) (void)cudaGraphDestroy(*graph);
        *graph = NULL;
        if (enqueued == 0) /* (else the launch's error is the cause, noted already) */
            return cuda_check_note("CUDA", cudaGetErrorName(ended), cudaGetErrorString(ended), "cudaStreamEndCapture",
                                   __FILE__, __LINE__);
        (void)cudaGetLastError();
        return -1;
    }
    return 0;
}

/* The fp32-accurate launches, captured on their own (our streams are in no capture yet): the body
 * of the IF node. NULL on a CUDA error (noted). */
static cudaGraph_t capture_second(grid_context *c, const grid_policy *hp, int n, size_t batch, const float *d_in,
                                  float *d_out, float *d_work, int *d_info, grid_split *split)
{
    cudaGraph_t body;
    if (capture_all(c, hp, n, batch, d_in, d_out, d_work, d_info, hp->split_bytes ? split : NULL, NULL, &body) != 0)
        return NULL;
    return body;
}

/* On c->s, which is being captured (our graph or the caller's): the condition's kernel, then the IF
 * node with `body` in it (copied: the caller destroys body). Returns 0, or -1 on a CUDA error. */
static int add_second_chance(grid_context *c, cudaGraph_t body, const int *d_info, size_t batch)
{
    enum cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t count;
    cudaGraphConditionalHandle h;
    CUDA_TRY(cudaStreamGetCaptureInfo(c->s, &status, NULL, &graph, NULL, NULL, NULL));
    CUDA_TRY(cudaGraphConditionalHandleCreate(&h, graph, 0, cudaGraphCondAssignDefault));
    TRY(launch_set_if_failed(h, d_info, batch, c->s));
    struct cudaGraphNodeParams params;
    memset(&params, 0, sizeof params);
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = h;
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 1;
    cudaGraphNode_t node, child;
    CUDA_TRY(cudaStreamGetCaptureInfo(c->s, &status, NULL, &graph, &deps, NULL, &count));
    CUDA_TRY(cudaGraphAddNode(&node, graph, deps, NULL, count, &params));
    CUDA_TRY(cudaGraphAddChildGraphNode(&child, params.conditional.phGraph_out[0], NULL, 0, body));
    CUDA_TRY(cudaStreamUpdateCaptureDependencies(c->s, &node, NULL, 1, cudaStreamSetCaptureDependencies));
    return 0;
}

/* The stream mode's second chance: the host reads the infos (a wait), and factors the batch again
 * if any is nonzero. */
static int read_infos(grid_context *c, const int *d_info, size_t batch, int *infos)
{
    CUDA_TRY(cudaMemcpyAsync(infos, d_info, batch * sizeof(int), cudaMemcpyDeviceToHost, c->s));
    CUDA_TRY(cudaStreamSynchronize(c->s));
    return 0;
}

static int second_chance_on_host(grid_context *c, const grid_policy *hp, int n, size_t batch, const float *d_in,
                                 float *d_out, float *d_work, int *d_info, grid_split *split)
{
    int *infos = (int *)calloc(batch, sizeof(int));
    if (!infos) return 0; /* (no memory: TF32's infos stand) */
    const int read = read_infos(c, d_info, batch, infos);
    size_t b = 0;
    while (b < batch && infos[b] == 0) b++;
    free(infos);
    if (read != 0) return -1;
    if (b == batch) return 0;
    return enqueue_all(hp, n, batch, d_in, d_out, d_work, d_info, hp->split_bytes ? split : NULL, c->s, c->side,
                       c->events);
}

/* The slot's executable graph made from `graph`: updated in place where it holds one of this shape
 * (other_shape 0), else made anew. 0, or -1 on a CUDA error (noted; the slot then empty). */
static int graph_into_slot(grid_graph *slot, int other_shape, cudaGraph_t graph)
{
    cudaGraphExecUpdateResultInfo result;
    cudaGraphExec_t old = slot->exec;
    if (old && !other_shape && cudaGraphExecUpdate(old, graph, &result) == cudaSuccess) return 0;
    (void)cudaGetLastError(); /* (an update refused: made anew) */
    slot->exec = NULL;
    if (old) CUDA_TRY(cudaGraphExecDestroy(old));
    cudaGraphExec_t made;
    CUDA_TRY(cudaGraphInstantiateWithFlags(&made, graph, cudaGraphInstantiateFlagUseNodePriority));
    slot->exec = made;
    return 0;
}

/* The graph of this call: a kept one with the same pointers, else the least recently used one,
 * captured again and updated (or made, where the update is refused). NULL on a CUDA error. */
static cudaGraphExec_t graph_for(grid_context *c, const grid_policy *pol, int n, size_t batch, const float *d_in,
                                 float *d_out, float *d_work, int *d_info, grid_split *split)
{
    float *panel = split ? split->panel : NULL;
    grid_graph *slot = NULL;
    for (int g = 0; g < GRID_GRAPHS; g++) {
        grid_graph *e = &c->graphs[g];
        if (e->exec && same_policy(&e->policy, pol) && e->n == n && e->batch == batch && e->in == d_in &&
            e->out == d_out && e->work == d_work && e->info == d_info && e->planned == split &&
            e->planned_panel == panel) {
            e->used = ++c->calls;
            return e->exec;
        }
        if (!slot || !e->exec || (slot->exec && e->used < slot->used)) slot = e;
    }
    /* An update keeps the graph's shape: where the slot holds another shape (policy, n, batch), make
     * the graph anew instead of asking for an update that is bound to be refused (an API error a
     * sanitizer reports); the least recently used slot of this shape, if any, is updated. */
    grid_graph *same = NULL;
    for (int g = 0; g < GRID_GRAPHS; g++) {
        grid_graph *e = &c->graphs[g];
        if (e->exec && same_shape(e, pol, n, batch) && (!same || e->used < same->used)) same = e;
    }
    if (slot->exec && !same_shape(slot, pol, n, batch)) {
        if (same) slot = same; /* (a free slot is still taken first) */
    }
    cudaGraph_t graph, body = NULL;
    if (second_chance(pol, d_in, d_out)) {
        const grid_policy hp = second_policy(pol);
        if (!(body = capture_second(c, &hp, n, batch, d_in, d_out, d_work, d_info, split))) return NULL;
    }
    const int captured = capture_all(c, pol, n, batch, d_in, d_out, d_work, d_info, split, body, &graph);
    if (body) (void)cudaGraphDestroy(body); /* (the IF node holds its own copy) */
    if (captured != 0) return NULL;
    const int made = graph_into_slot(slot, !same_shape(slot, pol, n, batch), graph);
    (void)cudaGraphDestroy(graph);
    if (made != 0) return NULL;
    *slot = (grid_graph){slot->exec, ++c->calls, *pol, n, batch, d_in, d_out, d_work, d_info, split, panel};
    return slot->exec;
}

void grid_context_recover(grid_context *c, cudaStream_t stream)
{
    if (!c || !c->device) return;
    if (c->capturing) { /* our own capture, cut short: end it, drop what it held */
        cudaGraph_t graph = NULL;
        if (cudaStreamEndCapture(c->s, &graph) == cudaSuccess && graph) (void)cudaGraphDestroy(graph);
        c->capturing = 0;
    }
    /* The caller's stream waits for whatever was enqueued, the side stream's part included (in a
     * capture of the caller's, a side left unjoined would fail the caller's end of capture). */
    enum cudaStreamCaptureStatus main_state, side_state;
    if (cudaStreamIsCapturing(c->s, &main_state) == cudaSuccess &&
        cudaStreamIsCapturing(c->side, &side_state) == cudaSuccess && main_state == side_state &&
        cudaEventRecord(c->events[1], c->side) == cudaSuccess)
        (void)cudaStreamWaitEvent(c->s, c->events[1], 0);
    if (cudaEventRecord(c->join, c->s) == cudaSuccess) (void)cudaStreamWaitEvent(stream, c->join, 0);
    (void)cudaGetLastError();
}

int grid_context_in_foreign_capture(grid_context *c, cudaStream_t stream)
{
    enum cudaStreamCaptureStatus ours, theirs;
    unsigned long long our_id = 0, their_id = 0;
    if (!c || !c->device) return 0;
    if (cudaStreamGetCaptureInfo(c->s, &ours, &our_id, NULL, NULL, NULL, NULL) != cudaSuccess) return 0;
    if (ours == cudaStreamCaptureStatusNone) return 0;
    if (cudaStreamGetCaptureInfo(stream, &theirs, &their_id, NULL, NULL, NULL, NULL) != cudaSuccess) return 1;
    return theirs == cudaStreamCaptureStatusNone || their_id != our_id;
}

/* The context's first stream waits for the caller's. */
static int fork_from(grid_context *c, cudaStream_t stream)
{
    CUDA_TRY(cudaEventRecord(c->fork, stream));
    CUDA_TRY(cudaStreamWaitEvent(c->s, c->fork, 0));
    return 0;
}

/* The call on context c, from the fork off the caller's stream to the join back: 0, or -1 at the
 * first failure (noted; the caller joins what was enqueued). */
static int execute_on(grid_context *c, const grid_policy *policy, int n, size_t batch, const float *d_in, float *d_out,
                      float *d_work, float *d_split, int *d_info, cudaStream_t stream)
{
    /* Fork: the context's streams start when the caller's stream gets here. Capturing into the
     * caller's graph (or DEBUG=1, which synchronizes after every launch): the launches go in as
     * they are, no graph of our own. */
    enum cudaStreamCaptureStatus capture;
    CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
    grid_policy pol = *policy;
#ifdef DEBUG_SYNC
    pol.mode = GRID_STREAM;
#endif
    grid_split *split;
    TRY(split_for(c, pol.split_bytes, capture != cudaStreamCaptureStatusNone, d_split, &split));
    const grid_policy hp = second_policy(&pol);
    cudaGraph_t body = NULL; /* the caller's capture: the second chance's body, before our streams join it */
    if (capture != cudaStreamCaptureStatusNone && second_chance(&pol, d_in, d_out) &&
        !(body = capture_second(c, &hp, n, batch, d_in, d_out, d_work, d_info, split)))
        return -1;
    int rc = 0;
    if (capture != cudaStreamCaptureStatusNone) {
        rc = fork_from(c, stream);
        if (rc == 0) rc = enqueue_all(&pol, n, batch, d_in, d_out, d_work, d_info, split, c->s, c->side, c->events);
        if (rc == 0 && body) rc = add_second_chance(c, body, d_info, batch);
        if (body) (void)cudaGraphDestroy(body); /* (the IF node holds its own copy) */
    } else if (pol.mode == GRID_STREAM) {
        rc = fork_from(c, stream);
        if (rc == 0) rc = enqueue_all(&pol, n, batch, d_in, d_out, d_work, d_info, split, c->s, c->side, c->events);
        if (rc == 0 && second_chance(&pol, d_in, d_out))
            rc = second_chance_on_host(c, &hp, n, batch, d_in, d_out, d_work, d_info, split);
    } else {
        cudaGraphExec_t exec = graph_for(c, &pol, n, batch, d_in, d_out, d_work, d_info, split);
        if (!exec) return -1;
        TRY(fork_from(c, stream));
        CUDA_TRY(cudaGraphLaunch(exec, c->s));
    }
    if (rc != 0) return -1;
    /* Join: the caller's stream goes on when all of it is done. */
    CUDA_TRY(cudaEventRecord(c->join, c->s));
    CUDA_TRY(cudaStreamWaitEvent(stream, c->join, 0));
    return 0;
}

int potrf_grid_execute(grid_context *ctx, const grid_policy *policy, int n, size_t batch, const float *d_in,
                       float *d_out, float *d_work, float *d_split, int *d_info, cudaStream_t stream)
{
    const grid_mode mode = policy ? policy->mode : GRID_MODE_COUNT;
    const grid_math math = policy ? policy->math : GRID_MATH_COUNT;
    if (n < 1 || n > GRID_MAX_N || batch < 1 || mode < 0 || mode >= GRID_MODE_COUNT || math < 0 ||
        math >= GRID_MATH_COUNT || !d_in || !d_out || !d_info) {
        course_report(
            "potrf_grid: need 1 <= n <= %d, batch >= 1, a mode (stream, graph, lookahead, pairs, quads), a math (fp32, "
            "tf32x3, tf32, f16, f16x3) and device pointers (got n = %d, batch %zu, mode %d, math %d)\n",
            GRID_MAX_N, n, batch, (int)mode, (int)math);
        return -1;
    }
    size_t work = grid_batched_workspace_bytes(n, batch);
    if (work && !d_work) {
        course_report("potrf_grid: n = %d is not a multiple of the tile %d: give a workspace of %zu bytes "
                      "(grid_batched_workspace_bytes)\n",
                      n, GRID_TILE, work);
        return -1;
    }
    if (!work) d_work = NULL; /* in place (in d_out) */
    int device;
    CUDA_TRY(cudaGetDevice(&device));
    if (grid_math_tensor(math) && !grid_tensor_cores(device)) {
        course_report("potrf_grid: the %s updates need a GPU of compute capability 8.0 or newer (use fp32)\n",
                      grid_math_name(math));
        return -1;
    }
    grid_context *c = ctx ? ctx : &own;
    if (c->device != device + 1) {
        if (ctx) {
            course_report("potrf_grid: the context belongs to GPU %d, the current GPU is %d\n", c->device - 1, device);
            return -1;
        }
        TRY(context_open(c, device));
    }
    if (execute_on(c, policy, n, batch, d_in, d_out, d_work, d_split, d_info, stream) == 0) return 0;
    grid_context_recover(c, stream); /* what was enqueued before the error, joined to the caller's stream */
    return -1;
}
