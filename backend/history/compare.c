/* hearth diff's engine: two trees side by side, matched by node id. A side
 * is a version's tree, the index (the tree as last recorded or checked
 * out), or the working tree: the index with what a walk of the disk found
 * changed laid over it, those files read from the disk. One tree_diff
 * lists the changes for all three, so a move is a move everywhere and a
 * moved file is diffed against itself where it was. */
#include "backend/history/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/history/adopt.h"
#include "backend/history/blob.h"
#include "backend/history/history.h"
#include "backend/history/path_scope.h"
#include "backend/disk/reconcile.h"
#include "backend/disk/scan.h"
#include "model/diff.h"
#include "model/array.h"

struct hearth_comparison {
	struct hearth *home;
	struct tree from, to;
};

int
compare_load_version(struct hearth *home, const char *spec, struct tree *out,
    struct hearth_error *error)
{
	struct history_version version;

	memset(out, 0, sizeof *out);
	int status = history_resolve(home, spec, &version, error);
	if (status != 0)
		return status;
	status = tree_load(home, &version.vv, out, error);
	history_version_free(&version);
	return status;
}

/* ---- a version and the state before it ----------------------------------------------- */

/* What a version is shown against (see compare.h). */
static int
version_before(struct hearth *home, const struct history_version *version, struct vv *before,
    struct hearth_error *error)
{
	struct history_version earlier;
	struct replica_id replica;
	char hex[HASH_HEX];

	if (version->unnamed) {
		history_head_base(home, hex);
		if (hex[0] == '\0')
			return 0;
		if (history_resolve(home, hex, &earlier, error) != 0)
			return error->code;
		vv_copy(before, &earlier.vv);
		history_version_free(&earlier);
		return 0;
	}
	store_replica_id(&home->store, version->replica_number, &replica);
	bool merge = version->counter == version->previous + 1;
	if (!merge) {
		vv_copy(before, &version->vv);
		vv_set(before, replica, version->previous);
		return 0;
	}
	if (version->previous == 0)
		return 0;
	if (history_version_of_op(home, replica, version->previous, &earlier, error) != 0)
		return error->code;
	vv_copy(before, &earlier.vv);
	history_version_free(&earlier);
	return 0;
}

int
compare_version_vvs(struct hearth *home, const char *spec, struct vv *after, struct vv *before,
    struct hearth_error *error)
{
	struct history_version version;

	vv_init(after);
	vv_init(before);
	int status = history_resolve(home, spec, &version, error);
	if (status != 0)
		return status;
	status = version_before(home, &version, before, error);
	vv_copy(after, &version.vv);
	history_version_free(&version);
	if (status != 0) {
		vv_free(after);
		vv_free(before);
	}
	return status;
}

int
compare_load_pair(struct hearth *home, const char *spec, struct compare_pair *pair,
    struct hearth_error *error)
{
	struct history_version version;
	struct vv before;

	memset(pair, 0, sizeof *pair);
	int status = history_resolve(home, spec, &version, error);
	if (status != 0)
		return status;
	vv_init(&before);
	if (!version.unnamed)
		store_replica_id(&home->store, version.replica_number, &pair->replica);
	pair->previous = version.previous;
	pair->counter = version.counter;
	status = version_before(home, &version, &before, error);
	if (status == 0)
		status = tree_load(home, &version.vv, &pair->after, error);
	if (status == 0) {
		status = tree_load(home, &before, &pair->before, error);
		if (status != 0)
			tree_free(&pair->after);
	}
	vv_free(&before);
	history_version_free(&version);
	return status;
}

/* The version's tree from the scope, or from head's node table when the
 * scope is the whole log and the version covers head. */
static int
changes_after(struct hearth *home, const struct path_scope *scope, const struct vv *vv,
    struct tree *out, struct hearth_error *error)
{
	if (scope->whole && history_covers_head(home, vv))
		return tree_load_head(home, out, error);
	path_scope_tree(scope, vv, out);
	return 0;
}

