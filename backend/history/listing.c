/* ls and cat: one folder's entries at a time, by keyset (names after the
 * last one shown), from the working-tree index, the head state, or an older
 * version's derived tree; and a file's bytes at a version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/blob.h"
#include "backend/history/history.h"
#include "backend/history/tree.h"
#include "model/array.h"

static const char SQL_INDEX_CHILD[] =
    "SELECT node, kind FROM entry WHERE parent = ?1 AND name = ?2 ORDER BY kind = 2 DESC LIMIT 1";
static const char SQL_INDEX_PAGE[] =
    "SELECT name, kind, root, size, mtime, mode, node, restore FROM entry "
    "WHERE parent = ?1 AND name > ?2 ORDER BY name LIMIT ?3";
static const char SQL_HEAD_CHILD[] =
    "SELECT id, kind FROM node WHERE shown_parent = ?1 AND shown = ?2 AND live = 1 LIMIT 1";
static const char SQL_HEAD_PAGE[] =
    "SELECT shown, kind, shown_root, size, mtime, mode, id, 0 FROM node "
    "WHERE shown_parent = ?1 AND live = 1 AND shown > ?2 ORDER BY shown LIMIT ?3";

static const char SQL_INDEX_ROOT[] = "SELECT root FROM entry WHERE node = ?1";

/* The root column of a version's entry, as this machine has it. A version
 * names the root its node was recorded in on whichever replica made it; a
 * Home without a root of that name keeps the file elsewhere (docs/DESIGN.md §6):
 * where the working-tree index has the node, else where a checkout would
 * put it (home_place_root). A name this Home lacks would point the user
 * at a disk that is not here. */
static const char *
local_root(struct hearth *home, struct hearth_storage *storage, const char *root,
    const uint8_t node[ID_BYTES], const char *folder, const char *name, bool is_dir)
{
	/* The Home's own copy of the name: root may live in a tree that is
	 * freed before the listing is read (hearth_list of an older version). */
	for (size_t i = 0; i < home->root_count; i++)
		if (strcmp(home->roots[i].name, root) == 0)
			return home->roots[i].name;
	sqlite3_stmt *statement = store_statement(&home->store, SQL_INDEX_ROOT);
	sqlite3_bind_blob(statement, 1, node, ID_BYTES, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) == SQLITE_ROW) {
		const char *here = storage_strdup(storage,
		    (const char *)sqlite3_column_text(statement, 0));
		sqlite3_reset(statement);
		return here;
	}
	sqlite3_reset(statement);
	char path[8192];
	snprintf(path, sizeof path, "%s%s%s", folder != NULL ? folder : "",
	    folder != NULL && folder[0] != '\0' ? "/" : "", name);
	return home->roots[home_place_root(home, root, path, is_dir)].name;
}

/* Finds the folder at path by walking names down from the top. */
static int
find_folder(struct hearth *home, const char *child_sql, const char *path, struct node_id *out,
    struct hearth_error *error)
{
	struct node_id node = NODE_ROOT;
	const char *cursor = path ? path : "";

	while (*cursor != '\0') {
		size_t length = strcspn(cursor, "/");
		if (length == 0) {
			cursor++;
			continue;
		}
		sqlite3_stmt *statement = store_statement(&home->store, child_sql);
		sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
		sqlite3_bind_blob(statement, 2, cursor, (int)length, SQLITE_STATIC);
		if (sqlite3_step(statement) != SQLITE_ROW || sqlite3_column_int(statement, 1) != NODE_DIR) {
			sqlite3_reset(statement);
			return hearth_fail(error, HEARTH_USAGE, "no folder %s", path);
		}
		memcpy(node.bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
		sqlite3_reset(statement);
		cursor += length;
	}
	*out = node;
	return 0;
}

static void
list_reserve(struct hearth_entry_list *out, size_t *capacity)
{
	out->items = array_grow(out->items, capacity, out->count + 1, sizeof *out->items);
}

/* by_version: rows of a version (the node table), whose roots are the
 * recording replica's; else the working-tree index, whose are this Home's. */
static int
list_from_table(struct hearth *home, const char *child_sql, const char *page_sql,
    bool by_version, const struct hearth_list_query *query, struct hearth_entry_list *out,
    struct hearth_error *error)
{
	struct node_id folder;
	size_t limit = query->limit ? query->limit : SIZE_MAX / 2, capacity = 0;
	int step;

