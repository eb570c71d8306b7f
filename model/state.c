/* State derivation (docs/DESIGN.md §4) as one pure function of an op set. The PLACE
 * and SET ops are sorted once into total order and deduplicated; every later
 * pass walks flat arrays indexed by op position (which is total order) and by
 * node, with hash tables from ids to positions, so a history costs
 * O(n log n) plus O(folder moves x depth) for the cycle checks. */
#include "model/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"

/* Node indices are uint32_t to halve the scratch arrays; the top values
 * stand for "no node" and for the two fixed folders. */
#define NO_INDEX UINT32_MAX
#define PARENT_ROOT (UINT32_MAX - 1)
#define PARENT_TRASH (UINT32_MAX - 2)
#define INDEX_LIMIT (UINT32_MAX - 3)

/* The sort key of an op, unpacked so sorting touches no op memory. */
struct order_key {
	uint64_t lamport;
	uint64_t replica_high;
	uint64_t replica_low;
	uint64_t counter;
	const struct op *op;
};

struct derive_node {
	struct node_id id;
	enum node_kind kind;
	uint32_t parent;	/* node index, PARENT_ROOT or PARENT_TRASH */
	uint32_t place;		/* op index of the PLACE that names it */
	uint32_t visible_place;	/* last applied PLACE outside the trash */
	uint32_t content;	/* op index of the SET shown, or NO_INDEX */
	uint32_t place_head_count;
	uint32_t content_head_count;
	struct op_id *place_heads;	/* in the output arena */
	struct op_id *content_heads;
};

struct derive_conflict {
	enum conflict_kind kind;
	struct node_id node;
	uint32_t first_op;	/* orders conflicts of one kind and node */
	struct op_id *ops;
	size_t op_count;
};

struct derive {
	const struct op **ops;	/* unique PLACE and SET ops in total order */
	uint32_t op_count;
	uint8_t *superseded;	/* superseded[i]: some known op supersedes op i */
	uint32_t *op_nodes;	/* node index of op i's node after placement */
	uint32_t *op_table;	/* op id -> op index + 1, open addressing */
	size_t op_table_mask;

	struct derive_node *nodes;	/* in order of creation */
	uint32_t node_count;
	uint32_t node_capacity;
	uint32_t *node_table;	/* node id -> node index + 1 */
	size_t node_table_mask;

	struct derive_conflict *conflicts;
	size_t conflict_count;
	size_t conflict_capacity;
	uint32_t *pending;	/* op indices, in total order once sorted */
	size_t pending_count;

	struct arena *arena;	/* the output's */
	/* Roots recently copied into the arena: a Home has a few roots, so
	 * nodes share these copies instead of holding one each. */
	const char *roots[8];
	size_t root_next;
};

/* qsort, which must not see the NULL of an empty list. */
static void
state_sort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *))
{
	if (count > 1)
		qsort(base, count, size, compare);
}

static size_t
table_size_for(size_t count)
{
	size_t size = 16;
	while (size < count * 2)
		size *= 2;
	return size;
}

/* A 64-bit finalizer (MurmurHash3's): ids are random or clock-prefixed, and
 * tests use ids of repeated bytes, so raw bytes would cluster. */
static uint64_t
hash_mix(uint64_t value)
{
	value ^= value >> 33;
	value *= 0xff51afd7ed558ccdULL;
	value ^= value >> 33;
	value *= 0xc4ceb9fe1a85ec53ULL;
	value ^= value >> 33;
	return value;
}

static uint64_t
hash_id_bytes(const uint8_t bytes[ID_BYTES], uint64_t extra)
{
	return hash_mix(load_u64be(bytes) ^ hash_mix(load_u64be(bytes + 8) ^ hash_mix(extra)));
}

static uint64_t
hash_op_id(struct op_id id)
{
	return hash_id_bytes(id.replica.bytes, id.counter);
}

/* ---- sorting and deduplication ------------------------------------------ */

