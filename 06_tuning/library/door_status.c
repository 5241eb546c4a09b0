/* door_status.c - the statuses of stage 06's library (cholesky_plan.h, door_status.h): per host
 * thread, the first failure of the call in progress and its message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cuda_check.h"
#include "door_status.h"

static _Thread_local struct {
    cholesky_status status; /* the first failure of the call in progress */
    char message[512];      /* its message; kept after the call for cholesky_last_error */
    char heard[512];        /* the stage code's first message while the door listens */
} door;

static const char *const status_words[] = {"success",       "invalid value",  "misaligned pointer",
                                           "out of memory", "CUDA error",     "busy",
                                           "not supported", "internal error", "no device"};

const char *cholesky_status_string(cholesky_status s)
{
    return (unsigned)s < sizeof status_words / sizeof *status_words ? status_words[s] : "unknown status";
}

const char *cholesky_last_error(void) { return door.message; }

void door_begin(void) { door.status = CHOLESKY_SUCCESS; }

cholesky_status door_status_now(void) { return door.status; }

static cholesky_status record(cholesky_status status, const char *fmt, va_list ap)
{
    if (door.status == CHOLESKY_SUCCESS) {
        door.status = status;
        vsnprintf(door.message, sizeof door.message, fmt, ap);
    }
    return door.status;
}

cholesky_status door_fail(cholesky_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(status, fmt, ap);
    va_end(ap);
    return status;
}

void door_listen(door_ear *saved)
{
    course_report_captured(&saved->buf, &saved->len);
    course_report_capture(door.heard, sizeof door.heard);
}

cholesky_status door_heard(const door_ear *saved)
{
    const course_note_kind kind = course_report_captured_kind();
    course_report_capture(saved->buf, saved->len); /* (clears the caller's buffer: as a new capture) */
    switch (kind) {
    case COURSE_NOTE_NONE: break;
    case COURSE_NOTE_REFUSED: door_fail(CHOLESKY_STATUS_INVALID_VALUE, "%s", door.heard); break;
    case COURSE_NOTE_OUT_OF_MEMORY: door_fail(CHOLESKY_STATUS_OUT_OF_MEMORY, "%s", door.heard); break;
    case COURSE_NOTE_INTERNAL: door_fail(CHOLESKY_STATUS_INTERNAL_ERROR, "%s", door.heard); break;
    default: door_fail(CHOLESKY_STATUS_CUDA_ERROR, "%s", door.heard); break;
    }
    return door.status;
}
