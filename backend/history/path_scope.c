/* The scope of one node (path_scope.h): found in one pass over the whole
 * log, after which each version's trees of that node are derived from the
 * scope alone. */
#include "backend/history/path_scope.h"

#include <stdlib.h>
#include <string.h>

#include "backend/store/store.h"
#include "model/array.h"
#include "model/node_set.h"

/* Every PLACE as a (child, parent) pair, for node_set_close. */
struct placements {
	struct node_id *children, *parents;
	size_t count;
};

static void
placements_of(const struct op *ops, size_t count, struct placements *out)
{
	out->children = array_alloc(count, sizeof *out->children);
	out->parents = array_alloc(count, sizeof *out->parents);
	out->count = 0;
	for (size_t i = 0; i < count; i++)
		if (ops[i].kind == OP_PLACE) {
			out->children[out->count] = ops[i].u.place.node;
			out->parents[out->count++] = ops[i].u.place.parent;
		}
}

/* Every node a PLACE ever put in one of folders, or at the top. */
static void
add_placed_in(const struct placements *places, const struct node_set *folders,
    struct node_set *out)
{
	for (size_t i = 0; i < places->count; i++)
		if (node_id_equal(places->parents[i], NODE_ROOT) ||
		    node_set_has(folders, places->parents[i]))
			node_set_add(out, places->children[i]);
}

/* A folder of the scope that was ever deleted, outside what is below the
 * node (all of which the scope holds): a live node the scope lacks may
 * revive it. */
static bool
deleted_folder_outside(const struct op *ops, size_t count, const struct node_set *scope,
    const struct node_set *below)
{
	for (size_t i = 0; i < count; i++) {
		const struct op_place *place = &ops[i].u.place;
		if (ops[i].kind == OP_PLACE && place->kind == NODE_DIR &&
		    node_id_equal(place->parent, NODE_TRASH) && node_set_has(scope, place->node) &&
		    !node_set_has(below, place->node))
			return true;
	}
	return false;
}

static int
compare_op_ids(const void *a, const void *b)
{
	return op_id_compare(*(const struct op_id *)a, *(const struct op_id *)b);
}

/* Whether an op outside the scope supersedes one inside it (ops supersede
 * their own node's, but the model honours whatever a replica wrote). */
static bool
superseded_from_outside(const struct op *ops, size_t count, const struct node_set *scope)
{
	struct op_id *inside = NULL;
	size_t inside_count = 0, capacity = 0;
	bool found = false;

	for (size_t i = 0; i < count; i++)
		if (ops[i].kind != OP_COMMIT && node_set_has(scope, op_node(&ops[i]))) {
			inside = array_grow(inside, &capacity, inside_count + 1, sizeof *inside);
			inside[inside_count++] = ops[i].id;
		}
	if (inside_count > 1)
		qsort(inside, inside_count, sizeof *inside, compare_op_ids);
	for (size_t i = 0; i < count && !found; i++) {
		if (ops[i].kind != OP_COMMIT && node_set_has(scope, op_node(&ops[i])))
			continue;
		for (size_t j = 0; j < ops[i].supersedes_count && !found; j++)
			found = bsearch(&ops[i].supersedes[j], inside, inside_count, sizeof *inside,
			    compare_op_ids) != NULL;
	}
	free(inside);
	return found;
}

/* The scope's nodes (path_scope.h); false when it cannot decide alone. */
static bool
scope_nodes(const struct op *ops, size_t count, struct node_id node, enum node_kind kind,
    struct node_set *scope)
{
	struct node_set below = { 0 }, folders = { 0 };
	struct placements places;

	placements_of(ops, count, &places);
	node_set_add(&below, node);
	if (kind == NODE_DIR)
		node_set_close(&below, places.children, places.parents, places.count, false);
	node_set_seal(&below);
	for (size_t i = 0; i < below.count; i++)
		node_set_add(&folders, below.ids[i]);
	node_set_close(&folders, places.children, places.parents, places.count, true);
	for (size_t i = 0; i < folders.count; i++)
		node_set_add(scope, folders.ids[i]);
	add_placed_in(&places, &folders, scope);
	node_set_close(scope, places.children, places.parents, places.count, true);
	bool alone = !deleted_folder_outside(ops, count, scope, &below) &&
	    !superseded_from_outside(ops, count, scope);
	node_set_free(&below);
	node_set_free(&folders);
	free(places.children);
	free(places.parents);
	return alone;
}

int
path_scope_open(struct hearth *home, struct node_id node, enum node_kind kind,
    struct path_scope *out, struct hearth_error *error)
{
	struct op *ops = NULL;
	size_t count = 0;
	struct vv head;
	struct node_set scope = { 0 };

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 1024 * 1024);
	vv_init(&head);
	int status = store_head_vv(&home->store, &head) != 0
	    ? hearth_fail(error, HEARTH_FAILED, "cannot read the head")
	    : tree_read_ops(home, &head, &ops, &count, &out->arena, error);
	vv_free(&head);
	if (status == 0 && scope_nodes(ops, count, node, kind, &scope)) {
		size_t capacity = 0;
		for (size_t i = 0; i < count; i++) {
			if (ops[i].kind == OP_COMMIT || !node_set_has(&scope, op_node(&ops[i])))
				continue;
			out->ops = array_grow(out->ops, &capacity, out->count + 1, sizeof *out->ops);
			out->ops[out->count++] = ops[i];
		}
		status = 1;
	}
	free(ops);
	node_set_free(&scope);
	if (status != 1)
		path_scope_close(out);
	return status;
}

void
path_scope_tree(const struct path_scope *scope, const struct vv *vv, struct tree *out)
{
	struct op *ops = array_alloc(scope->count, sizeof *ops);
	size_t count = 0;

	for (size_t i = 0; i < scope->count; i++)
		if (vv_get(vv, scope->ops[i].id.replica) >= scope->ops[i].id.counter)
			ops[count++] = scope->ops[i];
	tree_derive(ops, count, out);
	free(ops);
}

void
path_scope_close(struct path_scope *scope)
{
	free(scope->ops);
	arena_free(&scope->arena);
	memset(scope, 0, sizeof *scope);
}
