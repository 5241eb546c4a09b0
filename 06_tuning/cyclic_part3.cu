/* cyclic_part3.cu - the cyclic-kernel instances of entries 3, 7, ... of CYCLIC_INSTANCES (cyclic_kernel.h),
 * one of CYCLIC_PARTS files so that nvcc compiles them in parallel. Alone: make build/06_tuning/cyclic_part3.o */
#include "cyclic_launch.cuh"
CYCLIC_PART(3)
