/* student_kernels.h - the probe of the code a stage 06 student has written (or solved before): the
 * rows kernel, stage 04's tile and thread kernels and stage 03's schedule (the grid kernel), each on
 * a small mixed batch against the float64 reference. The sanity groups that run `auto` (which takes
 * all of them) run only when it passes, so that a student's bug fails only graded tests. */
#ifndef STUDENT_KERNELS_H
#define STUDENT_KERNELS_H

#include <stddef.h>

/* 1 if every one factors right; else 0 and what failed in what[len] ("your rows kernel (n = 20)"). */
int student_kernels_work(char *what, size_t len);

#endif
