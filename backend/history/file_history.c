/* hearth log PATH: the versions that changed one file or folder, followed
 * through renames and moves by its node's identity. The op log's node
 * index gives the versions whose own ops touched the node (for a folder,
 * any node that was ever placed inside it); each is then checked against
 * its trees, which also say where the node was in it. */
#include <stdlib.h>
#include <string.h>

#include "backend/history/compare.h"
#include "backend/history/history.h"
#include "backend/history/path_scope.h"
#include "backend/history/tree.h"
#include "model/array.h"
#include "model/node_set.h"
#include "model/state.h"

#define LOG_PAGE 256


struct version_set {
	struct hash *ids;
	size_t count, capacity;
};

static int
compare_hashes(const void *a, const void *b)
{
	return memcmp(a, b, HASH_BYTES);
}

/* ---- which node ------------------------------------------------------------------ */

static bool
lookup_in(struct tree *tree, const char *path, struct node_id *node, enum node_kind *kind)
{
	struct tree_node *found = tree_lookup(tree, path);

	if (found != NULL) {
		*node = found->id;
		*kind = found->kind;
	}
	return found != NULL;
}

/* The index's node at path, or one a move not yet recorded brought
 * there (the working tree knows it; a new file has no history yet, and a
 * tree that cannot be walked, a root away, knows nothing). */
static bool
lookup_index_or_working(struct hearth *home, const char *path, struct node_id *node,
    enum node_kind *kind)
{
	struct tree index, working;
	struct hearth_error ignored;

	if (history_node_at(home, false, path, node, kind) == 1)
		return true;
	if (tree_load_index(home, &index, &ignored) != 0)
		return false;
	bool found = false;
	if (compare_load_working(home, NULL, NULL, &working, &ignored) == 0) {
		found = lookup_in(&working, path, node, kind) && tree_find(&index, *node) != NULL;
		tree_free(&working);
	}
	tree_free(&index);
	return found;
}

/* A version's trees and the ones before it: from scope when there is one
 * (they hold only its nodes, placed and named as the whole log places
 * them), else the version's whole trees. */
static int
version_pair(struct hearth *home, const struct path_scope *scope, const char *id,
    struct compare_pair *pair, struct hearth_error *error)
{
	struct vv after, before;

	if (scope == NULL)
		return compare_load_pair(home, id, pair, error);
	memset(pair, 0, sizeof *pair);
	int status = compare_version_vvs(home, id, &after, &before, error);
	if (status != 0)
		return status;
	path_scope_tree(scope, &after, &pair->after);
	path_scope_tree(scope, &before, &pair->before);
	vv_free(&after);
	vv_free(&before);
	return 0;
}

static int
never_held(struct hearth_error *error, const char *path)
{
	return hearth_fail(error, HEARTH_USAGE, "no file or folder %s in head, in the tree as last "
	    "recorded, or in any version", path);
}

/* A path gone from head and the tree: the newest version that held it,
 * from the scope of the nodes that could have held it (nodes_ever_at),
 * placed and named as the whole log places them, or from whole trees. */
static int
lookup_in_history(struct hearth *home, const struct path_scope *scope, const char *path,
    struct node_id *node, enum node_kind *kind, struct hearth_error *error)
{
	char before[HEARTH_ID_HEX] = "";

	for (;;) {
		struct hearth_log_query query = { .before = before[0] ? before : NULL, .limit = LOG_PAGE };
		struct hearth_version_list page;
		int status = hearth_log(home, &query, &page, error);
		if (status != 0)
			return status;
		bool found = false;
		for (size_t i = 0; i < page.count && !found; i++) {
			struct compare_pair pair;
			if (version_pair(home, scope, page.items[i].id, &pair, error) != 0)
				break;
			found = lookup_in(&pair.after, path, node, kind) ||
			    lookup_in(&pair.before, path, node, kind);
			compare_free_pair(&pair);
		}
		bool more = page.more && page.count > 0;
		if (page.count > 0)
			memcpy(before, page.items[page.count - 1].id, sizeof before);
		hearth_version_list_free(&page);
		if (found)
			return 0;
		if (error->code != HEARTH_OK)
			return error->code;
		if (!more)
			return never_held(error, path);
	}
}

