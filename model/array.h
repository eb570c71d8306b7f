/* Growing arrays: one helper for every "append to a malloc'd array" in
 * hearth, doubling so appends cost O(1) amortized. Out of memory aborts,
 * as in arena_alloc and buffer_reserve. */
#ifndef HEARTH_MODEL_ARRAY_H
#define HEARTH_MODEL_ARRAY_H

#include <stddef.h>

/* Returns items grown (realloc) so that it holds at least needed elements
 * of element_size bytes; *capacity follows. */
void *array_grow(void *items, size_t *capacity, size_t needed, size_t element_size);

/* qsort, after one pass that skips it when items are in order already (a
 * batch of ops from a peer usually is, and sorting a million ops by their
 * 16-byte ids takes a good part of a second). */
void array_sort(void *items, size_t count, size_t element_size,
    int (*compare)(const void *, const void *));

/* calloc that aborts instead of returning NULL (and never asks for 0). */
void *array_zeroed(size_t count, size_t element_size);

#endif
