/* Growable buffer and bounds-checked reader for hearth's binary formats
 * (op encoding, wire frames, pack headers). Readers of hostile input rely
 * on the reader never trusting a length it has not checked. */
#include "model/buffer.h"
#include "model/array.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
buffer_init(struct buffer *buffer)
{
	buffer->data = NULL;
	buffer->length = 0;
	buffer->capacity = 0;
}

void
buffer_free(struct buffer *buffer)
{
	free(buffer->data);
	buffer_init(buffer);
}

void
buffer_reset(struct buffer *buffer)
{
	buffer->length = 0;
}

void
buffer_reserve(struct buffer *buffer, size_t extra)
{
	size_t needed = buffer->length + extra + 1;	/* room for a NUL */

	if (needed <= buffer->capacity)
		return;
	size_t capacity = buffer->capacity ? buffer->capacity : 64;
	while (capacity < needed)
		capacity *= 2;
	uint8_t *data = array_resize(buffer->data, capacity, 1);
	buffer->data = data;
	buffer->capacity = capacity;
}

void
buffer_append(struct buffer *buffer, const void *data, size_t length)
{
	buffer_reserve(buffer, length);
	if (length > 0)
		memcpy(buffer->data + buffer->length, data, length);
	buffer->length += length;
}

void
buffer_append_byte(struct buffer *buffer, uint8_t byte)
{
	buffer_append(buffer, &byte, 1);
}

void
buffer_append_varint(struct buffer *buffer, uint64_t value)
{
	uint8_t bytes[10];
	size_t count = 0;

	do {
		uint8_t byte = value & 0x7f;
		value >>= 7;
		bytes[count++] = byte | (value ? 0x80 : 0);
	} while (value);
	buffer_append(buffer, bytes, count);
}

void
buffer_append_signed(struct buffer *buffer, int64_t value)
{
	uint64_t zigzag = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
	buffer_append_varint(buffer, zigzag);
}

void
buffer_append_signed128(struct buffer *buffer, __int128 value)
{
	unsigned __int128 zigzag = ((unsigned __int128)value << 1) ^ (unsigned __int128)(value >> 127);
	uint8_t bytes[19];
	size_t count = 0;

	do {
		uint8_t byte = (uint8_t)(zigzag & 0x7f);
		zigzag >>= 7;
		bytes[count++] = byte | (zigzag ? 0x80 : 0);
	} while (zigzag);
	buffer_append(buffer, bytes, count);
}

void
buffer_append_bytes(struct buffer *buffer, const void *data, size_t length)
{
	buffer_append_varint(buffer, length);
	buffer_append(buffer, data, length);
}

void
buffer_append_u32be(struct buffer *buffer, uint32_t value)
{
	uint8_t bytes[4];
	store_u32be(bytes, value);
	buffer_append(buffer, bytes, 4);
}

void
buffer_append_u64be(struct buffer *buffer, uint64_t value)
{
	uint8_t bytes[8];
	store_u64be(bytes, value);
	buffer_append(buffer, bytes, 8);
}

void
buffer_printf(struct buffer *buffer, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	int needed = vsnprintf(NULL, 0, format, args);
	va_end(args);
	if (needed <= 0) {
		buffer_reserve(buffer, 0);
		buffer->data[buffer->length] = '\0';
		return;
	}
	buffer_reserve(buffer, (size_t)needed);
	va_start(args, format);
	vsnprintf((char *)buffer->data + buffer->length, (size_t)needed + 1, format, args);
	va_end(args);
	buffer->length += (size_t)needed;
}

const char *
buffer_string(struct buffer *buffer)
{
	buffer_reserve(buffer, 0);
	buffer->data[buffer->length] = '\0';
	return (const char *)buffer->data;
}

void
reader_init(struct reader *reader, const void *data, size_t length)
{
	reader->data = data;
	reader->length = length;
	reader->offset = 0;
	reader->bad = false;
}

