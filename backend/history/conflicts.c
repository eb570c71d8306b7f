/* Conflicts (docs/DESIGN.md §4): listing them with each side explained (who, when,
 * what it would do), and settling them with new ops recorded at once: a
 * SET or PLACE that supersedes every head it settles, written to the
 * working tree for those paths only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/author.h"
#include "backend/history/automerge.h"
#include "backend/history/blob.h"
#include "backend/history/checkout.h"
#include "backend/history/conflicts.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/disk/scan.h"
#include "backend/history/tree.h"
#include "model/ignore.h"
#include "model/state.h"
#include "model/array.h"

uint64_t
conflicts_count(struct hearth *home)
{
	return store_scalar(&home->store, "SELECT count(*) FROM conflict");
}

static const char SQL_LISTED[] = "SELECT 1 FROM conflict WHERE node = ?1 AND kind = ?2 LIMIT 1";
static const char SQL_PUT[] =
    "INSERT OR REPLACE INTO conflict(kind, node, op_replica, op_counter, phase, ops) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6)";
static const char SQL_CLEAR_HEADS[] =
    "DELETE FROM conflict WHERE node = ?1 AND phase = 1 AND kind IN (1, 2, 3)";
static const char SQL_CLEAR_FINISHED[] = "DELETE FROM conflict WHERE phase = 2";
static const char SQL_ANY_FINISHED[] = "SELECT 1 FROM conflict WHERE phase = 2 LIMIT 1";
static const char SQL_NODES[] = "SELECT node FROM conflict WHERE kind = ?1";
/* A join: the conflict rows, read against the node and entry tables. */
static const char SQL_NODES_IN_PLACE[] =
    "SELECT c.node FROM conflict c JOIN node n ON n.id = c.node "
    "JOIN entry e ON e.node = c.node WHERE c.kind = ?1 AND e.restore = 0 "
    "AND e.parent = n.shown_parent AND e.name = n.shown AND e.root = n.shown_root";
static const char SQL_EACH[] = "SELECT kind, node, ops FROM conflict";
_Static_assert(CONFLICT_CONTENT == 1 && CONFLICT_MOVE == 2 && CONFLICT_CYCLE == 3,
    "SQL_CLEAR_HEADS spells the kinds of placement and heads as numbers");

bool
conflicts_listed(struct hearth *home, struct node_id node, enum conflict_kind kind)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_LISTED);
	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int(statement, 2, (int)kind);
	bool listed = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return listed;
}

int
conflicts_put(struct hearth *home, enum conflict_kind kind, struct node_id node,
    const struct op_id *ops, size_t count, int phase)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_PUT);
	struct buffer encoded;

	buffer_init(&encoded);
	store_encode_op_ids(&home->store, ops, count, &encoded);
	sqlite3_bind_int(statement, 1, (int)kind);
	sqlite3_bind_blob(statement, 2, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int64(statement, 3, store_replica_number(&home->store, ops[0].replica, true));
	sqlite3_bind_int64(statement, 4, (int64_t)ops[0].counter);
	sqlite3_bind_int(statement, 5, phase);
	sqlite3_bind_blob(statement, 6, encoded.data, (int)encoded.length, SQLITE_TRANSIENT);
	int status = sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
	buffer_free(&encoded);
	return status;
}

int
conflicts_clear_heads(struct hearth *home, struct node_id node)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_CLEAR_HEADS);
	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
conflicts_clear_finished(struct hearth *home)
{
	return sqlite3_step(store_statement(&home->store, SQL_CLEAR_FINISHED)) == SQLITE_DONE ? 0 : -1;
}

bool
conflicts_any_finished(struct hearth *home)
{
	return store_scalar(&home->store, SQL_ANY_FINISHED) != 0;
}

int
conflicts_nodes(struct hearth *home, enum conflict_kind kind, bool in_place,
    struct node_id **ids, size_t *count, size_t *capacity)
{
	sqlite3_stmt *statement = store_statement(&home->store,
	    in_place ? SQL_NODES_IN_PLACE : SQL_NODES);
	int step;

	sqlite3_bind_int(statement, 1, (int)kind);
	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(statement, 0) != ID_BYTES)
			continue;
		*ids = array_grow(*ids, capacity, *count + 1, sizeof **ids);
		memcpy((*ids)[(*count)++].bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
	}
	sqlite3_reset(statement);
	return step == SQLITE_DONE ? 0 : -1;
}

int
conflicts_each(struct hearth *home, int (*visit)(void *context, enum conflict_kind kind,
    struct node_id node, const void *ops, size_t length), void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_EACH);
	int status = 0;

	while (status == 0 && sqlite3_step(statement) == SQLITE_ROW) {
		struct node_id node;
		if (sqlite3_column_bytes(statement, 1) != ID_BYTES)
			continue;
		memcpy(node.bytes, sqlite3_column_blob(statement, 1), ID_BYTES);
		status = visit(context, (enum conflict_kind)sqlite3_column_int(statement, 0), node,
		    sqlite3_column_blob(statement, 2), (size_t)sqlite3_column_bytes(statement, 2));
	}
	sqlite3_reset(statement);
	return status;
}

static const char KIND_LETTERS[] = "?cmyerni";

/* ---- which are new ------------------------------------------------------------- */

const char *
hearth_conflict_kind_name(enum hearth_conflict_kind kind)
{
	return conflict_kind_name((enum conflict_kind)kind);
}

#define CONFLICT_KEY_BYTES (1 + ID_BYTES)

static const char SQL_CONFLICT_KEYS[] =
    "SELECT DISTINCT kind, node FROM conflict ORDER BY kind, node";

static bool
conflict_key(sqlite3_stmt *statement, uint8_t key[CONFLICT_KEY_BYTES])
{
	if (sqlite3_column_bytes(statement, 1) != ID_BYTES)
		return false;
	key[0] = (uint8_t)sqlite3_column_int(statement, 0);
	memcpy(key + 1, sqlite3_column_blob(statement, 1), ID_BYTES);
	return true;
}

void
head_conflict_keys(struct hearth *home, struct buffer *out)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_CONFLICT_KEYS);
	uint8_t key[CONFLICT_KEY_BYTES];

	buffer_reset(out);
	while (sqlite3_step(statement) == SQLITE_ROW)
		if (conflict_key(statement, key))
			buffer_append(out, key, sizeof key);
	sqlite3_reset(statement);
}

