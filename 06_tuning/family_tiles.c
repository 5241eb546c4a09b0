/* family_tiles.c - stage 04's tile kernel (the stage 02 helpers in the stage 03 orders, NB x NB
 * threads per matrix) as a family descriptor (family.h): stage 04's ops as they are; here its
 * defaults and its place in make tune's search. */
#include "family.h"

/* Up to n = 128 three representative configurations (the full sweep only); past it one matrix per
 * block in every order and tile, row-major. */
static int tiles_search(int n, int quick, batched_config *cfg, size_t *chunk, int room)
{
    int k = 0;
    if (!quick && n >= 8 && n <= 128) {
        const batched_config tiles[] = {TILES_CONFIG(LOOK_LEFT, 8, 8), TILES_CONFIG(LOOK_TOP, 8, 8),
                                        TILES_CONFIG(LOOK_LEFT, 16, 2)};
        for (int t = 0; t < 3; t++)
            if (k < room) cfg[k] = tiles[t], chunk[k++] = (size_t)tiles[t].per_block;
    }
    if (n > 128)
        for (int o = 0; o < LOOK_COUNT; o++)
            for (int nb = 8; nb <= 32; nb *= 2) {
                const batched_config c = TILES_CONFIG((looking_order)o, nb, 1);
                k = family_offer(n, &c, 1, cfg, chunk, k, room);
            }
    return k;
}

const family_kernel family_tiles = {
    .id = BATCHED_TILES,
    .ops = &batched_tiles_ops,
    .defaults = TILES_CONFIG(LOOK_LEFT, 8, 8),
    .default_chunk = 0,
    .help = NULL,
    .search = tiles_search,
};
