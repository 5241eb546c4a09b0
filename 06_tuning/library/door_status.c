/* door_status.c - the statuses of stage 06's library (cholesky_plan.h, door_status.h): per host
 * thread, the first failure of the call in progress and its message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "door_status.h"

static _Thread_local struct {
    jmp_buf *trap;          /* where a failed CUDA check goes (NULL: back to its caller) */
    cholesky_status status; /* the first failure of the call in progress */
    char message[512];      /* its message; kept after the call for cholesky_last_error */
} door;

static const char *const status_words[] = {"success",       "invalid value",  "misaligned pointer",
                                           "out of memory", "CUDA error",     "busy",
                                           "not supported", "internal error", "no device"};

const char *cholesky_status_string(cholesky_status s)
{
    return (unsigned)s < sizeof status_words / sizeof *status_words ? status_words[s] : "unknown status";
}

const char *cholesky_last_error(void) { return door.message; }

void door_begin(jmp_buf *trap)
{
    door.trap = trap;
    door.status = CHOLESKY_SUCCESS;
}

cholesky_status door_end(void)
{
    door.trap = NULL;
    return door.status;
}

cholesky_status door_record(cholesky_status status, const char *fmt, va_list ap)
{
    if (door.status == CHOLESKY_SUCCESS) {
        door.status = status;
        vsnprintf(door.message, sizeof door.message, fmt, ap);
        const size_t n = strlen(door.message); /* course_report's lines end in a newline: one line here */
        if (n && door.message[n - 1] == '\n') door.message[n - 1] = 0;
    }
    return door.status;
}

cholesky_status door_fail(cholesky_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    door_record(status, fmt, ap);
    va_end(ap);
    return status;
}

jmp_buf *door_take_trap(void)
{
    jmp_buf *trap = door.trap;
    door.trap = NULL;
    return trap;
}
