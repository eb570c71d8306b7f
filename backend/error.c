/* Errors, exit statuses, result storage and the small helpers front ends
 * share (escaping names for display). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/disk/home.h"
#include "model/arena.h"
#include "model/array.h"

struct hearth_storage {
	struct arena arena;
};

void
hearth_set_out_of_memory_hook(void (*hook)(void))
{
	array_set_out_of_memory_hook(hook);
}

int
hearth_exit_status(enum hearth_code code)
{
	switch (code) {
	case HEARTH_OK:
		return 0;
	case HEARTH_USAGE:
		return 2;
	case HEARTH_LOCKED:
		return 3;
	default:
		return 1;
	}
}

struct hearth_storage *
storage_new(void)
{
	struct hearth_storage *storage = array_alloc(1, sizeof *storage);

	arena_init(&storage->arena, 32 * 1024);
	return storage;
}

void *
storage_alloc(struct hearth_storage *storage, size_t size)
{
	return arena_alloc(&storage->arena, size);
}

char *
storage_strdup(struct hearth_storage *storage, const char *text)
{
	return arena_strdup(&storage->arena, text);
}

char *
storage_strndup(struct hearth_storage *storage, const char *text, size_t length)
{
	return arena_strndup(&storage->arena, text, length);
}

void
storage_free(struct hearth_storage *storage)
{
	if (storage == NULL)
		return;
	arena_free(&storage->arena);
	free(storage);
}

/* Length of the valid UTF-8 sequence at text (1..4), or 0 if invalid. */
static size_t
utf8_sequence_length(const unsigned char *text)
{
	unsigned char c = text[0];
	size_t length;
	uint32_t point;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		length = 2;
		point = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		length = 3;
		point = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		length = 4;
		point = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < length; i++) {
		if ((text[i] & 0xc0) != 0x80)
			return 0;
		point = point << 6 | (text[i] & 0x3f);
	}
	if ((length == 3 && point < 0x800) || (length == 4 && (point < 0x10000 || point > 0x10ffff)) ||
	    (point >= 0xd800 && point <= 0xdfff))
		return 0;
	/* C1 controls (U+0080..U+009F) are shown escaped too. */
	if (point >= 0x80 && point <= 0x9f)
		return 0;
	return length;
}

size_t
hearth_escape_name(const char *name, char *out, size_t out_size)
{
	const unsigned char *text = (const unsigned char *)name;
	size_t used = 0, written = 0;
	bool full = false;

	while (*text) {
		char piece[8];
		size_t piece_length, sequence = utf8_sequence_length(text);

		if (*text == '\\') {
			memcpy(piece, "\\\\", 2);
			piece_length = 2;
			sequence = 1;
		} else if (*text == '\n' || *text == '\t') {
			piece[0] = '\\';
			piece[1] = *text == '\n' ? 'n' : 't';
			piece_length = 2;
			sequence = 1;
		} else if (sequence == 0 || *text < 0x20 || *text == 0x7f) {
			snprintf(piece, sizeof piece, "\\x%02x", *text);
			piece_length = 4;
			sequence = 1;
		} else {
			memcpy(piece, text, sequence);
			piece_length = sequence;
		}
		/* Whole pieces only, so a cut never splits an escape or a character. */
		if (!full && written + piece_length < out_size) {
			memcpy(out + written, piece, piece_length);
			written += piece_length;
		} else {
			full = true;
		}
		used += piece_length;
		text += sequence;
	}
	if (out_size > 0)
		out[written] = '\0';
	return used;
}
