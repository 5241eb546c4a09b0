/* cyclic_kernel.h - launching stage 06's cyclic kernel (cyclic_kernel.cuh) from C. */
#ifndef CYCLIC_KERNEL_H
#define CYCLIC_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compiled instances, one line each: X(G, A) is the instance with G x G threads per matrix and
 * A slots a side (it takes n <= G A). Adding one is this one line: the part files share the list out
 * (entry s is compiled by cyclic_part{s % CYCLIC_PARTS}.cu), and the table below is built from it.
 * Entries of one G together, A increasing (checked when cyclic_dispatch.cu compiles). */
#define CYCLIC_INSTANCES(X) \
    X(4, 8)                 \
    X(4, 12)                \
    X(4, 16)                \
    X(8, 6)                 \
    X(8, 7)                 \
    X(8, 8)                 \
    X(8, 9)                 \
    X(8, 10)                \
    X(8, 11)                \
    X(8, 12)                \
    X(8, 13)                \
    X(8, 14)                \
    X(8, 15)                \
    X(8, 16)                \
    X(16, 4)                \
    X(16, 5)                \
    X(16, 6)                \
    X(16, 7)                \
    X(16, 8)

/* The same list by grid: for each grid side G the slot counts, smallest first (built from the
 * list; the two sizes are checked against it when cyclic_dispatch.cu compiles). */
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

/* The compiled code is shared out over CYCLIC_PARTS files, cyclic_part0.cu .. (so that nvcc compiles
 * them in parallel); each defines potrf_cyclic_partK, which launches instance (g, slots) if that
 * file holds it. */
#define CYCLIC_PARTS 4
#define CYCLIC_PART_ARGS int g, int slots, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info
int potrf_cyclic_part0(CYCLIC_PART_ARGS);
int potrf_cyclic_part1(CYCLIC_PART_ARGS);
int potrf_cyclic_part2(CYCLIC_PART_ARGS);
int potrf_cyclic_part3(CYCLIC_PART_ARGS);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* The list as compile-time data (C++ only): which part file compiles instance (g, a). */
#define CYCLIC_G_ITEM_(G, A) G,
#define CYCLIC_A_ITEM_(G, A) A,
constexpr int cyclic_list_g[] = {CYCLIC_INSTANCES(CYCLIC_G_ITEM_)};
constexpr int cyclic_list_a[] = {CYCLIC_INSTANCES(CYCLIC_A_ITEM_)};
constexpr int cyclic_list_count = sizeof cyclic_list_g / sizeof cyclic_list_g[0];
constexpr int cyclic_part_of(int g, int a)
{
    for (int s = 0; s < cyclic_list_count; s++)
        if (cyclic_list_g[s] == g && cyclic_list_a[s] == a) return s % CYCLIC_PARTS;
    return -1;
}
#endif

#endif