int
compare_load_changes(struct hearth *home, const char *spec, bool whole_trees,
    struct compare_pair *pair, struct hearth_error *error)
{
	struct history_version version;
	struct path_scope scope;
	struct vv before;

	if (whole_trees)
		return compare_load_pair(home, spec, pair, error);
	memset(pair, 0, sizeof *pair);
	int status = history_resolve(home, spec, &version, error);
	if (status != 0)
		return status;
	vv_init(&before);
	status = version_before(home, &version, &before, error);
	if (status == 0 && (status = path_scope_open_changes(home, &version.vv, &before, &scope,
	    error)) == 1) {
		if (!version.unnamed)
			store_replica_id(&home->store, version.replica_number, &pair->replica);
		pair->previous = version.previous;
		pair->counter = version.counter;
		status = changes_after(home, &scope, &version.vv, &pair->after, error);
		if (status == 0)
			path_scope_tree(&scope, &before, &pair->before);
		path_scope_close(&scope);
	}
	vv_free(&before);
	history_version_free(&version);
	return status;
}

void
compare_free_pair(struct compare_pair *pair)
{
	tree_free(&pair->before);
	tree_free(&pair->after);
}

/* ---- the working tree -------------------------------------------------------------- */

static struct tree_node *
append_node(struct tree *tree, size_t *capacity)
{
	tree->nodes = array_grow(tree->nodes, capacity, tree->count + 1, sizeof *tree->nodes);
	struct tree_node *node = &tree->nodes[tree->count++];
	memset(node, 0, sizeof *node);
	return node;
}

/* The disk's side of a change: where it is now and, when its content
 * changed, that content (read from the disk when diffed). */
static void
take_disk_side(struct tree *tree, struct tree_node *node, const struct scan_change *change)
{
	node->parent = change->parent;
	node->name = arena_strndup(&tree->arena, (const char *)change->name, change->name_length);
	node->kind = change->node_kind;
	node->root = arena_strdup(&tree->arena, change->root_name ? change->root_name : "");
	node->mode = change->stamp.mode;
	node->mtime_ns = change->stamp.mtime_ns;
	if (change->kind != SCAN_ADDED && !change->content_changed)
		return;
	node->has_content = change->node_kind != NODE_DIR;
	node->blob = change->blob;
	node->size = change->stamp.size;
	node->on_disk = node->has_content;
}

/* An added file whose id the other side knows (an identity kept in its
 * xattr): its bytes must be hashed to tell whether it changed. */
static int
settle_added(struct hearth *home, struct scan_change *change, const struct tree *other,
    struct hearth_error *error)
{
	if (change->kind != SCAN_ADDED || !change->needs_content || other == NULL ||
	    tree_find(other, change->node) == NULL)
		return 0;
	return scan_hash_content(home, change, error);
}

static int
overlay_changes(struct hearth *home, struct scan_result *scan, const struct tree *other,
    struct tree *tree, struct hearth_error *error)
{
	size_t capacity = tree->count;
	bool *gone = array_zeroed(tree->count + 1, sizeof *gone);
	size_t indexed = tree->count;

	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *change = &scan->changes[i];
		if (change->kind == SCAN_STAMP || change->kind == SCAN_RESTORE ||
		    (change->adopted && change->kind == SCAN_DELETED))
			continue;
		int status = settle_added(home, change, other, error);
		if (status != 0) {
			free(gone);
			return status;
		}
		struct tree indexed_nodes = { .nodes = tree->nodes, .count = indexed };
		struct tree_node *node = change->kind == SCAN_ADDED ? NULL :
		    tree_find(&indexed_nodes, change->node);
		if (change->kind == SCAN_DELETED) {
			if (node != NULL && (size_t)(node - tree->nodes) < indexed)
				gone[node - tree->nodes] = true;
			continue;
		}
		if (node == NULL) {
			/* Only the index's nodes are sorted (and searched): a scan
			 * names a node once, so an appended one is never looked for. */
			node = append_node(tree, &capacity);
			node->id = change->node;
		}
		take_disk_side(tree, node, change);
	}
	size_t kept = 0;
	for (size_t i = 0; i < tree->count; i++)
		if (i >= indexed || !gone[i])
			tree->nodes[kept++] = tree->nodes[i];
	tree->count = kept;
	free(gone);
	tree_reindex(tree);
	return 0;
}