static int
compare_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int
compare_place(const struct op_place *a, const struct op_place *b)
{
	int order = node_id_compare(a->node, b->node);
	if (order == 0)
		order = node_id_compare(a->parent, b->parent);
	if (order == 0)
		order = bytes_compare(a->name, a->name_length, b->name, b->name_length);
	if (order == 0)
		order = compare_u64(a->kind, b->kind);
	if (order == 0)
		order = strcmp(a->root ? a->root : "", b->root ? b->root : "");
	return order;
}

static int
compare_set(const struct op_set *a, const struct op_set *b)
{
	int order = node_id_compare(a->node, b->node);
	if (order == 0)
		order = hash_compare(&a->blob, &b->blob);
	if (order == 0)
		order = compare_u64(a->size, b->size);
	if (order == 0)
		order = compare_u64(a->mode, b->mode);
	if (order == 0)
		order = (a->mtime_ns > b->mtime_ns) - (a->mtime_ns < b->mtime_ns);
	return order;
}

/* Two ops with one id and one lamport are the same op unless a peer is
 * broken; ordering them by content keeps even that case independent of the
 * order of arrival (the least one wins the id). */
static int
compare_op_content(const struct op *a, const struct op *b)
{
	int order = compare_u64(a->kind, b->kind);
	if (order == 0)
		order = compare_u64(a->supersedes_count, b->supersedes_count);
	for (size_t i = 0; order == 0 && i < a->supersedes_count; i++)
		order = op_id_compare(a->supersedes[i], b->supersedes[i]);
	if (order != 0)
		return order;
	if (a->kind == OP_PLACE)
		return compare_place(&a->u.place, &b->u.place);
	return compare_set(&a->u.set, &b->u.set);
}

static int
order_key_compare(const void *left, const void *right)
{
	const struct order_key *a = left, *b = right;
	int order = compare_u64(a->lamport, b->lamport);
	if (order == 0)
		order = compare_u64(a->replica_high, b->replica_high);
	if (order == 0)
		order = compare_u64(a->replica_low, b->replica_low);
	if (order == 0)
		order = compare_u64(a->counter, b->counter);
	if (order == 0)
		order = compare_op_content(a->op, b->op);
	return order;
}

static struct order_key *
derive_sorted_keys(const struct op *ops, size_t count, size_t *key_count)
{
	size_t wanted = 0;

	for (size_t i = 0; i < count; i++)
		if (ops[i].kind == OP_PLACE || ops[i].kind == OP_SET)
			wanted++;
	if (wanted >= INDEX_LIMIT) {
		fputs("hearth: too many ops for one derivation\n", stderr);
		abort();
	}
	struct order_key *keys = array_zeroed(wanted, sizeof *keys);
	size_t filled = 0;
	for (size_t i = 0; i < count; i++) {
		if (ops[i].kind != OP_PLACE && ops[i].kind != OP_SET)
			continue;
		keys[filled++] = (struct order_key){
			.lamport = ops[i].lamport,
			.replica_high = load_u64be(ops[i].id.replica.bytes),
			.replica_low = load_u64be(ops[i].id.replica.bytes + 8),
			.counter = ops[i].id.counter,
			.op = &ops[i],
		};
	}
	state_sort(keys, wanted, sizeof *keys, order_key_compare);
	*key_count = wanted;
	return keys;
}

/* Slot of id in the op table: its index + 1, or the empty slot to fill. */
static size_t
op_table_slot(const struct derive *derive, struct op_id id)
{
	size_t slot = hash_op_id(id) & derive->op_table_mask;

	while (derive->op_table[slot] != 0 &&
	    !op_id_equal(derive->ops[derive->op_table[slot] - 1]->id, id))
		slot = (slot + 1) & derive->op_table_mask;
	return slot;
}

static uint32_t
op_table_find(const struct derive *derive, struct op_id id)
{
	uint32_t entry = derive->op_table[op_table_slot(derive, id)];
	return entry ? entry - 1 : NO_INDEX;
}

