/* Integration of a batch of ops into the head state (docs/DESIGN.md §4.6), in
 * one merged pass:
 *
 *   1. checks: per replica the counters continue without a gap, and every
 *      op an op supersedes is held (the batch and the store are causally
 *      closed); ops already held are skipped;
 *   2. placement (§4.1): only a folder move can be skipped, so when neither
 *      the batch nor the held PLACE ops after its first one hold a folder
 *      move, each node's placement is simply its greatest PLACE. Otherwise
 *      the PLACE ops from that point on are replayed in total order from
 *      each node's placement just before it (undo/redo), checking cycles;
 *   3. heads and content (§4.2): what an op supersedes leaves the heads,
 *      the op joins them; the content shown is the greatest head;
 *   4. the finishing rules (revives, liveness, names: model/finish.c),
 *      over every node, unless every node the batch touched provably stays
 *      clear of them (the usual case: no deletes racing edits, no names
 *      clashing), when its shown place is its placement.
 *
 * fsck and the property tests hold the result equal to state_derive. */
#include "backend/history/integrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store/hash.h"
#include "backend/history/conflicts.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "model/array.h"

enum op_status {
	OP_APPLIED = 0,
	OP_SKIPPED = 1,		/* a folder move into its own subtree */
	OP_INVALID = 2,		/* under a file, kind changed, SET on a folder */
	OP_PENDING = 3,		/* its parent (or node) was never placed */
};

/* A node the batch touches, in memory for the length of the pass. */
struct work_node {
	struct head_node head;
	bool exists;		/* placed (in the store or by the batch so far) */
	bool changed;		/* placement or heads changed: write it back */
	bool content_dirty;	/* heads changed: recompute the content shown */
	/* Before the pass, for deciding whether the finishing rules may skip. */
	bool loaded;		/* read from the store (or found absent) */
	bool existed_before;
	bool rewound;		/* placement reset to just before the batch */
	bool was_trashed;
};

/* A PLACE in the replay of the slow path. */
struct replay_op {
	const struct op *op;
	uint64_t lamport;
	int status;
	int old_status;
	bool held;		/* held before this batch (else new) */
	int64_t replica_number;
};

struct integrator {
	struct hearth *home;
	struct hearth_error *error;
	struct arena arena;
	const struct op **fresh;	/* new ops, in total order */
	const struct op **by_id;	/* the same, sorted by op id, for lookups */
	size_t fresh_count;
	struct work_node *nodes;	/* sorted by id */
	size_t node_count, node_capacity;
	struct replay_op *replay;	/* the PLACE ops placement went through */
	size_t replay_count;
	struct node_id *parents;	/* folders the batch places into, sorted */
	size_t parent_count;
	struct vv held;			/* the store's version vector before the batch */
	size_t fresh_invalid;		/* fresh ops whose status is OP_INVALID */
	struct integrate_result *result;
};

static int
fail_sql(struct integrator *integrator, const char *what)
{
	return hearth_fail(integrator->error, HEARTH_FAILED, "%s: %s", what,
	    sqlite3_errmsg(integrator->home->store.db));
}

/* ---- the batch ---------------------------------------------------------- */

static int
compare_by_author(const void *left, const void *right)
{
	const struct op *a = *(const struct op *const *)left, *b = *(const struct op *const *)right;
	return op_id_compare(a->id, b->id);
}

static int
compare_by_order(const void *left, const void *right)
{
	return op_order_compare(*(const struct op *const *)left, *(const struct op *const *)right);
}

/* A fresh op by id, or NULL (a batch may hold 100 000 ops: no scans). */
static const struct op *
find_fresh(const struct integrator *integrator, struct op_id id)
{
	size_t low = 0, high = integrator->fresh_count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order = op_id_compare(integrator->by_id[middle]->id, id);
		if (order == 0)
			return integrator->by_id[middle];
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return NULL;
}

/* A held op's row (no body): 1 found, 0 not held. */
static int
held_op_row(struct integrator *integrator, struct op_id id, struct store_op_row *row)
{
	struct store *store = &integrator->home->store;
	return store_op_row_get(store, store_replica_number(store, id.replica, false), id.counter,
	    false, row);
}

static int
set_op_status(struct integrator *integrator, struct op_id id, int status)
{
	struct store *store = &integrator->home->store;
	return store_op_set_status(store, store_replica_number(store, id.replica, false),
	    id.counter, status);
}

static int
refuse(struct integrator *integrator, const struct op *op, const char *why)
{
	char hex[ID_HEX];

	replica_id_hex(op->id.replica, hex);
	return hearth_fail(integrator->error, HEARTH_FAILED, "op %.8s/%llu: %s", hex,
	    (unsigned long long)op->id.counter, why);
}

