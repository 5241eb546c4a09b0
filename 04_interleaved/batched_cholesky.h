/* batched_cholesky.h - stages 04-05: factor a batch of n x n matrices stored in the (chunked)
 * interleaved layout of common/layout.h, in one launch. Callable from C.
 *
 * Two kernels:
 *   BATCHED_TILES   the stage 03 loop orders on the stage 02 shared-memory helpers; a block holds
 *                   per_block matrices, each worked on by NB x NB threads (block = per_block x NB
 *                   x NB threads, at most 1024). Only the tile loads/stores and the block <->
 *                   matrices mapping differ from stage 03 (tile_batched.cuh).
 *   BATCHED_THREAD  the fast variant (Gates et al. 2017): one thread per matrix, NB x NB tiles
 *                   in registers, left-looking; per_block threads (= matrices) per block; the
 *                   update loop unrolled `unroll` times (compile time). No shared memory, no
 *                   barriers; neighbouring threads read neighbouring addresses.
 *
 * The layout: chunk >= batch is the simple interleaved layout (stage 04); a smaller chunk is the
 * chunked layout (stage 05; the last chunk may be partial, see layout.h). */
#ifndef BATCHED_CHOLESKY_H
#define BATCHED_CHOLESKY_H

#include <stddef.h>
#include <cuda_runtime_api.h> /* cudaStream_t */
#include "tiled_cholesky.h"   /* looking_order */

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel ids. Stage 06's families take more ids (06_tuning/library/family.h). */
typedef enum { BATCHED_TILES = 0, BATCHED_THREAD = 1 } batched_kernel;

typedef struct batched_config { /* named: stage 06's public header forward-declares it */
    batched_kernel kernel;
    looking_order order; /* BATCHED_TILES (and stage 06's thread orders) */
    int nb;              /* tile size: TILES 4, 8, 16, 32; THREAD 2, 4, 8 */
    int per_block;       /* matrices per thread block */
    int unroll;          /* BATCHED_THREAD only: 1, 2 or 4 */
    int threads;         /* threads per matrix: read only by stage 06's kernels (0 elsewhere) */
} batched_config;

/* What potrf_batched knows about one kernel. This stage has two (batched_tiles_ops and
 * batched_thread_ops); a later stage has its own list and hands its lookup (batched_kernel_lookup)
 * to the tests, benchmarks and driver of this stage, which take the kernels they run from their
 * caller: this stage never names a later one, and nothing fills its table at run time. */
enum {
    BATCHED_USES_ORDER = 1,
    BATCHED_USES_NB = 2,
    BATCHED_USES_UNROLL = 4,
    BATCHED_USES_THREADS = 8,
    BATCHED_ROWMAJOR_ONLY = 16, /* (not a field) it takes row-major data only: chunk 1 */
    BATCHED_OUT_OF_PLACE = 32   /* (not a field) its launch reads d_in and writes d_out in one pass;
                                   without it d_in == d_out (potrf_batched_on copies first) */
};
typedef struct {
    const char *name;  /* on the command line: "tiles" */
    const char *group; /* its test group (learning goal): "tile kernel" */
    unsigned uses;     /* BATCHED_USES_*: the fields of batched_config it reads besides per_block */
    int (*check)(const batched_config *cfg, int n, char *msg, size_t len); /* 0, or -1 and why */
    int (*launch)(const batched_config *cfg, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                  int *d_info, cudaStream_t stream);                    /* on the caller's stream */
    void (*describe)(const batched_config *cfg, char *buf, size_t len); /* "thread NB=4 x64 u2" */
    int max_n; /* the largest n it takes; 0: BATCHED_MAX_N (a kernel for large matrices says more) */
} batched_kernel_ops;
#define BATCHED_MAX_KERNELS 8
#define BATCHED_THREAD_GROUP "thread-per-matrix kernel" /* also the group of stage 06's thread orders */
/* This stage's two kernels, for a later stage that wraps or lists them. */
extern const batched_kernel_ops batched_tiles_ops, batched_thread_ops;
/* A list of kernels by id: kernel k's ops, or NULL. batched_kernel_find is this stage's (tiles and
 * thread); stage 06's is family_ops. */
