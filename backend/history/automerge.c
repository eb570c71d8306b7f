/* Line merges at sync and the reading of a node's heads for a merge (see
 * automerge.h for why the merged bytes become an op): load a node's SETs,
 * find the heads' base through supersedes, read the bytes, merge, and
 * author the merged SET in a version that leaves the working tree as it
 * is (checkout brings the merged file in, as it brings any peer's edit). */
#include "backend/history/automerge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/author.h"
#include "backend/history/blob.h"
#include "backend/history/conflicts.h"
#include "backend/store/hash.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "model/array.h"
#include "model/ignore.h"

/* ---- loading ----------------------------------------------------------------------- */

/* Every SET of a node, decoded into arena. */
static int
load_sets(struct hearth *home, struct node_id node, struct arena *arena, struct op **out,
    size_t *count, struct hearth_error *error)
{
	struct store_ops sets;
	struct store_op_row row;
	size_t capacity = 0;
	char reason[128];
	int status = 0;

	*out = NULL;
	*count = 0;
	store_ops_of_node(&home->store, node, OP_SET, false, &sets);
	while (status == 0 && store_ops_next(&sets, &row)) {
		struct op op;
		if (!op_decode(row.body, row.body_length, &op, arena, reason, sizeof reason)) {
			status = hearth_fail(error, HEARTH_DAMAGED, "a content op does not decode: %s "
			    "(run hearth fsck)", reason);
			break;
		}
		*out = array_grow(*out, &capacity, *count + 1, sizeof **out);
		(*out)[(*count)++] = op;
	}
	return store_ops_end(&sets, status, error);
}

static const struct op *
find_op(const struct op *ops, size_t count, struct op_id id)
{
	for (size_t i = 0; i < count; i++)
		if (op_id_equal(ops[i].id, id))
			return &ops[i];
	return NULL;
}

static int
compare_total_order(const void *left, const void *right)
{
	return op_order_compare(left, right);
}

/* merge_heads reads through here: each blob once, kept for the caller. */
static bool
read_blob(void *context, const struct op *set, struct merge_text *out)
{
	struct automerge_sides *sides = context;
	bool truncated = false;
	struct hearth_error ignored;

	for (size_t i = 0; i < sides->blob_count; i++) {
		if (hash_equal(&sides->blobs[i].hash, &set->u.set.blob)) {
			*out = (struct merge_text){ (const char *)sides->blobs[i].bytes.data,
				sides->blobs[i].bytes.length };
			return true;
		}
	}
	if (set->u.set.size > MERGE_MAX_BYTES)
		return false;
	struct buffer bytes;
	buffer_init(&bytes);
	/* A blob that cannot be read (fsck names the damage) does not merge. */
	if (blob_read(sides->home, &set->u.set.blob, MERGE_MAX_BYTES, &bytes, &truncated,
		&ignored) != 0 || truncated) {
		buffer_free(&bytes);
		return false;
	}
	sides->blobs = array_grow(sides->blobs, &sides->blob_capacity, sides->blob_count + 1,
	    sizeof *sides->blobs);
	sides->blobs[sides->blob_count].hash = set->u.set.blob;
	sides->blobs[sides->blob_count++].bytes = bytes;
	/* The array may move: answer from its new place. */
	*out = (struct merge_text){ (const char *)sides->blobs[sides->blob_count - 1].bytes.data,
		bytes.length };
	return true;
}

/* never_merge wins; always_merge lets NUL bytes through. */
static void
merge_policy(struct hearth *home, const char *path, bool *never, bool *always)
{
	const struct config *config = home->config;
	char message[256];

	*never = *always = false;
	if (path == NULL || path[0] == '\0')
		return;
	struct ignore_set *set = ignore_compile((const char *const *)config->never_merge,
	    config->never_merge_count, message, sizeof message);
	*never = set != NULL && ignore_match(set, path, false);
	ignore_free(set);
	set = ignore_compile((const char *const *)config->always_merge, config->always_merge_count,
	    message, sizeof message);
	*always = set != NULL && ignore_match(set, path, false);
	ignore_free(set);
}

int
automerge_load(struct hearth *home, struct node_id node, const char *path,
    const struct op_id *heads, size_t count, struct automerge_sides *out,
    struct hearth_error *error)
{
	struct op *sets;
	size_t set_count;
	bool always;