/* Whether an op is held: in the store, or earlier in this batch. */
static bool
is_held(struct integrator *integrator, struct op_id id, const struct op **sorted, size_t count)
{
	if (vv_includes(&integrator->held, id))
		return true;
	size_t low = 0, high = count;
	while (low < high) {
		size_t middle = (low + high) / 2;
		int order = op_id_compare(sorted[middle]->id, id);
		if (order == 0)
			return true;
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return false;
}

/* Keeps the ops the store lacks, checking gaps and causal closure. */
static int
select_fresh(struct integrator *integrator, const struct op *ops, size_t count)
{
	const struct op **sorted = array_alloc(count, sizeof *sorted);
	size_t fresh = 0;
	int status = 0;

	/* Read once: asking the store per op costs a query each, and one more
	 * for a replica it has not heard of yet (every op of a first sync). */
	if (store_head_vv(&integrator->home->store, &integrator->held) != 0) {
		free(sorted);
		return fail_sql(integrator, "cannot read the replicas' counters");
	}

	for (size_t i = 0; i < count; i++)
		sorted[i] = &ops[i];
	if (count > 1)
		array_sort(sorted, count, sizeof *sorted, compare_by_author);
	for (size_t i = 0; i < count && status == 0; i++) {
		const struct op *op = sorted[i];
		if (i > 0 && op_id_equal(sorted[i - 1]->id, op->id)) {
			integrator->result->ops_known++;
			continue;
		}
		uint64_t held = vv_get(&integrator->held, op->id.replica);
		if (op->id.counter <= held) {
			integrator->result->ops_known++;
			continue;
		}
		uint64_t expected = held + 1;
		if (fresh > 0 && replica_id_equal(sorted[fresh - 1]->id.replica, op->id.replica))
			expected = sorted[fresh - 1]->id.counter + 1;
		if (op->id.counter != expected) {
			status = refuse(integrator, op, "ops before it are missing (a gap in its replica's "
			    "counters)");
			break;
		}
		sorted[fresh++] = op;
	}
	for (size_t i = 0; i < fresh && status == 0; i++)
		for (size_t j = 0; j < sorted[i]->supersedes_count && status == 0; j++)
			if (!is_held(integrator, sorted[i]->supersedes[j], sorted, fresh))
				status = refuse(integrator, sorted[i], "it supersedes an op nobody sent");
	if (status != 0) {
		free(sorted);
		return status;
	}
	/* sorted[0..fresh) is in op id order here: keep a copy for lookups. */
	integrator->by_id = array_alloc(fresh, sizeof *sorted);
	memcpy(integrator->by_id, sorted, fresh * sizeof *sorted);
	if (fresh > 1)
		array_sort(sorted, fresh, sizeof *sorted, compare_by_order);
	integrator->fresh = sorted;
	integrator->fresh_count = fresh;
	integrator->result->ops_new += fresh;
	return 0;
}

static int
store_fresh(struct integrator *integrator)
{
	struct buffer encoded;
	int status = 0;

	buffer_init(&encoded);
	for (size_t i = 0; i < integrator->fresh_count && status == 0; i++) {
		const struct op *op = integrator->fresh[i];
		int64_t number = store_replica_number(&integrator->home->store, op->id.replica, true);
		buffer_reset(&encoded);
		op_encode(op, &encoded);
		if (number <= 0 || store_put_op(&integrator->home->store, op, &encoded, number) != 0)
			status = fail_sql(integrator, "cannot store an op");
		else if (op->kind == OP_COMMIT) {
			char id[HASH_HEX];
			status = history_add_version(integrator->home, op, &encoded, id, integrator->error);
			integrator->result->versions_new++;
		}
	}
	buffer_free(&encoded);
	/* by_id runs by replica, then counter: each replica's last op raises it. */
	for (size_t i = 0; i < integrator->fresh_count && status == 0; i++) {
		const struct op *op = integrator->by_id[i];
		if (i + 1 < integrator->fresh_count &&
		    replica_id_equal(integrator->by_id[i + 1]->id.replica, op->id.replica))
			continue;
		int64_t number = store_replica_number(&integrator->home->store, op->id.replica, false);
		if (store_replica_raise(&integrator->home->store, number, op->id.counter) != 0)
			status = fail_sql(integrator, "cannot store an op");
	}
	return status;
}

/* ---- the nodes a pass touches ------------------------------------------------ */

static int
compare_work_nodes(const void *left, const void *right)
{
	const struct work_node *a = left, *b = right;
	return node_id_compare(a->head.id, b->head.id);
}

/* The node in the first count of the work set (kept sorted), or NULL. */
static struct work_node *
find_node_among(struct integrator *integrator, struct node_id id, size_t count)
{
	struct work_node key;

	if (count == 0)
		return NULL;	/* bsearch must not see the NULL of an empty set */
	key.head.id = id;
	return bsearch(&key, integrator->nodes, count, sizeof key, compare_work_nodes);
}

static struct work_node *
find_node(struct integrator *integrator, struct node_id id)
{
	return find_node_among(integrator, id, integrator->node_count);
}

static void
note_node(struct integrator *integrator, struct node_id id)
{
	integrator->nodes = array_grow(integrator->nodes, &integrator->node_capacity,
	    integrator->node_count + 1, sizeof *integrator->nodes);
	struct work_node *node = &integrator->nodes[integrator->node_count++];
	memset(node, 0, sizeof *node);
	node->head.id = id;
}

static int
compare_node_ids(const void *left, const void *right)
{
	return node_id_compare(*(const struct node_id *)left, *(const struct node_id *)right);
}

/* Notes each id the work set lacks, once: a batch of 100 000 edits names
 * the same few nodes over and over, and a work node is large. */
static void
note_missing(struct integrator *integrator, const struct node_id *ids, size_t count)
{
	size_t sorted_count = integrator->node_count;

	if (count == 0)
		return;
	if (count == 1) {
		if (find_node(integrator, ids[0]) == NULL)
			note_node(integrator, ids[0]);
		return;
	}
	struct node_id *unique = array_alloc(count, sizeof *unique);
	memcpy(unique, ids, count * sizeof *unique);
	qsort(unique, count, sizeof *unique, compare_node_ids);
	for (size_t i = 0; i < count; i++) {
		if (i > 0 && node_id_equal(unique[i - 1], unique[i]))
			continue;
		if (find_node_among(integrator, unique[i], sorted_count) == NULL)
			note_node(integrator, unique[i]);
	}
	free(unique);
}

/* Loads every node that ids names (duplicates allowed) into the work set,
 * which stays sorted by id. */
static int
load_nodes(struct integrator *integrator, const struct node_id *ids, size_t count)
{
	size_t before = integrator->node_count;

	note_missing(integrator, ids, count);
	if (integrator->node_count == before)
		return 0;
	qsort(integrator->nodes, integrator->node_count, sizeof *integrator->nodes,
	    compare_work_nodes);
	for (size_t i = 0; i < integrator->node_count; i++) {
		struct work_node *node = &integrator->nodes[i];
		if (node->loaded)
			continue;
		node->loaded = true;
		struct node_id id = node->head.id;
		int found = head_get(integrator->home, id, &node->head, &integrator->arena);
		if (found < 0)
			return fail_sql(integrator, "cannot read the head state");
		node->head.id = id;	/* head_get clears what it did not find */
		node->exists = node->existed_before = found == 1;
		if (found == 1)
			node->was_trashed = node_id_equal(node->head.place.parent, NODE_TRASH);
	}
	return 0;
}

/* ---- placement ---------------------------------------------------------------- */

static struct state_place_ref
place_of(const struct op *op)
{
	return (struct state_place_ref){
		.valid = true, .op = op->id, .lamport = op->lamport, .parent = op->u.place.parent,
		.name = op->u.place.name, .name_length = op->u.place.name_length,
		.root = op->u.place.root,
	};
}

static bool
place_before(const struct state_place_ref *a, const struct op *op)
{
	return op_order_compare_keys(a->lamport, a->op, op->lamport, op->id) < 0;
}

/* The kind a node has, or 0 when it was never placed. */
static enum node_kind
kind_of(struct integrator *integrator, struct node_id id)
{
	struct work_node *node = find_node(integrator, id);
	if (node != NULL)
		return node->exists ? node->head.kind : 0;
	return head_kind(integrator->home, id);
}

/* Where a node is placed now: from the work set, else from the store
 * (nodes the pass does not touch keep their placement throughout). */
static struct node_id
parent_of(struct integrator *integrator, struct node_id id)
{
	struct work_node *node = find_node(integrator, id);
	if (node != NULL)
		return node->head.place.parent;
	return head_placed_parent(integrator->home, id);
}

static bool
would_cycle(struct integrator *integrator, struct node_id node, struct node_id parent)
{
	size_t steps = 0;

	while (!node_id_equal(parent, NODE_ROOT) && !node_id_equal(parent, NODE_TRASH) &&
	    steps++ < 1000000) {
		if (node_id_equal(parent, node))
			return true;
		parent = parent_of(integrator, parent);
	}
	return false;
}

/* The status a PLACE gets where it stands in the order, and its effect. */
static int
apply_place(struct integrator *integrator, const struct op *op)
{
	const struct op_place *place = &op->u.place;
	struct work_node *node = find_node(integrator, place->node);

	if (!node_id_equal(place->parent, NODE_ROOT) && !node_id_equal(place->parent, NODE_TRASH)) {
		enum node_kind parent_kind = kind_of(integrator, place->parent);
		if (parent_kind == 0)
			return OP_PENDING;
		if (parent_kind != NODE_DIR)
			return OP_INVALID;
	}
	if (!node->exists) {
		node->exists = true;
		node->head.kind = place->kind;
		node->head.place = place_of(op);
		if (!node_id_equal(place->parent, NODE_TRASH))
			node->head.visible = place_of(op);
		node->changed = true;
		return OP_APPLIED;
	}
	if (place->kind != node->head.kind)
		return OP_INVALID;
	if (node->head.kind == NODE_DIR && would_cycle(integrator, place->node, place->parent))
		return OP_SKIPPED;
	node->head.place = place_of(op);
	if (!node_id_equal(place->parent, NODE_TRASH))
		node->head.visible = place_of(op);
	node->changed = true;
	return OP_APPLIED;
}

/* Fast path: no folder move anywhere from the batch's first PLACE on, so
 * nothing is skipped and a node's placement is its greatest PLACE; the held
 * PLACE ops keep their status. */
static void
place_by_maximum(struct integrator *integrator, struct replay_op *replay, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (replay[i].held)
			continue;
		const struct op *op = replay[i].op;
		const struct op_place *place = &op->u.place;
		struct work_node *node = find_node(integrator, place->node);
		if (!node_id_equal(place->parent, NODE_ROOT) && !node_id_equal(place->parent, NODE_TRASH)) {
			enum node_kind parent_kind = kind_of(integrator, place->parent);
			if (parent_kind != NODE_DIR) {
				replay[i].status = parent_kind == 0 ? OP_PENDING : OP_INVALID;
				continue;
			}
		}
		if (node->exists && place->kind != node->head.kind) {
			replay[i].status = OP_INVALID;
			continue;
		}
		replay[i].status = OP_APPLIED;
		if (!node->exists || place_before(&node->head.place, op)) {
			node->head.kind = place->kind;
			node->head.place = place_of(op);
		}
		if (!node_id_equal(place->parent, NODE_TRASH) &&
		    (!node->exists || !node->head.visible.valid || place_before(&node->head.visible, op)))
			node->head.visible = place_of(op);
		node->exists = true;
		node->changed = true;
	}
}

