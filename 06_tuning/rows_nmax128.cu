/* rows_nmax128.cu - the rows kernel for n <= 128 (rows_kernel.cuh), T = 64, 128 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(128, 64, 128, 0)
