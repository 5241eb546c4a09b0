/* door_status.h - inside stage 06's library: how a failed check becomes a cholesky_status.
 *
 * The kernels' frames (stages 03-06) check every CUDA call with CUDA_CHECK and refuse bad arguments
 * with course_report (common/cuda_check.h). In a program (common/check_exit.c) those print, and a
 * failed CUDA check exits: the drivers keep their own handling. Linked into the library
 * (check_status.c) they record the first failure of the call in progress, and a failed CUDA check
 * jumps back to the door (setjmp in cholesky_plan.c), which tidies up and returns the status.
 * Nothing of the library then reaches exit, abort or stderr (check_no_exit.sh, when the library is linked). */
#ifndef DOOR_STATUS_H
#define DOOR_STATUS_H

#include <setjmp.h>
#include <stdarg.h>
#include "cholesky_plan.h"

/* A call of the door begins: nothing recorded yet; a failed CUDA check longjmps to *trap (NULL:
 * it records and returns, the caller goes on). */
void door_begin(jmp_buf *trap);
/* ... and ends: the status of what was recorded (CHOLESKY_SUCCESS: nothing); the trap is disarmed. */
cholesky_status door_end(void);
/* Record a failure the door itself found (the first one of a call counts). Returns status. */
cholesky_status door_fail(cholesky_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cholesky_status door_record(cholesky_status status, const char *fmt, va_list ap);
/* The armed trap, disarmed (NULL: none): for check_status.c's failed CUDA check. */
jmp_buf *door_take_trap(void);

#endif
