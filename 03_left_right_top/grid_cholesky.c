/* grid_cholesky.c - the frame around the whole-GPU Cholesky of one matrix: argument checks,
 * info reset, the padded copy when n is not a multiple of the tile, the launch mode (streams or
 * a CUDA Graph, captured once and replayed). The steps are in grid_schedule.c, the tile tasks
 * in grid_tasks.cu. */
#include <stdio.h>
#include <string.h>
#include "cuda_check.h"
#include "grid_cholesky.h"
#include "grid_schedule.h"

static const char *const mode_names[GRID_MODE_COUNT] = {"stream", "graph", "lookahead", "pairs"};

const char *grid_mode_name(grid_mode mode)
{
    return mode >= 0 && mode < GRID_MODE_COUNT ? mode_names[mode] : "?";
}

int grid_mode_parse(const char *name)
{
    for (int m = 0; m < GRID_MODE_COUNT; m++)
        if (!strcmp(name, mode_names[m])) return m;
    return -1;
}

grid_mode grid_default_mode(int n) { return n > 4096 ? GRID_PAIRS : GRID_LOOKAHEAD; }

static size_t padded_order(int n) { return ((size_t)n + GRID_TILE - 1) / GRID_TILE * GRID_TILE; }

size_t grid_workspace_bytes(int n)
{
    if (n < 1 || n > GRID_MAX_N || n % GRID_TILE == 0) return 0;
    size_t N = padded_order(n);
    return N * N * sizeof(float);
}

/* Everything one factorization launches, in stream order on s (and side, for the look-ahead). */
static void enqueue_all(grid_mode mode, const grid_plan *p, int n, float *d_A, cudaStream_t s, cudaStream_t side,
                        cudaEvent_t events[2])
{
    CUDA_CHECK(cudaMemsetAsync(p->info, 0, sizeof(int), s));
    if (p->A != d_A) launch_copy_in(d_A, n, p->A, p->ld, (int)p->ld, s);
    if (mode == GRID_LOOKAHEAD) enqueue_lookahead(p, s, side, events);
    else if (mode == GRID_PAIRS) enqueue_lookahead_pairs(p, s, side, events);
    else enqueue_right_looking(p, s);
    if (p->A != d_A) launch_copy_out(p->A, p->ld, d_A, n, s);
    else launch_zero_upper(d_A, n, s);
}

/* One cached graph: rebuilt when anything it was captured with changes. */
static struct {
    cudaGraphExec_t exec;
    grid_mode mode;
    int n;
    float *A, *work;
    int *info;
} cached;

int potrf_grid(grid_mode mode, int n, float *d_A, float *d_work, int *d_info)
{
    if (n < 1 || n > GRID_MAX_N || mode < 0 || mode >= GRID_MODE_COUNT || !d_A || !d_info) {
        fprintf(stderr, "potrf_grid: need 1 <= n <= %d, a mode (stream, graph, lookahead, pairs) and device pointers "
                        "(got n = %d, mode %d)\n", GRID_MAX_N, n, (int)mode);
        return -1;
    }
    size_t work = grid_workspace_bytes(n);
    if (work && !d_work) {
        fprintf(stderr, "potrf_grid: n = %d is not a multiple of the tile %d: give a workspace of %zu bytes "
                        "(grid_workspace_bytes)\n", n, GRID_TILE, work);
        return -1;
    }
    static cudaStream_t s, side;
    static cudaEvent_t events[2];
    if (!s) {                                   /* blocking streams: ordered with the default stream */
        CUDA_CHECK(cudaStreamCreate(&s));
        CUDA_CHECK(cudaStreamCreate(&side));
        CUDA_CHECK(cudaEventCreateWithFlags(&events[0], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&events[1], cudaEventDisableTiming));
    }
    size_t N = padded_order(n);
    grid_plan p = {work ? d_work : d_A, N, (int)(N / GRID_TILE), d_info};
#ifdef DEBUG_SYNC
    mode = GRID_STREAM;                         /* make DEBUG=1 synchronizes after every launch: no capture */
#endif
    if (mode == GRID_STREAM) {
        enqueue_all(mode, &p, n, d_A, s, side, events);
        return 0;
    }
    if (!cached.exec || cached.mode != mode || cached.n != n || cached.A != d_A ||
        cached.work != p.A || cached.info != d_info) {
        if (cached.exec) CUDA_CHECK(cudaGraphExecDestroy(cached.exec));
        cached.exec = NULL;
        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        enqueue_all(mode, &p, n, d_A, s, side, events);
        CUDA_CHECK(cudaStreamEndCapture(s, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&cached.exec, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
        cached.mode = mode; cached.n = n;
        cached.A = d_A; cached.work = p.A; cached.info = d_info;
    }
    CUDA_CHECK(cudaGraphLaunch(cached.exec, s));
    return 0;
}