/* Both lists are in key order (a kind below 256 sorts as its byte, a node
 * as its bytes), so one walk of each tells the new ones. */
uint64_t
head_conflicts_new(struct hearth *home, const struct buffer *before, uint64_t *counts,
    size_t kinds)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_CONFLICT_KEYS);
	uint8_t key[CONFLICT_KEY_BYTES];
	size_t at = 0, count = before->length / CONFLICT_KEY_BYTES;
	uint64_t fresh = 0;

	memset(counts, 0, kinds * sizeof *counts);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		if (!conflict_key(statement, key))
			continue;
		int order = 1;
		while (at < count &&
		    (order = memcmp(before->data + at * CONFLICT_KEY_BYTES, key, sizeof key)) < 0)
			at++;
		if (at < count && order == 0)
			continue;
		fresh++;
		if (key[0] < kinds)
			counts[key[0]]++;
	}
	sqlite3_reset(statement);
	return fresh;
}

/* ---- listing -------------------------------------------------------------------- */

struct lister {
	struct hearth *home;
	struct hearth_conflict_list *out;
	size_t capacity;
	struct arena scratch;
	struct buffer path;
};

static void
side_version(struct lister *lister, struct op_id id, struct hearth_conflict_side *side)
{
	char author[4096];

	side->author = "";
	if (history_author_of_op(lister->home, id, author, sizeof author, &side->time) == 1)
		side->author = storage_strdup(lister->out->storage, author);
}

/* What a side that places a node holds: where head shows that node now and
 * its content. A name clash's sides are files of their own (n.txt and
 * n~01a232e5.txt), a revived folder's are what was put in it. */
static void
describe_placed(struct lister *lister, const struct head_node *node, struct node_id placed,
    struct hearth_conflict_side *side)
{
	struct head_node other;

	if (!node_id_equal(placed, node->id)) {
		if (head_get(lister->home, placed, &other, &lister->scratch) != 1)
			return;
		node = &other;
		head_path(lister->home, node->id, &lister->path);
		side->shown_path = storage_strdup(lister->out->storage, buffer_string(&lister->path));
	}
	side->has_content = node->has_content;
	if (node->has_content) {
		side->size = node->size;
		hash_hex(&node->blob, side->hash);
	}
}

/* "a/b/name" for a place: its folder's shown path and the op's name. */
static const char *
place_path(struct lister *lister, const struct op_place *place)
{
	if (node_id_equal(place->parent, NODE_TRASH))
		return storage_strdup(lister->out->storage, "(deleted)");
	head_path(lister->home, place->parent, &lister->path);
	if (lister->path.length > 0)
		buffer_append_byte(&lister->path, '/');
	buffer_append(&lister->path, place->name, place->name_length);
	return storage_strdup(lister->out->storage, buffer_string(&lister->path));
}

static void
describe_side(struct lister *lister, const struct head_node *node, struct op_id id,
    enum conflict_kind kind, struct hearth_conflict_side *side)
{
	struct op op;
	struct hearth_error failure;

	memset(side, 0, sizeof *side);
	replica_id_hex(id.replica, side->replica);
	side->counter = id.counter;
	side->mine = home_op_is_mine(lister->home, id);
	side->what = "?";
	head_path(lister->home, node->id, &lister->path);
	side->shown_path = storage_strdup(lister->out->storage, buffer_string(&lister->path));
	side->path = "";
	side_version(lister, id, side);
	if (store_get_op(&lister->home->store, id, &op, &lister->scratch, &failure) != 1)
		return;
	if (op.kind == OP_SET) {
		side->what = "edit";
		side->has_content = true;
		side->size = op.u.set.size;
		hash_hex(&op.u.set.blob, side->hash);
		side->shown = node->has_content && op_id_equal(node->content_op, id);
		side->path = side->shown_path;
		return;
	}
	side->path = place_path(lister, &op.u.place);
	side->shown = op_id_equal(node->place.op, id);
	if (node_id_equal(op.u.place.parent, NODE_TRASH)) {
		side->what = "delete";
	} else {
		describe_placed(lister, node, op.u.place.node, side);
		side->what = kind == CONFLICT_NAME ? "name" : "move";
	}
	/* A revive shows neither the delete nor itself; a name clash is
	 * described by add_conflict (the least naming op keeps the name). */
	if (kind == CONFLICT_EDIT_REVIVED || kind == CONFLICT_REVIVED || kind == CONFLICT_NAME)
		side->shown = false;
}

/* A revived folder's other sides: what each live node in it holds it up
 * with (the op that put it there, or the edit that revived it too). */
static void
add_revived_sides(struct lister *lister, const struct head_node *folder,
    struct hearth_conflict *conflict)
{
	struct node_id *children = NULL;
	size_t count = 0, capacity = 0;

	head_shown_children(lister->home, folder->id, &children, &count, &capacity);
	struct hearth_conflict_side *sides = storage_alloc(lister->out->storage,
	    (conflict->side_count + count + 1) * sizeof *sides);
	memcpy(sides, conflict->sides, conflict->side_count * sizeof *sides);
	conflict->sides = sides;
	for (size_t i = 0; i < count; i++) {
		struct head_node child;
		if (head_get(lister->home, children[i], &child, &lister->scratch) != 1)
			continue;
		if (!node_id_equal(child.place.parent, NODE_TRASH)) {
			describe_side(lister, &child, child.place.op, CONFLICT_REVIVED,
			    &sides[conflict->side_count]);
			sides[conflict->side_count++].what = "add";
		} else if (child.has_content)
			describe_side(lister, &child, child.content_op, CONFLICT_REVIVED,
			    &sides[conflict->side_count++]);
	}
	free(children);
}

/* A skipped folder move's other side: the move that put the place it
 * asked for inside the folder (the step under the folder on the way up
 * from that place), as head shows it. */
static void
add_cycle_side(struct lister *lister, const struct head_node *folder,
    struct hearth_conflict *conflict)
{
	struct op op;
	struct hearth_error failure;
	struct head_node step;

