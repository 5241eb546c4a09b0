/* rows_nmax64.cu - the rows kernel for n <= 64 (rows_kernel.cuh), T = 16, 32, 64 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(64, 16, 32, 64)
