/* cyclic_g8b.cu - the cyclic kernel (cyclic_kernel.cuh) with 8 x 8 threads per matrix, n <= 96 .. 128
 * (the larger half of cyclic_g8.cu, in a file of its own so that nvcc compiles both at once). */
#include "cyclic_launch.cuh"
CYCLIC_FILE(g8b, 8, 12, 13, 14, 15, 16, 0)
