/* tiled_cholesky.h - stage 03 launchers, callable from C. */
#ifndef TILED_CHOLESKY_H
#define TILED_CHOLESKY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { LOOK_RIGHT = 0, LOOK_LEFT = 1, LOOK_TOP = 2, LOOK_COUNT = 3 } looking_order;

const char *looking_name(looking_order order); /* "right", "left", "top" */

/* Factor one row-major n x n matrix at d_A in place with one thread block of nb x nb threads;
 * tiles travel between global and shared memory. nb in {4, 8, 16, 32}, any n >= 1.
 * *d_info receives info. Returns 0, or -1 (message on stderr) for bad arguments. Asynchronous. */
int potrf_tiled(looking_order order, int nb, int n, float *d_A, int *d_info);

#ifdef __cplusplus
}
#endif

#endif