/* A node's placement from its applied PLACE ops ordered before `before`. */
static int
placement_before(struct integrator *integrator, struct work_node *node, const struct op *before)
{
	struct store_ops places;
	struct store_op_row row;
	char reason[128];

	node->exists = false;
	memset(&node->head.place, 0, sizeof node->head.place);
	memset(&node->head.visible, 0, sizeof node->head.visible);
	store_ops_of_node(&integrator->home->store, node->head.id, OP_PLACE, true, &places);
	while (store_ops_next(&places, &row)) {
		struct op *op = arena_alloc(&integrator->arena, sizeof *op);
		if (!op_decode(row.body, row.body_length, op, &integrator->arena, reason,
			sizeof reason)) {
			store_ops_close(&places);
			return hearth_fail(integrator->error, HEARTH_DAMAGED, "an op does not decode: %s",
			    reason);
		}
		if (op_order_compare(op, before) >= 0)
			continue;
		if (!node->exists || place_before(&node->head.place, op)) {
			node->exists = true;
			node->head.kind = op->u.place.kind;
			node->head.place = place_of(op);
		}
		if (!node_id_equal(op->u.place.parent, NODE_TRASH) &&
		    (!node->head.visible.valid || place_before(&node->head.visible, op)))
			node->head.visible = place_of(op);
	}
	return store_ops_end(&places, 0, integrator->error);
}

/* Slow path: undo every PLACE from the batch's first on (each node back to
 * its placement just before), then redo them all in total order. */
