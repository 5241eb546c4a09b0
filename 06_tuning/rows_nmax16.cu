/* rows_nmax16.cu - the rows kernel for n <= 16 (rows_kernel.cuh), T = 4, 8, 16 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(16, 4, 8, 16)
