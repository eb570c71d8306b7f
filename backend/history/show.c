/* show and diff: what a version changed, as the difference between the
 * state it names and the state just before it on its replica (its author's
 * previous version), so each version shows the work recorded in it. A
 * merge version, which records no work of its own, shows what it took in
 * against its replica's version before it; the unnamed head state (see
 * history_head) shows what it holds past the version head~1 names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/automerge.h"
#include "backend/history/blob.h"
#include "backend/history/compare.h"
#include "backend/history/history.h"
#include "backend/history/tree.h"
#include "model/diff.h"
#include "model/array.h"

/* Whether this version made the node's content by a line merge: then its
 * sides are loaded into sides (free them). */
static bool
merged_here(struct hearth *home, const struct compare_pair *pair, const struct tree_node *node,
    struct automerge_sides *sides)
{
	struct arena scratch;
	struct hearth_error ignored;
	struct hearth_error failure;
	bool merged = false;

	if (node->kind != NODE_FILE)
		return false;
	arena_init(&scratch, 4096);
	for (size_t i = 0; i < node->content_head_count && !merged; i++) {
		struct op_id id = node->content_heads[i];
		struct op set;
		if (!replica_id_equal(id.replica, pair->replica) || id.counter <= pair->previous ||
		    id.counter > pair->counter)
			continue;
		if (store_get_op(&home->store, id, &set, &scratch, &failure) == 1)
			merged = automerge_explain(home, &set, sides, &ignored) == 1;
	}
	arena_free(&scratch);
	return merged;
}

/* Marks a change a line merge made with who made the sides. */
static void
mark_merged(struct hearth *home, const struct compare_pair *pair, const struct tree_node *node,
    struct hearth_change_list *out)
{
	struct automerge_sides sides;

	if (!merged_here(home, pair, node, &sides))
		return;
	struct buffer names;
	buffer_init(&names);
	automerge_merged_from(home, &sides, &names);
	out->items[out->count - 1].merged_from = storage_strdup(out->storage, buffer_string(&names));
	buffer_free(&names);
	automerge_sides_free(&sides);
}

/* tree_diff's call for a modified node: the version's own line merges. */
struct show_context {
	struct hearth *home;
	const struct compare_pair *pair;
};

static void
mark_modified(void *context, const struct tree_node *node, struct hearth_change_list *out)
{
	const struct show_context *show = context;

	mark_merged(show->home, show->pair, node, out);
}

/* Whether path names a node of the version or of the one before it. */
static int
path_known(struct hearth *home, const char *version, const char *path, bool *known,
    struct hearth_error *error)
{
	struct compare_pair pair;
	int status = compare_load_pair(home, version, &pair, error);

	if (status != 0)
		return status;
	*known = tree_lookup(&pair.after, path) != NULL || tree_lookup(&pair.before, path) != NULL;
	compare_free_pair(&pair);
	return 0;
}

int
history_show_by(struct hearth *home, const char *version, const char *path, bool whole_trees,
    struct hearth_change_list *out, struct hearth_error *error)
{
	struct compare_pair pair;
	bool known = true;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	int status = compare_load_changes(home, version, whole_trees, &pair, error);
	if (status != 0)
		return status;
	struct show_context context = { .home = home, .pair = &pair };
	const char *filters[1] = { path };
	bool filtered = path != NULL && path[0] != '\0';
	tree_diff(&pair.before, &pair.after, filters, filtered ? 1 : 0, mark_modified, &context,
	    out);
	compare_free_pair(&pair);
	/* A path the version did not change: the trees of what it changed
	 * cannot say whether the path was there at all. */
	if (filtered && out->count == 0)
		status = path_known(home, version, path, &known, error);
	if (status == 0 && !known)
		status = hearth_fail(error, HEARTH_USAGE, "no path %s in version %s or the one before it",
		    path, version);
	if (status != 0)
		hearth_change_list_free(out);
	return status;
}

int
hearth_show(hearth *home, const char *version, const char *path, struct hearth_change_list *out,
    struct hearth_error *error)
{
	return history_show_by(home, version, path, false, out, error);
}

/* One unified diff per side of a merge, base -> side, each headed by a
 * line naming the side. */
static void
diff_sides(struct hearth *home, const struct automerge_sides *sides, const char *path,
    struct buffer *out)
{
	struct buffer label, names;
	char old_label[4200];

	buffer_init(&label);
	buffer_init(&names);
	automerge_merged_from(home, sides, &names);
	buffer_printf(out, "merged: edits from %s\n", buffer_string(&names));
	snprintf(old_label, sizeof old_label, "a/%s (base)", path);
	for (size_t i = 0; i < sides->head_count; i++) {
		buffer_reset(&label);
		automerge_head_label(home, sides, i, &label);
		buffer_printf(out, "edits from %s:\n", buffer_string(&label));
		buffer_reset(&label);
		buffer_printf(&label, "b/%s (", path);
		automerge_head_label(home, sides, i, &label);
		buffer_printf(&label, ")");
		diff_unified((const char *)sides->merge.base.data, sides->merge.base.length,
		    sides->head_texts[i].bytes, sides->head_texts[i].length, old_label,
		    buffer_string(&label), 3, out);
	}
	buffer_free(&label);
	buffer_free(&names);
}

int
hearth_diff(hearth *home, const char *version, const char *path, size_t max_bytes,
    struct hearth_text *out, struct hearth_error *error)
{
	struct compare_pair pair;
	struct automerge_sides sides;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	int status = compare_load_pair(home, version, &pair, error);
	if (status != 0)
		return status;
	struct tree_node *now = tree_lookup(&pair.after, path);
	struct tree_node *was = now ? tree_find(&pair.before, now->id) : tree_lookup(&pair.before, path);
	if (now != NULL && merged_here(home, &pair, now, &sides)) {
		/* A line merge: what each side brought, against their base. */
		struct buffer text;
		buffer_init(&text);
		diff_sides(home, &sides, path, &text);
		automerge_sides_free(&sides);
		out->length = text.length;
		out->text = array_strdup(buffer_string(&text));
		buffer_free(&text);
	} else if (now != NULL || was != NULL) {
		status = compare_diff_nodes(home, &pair.before, was, &pair.after, now, max_bytes, out,
		    error);
	} else {
		status = hearth_fail(error, HEARTH_USAGE, "no path %s in version %s or the one before it",
		    path, version);
	}
	compare_free_pair(&pair);
	return status;
}

void
hearth_text_free(struct hearth_text *text)
{
	free(text->text);
	memset(text, 0, sizeof *text);
}
