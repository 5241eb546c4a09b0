/* check_exit.c - what CUDA_CHECK, KERNEL_CHECK, CUSOLVER_CHECK and CALL_CHECK do in the course's
 * programs: print the failing expression (and the error's name) with file:line, then end the
 * program (exit status 1). Nothing a library links calls these: its checks are values (CUDA_TRY,
 * common/course_report.c), and stage 06's library fails its link if anything references exit. */
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

void call_check_failed(const char *expr, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed\n", file, line, expr);
    exit(1);
}