static int
place_by_replay(struct integrator *integrator, struct replay_op *replay, size_t count)
{
	const struct op *first = replay[0].op;

	for (size_t i = 0; i < count; i++) {
		struct work_node *node = find_node(integrator, replay[i].op->u.place.node);
		if (node->rewound)
			continue;
		node->rewound = true;
		node->changed = true;
		if (placement_before(integrator, node, first) != 0)
			return integrator->error->code;
	}
	for (size_t i = 0; i < count; i++)
		replay[i].status = apply_place(integrator, replay[i].op);
	return 0;
}

static int
compare_replay(const void *left, const void *right)
{
	const struct replay_op *a = left, *b = right;
	return op_order_compare(a->op, b->op);
}

/* Held PLACE ops ordered after the batch's first PLACE. */
static int
load_later_places(struct integrator *integrator, const struct op *first, struct replay_op **out,
    size_t *count, size_t *capacity)
{
	struct store_ops places;
	struct store_op_row row;
	char reason[128];

	store_ops_of_kind_since(&integrator->home->store, OP_PLACE, first->lamport, &places);
	while (store_ops_next(&places, &row)) {
		struct op *op = arena_alloc(&integrator->arena, sizeof *op);
		if (!op_decode(row.body, row.body_length, op, &integrator->arena, reason,
			sizeof reason)) {
			store_ops_close(&places);
			return hearth_fail(integrator->error, HEARTH_DAMAGED, "an op does not decode: %s",
			    reason);
		}
		if (op_order_compare(op, first) <= 0)
			continue;
		*out = array_grow(*out, capacity, *count + 1, sizeof **out);
		(*out)[(*count)++] = (struct replay_op){
			.op = op, .lamport = op->lamport, .held = true,
			.status = row.status, .old_status = row.status,
			.replica_number = row.replica_number,
		};
	}
	return store_ops_end(&places, 0, integrator->error);
}

/* A PLACE that could be skipped: a move of a folder that already exists,
 * out of or within the tree (into the trash nothing can cycle). */
static bool
is_folder_move(struct integrator *integrator, const struct op *op, bool created_in_batch)
{
	if (op->u.place.kind != NODE_DIR || node_id_equal(op->u.place.parent, NODE_TRASH))
		return false;
	struct work_node *node = find_node(integrator, op->u.place.node);
	return created_in_batch || (node != NULL && node->existed_before);
}

static int
save_statuses(struct integrator *integrator, struct replay_op *replay, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (replay[i].held && replay[i].status == replay[i].old_status)
			continue;
		if (!replay[i].held && replay[i].status == OP_APPLIED)
			continue;	/* inserted as applied */
		if (!replay[i].held && replay[i].status == OP_INVALID)
			integrator->fresh_invalid++;
		if (set_op_status(integrator, replay[i].op->id, replay[i].status) != 0)
			return fail_sql(integrator, "cannot update an op");
	}
	return 0;
}

/* Nodes an earlier PLACE of this batch created: a set by open addressing,
 * so that telling a move from a create stays linear in the batch (a
 * folder of 100,000 new files is one batch). Node ids are UUIDv7, never
 * zero; their last 8 bytes are random. */
struct placed_set {
	struct node_id *slots;
	size_t mask;
};

static void
placed_set_init(struct placed_set *set, size_t count)
{
	size_t capacity = 16;

	while (capacity < 2 * count)
		capacity *= 2;
	set->slots = array_zeroed(capacity, sizeof *set->slots);
	set->mask = capacity - 1;
}

/* The slot holding id, or the empty one where it would go. */
static size_t
placed_set_slot(const struct placed_set *set, struct node_id id)
{
	size_t slot = (size_t)load_u64be(id.bytes + 8) & set->mask;

	while (!node_id_is_zero(set->slots[slot]) && !node_id_equal(set->slots[slot], id))
		slot = (slot + 1) & set->mask;
	return slot;
}

static bool
placed_set_has(const struct placed_set *set, struct node_id id)
{
	return !node_id_is_zero(set->slots[placed_set_slot(set, id)]);
}

static void
placed_set_add(struct placed_set *set, struct node_id id)
{
	set->slots[placed_set_slot(set, id)] = id;
}

static int
run_placement(struct integrator *integrator)
{
	struct replay_op *replay = NULL;
	size_t count = 0, capacity = 0;
	const struct op *first = NULL;
	bool slow = false;
	int status = 0;

	for (size_t i = 0; i < integrator->fresh_count; i++) {
		const struct op *op = integrator->fresh[i];
		if (op->kind != OP_PLACE)
			continue;
		if (first == NULL)
			first = op;
		replay = array_grow(replay, &capacity, count + 1, sizeof *replay);
		replay[count++] = (struct replay_op){ .op = op, .lamport = op->lamport };
	}
	if (first == NULL)
		return 0;
	status = load_later_places(integrator, first, &replay, &count, &capacity);
	if (status == 0) {
		struct node_id *ids = array_zeroed(count, sizeof *ids);
		for (size_t i = 0; i < count; i++)
			ids[i] = replay[i].op->u.place.node;
		status = load_nodes(integrator, ids, count);
		free(ids);
	}
	if (status == 0) {
		if (count > 1)
			array_sort(replay, count, sizeof *replay, compare_replay);
		/* Created in this batch: an earlier PLACE of the same node in it. */
		struct placed_set placed;
		placed_set_init(&placed, count);
		for (size_t i = 0; i < count && !slow; i++) {
			struct node_id node = replay[i].op->u.place.node;
			bool created_here = placed_set_has(&placed, node);
			if (!replay[i].held)
				placed_set_add(&placed, node);
			slow = (replay[i].held && replay[i].op->u.place.kind == NODE_DIR &&
				   !node_id_equal(replay[i].op->u.place.parent, NODE_TRASH)) ||
			    (!replay[i].held && is_folder_move(integrator, replay[i].op, created_here));
		}
		free(placed.slots);
		if (slow)
			status = place_by_replay(integrator, replay, count);
		else
			place_by_maximum(integrator, replay, count);
	}
	integrator->replay = replay;
	integrator->replay_count = count;
	return status;
}

