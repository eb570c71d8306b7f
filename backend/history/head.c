/* Reading and writing node rows of the head state. A row says everything
 * about a node that the rules need without reading its ops: the PLACE in
 * effect and the last one outside the trash (as place references), the
 * heads of both registers, the content shown and where it is shown. */
#include "backend/history/head.h"

#include <stdlib.h>
#include <string.h>

#include "backend/disk/scan.h"
#include "model/array.h"
#include "model/buffer.h"
#include "model/path.h"

#define NODE_COLUMNS \
	"id, kind, parent, name, root, place_lamport, place_replica, place_counter, " \
	"visible_lamport, visible_replica, visible_counter, visible_parent, visible_name, " \
	"visible_root, place_heads, content_heads, content_replica, content_counter, blob, size, " \
	"mode, mtime, shown_parent, shown, shown_root, live"

static const char SQL_NODE_GET[] = "SELECT " NODE_COLUMNS " FROM node WHERE id = ?1";
static const char SQL_NODE_ALL[] = "SELECT " NODE_COLUMNS " FROM node";
static const char SQL_NODE_PUT[] =
    "INSERT OR REPLACE INTO node(" NODE_COLUMNS ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)";

static void
read_id(sqlite3_stmt *statement, int column, struct node_id *out)
{
	memset(out->bytes, 0, ID_BYTES);
	if (sqlite3_column_bytes(statement, column) == ID_BYTES)
		memcpy(out->bytes, sqlite3_column_blob(statement, column), ID_BYTES);
}

static const uint8_t *
read_bytes(sqlite3_stmt *statement, int column, size_t *length, struct arena *arena)
{
	*length = (size_t)sqlite3_column_bytes(statement, column);
	return arena_copy(arena, sqlite3_column_blob(statement, column), *length);
}

static int
read_place(struct hearth *home, sqlite3_stmt *statement, int first, int parent_column,
    struct state_place_ref *out, struct arena *arena)
{
	memset(out, 0, sizeof *out);
	if (sqlite3_column_type(statement, first) == SQLITE_NULL)
		return 0;
	out->valid = true;
	out->lamport = (uint64_t)sqlite3_column_int64(statement, first);
	if (store_replica_id(&home->store, sqlite3_column_int64(statement, first + 1),
		&out->op.replica) != 0)
		return -1;
	out->op.counter = (uint64_t)sqlite3_column_int64(statement, first + 2);
	read_id(statement, parent_column, &out->parent);
	out->name = read_bytes(statement, parent_column + 1, &out->name_length, arena);
	out->root = arena_strdup(arena, (const char *)sqlite3_column_text(statement, parent_column + 2));
	return 0;
}

static int
read_node(struct hearth *home, sqlite3_stmt *statement, struct head_node *out, struct arena *arena)
{
	memset(out, 0, sizeof *out);
	read_id(statement, 0, &out->id);
	out->kind = (enum node_kind)sqlite3_column_int(statement, 1);
	/* place: lamport 5..7, parent/name/root 2..4; visible: 8..10, 11..13 */
	if (read_place(home, statement, 5, 2, &out->place, arena) != 0 ||
	    read_place(home, statement, 8, 11, &out->visible, arena) != 0)
		return -1;
	if (store_decode_op_ids(&home->store, sqlite3_column_blob(statement, 14),
		(size_t)sqlite3_column_bytes(statement, 14), &out->place_heads,
		&out->place_head_count, arena) != 0 ||
	    store_decode_op_ids(&home->store, sqlite3_column_blob(statement, 15),
		(size_t)sqlite3_column_bytes(statement, 15), &out->content_heads,
		&out->content_head_count, arena) != 0)
		return -1;
	out->has_content = sqlite3_column_type(statement, 16) != SQLITE_NULL;
	if (out->has_content) {
		if (store_replica_id(&home->store, sqlite3_column_int64(statement, 16),
			&out->content_op.replica) != 0)
			return -1;
		out->content_op.counter = (uint64_t)sqlite3_column_int64(statement, 17);
		if (sqlite3_column_bytes(statement, 18) == HASH_BYTES)
			memcpy(out->blob.bytes, sqlite3_column_blob(statement, 18), HASH_BYTES);
	}
	out->size = (uint64_t)sqlite3_column_int64(statement, 19);
	out->mode = (uint32_t)sqlite3_column_int(statement, 20);
	out->mtime_ns = store_column_mtime(statement, 21);
	read_id(statement, 22, &out->shown_parent);
	out->shown = read_bytes(statement, 23, &out->shown_length, arena);
	out->shown_root = arena_strdup(arena, (const char *)sqlite3_column_text(statement, 24));
	out->live = sqlite3_column_int(statement, 25) != 0;
	return 0;
}

