/* Growing arrays and checked allocation: the one place hearth's engine
 * (model/ and backend/) gets memory from. Out of memory is never an error
 * returned: these run the front end's hook (which restores the terminal),
 * print "hearth: out of memory" and abort, as arena_alloc and
 * buffer_reserve do through them (the policy backend/hearth.h states). */
#ifndef HEARTH_MODEL_ARRAY_H
#define HEARTH_MODEL_ARRAY_H

#include <stddef.h>

/* Returns items grown (realloc) so that it holds at least needed elements
 * of element_size bytes, doubling so appends cost O(1) amortized;
 * *capacity follows. */
void *array_grow(void *items, size_t *capacity, size_t needed, size_t element_size);
/* Returns items resized to exactly count elements (at least one byte). */
void *array_resize(void *items, size_t count, size_t element_size);

/* qsort, after one pass that skips it when items are in order already (a
 * batch of ops from a peer usually is, and sorting a million ops by their
 * 16-byte ids takes a good part of a second). */
void array_sort(void *items, size_t count, size_t element_size,
    int (*compare)(const void *, const void *));

/* calloc that aborts instead of returning NULL (and never asks for 0). */
void *array_zeroed(size_t count, size_t element_size);
/* malloc of count elements, uninitialised, checked likewise. */
void *array_alloc(size_t count, size_t element_size);
/* strdup and strndup, checked likewise. */
char *array_strdup(const char *text);
char *array_strndup(const char *text, size_t length);

/* What every allocation failure of the engine ends in: the hook (set once
 * by a front end, through hearth_set_out_of_memory_hook), one line on
 * stderr, abort. */
_Noreturn void array_out_of_memory(void);
void array_set_out_of_memory_hook(void (*hook)(void));

#endif
