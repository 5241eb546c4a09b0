/* cyclic_kernel.h - launching stage 06's cyclic kernel (cyclic_kernel.cuh) from C. */
#ifndef CYCLIC_KERNEL_H
#define CYCLIC_KERNEL_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The compiled instances, one line each: X(T, A) is the instance with T threads per matrix, a grid
 * of GR x GC (cyclic_grid_rows/cols in cyclic_kernel.cuh: 4 x 4, 4 x 8, 8 x 8, 8 x 16, 16 x 16),
 * and A column slots (it takes n <= GC A). Adding one is this one line: the part files share the
 * list out (entry s is compiled by cyclic_part{s % CYCLIC_PARTS}.cu), and the table below is built
 * from it. Entries of one T together, A increasing (checked when cyclic_dispatch.cu compiles). */
#define CYCLIC_INSTANCES(X) \
    X(16, 8)                \
    X(16, 12)               \
    X(16, 16)               \
    X(32, 5)                \
    X(32, 6)                \
    X(32, 7)                \
    X(32, 8)                \
    X(32, 9)                \
    X(32, 10)               \
    X(64, 6)                \
    X(64, 7)                \
    X(64, 8)                \
    X(64, 9)                \
    X(64, 10)               \
    X(64, 11)               \
    X(64, 12)               \
    X(64, 13)               \
    X(64, 14)               \
    X(64, 15)               \
    X(64, 16)               \
    X(128, 5)               \
    X(128, 6)               \
    X(128, 7)               \
    X(128, 8)               \
    X(256, 4)               \
    X(256, 5)               \
    X(256, 6)               \
    X(256, 7)               \
    X(256, 8)

/* The same list by grid: for each T its grid's width GC and the slot counts, smallest first (built
 * from the list; the two sizes are checked against it when cyclic_dispatch.cu compiles). */
#define CYCLIC_NGRIDS 5
#define CYCLIC_MAX_SLOTS 11
typedef struct {
    int threads, cols;           /* T and GC: the instance with A slots takes n <= cols A */
    int slots[CYCLIC_MAX_SLOTS]; /* 0: none */
} cyclic_grid;
extern const cyclic_grid cyclic_grids[CYCLIC_NGRIDS];

/* The largest n the cyclic kernel takes with this many threads per matrix (0: none compiled). */
int cyclic_max_n(int threads);

/* Shared memory one block needs, in bytes (0 when no instance takes n). */
size_t cyclic_smem_need(int n, int threads, int per_block);

/* The variants of an instance (batched_config.unroll of a cyclic configuration): how its steps run,
 * CYCLIC_LOOP, CYCLIC_UNROLLED (written out; cyclic_unrolled) or CYCLIC_CAPPED (a register cap;
 * cyclic_reg_cap), plus CYCLIC_TRIMMED for the wide grids' instance with one row slot less
 * (cyclic_trimmed_rows). 0: chosen by the rules of cyclic_launch.cuh for the batch, which a plan
 * asks at plan time (cyclic_variant_choose) and make tune's full sweep measures against. */
enum { CYCLIC_LOOP = 1, CYCLIC_UNROLLED = 2, CYCLIC_CAPPED = 3, CYCLIC_TRIMMED = 4 };
#define CYCLIC_MAX_VARIANT 7

/* 1 if variant v (0 included) is compiled for n with this many threads per matrix, else 0. */
int cyclic_variant_exists(int threads, int n, int variant);
/* The variant the rules pick for this batch on the current GPU (they ask its occupancy); 0 when
 * there is no GPU to ask (the launch then decides). */
int cyclic_variant_choose(int threads, int per_block, int n, size_t batch);
/* "loop", "unrolled", "capped", "loop trimmed", ... ("" for 0). */
const char *cyclic_variant_name(int variant);

/* Launch (arguments checked by the caller) on stream, reading d_in and writing d_out (may be d_in),
 * as `variant` (0: the rules' choice): 0, or -1 with a message on stderr. */
int potrf_batched_cyclic(int threads, int per_block, int variant, int n, size_t batch, size_t chunk, const float *d_in,
                         float *d_out, int *d_info, cudaStream_t stream);

/* The compiled code is shared out over CYCLIC_PARTS files, cyclic_part0.cu .. (so that nvcc compiles
 * them in parallel); each defines potrf_cyclic_partK, which launches instance (threads, slots) if that
 * file holds it (d_in NULL: returns the variant its rules pick for the batch instead). */
#define CYCLIC_PARTS 4
#define CYCLIC_PART_ARGS                                                                                      \
    int threads, int slots, int variant, int per_block, int n, size_t batch, size_t chunk, const float *d_in, \
        float *d_out, int *d_info, cudaStream_t stream
int potrf_cyclic_part0(CYCLIC_PART_ARGS);
int potrf_cyclic_part1(CYCLIC_PART_ARGS);
int potrf_cyclic_part2(CYCLIC_PART_ARGS);
int potrf_cyclic_part3(CYCLIC_PART_ARGS);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* The list as compile-time data (C++ only): which part file compiles instance (t, a). */
#define CYCLIC_T_ITEM_(T, A) T,
#define CYCLIC_A_ITEM_(T, A) A,
constexpr int cyclic_list_t[] = {CYCLIC_INSTANCES(CYCLIC_T_ITEM_)};
constexpr int cyclic_list_a[] = {CYCLIC_INSTANCES(CYCLIC_A_ITEM_)};
constexpr int cyclic_list_count = sizeof cyclic_list_t / sizeof cyclic_list_t[0];
constexpr int cyclic_part_of(int t, int a)
{
    for (int s = 0; s < cyclic_list_count; s++)
        if (cyclic_list_t[s] == t && cyclic_list_a[s] == a) return s % CYCLIC_PARTS;
    return -1;
}
#endif

#endif
