/* batched_driver.h - the batch kernels' command-line options (--kernel, --order, --nb, --per-block,
 * --unroll, --threads, --chunk) turned into a batched_config, for the course's batch driver
 * (common/batch_driver.h): stage 04's driver cholesky_batched runs its kernels with them, and
 * stage 06's driver reads the same options for its own families. */
#ifndef BATCHED_DRIVER_H
#define BATCHED_DRIVER_H

#include <stddef.h>
#include "batch_driver.h"
#include "batched_cholesky.h"

/* The synopsis and the usage lines of the kernel options, from the kernels of a lookup (stage 04's
 * batched_kernel_find, stage 06's family_ops), so the text cannot contradict what the parser accepts. extra: lines that go first (a later stage's
 * kernels), or NULL; with_auto: --kernel auto is the default (else thread is). Static buffers. */
const char *batched_options_synopsis(batched_kernel_lookup kernels, int with_auto, int with_threads);
const char *batched_options_help(batched_kernel_lookup kernels, const char *extra, int with_auto);

/* A --kernel or --order value: a kernel of the lookup (or "auto", with_auto) or an order; else
 * cli_bad_value (exit 2). */
void batched_options_validate(batched_kernel_lookup kernels, const char *prog, int with_auto, const char *opt,
                              const char *value);

/* The configuration a named kernel's options describe: options the kernel does not read are
 * refused; it starts from `defaults` (NULL: stage 04's: the kernel's own, tiles NB 8, 8 per block),
 * then --nb, --per-block, --unroll, --threads apply; *chunk is --chunk, or the kernel's default
 * layout. Checked for order n. 0, or -1 with the reason in msg (one line). */
int batched_config_from_args(batched_kernel_lookup kernels, const batch_kernel_args *a, int n,
                             void (*defaults)(batched_config *cfg, size_t *chunk), batched_config *cfg, size_t *chunk,
                             char *msg, size_t len);

/* "layout row-major (chunk = 1: no conversion)", "layout chunked, 32 matrices per chunk", ... */
const char *batched_layout_words(size_t chunk, char *buf, size_t len);

#endif
