/* rows_nmax112.cu - the rows kernel for n <= 112 (rows_kernel.cuh), T = 64, 128 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(112, 64, 128, 0)