/* ---- heads and content ------------------------------------------------------------ */

static bool
remove_id(struct op_id *ids, size_t *count, struct op_id id)
{
	for (size_t i = 0; i < *count; i++) {
		if (op_id_equal(ids[i], id)) {
			memmove(ids + i, ids + i + 1, (*count - i - 1) * sizeof *ids);
			(*count)--;
			return true;
		}
	}
	return false;
}

static void
append_id(struct integrator *integrator, struct op_id **ids, size_t *count, struct op_id id)
{
	struct op_id *grown = arena_alloc(&integrator->arena, (*count + 1) * sizeof *grown);
	if (*count > 0)
		memcpy(grown, *ids, *count * sizeof *grown);
	grown[(*count)++] = id;
	*ids = grown;
}

/* The node an op id belongs to, and its kind (0 if unknown). */
static enum op_kind
node_of_op(struct integrator *integrator, struct op_id id, struct node_id *node)
{
	const struct op *fresh = find_fresh(integrator, id);
	if (fresh != NULL) {
		*node = op_node(fresh);
		return fresh->kind;
	}
	struct store_op_row row;
	if (held_op_row(integrator, id, &row) != 1 || node_id_is_zero(row.node))
		return 0;
	*node = row.node;
	return row.kind;
}

/* The work node of id, loaded first if the work set lacks it; NULL on a
 * store error (reported). */
static struct work_node *
work_node(struct integrator *integrator, struct node_id id)
{
	struct work_node *node = find_node(integrator, id);
	if (node != NULL || load_nodes(integrator, &id, 1) != 0)
		return node;
	return find_node(integrator, id);
}

/* Takes id out of a node's heads; false if it is in neither register. */
static bool
leave_heads(struct work_node *node, struct op_id id)
{
	if (remove_id(node->head.place_heads, &node->head.place_head_count, id)) {
		node->changed = true;
		return true;
	}
	if (remove_id(node->head.content_heads, &node->head.content_head_count, id)) {
		node->changed = true;
		node->content_dirty = true;
		return true;
	}
	return false;
}

/* An op leaves the heads of the register it was in. own is the node of the
 * op superseding it, where an honest replica's superseded ops always are
 * (an op id sits in one node's heads only), so that is looked at first. */
static int
supersede(struct integrator *integrator, struct work_node *own, struct op_id id)
{
	struct node_id node_id;

	if (own != NULL && leave_heads(own, id))
		return 0;
	if (node_of_op(integrator, id, &node_id) == 0)
		return 0;	/* a COMMIT: no register */
	struct work_node *node = work_node(integrator, node_id);
	if (node == NULL)
		return integrator->error->code;
	leave_heads(node, id);
	return 0;
}

/* Heads are a property of the op set: every PLACE of an existing node
 * joins the placement heads (applied or not); a SET joins the content
 * heads when it applies to a file or link. */
static int
run_heads(struct integrator *integrator)
{
	/* Every node the batch names, loaded at once (one sort, not one each). */
	struct node_id *ids = array_alloc(integrator->fresh_count + 1, sizeof *ids);
	size_t count = 0;
	for (size_t i = 0; i < integrator->fresh_count; i++)
		if (integrator->fresh[i]->kind != OP_COMMIT)
			ids[count++] = op_node(integrator->fresh[i]);
	int status = load_nodes(integrator, ids, count);
	free(ids);
	if (status != 0)
		return status;
	for (size_t i = 0; i < integrator->fresh_count; i++) {
		const struct op *op = integrator->fresh[i];
		if (op->kind == OP_COMMIT)
			continue;
		/* Every node the batch names is loaded: only a superseded op's
		 * node can join the work set, so node stays valid until then. */
		struct work_node *node = find_node(integrator, op_node(op));
		for (size_t j = 0; j < op->supersedes_count; j++) {
			size_t node_count = integrator->node_count;
			if (supersede(integrator, node, op->supersedes[j]) != 0)
				return integrator->error->code;
			if (integrator->node_count != node_count)
				node = find_node(integrator, op_node(op));
		}
		if (!node->exists)
			continue;
		node->changed = true;
		if (op->kind == OP_PLACE) {
			append_id(integrator, &node->head.place_heads, &node->head.place_head_count, op->id);
		} else if (node->head.kind != NODE_DIR) {
			append_id(integrator, &node->head.content_heads, &node->head.content_head_count,
			    op->id);
			node->content_dirty = true;
		}
	}
	return 0;
}

/* The SET status of fresh ops: applied to a file or link, invalid on a
 * folder, pending on a node never placed. */
static int
save_set_statuses(struct integrator *integrator)
{
	for (size_t i = 0; i < integrator->fresh_count; i++) {
		const struct op *op = integrator->fresh[i];
		if (op->kind != OP_SET)
			continue;
		enum node_kind kind = kind_of(integrator, op->u.set.node);
		int status = kind == 0 ? OP_PENDING : kind == NODE_DIR ? OP_INVALID : OP_APPLIED;
		if (status == OP_APPLIED)
			continue;
		integrator->fresh_invalid += status == OP_INVALID;
		if (set_op_status(integrator, op->id, status) != 0)
			return fail_sql(integrator, "cannot update an op");
	}
	return 0;
}

/* Reads a SET op: its order key and content. */
static int
read_set(struct integrator *integrator, struct op_id id, struct op *out)
{
	const struct op *fresh = find_fresh(integrator, id);
	if (fresh != NULL) {
		*out = *fresh;
		return 0;
	}
	struct hearth_error failure;
	int found = store_get_op(&integrator->home->store, id, out, &integrator->arena, &failure);
	if (found < 0)
		return hearth_fail(integrator->error, failure.code, "%s", failure.message);
	if (found == 0 || out->kind != OP_SET)
		return hearth_fail(integrator->error, HEARTH_DAMAGED,
		    "a content head is missing: no such SET op");
	return 0;
}

