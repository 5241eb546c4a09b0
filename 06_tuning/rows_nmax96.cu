/* rows_nmax96.cu - the rows kernel for n <= 96 (rows_kernel.cuh), T = 32, 64 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(96, 32, 64, 0)