/* Each PLACE of the log, decoded, to visit (which returns true to stop);
 * the names it decodes live until the next 1024 have been read. */
static int
each_place(struct hearth *home, bool (*visit)(void *context, const struct op_place *place),
    void *context, struct hearth_error *error)
{
	struct store_ops places;
	struct store_op_row row;
	struct arena arena;
	char reason[128];
	int status = 0;
	bool stop = false;

	arena_init(&arena, 64 * 1024);
	store_ops_of_kind(&home->store, OP_PLACE, &places);
	for (size_t n = 1; !stop && store_ops_next(&places, &row); n++) {
		struct op op;
		if (n % 1024 == 0) {
			arena_free(&arena);
			arena_init(&arena, 64 * 1024);
		}
		if (!op_decode(row.body, row.body_length, &op, &arena, reason, sizeof reason)) {
			status = hearth_fail(error, HEARTH_DAMAGED, "an op in the store does not decode: "
			    "%s (run hearth fsck)", reason);
			break;
		}
		stop = visit(context, &op.u.place);
	}
	status = store_ops_end(&places, status, error);
	arena_free(&arena);
	return status;
}

/* The next name of a path at *at (empty names, as in "a//b", skipped as
 * tree_lookup skips them); false at its end. */
static bool
next_name(const char **at, const char **name, size_t *length)
{
	while (**at == '/')
		(*at)++;
	if (**at == '\0')
		return false;
	*name = *at;
	*length = strcspn(*at, "/");
	*at += *length;
	return true;
}

/* A placement that gave a node the name at depth of a path. */
struct named_placement {
	struct node_id child, parent;
	size_t depth;
};

struct path_placements {
	const char *path;
	struct named_placement *items;
	size_t count, capacity;
};

/* Whether a version may show the node place names under name: the name
 * it gave, or the one a name clash gave its loser ("notes~1a2b3c4d.txt"). */
static bool
names_node(const struct op_place *place, const char *name, size_t length)
{
	if (place->name_length == length && memcmp(place->name, name, length) == 0)
		return true;
	return memchr(name, '~', length) != NULL &&
	    state_is_disambiguated_name(place->name, place->name_length, place->node,
		(const uint8_t *)name, length);
}

static bool
add_if_named(void *context, const struct op_place *place)
{
	struct path_placements *found = context;
	const char *at = found->path, *name;
	size_t length;

	for (size_t depth = 0; next_name(&at, &name, &length); depth++) {
		if (!names_node(place, name, length))
			continue;
		found->items = array_grow(found->items, &found->capacity, found->count + 1,
		    sizeof *found->items);
		found->items[found->count++] = (struct named_placement){
			.child = place->node, .parent = place->parent, .depth = depth,
		};
	}
	return false;
}

/* Every node a PLACE ever gave the path's last name in a folder a PLACE
 * ever gave the name before it, and so on to the top: a node shown at
 * the path in any version is one of them (a node is shown in a folder
 * and under a name some PLACE of it gave, or a clash loser's form of
 * it), so a mistyped path is refused after one pass over the
 * placements, before any tree is derived. */
static int
nodes_ever_at(struct hearth *home, const char *path, struct node_set *out,
    struct hearth_error *error)
{
	struct path_placements found = { .path = path };
	struct node_set level = { 0 };
	const char *at = path, *name;
	size_t length, depths = 0;

	while (next_name(&at, &name, &length))
		depths++;
	int status = each_place(home, add_if_named, &found, error);
	node_set_add(&level, NODE_ROOT);
	node_set_seal(&level);
	for (size_t depth = 0; status == 0 && depth < depths && level.count > 0; depth++) {
		struct node_set next = { 0 };
		for (size_t i = 0; i < found.count; i++)
			if (found.items[i].depth == depth && node_set_has(&level, found.items[i].parent))
				node_set_add(&next, found.items[i].child);
		node_set_seal(&next);
		node_set_free(&level);
		level = next;
	}
	free(found.items);
	if (depths == 0)
		node_set_free(&level);
	*out = level;
	return status;
}

/* A path gone from head and the tree, looked for in history. */
static int
find_in_history(struct hearth *home, const char *path, bool whole_trees, struct node_id *node,
    enum node_kind *kind, struct hearth_error *error)
{
	struct node_set named = { 0 };
	struct path_scope scope;
	int opened = 0;

