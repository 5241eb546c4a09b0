/* host_alloc.h - host allocations that cannot fail silently: on failure the program stops with
 * exit status 2 and says what it was allocating and how much it asked for. Every program of the
 * course allocates host memory through these (a NULL from malloc is never dereferenced). */
#ifndef HOST_ALLOC_H
#define HOST_ALLOC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline void *host_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory: %s needs %zu bytes (%.2f GiB)\n", what, bytes, bytes / 1073741824.0);
        exit(2);
    }
    return p;
}

/* count * size bytes, refusing a product that does not fit in size_t. */
static inline void *host_alloc_array(size_t count, size_t size, const char *what)
{
    if (size && count > SIZE_MAX / size) {
        fprintf(stderr, "out of host memory: %s needs %zu x %zu bytes, more than this machine can address\n", what,
                count, size);
        exit(2);
    }
    return host_alloc(count * size, what);
}

#endif
