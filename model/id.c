/* Comparison, hex and version-vector arithmetic for the ids of docs/DESIGN.md §2. */
#include "model/id.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"

const struct node_id NODE_ROOT = { { 0, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, 1 } };
const struct node_id NODE_TRASH = { { 0, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, 2 } };

static const uint8_t zero_bytes[HASH_BYTES];

bool
replica_id_is_zero(struct replica_id id)
{
	return memcmp(id.bytes, zero_bytes, ID_BYTES) == 0;
}

bool
node_id_is_zero(struct node_id id)
{
	return memcmp(id.bytes, zero_bytes, ID_BYTES) == 0;
}

int
hash_compare(const struct hash *a, const struct hash *b)
{
	return memcmp(a->bytes, b->bytes, HASH_BYTES);
}

bool
hash_equal(const struct hash *a, const struct hash *b)
{
	return memcmp(a->bytes, b->bytes, HASH_BYTES) == 0;
}

bool
hash_is_zero(const struct hash *hash)
{
	return memcmp(hash->bytes, zero_bytes, HASH_BYTES) == 0;
}

void
hex_encode(const uint8_t *bytes, size_t length, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < length; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * length] = '\0';
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool
hex_decode(const char *text, uint8_t *out, size_t length)
{
	if (strlen(text) != 2 * length)
		return false;
	for (size_t i = 0; i < length; i++) {
		int high = hex_value(text[2 * i]), low = hex_value(text[2 * i + 1]);
		if (high < 0 || low < 0)
			return false;
		out[i] = (uint8_t)(high << 4 | low);
	}
	return true;
}

bool
hex_is_prefix(const char *text)
{
	if (*text == '\0')
		return false;
	for (; *text; text++)
		if (hex_value(*text) < 0)
			return false;
	return true;
}

void
node_id_hex(struct node_id id, char out[ID_HEX])
{
	hex_encode(id.bytes, ID_BYTES, out);
}

void
replica_id_hex(struct replica_id id, char out[ID_HEX])
{
	hex_encode(id.bytes, ID_BYTES, out);
}

void
hash_hex(const struct hash *hash, char out[HASH_HEX])
{
	hex_encode(hash->bytes, HASH_BYTES, out);
}

struct node_id
node_id_from_parts(uint64_t unix_ms, const uint8_t random[10])
{
	struct node_id id;

	for (int i = 0; i < 6; i++)
		id.bytes[i] = (uint8_t)(unix_ms >> (40 - 8 * i));
	memcpy(id.bytes + 6, random, 10);
	id.bytes[6] = (uint8_t)(0x70 | (id.bytes[6] & 0x0f));	/* version 7 */
	id.bytes[8] = (uint8_t)(0x80 | (id.bytes[8] & 0x3f));	/* RFC 9562 variant */
	return id;
}

void
vv_init(struct vv *vv)
{
	vv->entries = NULL;
	vv->count = 0;
	vv->capacity = 0;
}

void
vv_free(struct vv *vv)
{
	free(vv->entries);
	vv_init(vv);
}

static void
vv_reserve(struct vv *vv, size_t count)
{
	vv->entries = array_grow(vv->entries, &vv->capacity, count, sizeof *vv->entries);
}

void
vv_copy(struct vv *to, const struct vv *from)
{
	to->count = 0;
	vv_reserve(to, from->count);
	if (from->count > 0)
		memcpy(to->entries, from->entries, from->count * sizeof *from->entries);
	to->count = from->count;
}

/* Index of replica, or where it would be inserted. */
static size_t
vv_find(const struct vv *vv, struct replica_id replica, bool *found)
{
	size_t low = 0, high = vv->count;

	while (low < high) {
		size_t middle = (low + high) / 2;
		int order = replica_id_compare(vv->entries[middle].replica, replica);
		if (order == 0) {
			*found = true;
			return middle;
		}
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	*found = false;
	return low;
}

uint64_t
vv_get(const struct vv *vv, struct replica_id replica)
{
	bool found;
	size_t index = vv_find(vv, replica, &found);
	return found ? vv->entries[index].counter : 0;
}

void
vv_set(struct vv *vv, struct replica_id replica, uint64_t counter)
{
	bool found;
	size_t index = vv_find(vv, replica, &found);

	if (found) {
		vv->entries[index].counter = counter;
		return;
	}
	vv_reserve(vv, vv->count + 1);
	memmove(vv->entries + index + 1, vv->entries + index,
	    (vv->count - index) * sizeof *vv->entries);
	vv->entries[index].replica = replica;
	vv->entries[index].counter = counter;
	vv->count++;
}

void
vv_raise(struct vv *vv, struct replica_id replica, uint64_t counter)
{
	if (vv_get(vv, replica) < counter)
		vv_set(vv, replica, counter);
}

bool
vv_includes(const struct vv *vv, struct op_id id)
{
	return id.counter <= vv_get(vv, id.replica);
}

bool
vv_less_equal(const struct vv *a, const struct vv *b)
{
	for (size_t i = 0; i < a->count; i++)
		if (a->entries[i].counter > vv_get(b, a->entries[i].replica))
			return false;
	return true;
}

bool
vv_equal(const struct vv *a, const struct vv *b)
{
	return vv_less_equal(a, b) && vv_less_equal(b, a);
}

void
vv_merge(struct vv *into, const struct vv *other)
{
	for (size_t i = 0; i < other->count; i++)
		vv_raise(into, other->entries[i].replica, other->entries[i].counter);
}

uint64_t
vv_ops_ahead(const struct vv *a, const struct vv *b)
{
	uint64_t total = 0;

	for (size_t i = 0; i < b->count; i++) {
		uint64_t mine = vv_get(a, b->entries[i].replica);
		if (b->entries[i].counter > mine)
			total += b->entries[i].counter - mine;
	}
	return total;
}

uint64_t
vv_total(const struct vv *vv)
{
	uint64_t total = 0;
	for (size_t i = 0; i < vv->count; i++)
		total += vv->entries[i].counter;
	return total;
}
