/* cp_grow.h - room for one more element of a growing array: the capacity
 * doubles (from 64) when the array is full.  Header-only. */
#ifndef COLLPROF_CP_GROW_H
#define COLLPROF_CP_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* *array holds n of *cap elements of size bytes; make room for n + 1.
 * Returns 0, or -1 (out of memory or a size past SIZE_MAX) with *array and
 * *cap unchanged. */
static inline int cp_grow(void **array, size_t *cap, size_t n, size_t size)
{
    void *bigger;
    size_t c;

    if (n < *cap)
        return 0;
    c = *cap ? *cap * 2 : 64;
    if (c < *cap || c > SIZE_MAX / size)
        return -1;
    bigger = realloc(*array, c * size);
    if (!bigger)
        return -1;
    *array = bigger;
    *cap = c;
    return 0;
}

#endif
