/* The growing-array and checked-allocation helpers (see array.h). */
#include "model/array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*out_of_memory_hook)(void);

void
array_set_out_of_memory_hook(void (*hook)(void))
{
	out_of_memory_hook = hook;
}

void
array_out_of_memory(void)
{
	void (*hook)(void) = out_of_memory_hook;

	/* A hook that runs out of memory itself must not come back here. */
	out_of_memory_hook = NULL;
	if (hook != NULL)
		hook();
	fputs("hearth: out of memory\n", stderr);
	abort();
}

static size_t
array_bytes(size_t count, size_t element_size)
{
	if (element_size != 0 && count > SIZE_MAX / element_size)
		array_out_of_memory();
	size_t bytes = count * element_size;
	return bytes != 0 ? bytes : 1;
}

void *
array_grow(void *items, size_t *capacity, size_t needed, size_t element_size)
{
	if (needed <= *capacity)
		return items;
	size_t grown = *capacity ? *capacity * 2 : 16;
	while (grown < needed)
		grown *= 2;
	items = array_resize(items, grown, element_size);
	*capacity = grown;
	return items;
}

void *
array_resize(void *items, size_t count, size_t element_size)
{
	void *resized = realloc(items, array_bytes(count, element_size));
	if (resized == NULL)
		array_out_of_memory();
	return resized;
}

void *
array_zeroed(size_t count, size_t element_size)
{
	void *memory = calloc(count ? count : 1, element_size ? element_size : 1);
	if (memory == NULL)
		array_out_of_memory();
	return memory;
}

void *
array_alloc(size_t count, size_t element_size)
{
	void *memory = malloc(array_bytes(count, element_size));
	if (memory == NULL)
		array_out_of_memory();
	return memory;
}

char *
array_strdup(const char *text)
{
	return array_strndup(text, strlen(text));
}

char *
array_strndup(const char *text, size_t length)
{
	length = strnlen(text, length);
	char *copy = array_alloc(length + 1, 1);
	memcpy(copy, text, length);
	copy[length] = '\0';
	return copy;
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