	memset(out, 0, sizeof *out);
	out->home = home;
	arena_init(&out->arena, 16 * 1024);
	int status = load_sets(home, node, &out->arena, &sets, &set_count, error);
	if (status != 0)
		return status;
	out->heads = arena_alloc(&out->arena, (count ? count : 1) * sizeof *out->heads);
	out->head_texts = arena_alloc(&out->arena, (count ? count : 1) * sizeof *out->head_texts);
	for (size_t i = 0; i < count; i++) {
		const struct op *head = find_op(sets, set_count, heads[i]);
		if (head == NULL) {
			free(sets);
			return hearth_fail(error, HEARTH_DAMAGED, "a content head is not in the store "
			    "(run hearth fsck)");
		}
		out->heads[out->head_count++] = *head;
	}
	qsort(out->heads, out->head_count, sizeof *out->heads, compare_total_order);
	merge_policy(home, path, &out->never_merge, &always);
	struct merge_source source = { read_blob, out };
	merge_heads(sets, set_count, heads, count, &source, !always, &out->merge);
	free(sets);
	/* The heads' bytes, for the front ends (read once, by the merge). */
	out->readable = true;
	for (size_t i = 0; i < out->head_count; i++) {
		/* A head too big or unreadable has no text: nothing to look into. */
		out->head_texts[i] = (struct merge_text){ NULL, 0 };
		if (!read_blob(out, &out->heads[i], &out->head_texts[i])) {
			out->readable = false;
			continue;
		}
		out->has_markers = out->has_markers ||
		    merge_has_markers(out->head_texts[i].bytes, out->head_texts[i].length);
	}
	return 0;
}

void
automerge_sides_free(struct automerge_sides *sides)
{
	for (size_t i = 0; i < sides->blob_count; i++)
		buffer_free(&sides->blobs[i].bytes);
	free(sides->blobs);
	merge_result_free(&sides->merge);
	arena_free(&sides->arena);
	memset(sides, 0, sizeof *sides);
}

/* ---- naming the sides ------------------------------------------------------------ */

void
automerge_side_name(struct hearth *home, struct op_id op, char *out, size_t size)
{
	history_author_of_op(home, op, out, size, NULL);
	if (out[0] == '\0') {
		char hex[ID_HEX];
		replica_id_hex(op.replica, hex);
		snprintf(out, size, "replica %.8s", hex);
	}
}

/* The replicas whose edits were merged, each once, in order, with the
 * author of their versions. */
struct names {
	struct name_entry {
		struct replica_id replica;
		char author[OP_AUTHOR_MAX + 1];
	} *items;
	size_t count, capacity;
};

static void
names_add(struct names *names, struct hearth *home, struct op_id op)
{
	for (size_t i = 0; i < names->count; i++)
		if (replica_id_equal(names->items[i].replica, op.replica))
			return;
	names->items = array_grow(names->items, &names->capacity, names->count + 1,
	    sizeof *names->items);
	struct name_entry *entry = &names->items[names->count++];
	entry->replica = op.replica;
	automerge_side_name(home, op, entry->author, sizeof entry->author);
}

/* "laptop and desktop" for alice@laptop and alice@desktop: the user part
 * goes when every name has the same one. */
static size_t
common_user_length(const struct names *names)
{
	const char *at = names->count > 0 ? strchr(names->items[0].author, '@') : NULL;
	size_t length = at != NULL ? (size_t)(at - names->items[0].author) + 1 : 0;

	for (size_t i = 1; i < names->count && length > 0; i++)
		if (strncmp(names->items[i].author, names->items[0].author, length) != 0)
			length = 0;
	return length;
}

/* Two replicas with one author (one user on one machine name) are told
 * apart by their ids. */
static bool
authors_repeat(const struct names *names)
{
	for (size_t i = 0; i < names->count; i++)
		for (size_t j = i + 1; j < names->count; j++)
			if (strcmp(names->items[i].author, names->items[j].author) == 0)
				return true;
	return false;
}

/* One name as the list shows it. */
static void
name_print(const struct names *names, size_t index, struct buffer *out)
{
	buffer_printf(out, "%s", names->items[index].author + common_user_length(names));
	if (authors_repeat(names)) {
		char hex[ID_HEX];
		replica_id_hex(names->items[index].replica, hex);
		buffer_printf(out, " (%.8s)", hex);
	}
}

/* "laptop and desktop", "a, b and c". */
static void
names_print(const struct names *names, struct buffer *out)
{
	for (size_t i = 0; i < names->count; i++) {
		if (i > 0)
			buffer_printf(out, i + 1 == names->count ? " and " : ", ");
		name_print(names, i, out);
	}
}

static void
merge_message(const struct names *names, struct buffer *out)
{
	buffer_printf(out, "merged: edits from ");
	names_print(names, out);
}

static void
sides_names(struct hearth *home, const struct automerge_sides *sides, struct names *names)
{
	memset(names, 0, sizeof *names);
	for (size_t i = 0; i < sides->head_count; i++)
		names_add(names, home, sides->heads[i].id);
}

