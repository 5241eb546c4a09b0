/* check_status.c - CUDA_CHECK and course_report as the library needs them (door_status.h): the
 * first failure of a call is kept, per host thread, with its message; never printed, never fatal.
 * The programs link common/check_exit.c instead (print, exit); this file goes into the library
 * alone (libcourse_cholesky.so, and the tests of its statuses). */
#include <stdarg.h>
#include <string.h>
#include "cuda_check.h"
#include "door_status.h"

void course_report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    door_record(CHOLESKY_STATUS_INVALID_VALUE, fmt, ap);
    va_end(ap);
}

void cuda_check_failed(const char *kind, const char *name, const char *detail, const char *expr, const char *file,
                       int line)
{
    const char *base = strrchr(file, '/');
    const cholesky_status s = !strcmp(kind, "course")                      ? CHOLESKY_STATUS_INTERNAL_ERROR
                              : !strcmp(name, "cudaErrorMemoryAllocation") ? CHOLESKY_STATUS_OUT_OF_MEMORY
                                                                           : CHOLESKY_STATUS_CUDA_ERROR;
    door_fail(s, "%s error %s%s%s%s in %s (%s:%d)", kind, name, detail[0] ? " (" : "", detail, detail[0] ? ")" : "",
              expr, base ? base + 1 : file, line);
    (void)cudaGetLastError();         /* a non-sticky error is not left for the next call to find */
    jmp_buf *trap = door_take_trap(); /* once: what the door does to tidy up may fail too */
    if (trap) longjmp(*trap, 1);
}
