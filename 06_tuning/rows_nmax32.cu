/* rows_nmax32.cu - the rows kernel for n <= 32 (rows_kernel.cuh), T = 8, 16, 32 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(32, 8, 16, 32)