/* Keeps the first op of each id in total order: a repeated op is ignored. */
static void
derive_unique_ops(struct derive *derive, const struct op *ops, size_t count)
{
	size_t key_count;
	struct order_key *keys = derive_sorted_keys(ops, count, &key_count);

	derive->ops = array_zeroed(key_count, sizeof *derive->ops);
	derive->op_table_mask = table_size_for(key_count) - 1;
	derive->op_table = array_zeroed(derive->op_table_mask + 1, sizeof *derive->op_table);
	for (size_t i = 0; i < key_count; i++) {
		size_t slot = op_table_slot(derive, keys[i].op->id);
		if (derive->op_table[slot] != 0)
			continue;
		derive->ops[derive->op_count] = keys[i].op;
		derive->op_table[slot] = ++derive->op_count;
	}
	free(keys);
}

/* Supersedes naming ops outside the set are irrelevant: only known ops can
 * be heads, so only they need marking. */
static void
derive_mark_superseded(struct derive *derive)
{
	derive->superseded = array_zeroed(derive->op_count, 1);
	for (uint32_t i = 0; i < derive->op_count; i++) {
		const struct op *op = derive->ops[i];
		for (size_t j = 0; j < op->supersedes_count; j++) {
			uint32_t target = op_table_find(derive, op->supersedes[j]);
			if (target != NO_INDEX)
				derive->superseded[target] = 1;
		}
	}
}

/* ---- nodes and conflicts ------------------------------------------------ */

static size_t
node_table_slot(const struct derive *derive, struct node_id id)
{
	size_t slot = hash_id_bytes(id.bytes, 0) & derive->node_table_mask;

	while (derive->node_table[slot] != 0 &&
	    !node_id_equal(derive->nodes[derive->node_table[slot] - 1].id, id))
		slot = (slot + 1) & derive->node_table_mask;
	return slot;
}

static uint32_t
node_find(const struct derive *derive, struct node_id id)
{
	uint32_t entry = derive->node_table[node_table_slot(derive, id)];
	return entry ? entry - 1 : NO_INDEX;
}

static uint32_t
node_create(struct derive *derive, struct node_id id, enum node_kind kind)
{
	size_t capacity = derive->node_capacity;
	derive->nodes = array_grow(derive->nodes, &capacity, derive->node_count + 1,
	    sizeof *derive->nodes);
	derive->node_capacity = (uint32_t)capacity;
	uint32_t index = derive->node_count++;
	derive->nodes[index] = (struct derive_node){
		.id = id,
		.kind = kind,
		.parent = PARENT_TRASH,
		.place = NO_INDEX,
		.visible_place = NO_INDEX,
		.content = NO_INDEX,
	};
	derive->node_table[node_table_slot(derive, id)] = index + 1;
	return index;
}

/* ops are op indices in total order; the conflict copies their ids. */
static void
conflict_add(struct derive *derive, enum conflict_kind kind, struct node_id node,
    const uint32_t *ops, size_t op_count)
{
	derive->conflicts = array_grow(derive->conflicts, &derive->conflict_capacity,
	    derive->conflict_count + 1, sizeof *derive->conflicts);
	struct op_id *ids = arena_alloc(derive->arena, op_count * sizeof *ids);
	for (size_t i = 0; i < op_count; i++)
		ids[i] = derive->ops[ops[i]]->id;
	derive->conflicts[derive->conflict_count++] = (struct derive_conflict){
		.kind = kind,
		.node = node,
		.first_op = ops[0],
		.ops = ids,
		.op_count = op_count,
	};
}

static void
conflict_add_one(struct derive *derive, enum conflict_kind kind, uint32_t op)
{
	conflict_add(derive, kind, op_node(derive->ops[op]), &op, 1);
}

static void
pending_add(struct derive *derive, uint32_t op)
{
	derive->pending[derive->pending_count++] = op;
}

/* ---- placement (§4.1, §4.5) --------------------------------------------- */

/* true when node is ancestor or ancestor's descendant in the current tree. */
static bool
node_is_under(const struct derive *derive, uint32_t ancestor, uint32_t node)
{
	while (node != PARENT_ROOT && node != PARENT_TRASH) {
		if (node == ancestor)
			return true;
		node = derive->nodes[node].parent;
	}
	return false;
}

