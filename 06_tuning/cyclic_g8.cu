/* cyclic_g8.cu - the cyclic kernel (cyclic_kernel.cuh) with 8 x 8 threads per matrix, n <= 48 .. 128
 * in steps of 8 (a slot more than n needs costs about (1 + 8 / n)^3 in work). */
#include "cyclic_launch.cuh"
CYCLIC_FILE(g8, 8, 6, 7, 8, 9, 10, 11)