typedef const batched_kernel_ops *(*batched_kernel_lookup)(batched_kernel k);
const batched_kernel_ops *batched_kernel_find(batched_kernel k);

/* The largest n the batched kernels accept unless their ops say more (max_n). They are built for
 * small matrices (the course's range is 20..100); past this one matrix is enough work for a whole
 * block: use stage 03 (stage 06 adds its batched whole-GPU path as a family, which takes any n). */
#define BATCHED_MAX_N 1024

/* Configurations by name, for initializers (designated: each value says which field it is, and a
 * field added later starts at 0):
 *   batched_config c = TILES_CONFIG(LOOK_RIGHT, 8, 16);   the tile kernel: order, NB, matrices per block
 *   batched_config d = THREAD_CONFIG(4, 64, 2);            one thread per matrix: NB, per block, unroll */
#define TILES_CONFIG(order_, nb_, per_block_)                                                           \
    {                                                                                                   \
        .kernel = BATCHED_TILES, .order = (order_), .nb = (nb_), .per_block = (per_block_), .unroll = 1 \
    }
#define THREAD_CONFIG(nb_, per_block_, unroll_)                                                                   \
    {                                                                                                             \
        .kernel = BATCHED_THREAD, .order = LOOK_LEFT, .nb = (nb_), .per_block = (per_block_), .unroll = (unroll_) \
    }

/* A good default: the thread-per-matrix kernel, NB = 4, 64 matrices per block, unroll 2. */
batched_config batched_config_default(void);

/* Each function below comes twice: for this stage's kernels, and (_in) for the kernels of a lookup
 * given first, the way this stage's tests and driver run a later stage's families. */

/* 0 if cfg can factor matrices of order n, else -1 with the reason in msg (one line, names the
 * offending value and what is allowed). */
int batched_config_check(const batched_config *cfg, int n, char *msg, size_t len);
int batched_config_check_in(batched_kernel_lookup kernels, const batched_config *cfg, int n, char *msg, size_t len);

/* "tiles left NB=8 x16" / "thread NB=4 x64 u2": a short name for tables. */
const char *batched_config_name(const batched_config *cfg, char *buf, size_t len);
const char *batched_config_name_in(batched_kernel_lookup kernels, const batched_config *cfg, char *buf, size_t len);

/* Parse a kernel's name ("tiles", "thread", ...) into kernel; -1 for anything else. */
int batched_kernel_parse(const char *s, batched_kernel *k);
int batched_kernel_parse_in(batched_kernel_lookup kernels, const char *s, batched_kernel *k);
int looking_order_parse(const char *s, looking_order *o);

/* Factor `batch` matrices at d_A (layout given by chunk) in place; d_info[batch] receives each
 * matrix's info. Returns 0, or -1 (message on stderr) when the configuration is refused.
 * Asynchronous on the legacy default stream. */
int potrf_batched(const batched_config *cfg, int n, size_t batch, size_t chunk, float *d_A, int *d_info);
int potrf_batched_in(batched_kernel_lookup kernels, const batched_config *cfg, int n, size_t batch, size_t chunk,
                     float *d_A, int *d_info);

/* The same on `stream`, from d_in into d_out (the same layout; d_out == d_in: in place). A kernel
 * that works in place only (no BATCHED_OUT_OF_PLACE) gets a copy of d_in in d_out first. Never
 * waits for the GPU and allocates nothing, so it can be captured in a CUDA graph. */
int potrf_batched_on(const batched_config *cfg, int n, size_t batch, size_t chunk, const float *d_in, float *d_out,
                     int *d_info, cudaStream_t stream);
int potrf_batched_on_in(batched_kernel_lookup kernels, const batched_config *cfg, int n, size_t batch, size_t chunk,
                        const float *d_in, float *d_out, int *d_info, cudaStream_t stream);
/* The two launchers behind potrf_batched (arguments already checked), on `stream`. */
int potrf_batched_tiles(looking_order order, int nb, int per_block, int n, size_t batch, size_t chunk, float *d_A,
                        int *d_info, cudaStream_t stream);
int potrf_batched_thread(int nb, int unroll, int per_block, int n, size_t batch, size_t chunk, float *d_A, int *d_info,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