void
automerge_merged_from(struct hearth *home, const struct automerge_sides *sides,
    struct buffer *out)
{
	struct names names;
	sides_names(home, sides, &names);
	names_print(&names, out);
	free(names.items);
}

void
automerge_head_label(struct hearth *home, const struct automerge_sides *sides, size_t index,
    struct buffer *out)
{
	struct names names;
	sides_names(home, sides, &names);
	for (size_t i = 0; i < names.count; i++)
		if (replica_id_equal(names.items[i].replica, sides->heads[index].id.replica))
			name_print(&names, i, out);
	free(names.items);
}

/* ---- merging at sync --------------------------------------------------------------- */

struct merger {
	struct hearth *home;
	struct hearth_error *error;
	struct author author;
	struct blob_writer blobs;
	struct names names;
	struct arena scratch;
	struct automerge_result *out;
};

/* One mode on every head stays; heads that differ in mode take the
 * greatest head's (a mode is not merged by line). */
static uint32_t
merged_mode(const struct automerge_sides *sides)
{
	return sides->heads[sides->head_count - 1].u.set.mode;
}

static int64_t
merged_mtime(const struct automerge_sides *sides)
{
	op_mtime latest = sides->heads[0].u.set.mtime_ns;
	for (size_t i = 1; i < sides->head_count; i++)
		if (sides->heads[i].u.set.mtime_ns > latest)
			latest = sides->heads[i].u.set.mtime_ns;
	return latest;
}

static bool
heads_differ(const struct automerge_sides *sides)
{
	for (size_t i = 1; i < sides->head_count; i++)
		if (!hash_equal(&sides->heads[i].u.set.blob, &sides->heads[0].u.set.blob) ||
		    sides->heads[i].u.set.mode != sides->heads[0].u.set.mode)
			return true;
	return false;
}

/* Stores the merged bytes and authors the SET superseding every head. */
static int
write_merge(struct merger *merger, const struct head_node *head,
    const struct automerge_sides *sides, const struct buffer *merged)
{
	struct content_result stored;
	int status = blob_store_bytes(&merger->blobs, merged->data, merged->length, &stored,
	    merger->error);

	if (status != 0)
		return status;
	struct op_id *superseded = arena_alloc(&merger->scratch,
	    sides->head_count * sizeof *superseded);
	for (size_t i = 0; i < sides->head_count; i++)
		superseded[i] = sides->heads[i].id;
	author_set(&merger->author, head->id, &stored.blob, stored.size, merged_mode(sides),
	    merged_mtime(sides), superseded, sides->head_count);
	content_result_free(&stored);
	for (size_t i = 0; i < sides->head_count; i++)
		names_add(&merger->names, merger->home, sides->heads[i].id);
	merger->out->merged++;
	return 0;
}

static int
merge_node(struct merger *merger, struct node_id id)
{
	struct head_node head;
	struct automerge_sides sides;
	struct buffer path;

	int found = head_get(merger->home, id, &head, &merger->scratch);
	if (found < 0)
		return hearth_fail(merger->error, HEARTH_FAILED, "cannot read a node to merge");
	if (found == 0 || head.kind != NODE_FILE || head.content_head_count < 2)
		return 0;
	buffer_init(&path);
	head_path(merger->home, id, &path);
	int status = automerge_load(merger->home, id, buffer_string(&path), head.content_heads,
	    head.content_head_count, &sides, merger->error);
	buffer_free(&path);
	if (status == 0 && heads_differ(&sides)) {
		if (!sides.never_merge && !sides.has_markers && sides.merge.outcome == MERGE_CLEAN)
			status = write_merge(merger, &head, &sides, &sides.merge.merged);
		else
			merger->out->overlapping++;
	}
	automerge_sides_free(&sides);
	return status;
}

static int
compare_node_ids(const void *left, const void *right)
{
	return node_id_compare(*(const struct node_id *)left, *(const struct node_id *)right);
}

/* The nodes the batch's SETs name, each once, in id order. */
static struct node_id *
set_nodes(const struct op *ops, size_t count, size_t *node_count)
{
	struct node_id *nodes = array_zeroed(count + 1, sizeof *nodes);
	size_t filled = 0;

	for (size_t i = 0; i < count; i++)
		if (ops[i].kind == OP_SET)
			nodes[filled++] = ops[i].u.set.node;
	qsort(nodes, filled, sizeof *nodes, compare_node_ids);
	size_t unique = 0;
	for (size_t i = 0; i < filled; i++)
		if (unique == 0 || !node_id_equal(nodes[unique - 1], nodes[i]))
			nodes[unique++] = nodes[i];
	*node_count = unique;
	return nodes;
}