	if (find_folder(home, child_sql, query->folder, &folder, error) != 0)
		return error->code;
	sqlite3_stmt *statement = store_statement(&home->store, page_sql);
	sqlite3_bind_blob(statement, 1, folder.bytes, ID_BYTES, SQLITE_TRANSIENT);
	/* Always a range on the name, "" (below every name) for the first
	 * page: an optional one ("?2 IS NULL OR") keeps SQLite from seeking,
	 * and a later page would read every name before it. */
	const char *after = query->after != NULL ? query->after : "";
	sqlite3_bind_blob(statement, 2, after, (int)strlen(after), SQLITE_STATIC);
	sqlite3_bind_int64(statement, 3, (int64_t)(limit + 1));
	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		if (out->count == limit) {
			out->more = true;
			break;
		}
		list_reserve(out, &capacity);
		struct hearth_entry *entry = &out->items[out->count++];
		memset(entry, 0, sizeof *entry);
		entry->name = storage_strndup(out->storage, sqlite3_column_blob(statement, 0),
		    (size_t)sqlite3_column_bytes(statement, 0));
		entry->kind = (enum hearth_entry_kind)sqlite3_column_int(statement, 1);
		entry->root = storage_strdup(out->storage, (const char *)sqlite3_column_text(statement, 2));
		entry->size = (uint64_t)sqlite3_column_int64(statement, 3);
		entry->mtime_ns = store_column_mtime(statement, 4);
		entry->mode = (uint32_t)sqlite3_column_int(statement, 5);
		hex_encode(sqlite3_column_blob(statement, 6), ID_BYTES, entry->node);
		if (by_version)
			entry->root = local_root(home, out->storage, entry->root,
			    sqlite3_column_blob(statement, 6), query->folder, entry->name,
			    entry->kind == HEARTH_DIR);
		entry->mark = sqlite3_column_int(statement, 7) ? HEARTH_MODIFIED : ' ';
	}
	sqlite3_reset(statement);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return hearth_fail(error, HEARTH_FAILED, "cannot list: %s", sqlite3_errmsg(home->store.db));
	return 0;
}

static int
list_from_tree(struct hearth *home, struct tree *tree, const struct hearth_list_query *query,
    struct hearth_entry_list *out, struct hearth_error *error)
{
	struct node_id folder = NODE_ROOT;
	size_t limit = query->limit ? query->limit : SIZE_MAX / 2, capacity = 0, first, count;

	if (query->folder != NULL && query->folder[0] != '\0') {
		struct tree_node *node = tree_lookup(tree, query->folder);
		if (node == NULL || node->kind != NODE_DIR)
			return hearth_fail(error, HEARTH_USAGE, "no folder %s in that version", query->folder);
		folder = node->id;
	}
	tree_children(tree, folder, &first, &count);
	for (size_t i = first; i < first + count; i++) {
		struct tree_node *node = tree->children[i];
		if (query->after != NULL && strcmp(node->name, query->after) <= 0)
			continue;
		if (out->count == limit) {
			out->more = true;
			break;
		}
		list_reserve(out, &capacity);
		struct hearth_entry *entry = &out->items[out->count++];
		memset(entry, 0, sizeof *entry);
		entry->name = storage_strdup(out->storage, node->name);
		entry->kind = (enum hearth_entry_kind)node->kind;
		entry->root = local_root(home, out->storage, node->root, node->id.bytes,
		    query->folder, node->name, node->kind == NODE_DIR);
		entry->size = node->size;
		entry->mtime_ns = node->mtime_ns;
		entry->mode = node->mode;
		entry->mark = ' ';
		node_id_hex(node->id, entry->node);
	}
	return 0;
}

int
hearth_list(hearth *home, const struct hearth_list_query *query, struct hearth_entry_list *out,
    struct hearth_error *error)
{
	struct history_version version;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	out->storage = storage_new();
	if (query->version == NULL) {
		status = list_from_table(home, SQL_INDEX_CHILD, SQL_INDEX_PAGE, false, query, out,
		    error);
	} else if ((status = history_resolve(home, query->version, &version, error)) == 0) {
		if (history_covers_head(home, &version.vv)) {
			status = list_from_table(home, SQL_HEAD_CHILD, SQL_HEAD_PAGE, true, query, out,
			    error);
		} else {
			struct tree tree;
			status = tree_load(home, &version.vv, &tree, error);
			if (status == 0) {
				status = list_from_tree(home, &tree, query, out, error);
				tree_free(&tree);
			}
		}
		history_version_free(&version);
	}
	/* The items move into storage so one free releases everything. */
	struct hearth_entry *items = storage_alloc(out->storage,
	    (out->count ? out->count : 1) * sizeof *items);
	if (out->count > 0)
		memcpy(items, out->items, out->count * sizeof *items);
	free(out->items);
	out->items = items;
	/* A failed call leaves nothing for the caller to free. */
	if (status != 0)
		hearth_entry_list_free(out);
	return status;
}

void
hearth_entry_list_free(struct hearth_entry_list *list)
{
	storage_free(list->storage);
	memset(list, 0, sizeof *list);
}

int
hearth_cat(hearth *home, const char *version_spec, const char *path, int fd,
    struct hearth_error *error)
{
	struct history_version version;
	struct tree tree;

	hearth_error_clear(error);
	int status = history_resolve(home, version_spec ? version_spec : "head", &version, error);
	if (status != 0)
		return status;
	status = tree_load(home, &version.vv, &tree, error);
	history_version_free(&version);
	if (status != 0)
		return status;
	struct tree_node *node = tree_lookup(&tree, path);
	if (node == NULL)
		status = hearth_fail(error, HEARTH_USAGE, "no file %s in version %s", path,
		    version_spec ? version_spec : "head");
	else if (node->kind == NODE_DIR)
		status = hearth_fail(error, HEARTH_USAGE, "%s is a folder", path);
	else if (node->kind == NODE_SYMLINK)
		status = hearth_fail(error, HEARTH_USAGE, "%s is a symbolic link, not a file",
		    path);
	else if (node->has_content && node->size > 0)
		status = blob_write_to_fd(home, &node->blob, fd, error);
	tree_free(&tree);
	return status;
}
