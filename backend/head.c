/* Reading and advancing the materialized head state (the node and
 * conflict tables). Heads are kept per node as compact op id lists, so a
 * node's row says everything a record of it needs to supersede. */
#include "backend/head.h"

#include <stdlib.h>
#include <string.h>

#include "model/state.h"

static const char SQL_NODE_GET[] =
    "SELECT parent, name, shown, kind, root, live, place_heads, content_heads, blob, size, "
    "mode, mtime FROM node WHERE id = ?1";
static const char SQL_NODE_PUT[] =
    "INSERT OR REPLACE INTO node(id, parent, name, shown, kind, root, live, place_heads, "
    "content_heads, blob, size, mode, mtime) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
    "?11, ?12, ?13)";
static const char SQL_CONFLICT_PUT[] =
    "INSERT OR REPLACE INTO conflict(kind, node, ops) VALUES(?1, ?2, ?3)";
static const char SQL_CONFLICT_DELETE[] = "DELETE FROM conflict WHERE kind = ?1 AND node = ?2";

int
head_get(struct hearth *home, struct node_id id, struct head_node *out, struct arena *arena)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NODE_GET);
	int step;

	memset(out, 0, sizeof *out);
	sqlite3_bind_blob(statement, 1, id.bytes, ID_BYTES, SQLITE_STATIC);
	step = sqlite3_step(statement);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return -1;
	out->id = id;
	memcpy(out->parent.bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
	out->name_length = (size_t)sqlite3_column_bytes(statement, 1);
	out->name = arena_copy(arena, sqlite3_column_blob(statement, 1), out->name_length);
	out->shown_length = (size_t)sqlite3_column_bytes(statement, 2);
	out->shown = arena_copy(arena, sqlite3_column_blob(statement, 2), out->shown_length);
	out->kind = (enum node_kind)sqlite3_column_int(statement, 3);
	out->root = arena_strdup(arena, (const char *)sqlite3_column_text(statement, 4));
	out->live = sqlite3_column_int(statement, 5) != 0;
	if (store_decode_op_ids(&home->store, sqlite3_column_blob(statement, 6),
		(size_t)sqlite3_column_bytes(statement, 6), &out->place_heads,
		&out->place_head_count, arena) != 0 ||
	    store_decode_op_ids(&home->store, sqlite3_column_blob(statement, 7),
		(size_t)sqlite3_column_bytes(statement, 7), &out->content_heads,
		&out->content_head_count, arena) != 0) {
		sqlite3_reset(statement);
		return -1;
	}
	out->has_content = sqlite3_column_bytes(statement, 8) == HASH_BYTES;
	if (out->has_content)
		memcpy(out->blob.bytes, sqlite3_column_blob(statement, 8), HASH_BYTES);
	out->size = (uint64_t)sqlite3_column_int64(statement, 9);
	out->mode = (uint32_t)sqlite3_column_int(statement, 10);
	out->mtime_ns = sqlite3_column_int64(statement, 11);
	sqlite3_reset(statement);
	return 1;
}

static int
head_put(struct hearth *home, const struct head_node *node)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NODE_PUT);
	struct buffer place, content;
	int status;

	buffer_init(&place);
	buffer_init(&content);
	store_encode_op_ids(&home->store, node->place_heads, node->place_head_count, &place);
	store_encode_op_ids(&home->store, node->content_heads, node->content_head_count, &content);
	sqlite3_bind_blob(statement, 1, node->id.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, node->parent.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 3, node->name, (int)node->name_length, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 4, node->shown, (int)node->shown_length, SQLITE_STATIC);
	sqlite3_bind_int(statement, 5, (int)node->kind);
	sqlite3_bind_text(statement, 6, node->root, -1, SQLITE_STATIC);
	sqlite3_bind_int(statement, 7, node->live);
	sqlite3_bind_blob(statement, 8, place.length ? (void *)place.data : "", (int)place.length,
	    SQLITE_STATIC);
	sqlite3_bind_blob(statement, 9, content.length ? (void *)content.data : "",
	    (int)content.length, SQLITE_STATIC);
	if (node->has_content)
		sqlite3_bind_blob(statement, 10, node->blob.bytes, HASH_BYTES, SQLITE_STATIC);
	else
		sqlite3_bind_null(statement, 10);
	sqlite3_bind_int64(statement, 11, (int64_t)node->size);
	sqlite3_bind_int(statement, 12, (int)node->mode);
	sqlite3_bind_int64(statement, 13, node->mtime_ns);
	status = sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
	buffer_free(&place);
	buffer_free(&content);
	return status;
}

static bool
superseded(const struct op *op, struct op_id id)
{
	for (size_t i = 0; i < op->supersedes_count; i++)
		if (op_id_equal(op->supersedes[i], id))
			return true;
	return false;
}

/* heads := heads - what op supersedes + op (op is last in total order). */
static void
advance_heads(const struct op *op, struct op_id **heads, size_t *count, struct arena *arena)
{
	struct op_id *next = arena_alloc(arena, (*count + 1) * sizeof *next);
	size_t kept = 0;

	for (size_t i = 0; i < *count; i++)
		if (!superseded(op, (*heads)[i]))
			next[kept++] = (*heads)[i];
	next[kept++] = op->id;
	*heads = next;
	*count = kept;
}