	if (conflict->side_count != 1)
		return;
	struct op_id skipped;
	hex_decode(conflict->sides[0].replica, skipped.replica.bytes, ID_BYTES);
	skipped.counter = conflict->sides[0].counter;
	if (store_get_op(&lister->home->store, skipped, &op, &lister->scratch, &failure) != 1 ||
	    op.kind != OP_PLACE)
		return;
	struct node_id at = op.u.place.parent;
	for (size_t depth = 0; depth < 4096; depth++) {
		if (head_get(lister->home, at, &step, &lister->scratch) != 1 ||
		    node_id_equal(step.place.parent, NODE_TRASH) || !step.place.valid)
			return;
		if (node_id_equal(step.place.parent, folder->id))
			break;
		at = step.place.parent;
	}
	if (!node_id_equal(step.place.parent, folder->id))
		return;
	struct hearth_conflict_side *sides = storage_alloc(lister->out->storage, 2 * sizeof *sides);
	sides[0] = conflict->sides[0];
	describe_side(lister, &step, step.place.op, CONFLICT_CYCLE, &sides[1]);
	conflict->sides = sides;
	conflict->side_count = 2;
}

static int
add_conflict(struct lister *lister, enum conflict_kind kind, struct node_id id,
    const struct op_id *ops, size_t op_count)
{
	struct hearth_conflict_list *out = lister->out;
	struct head_node node;
	char hex[ID_HEX];

	if (head_get(lister->home, id, &node, &lister->scratch) != 1)
		return 0;
	if (out->count == lister->capacity) {
		lister->capacity = lister->capacity ? lister->capacity * 2 : 16;
		struct hearth_conflict *grown = storage_alloc(out->storage,
		    lister->capacity * sizeof *grown);
		if (out->count > 0)
			memcpy(grown, out->items, out->count * sizeof *grown);
		out->items = grown;
	}
	struct hearth_conflict *conflict = &out->items[out->count++];
	memset(conflict, 0, sizeof *conflict);
	node_id_hex(id, hex);
	snprintf(conflict->id, sizeof conflict->id, "%c%.16s", KIND_LETTERS[kind], hex);
	memcpy(conflict->node, hex, sizeof conflict->node);
	conflict->kind = (enum hearth_conflict_kind)kind;
	conflict->kind_name = conflict_kind_name(kind);
	conflict->entry_kind = (enum hearth_entry_kind)node.kind;
	head_path(lister->home, id, &lister->path);
	conflict->path = storage_strdup(out->storage, buffer_string(&lister->path));
	/* An edit kept a deleted file: the listed op is the delete; each edit
	 * (a content head) is a side too. */
	size_t edits = kind == CONFLICT_EDIT_REVIVED ? node.content_head_count : 0;
	conflict->sides = storage_alloc(out->storage, (op_count + edits ? op_count + edits : 1) *
	    sizeof *conflict->sides);
	for (size_t i = 0; i < op_count; i++)
		describe_side(lister, &node, ops[i], kind, &conflict->sides[conflict->side_count++]);
	for (size_t i = 0; i < edits; i++)
		describe_side(lister, &node, node.content_heads[i], kind,
		    &conflict->sides[conflict->side_count++]);
	if (kind == CONFLICT_NAME && op_count > 0)
		conflict->sides[0].shown = true;	/* it keeps the name */
	if (kind == CONFLICT_REVIVED)
		add_revived_sides(lister, &node, conflict);
	if (kind == CONFLICT_CYCLE)
		add_cycle_side(lister, &node, conflict);
	return 0;
}

static int
compare_conflicts(const void *left, const void *right)
{
	const struct hearth_conflict *a = left, *b = right;
	int order = strcmp(a->path, b->path);
	return order ? order : (int)a->kind - (int)b->kind;
}

int
hearth_conflicts(hearth *home, struct hearth_conflict_list *out, struct hearth_error *error)
{
	struct lister lister = { .home = home, .out = out };
	sqlite3_stmt *statement;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	out->storage = storage_new();
	arena_init(&lister.scratch, 16 * 1024);
	buffer_init(&lister.path);
	store_begin_read(&home->store);
	/* Several cycle conflicts of one folder are listed as one. */
	statement = store_statement(&home->store,
	    "SELECT kind, node, ops FROM conflict GROUP BY kind, node ORDER BY kind, node");
	while (sqlite3_step(statement) == SQLITE_ROW) {
		struct node_id id;
		struct op_id *ops;
		size_t op_count;
		memcpy(id.bytes, sqlite3_column_blob(statement, 1), ID_BYTES);
		if (store_decode_op_ids(&home->store, sqlite3_column_blob(statement, 2),
			(size_t)sqlite3_column_bytes(statement, 2), &ops, &op_count, &lister.scratch) != 0)
			continue;
		add_conflict(&lister, (enum conflict_kind)sqlite3_column_int(statement, 0), id, ops,
		    op_count);
	}
	sqlite3_reset(statement);
	store_end_read(&home->store);
	if (out->count > 1)
		qsort(out->items, out->count, sizeof *out->items, compare_conflicts);
	buffer_free(&lister.path);
	arena_free(&lister.scratch);
	return 0;
}

void
hearth_conflict_list_free(struct hearth_conflict_list *list)
{
	storage_free(list->storage);
	memset(list, 0, sizeof *list);
}

/* ---- the three-way view of a content conflict ------------------------------------ */

/* The op ids of a listed conflict's sides, and its node. */
static struct op_id *
conflict_ops(const struct hearth_conflict *conflict, struct node_id *node)
{
	struct op_id *ops = array_zeroed(conflict->side_count + 1, sizeof *ops);
	hex_decode(conflict->node, node->bytes, ID_BYTES);
	for (size_t j = 0; j < conflict->side_count; j++) {
		hex_decode(conflict->sides[j].replica, ops[j].replica.bytes, ID_BYTES);
		ops[j].counter = conflict->sides[j].counter;
	}
	return ops;
}

/* Mine and theirs among a content conflict's sides, as resolve picks
 * them: this replica's greatest head and the greatest other one (or, with
 * no side of this replica, the two greatest). Sides are in total order. */
static void
pick_pair(struct hearth *home, const struct op_id *heads, size_t count, size_t *mine,
    size_t *theirs)
{
	*mine = *theirs = SIZE_MAX;
	for (size_t i = 0; i < count; i++) {
		if (replica_id_equal(heads[i].replica, home->replica))
			*mine = i;
		else
			*theirs = i;
	}
	if (*mine == SIZE_MAX) {
		*mine = count - 2;
		*theirs = count - 1;
	}
}

