/* tune_gpu.h - small GPU helpers of the sweep and the benchmark. */
#ifndef TUNE_GPU_H
#define TUNE_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How many of d_x[0 .. count) are nonzero (the failed infos of a batch), counted on the GPU so
 * that a 1 GiB batch of tiny matrices (10^8 infos) need not cross the host link. */
size_t count_nonzero_device(const int *d_x, size_t count);

#ifdef __cplusplus
}
#endif

#endif
