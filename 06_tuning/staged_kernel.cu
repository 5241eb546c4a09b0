/* staged_kernel.cu - stage 06's kernel for the smallest orders (n <= STAGED_MAX_N): one thread per
 * matrix, as stage 04's thread kernel, but on row-major data as a user holds them ("staged
 * kernel": the data pass through shared memory on their way in and out).
 *
 * Why another kernel: below n = 20 the rows and cyclic kernels give a matrix 4 to 16 threads that
 * have one or two rows each, and their copies between memory and shared memory stop being whole
 * lines when n is odd. On the H100 at 1 GiB, the best of them on row-major data reached 5 % of the
 * copy roofline at n = 1, 15 % at n = 7 and 35-43 % at odd n = 9..15 (tuned table at 1f2b753).
 * Stage 04's one thread per matrix is fast only in the interleaved layout, where neighbouring
 * threads read neighbouring addresses; on row-major data its warp's 32 loads touch 32 lines.
 *
 * The idea: a block of P threads owns P consecutive matrices, which in row-major order are one
 * contiguous range of P n^2 floats. The block copies that range into shared memory, consecutive
 * threads on consecutive 16-byte pieces (cp.async: a plain copy, as fast as copies go); each thread
 * then reads its own matrix from shared memory into registers, factors it there (right-looking,
 * every step written out: n is a template parameter), writes L back (zeros above the diagonal),
 * and the block copies the range out the same way.
 *
 * Bank conflicts when thread t reads matrix t (32 threads, 32 matrices, at once):
 *   n odd   matrix t starts at t n^2, and n^2 is odd: the warp's 32 reads of entry e fall in 32
 *           different banks. The staging area is the global range exactly as it is.
 *   n even  n^2 is a multiple of 4, so every 16-byte piece lies inside one matrix. Matrix t
 *           starts at t ms with ms = n^2 + 4 or + 8, whichever makes ms / 4 odd, and a thread reads
 *           16 bytes at a time: the 8 threads of a quarter warp then hit 8 different groups of 4
 *           banks.
 *
 * n = 1 takes a kernel of its own (potrf_staged_one, below): four matrices a thread, no staging.
 *
 * A failed matrix (pivot <= 0 or NaN) records info = k + 1 and carries on with garbage; its factor
 * is unspecified, as in stage 04.
 * Alone: make build/06_tuning/cholesky_tuned && build/06_tuning/cholesky_tuned --kernel staged --n 7 --batch 1000000 */
#include <stdint.h>
#include <stdio.h>
#include <cuda_pipeline.h>
#include "cuda_check.h"
#include "launch_split.cuh"
#include "staged_kernel.h"

/* Floats from one matrix's start to the next one's in shared memory (see the top of the file). */
__host__ __device__ constexpr int staged_ms(int n) { return n % 2 ? n * n : (n * n / 4 % 2 ? n * n + 8 : n * n + 4); }

/* Where flat entry f of the block's range lies in shared memory. */
template <int N> __device__ __forceinline__ int staged_at(int f)
{
    if constexpr (N % 2) return f;
    else return f + f / (N * N) * (staged_ms(N) - N * N);
}

/* Copy the block's `total` floats between memory (g) and the staging area: 16 bytes a thread
 * where g is 16-byte aligned (it is when the whole array is: every block starts at a multiple of
 * 32 matrices), else 4. LOAD: cp.async into shared memory (the caller waits); else plain stores. */
template <int N, bool LOAD> __device__ __forceinline__ void staged_copy(float *g, int total, float *stage)
{
    int f0 = 0;
    if (((uintptr_t)g & 15) == 0) {
        f0 = total / 4 * 4;
        for (int f = 4 * threadIdx.x; f < f0; f += 4 * blockDim.x) {
            float *s = stage + staged_at<N>(f);
            if (LOAD) __pipeline_memcpy_async(s, g + f, 16);
            else *reinterpret_cast<float4 *>(g + f) = *reinterpret_cast<const float4 *>(s);
        }
    }
    for (int f = f0 + threadIdx.x; f < total; f += blockDim.x) { /* the unaligned road, or the last block's tail */
        float *s = stage + staged_at<N>(f);
        if (LOAD) __pipeline_memcpy_async(s, g + f, 4);
        else g[f] = *s;
    }
}

/* My matrix's lower triangle from the staging area into registers (n even: 16 bytes a read). */
template <int N> __device__ __forceinline__ void staged_read(const float *s, float (&a)[N][N])
{
    if constexpr (N % 2) {
#pragma unroll
        for (int i = 0; i < N; i++)
#pragma unroll
            for (int j = 0; j <= i; j++) a[i][j] = s[i * N + j];
    } else {
#pragma unroll
        for (int v = 0; v < N * N / 4; v++) {
            const float4 x = reinterpret_cast<const float4 *>(s)[v];
            const float four[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int i = (4 * v + u) / N, j = (4 * v + u) % N;
                if (j <= i) a[i][j] = four[u];
            }
        }
    }
}

/* L back into the staging area, zeros above the diagonal. */
template <int N> __device__ __forceinline__ void staged_write(float *s, const float (&a)[N][N])
{
    if constexpr (N % 2) {
#pragma unroll
        for (int i = 0; i < N; i++)
#pragma unroll
            for (int j = 0; j < N; j++) s[i * N + j] = j <= i ? a[i][j] : 0.0f;
    } else {
#pragma unroll
        for (int v = 0; v < N * N / 4; v++) {
            float four[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const int i = (4 * v + u) / N, j = (4 * v + u) % N;
                four[u] = j <= i ? a[i][j] : 0.0f;
            }
            reinterpret_cast<float4 *>(s)[v] = make_float4(four[0], four[1], four[2], four[3]);
        }
    }
}

