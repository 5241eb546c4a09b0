/* register_tiles.cuh - the register-tile helpers of the thread-per-matrix kernels (stage 04's
 * left-looking one, stage 06's right- and top-looking ones): one thread, one NB x NB tile in
 * registers. Every loop unrolls completely (NB is a template parameter), so c[r][q] are registers.
 * Alone: make build/04_interleaved/cholesky_batched && build/04_interleaved/cholesky_batched --n 32 --batch 100000 --kernel thread --nb 4 */
#ifndef REGISTER_TILES_CUH
#define REGISTER_TILES_CUH

/* c <- L with L L^T = c, for the lower triangle of a register tile; pivots go to *info as
 * base + q + 1 (the first failure only, as LAPACK). */
template <int NB> __device__ __forceinline__ void potrf_registers(float (&c)[NB][NB], int base, int n, int *info)
{
#pragma unroll
    for (int q = 0; q < NB; q++) {
        float d = c[q][q];
        if (!(d > 0.0f) && *info == 0 && base + q < n) *info = base + q + 1;
        d = sqrtf(d);
        c[q][q] = d;
        const float inv = 1.0f / d;
#pragma unroll
        for (int r = q + 1; r < NB; r++) c[r][q] *= inv;
#pragma unroll
        for (int r = q + 1; r < NB; r++)
#pragma unroll
            for (int t = q + 1; t <= r; t++) c[r][t] -= c[r][q] * c[t][q];
    }
}

/* c <- c L^-T: solve x L^T = c column by column; linv holds 1 / l_qq. */
template <int NB>
__device__ __forceinline__ void strsm_registers(float (&c)[NB][NB], const float (&l)[NB][NB], const float (&linv)[NB])
{
#pragma unroll
    for (int q = 0; q < NB; q++)
#pragma unroll
        for (int r = 0; r < NB; r++) {
            float v = c[r][q];
#pragma unroll
            for (int t = 0; t < q; t++) v -= c[r][t] * l[q][t];
            c[r][q] = v * linv[q];
        }
}

#endif
