/* first_touch.h - which host threads touched a buffer, found without timing anything: the buffer's
 * pages are made inaccessible, each page's first access faults, and the fault handler notes that
 * thread (its Linux thread id) and opens the page. Stage 01's tests use it to see that
 * spotrf_batch_omp shared the batch among threads (test_serial.c). Linux only: elsewhere
 * first_touch_arm answers -1 and the tests say they cannot tell. */
#ifndef FIRST_TOUCH_H
#define FIRST_TOUCH_H

#include <stddef.h>

/* Page-aligned memory for first_touch_arm (NULL: none); give it back with first_touch_free. */
float *first_touch_alloc(size_t bytes);
void first_touch_free(float *p, size_t bytes);
/* From now on, note which thread touches each page of p[0 .. bytes) first. 0, or -1: cannot. */
int first_touch_arm(float *p, size_t bytes);
/* Stop noting (every page open again); the number of different threads that were first on some
 * page, and the number of pages (*pages). */
int first_touch_disarm(size_t *pages);

#endif