static bool
place_well_formed(const struct op_place *place)
{
	if (node_id_equal(place->node, NODE_ROOT) || node_id_equal(place->node, NODE_TRASH))
		return false;
	if (place->kind < NODE_FILE || place->kind > NODE_SYMLINK)
		return false;
	return op_name_valid(place->name, place->name_length);
}

static void
node_apply_place(struct derive *derive, uint32_t node, uint32_t parent, uint32_t op)
{
	derive->nodes[node].parent = parent;
	derive->nodes[node].place = op;
	if (parent != PARENT_TRASH)
		derive->nodes[node].visible_place = op;
}

/* Parents are resolved at the op's point in total order. A causal history
 * always creates the parent earlier in that order, so "not placed yet"
 * means "not arrived": the op is pending. */
static void
derive_place_one(struct derive *derive, uint32_t op_index)
{
	const struct op_place *place = &derive->ops[op_index]->u.place;
	uint32_t parent;

	if (!place_well_formed(place)) {
		conflict_add_one(derive, CONFLICT_INVALID_OP, op_index);
		return;
	}
	if (node_id_equal(place->parent, NODE_ROOT)) {
		parent = PARENT_ROOT;
	} else if (node_id_equal(place->parent, NODE_TRASH)) {
		parent = PARENT_TRASH;
	} else {
		parent = node_find(derive, place->parent);
		if (parent == NO_INDEX) {
			pending_add(derive, op_index);
			return;
		}
		if (derive->nodes[parent].kind != NODE_DIR) {
			conflict_add_one(derive, CONFLICT_INVALID_OP, op_index);
			return;
		}
	}

	uint32_t node = node_find(derive, place->node);
	if (node == NO_INDEX) {
		/* Nothing can be under a node not yet created, so no cycle. */
		node = node_create(derive, place->node, place->kind);
		node_apply_place(derive, node, parent, op_index);
		return;
	}
	if (place->kind != derive->nodes[node].kind) {
		conflict_add_one(derive, CONFLICT_INVALID_OP, op_index);
		return;
	}
	if (derive->nodes[node].kind == NODE_DIR && node_is_under(derive, node, parent)) {
		/* Listed until a later PLACE of the folder (the user's choice of
		 * where it goes) supersedes the skipped move. */
		if (!derive->superseded[op_index])
			conflict_add_one(derive, CONFLICT_CYCLE, op_index);
		return;
	}
	node_apply_place(derive, node, parent, op_index);
}

static void
derive_placement(struct derive *derive, size_t place_count)
{
	derive->node_table_mask = table_size_for(place_count) - 1;
	derive->node_table = array_zeroed(derive->node_table_mask + 1, sizeof *derive->node_table);
	for (uint32_t i = 0; i < derive->op_count; i++)
		if (derive->ops[i]->kind == OP_PLACE)
			derive_place_one(derive, i);

	derive->op_nodes = array_zeroed(derive->op_count, sizeof *derive->op_nodes);
	for (uint32_t i = 0; i < derive->op_count; i++)
		derive->op_nodes[i] = node_find(derive, op_node(derive->ops[i]));
}

/* ---- content and heads (§4.2) ------------------------------------------- */

/* A SET applies to an existing file or symlink. The content shown is the
 * greatest head; with no head left (every SET superseded, e.g. by a delete
 * whose node a concurrent move revived) it is the greatest SET known, the
 * newest bytes anyone recorded for the node, rather than no content. */
static void
derive_content(struct derive *derive)
{
	for (uint32_t i = 0; i < derive->op_count; i++) {
		if (derive->ops[i]->kind != OP_SET)
			continue;
		uint32_t node = derive->op_nodes[i];
		if (node == NO_INDEX) {
			pending_add(derive, i);
			continue;
		}
		if (derive->nodes[node].kind == NODE_DIR) {
			conflict_add_one(derive, CONFLICT_INVALID_OP, i);
			continue;
		}
		struct derive_node *target = &derive->nodes[node];
		bool head = !derive->superseded[i];
		if (head)
			target->content_head_count++;
		if (head || target->content_head_count == 0)
			target->content = i;
	}
}

