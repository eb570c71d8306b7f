/* A growable byte buffer with the encoders every format of hearth uses:
 * LEB128 varints, zigzag for signed values, fixed-size ids and
 * length-prefixed byte strings. The matching reader never reads past its end. */
#ifndef HEARTH_MODEL_BUFFER_H
#define HEARTH_MODEL_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buffer {
	uint8_t *data;
	size_t length;
	size_t capacity;
};

void buffer_init(struct buffer *buffer);
void buffer_free(struct buffer *buffer);
void buffer_reset(struct buffer *buffer);
/* Aborts on out of memory, like arena_alloc. */
void buffer_reserve(struct buffer *buffer, size_t extra);
void buffer_append(struct buffer *buffer, const void *data, size_t length);
void buffer_append_byte(struct buffer *buffer, uint8_t byte);
void buffer_append_varint(struct buffer *buffer, uint64_t value);
void buffer_append_signed(struct buffer *buffer, int64_t value);
/* The same zigzag LEB128, 128 bits wide: a value that fits 64 bits has
 * the same bytes as buffer_append_signed gives it. */
void buffer_append_signed128(struct buffer *buffer, __int128 value);
void buffer_append_bytes(struct buffer *buffer, const void *data, size_t length);
void buffer_append_u32be(struct buffer *buffer, uint32_t value);
void buffer_append_u64be(struct buffer *buffer, uint64_t value);
/* printf into the buffer; keeps it NUL-terminated past length. */
void buffer_printf(struct buffer *buffer, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* Returns the contents as a NUL-terminated string (owned by the buffer). */
const char *buffer_string(struct buffer *buffer);

/* A cursor over bytes. Every read fails (returns false) instead of reading
 * past the end, and leaves the reader marked bad. */
struct reader {
	const uint8_t *data;
	size_t length;
	size_t offset;
	bool bad;
};

void reader_init(struct reader *reader, const void *data, size_t length);
bool reader_byte(struct reader *reader, uint8_t *out);
bool reader_varint(struct reader *reader, uint64_t *out);
bool reader_signed(struct reader *reader, int64_t *out);
bool reader_signed128(struct reader *reader, __int128 *out);
bool reader_fixed(struct reader *reader, void *out, size_t length);
/* Points into the reader's data; no copy. max_length bounds what is accepted. */
bool reader_bytes(struct reader *reader, const uint8_t **out, size_t *length, size_t max_length);
bool reader_u32be(struct reader *reader, uint32_t *out);
bool reader_u64be(struct reader *reader, uint64_t *out);
bool reader_at_end(const struct reader *reader);

/* memcmp order, a shorter prefix first: how names are sorted everywhere. */
int bytes_compare(const void *a, size_t a_length, const void *b, size_t b_length);

uint32_t load_u32be(const uint8_t *bytes);
uint64_t load_u64be(const uint8_t *bytes);
void store_u32be(uint8_t *bytes, uint32_t value);
void store_u64be(uint8_t *bytes, uint64_t value);

#endif
