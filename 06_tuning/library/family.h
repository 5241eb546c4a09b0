/* family.h - the library's kernel families: the list the plan, the policy, the tuned tables and
 * make tune choose from, and the lookup (family_ops) with which stage 04's checks, tests and driver
 * run them through the same batched_config. Stage 04 knows only its own two kernels; nothing is
 * registered anywhere at run time. The families:
 *   rows    T threads per matrix (threads = T: 4 .. 128), rows in registers (rows_kernel.cuh);
 *           per_block matrices per block
 *   cyclic  GR x GC threads per matrix (threads = 16, 32, 64, 128, 256), each holding the lower triangle of
 *           its 2D-cyclic share in registers (cyclic_kernel.cuh); per_block matrices per block;
 *           reads row-major data as they are (chunk = 1)
 *   thread  stage 04's one thread per matrix, now in all three looking orders (thread_orders.cu;
 *           left is stage 04's kernel itself)
 *   grid    stage 03's whole-GPU tile tasks for a batch (potrf_grid_batched): step k's tasks of
 *           every matrix in one launch; any n up to GRID_MAX_N, row-major data only (chunk = 1);
 *           the medium and large matrices (n > 128) where one block per matrix leaves the GPU idle
 *   staged  one thread per matrix for the smallest orders (n <= STAGED_MAX_N), row-major data only
 *           (chunk = 1), staged through shared memory (staged_kernel.cu); per_block matrices
 *           (= threads) per block */
#ifndef FAMILY_H
#define FAMILY_H

#include "batched_cholesky.h"
#include "grid_cholesky.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BATCHED_ROWS ((batched_kernel)2)
#define BATCHED_CYCLIC ((batched_kernel)3)
#define BATCHED_GRID ((batched_kernel)4)
#define BATCHED_STAGED ((batched_kernel)5)
/* float64 only (cholesky_policy_choose_f64), not a family of the float32 list: the tensor-core kernel */
#define BATCHED_DMMA ((batched_kernel)6)

/* Configurations by name (see TILES_CONFIG in batched_cholesky.h), for initializers:
 *   ROWS_CONFIG(32, 2, 1)          the rows kernel: threads per matrix, matrices per block, loop (1) or
 *                                  every step written out (0; n <= ROWS_FULL_N), kept in .unroll
 *   CYCLIC_CONFIG(64, 1)           the cyclic kernel: threads per matrix (GR x GC), matrices per block
 *   CYCLIC_VARIANT(32, 1, 2)       the same in one variant (cyclic_kernel.h: CYCLIC_LOOP ..; 0 its rules' choice)
 *   THREAD_ORDER_CONFIG(LOOK_TOP, 8, 32, 1)   the thread kernel in any order: order, NB, per block, unroll
 *   GRID_CONFIG(1)                 the batched whole-GPU path (matrices per block: 1)
 *   STAGED_CONFIG(64)              the staged kernel: matrices (= threads) per block
 *   DMMA_CONFIG                    float64's tensor-core kernel (dmma_batched_f64.cu): a matrix a block */
#define ROWS_CONFIG(threads_, per_block_, loop_)                                                  \
    {                                                                                             \
        .kernel = BATCHED_ROWS, .order = LOOK_LEFT, .per_block = (per_block_), .unroll = (loop_), \
        .threads = (threads_)                                                                     \
    }
#define CYCLIC_CONFIG(threads_, per_block_)                                                            \
    {                                                                                                  \
        .kernel = BATCHED_CYCLIC, .order = LOOK_LEFT, .per_block = (per_block_), .threads = (threads_) \
    }
#define CYCLIC_VARIANT(threads_, per_block_, variant_)                                                 \
    {                                                                                                  \
        .kernel = BATCHED_CYCLIC, .order = LOOK_LEFT, .per_block = (per_block_), .unroll = (variant_), \
        .threads = (threads_)                                                                          \
    }
#define THREAD_ORDER_CONFIG(order_, nb_, per_block_, unroll_)                                                    \
    {                                                                                                            \
        .kernel = BATCHED_THREAD, .order = (order_), .nb = (nb_), .per_block = (per_block_), .unroll = (unroll_) \
    }
#define GRID_CONFIG(per_block_)                                               \
    {                                                                         \
        .kernel = BATCHED_GRID, .order = LOOK_LEFT, .per_block = (per_block_) \
    }
#define STAGED_CONFIG(per_block_)                                               \
    {                                                                           \
        .kernel = BATCHED_STAGED, .order = LOOK_LEFT, .per_block = (per_block_) \
    }

#define DMMA_CONFIG                                                \
    {                                                              \
        .kernel = BATCHED_DMMA, .order = LOOK_LEFT, .per_block = 1 \
    }

/* A kernel family as one descriptor: everything the plan, the driver, make tune and the tests
 * need to know about it, in its own file (family_rows.c, family_cyclic.c, ...). Adding a family is
 * that file plus one line in family.c's list. */
typedef struct {
    batched_kernel id; /* its kernel id in batched_config */
    /* What potrf_batched_in needs (name, test group, fields it reads, check, launch, describe,
     * limit); stage 04's own for the tile kernel, taken as it is. */
    const batched_kernel_ops *ops;
    batched_config defaults; /* a kernel named on the command line starts from this (kernel and order kept) */
    size_t default_chunk;    /* and runs in this layout when --chunk is not given (0: interleaved, 1: row-major) */
    const char *help;        /* its --kernel lines in the stage 06 driver's usage (NULL: stage 04's driver has them) */
    /* make tune's search space at order n (quick: a representative few): up to `room` configurations
     * and the layout each is timed in; returns how many. */
    int (*search)(int n, int quick, batched_config *cfg, size_t *chunk, int room);
} family_kernel;

/* The families, in the order the driver's help and make tune list them, and the one of a kernel
 * id (NULL: none). */
extern const family_kernel *const family_list[];
extern const int family_count;
const family_kernel *family_find(batched_kernel id);

/* The families as a batched_kernel_lookup (batched_cholesky.h): the ops of kernel id k, or NULL.
 * What stage 04's functions do with its lookup, for the families: */
const batched_kernel_ops *family_ops(batched_kernel k);
int family_config_check(const batched_config *cfg, int n, char *msg, size_t len); /* batched_config_check */
const char *family_config_name(const batched_config *cfg, char *buf, size_t len); /* batched_config_name */
int family_kernel_parse(const char *name, batched_kernel *k);                     /* batched_kernel_parse */
int family_launch(const batched_config *cfg, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                  int *d_info, cudaStream_t stream); /* potrf_batched_on: checked, then launched on stream */

/* The families' descriptors (one file each). */
extern const family_kernel family_thread, family_tiles, family_rows, family_cyclic, family_grid, family_staged;

/* For the search functions: append (cfg, chunk) when cfg can run at order n and there is room. */
int family_offer(int n, const batched_config *cfg, size_t chunk, batched_config *out, size_t *chunks, int k, int room);

/* The thread kernel's right- and top-looking launchers (thread_orders.cu). */
int potrf_batched_thread_order(looking_order order, int nb, int unroll, int per_block, int n, size_t batch,
                               size_t chunk, float *d_A, int *d_info, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