static int
update_conflict(struct hearth *home, enum conflict_kind kind, struct node_id node,
    const struct op_id *heads, size_t count)
{
	sqlite3_stmt *statement;

	if (count < 2) {
		statement = store_statement(&home->store, SQL_CONFLICT_DELETE);
		sqlite3_bind_int(statement, 1, (int)kind);
		sqlite3_bind_blob(statement, 2, node.bytes, ID_BYTES, SQLITE_STATIC);
		return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
	}
	struct buffer ops;
	buffer_init(&ops);
	store_encode_op_ids(&home->store, heads, count, &ops);
	statement = store_statement(&home->store, SQL_CONFLICT_PUT);
	sqlite3_bind_int(statement, 1, (int)kind);
	sqlite3_bind_blob(statement, 2, node.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 3, ops.data, (int)ops.length, SQLITE_STATIC);
	int status = sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
	buffer_free(&ops);
	return status;
}

static void
apply_place(struct head_node *node, const struct op *op, struct arena *arena)
{
	const struct op_place *place = &op->u.place;

	node->parent = place->parent;
	node->name = node->shown = place->name;
	node->name_length = node->shown_length = place->name_length;
	node->root = place->root;
	node->live = !node_id_equal(place->parent, NODE_TRASH);
	advance_heads(op, &node->place_heads, &node->place_head_count, arena);
	if (node->live)
		return;
	/* A delete also supersedes the content heads its author saw. */
	struct op_id *kept = arena_alloc(arena, (node->content_head_count + 1) * sizeof *kept);
	size_t count = 0;
	for (size_t i = 0; i < node->content_head_count; i++)
		if (!superseded(op, node->content_heads[i]))
			kept[count++] = node->content_heads[i];
	node->content_heads = kept;
	node->content_head_count = count;
}

static void
apply_set(struct head_node *node, const struct op *op, struct arena *arena)
{
	const struct op_set *set = &op->u.set;

	node->has_content = true;
	node->blob = set->blob;
	node->size = set->size;
	node->mode = set->mode;
	node->mtime_ns = set->mtime_ns;
	advance_heads(op, &node->content_heads, &node->content_head_count, arena);
}

/* Applies ops[0..count), all about one node: one read and one write of
 * its row however many ops (a new file is a PLACE and a SET). */
static int
apply_node_ops(struct hearth *home, const struct op *ops, size_t count, struct arena *arena)
{
	struct node_id id = op_node(&ops[0]);
	struct head_node node;
	int found = head_get(home, id, &node, arena);

	if (found < 0)
		return -1;
	if (found == 0) {
		if (ops[0].kind != OP_PLACE)
			return -1;	/* a local SET always follows its node's PLACE */
		node.id = id;
		node.kind = ops[0].u.place.kind;
	}
	for (size_t i = 0; i < count; i++) {
		if (ops[i].kind == OP_PLACE)
			apply_place(&node, &ops[i], arena);
		else
			apply_set(&node, &ops[i], arena);
	}
	if (head_put(home, &node) != 0 ||
	    update_conflict(home, CONFLICT_MOVE, id, node.place_heads, node.place_head_count) != 0)
		return -1;
	return update_conflict(home, CONFLICT_CONTENT, id, node.content_heads,
	    node.content_head_count);
}

int
head_apply_local(struct hearth *home, const struct op *ops, size_t count,
    struct hearth_error *error)
{
	struct arena arena;
	int status = 0;
	size_t start = 0;

	arena_init(&arena, 16 * 1024);
	while (start < count && status == 0) {
		if (ops[start].kind == OP_COMMIT) {
			start++;
			continue;
		}
		size_t end = start + 1;
		while (end < count && ops[end].kind != OP_COMMIT &&
		    node_id_equal(op_node(&ops[end]), op_node(&ops[start])))
			end++;
		status = apply_node_ops(home, ops + start, end - start, &arena);
		start = end;
		/* A record of 100k files would otherwise keep every row here. */
		if (arena.allocated > (1u << 20)) {
			arena_free(&arena);
			arena_init(&arena, 16 * 1024);
		}
	}
	arena_free(&arena);
	if (status != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot update the head state: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

void
head_encode_seen(struct hearth *home, const struct op_id *place, size_t place_count,
    const struct op_id *content, size_t content_count, struct buffer *out)
{
	struct buffer part;

	buffer_init(&part);
	buffer_reset(out);
	store_encode_op_ids(&home->store, place, place_count, &part);
	buffer_append_bytes(out, part.data, part.length);
	store_encode_op_ids(&home->store, content, content_count, &part);
	buffer_append(out, part.data, part.length);
	buffer_free(&part);
}

int
head_decode_seen(struct hearth *home, const uint8_t *data, size_t length,
    struct op_id **place, size_t *place_count, struct op_id **content, size_t *content_count,
    struct arena *arena)
{
	struct reader reader;
	const uint8_t *place_bytes;
	size_t place_length;

	*place_count = *content_count = 0;
	*place = *content = NULL;
	if (length == 0)
		return 0;
	reader_init(&reader, data, length);
	if (!reader_bytes(&reader, &place_bytes, &place_length, length))
		return -1;
	if (store_decode_op_ids(&home->store, place_bytes, place_length, place, place_count,
		arena) != 0)
		return -1;
	return store_decode_op_ids(&home->store, data + reader.offset, length - reader.offset,
	    content, content_count, arena);
}
