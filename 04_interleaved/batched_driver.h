/* batched_driver.h - the command-line driver of stages 04-05 as a function, so that stage 06's
 * driver is the same program with its tuned `--kernel auto` added (and no arrow from 04 up to 06).
 * Exit status: 0 success, 1 a check failed, 2 bad arguments, input or memory. */
#ifndef BATCHED_DRIVER_H
#define BATCHED_DRIVER_H

#include <stddef.h>
#include "batched_cholesky.h"
#include "gpu_batch.h" /* layout_converter */

typedef struct {
    const char *prog; /* the name in messages and usage */
    const char *help; /* extra usage lines, or NULL */
    /* --kernel auto (then the default kernel): the configuration and chunk for (n, batch), 0; or
     * -1 with the reason in why. On success why says where the choice came from. NULL: no auto. */
    int (*choose)(int n, size_t batch, batched_config *cfg, size_t *chunk, char *why, size_t len);
    /* The defaults of a kernel chosen by name, before --nb etc. apply (NULL: stage 04's): the
     * configuration, and the chunk when --chunk is not given (0: simple interleaved). */
    void (*defaults)(batched_config *cfg, size_t *chunk);
    /* The row-major <-> layout converters (NULL: the provided ones; see sliced_job). */
    layout_converter to_layout;
    layout_converter from_layout;
} batched_driver_hooks;

int batched_driver_main(int argc, char **argv, const batched_driver_hooks *hooks);

#endif
