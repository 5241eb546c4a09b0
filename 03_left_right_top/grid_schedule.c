/* grid_schedule.c - stage 03, part 2: the launch loops of the whole-GPU Cholesky of one matrix.
 * The tasks (grid_tasks.h) are given; what is left is their order and their dependencies.
 * A kernel launched on a stream starts only after the previous work on that stream has finished,
 * so a stream IS a chain of dependencies; an event recorded on one stream and waited on by
 * another adds one edge between two chains. Every launch and CUDA call can fail: each returns its
 * error as a value (0, or -1 with the error noted), and TRY / CUDA_TRY pass it on to the caller
 * (common/cuda_check.h), so that a library built on these returns it instead of ending the program. */
#include "cuda_check.h"
#include "grid_schedule.h"

int enqueue_right_looking(const grid_plan *p, cudaStream_t s)
{
    // BEGIN SOLUTION: step k: the diagonal tile, the panel below it, the whole trailing matrix
    // stub: (void)p; (void)s;
    for (int k = 0; k < p->nt; k++) {
        TRY(launch_potrf_task(p, k, s));
        TRY(launch_trsm_tasks(p, k, s));
        TRY(launch_update_tasks(p, k, k + 1, p->nt, s));
    }
    // END SOLUTION
    return 0;
}

int enqueue_lookahead(const grid_plan *p, cudaStream_t main, cudaStream_t side, cudaEvent_t events[2])
{
    // BEGIN SOLUTION: panel and next column on main; the rest of the update on side
    // stub: (void)p; (void)main; (void)side; (void)events;
    cudaEvent_t panel_done = events[0], rest_done = events[1];
    int rest_pending = 0; /* side has work that main has not waited for */
    for (int k = 0; k < p->nt; k++) {
        TRY(launch_potrf_task(p, k, main)); /* column k is up to date: main updated it last */
        TRY(launch_trsm_tasks(p, k, main));
        if (k + 2 < p->nt) { /* columns k+2.. on the side, after the panel */
            CUDA_TRY(cudaEventRecord(panel_done, main));
            CUDA_TRY(cudaStreamWaitEvent(side, panel_done, 0));
        }
        if (rest_pending) { /* column k+1 got step k-1's update on the side */
            CUDA_TRY(cudaStreamWaitEvent(main, rest_done, 0));
            rest_pending = 0;
        }
        TRY(launch_update_tasks(p, k, k + 1, k + 2, main)); /* the next panel's column */
        if (k + 2 < p->nt) {
            TRY(launch_update_tasks(p, k, k + 2, p->nt, side)); /* the bulk, overlapping the next panel */
            CUDA_TRY(cudaEventRecord(rest_done, side));
            rest_pending = 1;
        }
    }
    if (rest_pending) CUDA_TRY(cudaStreamWaitEvent(main, rest_done, 0));
    // END SOLUTION
    return 0;
}

int enqueue_lookahead_pairs(const grid_plan *p, cudaStream_t main, cudaStream_t side, cudaEvent_t events[2])
{
    // BEGIN SOLUTION: two panels per round; their two columns ahead on main, the rest on side with K = 2T
    // stub: (void)p; (void)main; (void)side; (void)events;
    cudaEvent_t panels_done = events[0], rest_done = events[1];
    int rest_pending = 0;
    for (int k = 0; k < p->nt; k += 2) { /* columns k, k+1 are up to date: main did them last */
        TRY(launch_potrf_task(p, k, main));
        TRY(launch_trsm_tasks(p, k, main));
        if (k + 1 < p->nt) { /* the second panel needs the first one's update */
            TRY(launch_update_tasks(p, k, k + 1, k + 2, main));
            TRY(launch_potrf_task(p, k + 1, main));
            TRY(launch_trsm_tasks(p, k + 1, main));
        }
        if (k + 4 < p->nt) { /* the bulk waits for both panels */
            CUDA_TRY(cudaEventRecord(panels_done, main));
            CUDA_TRY(cudaStreamWaitEvent(side, panels_done, 0));
        }
        if (rest_pending) { /* columns k+2, k+3 got the previous round's bulk */
            CUDA_TRY(cudaStreamWaitEvent(main, rest_done, 0));
            rest_pending = 0;
        }
        if (k + 2 < p->nt) TRY(launch_update_pair_tasks(p, k, k + 2, k + 4, main)); /* the next two columns */
        if (k + 4 < p->nt) {
            TRY(launch_update_pair_tasks(p, k, k + 4, p->nt, side)); /* the rest, K = 2T */
            CUDA_TRY(cudaEventRecord(rest_done, side));
            rest_pending = 1;
        }
    }
    if (rest_pending) CUDA_TRY(cudaStreamWaitEvent(main, rest_done, 0));
    // END SOLUTION
    return 0;
}

int enqueue_lookahead_quads(const grid_plan *p, cudaStream_t main, cudaStream_t side, cudaEvent_t events[2])
{
    // BEGIN SOLUTION: four panels per round (grid_round_panels: eight in the first rounds of a large matrix), left-looking inside it; the next round's columns on main, the rest on side with K = panels T
    // stub: return enqueue_lookahead_pairs(p, main, side, events); /* optional: until you write it, the pairs' schedule */
    cudaEvent_t panels_done = events[0], rest_done = events[1];
    int rest_pending = 0;
    for (int k = 0, next; k < p->nt; k = next) { /* columns k .. next-1 have every update from before the round */
        const int G = grid_round_panels(p, k), panels = p->nt - k < G ? p->nt - k : G;
        next = k + panels; /* the next round's first column, and the one after it: */
        const int after = next < p->nt ? next + grid_round_panels(p, next) : p->nt;
        for (int j = 0; j < panels; j++) {
            if (j > 0)
                TRY(launch_update_group_tasks(p, k, j, k + j, k + j + 1, main)); /* by the round's panels so far */
            TRY(launch_potrf_task(p, k + j, main));
            TRY(launch_trsm_tasks(p, k + j, main));
        }
        if (after < p->nt) { /* the bulk waits for the round's panels */
            CUDA_TRY(cudaEventRecord(panels_done, main));
            CUDA_TRY(cudaStreamWaitEvent(side, panels_done, 0));
        }
        if (rest_pending) { /* the next round's columns got the previous round's bulk */
            CUDA_TRY(cudaStreamWaitEvent(main, rest_done, 0));
            rest_pending = 0;
        }
        if (next < p->nt)
            TRY(launch_update_group_tasks(p, k, panels, next, after, main)); /* the next round's columns */
        if (after < p->nt) {
            TRY(launch_update_group_tasks(p, k, panels, after, p->nt, side)); /* the rest, K = panels T */
            CUDA_TRY(cudaEventRecord(rest_done, side));
            rest_pending = 1;
        }
    }
    if (rest_pending) CUDA_TRY(cudaStreamWaitEvent(main, rest_done, 0));
    // END SOLUTION
    return 0;
}
