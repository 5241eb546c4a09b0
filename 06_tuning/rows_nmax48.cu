/* rows_nmax48.cu - the rows kernel for n <= 48 (rows_kernel.cuh), T = 16, 32 threads per matrix. */
#include "rows_launch.cuh"
ROWS_FILE(48, 16, 32, 0)
