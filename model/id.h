/* The identifiers of docs/DESIGN.md §2: replicas, ops, nodes, content hashes and
 * version vectors, with their order and their hex forms. Fixed-size values
 * are passed by value; nothing here allocates except vv_*. */
#ifndef HEARTH_MODEL_ID_H
#define HEARTH_MODEL_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ID_BYTES 16
#define HASH_BYTES 32
#define ID_HEX (ID_BYTES * 2 + 1)
#define HASH_HEX (HASH_BYTES * 2 + 1)
/* Short ids shown to people: at least this many hex digits (docs/DESIGN.md §2). */
#define SHORT_ID_MIN 8

struct replica_id {
	uint8_t bytes[ID_BYTES];
};

/* Files, folders and symlinks: UUIDv7, kept through renames and moves. */
struct node_id {
	uint8_t bytes[ID_BYTES];
};

/* SHA-256 of content (a blob or a chunk) or of an encoded version. */
struct hash {
	uint8_t bytes[HASH_BYTES];
};

/* (replica, counter); counters start at 1 and have no gaps per replica. */
struct op_id {
	struct replica_id replica;
	uint64_t counter;
};

/* The Home's top folder and the trash have fixed ids on every replica. */
extern const struct node_id NODE_ROOT;
extern const struct node_id NODE_TRASH;

/* Ids compare as their bytes do, in two big-endian words: inline, as the
 * sorts and lookups of a derivation call them millions of times (a call
 * to memcmp each was a tenth of `show`'s time). */
static inline uint64_t
id_word(const uint8_t *bytes)
{
	return (uint64_t)bytes[0] << 56 | (uint64_t)bytes[1] << 48 | (uint64_t)bytes[2] << 40 |
	    (uint64_t)bytes[3] << 32 | (uint64_t)bytes[4] << 24 | (uint64_t)bytes[5] << 16 |
	    (uint64_t)bytes[6] << 8 | (uint64_t)bytes[7];
}

static inline int
id_bytes_compare(const uint8_t *a, const uint8_t *b)
{
	uint64_t x = id_word(a), y = id_word(b);
	if (x == y) {
		x = id_word(a + 8);
		y = id_word(b + 8);
	}
	return (x > y) - (x < y);
}

static inline bool
id_bytes_equal(const uint8_t *a, const uint8_t *b)
{
	return id_word(a) == id_word(b) && id_word(a + 8) == id_word(b + 8);
}

static inline int
replica_id_compare(struct replica_id a, struct replica_id b)
{
	return id_bytes_compare(a.bytes, b.bytes);
}

static inline bool
replica_id_equal(struct replica_id a, struct replica_id b)
{
	return id_bytes_equal(a.bytes, b.bytes);
}

static inline int
node_id_compare(struct node_id a, struct node_id b)
{
	return id_bytes_compare(a.bytes, b.bytes);
}

static inline bool
node_id_equal(struct node_id a, struct node_id b)
{
	return id_bytes_equal(a.bytes, b.bytes);
}

/* Replica bytes, then counter. */
static inline int
op_id_compare(struct op_id a, struct op_id b)
{
	int order = replica_id_compare(a.replica, b.replica);
	if (order != 0)
		return order;
	return (a.counter > b.counter) - (a.counter < b.counter);
}

static inline bool
op_id_equal(struct op_id a, struct op_id b)
{
	return a.counter == b.counter && replica_id_equal(a.replica, b.replica);
}

bool replica_id_is_zero(struct replica_id id);
bool node_id_is_zero(struct node_id id);
int hash_compare(const struct hash *a, const struct hash *b);
bool hash_equal(const struct hash *a, const struct hash *b);
bool hash_is_zero(const struct hash *hash);

/* Lower-case hex; out must hold 2 * length + 1 bytes. */
void hex_encode(const uint8_t *bytes, size_t length, char *out);
/* Exactly 2 * length hex digits, either case; false otherwise. */
bool hex_decode(const char *text, uint8_t *out, size_t length);
bool hex_is_prefix(const char *text);	/* non-empty, only hex digits */

void node_id_hex(struct node_id id, char out[ID_HEX]);
void replica_id_hex(struct replica_id id, char out[ID_HEX]);
void hash_hex(const struct hash *hash, char out[HASH_HEX]);

/* UUIDv7 from a millisecond clock and 10 random bytes; the caller supplies
 * both so the model stays free of clocks and entropy. */
struct node_id node_id_from_parts(uint64_t unix_ms, const uint8_t random[10]);

/* A version vector: replica -> highest counter included, sorted by replica. */
struct vv_entry {
	struct replica_id replica;
	uint64_t counter;
};

struct vv {
	struct vv_entry *entries;
	size_t count;
	size_t capacity;
};

void vv_init(struct vv *vv);
void vv_free(struct vv *vv);
void vv_copy(struct vv *to, const struct vv *from);
uint64_t vv_get(const struct vv *vv, struct replica_id replica);
/* Raises the replica's counter to at least counter. */
void vv_raise(struct vv *vv, struct replica_id replica, uint64_t counter);
void vv_set(struct vv *vv, struct replica_id replica, uint64_t counter);
bool vv_includes(const struct vv *vv, struct op_id id);
/* true when every counter of a is <= b's */
bool vv_less_equal(const struct vv *a, const struct vv *b);
bool vv_equal(const struct vv *a, const struct vv *b);
void vv_merge(struct vv *into, const struct vv *other);
/* Ops in b that a lacks (sum over replicas of max(0, b - a)). */
uint64_t vv_ops_ahead(const struct vv *a, const struct vv *b);
uint64_t vv_total(const struct vv *vv);

#endif