int
head_get(struct hearth *home, struct node_id id, struct head_node *out, struct arena *arena)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NODE_GET);
	int step, status;

	memset(out, 0, sizeof *out);
	sqlite3_bind_blob(statement, 1, id.bytes, ID_BYTES, SQLITE_STATIC);
	step = sqlite3_step(statement);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return -1;
	status = read_node(home, statement, out, arena);
	sqlite3_reset(statement);
	return status == 0 ? 1 : -1;
}

int
head_each(struct hearth *home, int (*visit)(void *context, const struct head_node *node),
    void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NODE_ALL);
	struct arena arena;
	int step, status = 0;

	arena_init(&arena, 16 * 1024);
	while (status == 0 && (step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct head_node node;
		status = read_node(home, statement, &node, &arena);
		if (status == 0)
			status = visit(context, &node);
		if (arena.allocated > (1u << 20)) {
			arena_free(&arena);
			arena_init(&arena, 16 * 1024);
		}
	}
	sqlite3_reset(statement);
	arena_free(&arena);
	return status;
}

static int
bind_place(struct hearth *home, sqlite3_stmt *statement, int first, int parent_column,
    const struct state_place_ref *place)
{
	if (!place->valid) {
		for (int column = 0; column < 3; column++) {
			sqlite3_bind_null(statement, first + column);
			sqlite3_bind_null(statement, parent_column + column);
		}
		return 0;
	}
	int64_t replica = store_replica_number(&home->store, place->op.replica, true);
	if (replica <= 0)
		return -1;
	sqlite3_bind_int64(statement, first, (int64_t)place->lamport);
	sqlite3_bind_int64(statement, first + 1, replica);
	sqlite3_bind_int64(statement, first + 2, (int64_t)place->op.counter);
	sqlite3_bind_blob(statement, parent_column, place->parent.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_blob(statement, parent_column + 1, place->name_length ? (const void *)place->name
	    : "", (int)place->name_length, SQLITE_TRANSIENT);
	sqlite3_bind_text(statement, parent_column + 2, place->root ? place->root : "", -1,
	    SQLITE_TRANSIENT);
	return 0;
}

static const char DROPPED_NONE[] = "dropped_none";

/* A node no longer live may leave a row head dropped (head_dropped_rows). */
static int
forget_dropped_none(struct hearth *home, struct node_id node)
{
	if (home->tracking_stopped_live) {
		home->stopped_live = array_grow(home->stopped_live, &home->stopped_live_capacity,
		    home->stopped_live_count + 1, sizeof *home->stopped_live);
		home->stopped_live[home->stopped_live_count++] = node;
	}
	return store_meta_delete(&home->store, DROPPED_NONE);
}

int
head_put(struct hearth *home, const struct head_node *node)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NODE_PUT);
	struct buffer place, content;
	int status = 0;

	buffer_init(&place);
	buffer_init(&content);
	store_encode_op_ids(&home->store, node->place_heads, node->place_head_count, &place);
	store_encode_op_ids(&home->store, node->content_heads, node->content_head_count, &content);
	sqlite3_bind_blob(statement, 1, node->id.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_int(statement, 2, (int)node->kind);
	if (bind_place(home, statement, 6, 3, &node->place) != 0 ||
	    bind_place(home, statement, 9, 12, &node->visible) != 0)
		status = -1;
	sqlite3_bind_blob(statement, 15, place.length ? (void *)place.data : "", (int)place.length,
	    SQLITE_STATIC);
	sqlite3_bind_blob(statement, 16, content.length ? (void *)content.data : "",
	    (int)content.length, SQLITE_STATIC);
	if (node->has_content) {
		sqlite3_bind_int64(statement, 17,
		    store_replica_number(&home->store, node->content_op.replica, true));
		sqlite3_bind_int64(statement, 18, (int64_t)node->content_op.counter);
		sqlite3_bind_blob(statement, 19, node->blob.bytes, HASH_BYTES, SQLITE_STATIC);
	} else {
		sqlite3_bind_null(statement, 17);
		sqlite3_bind_null(statement, 18);
		sqlite3_bind_null(statement, 19);
	}
	sqlite3_bind_int64(statement, 20, (int64_t)node->size);
	sqlite3_bind_int(statement, 21, (int)node->mode);
	store_bind_mtime(statement, 22, node->mtime_ns);
	sqlite3_bind_blob(statement, 23, node->shown_parent.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 24, node->shown_length ? (const void *)node->shown : "",
	    (int)node->shown_length, SQLITE_STATIC);
	sqlite3_bind_text(statement, 25, node->shown_root ? node->shown_root : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(statement, 26, node->live);
	if (status == 0 && sqlite3_step(statement) != SQLITE_DONE)
		status = -1;
	sqlite3_reset(statement);
	if (status == 0 && !node->live)
		status = forget_dropped_none(home, node->id);
	buffer_free(&place);
	buffer_free(&content);
	return status;
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

/* One step up the head state's shown tree, for path_from_parents. */
static const char SQL_SHOWN_PLACE[] = "SELECT shown_parent, shown FROM node WHERE id = ?1";

static bool
head_step(void *context, struct node_id node, struct node_id *parent, const uint8_t **name,
    size_t *name_length)
{
	struct hearth *home = context;
	sqlite3_stmt *statement = store_statement(&home->store, SQL_SHOWN_PLACE);

	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return false;
	memcpy(parent->bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
	*name = sqlite3_column_blob(statement, 1);
	*name_length = (size_t)sqlite3_column_bytes(statement, 1);
	return true;
}

int
head_path(struct hearth *home, struct node_id id, struct buffer *out)
{
	enum path_end end = path_from_parents(id, head_step, home, out);

	store_statement(&home->store, SQL_SHOWN_PLACE);	/* resets it: no read left open */
	if (end == PATH_IN_TRASH) {
		struct buffer inner;
		buffer_init(&inner);
		buffer_append(&inner, "(deleted)", 9);
		if (out->length > 0)
			buffer_append_byte(&inner, '/');
		buffer_append(&inner, out->data, out->length);
		buffer_reset(out);
		buffer_append(out, inner.data, inner.length);
		buffer_string(out);
		buffer_free(&inner);
	}
	return end == PATH_BROKEN ? -1 : 0;
}

/* As checkout's plan decides (checkout.c make_plan): a node differs when it
 * is gone from head, changed kind, folder or name, or (not a folder)
 * content, a file's permission bits, or its root when that root is one of
 * this Home's (a root only other replicas have is placed here by rule, so
 * the index's root is as good as any); an index row with restore 2 is not
 * on disk. The statement names the local roots, so it is made per call. */
_Static_assert(NODE_FILE == 1 && NODE_DIR == 2, "the statement spells the kinds as numbers");

uint64_t
head_pending_changes(struct hearth *home)
{
	struct buffer roots;
	uint64_t count = 0;

	buffer_init(&roots);
	for (size_t i = 0; i < home->root_count; i++) {
		char *quoted = sqlite3_mprintf("%s%Q", i ? ", " : "", home->roots[i].name);
		buffer_append(&roots, quoted, strlen(quoted));
		sqlite3_free(quoted);
	}
	char *sql = sqlite3_mprintf(
	    "SELECT (SELECT count(*) FROM entry e LEFT JOIN node n ON n.id = e.node"
	    "  WHERE e.restore != 2 AND (n.id IS NULL OR n.live = 0 OR n.kind != e.kind"
	    "   OR n.shown_parent != e.parent OR n.shown != e.name"
	    "   OR (e.kind != 2 AND ((n.shown_root != e.root AND n.shown_root IN (%s))"
	    "    OR n.blob IS NOT e.blob OR (e.kind = 1 AND (n.mode & 511) != (e.mode & 511))))))"
	    " + (SELECT count(*) FROM node n WHERE n.live = 1 AND NOT EXISTS"
	    "  (SELECT 1 FROM entry e WHERE e.node = n.id AND e.restore != 2))",
	    buffer_string(&roots));
	/* Prepared here, not through store_statement: that cache keys on the
	 * text's address, and this text is made per call (status runs it once). */
	sqlite3_stmt *statement = NULL;
	if (sqlite3_prepare_v2(home->store.db, sql, -1, &statement, NULL) == SQLITE_OK &&
	    sqlite3_step(statement) == SQLITE_ROW)
		count = (uint64_t)sqlite3_column_int64(statement, 0);
	sqlite3_finalize(statement);
	sqlite3_free(sql);
	buffer_free(&roots);
	return count;
}

/* ---- single facts of the node table ----------------------------------------------- */

static const char SQL_KIND[] = "SELECT kind FROM node WHERE id = ?1";
static const char SQL_PLACED_PARENT[] = "SELECT parent FROM node WHERE id = ?1";
static const char SQL_BLOB[] = "SELECT blob FROM node WHERE id = ?1";
static const char SQL_PLACED_CHILD[] =
    "SELECT 1 FROM node WHERE parent = ?1 AND id != ?2 LIMIT 1";
static const char SQL_NAME_TAKEN[] =
    "SELECT 1 FROM node WHERE shown_parent = ?1 AND shown = ?2 AND live = 1 AND id != ?3 LIMIT 1";
static const char SQL_SHOWN_WHERE_PLACED[] =
    "SELECT 1 FROM node WHERE id = ?1 AND live = 1 AND parent = shown_parent";
static const char SQL_SHOWN_AT[] =
    "SELECT id, kind FROM node WHERE shown_parent = ?1 AND shown = ?2 AND live = 1 LIMIT 1";
static const char SQL_SHOWN_CHILDREN[] = "SELECT id FROM node WHERE shown_parent = ?1 AND live = 1";
static const char SQL_SET_SHOWN[] =
    "UPDATE node SET shown_parent = ?2, shown = ?3, shown_root = ?4, live = ?5 WHERE id = ?1";
static const char SQL_COUNT[] = "SELECT count(*) FROM node";
/* A join: the node row, read against its entry row. */
static const char SQL_SHOWN_APART[] =
    "SELECT 1 FROM node n JOIN entry e ON e.node = n.id WHERE n.id = ?1 AND n.live = 1 "
    "AND e.restore = 0 AND (e.parent != n.shown_parent OR e.name != n.shown "
    "OR e.root != n.shown_root)";

/* The statement sql with node id bound first. */
static sqlite3_stmt *
by_id(struct hearth *home, const char *sql, struct node_id id)
{
	sqlite3_stmt *statement = store_statement(&home->store, sql);
	sqlite3_bind_blob(statement, 1, id.bytes, ID_BYTES, SQLITE_TRANSIENT);
	return statement;
}

/* Steps a one-row statement and resets it: whether it had the row. */
static bool
has_row(sqlite3_stmt *statement)
{
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return found;
}

static void
bind_name(sqlite3_stmt *statement, int index, const void *name, size_t length)
{
	sqlite3_bind_blob(statement, index, length ? name : "", (int)length, SQLITE_TRANSIENT);
}

enum node_kind
head_kind(struct hearth *home, struct node_id id)
{
	sqlite3_stmt *statement = by_id(home, SQL_KIND, id);
	enum node_kind kind = sqlite3_step(statement) == SQLITE_ROW
	    ? (enum node_kind)sqlite3_column_int(statement, 0) : 0;
	sqlite3_reset(statement);
	return kind;
}

struct node_id
head_placed_parent(struct hearth *home, struct node_id id)
{
	sqlite3_stmt *statement = by_id(home, SQL_PLACED_PARENT, id);
	struct node_id parent = NODE_ROOT;
	if (sqlite3_step(statement) == SQLITE_ROW)
		read_id(statement, 0, &parent);
	sqlite3_reset(statement);
	return parent;
}

bool
head_blob(struct hearth *home, struct node_id id, struct hash *out)
{
	sqlite3_stmt *statement = by_id(home, SQL_BLOB, id);
	bool found = sqlite3_step(statement) == SQLITE_ROW &&
	    sqlite3_column_bytes(statement, 0) == HASH_BYTES;
	if (found)
		memcpy(out->bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
	sqlite3_reset(statement);
	return found;
}

bool
head_has_placed_child(struct hearth *home, struct node_id folder, struct node_id except)
{
	sqlite3_stmt *statement = by_id(home, SQL_PLACED_CHILD, folder);
	sqlite3_bind_blob(statement, 2, except.bytes, ID_BYTES, SQLITE_TRANSIENT);
	return has_row(statement);
}

bool
head_name_taken(struct hearth *home, struct node_id folder, const void *name, size_t length,
    struct node_id except)
{
	sqlite3_stmt *statement = by_id(home, SQL_NAME_TAKEN, folder);
	bind_name(statement, 2, name, length);
	sqlite3_bind_blob(statement, 3, except.bytes, ID_BYTES, SQLITE_TRANSIENT);
	return has_row(statement);
}

bool
head_shown_where_placed(struct hearth *home, struct node_id id)
{
	return has_row(by_id(home, SQL_SHOWN_WHERE_PLACED, id));
}

int
head_shown_at(struct hearth *home, struct node_id folder, const void *name, size_t length,
    struct node_id *id, enum node_kind *kind)
{
	sqlite3_stmt *statement = by_id(home, SQL_SHOWN_AT, folder);
	bind_name(statement, 2, name, length);
	int found = sqlite3_step(statement) == SQLITE_ROW &&
	    sqlite3_column_bytes(statement, 0) == ID_BYTES;
	if (found) {
		read_id(statement, 0, id);
		*kind = (enum node_kind)sqlite3_column_int(statement, 1);
	}
	sqlite3_reset(statement);
	return found;
}

void
head_shown_children(struct hearth *home, struct node_id folder, struct node_id **ids,
    size_t *count, size_t *capacity)
{
	sqlite3_stmt *statement = by_id(home, SQL_SHOWN_CHILDREN, folder);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		*ids = array_grow(*ids, capacity, *count + 1, sizeof **ids);
		read_id(statement, 0, &(*ids)[(*count)++]);
	}
	sqlite3_reset(statement);
}

int
head_set_shown(struct hearth *home, struct node_id id, struct node_id shown_parent,
    const void *name, size_t length, const char *root, bool live)
{
	sqlite3_stmt *statement = by_id(home, SQL_SET_SHOWN, id);
	sqlite3_bind_blob(statement, 2, shown_parent.bytes, ID_BYTES, SQLITE_TRANSIENT);
	bind_name(statement, 3, name, length);
	sqlite3_bind_text(statement, 4, root != NULL ? root : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(statement, 5, live);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	return live ? 0 : forget_dropped_none(home, id);
}

bool
head_shown_apart_from_tree(struct hearth *home, struct node_id id)
{
	return has_row(by_id(home, SQL_SHOWN_APART, id));
}

uint64_t
head_count(struct hearth *home)
{
	return store_scalar(&home->store, SQL_COUNT);
}

/* Index rows on disk whose node head dropped: a folder a peer deleted that
 * this replica kept only with what it has since removed (docs/DESIGN.md §7,
 * "The tree is the version"). The tree still holds them, so they are what
 * the tree adds to head: status lists them, record keeps them.
 *
 * Every status and record asks, and there are seldom any, so the question
 * is a merge of two scans in id order, the rows on disk (entry's own
 * order) against the live nodes (node's), each page read once: the join
 * of SQL_DROPPED over the whole index sought every row's node in the node
 * table (100k searches, a tenth of a status of 100k files, and in a record
 * a fresh page of its cache for each). The rows the merge finds are then
 * read, each checked again by SQL_DROPPED itself. */
#define SQL_DROPPED \
    "SELECT e.node, e.parent, e.name, e.kind, e.root, e.seen FROM entry e " \
    "LEFT JOIN node n ON n.id = e.node WHERE e.restore = 0 AND (n.id IS NULL OR n.live = 0)"
static const char SQL_DROPPED_ROW[] = SQL_DROPPED " AND e.node = ?1";
static const char SQL_LIVE_IDS[] = "SELECT id FROM node WHERE live = 1 ORDER BY id";

struct dropped_merge {
	sqlite3_stmt *live;	/* SQL_LIVE_IDS, on the first id not below the row's */
	int step;
	struct arena *arena;
	const uint8_t **nodes;	/* the rows' nodes found dropped */
	size_t *lengths, count, capacity, length_capacity;
};

static int
merge_row(void *context, const void *node, size_t length)
{
	struct dropped_merge *merge = context;

	/* bytes_compare is SQLite's order of blobs (common bytes, then the
	 * shorter first), the order both scans come in. */
	while (merge->step == SQLITE_ROW) {
		int order = bytes_compare(sqlite3_column_blob(merge->live, 0),
		    (size_t)sqlite3_column_bytes(merge->live, 0), node, length);
		if (order == 0)
			return 0;	/* live */
		if (order > 0)
			break;
		merge->step = sqlite3_step(merge->live);
	}
	if (merge->step != SQLITE_ROW && merge->step != SQLITE_DONE)
		return -1;
	merge->nodes = array_grow(merge->nodes, &merge->capacity, merge->count + 1,
	    sizeof *merge->nodes);
	merge->lengths = array_grow(merge->lengths, &merge->length_capacity, merge->count + 1,
	    sizeof *merge->lengths);
	merge->nodes[merge->count] = arena_copy(merge->arena, node, length);
	merge->lengths[merge->count++] = length;
	return 0;
}

/* The order the join gave them in (entry_listing's): parent, name, kind, root. */
static int
compare_dropped(const void *a, const void *b)
{
	const struct head_dropped *x = a, *y = b;
	int order = memcmp(x->parent.bytes, y->parent.bytes, ID_BYTES);

	if (order == 0)
		order = bytes_compare(x->name, x->name_length, y->name, y->name_length);
	if (order == 0)
		order = x->kind < y->kind ? -1 : x->kind > y->kind;
	if (order == 0)
		order = strcmp(x->root, y->root);
	return order;
}

/* The rows SQL_DROPPED_ROW gives for each node, in entry_listing's order. */
static int
read_dropped(struct hearth *home, struct arena *arena, const uint8_t *const *nodes,
    const size_t *lengths, size_t node_count, struct head_dropped **rows, size_t *count)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_DROPPED_ROW);
	size_t capacity = 0;
	int status = 0;

	*rows = NULL;
	*count = 0;
	for (size_t i = 0; status == 0 && i < node_count; i++) {
		sqlite3_bind_blob(statement, 1, nodes[i], (int)lengths[i], SQLITE_STATIC);
		int step = sqlite3_step(statement);
		if (step == SQLITE_ROW) {
			*rows = array_grow(*rows, &capacity, *count + 1, sizeof **rows);
			struct head_dropped *row = &(*rows)[(*count)++];
			read_id(statement, 0, &row->node);
			read_id(statement, 1, &row->parent);
			row->name_length = (size_t)sqlite3_column_bytes(statement, 2);
			row->name = arena_copy(arena, sqlite3_column_blob(statement, 2),
			    row->name_length);
			row->kind = (enum node_kind)sqlite3_column_int(statement, 3);
			const unsigned char *root = sqlite3_column_text(statement, 4);
			row->root = arena_strdup(arena, root ? (const char *)root : "");
			row->seen_length = (size_t)sqlite3_column_bytes(statement, 5);
			row->seen = row->seen_length == 0 ? NULL
			    : arena_copy(arena, sqlite3_column_blob(statement, 5), row->seen_length);
		} else if (step != SQLITE_DONE) {
			status = -1;
		}
		sqlite3_reset(statement);
	}
	if (*count > 1)
		qsort(*rows, *count, sizeof **rows, compare_dropped);
	return status;
}

int
head_dropped_rows(struct hearth *home, struct arena *arena, struct head_dropped **rows,
    size_t *count)
{
	struct dropped_merge merge = { .live = store_statement(&home->store, SQL_LIVE_IDS),
		.arena = arena };

	*rows = NULL;
	*count = 0;
	merge.step = sqlite3_step(merge.live);
	int status = scan_entry_each_on_disk(home, merge_row, &merge);
	sqlite3_reset(merge.live);
	if (status == 0)
		status = read_dropped(home, arena, merge.nodes, merge.lengths, merge.count, rows,
		    count);
	free(merge.nodes);
	free(merge.lengths);
	return status == 0 ? 0 : -1;
}

void
head_track_dropped(struct hearth *home)
{
	home->tracking_stopped_live = true;
	home->stopped_live_count = 0;
}

void
head_untrack_dropped(struct hearth *home)
{
	home->tracking_stopped_live = false;
	home->stopped_live_count = 0;
}

int
head_dropped_rows_tracked(struct hearth *home, struct arena *arena,
    struct head_dropped **rows, size_t *count)
{
	size_t nodes = home->stopped_live_count;
	const uint8_t **ids = array_alloc(nodes, sizeof *ids);
	size_t *lengths = array_alloc(nodes, sizeof *lengths);

	for (size_t i = 0; i < nodes; i++) {
		ids[i] = home->stopped_live[i].bytes;
		lengths[i] = ID_BYTES;
	}
	int status = read_dropped(home, arena, ids, lengths, nodes, rows, count);
	free(ids);
	free(lengths);
	return status == 0 ? 0 : -1;
}

void
head_dropped_list(struct hearth *home, const struct head_dropped *rows, size_t count,
    struct hearth_change_list *list)
{
	if (count == 0)
		return;
	if (list->storage == NULL)
		list->storage = storage_new();
	struct hearth_change *items = storage_alloc(list->storage,
	    (list->count + count) * sizeof *items);
	if (list->count > 0)
		memcpy(items, list->items, list->count * sizeof *items);
	list->items = items;
	struct buffer path;
	buffer_init(&path);
	for (size_t i = 0; i < count; i++) {
		buffer_reset(&path);
		if (!scan_index_path(home, rows[i].node, &path))
			continue;
		struct hearth_change *item = &items[list->count++];
		memset(item, 0, sizeof *item);
		item->kind = HEARTH_ADDED;
		item->entry_kind = (enum hearth_entry_kind)rows[i].kind;
		item->path = storage_strdup(list->storage, buffer_string(&path));
		item->root = storage_strdup(list->storage, rows[i].root);
	}
	buffer_free(&path);
}

static const char SQL_LIVE[] =
    "SELECT id, shown_parent, shown, kind, shown_root, blob, size, mode, mtime, place_heads, "
    "content_heads FROM node WHERE live = 1 ORDER BY id";

int
head_each_live(struct hearth *home,
    int (*visit)(void *context, const struct head_shown_row *row), void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_LIVE);
	int status = 0, step;

	while (status == 0 && (step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct head_shown_row row = {
			.shown = sqlite3_column_blob(statement, 2),
			.shown_length = (size_t)sqlite3_column_bytes(statement, 2),
			.kind = (enum node_kind)sqlite3_column_int(statement, 3),
			.root = (const char *)sqlite3_column_text(statement, 4),
			.size = (uint64_t)sqlite3_column_int64(statement, 6),
			.mode = (uint32_t)sqlite3_column_int(statement, 7),
			.mtime_ns = store_column_mtime(statement, 8),
			.place_heads = sqlite3_column_blob(statement, 9),
			.place_heads_length = (size_t)sqlite3_column_bytes(statement, 9),
			.content_heads = sqlite3_column_blob(statement, 10),
			.content_heads_length = (size_t)sqlite3_column_bytes(statement, 10),
		};
		struct hash blob;
		read_id(statement, 0, &row.id);
		read_id(statement, 1, &row.shown_parent);
		if (sqlite3_column_bytes(statement, 5) == HASH_BYTES) {
			memcpy(blob.bytes, sqlite3_column_blob(statement, 5), HASH_BYTES);
			row.blob = &blob;
		}
		status = visit(context, &row);
	}
	sqlite3_reset(statement);
	return status != 0 ? status : step == SQLITE_DONE ? 0 : -1;
}

static const char SQL_SHOWN_PAGE[] =
    "SELECT shown, kind, shown_root, size, mtime, mode, id FROM node "
    "WHERE shown_parent = ?1 AND live = 1 AND shown > ?2 ORDER BY shown LIMIT ?3";

int
head_shown_page(struct hearth *home, struct node_id folder, const char *after, size_t limit,
    int (*visit)(void *context, const struct head_shown_row *row), void *context)
{
	sqlite3_stmt *statement = by_id(home, SQL_SHOWN_PAGE, folder);
	int status = 0, step;

	/* Always a range on the name (scan_index_page says why). */
	sqlite3_bind_blob(statement, 2, after, (int)strlen(after), SQLITE_STATIC);
	sqlite3_bind_int64(statement, 3, (int64_t)limit);
	while (status == 0 && (step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct head_shown_row row = {
			.shown = sqlite3_column_blob(statement, 0),
			.shown_length = (size_t)sqlite3_column_bytes(statement, 0),
			.kind = (enum node_kind)sqlite3_column_int(statement, 1),
			.root = (const char *)sqlite3_column_text(statement, 2),
			.size = (uint64_t)sqlite3_column_int64(statement, 3),
			.mtime_ns = store_column_mtime(statement, 4),
			.mode = (uint32_t)sqlite3_column_int(statement, 5),
		};
		read_id(statement, 6, &row.id);
		status = visit(context, &row);
	}
	sqlite3_reset(statement);
	return status != 0 ? status : step == SQLITE_DONE ? 0 : -1;
}

bool
head_dropped_known_none(struct hearth *home)
{
	int64_t none = 0;
	return store_meta_get_int(&home->store, DROPPED_NONE, &none) == 0 && none == 1;
}

int
head_dropped_unknown(struct hearth *home)
{
	return store_meta_delete(&home->store, DROPPED_NONE);
}

int
head_dropped_none(struct hearth *home)
{
	/* Every record at head says so: a page written only when it changes. */
	if (head_dropped_known_none(home))
		return 0;
	return store_meta_set_int(&home->store, DROPPED_NONE, 1);
}