static bool
op_is_content_head(const struct derive *derive, uint32_t op)
{
	uint32_t node = derive->op_nodes[op];
	return derive->ops[op]->kind == OP_SET && !derive->superseded[op] &&
	    node != NO_INDEX && derive->nodes[node].kind != NODE_DIR;
}

/* Placement heads are every unsuperseded PLACE of the node, whether it
 * applied or not: heads are a property of the op set alone. */
static void
derive_heads(struct derive *derive)
{
	for (uint32_t i = 0; i < derive->op_count; i++) {
		uint32_t node = derive->op_nodes[i];
		if (node != NO_INDEX && derive->ops[i]->kind == OP_PLACE && !derive->superseded[i])
			derive->nodes[node].place_head_count++;
	}
	for (uint32_t n = 0; n < derive->node_count; n++) {
		struct derive_node *node = &derive->nodes[n];
		if (node->place_head_count > 0)
			node->place_heads = arena_alloc(derive->arena,
			    node->place_head_count * sizeof *node->place_heads);
		if (node->content_head_count > 0)
			node->content_heads = arena_alloc(derive->arena,
			    node->content_head_count * sizeof *node->content_heads);
		node->place_head_count = 0;
		node->content_head_count = 0;
	}
	for (uint32_t i = 0; i < derive->op_count; i++) {
		uint32_t index = derive->op_nodes[i];
		if (index == NO_INDEX || derive->superseded[i])
			continue;
		struct derive_node *node = &derive->nodes[index];
		if (derive->ops[i]->kind == OP_PLACE)
			node->place_heads[node->place_head_count++] = derive->ops[i]->id;
		else if (op_is_content_head(derive, i))
			node->content_heads[node->content_head_count++] = derive->ops[i]->id;
	}
}

/* Heads that all hold the same bytes and mode are no conflict: two
 * replicas made the same change, or merged the same heads alike
 * (model/merge.h), and either one is the content. */
static bool
heads_hold_one_content(const struct derive *derive, const uint32_t *ops, size_t count)
{
	const struct op_set *first = &derive->ops[ops[0]]->u.set;
	for (size_t i = 1; i < count; i++) {
		const struct op_set *other = &derive->ops[ops[i]]->u.set;
		if (!hash_equal(&first->blob, &other->blob) || first->mode != other->mode)
			return false;
	}
	return true;
}

static void
derive_head_conflicts(struct derive *derive)
{
	uint32_t *ops = NULL;
	size_t capacity = 0;

	for (uint32_t n = 0; n < derive->node_count; n++) {
		const struct derive_node *node = &derive->nodes[n];
		if (node->place_head_count >= 2) {
			ops = array_grow(ops, &capacity, node->place_head_count, sizeof *ops);
			for (uint32_t i = 0; i < node->place_head_count; i++)
				ops[i] = op_table_find(derive, node->place_heads[i]);
			conflict_add(derive, CONFLICT_MOVE, node->id, ops, node->place_head_count);
		}
		if (node->content_head_count >= 2) {
			ops = array_grow(ops, &capacity, node->content_head_count, sizeof *ops);
			for (uint32_t i = 0; i < node->content_head_count; i++)
				ops[i] = op_table_find(derive, node->content_heads[i]);
			if (!heads_hold_one_content(derive, ops, node->content_head_count))
				conflict_add(derive, CONFLICT_CONTENT, node->id, ops,
				    node->content_head_count);
		}
	}
	free(ops);
}

/* ---- output ------------------------------------------------------------- */

static int
state_node_compare(const void *left, const void *right)
{
	const struct state_node *a = left, *b = right;
	return node_id_compare(a->id, b->id);
}

static const char *
output_root(struct derive *derive, const char *root)
{
	if (root == NULL)
		root = "";
	for (size_t i = 0; i < sizeof derive->roots / sizeof *derive->roots; i++)
		if (derive->roots[i] != NULL && strcmp(derive->roots[i], root) == 0)
			return derive->roots[i];
	const char *copy = arena_strdup(derive->arena, root);
	derive->roots[derive->root_next++ % (sizeof derive->roots / sizeof *derive->roots)] = copy;
	return copy;
}

/* The finishing rules' view of a node: its placement and last placement
 * outside the trash, as PLACE references. */