static const char *
unmergeable_reason(const struct automerge_sides *sides)
{
	if (sides->never_merge)
		return "its path matches never_merge";
	if (sides->has_markers)
		return "a side holds conflict markers (being merged by hand)";
	switch (sides->merge.outcome) {
	case MERGE_NOT_TEXT:
		return "it is binary (a NUL byte)";
	case MERGE_TOO_BIG:
		return "a side or the base is over 4 MiB, or cannot be read";
	case MERGE_NO_BASE:
		return "its sides share no base";
	default:
		return NULL;
	}
}

static const char *
side_label(struct hearth *home, const struct automerge_sides *sides, size_t index,
    struct hearth_storage *storage)
{
	struct buffer label;
	buffer_init(&label);
	automerge_head_label(home, sides, index, &label);
	const char *copy = storage_strdup(storage, buffer_string(&label));
	buffer_free(&label);
	return copy;
}

static const char *
span_copy(const struct merge_result *merge, struct merge_span span, struct hearth_storage *storage)
{
	char *text = storage_alloc(storage, span.length + 1);
	memcpy(text, merge->texts.data + span.offset, span.length);
	text[span.length] = '\0';
	return text;
}

static void
fill_overlaps(const struct automerge_sides *sides, bool swapped,
    struct hearth_conflict_merge *out)
{
	const struct merge_result *merge = &sides->merge;

	out->overlaps = storage_alloc(out->storage, (merge->hunk_count + 1) * sizeof *out->overlaps);
	out->overlap_count = merge->hunk_count;
	for (size_t i = 0; i < merge->hunk_count; i++) {
		const struct merge_hunk *hunk = &merge->hunks[i];
		out->overlaps[i] = (struct hearth_overlap){
			.base_line = hunk->base_line + 1, .base_count = hunk->base_count,
			.base = span_copy(merge, hunk->base, out->storage),
			.mine = span_copy(merge, swapped ? hunk->theirs : hunk->mine, out->storage),
			.theirs = span_copy(merge, swapped ? hunk->mine : hunk->theirs, out->storage),
		};
	}
}

int
hearth_conflict_merge(hearth *home, const char *conflict_id, struct hearth_conflict_merge *out,
    struct hearth_error *error)
{
	struct hearth_conflict_list list;
	const struct hearth_conflict *conflict = NULL;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	int status = hearth_conflicts(home, &list, error);
	if (status != 0)
		return status;
	for (size_t i = 0; i < list.count && conflict == NULL; i++)
		if (list.items[i].kind == HEARTH_CONFLICT_CONTENT && strlen(conflict_id) >= 5 &&
		    strncmp(list.items[i].id, conflict_id, strlen(conflict_id)) == 0)
			conflict = &list.items[i];
	if (conflict == NULL || conflict->side_count < 2) {
		hearth_conflict_list_free(&list);
		return hearth_fail(error, HEARTH_USAGE, "no content conflict has the id %s", conflict_id);
	}
	struct node_id node;
	struct op_id *heads = conflict_ops(conflict, &node);
	size_t mine, theirs;
	pick_pair(home, heads, conflict->side_count, &mine, &theirs);
	/* Two sides: the pair as resolve takes it. More: all of them, folded. */
	bool pair = conflict->side_count == 2;
	struct op_id two[2] = { heads[mine < theirs ? mine : theirs], heads[mine < theirs ? theirs : mine] };
	struct automerge_sides sides;
	status = automerge_load(home, node, conflict->path, pair ? two : heads,
	    pair ? 2 : conflict->side_count, &sides, error);
	out->storage = storage_new();
	if (status == 0) {
		const char *why = unmergeable_reason(&sides);
		out->text = why == NULL;
		out->why = storage_strdup(out->storage, why ? why : "");
		size_t step = sides.merge.outcome == MERGE_OVERLAP ? sides.merge.overlap_head : 1;
		/* Hunks pair the heads before the step (mine) with the step's head. */
		bool swapped = pair && mine > theirs;
		out->mine_label = side_label(home, &sides, swapped ? 1 : step - 1, out->storage);
		out->theirs_label = side_label(home, &sides, swapped ? 0 : step, out->storage);
		out->sides_folded = sides.head_count > 2 ? step - 1 : 0;
		if (out->text && sides.merge.outcome == MERGE_OVERLAP)
			fill_overlaps(&sides, swapped, out);
	}
	automerge_sides_free(&sides);
	free(heads);
	hearth_conflict_list_free(&list);
	if (status != 0)
		hearth_conflict_merge_free(out);
	return status;
}

void
hearth_conflict_merge_free(struct hearth_conflict_merge *merge)
{
	storage_free(merge->storage);
	memset(merge, 0, sizeof *merge);
}

/* ---- settling ----------------------------------------------------------------------- */

struct resolver {
	struct hearth *home;
	struct hearth_error *error;
	const struct hearth_resolve_options *options;
	struct author author;
	struct arena scratch;
	struct node_id *touched;	/* nodes whose tree entries must follow */
	size_t touched_count, touched_capacity;
	struct tree version_tree;	/* for HEARTH_KEEP_VERSION */
	bool have_version_tree;
	struct blob_writer blobs;	/* for HEARTH_KEEP_MARKERS */
	char paths[512];		/* the settled paths, for the default message */
};

/* Notes a settled path for the version's default message: the first few,
 * then "...". */
static void
note_path(struct resolver *resolver, const char *path)
{
	size_t used = strlen(resolver->paths), room = sizeof resolver->paths - used;
	const char *comma = used > 0 ? ", " : "";

	if (used >= 3 && strcmp(resolver->paths + used - 3, "...") == 0)
		return;
	/* Room is kept for a last ", ..." after any path. */
	if (strlen(comma) + strlen(path) + sizeof ", ..." <= room)
		snprintf(resolver->paths + used, room, "%s%s", comma, path);
	else
		snprintf(resolver->paths + used, room, "%s...", comma);
}

/* "Resolve notes.txt: keep mine", "Resolve 3 conflicts: keep theirs (a, b,
 * c)": the version says which paths were settled and how. */
