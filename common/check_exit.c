/* check_exit.c - what CUDA_CHECK, KERNEL_CHECK and CUSOLVER_CHECK do in the course's programs: print
 * the failing expression, the error's name and file:line, then end the program (exit status 1).
 * Stage 06's library links 06_tuning/library/check_status.c instead, which never exits. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "cuda_check.h"

void cuda_check_failed(const char *kind, const char *name, const char *detail, const char *expr, const char *file,
                       int line)
{
    if (detail[0]) fprintf(stderr, "%s:%d: %s error %s (%s) in %s\n", file, line, kind, name, detail, expr);
    else fprintf(stderr, "%s:%d: %s error %s in %s\n", file, line, kind, name, expr);
    exit(1);
}

static _Thread_local char *captured; /* course_report_capture's buffer, or NULL: stderr */
static _Thread_local size_t captured_len;

void course_report_capture(char *buf, size_t len)
{
    captured = buf && len ? buf : NULL;
    captured_len = len;
    if (captured) captured[0] = '\0';
}

void course_report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (captured) vsnprintf(captured, captured_len, fmt, ap);
    else vfprintf(stderr, fmt, ap);
    va_end(ap);
}