/* The greatest applied SET of a node, for a file with no content head. */
static int
greatest_set(struct integrator *integrator, struct node_id node, struct op *out, bool *found)
{
	struct store_ops sets;
	struct store_op_row row;
	char reason[128];

	*found = false;
	store_ops_of_node(&integrator->home->store, node, OP_SET, true, &sets);
	while (store_ops_next(&sets, &row)) {
		struct op op;
		if (!op_decode(row.body, row.body_length, &op, &integrator->arena, reason,
			sizeof reason))
			continue;
		if (!*found || op_order_compare(&op, out) > 0) {
			*out = op;
			*found = true;
		}
	}
	return store_ops_end(&sets, 0, integrator->error);
}

static int
run_content(struct integrator *integrator)
{
	for (size_t n = 0; n < integrator->node_count; n++) {
		struct work_node *node = &integrator->nodes[n];
		if (!node->content_dirty || !node->exists)
			continue;
		struct op winner;
		bool found = false;
		for (size_t i = 0; i < node->head.content_head_count; i++) {
			struct op head;
			if (read_set(integrator, node->head.content_heads[i], &head) != 0)
				return integrator->error->code;
			if (!found || op_order_compare(&head, &winner) > 0) {
				winner = head;
				found = true;
			}
		}
		if (!found && greatest_set(integrator, node->head.id, &winner, &found) != 0)
			return integrator->error->code;
		node->head.has_content = found;
		if (found) {
			node->head.content_op = winner.id;
			node->head.blob = winner.u.set.blob;
			node->head.size = winner.u.set.size;
			node->head.mode = winner.u.set.mode;
			node->head.mtime_ns = winner.u.set.mtime_ns;
		}
		node->changed = true;
	}
	return 0;
}

/* ---- conflicts of placement and heads (phase 1) ------------------------------------- */

static int
put_conflict(struct integrator *integrator, enum conflict_kind kind, struct node_id node,
    const struct op_id *ops, size_t count, int phase)
{
	return conflicts_put(integrator->home, kind, node, ops, count, phase) == 0 ? 0
	    : fail_sql(integrator, "cannot record a conflict");
}

/* Lamport of a held or fresh op, for ordering a conflict's sides. */
static uint64_t
lamport_of(struct integrator *integrator, struct op_id id)
{
	const struct op *fresh = find_fresh(integrator, id);
	if (fresh != NULL)
		return fresh->lamport;
	struct store_op_row row;
	return held_op_row(integrator, id, &row) == 1 ? row.lamport : 0;
}

/* Sorts a node's heads into total order (the winner last). */
static void
sort_heads(struct integrator *integrator, struct op_id *ids, size_t count)
{
	uint64_t *lamports = array_alloc(count, sizeof *lamports);
	for (size_t i = 0; i < count; i++)
		lamports[i] = lamport_of(integrator, ids[i]);
	for (size_t i = 1; i < count; i++) {
		for (size_t j = i; j > 0 && op_order_compare_keys(lamports[j], ids[j], lamports[j - 1],
			ids[j - 1]) < 0; j--) {
			struct op_id swap = ids[j];
			uint64_t lamport = lamports[j];
			ids[j] = ids[j - 1];
			lamports[j] = lamports[j - 1];
			ids[j - 1] = swap;
			lamports[j - 1] = lamport;
		}
	}
	free(lamports);
}

static int
op_status_of(struct integrator *integrator, struct op_id id)
{
	struct store_op_row row;
	return held_op_row(integrator, id, &row) == 1 ? row.status : 0;
}

/* As state_derive rules (model/state.c): heads that all hold one blob
 * and mode are no conflict. -1 on a store error (reported). */
static int
heads_differ(struct integrator *integrator, const struct head_node *head)
{
	struct op first, other;

	if (read_set(integrator, head->content_heads[0], &first) != 0)
		return -1;
	for (size_t i = 1; i < head->content_head_count; i++) {
		if (read_set(integrator, head->content_heads[i], &other) != 0)
			return -1;
		if (!hash_equal(&first.u.set.blob, &other.u.set.blob) ||
		    first.u.set.mode != other.u.set.mode)
			return 1;
	}
	return 0;
}

static int
node_conflicts(struct integrator *integrator, struct work_node *node)
{
	struct head_node *head = &node->head;

	if (conflicts_clear_heads(integrator->home, head->id) != 0)
		return fail_sql(integrator, "cannot update conflicts");
	sort_heads(integrator, head->place_heads, head->place_head_count);
	sort_heads(integrator, head->content_heads, head->content_head_count);
	int differ = head->content_head_count >= 2 ? heads_differ(integrator, head) : 0;
	if (differ < 0)
		return integrator->error->code;
	if (differ > 0 && put_conflict(integrator, CONFLICT_CONTENT, head->id,
		head->content_heads, head->content_head_count, 1) != 0)
		return integrator->error->code;
	if (head->place_head_count >= 2 && put_conflict(integrator, CONFLICT_MOVE, head->id,
		head->place_heads, head->place_head_count, 1) != 0)
		return integrator->error->code;
	/* A skipped folder move is listed while it is still a head. */
	for (size_t i = 0; i < head->place_head_count; i++)
		if (op_status_of(integrator, head->place_heads[i]) == OP_SKIPPED &&
		    put_conflict(integrator, CONFLICT_CYCLE, head->id, &head->place_heads[i], 1, 1) != 0)
			return integrator->error->code;
	return 0;
}

static int
invalid_conflicts(struct integrator *integrator)
{
	if (integrator->fresh_invalid == 0)
		return 0;	/* the usual batch: no status to read back */
	for (size_t i = 0; i < integrator->fresh_count; i++) {
		const struct op *op = integrator->fresh[i];
		if (op->kind == OP_COMMIT || op_status_of(integrator, op->id) != OP_INVALID)
			continue;
		if (put_conflict(integrator, CONFLICT_INVALID_OP, op_node(op), &op->id, 1, 1) != 0)
			return integrator->error->code;
	}
	return 0;
}