/* The working tree: the index, then each change a walk (or a current
 * watched index) finds laid over it. */
int
compare_load_working(struct hearth *home, const struct tree *other,
    const struct hearth_progress *progress, struct tree *out, struct hearth_error *error)
{
	struct scan_result scan;
	struct reconcile_scan how;

	memset(out, 0, sizeof *out);
	int status = reconcile_scan_tree(home, progress, &scan, &how, error);
	if (status != 0)
		return status;
	status = scan_settle_content(home, &scan, progress, error);
	/* Against the index, as status lists it: what a stopped checkout
	 * placed as head has it is no change (adopt.h). */
	if (status == 0 && other == NULL && !history_tree_at_head(home))
		adopt_places(home, &scan);
	if (status == 0)
		status = tree_load_index(home, out, error);
	if (status == 0) {
		status = overlay_changes(home, &scan, other, out, error);
		if (status != 0)
			tree_free(out);
	}
	scan_result_free(&scan);
	return status;
}

/* ---- one node's diff ---------------------------------------------------------------- */

struct side {
	struct buffer bytes;
	bool binary, large;
};

static int
read_disk(struct hearth *home, struct tree *tree, struct tree_node *node, size_t max,
    struct side *out, struct hearth_error *error)
{
	const struct home_root *root = home_root_named(home, node->root);
	const char *path = tree_path(tree, node);

	if (node->kind == NODE_SYMLINK) {
		struct arena scratch;
		char *target;
		size_t length;
		arena_init(&scratch, 4096);
		int failed = scan_read_link(root->fd, path, &scratch, &target, &length);
		if (failed == 0)
			buffer_append(&out->bytes, target, length);
		arena_free(&scratch);
		return failed ? hearth_fail_errno(error, "cannot read link %s/%s", root->path, path) : 0;
	}
	int fd = scan_open_file(root->fd, path);
	if (fd == SCAN_NOT_A_FILE)
		return hearth_fail(error, HEARTH_FAILED, "%s/%s is no longer a file (it changed "
		    "while being read); try again", root->path, path);
	if (fd < 0)
		return hearth_fail_errno(error, "cannot read %s/%s", root->path, path);
	for (;;) {
		buffer_reserve(&out->bytes, 65536);
		ssize_t got = read(fd, out->bytes.data + out->bytes.length, 65536);
		if (got < 0) {
			close(fd);
			return hearth_fail_errno(error, "cannot read %s/%s", root->path, path);
		}
		if (got == 0)
			break;
		out->bytes.length += (size_t)got;
		if (out->bytes.length > max) {
			out->large = true;
			break;
		}
	}
	close(fd);
	return 0;
}

static int
read_node(struct hearth *home, struct tree *tree, struct tree_node *node, size_t max,
    struct side *out, struct hearth_error *error)
{
	bool truncated = false;
	int status = 0;

	if (node == NULL || node->kind == NODE_DIR || !node->has_content)
		return 0;
	if (node->size > max) {
		out->large = true;
		return 0;
	}
	if (node->on_disk)
		status = read_disk(home, tree, node, max, out, error);
	else if (node->size > 0)
		status = blob_read(home, &node->blob, max, &out->bytes, &truncated, error);
	out->large = out->large || truncated;
	if (status == 0 && !out->large)
		out->binary = !diff_is_text((const char *)out->bytes.data, out->bytes.length);
	return status;
}

