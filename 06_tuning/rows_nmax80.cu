/* rows_nmax80.cu - the rows kernel for n <= 80 (rows_kernel.cuh), T = 32, 64 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(80, 32, 64, 0)
