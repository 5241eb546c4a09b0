/* batch_driver.h - the body of the course's batch drivers (stage 04's cholesky_batched, stage 06's
 * cholesky_tuned) as a function that knows no kernel: the data options (--input or a generated
 * batch, --output, --info, --check, --max-gpu-memory, --gpus), the GPUs and their budget, the sliced
 * run (sliced_run.h), the checks and the files. A stage brings its kernels as a batch_kernels: its
 * options, the choice of a kernel for (n, batch) and the factorization of one slice. So each
 * driver's walk from main to a launch stays in its own stage and common/.
 * Exit status: 0 success, 1 a check failed, 2 bad arguments, input or memory. */
#ifndef BATCH_DRIVER_H
#define BATCH_DRIVER_H

#include <stddef.h>
#include "gpu_batch.h" /* layout_converter */
#include "sliced_run.h"

/* The kernel options every driver may offer, as given (-1 or NULL: not given); the stage reads them. */
typedef struct {
    const char *kernel, *order; /* --kernel NAME, --order left|right|top */
    long long nb, per_block, unroll, threads, chunk;
    int explain;   /* --explain: say what would run, and stop */
    int precision; /* --precision highest|high|medium: 0 | 1 | 2 (stage 06's cholesky_precision; the checks follow it) */
} batch_kernel_args;

/* Which of them a driver offers (the others are unknown options). */
enum { BATCH_OPT_THREADS = 1, BATCH_OPT_EXPLAIN = 2, BATCH_OPT_PRECISION = 4 };

typedef struct {
    const char *prog;     /* the name in messages and usage */
    unsigned options;     /* BATCH_OPT_*: besides --kernel, --order, --nb, --per-block, --unroll, --chunk */
    const char *synopsis; /* the kernel options in the usage line: "[--kernel tiles|thread] [--order ...] ..." */
    const char *help;     /* their lines in the usage (after --chunk's) */
    /* A --kernel or --order value, as it is parsed (opt is "--kernel" or "--order"): return if it
     * names something, else cli_bad_value (exits 2), so that a misspelt name is the first error. */
    void (*validate)(void *self, const char *opt, const char *value);
    /* After the options, with the data's n and batch known (a file has been read): refuse what does
     * not apply, choose the kernel, and say the layout the slices move in (*chunk: 0 simple
     * interleaved, 1 row-major, else chunked). `what` names the kernel on the run's first line;
     * `notes` holds more lines for the header (each starting "  ", ending "\n"), or "". With
     * --explain, print what would run and return 3 (the driver then stops with status 0).
     * 0, or 2 after one message on stderr. */
    int (*prepare)(void *self, const batch_kernel_args *args, int n, size_t batch, size_t *chunk, char *what,
                   size_t what_len, char *notes, size_t notes_len);
    sliced_factorizer factorizer; /* what factors a slice (its self is this struct's self too) */
    void (*release)(void *self);  /* after the run (NULL: nothing) */
    /* The row-major <-> layout converters of the slices (NULL: the provided ones; see sliced_job). */
    layout_converter to_layout, from_layout;
} batch_kernels;

int batch_driver_main(int argc, char **argv, const batch_kernels *kernels);

#endif