	int status = nodes_ever_at(home, path, &named, error);
	if (status == 0 && named.count == 0)
		status = never_held(error, path);
	if (status == 0 && !whole_trees)
		opened = path_scope_open(home, named.ids, named.count, &scope, error);
	if (opened != 0 && opened != 1)
		status = opened;
	if (status == 0)
		status = lookup_in_history(home, opened == 1 ? &scope : NULL, path, node, kind, error);
	if (opened == 1)
		path_scope_close(&scope);
	node_set_free(&named);
	return status;
}

static int
find_node(struct hearth *home, const char *path, bool whole_trees, struct node_id *node,
    enum node_kind *kind, struct hearth_error *error)
{
	if (path[0] == '\0')
		return hearth_fail(error, HEARTH_USAGE, "log of the whole Home takes no path");
	if (history_node_at(home, true, path, node, kind) == 1 ||
	    lookup_index_or_working(home, path, node, kind))
		return 0;
	return find_in_history(home, path, whole_trees, node, kind, error);
}

/* ---- which versions ------------------------------------------------------------------ */

struct placement_pairs {
	struct node_set children, parents;	/* as lists: pair i is (children[i], parents[i]) */
};

static bool
add_pair(void *context, const struct op_place *place)
{
	struct placement_pairs *pairs = context;
	node_set_add(&pairs->children, place->node);
	node_set_add(&pairs->parents, place->parent);
	return false;
}

/* A folder's nodes: itself and every node ever placed in it, or in a
 * node placed in it, and so on (by the parents of all PLACE ops). */
static int
folder_nodes(struct hearth *home, struct node_set *set, struct hearth_error *error)
{
	struct placement_pairs pairs = { 0 };
	int status = each_place(home, add_pair, &pairs, error);

	if (status == 0)
		node_set_close(set, pairs.children.ids, pairs.parents.ids, pairs.children.count, false);
	node_set_free(&pairs.children);
	node_set_free(&pairs.parents);
	return status;
}

static void
add_versions_of(struct hearth *home, struct node_id node, struct version_set *out)
{
	history_versions_of_node(home, node, &out->ids, &out->count, &out->capacity);
}

static int
candidate_versions(struct hearth *home, struct node_id node, enum node_kind kind,
    struct version_set *out, struct hearth_error *error)
{
	struct node_set nodes = { 0 };

	node_set_add(&nodes, node);
	int status = kind == NODE_DIR ? folder_nodes(home, &nodes, error) : 0;
	for (size_t i = 0; status == 0 && i < nodes.count; i++)
		add_versions_of(home, nodes.ids[i], out);
	node_set_free(&nodes);
	if (out->count > 1)
		qsort(out->ids, out->count, sizeof *out->ids, compare_hashes);
	return status;
}

static bool
is_candidate(const struct version_set *set, const char *id_hex)
{
	struct hash id;

	if (!hex_decode(id_hex, id.bytes, HASH_BYTES))
		return false;
	return bsearch(&id, set->ids, set->count, sizeof *set->ids, compare_hashes) != NULL;
}

/* Whether the trees differ at the node or below it; the path is where the
 * node is in after (where it was in before, when after lacks it), in
 * storage, or NULL when they do not differ. */
static const char *
changed_between(struct tree *before, struct tree *after, struct node_id node,
    struct hearth_storage *storage)
{
	struct hearth_change_list changes;
	struct tree_node *now = tree_find(after, node), *was = tree_find(before, node);
	const char *at = now ? tree_path(after, now) : was ? tree_path(before, was) : NULL;
	const char *path = NULL;

	if (at == NULL)
		return NULL;
	tree_diff(before, after, &at, 1, NULL, NULL, &changes);
	if (changes.count > 0)
		path = storage_strdup(storage, at);
	hearth_change_list_free(&changes);
	return path;
}

/* Whether the version changed the node or what is below it; *path is
 * where the node was in it (where it was before, when the version
 * deleted it), in storage. */
static int
changed_in(struct hearth *home, const struct path_scope *scope, const char *id,
    struct node_id node, struct hearth_storage *storage, const char **path,
    struct hearth_error *error)
{
	struct compare_pair pair;