static struct state_place_ref
place_ref(const struct derive *derive, uint32_t op)
{
	if (op == NO_INDEX)
		return (struct state_place_ref){ .valid = false };
	const struct op *place = derive->ops[op];
	return (struct state_place_ref){
		.valid = true, .op = place->id, .lamport = place->lamport,
		.parent = place->u.place.parent, .name = place->u.place.name,
		.name_length = place->u.place.name_length, .root = place->u.place.root,
	};
}

static void
output_node(struct derive *derive, const struct state_finish_node *finished,
    struct state_node *out)
{
	const struct derive_node *node = &derive->nodes[node_find(derive, finished->id)];
	const struct state_place_ref *place = &finished->effective;
	struct arena *arena = derive->arena;

	*out = (struct state_node){
		.id = node->id,
		.kind = node->kind,
		.parent = finished->shown_parent,
		.name = arena_copy(arena, place->name, place->name_length),
		.name_length = place->name_length,
		.root = output_root(derive, place->root),
		.live = finished->live,
		.place_op = place->op,
		.place_heads = node->place_heads,
		.place_head_count = node->place_head_count,
		.content_heads = node->content_heads,
		.content_head_count = node->content_head_count,
	};
	if (finished->shown_name == place->name) {
		out->shown_name = out->name;
		out->shown_name_length = out->name_length;
	} else {
		out->shown_name = finished->shown_name;
		out->shown_name_length = finished->shown_name_length;
	}
	if (node->content != NO_INDEX) {
		const struct op *set = derive->ops[node->content];
		out->has_content = true;
		out->content_op = set->id;
		out->blob = set->u.set.blob;
		out->size = set->u.set.size;
		out->mode = set->u.set.mode;
		out->mtime_ns = set->u.set.mtime_ns;
	}
}

/* Runs the finishing rules (revives, liveness, names) over every node and
 * adds their conflicts to the derivation's. */
static struct state_finish_node *
derive_finish(struct derive *derive)
{
	struct state_finish_node *nodes = array_zeroed(derive->node_count, sizeof *nodes);
	struct state_conflict *conflicts = NULL;
	size_t conflict_count = 0;

	for (uint32_t n = 0; n < derive->node_count; n++) {
		const struct derive_node *node = &derive->nodes[n];
		nodes[n] = (struct state_finish_node){
			.id = node->id, .kind = node->kind,
			.place = place_ref(derive, node->place),
			.visible = place_ref(derive, node->visible_place),
			.content_head_count = node->content_head_count,
		};
	}
	state_finish(nodes, derive->node_count, derive->arena, &conflicts, &conflict_count);
	for (size_t i = 0; i < conflict_count; i++) {
		uint32_t *ops = array_zeroed(conflicts[i].op_count, sizeof *ops);
		for (size_t j = 0; j < conflicts[i].op_count; j++)
			ops[j] = op_table_find(derive, conflicts[i].ops[j]);
		conflict_add(derive, conflicts[i].kind, conflicts[i].node, ops, conflicts[i].op_count);
		free(ops);
	}
	free(conflicts);
	return nodes;
}

/* Conflicts in (kind, node, first op in total order): unique, since each
 * rule lists a given op at most once per node and kind. */
static int
conflict_compare(const void *left, const void *right)
{
	const struct derive_conflict *a = left, *b = right;
	int order = compare_u64(a->kind, b->kind);
	if (order == 0)
		order = node_id_compare(a->node, b->node);
	if (order == 0)
		order = compare_u64(a->first_op, b->first_op);
	return order;
}

static int
op_index_compare(const void *left, const void *right)
{
	return compare_u64(*(const uint32_t *)left, *(const uint32_t *)right);
}

