/* Loading a version's tree: a read of the node table for head, or
 * state_derive over the ops of the version (only for older versions, where
 * reading every op at or below it is the price of going back in time). */
#include "backend/history/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/disk/scan.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "model/state.h"
#include "model/array.h"

static int
compare_by_id(const void *a, const void *b)
{
	const struct tree_node *x = a, *y = b;
	return node_id_compare(x->id, y->id);
}

static int
compare_by_place(const void *a, const void *b)
{
	const struct tree_node *x = *(struct tree_node *const *)a, *y = *(struct tree_node *const *)b;
	int order = node_id_compare(x->parent, y->parent);
	return order ? order : strcmp(x->name, y->name);
}

static void
index_children(struct tree *tree)
{
	tree->children = arena_alloc(&tree->arena, (tree->count ? tree->count : 1) *
	    sizeof *tree->children);
	for (size_t i = 0; i < tree->count; i++)
		tree->children[i] = &tree->nodes[i];
	qsort(tree->children, tree->count, sizeof *tree->children, compare_by_place);
}

void
tree_reindex(struct tree *tree)
{
	qsort(tree->nodes, tree->count, sizeof *tree->nodes, compare_by_id);
	for (size_t i = 0; i < tree->count; i++)
		tree->nodes[i].path = NULL;
	index_children(tree);
}

struct tree_load {
	struct hearth *home;
	struct tree *tree;
	size_t capacity;
};

static struct tree_node *
tree_add(struct tree_load *load, struct node_id id, struct node_id parent, const void *name,
    size_t name_length, enum node_kind kind, const char *root, const struct hash *blob)
{
	struct tree *tree = load->tree;
	tree->nodes = array_grow(tree->nodes, &load->capacity, tree->count + 1, sizeof *tree->nodes);
	struct tree_node *node = &tree->nodes[tree->count++];
	memset(node, 0, sizeof *node);
	node->id = id;
	node->parent = parent;
	node->name = arena_strndup(&tree->arena, name, name_length);
	node->kind = kind;
	node->root = arena_strdup(&tree->arena, root != NULL ? root : "");
	node->has_content = blob != NULL;
	if (blob != NULL)
		node->blob = *blob;
	return node;
}

static int
add_live(void *context, const struct head_shown_row *row)
{
	struct tree_load *load = context;
	struct tree_node *node = tree_add(load, row->id, row->shown_parent, row->shown,
	    row->shown_length, row->kind, row->root, row->blob);
	node->size = row->size;
	node->mode = row->mode;
	node->mtime_ns = row->mtime_ns;
	store_decode_op_ids(&load->home->store, row->place_heads, row->place_heads_length,
	    &node->place_heads, &node->place_head_count, &load->tree->arena);
	store_decode_op_ids(&load->home->store, row->content_heads, row->content_heads_length,
	    &node->content_heads, &node->content_head_count, &load->tree->arena);
	return 0;
}

/* A node a restore would bring back (restore 2) is not in the tree. */
static int
add_indexed(void *context, const struct scan_entry_row *entry)
{
	struct tree_load *load = context;
	if (entry->restore == 2)
		return 0;
	struct tree_node *node = tree_add(load, entry->node, entry->parent, entry->name,
	    entry->name_length, entry->kind, entry->root, entry->blob);
	node->size = entry->stamp.size;
	node->mode = entry->stamp.mode;
	node->mtime_ns = entry->stamp.mtime_ns;
	/* No heads: an index row's seen sets are not the tree's. */
	store_decode_op_ids(&load->home->store, NULL, 0, &node->place_heads,
	    &node->place_head_count, &load->tree->arena);
	store_decode_op_ids(&load->home->store, NULL, 0, &node->content_heads,
	    &node->content_head_count, &load->tree->arena);
	return 0;
}

