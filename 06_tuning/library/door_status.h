/* door_status.h - inside stage 06's library: how a failure becomes a cholesky_status.
 *
 * The kernels' frames (stages 03-06) return their errors as values: a failed CUDA call is noted
 * (CUDA_TRY, common/cuda_check.h) and the function returns -1, which its callers pass on (TRY) up
 * to the door; a call refused for its arguments says why with course_report. While the door
 * listens (door_listen .. door_heard), those messages come to it instead of stderr, and the first
 * one becomes the call's status and message (cholesky_last_error). No jump, no exit: the door
 * tidies up on the way back (check_no_exit.sh fails the library's link if anything it links
 * references exit, abort, longjmp or getenv). */
#ifndef DOOR_STATUS_H
#define DOOR_STATUS_H

#include <stdarg.h>
#include <stddef.h>
#include "cholesky_plan.h"

/* A call of the door begins: nothing recorded yet. */
void door_begin(void);
/* Record a failure the door itself found (the first one of a call counts). Returns status. */
cholesky_status door_fail(cholesky_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The stage code's messages, heard: door_listen(&ear) before calling into it, door_heard(&ear)
 * after (on every path), which gives the thread's capture back as it was and records the first
 * message heard, if any, with its status. Returns the call's status so far. */
typedef struct {
    char *buf;
    size_t len;
} door_ear;
void door_listen(door_ear *saved);
cholesky_status door_heard(const door_ear *saved);
/* The status so far. */
cholesky_status door_status_now(void);

#endif