static void
default_message(const struct resolver *resolver, size_t resolved, char *out, size_t size)
{
	const struct hearth_resolve_options *options = resolver->options;
	char how[160];

	switch (options->resolution) {
	case HEARTH_KEEP_MINE:
		snprintf(how, sizeof how, "keep mine");
		break;
	case HEARTH_KEEP_THEIRS:
		snprintf(how, sizeof how, "keep theirs");
		break;
	case HEARTH_KEEP_BOTH:
		snprintf(how, sizeof how, "keep both");
		break;
	case HEARTH_KEEP_VERSION:
		snprintf(how, sizeof how, "take it as in %.100s", options->version ? options->version : "");
		break;
	default:
		snprintf(how, sizeof how, "merge with markers");
		break;
	}
	if (resolved == 1)
		snprintf(out, size, "Resolve %s: %s", resolver->paths, how);
	else
		snprintf(out, size, "Resolve %zu conflicts: %s (%s)", resolved, how, resolver->paths);
}

static void
touch(struct resolver *resolver, struct node_id id)
{
	resolver->touched = array_grow(resolver->touched, &resolver->touched_capacity,
	    resolver->touched_count + 1, sizeof *resolver->touched);
	resolver->touched[resolver->touched_count++] = id;
}

/* Reads an op's fields; the op is in the store (a head of some node). */
static int
load_op(struct resolver *resolver, struct op_id id, struct op *out)
{
	struct hearth_error failure;
	int found = store_get_op(&resolver->home->store, id, out, &resolver->scratch, &failure);
	if (found < 0)
		return hearth_fail(resolver->error, failure.code, "%s", failure.message);
	if (found == 0)
		return hearth_fail(resolver->error, HEARTH_DAMAGED, "an op of a conflict is missing");
	return 0;
}

/* The side chosen among heads: this replica's (the greatest of them) for
 * mine, else the greatest of the others'; -1 when there is none. */
static int
pick_head(struct resolver *resolver, const struct op_id *heads, size_t count, bool mine)
{
	int chosen = -1;

	/* Heads are kept in total order, winner last. */
	for (size_t i = 0; i < count; i++)
		if (home_op_is_mine(resolver->home, heads[i]) == mine)
			chosen = (int)i;
	return chosen;
}

/* Merge with markers: mine and theirs merged by line, each overlap
 * between diff3 markers, as a new side in place of mine (it supersedes
 * the side mine, or the shown one, so the other side keeps the conflict
 * listed until the file is recorded without markers: record.c). */
static int
settle_markers(struct resolver *resolver, const struct head_node *node)
{
	size_t mine, theirs;
	struct automerge_sides sides;
	struct buffer path, bytes, mine_label, theirs_label;

	pick_pair(resolver->home, node->content_heads, node->content_head_count, &mine, &theirs);
	struct op_id two[2] = { node->content_heads[mine], node->content_heads[theirs] };
	buffer_init(&path);
	head_path(resolver->home, node->id, &path);
	int status = automerge_load(resolver->home, node->id, buffer_string(&path), two, 2, &sides,
	    resolver->error);
	const char *why = status == 0 ? unmergeable_reason(&sides) : NULL;
	if (status == 0 && why != NULL)
		status = hearth_fail(resolver->error, HEARTH_USAGE, "%s cannot be merged with "
		    "markers: %s", buffer_string(&path), why);
	buffer_free(&path);
	if (status != 0) {
		automerge_sides_free(&sides);
		return status;
	}
	/* sides.heads are in total order: find mine there again. */
	size_t mine_at = op_id_equal(sides.heads[0].id, two[0]) ? 0 : 1;
	buffer_init(&bytes);
	buffer_init(&mine_label);
	buffer_init(&theirs_label);
	buffer_printf(&mine_label, "mine (");
	automerge_head_label(resolver->home, &sides, mine_at, &mine_label);
	buffer_printf(&mine_label, ")");
	buffer_printf(&theirs_label, "theirs (");
	automerge_head_label(resolver->home, &sides, 1 - mine_at, &theirs_label);
	buffer_printf(&theirs_label, ")");
	struct merge_text base = { (const char *)sides.merge.base.data, sides.merge.base.length };
	merge_with_markers(&base, &sides.head_texts[mine_at], &sides.head_texts[1 - mine_at],
	    buffer_string(&mine_label), buffer_string(&theirs_label), &bytes);
	struct content_result stored;
	status = blob_store_bytes(&resolver->blobs, bytes.data, bytes.length, &stored,
	    resolver->error);
	if (status == 0) {
		const struct op_set *was = &sides.heads[mine_at].u.set;
		author_set(&resolver->author, node->id, &stored.blob, stored.size, was->mode,
		    resolver->author.now_ns, &two[0], 1);
		content_result_free(&stored);
		touch(resolver, node->id);
	}
	buffer_free(&bytes);
	buffer_free(&mine_label);
	buffer_free(&theirs_label);
	automerge_sides_free(&sides);
	return status;
}

