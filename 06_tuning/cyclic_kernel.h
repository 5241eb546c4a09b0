/* cyclic_kernel.h - launching stage 06's cyclic kernel (cyclic_kernel.cuh) from C. */
#ifndef CYCLIC_KERNEL_H
#define CYCLIC_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compiled instances: for each grid side G (threads per matrix = G x G) the slot counts A
 * (the instance takes n <= G A), smallest first. Must match the CYCLIC_FILE lines of cyclic_g*.cu. */
#define CYCLIC_NGRIDS 3
#define CYCLIC_MAX_SLOTS 11
typedef struct {
    int g;
    int slots[CYCLIC_MAX_SLOTS]; /* 0: none */
} cyclic_grid;
extern const cyclic_grid cyclic_grids[CYCLIC_NGRIDS];

/* The largest n the cyclic kernel takes with this many threads per matrix (0: none compiled). */
int cyclic_max_n(int threads);

/* Shared memory one block needs, in bytes (0 when no instance takes n). */
size_t cyclic_smem_need(int n, int threads, int per_block);

/* Launch (arguments checked by the caller): 0, or -1 with a message on stderr. */
int potrf_batched_cyclic(int threads, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);

/* One per file (cyclic_g*.cu): the instance with `slots` slots. */
int potrf_cyclic_g4(int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_cyclic_g8(int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);  /* slots <= 11 */
int potrf_cyclic_g8b(int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info); /* slots >= 12 */
int potrf_cyclic_g16(int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info);

#ifdef __cplusplus
}
#endif

#endif
