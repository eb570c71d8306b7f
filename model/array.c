/* The growing-array helper (see array.h). */
#include "model/array.h"

#include <stdio.h>
#include <stdlib.h>

static void
out_of_memory(void)
{
	fputs("hearth: out of memory\n", stderr);
	abort();
}

void *
array_grow(void *items, size_t *capacity, size_t needed, size_t element_size)
{
	if (needed <= *capacity)
		return items;
	size_t grown = *capacity ? *capacity * 2 : 16;
	while (grown < needed)
		grown *= 2;
	items = realloc(items, grown * element_size);
	if (items == NULL)
		out_of_memory();
	*capacity = grown;
	return items;
}

void *
array_zeroed(size_t count, size_t element_size)
{
	void *memory = calloc(count ? count : 1, element_size);
	if (memory == NULL)
		out_of_memory();
	return memory;
}

void
array_sort(void *items, size_t count, size_t element_size,
    int (*compare)(const void *, const void *))
{
	const char *bytes = items;

	for (size_t i = 1; i < count; i++)
		if (compare(bytes + (i - 1) * element_size, bytes + i * element_size) > 0) {
			qsort(items, count, element_size, compare);
			return;
		}
}
