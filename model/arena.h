/* A bump allocator: many small allocations with one owner and one free.
 * Decoded ops, derived states and listings keep their strings here so a
 * caller frees a whole batch with arena_free instead of walking it. */
#ifndef HEARTH_MODEL_ARENA_H
#define HEARTH_MODEL_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t block_size;
	size_t allocated;	/* bytes handed out, for memory accounting */
};

void arena_init(struct arena *arena, size_t block_size);
void arena_free(struct arena *arena);
/* Never returns NULL: allocation failure aborts (see arena.c for why). */
void *arena_alloc(struct arena *arena, size_t size);
void *arena_copy(struct arena *arena, const void *data, size_t size);
char *arena_strdup(struct arena *arena, const char *text);
char *arena_strndup(struct arena *arena, const char *text, size_t length);

#endif
