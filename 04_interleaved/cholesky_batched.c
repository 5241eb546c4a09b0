/* cholesky_batched.c - the stage 04-05 driver: factor a batch in the (chunked) interleaved layout.
 *
 *   build/04_interleaved/cholesky_batched --n 20 --batch 1000000            (generated on the GPU)
 *   build/04_interleaved/cholesky_batched --input data.bin --output L.bin --info info.txt
 *   build/04_interleaved/cholesky_batched --n 64 --batch 4096 --kernel tiles --order top --nb 8 --per-block 8 --chunk 32
 *
 * The whole program is batched_driver.c (stage 06 runs the same one with its tuned kernels). */
#include "batched_driver.h"

int main(int argc, char **argv)
{
    const batched_driver_hooks hooks = {"cholesky_batched", NULL, NULL, NULL, NULL, NULL};
    return batched_driver_main(argc, argv, &hooks);
}
