/* portable.h - one macro so small inline functions compile for both the host (gcc) and the
 * device (nvcc). Used by layout.h and generator.h, which kernels and C drivers share. */
#ifndef PORTABLE_H
#define PORTABLE_H

#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif

#endif