static unsigned
git_mode(const struct tree_node *node)
{
	if (node->kind == NODE_SYMLINK)
		return 0120000;
	if (node->kind == NODE_DIR)
		return 040000;
	return 0100000 | (node->mode & 0777);
}

/* git's extended heading: what the unified diff cannot say. */
static void
write_heading(struct tree_node *was, const char *was_path, struct tree_node *now,
    const char *now_path, struct buffer *out)
{
	buffer_printf(out, "diff --git a/%s b/%s\n", was ? was_path : now_path,
	    now ? now_path : was_path);
	if (was == NULL) {
		buffer_printf(out, "new file mode %06o\n", git_mode(now));
		return;
	}
	if (now == NULL) {
		buffer_printf(out, "deleted file mode %06o\n", git_mode(was));
		return;
	}
	if (git_mode(was) != git_mode(now))
		buffer_printf(out, "old mode %06o\nnew mode %06o\n", git_mode(was), git_mode(now));
	if (strcmp(was_path, now_path) != 0)
		buffer_printf(out, "rename from %s\nrename to %s\n", was_path, now_path);
	if (now->kind != NODE_DIR && strcmp(was->root, now->root) != 0)
		buffer_printf(out, "root %s -> %s\n", was->root, now->root);
}

static void
write_body(const struct side *old_side, const char *old_label, const struct side *new_side,
    const char *new_label, size_t max, struct buffer *out, struct hearth_text *text)
{
	if (old_side->binary || new_side->binary) {
		text->binary = true;
		buffer_printf(out, "Binary files %s and %s differ\n", old_label ? old_label : "/dev/null",
		    new_label ? new_label : "/dev/null");
		return;
	}
	if (old_side->large || new_side->large) {
		text->binary = true;
		buffer_printf(out, "Files %s and %s differ (over %zu bytes: not shown as text)\n",
		    old_label ? old_label : "/dev/null", new_label ? new_label : "/dev/null", max);
		return;
	}
	size_t start = out->length;
	diff_unified((const char *)old_side->bytes.data, old_side->bytes.length,
	    (const char *)new_side->bytes.data, new_side->bytes.length, old_label, new_label, 3,
	    out);
	diff_count_lines((const char *)out->data + start, out->length - start, &text->added,
	    &text->removed);
}

static bool
same_content(const struct tree_node *was, const struct tree_node *now)
{
	if (was == NULL || now == NULL || was->has_content != now->has_content)
		return false;
	return !was->has_content || hash_equal(&was->blob, &now->blob);
}

int
compare_diff_nodes(struct hearth *home, struct tree *before, struct tree_node *was,
    struct tree *after, struct tree_node *now, size_t max_bytes, struct hearth_text *out,
    struct hearth_error *error)
{
	struct side old_side = { 0 }, new_side = { 0 };
	struct buffer text;
	char *old_label = NULL, *new_label = NULL;
	const char *was_path = was ? tree_path(before, was) : NULL;
	const char *now_path = now ? tree_path(after, now) : NULL;

	memset(out, 0, sizeof *out);
	buffer_init(&text);
	buffer_init(&old_side.bytes);
	buffer_init(&new_side.bytes);
	write_heading(was, was_path, now, now_path, &text);
	int status = 0;
	bool folder = (was ? was->kind : now->kind) == NODE_DIR;
	if (!folder && !same_content(was, now)) {
		status = read_node(home, before, was, max_bytes, &old_side, error);
		if (status == 0)
			status = read_node(home, after, now, max_bytes, &new_side, error);
		if (was != NULL) {
			old_label = array_alloc(strlen(was_path) + 3, 1);
			sprintf(old_label, "a/%s", was_path);
		}
		if (now != NULL) {
			new_label = array_alloc(strlen(now_path) + 3, 1);
			sprintf(new_label, "b/%s", now_path);
		}
		if (status == 0)
			write_body(&old_side, old_label, &new_side, new_label, max_bytes, &text, out);
	}
	out->length = text.length;
	out->text = array_strdup(buffer_string(&text));
	free(old_label);
	free(new_label);
	buffer_free(&text);
	buffer_free(&old_side.bytes);
	buffer_free(&new_side.bytes);
	return status;
}

