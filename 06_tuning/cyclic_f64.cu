/* cyclic_f64.cu - the cyclic kernel (cyclic_kernel.cuh) in float64: the same 2D-cyclic register
 * triangle and one barrier a step, with double elements, for the plans of cholesky_options.dtype =
 * CHOLESKY_FLOAT64 at n <= 128. A double takes two registers, so each grid holds half the columns
 * it holds in float32 at the same register count: the instances below keep a thread's triangle at
 * most 78 doubles (156 registers; 8 x 8 threads up to n = 96, 4 x 4 up to n = 48). The 4 x 4 grids
 * run two matrices a warp (per_block 2 or more): half the warp's steps a matrix, which is what large
 * batches of small n were short of (the policy, cholesky_policy.c). Only the loop variant, one
 * launcher, no prefetch twin: those were measured for float32 only (the README's float64 section).
 * Alone: make build/06_tuning/test_plan && build/06_tuning/test_plan */
#include <stdio.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "cyclic_kernel.cuh"
#include "cyclic_f64.h"

/* X(T, A): T threads per matrix (grid cyclic_grid_rows(T) x cyclic_grid_cols(T)), n <= GC A. */
#define CYCLIC_F64_INSTANCES(X) \
    X(16, 2)                    \
    X(16, 3)                    \
    X(16, 4)                    \
    X(16, 5)                    \
    X(16, 6)                    \
    X(16, 7)                    \
    X(16, 8)                    \
    X(16, 9)                    \
    X(16, 10)                   \
    X(16, 11)                   \
    X(16, 12)                   \
    X(32, 2)                    \
    X(32, 3)                    \
    X(32, 4)                    \
    X(32, 6)                    \
    X(32, 8)                    \
    X(64, 5)                    \
    X(64, 6)                    \
    X(64, 7)                    \
    X(64, 8)                    \
    X(64, 9)                    \
    X(64, 10)                   \
    X(64, 11)                   \
    X(64, 12)                   \
    X(128, 5)                   \
    X(128, 6)                   \
    X(128, 7)                   \
    X(128, 8)                   \
    X(256, 6)                   \
    X(256, 8)

/* The instance of (threads, n): the fewest slots A with n <= GC A. 0: none. */
static int slots_for(int threads, int n)
{
    int best = 0;
#define CYCLIC_F64_FIT_(T, A) \
    if (threads == T && n <= cyclic_grid_cols(T) * A && (!best || A < best)) best = A;
    CYCLIC_F64_INSTANCES(CYCLIC_F64_FIT_)
#undef CYCLIC_F64_FIT_
    return best;
}

extern "C" int cyclic_f64_max_n(int threads)
{
    int most = 0;
#define CYCLIC_F64_MAX_(T, A) \
    if (threads == T && cyclic_grid_cols(T) * A > most) most = cyclic_grid_cols(T) * A;
    CYCLIC_F64_INSTANCES(CYCLIC_F64_MAX_)
#undef CYCLIC_F64_MAX_
    return most;
}

/* Registers a thread, capped where that fits one more block of 128 threads on an SM (8 x 16 threads,
 * A = 7, n = 97..112: 186 -> 168 registers, 2 -> 3 matrices an SM; the 06 README's float64 section
 * has the times). 0: no cap. */
__host__ __device__ constexpr int cyclic_f64_reg_cap(int T, int A) { return T == 128 && A == 7 ? 168 : 0; }

template <int T, int A, int R> __global__ void __launch_bounds__(CYCLIC_MAX_BLOCK)
    __maxnreg__(cyclic_f64_reg_cap(T, A) ? cyclic_f64_reg_cap(T, A) : 255)
        potrf_cyclic_f64_kernel(const double *in, double *Amat, int n, size_t batch, size_t chunk, size_t first,
                                int per_block, int *info)
{
    cyclic_factor<T, A, R, false, false, double>(in, Amat, n, batch, chunk, first, per_block, 0, info);
}

template <int T, int A> static int launch_instance(int per_block, int n, size_t batch, size_t chunk, const double *d_in,
                                                   double *d_out, int *d_info, cudaStream_t s)
{
    constexpr int R = cyclic_full_rows(T, A);
    const size_t smem = (size_t)per_block * cyclic_buf_elements(T, A, 2) * sizeof(double),
                 blocks = (batch + per_block - 1) / per_block;
    return launch_split(blocks, s, [&](unsigned k, size_t first_block) {
        potrf_cyclic_f64_kernel<T, A, R>
            <<<k, per_block * T, smem, s>>>(d_in, d_out, n, batch, chunk, first_block * per_block, per_block, d_info);
    });
}

extern "C" int potrf_batched_cyclic_f64(int threads, int per_block, int n, size_t batch, size_t chunk,
                                        const double *d_in, double *d_out, int *d_info, cudaStream_t stream)
{
    const int a = slots_for(threads, n);
    if (!a || per_block < 1 || per_block * threads > CYCLIC_MAX_BLOCK) {
        course_report("potrf_batched_cyclic_f64: no instance for n = %d with %d threads per matrix, %d a block\n", n,
                      threads, per_block);
        return -1;
    }
#define CYCLIC_F64_LAUNCH_(T, A) \
    if (threads == T && a == A) return launch_instance<T, A>(per_block, n, batch, chunk, d_in, d_out, d_info, stream);
    CYCLIC_F64_INSTANCES(CYCLIC_F64_LAUNCH_)
#undef CYCLIC_F64_LAUNCH_
    return -1;
}