static bool
reader_fail(struct reader *reader)
{
	reader->bad = true;
	return false;
}

bool
reader_byte(struct reader *reader, uint8_t *out)
{
	if (reader->bad || reader->offset >= reader->length)
		return reader_fail(reader);
	*out = reader->data[reader->offset++];
	return true;
}

bool
reader_varint(struct reader *reader, uint64_t *out)
{
	uint64_t value = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t byte;
		if (!reader_byte(reader, &byte))
			return false;
		if (shift == 63 && (byte & 0x7e))
			return reader_fail(reader);	/* overflows 64 bits */
		value |= (uint64_t)(byte & 0x7f) << shift;
		if ((byte & 0x80) == 0) {
			*out = value;
			return true;
		}
	}
	return reader_fail(reader);
}

bool
reader_signed(struct reader *reader, int64_t *out)
{
	uint64_t zigzag;

	if (!reader_varint(reader, &zigzag))
		return false;
	*out = (int64_t)(zigzag >> 1) ^ -(int64_t)(zigzag & 1);
	return true;
}

bool
reader_signed128(struct reader *reader, __int128 *out)
{
	unsigned __int128 zigzag = 0;

	for (unsigned shift = 0; shift < 128; shift += 7) {
		uint8_t byte;
		if (!reader_byte(reader, &byte))
			return false;
		if (shift == 126 && (byte & 0x7c))
			return reader_fail(reader);	/* overflows 128 bits */
		zigzag |= (unsigned __int128)(byte & 0x7f) << shift;
		if ((byte & 0x80) == 0) {
			*out = (__int128)(zigzag >> 1) ^ -(__int128)(zigzag & 1);
			return true;
		}
	}
	return reader_fail(reader);
}

bool
reader_fixed(struct reader *reader, void *out, size_t length)
{
	if (reader->bad || reader->length - reader->offset < length)
		return reader_fail(reader);
	memcpy(out, reader->data + reader->offset, length);
	reader->offset += length;
	return true;
}

bool
reader_bytes(struct reader *reader, const uint8_t **out, size_t *length, size_t max_length)
{
	uint64_t declared;

	if (!reader_varint(reader, &declared))
		return false;
	if (declared > max_length || declared > reader->length - reader->offset)
		return reader_fail(reader);
	*out = reader->data + reader->offset;
	*length = (size_t)declared;
	reader->offset += (size_t)declared;
	return true;
}

bool
reader_u32be(struct reader *reader, uint32_t *out)
{
	uint8_t bytes[4];
	if (!reader_fixed(reader, bytes, 4))
		return false;
	*out = load_u32be(bytes);
	return true;
}

bool
reader_u64be(struct reader *reader, uint64_t *out)
{
	uint8_t bytes[8];
	if (!reader_fixed(reader, bytes, 8))
		return false;
	*out = load_u64be(bytes);
	return true;
}

bool
reader_at_end(const struct reader *reader)
{
	return !reader->bad && reader->offset == reader->length;
}

uint32_t
load_u32be(const uint8_t *bytes)
{
	return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 |
	    (uint32_t)bytes[2] << 8 | bytes[3];
}

uint64_t
load_u64be(const uint8_t *bytes)
{
	return (uint64_t)load_u32be(bytes) << 32 | load_u32be(bytes + 4);
}

void
store_u32be(uint8_t *bytes, uint32_t value)
{
	bytes[0] = value >> 24;
	bytes[1] = value >> 16;
	bytes[2] = value >> 8;
	bytes[3] = value;
}

void
store_u64be(uint8_t *bytes, uint64_t value)
{
	store_u32be(bytes, value >> 32);
	store_u32be(bytes + 4, (uint32_t)value);
}

int
bytes_compare(const void *a, size_t a_length, const void *b, size_t b_length)
{
	size_t common = a_length < b_length ? a_length : b_length;
	int order = common ? memcmp(a, b, common) : 0;
	if (order != 0)
		return order;
	return (a_length > b_length) - (a_length < b_length);
}
