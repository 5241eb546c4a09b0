/* dmma.cuh - one 16 x 8 x 4 product on the FP64 tensor cores (DMMA), for the whole-GPU float64 path
 * (grid_f64.cu) and stage 06's batched float64 kernel (dmma_batched_f64.cu).
 * The warp's fragments, g = lane / 4, t = lane % 4 (PTX's m16n8k4 .f64 layout):
 *   a = A(g, t), A(g + 8, t);   b = B(t, g);   c = C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1).
 * Hopper has it as one instruction (m16n8k4); the m8n8k4 shape that sm_80 has peaks at half the rate
 * there (06 LIMITS, "float64, one large matrix"), so sm_80 takes two. Older GPUs have no FP64 tensor
 * cores: the same sums by shuffles on the cores (correct, slow; no course target runs there).
 * Alone: make build/06_tuning/test_float64 && build/06_tuning/test_float64 */
#ifndef DMMA_CUH
#define DMMA_CUH

__device__ __forceinline__ void dmma_16x8x4(double (&c)[4], double a0, double a1, double b)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a0), "d"(a1), "d"(b));
#elif __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a0), "d"(b));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c[2]), "+d"(c[3])
                 : "d"(a1), "d"(b));
#else
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const double top = __shfl_sync(0xffffffffu, a0, 4 * g + q), bottom = __shfl_sync(0xffffffffu, a1, 4 * g + q),
                     b0 = __shfl_sync(0xffffffffu, b, 8 * t + q), b1 = __shfl_sync(0xffffffffu, b, 8 * t + 4 + q);
        c[0] = fma(top, b0, c[0]), c[1] = fma(top, b1, c[1]), c[2] = fma(bottom, b0, c[2]),
        c[3] = fma(bottom, b1, c[3]);
    }
#endif
}

#endif
