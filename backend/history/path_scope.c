/* The scope of one node, or of what a version changed (path_scope.h):
 * found in one pass over the whole log, after which each version's trees
 * of those nodes are derived from the scope alone. */
#include "backend/history/path_scope.h"

#include <stdlib.h>
#include <string.h>

#include "backend/store/store.h"
#include "model/array.h"
#include "model/node_set.h"

/* A scope grows by the deleted folders it finds this many times at most
 * (each round adds every one it found); past that, whole trees. */
#define SCOPE_ROUNDS 8
/* path_scope_open_changes keeps the whole log instead of a scope holding
 * more than half of its ops, once there are this many (below it either
 * way costs a few milliseconds). */
#define SCOPE_WHOLE_LOG_MIN 1000

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

/* Adds to out each folder of the scope ever deleted outside what is below
 * the start (all of which the scope holds): a live node the scope lacks
 * may revive it, so the next round starts from it too. */
static void
add_deleted_folders_outside(const struct op *ops, size_t count, const struct node_set *scope,
    const struct node_set *below, struct node_set *out)
{
	for (size_t i = 0; i < count; i++) {
		const struct op_place *place = &ops[i].u.place;
		if (ops[i].kind == OP_PLACE && place->kind == NODE_DIR &&
		    node_id_equal(place->parent, NODE_TRASH) && node_set_has(scope, place->node) &&
		    !node_set_has(below, place->node))
			node_set_add(out, place->node);
	}
}

static int
compare_op_ids(const void *a, const void *b)
{
	return op_id_compare(*(const struct op_id *)a, *(const struct op_id *)b);
}

static bool
is_inside(const struct op *op, const struct node_set *scope)
{
	return op->kind != OP_COMMIT && node_set_has(scope, op_node(op));
}

/* Whether an op supersedes across the scope's edge: one outside it an op
 * inside (which would change an inside node's heads), or one inside it an
 * op that is not (which would change an outside node's). Ops supersede
 * their own node's, but the model honours whatever a replica wrote. */
static bool
superseded_across(const struct op *ops, size_t count, const struct node_set *scope)
{
	struct op_id *inside = NULL;
	size_t inside_count = 0, capacity = 0;
	bool found = false;

	for (size_t i = 0; i < count; i++)
		if (is_inside(&ops[i], scope)) {
			inside = array_grow(inside, &capacity, inside_count + 1, sizeof *inside);
			inside[inside_count++] = ops[i].id;
		}
	if (inside_count > 1)
		qsort(inside, inside_count, sizeof *inside, compare_op_ids);
	for (size_t i = 0; i < count && !found; i++) {
		bool from_inside = is_inside(&ops[i], scope);
		for (size_t j = 0; j < ops[i].supersedes_count && !found; j++) {
			bool to_inside = inside_count > 0 && bsearch(&ops[i].supersedes[j], inside,
			    inside_count, sizeof *inside, compare_op_ids) != NULL;
			found = from_inside != to_inside;
		}
	}
	free(inside);
	return found;
}

/* The scope of the start nodes (path_scope.h) into scope, from below
 * (every node ever placed below a start node, and they), the folders
 * those were ever in, and the nodes ever placed in those folders. */
static void
scope_of(const struct placements *places, const struct node_set *start, struct node_set *below,
    struct node_set *scope)
{
	struct node_set folders = { 0 };

	for (size_t i = 0; i < start->count; i++)
		node_set_add(below, start->ids[i]);
	node_set_close(below, places->children, places->parents, places->count, false);
	for (size_t i = 0; i < below->count; i++)
		node_set_add(&folders, below->ids[i]);
	node_set_close(&folders, places->children, places->parents, places->count, true);
	for (size_t i = 0; i < folders.count; i++)
		node_set_add(scope, folders.ids[i]);
	add_placed_in(places, &folders, scope);
	node_set_close(scope, places->children, places->parents, places->count, true);
	node_set_free(&folders);
}

/* The scope's nodes, grown from start until no folder of it outside
 * below was ever deleted; false when that takes more than SCOPE_ROUNDS. */
static bool
scope_nodes(const struct op *ops, size_t count, struct node_set *start, struct node_set *scope)
{
	struct placements places;
	bool settled = false;

	placements_of(ops, count, &places);
	for (int round = 0; round < SCOPE_ROUNDS && !settled; round++) {
		struct node_set below = { 0 }, deleted = { 0 };
		node_set_free(scope);
		scope_of(&places, start, &below, scope);
		add_deleted_folders_outside(ops, count, scope, &below, &deleted);
		settled = deleted.count == 0;
		for (size_t i = 0; i < deleted.count; i++)
			node_set_add(start, deleted.ids[i]);
		node_set_seal(start);
		node_set_free(&below);
		node_set_free(&deleted);
	}
	free(places.children);
	free(places.parents);
	return settled;
}

static size_t
count_inside(const struct op *ops, size_t count, const struct node_set *scope)
{
	size_t inside = 0;
	for (size_t i = 0; i < count; i++)
		inside += is_inside(&ops[i], scope);
	return inside;
}

/* Reads the log to head, finds the scope of start (taken) and keeps its
 * ops: 1, or 0 when it cannot decide alone, or an error code. With
 * keep_whole, the log's every op instead of 0, and also when the scope
 * holds more than half of a long log (two trees of the scope would cost
 * more than head's node table and one tree of the whole log). */
static int
scope_open(struct hearth *home, struct node_set *start,
    bool (*starts)(const struct op *op, void *context), void *context, bool keep_whole,
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
	for (size_t i = 0; status == 0 && starts != NULL && i < count; i++)
		if (ops[i].kind != OP_COMMIT && starts(&ops[i], context))
			node_set_add(start, op_node(&ops[i]));
	node_set_seal(start);
	bool alone = status == 0 && scope_nodes(ops, count, start, &scope) &&
	    (!keep_whole || count < SCOPE_WHOLE_LOG_MIN ||
		count_inside(ops, count, &scope) <= count / 2) &&
	    !superseded_across(ops, count, &scope);
	if (alone) {
		size_t capacity = 0;
		for (size_t i = 0; i < count; i++) {
			if (!is_inside(&ops[i], &scope))
				continue;
			out->ops = array_grow(out->ops, &capacity, out->count + 1, sizeof *out->ops);
			out->ops[out->count++] = ops[i];
		}
		status = 1;
	} else if (status == 0 && keep_whole) {
		out->ops = ops;
		out->count = count;
		out->whole = true;
		ops = NULL;
		status = 1;
	}
	free(ops);
	node_set_free(&scope);
	node_set_free(start);
	if (status != 1)
		path_scope_close(out);
	return status;
}

int
path_scope_open(struct hearth *home, const struct node_id *nodes, size_t count,
    struct path_scope *out, struct hearth_error *error)
{
	struct node_set start = { 0 };

	for (size_t i = 0; i < count; i++)
		node_set_add(&start, nodes[i]);
	return scope_open(home, &start, NULL, NULL, false, out, error);
}

struct version_ops {
	const struct vv *after, *before;
};

static bool
made_between(const struct op *op, void *context)
{
	const struct version_ops *version = context;
	return vv_get(version->after, op->id.replica) >= op->id.counter &&
	    vv_get(version->before, op->id.replica) < op->id.counter;
}

int
path_scope_open_changes(struct hearth *home, const struct vv *after, const struct vv *before,
    struct path_scope *out, struct hearth_error *error)
{
	struct node_set start = { 0 };
	struct version_ops version = { .after = after, .before = before };

	return scope_open(home, &start, made_between, &version, true, out, error);
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