/* ---- the finishing rules --------------------------------------------------------- */

/* Whether a live child is placed under folder (in the store, or by the
 * batch), which would make the folder a revive if it is in the trash. */
static int
compare_ids(const void *a, const void *b)
{
	return node_id_compare(*(const struct node_id *)a, *(const struct node_id *)b);
}

/* The folders the batch places something in, sorted: one lookup each
 * instead of a scan of the batch per folder. */
static void
note_parents(struct integrator *integrator)
{
	integrator->parents = array_alloc(integrator->node_count + 1, sizeof *integrator->parents);
	integrator->parent_count = 0;
	for (size_t n = 0; n < integrator->node_count; n++) {
		const struct work_node *child = &integrator->nodes[n];
		if (child->exists)
			integrator->parents[integrator->parent_count++] = child->head.place.parent;
	}
	if (integrator->parent_count > 1)
		qsort(integrator->parents, integrator->parent_count, sizeof *integrator->parents,
		    compare_ids);
}

static bool
has_live_child(struct integrator *integrator, struct node_id folder)
{
	if (integrator->parent_count > 0 &&
	    bsearch(&folder, integrator->parents, integrator->parent_count, sizeof folder,
		compare_ids) != NULL)
		return true;
	return head_has_placed_child(integrator->home, folder, NODE_ROOT);
}

/* Whether a touched node provably stays clear of revives and name clashes,
 * so that it is shown where it is placed under its own name. The caller
 * has checked that no revive or clash is listed anywhere now. */
static bool
stays_plain(struct integrator *integrator, struct work_node *node)
{
	struct head_node *head = &node->head;
	bool trashed = node_id_equal(head->place.parent, NODE_TRASH);

	if (!node->exists)
		return true;
	if (trashed && head->content_head_count > 0)
		return false;	/* an edit the delete did not see: a revive */
	if (head->kind == NODE_DIR && (trashed || node->was_trashed) &&
	    has_live_child(integrator, head->id))
		return false;	/* a folder with contents enters or leaves the trash */
	if (trashed)
		return true;
	/* Its folder must be shown where it is placed, and live. */
	struct node_id parent = head->place.parent;
	if (!node_id_equal(parent, NODE_ROOT)) {
		struct work_node *batch_parent = find_node(integrator, parent);
		if (batch_parent != NULL && batch_parent->changed) {
			if (!batch_parent->exists || node_id_equal(batch_parent->head.place.parent, NODE_TRASH))
				return false;
		} else if (!head_shown_where_placed(integrator->home, parent)) {
			return false;
		}
	}
	/* No other live node shows its name there, so it forms no clash. */
	return head->place.name == NULL || !head_name_taken(integrator->home, parent,
	    head->place.name, head->place.name_length, head->id);
}

static int
compare_by_place(const void *left, const void *right)
{
	const struct head_node *a = *(const struct head_node *const *)left;
	const struct head_node *b = *(const struct head_node *const *)right;
	int order = node_id_compare(a->place.parent, b->place.parent);
	if (order != 0)
		return order;
	return bytes_compare(a->place.name, a->place.name_length, b->place.name,
	    b->place.name_length);
}

/* Whether two nodes of the batch land in one folder under one name. */
static bool
batch_names_clash(struct integrator *integrator)
{
	const struct head_node **placed = array_alloc(integrator->node_count + 1, sizeof *placed);
	size_t count = 0;
	bool clash = false;

	for (size_t i = 0; i < integrator->node_count; i++) {
		const struct work_node *node = &integrator->nodes[i];
		if (node->exists && !node_id_equal(node->head.place.parent, NODE_TRASH))
			placed[count++] = &node->head;
	}
	if (count > 1)
		qsort(placed, count, sizeof *placed, compare_by_place);
	for (size_t i = 1; i < count && !clash; i++)
		clash = compare_by_place(&placed[i - 1], &placed[i]) == 0;
	free(placed);
	return clash;
}

/* The quick way: every touched node is shown where it is placed. */
static int
finish_plainly(struct integrator *integrator)
{
	/* Parents first, so a child sees its parent's new liveness. */
	for (size_t n = 0; n < integrator->node_count; n++) {
		struct work_node *node = &integrator->nodes[n];
		if (!node->exists || !node->changed)
			continue;
		struct head_node *head = &node->head;
		head->shown_parent = head->place.parent;
		head->shown = head->place.name;
		head->shown_length = head->place.name_length;
		head->shown_root = head->place.root;
		head->live = !node_id_equal(head->place.parent, NODE_TRASH);
	}
	return 0;
}

struct finish_load {
	struct integrator *integrator;
	struct state_finish_node *nodes;
	struct head_node *stored;	/* as stored, for the comparison */
	size_t count, capacity;
	struct arena arena;
};

static struct state_place_ref
copy_place(struct arena *arena, const struct state_place_ref *place)
{
	struct state_place_ref copy = *place;
	if (place->valid) {
		copy.name = arena_copy(arena, place->name, place->name_length);
		copy.root = arena_strdup(arena, place->root ? place->root : "");
	}
	return copy;
}

static int
load_for_finish(void *context, const struct head_node *stored)
{
	struct finish_load *load = context;
	struct work_node *touched = find_node(load->integrator, stored->id);
	const struct head_node *node = touched != NULL ? &touched->head : stored;

	if (load->count == load->capacity) {
		load->capacity = load->capacity ? load->capacity * 2 : 1024;
		load->nodes = array_resize(load->nodes, load->capacity, sizeof *load->nodes);
		load->stored = array_resize(load->stored, load->capacity, sizeof *load->stored);
	}
	struct head_node *copy = &load->stored[load->count];
	*copy = *stored;
	copy->shown = arena_copy(&load->arena, stored->shown, stored->shown_length);
	copy->shown_root = arena_strdup(&load->arena, stored->shown_root ? stored->shown_root : "");
	load->nodes[load->count++] = (struct state_finish_node){
		.id = node->id, .kind = node->kind,
		.place = copy_place(&load->arena, &node->place),
		.visible = copy_place(&load->arena, &node->visible),
		.content_head_count = (uint32_t)node->content_head_count,
	};
	return 0;
}

