/* test_student_kernels.c - student_kernels.h's probe as a program, for the test scripts whose
 * sanity groups run `auto` (the driver's, the Python package's): exit 0 when the student's kernels
 * factor right, else 1 and what failed. */
#include <stdio.h>
#include "harness.h"
#include "student_kernels.h"

int main(void)
{
    char what[160], reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        printf("no GPU: %s\n", reason);
        return 1;
    }
    if (student_kernels_work(what, sizeof what)) return 0;
    printf("%s\n", what);
    return 1;
}
