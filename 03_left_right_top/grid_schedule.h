/* grid_schedule.h - the order in which the tile tasks of one large matrix are launched
 * (grid_schedule.c): the part of the whole-GPU Cholesky a student writes. Each returns 0, or -1
 * when a launch or a CUDA call failed (the error noted; pass it on with TRY and CUDA_TRY). */
#ifndef GRID_SCHEDULE_H
#define GRID_SCHEDULE_H

#include "grid_tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every step k = 0..nt-1 of right-looking Cholesky on one stream: POTRF, TRSM, then the update
 * of the whole trailing matrix. Launches only; asynchronous. */
MUST_CHECK int enqueue_right_looking(const grid_plan *p, cudaStream_t s);

/* The same tasks with a look-ahead of one step on two streams: the critical path (POTRF, TRSM
 * and the update of the next column) on `main`, the rest of each update on `side`, so the next
 * panel is factored while the bulk of the trailing matrix is still being updated. events[0..1]
 * are two events the function may record and wait on. On return, `main` waits for all the
 * work (side included). */
MUST_CHECK int enqueue_lookahead(const grid_plan *p, cudaStream_t main, cudaStream_t side, cudaEvent_t events[2]);

/* The look-ahead with two panels per round: factor panels k and k+1 on `main`, then update the
 * next two columns (on `main`) and the rest (on `side`) with both panels at once
 * (launch_update_pair_tasks: K = 2T, so every tile of the trailing matrix is read and written half
 * as often, and each update block does twice the work). Same events and end as above. */
MUST_CHECK int enqueue_lookahead_pairs(const grid_plan *p, cudaStream_t main, cudaStream_t side, cudaEvent_t events[2]);

/* Optional (the stub runs the pairs): four panels per round. Inside a round the panels are factored
 * left-looking: column k+j is updated by the round's panels k .. k+j-1 at once (K = jT, one
 * launch), then factored. Then the next four columns (on `main`) and the rest (on `side`) with all
 * four panels at once (launch_update_group_tasks: K = 4T, the trailing matrix read and written a
 * quarter as often as step by step). Same events and end as above. */
MUST_CHECK int enqueue_lookahead_quads(const grid_plan *p, cudaStream_t main, cudaStream_t side, cudaEvent_t events[2]);

#ifdef __cplusplus
}
#endif

#endif
