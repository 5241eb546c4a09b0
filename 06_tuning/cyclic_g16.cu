/* cyclic_g16.cu - the cyclic kernel (cyclic_kernel.cuh) with 16 x 16 threads per matrix, n <= 64 .. 128 in steps of 16. */
#include "cyclic_launch.cuh"
CYCLIC_FILE(g16, 16, 4, 5, 6, 7, 8, 0)