	*path = NULL;
	int status = version_pair(home, scope, id, &pair, error);
	if (status != 0)
		return status;
	*path = changed_between(&pair.before, &pair.after, node, storage);
	compare_free_pair(&pair);
	return 0;
}

/* ---- the listing ------------------------------------------------------------------------ */

struct path_log {
	struct hearth *home;
	struct node_id node;
	const struct path_scope *scope;	/* NULL: each version's whole trees */
	struct version_set candidates;
	size_t limit;
	struct hearth_version_list *out;
	size_t capacity;
};

static void
keep_version(struct path_log *log, const struct hearth_version *version, const char *path)
{
	struct hearth_version_list *out = log->out;

	if (out->count == log->capacity) {
		log->capacity = log->capacity ? log->capacity * 2 : 32;
		struct hearth_version *grown = storage_alloc(out->storage,
		    log->capacity * sizeof *grown);
		if (out->count > 0)
			memcpy(grown, out->items, out->count * sizeof *grown);
		out->items = grown;
	}
	struct hearth_version *kept = &out->items[out->count++];
	*kept = *version;
	kept->author = storage_strdup(out->storage, version->author ? version->author : "");
	kept->message = storage_strdup(out->storage, version->message ? version->message : "");
	kept->path = path;
}

/* One page of the whole history, filtered; false when it was the last or
 * the listing is full. */
static int
filter_page(struct path_log *log, const struct hearth_log_query *query, char *before, bool *more,
    struct hearth_error *error)
{
	struct hearth_log_query page_query = {
		.before = before[0] ? before : NULL, .limit = LOG_PAGE, .grep = query->grep,
	};
	struct hearth_version_list page;

	*more = false;
	int status = hearth_log(log->home, &page_query, &page, error);
	for (size_t i = 0; status == 0 && i < page.count; i++) {
		const char *path;
		if (log->out->count == log->limit) {
			log->out->more = true;
			break;
		}
		if (!is_candidate(&log->candidates, page.items[i].id))
			continue;
		status = changed_in(log->home, log->scope, page.items[i].id, log->node,
		    log->out->storage, &path, error);
		if (status == 0 && path != NULL)
			keep_version(log, &page.items[i], path);
	}
	if (status == 0) {
		*more = page.more && page.count > 0 && !log->out->more;
		if (page.count > 0)
			memcpy(before, page.items[page.count - 1].id, HEARTH_ID_HEX);
		hearth_version_list_free(&page);
	}
	return status;
}

int
history_log_path_by(struct hearth *home, const struct hearth_log_query *query, bool whole_trees,
    struct hearth_version_list *out, struct hearth_error *error)
{
	struct path_log log = {
		.home = home, .limit = query->limit ? query->limit : SIZE_MAX, .out = out,
	};
	struct path_scope scope = { 0 };
	enum node_kind kind;
	char before[HEARTH_ID_HEX] = "";

	memset(out, 0, sizeof *out);
	if (query->before != NULL)
		snprintf(before, sizeof before, "%s", query->before);
	int status = find_node(home, query->path, whole_trees, &log.node, &kind, error);
	if (status == 0)
		status = candidate_versions(home, log.node, kind, &log.candidates, error);
	/* More than one version to look at: the scope, read once, is cheaper
	 * than two whole trees a version. */
	if (status == 0 && !whole_trees && log.candidates.count > 1) {
		int opened = path_scope_open(home, &log.node, 1, &scope, error);
		if (opened == 1)
			log.scope = &scope;
		else if (opened != 0)
			status = opened;
	}
	out->storage = storage_new();
	out->items = storage_alloc(out->storage, sizeof *out->items);
	for (bool more = status == 0 && log.candidates.count > 0; more;)
		status = filter_page(&log, query, before, &more, error);
	free(log.candidates.ids);
	if (log.scope != NULL)
		path_scope_close(&scope);
	if (status != 0)
		hearth_version_list_free(out);
	return status;
}

int
history_log_path(struct hearth *home, const struct hearth_log_query *query,
    struct hearth_version_list *out, struct hearth_error *error)
{
	return history_log_path_by(home, query, false, out, error);
}