void
compare_change_nodes(struct tree *before, struct tree *after, const struct hearth_change *change,
    struct tree_node **was, struct tree_node **now)
{
	*now = change->kind == HEARTH_DELETED ? NULL : tree_lookup(after, change->path);
	if (*now != NULL)
		*was = tree_find(before, (*now)->id);
	else
		*was = tree_lookup(before, change->path);
}

/* ---- the public calls ----------------------------------------------------------------- */

static int
load_sides(struct hearth *home, const struct hearth_compare_options *options,
    const struct hearth_progress *progress, struct hearth_comparison *comparison,
    struct hearth_error *error)
{
	int status = options->from != NULL
	    ? compare_load_version(home, options->from, &comparison->from, error)
	    : tree_load_index(home, &comparison->from, error);
	if (status != 0)
		return status;
	status = options->to != NULL
	    ? compare_load_version(home, options->to, &comparison->to, error)
	    : compare_load_working(home, options->from ? &comparison->from : NULL, progress,
		&comparison->to, error);
	if (status != 0)
		tree_free(&comparison->from);
	return status;
}

/* A path the user named must be on one side at least. */
static int
check_paths(struct hearth_comparison *comparison, const struct hearth_compare_options *options,
    struct hearth_error *error)
{
	for (size_t i = 0; i < options->path_count; i++) {
		const char *path = options->paths[i];
		if (path[0] == '\0' || tree_lookup(&comparison->from, path) != NULL ||
		    tree_lookup(&comparison->to, path) != NULL)
			continue;
		return hearth_fail(error, HEARTH_USAGE, "no path %s in %s or %s", path,
		    options->from ? options->from : "the version the tree is at",
		    options->to ? options->to : "the working tree");
	}
	return 0;
}

int
hearth_compare(hearth *home, const struct hearth_compare_options *options,
    const struct hearth_progress *progress, struct hearth_comparison_result *out,
    struct hearth_error *error)
{
	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (options->from == NULL && options->to != NULL)
		return hearth_fail(error, HEARTH_USAGE, "comparing with version %s needs the version "
		    "to compare it with first", options->to);
	struct hearth_comparison *comparison = array_zeroed(1, sizeof *comparison);
	comparison->home = home;
	int status = load_sides(home, options, progress, comparison, error);
	if (status != 0) {
		free(comparison);
		return status;
	}
	out->comparison = comparison;
	status = check_paths(comparison, options, error);
	if (status != 0) {
		hearth_comparison_free(out);
		return status;
	}
	tree_diff(&comparison->from, &comparison->to, options->paths, options->path_count, NULL,
	    NULL, &out->changes);
	return 0;
}

int
hearth_comparison_diff(struct hearth_comparison_result *result, size_t index, size_t max_bytes,
    struct hearth_text *out, struct hearth_error *error)
{
	struct hearth_comparison *comparison = result->comparison;
	struct tree_node *was, *now;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (comparison == NULL || index >= result->changes.count)
		return hearth_fail(error, HEARTH_USAGE, "no change %zu in the comparison", index);
	compare_change_nodes(&comparison->from, &comparison->to, &result->changes.items[index], &was,
	    &now);
	if (was == NULL && now == NULL)
		return hearth_fail(error, HEARTH_FAILED, "%s is on neither side of the comparison",
		    result->changes.items[index].path);
	return compare_diff_nodes(comparison->home, &comparison->from, was, &comparison->to, now,
	    max_bytes, out, error);
}

void
hearth_comparison_free(struct hearth_comparison_result *result)
{
	if (result->comparison != NULL) {
		tree_free(&result->comparison->from);
		tree_free(&result->comparison->to);
		free(result->comparison);
	}
	hearth_change_list_free(&result->changes);
	memset(result, 0, sizeof *result);
}
