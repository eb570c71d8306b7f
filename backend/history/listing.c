/* ls and cat: one folder's entries at a time, by keyset (names after the
 * last one shown), from the working-tree index, the head state, or an older
 * version's derived tree; and a file's bytes at a version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/disk/scan.h"
#include "backend/history/blob.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/history/tree.h"
#include "model/array.h"
#include "model/path.h"

static unsigned char
ascii_lower(unsigned char byte)
{
	return byte >= 'A' && byte <= 'Z' ? (unsigned char)(byte - 'A' + 'a') : byte;
}

/* The child of a folder by name: the index's (scan_index_child) or head's
 * (head_shown_at). */
typedef int child_finder(struct hearth *home, struct node_id folder, const void *name,
    size_t length, struct node_id *node, enum node_kind *kind);

/* The root column of a version's entry, as this machine has it. A version
 * names the root its node was recorded in on whichever replica made it; a
 * Home without a root of that name keeps the file elsewhere (docs/DESIGN.md §6):
 * where the working-tree index has the node, else where a checkout would
 * put it (home_place_root). A name this Home lacks would point the user
 * at a disk that is not here. */
static const char *
local_root(struct hearth *home, struct hearth_storage *storage, const char *root,
    struct node_id node, const char *folder, const char *name, bool is_dir)
{
	/* The Home's own copy of the name: root may live in a tree that is
	 * freed before the listing is read (hearth_list of an older version). */
	for (size_t i = 0; i < home->root_count; i++)
		if (strcmp(home->roots[i].name, root) == 0)
			return home->roots[i].name;
	struct buffer here;
	buffer_init(&here);
	if (scan_index_root(home, node, &here)) {
		const char *copy = storage_strdup(storage, (const char *)here.data);
		buffer_free(&here);
		return copy;
	}
	buffer_free(&here);
	char path[8192];
	snprintf(path, sizeof path, "%s%s%s", folder != NULL ? folder : "",
	    folder != NULL && folder[0] != '\0' ? "/" : "", name);
	return home->roots[home_place_root(home, root, path, is_dir)].name;
}

int
history_node_at(struct hearth *home, bool in_head, const char *path, struct node_id *node,
    enum node_kind *kind)
{
	child_finder *child_of = in_head ? head_shown_at : scan_index_child;
	const char *cursor = path ? path : "";

	*node = NODE_ROOT;
	*kind = NODE_DIR;
	while (*cursor != '\0') {
		size_t length = strcspn(cursor, "/");
		if (length == 0) {
			cursor++;
			continue;
		}
		if (*kind != NODE_DIR || child_of(home, *node, cursor, length, node, kind) != 1)
			return 0;
		cursor += length;
	}
	return 1;
}

static int
find_folder(struct hearth *home, bool in_head, const char *path, struct node_id *out,
    struct hearth_error *error)
{
	enum node_kind kind;

	if (history_node_at(home, in_head, path, out, &kind) != 1 || kind != NODE_DIR)
		return hearth_fail(error, HEARTH_USAGE, "no folder %s", path);
	return 0;
}

static void
list_reserve(struct hearth_entry_list *out, size_t *capacity)
{
	out->items = array_grow(out->items, capacity, out->count + 1, sizeof *out->items);
}

/* One page being listed, from the index or from head. */
struct page {
	struct hearth *home;
	const struct hearth_list_query *query;
	struct hearth_entry_list *out;
	size_t limit, capacity;
	bool by_version;	/* head's rows, whose roots are the recording replica's */
};

static int
page_add(struct page *page, const void *name, size_t name_length, enum node_kind kind,
    const char *root, uint64_t size, op_mtime mtime_ns, uint32_t mode, struct node_id node,
    bool restoring)
{
	struct hearth_entry_list *out = page->out;
	if (out->count == page->limit) {
		out->more = true;
		return 1;
	}
	list_reserve(out, &page->capacity);
	struct hearth_entry *entry = &out->items[out->count++];
	memset(entry, 0, sizeof *entry);
	entry->name = storage_strndup(out->storage, name, name_length);
	entry->kind = (enum hearth_entry_kind)kind;
	entry->root = storage_strdup(out->storage, root);
	entry->size = size;
	entry->mtime_ns = mtime_ns;
	entry->mode = mode;
	node_id_hex(node, entry->node);
	if (page->by_version)
		entry->root = local_root(page->home, out->storage, entry->root, node,
		    page->query->folder, entry->name, entry->kind == HEARTH_DIR);
	entry->mark = restoring ? HEARTH_MODIFIED : ' ';
	return 0;
}

static int
page_add_indexed(void *context, const struct scan_entry_row *entry)
{
	return page_add(context, entry->name, entry->name_length, entry->kind, entry->root,
	    entry->stamp.size, entry->stamp.mtime_ns, entry->stamp.mode, entry->node,
	    entry->restore != 0);
}

static int
page_add_shown(void *context, const struct head_shown_row *row)
{
	return page_add(context, row->shown, row->shown_length, row->kind, row->root, row->size,
	    row->mtime_ns, row->mode, row->id, false);
}

/* by_version: rows of a version (the node table), whose roots are the
 * recording replica's; else the working-tree index, whose are this Home's. */
static int
list_from_table(struct hearth *home, bool by_version, const struct hearth_list_query *query,
    struct hearth_entry_list *out, struct hearth_error *error)
{
	struct page page = { .home = home, .query = query, .out = out, .by_version = by_version,
		.limit = query->limit ? query->limit : SIZE_MAX / 2 };
	struct node_id folder;

