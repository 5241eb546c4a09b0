/* rows_part0.cu - the rows-kernel instances of entries 0, 8, ... of ROWS_INSTANCES (rows_kernel.h), one
 * of ROWS_PARTS files so that nvcc compiles them in parallel. Alone: make build/06_tuning/rows_part0.o */
#include "rows_launch.cuh"
ROWS_PART(0)