/* Whether a node has a content conflict listed: only those are merged. */
static bool
in_content_conflict(struct hearth *home, struct node_id node)
{
	return conflicts_listed(home, node, CONFLICT_CONTENT);
}

static int
merge_all(struct merger *merger, const struct node_id *nodes, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (!in_content_conflict(merger->home, nodes[i]))
			continue;
		int status = merge_node(merger, nodes[i]);
		if (status != 0)
			return status;
	}
	if (merger->out->merged == 0)
		return 0;
	struct buffer message;
	buffer_init(&message);
	merge_message(&merger->names, &message);
	int status = author_commit(&merger->author, buffer_string(&message), merger->out->version);
	buffer_free(&message);
	if (status == 0)
		status = blob_writer_finish(&merger->blobs, merger->error);
	return status;
}

int
automerge_after_sync(struct hearth *home, const struct op *ops, size_t count,
    struct automerge_result *out, struct hearth_error *error)
{
	struct merger merger = { .home = home, .error = error, .out = out };
	struct hearth_error failure;
	size_t node_count;

	memset(out, 0, sizeof *out);
	struct node_id *nodes = set_nodes(ops, count, &node_count);
	if (node_count == 0) {
		free(nodes);
		return 0;
	}
	if (store_begin(&home->store, &failure) != 0) {
		free(nodes);
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	}
	arena_init(&merger.scratch, 16 * 1024);
	blob_writer_begin(home, &merger.blobs);
	author_begin(&merger.author, home, error);
	merger.author.keeps_tree = true;
	int status = merge_all(&merger, nodes, node_count);
	if (status == 0 && out->merged == 0) {
		store_rollback(&home->store);
	} else if (status == 0 && store_commit(&home->store, &failure) != 0) {
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	}
	if (status != 0) {
		store_rollback(&home->store);
		blob_writer_abort(&merger.blobs);
		out->merged = 0;
		out->version[0] = '\0';
	} else {
		if (merger.blobs.pack != NULL)
			pack_writer_free(merger.blobs.pack);
		home_count_writes(home, merger.blobs.bytes_new);
	}
	author_end(&merger.author);
	arena_free(&merger.scratch);
	free(merger.names.items);
	free(nodes);
	return status;
}

/* ---- explaining a merge ---------------------------------------------------------- */

int
automerge_explain(struct hearth *home, const struct op *set, struct automerge_sides *out,
    struct hearth_error *error)
{
	memset(out, 0, sizeof *out);
	if (set->kind != OP_SET || set->supersedes_count < 2)
		return 0;
	struct buffer path;
	buffer_init(&path);
	head_path(home, set->u.set.node, &path);
	int status = automerge_load(home, set->u.set.node, buffer_string(&path), set->supersedes,
	    set->supersedes_count, out, error);
	buffer_free(&path);
	if (status != 0) {
		/* A superseded id that is not a SET of the node: not a merge. */
		hearth_error_clear(error);
		automerge_sides_free(out);
		return 0;
	}
	int is_merge = 0;
	if (out->merge.outcome == MERGE_CLEAN && heads_differ(out)) {
		struct hash hash;
		hash_bytes(out->merge.merged.data, out->merge.merged.length, &hash);
		is_merge = hash_equal(&hash, &set->u.set.blob);
	}
	if (!is_merge)
		automerge_sides_free(out);
	return is_merge;
}

int
automerge_merged_node(struct hearth *home, struct node_id node, struct automerge_sides *out,
    struct hearth_error *error)
{
	struct head_node head;
	struct arena scratch;
	struct op set;
	struct hearth_error failure;

	memset(out, 0, sizeof *out);
	arena_init(&scratch, 4096);
	int found = head_get(home, node, &head, &scratch);
	int is_merge = 0, held = 0;
	if (found == 1 && head.kind == NODE_FILE && head.has_content &&
	    (held = store_get_op(&home->store, head.content_op, &set, &scratch, &failure)) == 1)
		is_merge = automerge_explain(home, &set, out, error);
	arena_free(&scratch);
	if (found < 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot read a node of the head state");
	if (held < 0)
		return hearth_fail(error, failure.code, "%s", failure.message);
	return is_merge;
}

int
automerge_node_at(struct hearth *home, const char *path, struct node_id *out)
{
	struct node_id at = NODE_ROOT;

	for (const char *name = path; *name != '\0';) {
		const char *slash = strchr(name, '/');
		size_t length = slash != NULL ? (size_t)(slash - name) : strlen(name);
		enum node_kind kind;
		bool found = head_shown_at(home, at, name, length, &at, &kind) == 1;
		if (!found || length == 0)
			return 0;
		name += length + (slash != NULL);
	}
	*out = at;
	return node_id_equal(at, NODE_ROOT) ? 0 : 1;
}
