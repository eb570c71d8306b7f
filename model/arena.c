/* Bump allocator for batches of small objects with a single owner.
 * Out of memory aborts: a half-built op batch has no sensible recovery and
 * every caller would otherwise need a path that is never tested. */
#include "model/arena.h"
#include "model/array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

void
arena_init(struct arena *arena, size_t block_size)
{
	arena->head = NULL;
	arena->block_size = block_size ? block_size : 64 * 1024;
	arena->allocated = 0;
}

void
arena_free(struct arena *arena)
{
	struct arena_block *block = arena->head;

	while (block != NULL) {
		struct arena_block *next = block->next;
		free(block);
		block = next;
	}
	arena->head = NULL;
	arena->allocated = 0;
}

void *
arena_alloc(struct arena *arena, size_t size)
{
	const size_t align = sizeof(max_align_t);
	struct arena_block *block = arena->head;
	size_t rounded = (size + align - 1) / align * align;

	if (rounded == 0)
		rounded = align;
	if (block == NULL || block->size - block->used < rounded) {
		size_t capacity = rounded > arena->block_size ? rounded : arena->block_size;
		block = array_alloc(1, sizeof *block + capacity);
		block->used = 0;
		block->size = capacity;
		/* An oversized block goes behind the current one so the
		 * current one keeps serving small requests. */
		if (arena->head != NULL && rounded > arena->block_size) {
			block->next = arena->head->next;
			arena->head->next = block;
		} else {
			block->next = arena->head;
			arena->head = block;
		}
	}
	void *result = (char *)block->data + block->used;
	block->used += rounded;
	arena->allocated += rounded;
	return result;
}

void *
arena_copy(struct arena *arena, const void *data, size_t size)
{
	void *copy = arena_alloc(arena, size);
	if (size > 0)
		memcpy(copy, data, size);
	return copy;
}

char *
arena_strndup(struct arena *arena, const char *text, size_t length)
{
	char *copy = arena_alloc(arena, length + 1);
	memcpy(copy, text, length);
	copy[length] = '\0';
	return copy;
}

char *
arena_strdup(struct arena *arena, const char *text)
{
	return arena_strndup(arena, text, strlen(text));
}