/* A tree from the node table (from_head) or the index, by id. */
static int
load_rows(struct hearth *home, bool from_head, struct tree *out, struct hearth_error *error)
{
	struct tree_load load = { .home = home, .tree = out, .capacity = 1024 };

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 256 * 1024);
	out->nodes = array_alloc(load.capacity, sizeof *out->nodes);
	int status = from_head ? head_each_live(home, add_live, &load)
	    : scan_entries_each(home, add_indexed, &load);
	if (status != 0) {
		/* SQLite's message before the tree goes: a failure must say what
		 * failed, never "not an error". */
		hearth_fail(error, HEARTH_FAILED, "cannot read %s: %s",
		    from_head ? "the head state" : "the working-tree index",
		    sqlite3_errmsg(home->store.db));
		tree_free(out);
		return error->code;
	}
	index_children(out);
	return 0;
}

int
tree_load_head(struct hearth *home, struct tree *out, struct hearth_error *error)
{
	return load_rows(home, true, out, error);
}

int
tree_load_index(struct hearth *home, struct tree *out, struct hearth_error *error)
{
	return load_rows(home, false, out, error);
}

/* Reads every PLACE and SET at or below vv. */
int
tree_read_ops(struct hearth *home, const struct vv *vv, struct op **ops, size_t *count,
    struct arena *arena, struct hearth_error *error)
{
	size_t capacity = 1024;
	char reason[128];

	*count = 0;
	*ops = array_alloc(capacity, sizeof **ops);
	for (size_t i = 0; i < vv->count; i++) {
		int64_t number = store_replica_number(&home->store, vv->entries[i].replica, false);
		if (number <= 0)
			continue;
		struct store_ops changes;
		struct store_op_row row;
		store_ops_changes_upto(&home->store, number, vv->entries[i].counter, &changes);
		while (store_ops_next(&changes, &row)) {
			*ops = array_grow(*ops, &capacity, *count + 1, sizeof **ops);
			if (!op_decode(row.body, row.body_length, &(*ops)[*count], arena, reason,
				sizeof reason)) {
				store_ops_close(&changes);
				return hearth_fail(error, HEARTH_DAMAGED,
				    "an op in the store does not decode: %s (run hearth fsck)", reason);
			}
			(*count)++;
		}
		int status = store_ops_end(&changes, 0, error);
		if (status != 0)
			return status;
	}
	return 0;
}

static void
copy_heads(struct arena *arena, const struct op_id *from, size_t count, struct op_id **to,
    size_t *to_count)
{
	*to = arena_alloc(arena, (count ? count : 1) * sizeof *from);
	if (count > 0)
		memcpy(*to, from, count * sizeof *from);
	*to_count = count;
}

static void
tree_from_state(const struct state *state, struct tree *out)
{
	size_t live = 0;

	for (size_t i = 0; i < state->node_count; i++)
		live += state->nodes[i].live;
	out->nodes = array_alloc(live, sizeof *out->nodes);
	for (size_t i = 0; i < state->node_count; i++) {
		const struct state_node *from = &state->nodes[i];
		if (!from->live)
			continue;
		struct tree_node *node = &out->nodes[out->count++];
		memset(node, 0, sizeof *node);
		node->id = from->id;
		node->parent = from->parent;
		node->name = arena_strndup(&out->arena, (const char *)from->shown_name,
		    from->shown_name_length);
		node->kind = from->kind;
		node->root = arena_strdup(&out->arena, from->root ? from->root : "");
		node->has_content = from->has_content;
		node->blob = from->blob;
		node->size = from->size;
		node->mode = from->mode;
		node->mtime_ns = from->mtime_ns;
		copy_heads(&out->arena, from->place_heads, from->place_head_count, &node->place_heads,
		    &node->place_head_count);
		copy_heads(&out->arena, from->content_heads, from->content_head_count,
		    &node->content_heads, &node->content_head_count);
	}
}

void
tree_derive(const struct op *ops, size_t count, struct tree *out)
{
	struct state state;

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 256 * 1024);
	memset(&state, 0, sizeof state);
	state_derive(ops, count, &state);
	tree_from_state(&state, out);
	state_free(&state);
	qsort(out->nodes, out->count, sizeof *out->nodes, compare_by_id);
	index_children(out);
}