	if (find_folder(home, by_version, query->folder, &folder, error) != 0)
		return error->code;
	const char *after = query->after != NULL ? query->after : "";
	int status = by_version
	    ? head_shown_page(home, folder, after, page.limit + 1, page_add_shown, &page)
	    : scan_index_page(home, folder, after, page.limit + 1, page_add_indexed, &page);
	if (status < 0)
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
		entry->root = local_root(home, out->storage, node->root, node->id,
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
	/* One read snapshot for the folder's lookups and its page: each
	 * statement alone took and dropped SQLite's shared lock, 6 fcntl
	 * and 3 fstat a call (2 and 1 so; p50 46 -> 37 us at 1M entries). */
	store_begin_read(&home->store);
	if (query->version == NULL) {
		status = list_from_table(home, false, query, out, error);
	} else if ((status = history_resolve(home, query->version, &version, error)) == 0) {
		if (history_covers_head(home, &version.vv)) {
			status = list_from_table(home, true, query, out, error);
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
	store_end_read(&home->store);
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

/* Whether name holds text, ASCII letters in either case. */
static bool
name_holds(const unsigned char *name, size_t length, const char *text, size_t text_length)
{
	for (size_t at = 0; at + text_length <= length; at++) {
		size_t i = 0;
		while (i < text_length &&
		    ascii_lower(name[at + i]) == ascii_lower((unsigned char)text[i]))
			i++;
		if (i == text_length)
			return true;
	}
	return false;
}

/* One row of the index the filter keeps: a folder, on the way to a match,
 * or a match; its name is at name_at in the search's names. */
struct name_row {
	struct node_id node, parent;
	size_t name_at, name_length;
};

/* The filter reads the index once, through a covering index of (node,
 * parent, name, kind): every folder, for the paths, and every row whose
 * name holds the text. Paths are then made in memory; a statement a
 * step up each match's chain cost 21 us a match, 274 ms a call for a
 * text 11 111 of 100 000 names hold (perf/RESULTS.md). */
struct name_search {
	const char *text;
	size_t text_length;
	struct name_row *folders, *matches;
	size_t folder_count, folder_capacity, match_count, match_capacity;
	struct buffer names;
};

static void
keep_row(struct name_row **rows, size_t *count, size_t *capacity,
    const struct scan_entry_row *entry, size_t name_at)
{
	*rows = array_grow(*rows, capacity, *count + 1, sizeof **rows);
	(*rows)[(*count)++] = (struct name_row){ entry->node, entry->parent, name_at,
		entry->name_length };
}

static int
name_search_visit(void *context, const struct scan_entry_row *entry)
{
	struct name_search *search = context;
	bool folder = entry->kind == NODE_DIR;
	bool match = name_holds(entry->name, entry->name_length, search->text,
	    search->text_length);

	if (!folder && !match)
		return 0;
	size_t name_at = search->names.length;
	buffer_append(&search->names, entry->name, entry->name_length);
	if (folder)
		keep_row(&search->folders, &search->folder_count,
		    &search->folder_capacity, entry, name_at);
	if (match)
		keep_row(&search->matches, &search->match_count,
		    &search->match_capacity, entry, name_at);
	return 0;
}

static int
compare_rows_by_node(const void *left, const void *right)
{
	return memcmp(((const struct name_row *)left)->node.bytes,
	    ((const struct name_row *)right)->node.bytes, ID_BYTES);
}

/* One step up, for path_from_parents: the match itself first, then the
 * folders by node. */
struct name_step {
	const struct name_search *search;
	const struct name_row *match;
};

static bool
name_step(void *context, struct node_id node, struct node_id *parent, const uint8_t **name,
    size_t *name_length)
{
	const struct name_step *step = context;
	const struct name_row *row = step->match;

	if (!node_id_equal(node, row->node)) {
		struct name_row key = { .node = node };
		row = bsearch(&key, step->search->folders, step->search->folder_count,
		    sizeof key, compare_rows_by_node);
		if (row == NULL)
			return false;
	}
	*parent = row->parent;
	*name = step->search->names.data + row->name_at;
	*name_length = row->name_length;
	return true;
}

static void
name_search_free(struct name_search *search)
{
	free(search->folders);
	free(search->matches);
	buffer_free(&search->names);
}

static int
compare_paths(const void *left, const void *right)
{
	return strcmp(*(const char *const *)left, *(const char *const *)right);
}

int
hearth_find_names(hearth *home, const char *text, size_t limit, struct hearth_path_list *out,
    struct hearth_error *error)
{
	struct name_search search = { .text = text, .text_length = text ? strlen(text) : 0 };

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	out->storage = storage_new();
	if (search.text_length == 0)
		return 0;
	buffer_init(&search.names);
	if (scan_index_names_each(home, name_search_visit, &search) != 0) {
		name_search_free(&search);
		hearth_path_list_free(out);
		return hearth_fail(error, HEARTH_FAILED, "cannot read the index: %s",
		    sqlite3_errmsg(home->store.db));
	}
	qsort(search.folders, search.folder_count, sizeof *search.folders, compare_rows_by_node);
	out->items = storage_alloc(out->storage, (search.match_count ? search.match_count : 1) *
	    sizeof *out->items);
	struct buffer path;
	buffer_init(&path);
	/* A row whose chain of folders does not reach the top (one in the
	 * trash) is no path of the tree. */
	for (size_t i = 0; i < search.match_count; i++) {
		struct name_step step = { &search, &search.matches[i] };
		if (path_from_parents(search.matches[i].node, name_step, &step, &path) ==
		    PATH_AT_TOP)
			out->items[out->count++] = storage_strdup(out->storage,
			    (const char *)path.data);
	}
	buffer_free(&path);
	name_search_free(&search);
	qsort(out->items, out->count, sizeof *out->items, compare_paths);
	if (limit != 0 && out->count > limit) {
		out->count = limit;
		out->more = true;
	}
	return 0;
}

void
hearth_path_list_free(struct hearth_path_list *list)
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