static int
settle_content(struct resolver *resolver, const struct head_node *node)
{
	enum hearth_resolution how = resolver->options->resolution;
	struct op chosen_op;
	struct hash blob = node->blob;
	uint64_t size = node->size;
	uint32_t mode = node->mode;
	op_mtime mtime = node->mtime_ns;

	if (how == HEARTH_KEEP_MARKERS)
		return settle_markers(resolver, node);
	if (how == HEARTH_KEEP_VERSION) {
		struct tree_node *old = tree_find(&resolver->version_tree, node->id);
		if (old == NULL || !old->has_content)
			return hearth_fail(resolver->error, HEARTH_USAGE,
			    "that version has no content for this file");
		blob = old->blob, size = old->size, mode = old->mode, mtime = old->mtime_ns;
	} else {
		int chosen = pick_head(resolver, node->content_heads, node->content_head_count,
		    how != HEARTH_KEEP_THEIRS);
		if (chosen < 0 && how == HEARTH_KEEP_BOTH)
			chosen = (int)node->content_head_count - 1;
		if (chosen < 0)
			return hearth_fail(resolver->error, HEARTH_USAGE,
			    "no side of this conflict is %s", how == HEARTH_KEEP_THEIRS ? "theirs" : "mine");
		if (load_op(resolver, node->content_heads[chosen], &chosen_op) != 0)
			return resolver->error->code;
		blob = chosen_op.u.set.blob, size = chosen_op.u.set.size;
		mode = chosen_op.u.set.mode, mtime = chosen_op.u.set.mtime_ns;
		if (how == HEARTH_KEEP_BOTH) {
			/* Every other side becomes a file beside it, named as a
			 * name clash would name it (docs/DESIGN.md §4.4). */
			for (size_t i = 0; i < node->content_head_count; i++) {
				struct op other;
				if ((int)i == chosen || load_op(resolver, node->content_heads[i], &other) != 0)
					continue;
				struct node_id copy = home_new_node_id();
				struct buffer name;
				buffer_init(&name);
				state_disambiguated_name(node->place.name, node->place.name_length, copy, 8,
				    &name);
				struct node_id parent = node->shown_parent;
				author_place(&resolver->author, copy, parent, name.data, name.length,
				    node->kind, node->shown_root, NULL, 0);
				author_set(&resolver->author, copy, &other.u.set.blob, other.u.set.size,
				    other.u.set.mode, other.u.set.mtime_ns, NULL, 0);
				touch(resolver, copy);
				buffer_free(&name);
			}
		}
	}
	author_set(&resolver->author, node->id, &blob, size, mode, mtime, node->content_heads,
	    node->content_head_count);
	touch(resolver, node->id);
	return 0;
}

/* Keeps the node where a chosen PLACE put it, superseding every head. */
static int
settle_place(struct resolver *resolver, const struct head_node *node, struct op_id chosen)
{
	struct op op;

	if (load_op(resolver, chosen, &op) != 0)
		return resolver->error->code;
	if (node_id_equal(op.u.place.parent, NODE_TRASH)) {
		author_delete(&resolver->author, node->id, op.u.place.name, op.u.place.name_length,
		    node->kind, op.u.place.root, node->place_heads, node->place_head_count,
		    node->content_heads, node->content_head_count);
	} else {
		author_place(&resolver->author, node->id, op.u.place.parent, op.u.place.name,
		    op.u.place.name_length, node->kind, op.u.place.root, node->place_heads,
		    node->place_head_count);
	}
	touch(resolver, node->id);
	return 0;
}

static int
settle_move(struct resolver *resolver, const struct head_node *node)
{
	enum hearth_resolution how = resolver->options->resolution;
	int chosen = pick_head(resolver, node->place_heads, node->place_head_count,
	    how != HEARTH_KEEP_THEIRS);

	if (how == HEARTH_KEEP_BOTH || how == HEARTH_KEEP_VERSION)
		chosen = -1;
	if (chosen < 0) {
		/* Keep it where it is shown now: its place in effect. */
		author_place(&resolver->author, node->id, node->shown_parent, node->shown,
		    node->shown_length, node->kind, node->shown_root, node->place_heads,
		    node->place_head_count);
		touch(resolver, node->id);
		return 0;
	}
	return settle_place(resolver, node, node->place_heads[chosen]);
}

/* A node kept for a delete racing an edit (or a folder for what was added
 * inside): keeping it settles the delete; deleting it again supersedes
 * what revived it. Mine is what this replica did. */
static int
settle_revive(struct resolver *resolver, const struct head_node *node, struct op_id delete)
{
	enum hearth_resolution how = resolver->options->resolution;
	bool deleted_by_me = home_op_is_mine(resolver->home, delete);
	bool keep = how == HEARTH_KEEP_BOTH || how == HEARTH_KEEP_VERSION ||
	    (how == HEARTH_KEEP_MINE) != deleted_by_me;

	if (keep) {
		author_place(&resolver->author, node->id, node->shown_parent, node->shown,
		    node->shown_length, node->kind, node->shown_root, node->place_heads,
		    node->place_head_count);
		touch(resolver, node->id);
		return 0;
	}
	/* Delete again, with what was kept inside a folder. */
	struct node_id *children = NULL;
	size_t count = 0, capacity = 0;
	head_shown_children(resolver->home, node->id, &children, &count, &capacity);
	for (size_t i = 0; i < count; i++) {
		struct head_node child;
		if (head_get(resolver->home, children[i], &child, &resolver->scratch) == 1)
			settle_revive(resolver, &child, delete);
	}
	free(children);
	author_delete(&resolver->author, node->id, node->shown, node->shown_length, node->kind,
	    node->shown_root, node->place_heads, node->place_head_count, node->content_heads,
	    node->content_head_count);
	touch(resolver, node->id);
	return 0;
}

/* The node an op is of, from its row: false when the op is not stored. */
static bool
node_of_op(struct hearth *home, struct op_id id, struct node_id *out)
{
	struct store_op_row row = { .replica_number = 0 };

	if (store_op_row_get(&home->store, store_replica_number(&home->store, id.replica, false),
	    id.counter, false, &row) != 1)
		return false;
	*out = row.node;
	return true;
}

/* Names: keep both makes the shown names real; mine or theirs gives the
 * plain name to that side and the shown name to the other. */
static int
settle_name(struct resolver *resolver, const struct head_node *node, const struct op_id *ops,
    size_t op_count)
{
	enum hearth_resolution how = resolver->options->resolution;
	bool loser_is_mine = home_op_is_mine(resolver->home, node->place.op);
	bool loser_wins = how == HEARTH_KEEP_MINE ? loser_is_mine
	    : how == HEARTH_KEEP_THEIRS ? !loser_is_mine : false;

	if (!loser_wins) {
		author_place(&resolver->author, node->id, node->shown_parent, node->shown,
		    node->shown_length, node->kind, node->shown_root, node->place_heads,
		    node->place_head_count);
		touch(resolver, node->id);
		return 0;
	}
	/* The loser takes the name; the one that had it takes the loser's. */
	for (size_t i = 0; i < op_count; i++) {
		struct node_id other;
		struct head_node holder;
		if (op_id_equal(ops[i], node->place.op))
			continue;
		if (!node_of_op(resolver->home, ops[i], &other) ||
		    head_get(resolver->home, other, &holder, &resolver->scratch) != 1 ||
		    holder.shown_length != node->place.name_length ||
		    memcmp(holder.shown, node->place.name, holder.shown_length) != 0)
			continue;
		author_place(&resolver->author, holder.id, holder.shown_parent, node->shown,
		    node->shown_length, holder.kind, holder.shown_root, holder.place_heads,
		    holder.place_head_count);
		touch(resolver, holder.id);
	}
	author_place(&resolver->author, node->id, node->shown_parent, node->place.name,
	    node->place.name_length, node->kind, node->shown_root, node->place_heads,
	    node->place_head_count);
	touch(resolver, node->id);
	return 0;
}