static void
derive_output(struct derive *derive, const struct state_finish_node *finished, struct state *out)
{
	out->node_count = derive->node_count;
	out->nodes = arena_alloc(&out->arena, derive->node_count * sizeof *out->nodes);
	for (uint32_t n = 0; n < derive->node_count; n++)
		output_node(derive, &finished[n], &out->nodes[n]);
	state_sort(out->nodes, out->node_count, sizeof *out->nodes, state_node_compare);

	state_sort(derive->conflicts, derive->conflict_count, sizeof *derive->conflicts, conflict_compare);
	out->conflict_count = derive->conflict_count;
	out->conflicts = arena_alloc(&out->arena, derive->conflict_count * sizeof *out->conflicts);
	for (size_t i = 0; i < derive->conflict_count; i++)
		out->conflicts[i] = (struct state_conflict){ .kind = derive->conflicts[i].kind,
			.node = derive->conflicts[i].node, .ops = derive->conflicts[i].ops,
			.op_count = derive->conflicts[i].op_count };

	state_sort(derive->pending, derive->pending_count, sizeof *derive->pending, op_index_compare);
	out->pending_count = derive->pending_count;
	out->pending = arena_alloc(&out->arena, derive->pending_count * sizeof *out->pending);
	for (size_t i = 0; i < derive->pending_count; i++)
		out->pending[i] = derive->ops[derive->pending[i]]->id;
}

static void
derive_free(struct derive *derive)
{
	free(derive->ops);
	free(derive->superseded);
	free(derive->op_nodes);
	free(derive->op_table);
	free(derive->nodes);
	free(derive->node_table);
	free(derive->conflicts);
	free(derive->pending);
}

void
state_derive(const struct op *ops, size_t count, struct state *out)
{
	struct derive derive = { .arena = &out->arena };
	size_t place_count = 0;

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 256 * 1024);
	derive_unique_ops(&derive, ops, count);
	derive_mark_superseded(&derive);
	derive.pending = array_zeroed(derive.op_count, sizeof *derive.pending);
	for (uint32_t i = 0; i < derive.op_count; i++)
		place_count += derive.ops[i]->kind == OP_PLACE;

	derive_placement(&derive, place_count);
	derive_content(&derive);
	derive_heads(&derive);
	derive_head_conflicts(&derive);
	struct state_finish_node *finished = derive_finish(&derive);
	derive_output(&derive, finished, out);
	free(finished);
	derive_free(&derive);
}

void
state_free(struct state *state)
{
	arena_free(&state->arena);
	memset(state, 0, sizeof *state);
}

/* ---- queries ------------------------------------------------------------ */

const struct state_node *
state_find(const struct state *state, struct node_id id)
{
	size_t low = 0, high = state->node_count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order = node_id_compare(state->nodes[middle].id, id);
		if (order == 0)
			return &state->nodes[middle];
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return NULL;
}

/* Two walks up the chain: one to size the path, one to write it from its
 * end, so no per-call allocation is needed. */
bool
state_path(const struct state *state, struct node_id id, struct buffer *out)
{
	const struct state_node *node;
	size_t length = 0;

	if (node_id_equal(id, NODE_ROOT))
		return true;
	node = state_find(state, id);
	if (node == NULL || !node->live)
		return false;
	for (; node != NULL; node = state_find(state, node->parent))
		length += node->shown_name_length + 1;
	length--;
	buffer_reserve(out, length);
	uint8_t *end = out->data + out->length + length;
	for (node = state_find(state, id); node != NULL; node = state_find(state, node->parent)) {
		end -= node->shown_name_length;
		memcpy(end, node->shown_name, node->shown_name_length);
		if (end > out->data + out->length)
			*--end = '/';
	}
	out->length += length;
	buffer_string(out);
	return true;
}

const char *
conflict_kind_name(enum conflict_kind kind)
{
	switch (kind) {
	case CONFLICT_CONTENT:
		return "content";
	case CONFLICT_MOVE:
		return "move";
	case CONFLICT_CYCLE:
		return "cycle";
	case CONFLICT_EDIT_REVIVED:
		return "edit-revived";
	case CONFLICT_REVIVED:
		return "revived";
	case CONFLICT_NAME:
		return "name";
	case CONFLICT_INVALID_OP:
		return "invalid-op";
	}
	return "unknown";
}

/* ---- canonical text ----------------------------------------------------- */

/* Bytes outside printable ASCII, the backslash and the space are escaped as
 * \xNN so one field never spills into the next. */
