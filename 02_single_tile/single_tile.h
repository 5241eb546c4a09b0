/* single_tile.h - stage 02 launchers, callable from C. */
#ifndef SINGLE_TILE_H
#define SINGLE_TILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Factor count row-major n x n matrices stored one after the other at d_A, one thread block
 * (NB x NB threads) per matrix, each matrix held in ONE shared-memory tile: n <= nb.
 * nb in {4, 8, 16, 32}; pad = 1 pads the tile rows to avoid bank conflicts, pad = 0 does not
 * (kept to measure the difference). d_info[count] receives each matrix's info.
 * Returns 0, or -1 (with a message on stderr) for an unsupported nb, pad or n. Asynchronous. */
int potrf_single_tile(int nb, int pad, int n, float *d_A, size_t count, int *d_info);

/* Unit-test entry for the four helpers on one tile of order nb (1..32).
 * op 0: spotrf_tile(T0, info, base), its info preset to `preset` (a failure already recorded)
 * 1: strsm_tile(T0, L = T1)  2: ssyrk_tile(C = T0, A = T1)  3: sgemm_tile(C = T0, A = T1, B = T2)
 * Back to back in one block, as stage 03 calls them (the second reads what other threads wrote):
 * 4: ssyrk_tile(T0, T1) then sgemm_tile(C = T2, A = T1, B = T0)
 * 5: sgemm_tile(T0, T1, T2) then sgemm_tile(C = T2, A = T1, B = T0)
 * d_in holds three nb x nb row-major tiles T0, T1, T2; d_out receives T0 after ops 0-3 and T2
 * after 4-5; d_info one int (op 0). Returns -1 for a bad nb/op. */
#define TILE_HELPER_OPS 6
int tile_helper_test(int nb, int op, int base, int preset, const float *d_in, float *d_out, int *d_info);

#ifdef __cplusplus
}
#endif

#endif
