/* Growing arrays: one helper for every "append to a malloc'd array" in
 * hearth, doubling so appends cost O(1) amortized. Out of memory aborts,
 * as in arena_alloc and buffer_reserve. */
#ifndef HEARTH_MODEL_ARRAY_H
#define HEARTH_MODEL_ARRAY_H

#include <stddef.h>

/* Returns items grown (realloc) so that it holds at least needed elements
 * of element_size bytes; *capacity follows. */
void *array_grow(void *items, size_t *capacity, size_t needed, size_t element_size);

/* calloc that aborts instead of returning NULL (and never asks for 0). */
void *array_zeroed(size_t count, size_t element_size);

#endif
