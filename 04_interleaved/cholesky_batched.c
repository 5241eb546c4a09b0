/* cholesky_batched.c - the stage 04-05 driver: factor a batch in the (chunked) interleaved layout.
 *
 *   build/04_interleaved/cholesky_batched --n 20 --batch 1000000            (generated on the GPU)
 *   build/04_interleaved/cholesky_batched --input data.bin --output L.bin --info info.txt
 *   build/04_interleaved/cholesky_batched --n 64 --batch 4096 --kernel tiles --order top --nb 8 --per-block 8 --chunk 32
 *
 * The body (files, slices, GPUs, checks) is common/batch_driver.c; this file is what is stage 04's:
 * its kernel options (batched_driver.h) and the factorization of a slice, potrf_batched_on. */
#include <stdio.h>
#include "batched_driver.h"

typedef struct {
    batched_config cfg;
    int n;
} stage4_kernels;

static void validate(void *self, const char *opt, const char *value)
{
    (void)self;
    batched_options_validate(batched_kernel_find, "cholesky_batched", 0, opt, value);
}

static int prepare(void *self, const batch_kernel_args *a, int n, size_t batch, size_t *chunk, char *what,
                   size_t what_len, char *notes, size_t notes_len)
{
    (void)batch;
    (void)notes_len;
    stage4_kernels *s = self;
    char msg[256], layout[64], name[64];
    if (batched_config_from_args(batched_kernel_find, a, n, NULL, &s->cfg, chunk, msg, sizeof msg) != 0) {
        fprintf(stderr, "cholesky_batched: %s\n", msg);
        return 2;
    }
    s->n = n;
    snprintf(what, what_len, "%s, kernel %s", batched_layout_words(*chunk, layout, sizeof layout),
             batched_config_name(&s->cfg, name, sizeof name));
    notes[0] = 0;
    return 0;
}

static int factor(void *self, int worker, size_t first, size_t count, size_t chunk, const float *d_in, float *d_out,
                  int *d_info, void *d_work, cudaStream_t stream)
{
    (void)worker;
    (void)first;
    (void)d_work;
    const stage4_kernels *s = self;
    return potrf_batched_on(&s->cfg, s->n, count, chunk, d_in, d_out, d_info, stream);
}

int main(int argc, char **argv)
{
    static stage4_kernels s;
    const batch_kernels kernels = {.prog = "cholesky_batched",
                                   .synopsis = batched_options_synopsis(batched_kernel_find, 0, 0),
                                   .help = batched_options_help(batched_kernel_find, NULL, 0),
                                   .validate = validate,
                                   .prepare = prepare,
                                   .factorizer = {factor, NULL, &s}};
    return batch_driver_main(argc, argv, &kernels);
}