static int
settle(struct resolver *resolver, enum conflict_kind kind, struct node_id id,
    const struct op_id *ops, size_t op_count)
{
	struct head_node node;

	if (head_get(resolver->home, id, &node, &resolver->scratch) != 1)
		return hearth_fail(resolver->error, HEARTH_DAMAGED, "a conflict names a missing node");
	if (resolver->options->resolution == HEARTH_KEEP_VERSION && kind != CONFLICT_CONTENT)
		return hearth_fail(resolver->error, HEARTH_USAGE,
		    "only a content conflict can take a version's content");
	if (resolver->options->resolution == HEARTH_KEEP_MARKERS && kind != CONFLICT_CONTENT)
		return hearth_fail(resolver->error, HEARTH_USAGE,
		    "only a content conflict can be merged with markers");
	switch (kind) {
	case CONFLICT_CONTENT:
		return settle_content(resolver, &node);
	case CONFLICT_MOVE:
		return settle_move(resolver, &node);
	case CONFLICT_CYCLE:
		/* The skipped move would loop again: whichever side asks, the
		 * folder stays where it is shown, and that settles the move. */
		author_place(&resolver->author, node.id, node.shown_parent, node.shown,
		    node.shown_length, node.kind, node.shown_root, node.place_heads,
		    node.place_head_count);
		touch(resolver, node.id);
		return 0;
	case CONFLICT_EDIT_REVIVED:
	case CONFLICT_REVIVED:
		return settle_revive(resolver, &node, ops[0]);
	case CONFLICT_NAME:
		return settle_name(resolver, &node, ops, op_count);
	default:
		return hearth_fail(resolver->error, HEARTH_USAGE,
		    "an invalid op cannot be settled here: it came from a broken peer");
	}
}

/* A conflict matches a target by id (or a prefix of it), path, or glob. */
static bool
matches(const struct hearth_conflict *conflict, const char *target)
{
	size_t length = strlen(target);
	if (length >= 5 && strncmp(conflict->id, target, length) == 0)
		return true;
	if (strcmp(conflict->path, target) == 0)
		return true;
	return strpbrk(target, "*?[") != NULL && ignore_glob_match(target, conflict->path);
}

/* A file a line merge made (no conflict left) is taken back to one side
 * as a content conflict of the heads it merged would be: mine is this
 * replica's side, theirs the greatest other one; the new SET supersedes
 * the node's heads. 1 when target named such a file, 0 when not. */
static int
settle_merged(struct resolver *resolver, const char *target)
{
	enum hearth_resolution how = resolver->options->resolution;
	struct automerge_sides sides;
	struct head_node node;
	struct node_id id;

	if (automerge_node_at(resolver->home, target, &id) != 1)
		return 0;
	int merged = automerge_merged_node(resolver->home, id, &sides, resolver->error);
	if (merged <= 0)
		return merged;
	int status = 1;
	int chosen = -1;
	for (size_t i = 0; i < sides.head_count; i++)
		if (replica_id_equal(sides.heads[i].id.replica, resolver->home->replica) ==
		    (how == HEARTH_KEEP_MINE))
			chosen = (int)i;
	if (how != HEARTH_KEEP_MINE && how != HEARTH_KEEP_THEIRS)
		status = hearth_fail(resolver->error, HEARTH_USAGE, "%s was merged by line: it can be "
		    "taken back to --mine or --theirs", target);
	else if (chosen < 0)
		status = hearth_fail(resolver->error, HEARTH_USAGE, "no side of the merge of %s is %s",
		    target, how == HEARTH_KEEP_MINE ? "mine" : "theirs");
	else if (head_get(resolver->home, id, &node, &resolver->scratch) != 1)
		status = hearth_fail(resolver->error, HEARTH_DAMAGED, "a merged file's node is missing");
	if (status == 1) {
		const struct op_set *side = &sides.heads[chosen].u.set;
		author_set(&resolver->author, id, &side->blob, side->size, side->mode, side->mtime_ns,
		    node.content_heads, node.content_head_count);
		touch(resolver, id);
	}
	automerge_sides_free(&sides);
	return status;
}

static int
settle_all(struct resolver *resolver, const struct hearth_conflict_list *list, size_t *resolved)
{
	const struct hearth_resolve_options *options = resolver->options;
	bool *chosen = array_zeroed(list->count + 1, sizeof *chosen);
	int status = 0;

	for (size_t t = 0; t < options->target_count && status == 0; t++) {
		bool any = false;
		for (size_t i = 0; i < list->count; i++)
			if (matches(&list->items[i], options->targets[t]))
				chosen[i] = any = true;
		int merged = any ? 0 : settle_merged(resolver, options->targets[t]);
		if (merged < 0)
			status = resolver->error->code;
		else if (merged > 0) {
			(*resolved)++;
			note_path(resolver, options->targets[t]);
		}
		else if (!any)
			status = hearth_fail(resolver->error, HEARTH_USAGE, "no conflict matches %s, and "
			    "no file merged by line is there", options->targets[t]);
	}
	for (size_t i = 0; i < list->count && status == 0; i++) {
		if (!chosen[i])
			continue;
		const struct hearth_conflict *conflict = &list->items[i];
		struct node_id id;
		struct op_id *ops = array_alloc(conflict->side_count + 1, sizeof *ops);
		hex_decode(conflict->node, id.bytes, ID_BYTES);
		for (size_t j = 0; j < conflict->side_count; j++) {
			hex_decode(conflict->sides[j].replica, ops[j].replica.bytes, ID_BYTES);
			ops[j].counter = conflict->sides[j].counter;
		}
		status = settle(resolver, (enum conflict_kind)conflict->kind, id, ops,
		    conflict->side_count);
		free(ops);
		(*resolved)++;
		note_path(resolver, conflict->path);
	}
	free(chosen);
	return status;
}

