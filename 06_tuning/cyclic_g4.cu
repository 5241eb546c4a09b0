/* cyclic_g4.cu - the cyclic kernel (cyclic_kernel.cuh) with 4 x 4 threads per matrix, n <= 32, 48, 64. */
#include "cyclic_launch.cuh"
CYCLIC_FILE(g4, 4, 8, 12, 16, 0, 0, 0)
