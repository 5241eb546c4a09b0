/* cusolverdx_peer.h - cuSolverDx (NVIDIA MathDx's device-side solver) as a benchmark peer.
 *
 * cuSolverDx is the library that does exactly what stages 04-06 do: a Cholesky factorization
 * called inside a kernel, one block per matrix (or per few matrices), the matrix in shared
 * memory. It is a C++ header library; its C front end, libmathdx, generates the code of one
 * configuration (order n, block dimension, batches per block) as LTO-IR. The course uses it the
 * way an application without the C++ headers would:
 *
 *   libmathdx -> LTO-IR of the potrf device function + its "universal" fatbin
 *   NVRTC     -> LTO-IR of the harness kernel below (row-major matrices from global memory into
 *                shared memory, the potrf call, the factor back with a zero upper triangle)
 *   nvJitLink -> one cubin, loaded with cudaLibraryLoadData, launched with cudaLaunchKernel.
 *
 * libmathdx is optional: it is loaded at run time (dlopen) from CUSOLVERDX_LIB, else from the copy
 * `make cusolverdx` unpacks into build/mathdx/. Without it dx_available() says why in one line
 * and the benchmarks leave the peer out. Pinned: nvidia-libmathdx-cu13 0.4.1.15
 * (its cuSolverDx version is printed by dx_available's caller, bench_tuned). */
#ifndef CUSOLVERDX_PEER_H
#define CUSOLVERDX_PEER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dx_potrf_kernel dx_potrf_kernel;

/* 1 if libmathdx could be loaded; else 0 and the reason (with how to get it) in why. */
int dx_available(char *why, size_t why_len);

/* The kernel of one configuration for this GPU: order n, `threads` threads per block (0: the
 * block dimension cuSolverDx suggests) and bpb matrices per block (0: its suggestion). NULL, with
 * the reason in why, when libmathdx refuses the configuration or it does not fit the GPU. */
dx_potrf_kernel *dx_potrf_build(int n, int threads, int bpb, char *why, size_t why_len);

/* Generate the kernels of `count` configurations (n[i], threads[i], bpb[i]) into the on-disk
 * cache (CUSOLVERDX_CACHE, else build/mathdx/cache), one process per core: each takes seconds
 * (libmathdx compiles cuSolverDx, then nvJitLink links), after which dx_potrf_build only loads. */
void dx_potrf_prepare(int count, const int *n, const int *threads, const int *bpb);

/* The configuration the kernel runs: threads per block (x*y*z) and matrices per block. */
void dx_potrf_describe(const dx_potrf_kernel *k, int *threads, int *bpb);

/* Factor `batch` row-major n x n matrices at d_a in place (lower, strict upper set to zero), the
 * infos to d_info (LAPACK's convention, as cuSolverDx reports them). Asynchronous, default stream. */
void dx_potrf_run(const dx_potrf_kernel *k, float *d_a, size_t batch, int *d_info);

void dx_potrf_free(dx_potrf_kernel *k);

#ifdef __cplusplus
}
#endif

#endif