/* ---- safety: never overwrite what is not recorded ----------------------------------- */

static bool
touched_node(const struct resolver *resolver, struct node_id id)
{
	for (size_t i = 0; i < resolver->touched_count; i++)
		if (node_id_equal(resolver->touched[i], id))
			return true;
	return false;
}

static bool
path_related(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), shorter = la < lb ? la : lb;
	return strncmp(a, b, shorter) == 0 &&
	    (la == lb || (la < lb ? b[la] == '/' : a[lb] == '/'));
}

/* Unrecorded changes at the nodes the resolution writes: refused. */
static int
check_unrecorded(struct resolver *resolver, const struct hearth_progress *progress,
    struct hearth_change_list *blocked)
{
	struct scan_result scan;
	struct buffer path;
	int status = scan_tree(resolver->home, NULL, 0, progress, &scan, resolver->error);

	if (status != 0)
		return status;
	buffer_init(&path);
	for (size_t i = 0; i < scan.count && status == 0; i++) {
		struct scan_change *change = &scan.changes[i];
		if (change->needs_content && change->kind != SCAN_ADDED)
			status = scan_hash_content(resolver->home, change, resolver->error);
	}
	struct scan_result kept = scan;
	kept.count = 0;
	for (size_t i = 0; i < scan.count && status == 0; i++) {
		struct scan_change *change = &scan.changes[i];
		bool hit = false;
		if (change->kind == SCAN_STAMP || change->kind == SCAN_RESTORE)
			continue;
		if (change->kind != SCAN_ADDED)
			hit = touched_node(resolver, change->node);
		for (size_t t = 0; !hit && t < resolver->touched_count; t++)
			hit = head_path(resolver->home, resolver->touched[t], &path) == 0 &&
			    path_related((const char *)path.data, change->path);
		if (hit)
			scan.changes[kept.count++] = *change;
	}
	if (status == 0)
		scan_to_change_list(&kept, false, blocked);
	buffer_free(&path);
	scan_result_free(&scan);
	return status;
}

static void
resolve_tree_failed(const char *version, struct hearth_error *error)
{
	char first[HEARTH_ERROR_MAX];

	snprintf(first, sizeof first, "%s", error->message);
	hearth_fail(error, error->code, "resolved as version %.12s, but the working tree could "
	    "not be brought to it: %s; `hearth checkout` finishes it", version, first);
}

int
hearth_resolve_conflicts(hearth *home, const struct hearth_resolve_options *options,
    const struct hearth_progress *progress, struct hearth_resolve_result *out,
    struct hearth_error *error)
{
	struct resolver resolver = { .home = home, .error = error, .options = options };
	struct hearth_conflict_list list;
	struct hearth_checkout_result written;
	struct hearth_error failure;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (options->target_count == 0)
		return hearth_fail(error, HEARTH_USAGE, "name the conflicts to resolve");
	if ((status = author_check_input(home, options->message, error)) != 0)
		return status;
	if ((status = home_lock(home, "resolve", error)) != 0)
		return status;
	arena_init(&resolver.scratch, 16 * 1024);
	memset(&list, 0, sizeof list);
	/* A resolve killed before its paths were written is finished first. */
	status = checkout_finish_pending(home, error);
	if (status == 0)
		status = hearth_conflicts(home, &list, error);
	if (status == 0 && options->resolution == HEARTH_KEEP_VERSION) {
		struct history_version version;
		status = history_resolve(home, options->version ? options->version : "", &version, error);
		if (status == 0) {
			status = tree_load(home, &version.vv, &resolver.version_tree, error);
			resolver.have_version_tree = status == 0;
			history_version_free(&version);
		}
	}
	if (status == 0 && store_begin(&home->store, &failure) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	else if (status == 0) {
		author_begin(&resolver.author, home, error);
		blob_writer_begin(home, &resolver.blobs);
		status = settle_all(&resolver, &list, &out->resolved);
		if (status == 0)
			status = author_flush(&resolver.author);
		struct hearth_change_list blocked = { 0 };
		if (status == 0)
			status = check_unrecorded(&resolver, progress, &blocked);
		if (status == 0 && blocked.count > 0) {
			out->changes = blocked;
			memset(&blocked, 0, sizeof blocked);
			status = hearth_fail(error, HEARTH_REFUSED,
			    "%zu path%s to resolve hold%s unrecorded changes; record them first",
			    out->changes.count, out->changes.count == 1 ? "" : "s",
			    out->changes.count == 1 ? "s" : "");
		}
		hearth_change_list_free(&blocked);
		if (status == 0) {
			char text[768];
			default_message(&resolver, out->resolved, text, sizeof text);
			status = author_commit(&resolver.author, options->message ? options->message : text,
			    out->version);
		}
		/* The paths to write, kept with the resolution: a kill before
		 * they are written leaves them for the next command to finish. */
		if (status == 0)
			status = checkout_set_pending(home, resolver.touched, resolver.touched_count, error);
		if (status == 0)
			status = blob_writer_finish(&resolver.blobs, error);
		if (status == 0 && store_commit(&home->store, &failure) != 0)
			status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
		if (status != 0) {
			store_rollback(&home->store);
			blob_writer_abort(&resolver.blobs);
		} else if (resolver.blobs.pack != NULL) {
			pack_writer_free(resolver.blobs.pack);
		}
		author_end(&resolver.author);
	}
	/* The outcome into the working tree, for those nodes only. */
	if (status == 0) {
		status = checkout_nodes(home, resolver.touched, resolver.touched_count, progress,
		    &written, error);
		hearth_checkout_result_free(&written);
		if (status == 0)
			home_count_writes(home, resolver.blobs.bytes_new);
		/* The resolution is recorded either way: say so, and how to
		 * finish, since resolving again finds nothing left to settle. */
		else
			resolve_tree_failed(out->version, error);
	}
	if (resolver.have_version_tree)
		tree_free(&resolver.version_tree);
	if (list.storage != NULL)
		hearth_conflict_list_free(&list);
	free(resolver.touched);
	arena_free(&resolver.scratch);
	home_unlock(home);
	return status;
}

void
hearth_resolve_result_free(struct hearth_resolve_result *result)
{
	hearth_change_list_free(&result->changes);
}
