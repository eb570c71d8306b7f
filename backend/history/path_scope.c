/* The scope of one node (path_scope.h): found in one pass over the whole
 * log, after which each version's trees of that node are derived from the
 * scope alone. */
#include "backend/history/path_scope.h"

#include <stdlib.h>
#include <string.h>

#include "backend/store/store.h"
#include "model/array.h"

/* Node ids, sorted and unique once sealed (membership by binary search). */
struct id_set {
	struct node_id *ids;
	size_t count, capacity;
};

static void
set_add(struct id_set *set, struct node_id id)
{
	set->ids = array_grow(set->ids, &set->capacity, set->count + 1, sizeof *set->ids);
	set->ids[set->count++] = id;
}

static int
compare_node_ids(const void *a, const void *b)
{
	return node_id_compare(*(const struct node_id *)a, *(const struct node_id *)b);
}

static void
set_seal(struct id_set *set)
{
	size_t kept = 0;

	if (set->count > 1)
		qsort(set->ids, set->count, sizeof *set->ids, compare_node_ids);
	for (size_t i = 0; i < set->count; i++)
		if (kept == 0 || !node_id_equal(set->ids[kept - 1], set->ids[i]))
			set->ids[kept++] = set->ids[i];
	set->count = kept;
}

static bool
set_has(const struct id_set *set, struct node_id id)
{
	return bsearch(&id, set->ids, set->count, sizeof *set->ids, compare_node_ids) != NULL;
}

static bool
is_folder_id(struct node_id id)
{
	return !node_id_equal(id, NODE_ROOT) && !node_id_equal(id, NODE_TRASH);
}

/* Grows set, sealed, until no PLACE adds to it: with to_parents, the
 * folder of every PLACE of a member; else every node a PLACE puts in a
 * member. */
static void
close_over(const struct op *ops, size_t count, struct id_set *set, bool to_parents)
{
	size_t before;

	set_seal(set);
	do {
		struct id_set fresh = { 0 };
		before = set->count;
		for (size_t i = 0; i < count; i++) {
			const struct op_place *place = &ops[i].u.place;
			if (ops[i].kind != OP_PLACE)
				continue;
			if (to_parents && is_folder_id(place->parent) && set_has(set, place->node) &&
			    !set_has(set, place->parent))
				set_add(&fresh, place->parent);
			if (!to_parents && set_has(set, place->parent) && !set_has(set, place->node))
				set_add(&fresh, place->node);
		}
		for (size_t i = 0; i < fresh.count; i++)
			set_add(set, fresh.ids[i]);
		free(fresh.ids);
		set_seal(set);
	} while (set->count != before);
}

/* Every node a PLACE ever put in one of folders, or at the top. */
static void
add_placed_in(const struct op *ops, size_t count, const struct id_set *folders,
    struct id_set *out)
{
	for (size_t i = 0; i < count; i++) {
		const struct op_place *place = &ops[i].u.place;
		if (ops[i].kind == OP_PLACE && (node_id_equal(place->parent, NODE_ROOT) ||
			set_has(folders, place->parent)))
			set_add(out, place->node);
	}
}

/* A folder of the scope that was ever deleted, outside what is below the
 * node (all of which the scope holds): a live node the scope lacks may
 * revive it. */
static bool
deleted_folder_outside(const struct op *ops, size_t count, const struct id_set *scope,
    const struct id_set *below)
{
	for (size_t i = 0; i < count; i++) {
		const struct op_place *place = &ops[i].u.place;
		if (ops[i].kind == OP_PLACE && place->kind == NODE_DIR &&
		    node_id_equal(place->parent, NODE_TRASH) && set_has(scope, place->node) &&
		    !set_has(below, place->node))
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
superseded_from_outside(const struct op *ops, size_t count, const struct id_set *scope)
{
	struct op_id *inside = NULL;
	size_t inside_count = 0, capacity = 0;
	bool found = false;

	for (size_t i = 0; i < count; i++)
		if (ops[i].kind != OP_COMMIT && set_has(scope, op_node(&ops[i]))) {
			inside = array_grow(inside, &capacity, inside_count + 1, sizeof *inside);
			inside[inside_count++] = ops[i].id;
		}
	if (inside_count > 1)
		qsort(inside, inside_count, sizeof *inside, compare_op_ids);
	for (size_t i = 0; i < count && !found; i++) {
		if (ops[i].kind != OP_COMMIT && set_has(scope, op_node(&ops[i])))
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
    struct id_set *scope)
{
	struct id_set below = { 0 }, folders = { 0 };

	set_add(&below, node);
	if (kind == NODE_DIR)
		close_over(ops, count, &below, false);
	set_seal(&below);
	for (size_t i = 0; i < below.count; i++)
		set_add(&folders, below.ids[i]);
	close_over(ops, count, &folders, true);
	for (size_t i = 0; i < folders.count; i++)
		set_add(scope, folders.ids[i]);
	add_placed_in(ops, count, &folders, scope);
	close_over(ops, count, scope, true);
	bool alone = !deleted_folder_outside(ops, count, scope, &below) &&
	    !superseded_from_outside(ops, count, scope);
	free(below.ids);
	free(folders.ids);
	return alone;
}

int
path_scope_open(struct hearth *home, struct node_id node, enum node_kind kind,
    struct path_scope *out, struct hearth_error *error)
{
	struct op *ops = NULL;
	size_t count = 0;
	struct vv head;
	struct id_set scope = { 0 };

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
			if (ops[i].kind == OP_COMMIT || !set_has(&scope, op_node(&ops[i])))
				continue;
			out->ops = array_grow(out->ops, &capacity, out->count + 1, sizeof *out->ops);
			out->ops[out->count++] = ops[i];
		}
		status = 1;
	}
	free(ops);
	free(scope.ids);
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
