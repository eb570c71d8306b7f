/* The materialized head state (DESIGN §4.6): the node table holds
 * state(all ops) and is brought forward as ops arrive, so opening a Home
 * never replays its history. */
#ifndef HEARTH_BACKEND_HEAD_H
#define HEARTH_BACKEND_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/home.h"
#include "model/arena.h"
#include "model/op.h"

/* A node as the head state holds it. */
struct head_node {
	struct node_id id, parent;
	const uint8_t *name, *shown;
	size_t name_length, shown_length;
	enum node_kind kind;
	const char *root;
	bool live;
	struct op_id *place_heads, *content_heads;
	size_t place_head_count, content_head_count;
	bool has_content;
	struct hash blob;
	uint64_t size;
	uint32_t mode;
	int64_t mtime_ns;
};

/* Loads one node (strings and lists in arena). 1 found, 0 not, -1 error. */
int head_get(struct hearth *home, struct node_id id, struct head_node *out, struct arena *arena);

/* Applies ops this replica just made. They are greater than every op held
 * (a new lamport), so each lands at the end of the total order: placement
 * is the op itself and each register's heads lose what it supersedes and
 * gain it. Ops from other replicas go through integrate instead. */
int head_apply_local(struct hearth *home, const struct op *ops, size_t count,
    struct hearth_error *error);

/* The seen set an index row keeps: the placement heads and content heads
 * the tree had seen, which is what a record of that node supersedes. */
void head_encode_seen(struct hearth *home, const struct op_id *place, size_t place_count,
    const struct op_id *content, size_t content_count, struct buffer *out);
int head_decode_seen(struct hearth *home, const uint8_t *data, size_t length,
    struct op_id **place, size_t *place_count, struct op_id **content, size_t *content_count,
    struct arena *arena);

#endif