int
tree_load(struct hearth *home, const struct vv *vv, struct tree *out, struct hearth_error *error)
{
	struct op *ops = NULL;
	size_t count = 0;
	struct arena op_arena;

	/* A vv that holds every op that changes a tree is the head state:
	 * read it from the node table, as the working tree gets it. */
	if (history_covers_head(home, vv))
		return tree_load_head(home, out, error);

	memset(out, 0, sizeof *out);
	arena_init(&op_arena, 1024 * 1024);
	int status = tree_read_ops(home, vv, &ops, &count, &op_arena, error);
	if (status == 0)
		tree_derive(ops, count, out);
	free(ops);
	arena_free(&op_arena);
	return status;
}

void
tree_free(struct tree *tree)
{
	free(tree->nodes);
	tree->nodes = NULL;
	tree->count = 0;
	arena_free(&tree->arena);
}

struct tree_node *
tree_find(const struct tree *tree, struct node_id id)
{
	size_t low = 0, high = tree->count;

	while (low < high) {
		size_t middle = (low + high) / 2;
		int order = node_id_compare(tree->nodes[middle].id, id);
		if (order == 0)
			return &tree->nodes[middle];
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return NULL;
}

const char *
tree_path(struct tree *tree, struct tree_node *node)
{
	if (node->path != NULL)
		return node->path;
	if (node_id_equal(node->parent, NODE_ROOT)) {
		node->path = node->name;
		return node->path;
	}
	struct tree_node *parent = tree_find(tree, node->parent);
	if (parent == NULL) {
		node->path = node->name;	/* unreachable for a live node */
		return node->path;
	}
	const char *parent_path = tree_path(tree, parent);
	size_t length = strlen(parent_path) + 1 + strlen(node->name);
	char *path = arena_alloc(&tree->arena, length + 1);
	snprintf(path, length + 1, "%s/%s", parent_path, node->name);
	node->path = path;
	return path;
}

void
tree_children(const struct tree *tree, struct node_id parent, size_t *first, size_t *count)
{
	size_t low = 0, high = tree->count;

	/* Lower bound of parent in (parent, name) order. */
	while (low < high) {
		size_t middle = (low + high) / 2;
		if (node_id_compare(tree->children[middle]->parent, parent) < 0)
			low = middle + 1;
		else
			high = middle;
	}
	*first = low;
	while (low < tree->count && node_id_equal(tree->children[low]->parent, parent))
		low++;
	*count = low - *first;
}

struct tree_node *
tree_lookup(struct tree *tree, const char *path)
{
	struct node_id parent = NODE_ROOT;
	struct tree_node *found = NULL;
	char component[256];

	while (*path != '\0') {
		size_t length = strcspn(path, "/");
		if (length == 0 || length >= sizeof component) {
			path += length + (path[length] == '/');
			if (length == 0)
				continue;
			return NULL;
		}
		memcpy(component, path, length);
		component[length] = '\0';
		path += length + (path[length] == '/');
		size_t first, count;
		tree_children(tree, parent, &first, &count);
		found = NULL;
		/* Children are sorted by name: binary search them. */
		size_t low = first, high = first + count;
		while (low < high) {
			size_t middle = (low + high) / 2;
			int order = strcmp(tree->children[middle]->name, component);
			if (order == 0) {
				found = tree->children[middle];
				break;
			}
			if (order < 0)
				low = middle + 1;
			else
				high = middle;
		}
		if (found == NULL)
			return NULL;
		parent = found->id;
	}
	return found;
}

/* ---- the difference of two trees ------------------------------------------- */

bool
tree_within(const char *path, const char *filter)
{
	size_t length;

	if (filter == NULL || filter[0] == '\0')
		return true;
	length = strlen(filter);
	while (length > 0 && filter[length - 1] == '/')
		length--;
	return strncmp(path, filter, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

static bool
content_equal(const struct tree_node *a, const struct tree_node *b)
{
	if (a->has_content != b->has_content)
		return false;
	if (a->has_content && !hash_equal(&a->blob, &b->blob))
		return false;
	return a->kind != NODE_FILE || (a->mode & 0777) == (b->mode & 0777);
}

static bool
within_any(const char *path, const char *const *filters, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (tree_within(path, filters[i]))
			return true;
	return count == 0;
}

static void
add(struct hearth_change_list *out, size_t *capacity, enum hearth_change_kind kind,
    const struct tree_node *node, const char *path, const char *old_path, bool content)
{
	if (out->count == *capacity) {
		*capacity = *capacity ? *capacity * 2 : 64;
		struct hearth_change *grown = storage_alloc(out->storage, *capacity * sizeof *grown);
		if (out->count > 0)
			memcpy(grown, out->items, out->count * sizeof *grown);
		out->items = grown;
	}
	struct hearth_change *change = &out->items[out->count++];
	memset(change, 0, sizeof *change);
	change->kind = kind;
	change->entry_kind = (enum hearth_entry_kind)node->kind;
	change->path = storage_strdup(out->storage, path);
	change->old_path = old_path ? storage_strdup(out->storage, old_path) : NULL;
	change->content_changed = content;
	change->size = node->size;
	change->root = node->root && node->root[0] ? storage_strdup(out->storage, node->root) : NULL;
}

/* A move's old root, when it left one (between the roots of a joined Home). */
static void
add_old_root(struct hearth_change_list *out, const struct tree_node *was)
{
	struct hearth_change *change = &out->items[out->count - 1];

	if (was->root != NULL && was->root[0] != '\0')
		change->old_root = storage_strdup(out->storage, was->root);
}

/* Whether a node left its place: its folder or name, or for a file its
 * root (a folder is in every root of a joined Home: its root is only the
 * first that held it). */
static bool
moved_itself(const struct tree_node *now, const struct tree_node *was)
{
	if (!node_id_equal(now->parent, was->parent) || strcmp(now->name, was->name) != 0)
		return true;
	return now->kind != NODE_DIR && now->root != NULL && was->root != NULL &&
	    strcmp(now->root, was->root) != 0;
}

static int
compare_changes(const void *a, const void *b)
{
	const struct hearth_change *x = a, *y = b;
	return strcmp(x->path, y->path);
}

void
tree_diff(struct tree *before, struct tree *after, const char *const *filters,
    size_t filter_count,
    void (*modified)(void *context, const struct tree_node *node, struct hearth_change_list *out),
    void *context, struct hearth_change_list *out)
{
	size_t capacity = 0;

	memset(out, 0, sizeof *out);
	out->storage = storage_new();
	for (size_t i = 0; i < after->count; i++) {
		struct tree_node *now = &after->nodes[i];
		struct tree_node *was = tree_find(before, now->id);
		const char *now_path = tree_path(after, now);
		if (was == NULL) {
			if (within_any(now_path, filters, filter_count))
				add(out, &capacity, HEARTH_ADDED, now, now_path, NULL, true);
			continue;
		}
		const char *was_path = tree_path(before, was);
		bool content = !content_equal(now, was);
		if (!within_any(now_path, filters, filter_count) &&
		    !within_any(was_path, filters, filter_count))
			continue;
		/* A path changes when an ancestor moves: only the node that
		 * moved itself is news. */
		if (moved_itself(now, was)) {
			add(out, &capacity, HEARTH_MOVED, now, now_path, was_path, content);
			add_old_root(out, was);
		} else if (content) {
			add(out, &capacity, HEARTH_MODIFIED, now, now_path, NULL, true);
		}
		if (content && modified != NULL)
			modified(context, now, out);
	}
	for (size_t i = 0; i < before->count; i++) {
		struct tree_node *was = &before->nodes[i];
		const char *was_path = tree_path(before, was);
		if (tree_find(after, was->id) == NULL && within_any(was_path, filters, filter_count))
			add(out, &capacity, HEARTH_DELETED, was, was_path, NULL, false);
	}
	if (out->count > 1)
		qsort(out->items, out->count, sizeof *out->items, compare_changes);
}