static void
dump_bytes(struct buffer *out, const uint8_t *bytes, size_t length)
{
	for (size_t i = 0; i < length; i++) {
		if (bytes[i] > ' ' && bytes[i] < 0x7f && bytes[i] != '\\')
			buffer_append_byte(out, bytes[i]);
		else
			buffer_printf(out, "\\x%02x", bytes[i]);
	}
}

static void
dump_node_id(struct buffer *out, struct node_id id)
{
	char hex[ID_HEX];

	if (node_id_equal(id, NODE_ROOT)) {
		buffer_printf(out, "root");
		return;
	}
	if (node_id_equal(id, NODE_TRASH)) {
		buffer_printf(out, "trash");
		return;
	}
	node_id_hex(id, hex);
	buffer_printf(out, "%s", hex);
}

/* Decimal, as %lld would print it, for all 128 bits. */
static void
dump_mtime(struct buffer *out, op_mtime value)
{
	char digits[48];
	size_t count = 0;
	unsigned __int128 magnitude = value < 0 ? -(unsigned __int128)value : (unsigned __int128)value;

	do {
		digits[count++] = (char)('0' + (int)(magnitude % 10));
		magnitude /= 10;
	} while (magnitude != 0);
	if (value < 0)
		buffer_append_byte(out, '-');
	while (count > 0)
		buffer_append_byte(out, (uint8_t)digits[--count]);
}

static void
dump_op_id(struct buffer *out, struct op_id id)
{
	char hex[ID_HEX];

	replica_id_hex(id.replica, hex);
	buffer_printf(out, "%s:%llu", hex, (unsigned long long)id.counter);
}

static void
dump_op_ids(struct buffer *out, const struct op_id *ids, size_t count)
{
	if (count == 0)
		buffer_printf(out, "-");
	for (size_t i = 0; i < count; i++) {
		if (i > 0)
			buffer_append_byte(out, ',');
		dump_op_id(out, ids[i]);
	}
}

static void
dump_node(struct buffer *out, const struct state_node *node)
{
	char blob[HASH_HEX];

	buffer_printf(out, "node ");
	dump_node_id(out, node->id);
	buffer_printf(out, " %s parent=", node_kind_name(node->kind));
	dump_node_id(out, node->parent);
	buffer_printf(out, " name=");
	dump_bytes(out, node->name, node->name_length);
	buffer_printf(out, " shown=");
	dump_bytes(out, node->shown_name, node->shown_name_length);
	buffer_printf(out, " root=");
	dump_bytes(out, (const uint8_t *)node->root, strlen(node->root));
	buffer_printf(out, " live=%d place=", node->live);
	dump_op_id(out, node->place_op);
	buffer_printf(out, " content=");
	if (node->has_content) {
		hash_hex(&node->blob, blob);
		dump_op_id(out, node->content_op);
		buffer_printf(out, " blob=%s size=%llu mode=%o mtime=", blob,
		    (unsigned long long)node->size, (unsigned)node->mode);
		dump_mtime(out, node->mtime_ns);
	} else {
		buffer_printf(out, "-");
	}
	buffer_printf(out, " place_heads=");
	dump_op_ids(out, node->place_heads, node->place_head_count);
	buffer_printf(out, " content_heads=");
	dump_op_ids(out, node->content_heads, node->content_head_count);
	buffer_append_byte(out, '\n');
}

void
state_dump(const struct state *state, struct buffer *out)
{
	for (size_t i = 0; i < state->node_count; i++)
		dump_node(out, &state->nodes[i]);
	for (size_t i = 0; i < state->conflict_count; i++) {
		const struct state_conflict *conflict = &state->conflicts[i];
		buffer_printf(out, "conflict %s ", conflict_kind_name(conflict->kind));
		dump_node_id(out, conflict->node);
		buffer_printf(out, " ops=");
		dump_op_ids(out, conflict->ops, conflict->op_count);
		buffer_append_byte(out, '\n');
	}
	for (size_t i = 0; i < state->pending_count; i++) {
		buffer_printf(out, "pending ");
		dump_op_id(out, state->pending[i]);
		buffer_append_byte(out, '\n');
	}
	buffer_string(out);
}