static int
compare_stored(const void *left, const void *right)
{
	const struct head_node *a = left, *b = right;
	return node_id_compare(a->id, b->id);
}

static int
write_shown(struct integrator *integrator, const struct state_finish_node *finished,
    const struct head_node *stored)
{
	struct work_node *touched = find_node(integrator, finished->id);
	bool same = node_id_equal(stored->shown_parent, finished->shown_parent) &&
	    stored->live == finished->live && stored->shown_length == finished->shown_name_length &&
	    memcmp(stored->shown, finished->shown_name, stored->shown_length) == 0 &&
	    strcmp(stored->shown_root, finished->effective.root ? finished->effective.root : "") == 0;

	/* A node the pass changed is written whole later; one it only read is
	 * updated here like any other. */
	if (touched != NULL && touched->changed) {
		touched->head.shown_parent = finished->shown_parent;
		touched->head.shown = arena_copy(&integrator->arena, finished->shown_name,
		    finished->shown_name_length);
		touched->head.shown_length = finished->shown_name_length;
		touched->head.shown_root = arena_strdup(&integrator->arena,
		    finished->effective.root ? finished->effective.root : "");
		touched->head.live = finished->live;
		return 0;	/* written with the rest of the node */
	}
	if (same)
		return 0;
	return head_set_shown(integrator->home, finished->id, finished->shown_parent,
	    finished->shown_name, finished->shown_name_length, finished->effective.root,
	    finished->live) == 0 ? 0 : fail_sql(integrator, "cannot update the head state");
}

/* Every node, through the one implementation of the finishing rules. */
static int
finish_fully(struct integrator *integrator)
{
	struct finish_load load = { .integrator = integrator };
	struct state_conflict *conflicts = NULL;
	size_t conflict_count = 0;
	int status;

	arena_init(&load.arena, 256 * 1024);
	status = head_each(integrator->home, load_for_finish, &load);
	/* Nodes the batch created are not in the table yet. */
	for (size_t n = 0; status == 0 && n < integrator->node_count; n++) {
		struct work_node *node = &integrator->nodes[n];
		if (node->exists && !node->existed_before) {
			struct head_node blank = node->head;
			blank.shown = (const uint8_t *)"";
			blank.shown_length = 0;
			blank.shown_root = "";
			blank.live = false;
			memset(&blank.shown_parent, 0, sizeof blank.shown_parent);
			status = load_for_finish(&load, &blank);
		}
	}
	if (status == 0) {
		state_finish(load.nodes, load.count, &load.arena, &conflicts, &conflict_count);
		if (load.count > 1)
			qsort(load.stored, load.count, sizeof *load.stored, compare_stored);
		for (size_t i = 0; i < load.count && status == 0; i++)
			status = write_shown(integrator, &load.nodes[i], &load.stored[i]);
	}
	if (status == 0) {
		if (conflicts_clear_finished(integrator->home) != 0)
			status = fail_sql(integrator, "cannot update conflicts");
	}
	for (size_t i = 0; i < conflict_count && status == 0; i++)
		status = put_conflict(integrator, conflicts[i].kind, conflicts[i].node, conflicts[i].ops,
		    conflicts[i].op_count, 2);
	free(conflicts);
	free(load.nodes);
	free(load.stored);
	arena_free(&load.arena);
	return status;
}

static bool
any_finish_conflicts(struct integrator *integrator)
{
	return conflicts_any_finished(integrator->home);
}

static int
run_finish(struct integrator *integrator)
{
	bool plain = !batch_names_clash(integrator) && !any_finish_conflicts(integrator);

	note_parents(integrator);
	for (size_t n = 0; n < integrator->node_count && plain; n++)
		if (integrator->nodes[n].changed)
			plain = stays_plain(integrator, &integrator->nodes[n]);
	return plain ? finish_plainly(integrator) : finish_fully(integrator);
}

/* ---- the pass ------------------------------------------------------------------------ */

static int
write_nodes(struct integrator *integrator)
{
	for (size_t n = 0; n < integrator->node_count; n++) {
		struct work_node *node = &integrator->nodes[n];
		if (!node->exists || !node->changed)
			continue;
		if (head_put(integrator->home, &node->head) != 0)
			return fail_sql(integrator, "cannot write the head state");
		if (node_conflicts(integrator, node) != 0)
			return integrator->error->code;
	}
	return 0;
}

uint64_t
integrate_node_count(struct hearth *home)
{
	return head_count(home);
}

int
integrate_ops(struct hearth *home, const struct op *ops, size_t count,
    struct integrate_result *out, struct hearth_error *error)
{
	struct integrator integrator = { .home = home, .error = error, .result = out };
	int status;

	vv_init(&integrator.held);
	memset(out, 0, sizeof *out);
	arena_init(&integrator.arena, 64 * 1024);
	status = select_fresh(&integrator, ops, count);
	if (status == 0 && integrator.fresh_count > 0) {
		/* Placement reads the held ops before the batch joins them. */
		status = run_placement(&integrator);
		if (status == 0)
			status = store_fresh(&integrator);
		if (status == 0)
			status = save_statuses(&integrator, integrator.replay, integrator.replay_count);
		if (status == 0)
			status = save_set_statuses(&integrator);
		if (status == 0)
			status = run_heads(&integrator);
		if (status == 0)
			status = run_content(&integrator);
		if (status == 0)
			status = run_finish(&integrator);
		if (status == 0)
			status = write_nodes(&integrator);
		if (status == 0)
			status = invalid_conflicts(&integrator);
	}
	free(integrator.fresh);
	free(integrator.by_id);
	free(integrator.parents);
	free(integrator.nodes);
	free(integrator.replay);
	vv_free(&integrator.held);
	arena_free(&integrator.arena);
	return status;
}