/* The factorization in registers, right-looking: step k takes the pivot d = a_kk, scales column k
 * by 1 / sqrt(d) and subtracts its outer product from the trailing lower triangle. */
template <int N> __device__ __forceinline__ void staged_factor(float (&a)[N][N], int &info)
{
#pragma unroll
    for (int k = 0; k < N; k++) {
        const float d = a[k][k];
        if (!(d > 0.0f) && info == 0) info = k + 1;
        const float inv = rsqrtf(d);
        a[k][k] = d * inv;
#pragma unroll
        for (int i = k + 1; i < N; i++) a[i][k] *= inv;
#pragma unroll
        for (int j = k + 1; j < N; j++)
#pragma unroll
            for (int i = j; i < N; i++) a[i][j] = fmaf(-a[i][k], a[j][k], a[i][j]);
    }
}

template <int N> __global__ void __launch_bounds__(STAGED_MAX_BLOCK)
    potrf_staged_kernel(const float *in, float *A, size_t batch, size_t first, int *info)
{
    extern __shared__ __align__(16) float stage[];
    const size_t b0 = first + (size_t)blockIdx.x * blockDim.x;
    const int cnt =
        batch - b0 < (size_t)blockDim.x ? (int)(batch - b0) : (int)blockDim.x; /* the last block may be partial */
    float *g = A + b0 * (N * N);

    staged_copy<N, true>(const_cast<float *>(in) + b0 * (N * N), cnt * N * N, stage); /* read from in, written to A */
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    const int m = threadIdx.x;
    if (m < cnt) {
        float *s = stage + m * staged_ms(N);
        float a[N][N];
        staged_read<N>(s, a);
        int my_info = 0;
        staged_factor<N>(a, my_info);
        staged_write<N>(s, a);
        info[b0 + m] = my_info;
    }
    __syncthreads();
    staged_copy<N, false>(g, cnt * N * N, stage);
}

/* n = 1 needs no staging: L = sqrt(a), and one float per thread is too little work for a block's
 * copy in, barrier and copy out (56 % of the copy roofline at 1 GiB on the H100). Here each thread
 * takes 4 matrices, 16 bytes in and out (as a plain copy kernel would), and their 4 infos. */
__global__ void __launch_bounds__(STAGED_MAX_BLOCK)
    potrf_staged_one(const float *in, float *A, size_t batch, size_t first, int *info)
{
    const size_t b = 4 * (first + (size_t)blockIdx.x * blockDim.x + threadIdx.x);
    if (b + 4 <= batch && ((uintptr_t)(in + b) & 15) == 0 && ((uintptr_t)(A + b) & 15) == 0 &&
        ((uintptr_t)(info + b) & 15) == 0) {
        const float4 a = *reinterpret_cast<const float4 *>(in + b);
        *reinterpret_cast<float4 *>(A + b) = make_float4(sqrtf(a.x), sqrtf(a.y), sqrtf(a.z), sqrtf(a.w));
        *reinterpret_cast<int4 *>(info + b) = make_int4(!(a.x > 0.0f), !(a.y > 0.0f), !(a.z > 0.0f), !(a.w > 0.0f));
    } else
        for (size_t k = b; k < b + 4 && k < batch; k++) {
            const float a = in[k];
            A[k] = sqrtf(a);
            info[k] = !(a > 0.0f);
        }
}

extern "C" size_t staged_smem_need(int n, int per_block)
{
    return n == 1 ? 0 : (size_t)per_block * staged_ms(n) * sizeof(float);
}

template <int N> static int staged_launch_one(int per_block, size_t batch, const float *d_in, float *d_out, int *d_info,
                                              cudaStream_t stream)
{
    if constexpr (N == 1) {
        const size_t groups = (batch + 3) / 4; /* of 4 matrices, one per thread */
        return launch_split((groups + per_block - 1) / per_block, stream, [&](unsigned k, size_t first_block) {
            potrf_staged_one<<<k, per_block, 0, stream>>>(d_in, d_out, batch, first_block * per_block, d_info);
        });
    }
    static int optin_of[64];
    const int optin = launch_smem_optin(potrf_staged_kernel<N>, optin_of);
    if (!optin) return -1; /* a CUDA error, noted */
    const size_t smem = staged_smem_need(N, per_block);
    if (smem > (size_t)optin) {
        course_report(
            "potrf_batched_staged: %d matrices of order %d per block need %zu bytes of shared memory, this GPU "
            "offers %d\n",
            per_block, N, smem, optin);
        return -1;
    }
    return launch_split((batch + per_block - 1) / per_block, stream, [&](unsigned k, size_t first_block) {
        potrf_staged_kernel<N><<<k, per_block, smem, stream>>>(d_in, d_out, batch, first_block * per_block, d_info);
    });
}

/* The instance for n: N = 1 .. STAGED_MAX_N, tried in turn. */
template <int N> static int staged_dispatch(int n, int per_block, size_t batch, const float *d_in, float *d_out,
                                            int *d_info, cudaStream_t stream)
{
    if constexpr (N > STAGED_MAX_N) {
        course_report("potrf_batched_staged: n = %d is past STAGED_MAX_N = %d\n", n, STAGED_MAX_N);
        return -1;
    } else {
        if (n == N) return staged_launch_one<N>(per_block, batch, d_in, d_out, d_info, stream);
        return staged_dispatch<N + 1>(n, per_block, batch, d_in, d_out, d_info, stream);
    }
}

extern "C" int potrf_batched_staged(int per_block, int n, size_t batch, const float *d_in, float *d_out, int *d_info,
                                    cudaStream_t stream)
{
    if (batch == 0) return 0;
    return staged_dispatch<1>(n, per_block, batch, d_in, d_out, d_info, stream);
}
