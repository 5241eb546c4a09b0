/* course_report.c - where the course's failures go when they are values, not exits (cuda_check.h):
 * course_report's refusals and cuda_check_note's failed CUDA calls; on stderr, or captured per host
 * thread (the tests of refused calls, stage 06's door). Programs and the library link this same
 * file: what a failure does never depends on the link line. Also the planted failures of the
 * tests of the error paths (course_fault_plant). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cuda_check.h"

static _Thread_local struct {
    char *buf; /* course_report_capture's buffer, or NULL: stderr */
    size_t len;
    course_note_kind kind; /* of the message in buf (NONE: nothing yet) */
    long checks;           /* TRY checks of this thread (course_fault_checks) */
    long planted;          /* the check that fails (0: none) */
} note;

void course_report_capture(char *buf, size_t len)
{
    note.buf = buf && len ? buf : NULL;
    note.len = len;
    note.kind = COURSE_NOTE_NONE;
    if (note.buf) note.buf[0] = '\0';
}

void course_report_captured(char **buf, size_t *len)
{
    *buf = note.buf;
    *len = note.len;
}

course_note_kind course_report_captured_kind(void) { return note.buf ? note.kind : COURSE_NOTE_NONE; }

static void say(course_note_kind kind, const char *fmt, va_list ap)
{
    if (!note.buf) {
        vfprintf(stderr, fmt, ap);
        return;
    }
    if (note.kind != COURSE_NOTE_NONE) return; /* the first one is the cause */
    note.kind = kind;
    vsnprintf(note.buf, note.len, fmt, ap);
    const size_t n = strlen(note.buf); /* one line, without its newline */
    if (n && note.buf[n - 1] == '\n') note.buf[n - 1] = '\0';
}

static void say_kind(course_note_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_kind(course_note_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(kind, fmt, ap);
    va_end(ap);
}

void course_report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(COURSE_NOTE_REFUSED, fmt, ap);
    va_end(ap);
}

int cuda_check_note(const char *kind, const char *name, const char *detail, const char *expr, const char *file,
                    int line)
{
    const char *base = strrchr(file, '/');
    const course_note_kind k = !strcmp(kind, "course")                      ? COURSE_NOTE_INTERNAL
                               : !strcmp(name, "cudaErrorMemoryAllocation") ? COURSE_NOTE_OUT_OF_MEMORY
                                                                            : COURSE_NOTE_CUDA;
    say_kind(k, "%s:%d: %s error %s%s%s%s in %s\n", base ? base + 1 : file, line, kind, name, detail[0] ? " (" : "",
             detail, detail[0] ? ")" : "", expr);
    (void)cudaGetLastError(); /* a non-sticky error is not left for the next call to find */
    return -1;
}

void course_fault_plant(long k) { note.planted = k > 0 ? note.checks + k : 0; }

long course_fault_checks(void) { return note.checks; }

int course_fault_due(void)
{
    note.checks++;
    if (!note.planted || note.checks != note.planted) return 0;
    note.planted = 0;
    return 1;
}
