/* State derivation (DESIGN §4) as one pure function of an op set. The PLACE
 * and SET ops are sorted once into total order and deduplicated; every later
 * pass walks flat arrays indexed by op position (which is total order) and by
 * node, with hash tables from ids to positions, so a history costs
 * O(n log n) plus O(folder moves x depth) for the cycle checks. */
#include "model/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Node indices are uint32_t to halve the scratch arrays; the top values
 * stand for "no node" and for the two fixed folders. */
#define NO_INDEX UINT32_MAX
#define PARENT_ROOT (UINT32_MAX - 1)
#define PARENT_TRASH (UINT32_MAX - 2)
#define INDEX_LIMIT (UINT32_MAX - 3)

/* A clash keeps at most this many hex digits, then numbers the name. */
#define NAME_HEX_FIRST 8
#define NAME_HEX_LAST (ID_BYTES * 2)

/* The sort key of an op, unpacked so sorting touches no op memory. */
struct order_key {
	uint64_t lamport;
	uint64_t replica_high;
	uint64_t replica_low;
	uint64_t counter;
	const struct op *op;
};

enum liveness {
	LIVENESS_UNKNOWN = 0,
	LIVENESS_VISITING,
	LIVENESS_LIVE,
	LIVENESS_DEAD,
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
	const uint8_t *shown_name;	/* set only for the losers of a clash */
	size_t shown_name_length;
	uint8_t liveness;
	bool queued;		/* waiting in the revive heap */
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

static void *
state_allocate(size_t count, size_t size)
{
	void *memory = calloc(count ? count : 1, size);
	if (memory == NULL) {
		fputs("hearth: out of memory\n", stderr);
		abort();
	}
	return memory;
}

static void *
state_grow(void *memory, size_t *capacity, size_t needed, size_t size)
{
	if (needed <= *capacity)
		return memory;
	size_t grown = *capacity ? *capacity * 2 : 16;
	while (grown < needed)
		grown *= 2;
	memory = realloc(memory, grown * size);
	if (memory == NULL) {
		fputs("hearth: out of memory\n", stderr);
		abort();
	}
	*capacity = grown;
	return memory;
}

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
compare_bytes(const void *a, size_t a_length, const void *b, size_t b_length)
{
	size_t common = a_length < b_length ? a_length : b_length;
	int order = common ? memcmp(a, b, common) : 0;
	if (order != 0)
		return order;
	return (a_length > b_length) - (a_length < b_length);
}

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
		order = compare_bytes(a->name, a->name_length, b->name, b->name_length);
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
	struct order_key *keys = state_allocate(wanted, sizeof *keys);
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

	derive->ops = state_allocate(key_count, sizeof *derive->ops);
	derive->op_table_mask = table_size_for(key_count) - 1;
	derive->op_table = state_allocate(derive->op_table_mask + 1, sizeof *derive->op_table);
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
	derive->superseded = state_allocate(derive->op_count, 1);
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
	derive->nodes = state_grow(derive->nodes, &capacity, derive->node_count + 1,
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

static struct node_id
parent_id(const struct derive *derive, uint32_t parent)
{
	if (parent == PARENT_ROOT)
		return NODE_ROOT;
	if (parent == PARENT_TRASH)
		return NODE_TRASH;
	return derive->nodes[parent].id;
}

/* ops are op indices in total order; the conflict copies their ids. */
static void
conflict_add(struct derive *derive, enum conflict_kind kind, struct node_id node,
    const uint32_t *ops, size_t op_count)
{
	derive->conflicts = state_grow(derive->conflicts, &derive->conflict_capacity,
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
		conflict_add_one(derive, CONFLICT_CYCLE, op_index);
		return;
	}
	node_apply_place(derive, node, parent, op_index);
}

static void
derive_placement(struct derive *derive, size_t place_count)
{
	derive->node_table_mask = table_size_for(place_count) - 1;
	derive->node_table = state_allocate(derive->node_table_mask + 1, sizeof *derive->node_table);
	for (uint32_t i = 0; i < derive->op_count; i++)
		if (derive->ops[i]->kind == OP_PLACE)
			derive_place_one(derive, i);

	derive->op_nodes = state_allocate(derive->op_count, sizeof *derive->op_nodes);
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

static void
derive_head_conflicts(struct derive *derive)
{
	uint32_t *ops = NULL;
	size_t capacity = 0;

	for (uint32_t n = 0; n < derive->node_count; n++) {
		const struct derive_node *node = &derive->nodes[n];
		if (node->place_head_count >= 2) {
			ops = state_grow(ops, &capacity, node->place_head_count, sizeof *ops);
			for (uint32_t i = 0; i < node->place_head_count; i++)
				ops[i] = op_table_find(derive, node->place_heads[i]);
			conflict_add(derive, CONFLICT_MOVE, node->id, ops, node->place_head_count);
		}
		if (node->content_head_count >= 2) {
			ops = state_grow(ops, &capacity, node->content_head_count, sizeof *ops);
			for (uint32_t i = 0; i < node->content_head_count; i++)
				ops[i] = op_table_find(derive, node->content_heads[i]);
			conflict_add(derive, CONFLICT_CONTENT, node->id, ops, node->content_head_count);
		}
	}
	free(ops);
}

/* ---- revives (§4.3) ----------------------------------------------------- */

/* A min-heap of node indices keyed by their deleting op: revives happen in
 * total order of the deletes they undo. */
struct revive_heap {
	uint32_t *nodes;
	size_t count;
	struct derive *derive;
};

static bool
revive_before(const struct revive_heap *heap, size_t a, size_t b)
{
	return heap->derive->nodes[heap->nodes[a]].place < heap->derive->nodes[heap->nodes[b]].place;
}

static void
revive_swap(struct revive_heap *heap, size_t a, size_t b)
{
	uint32_t swap = heap->nodes[a];
	heap->nodes[a] = heap->nodes[b];
	heap->nodes[b] = swap;
}

static void
revive_push(struct revive_heap *heap, uint32_t node)
{
	struct derive_node *entry = &heap->derive->nodes[node];
	if (entry->queued)
		return;
	entry->queued = true;
	size_t at = heap->count++;
	heap->nodes[at] = node;
	while (at > 0 && revive_before(heap, at, (at - 1) / 2)) {
		revive_swap(heap, at, (at - 1) / 2);
		at = (at - 1) / 2;
	}
}

static uint32_t
revive_pop(struct revive_heap *heap)
{
	uint32_t top = heap->nodes[0];
	heap->nodes[0] = heap->nodes[--heap->count];
	for (size_t at = 0;;) {
		size_t least = at, left = 2 * at + 1, right = left + 1;
		if (left < heap->count && revive_before(heap, left, least))
			least = left;
		if (right < heap->count && revive_before(heap, right, least))
			least = right;
		if (least == at)
			break;
		revive_swap(heap, at, least);
		at = least;
	}
	return top;
}

static uint32_t
derive_parent_of_op(const struct derive *derive, uint32_t op)
{
	struct node_id parent = derive->ops[op]->u.place.parent;
	if (node_id_equal(parent, NODE_ROOT))
		return PARENT_ROOT;
	if (node_id_equal(parent, NODE_TRASH))
		return PARENT_TRASH;
	return node_find(derive, parent);
}

/* A node never placed outside the trash has no old place to return to and
 * is revived at the top; so is a folder whose old place is now inside it. */
static void
derive_revive_one(struct derive *derive, struct revive_heap *heap, uint32_t index)
{
	struct derive_node *node = &derive->nodes[index];
	uint32_t delete_op = node->place;
	uint32_t target = PARENT_ROOT;
	bool cycle = false;

	if (node->visible_place != NO_INDEX) {
		target = derive_parent_of_op(derive, node->visible_place);
		node->place = node->visible_place;
		if (node->kind == NODE_DIR && node_is_under(derive, index, target)) {
			target = PARENT_ROOT;
			cycle = true;
		}
	}
	node->parent = target;
	conflict_add_one(derive, node->content_head_count > 0 ? CONFLICT_EDIT_REVIVED
	    : CONFLICT_REVIVED, delete_op);
	if (cycle)
		conflict_add_one(derive, CONFLICT_CYCLE, delete_op);
	if (target != PARENT_ROOT && derive->nodes[target].parent == PARENT_TRASH)
		revive_push(heap, target);
}

static void
derive_revives(struct derive *derive)
{
	struct revive_heap heap = {
		.nodes = state_allocate(derive->node_count, sizeof *heap.nodes),
		.derive = derive,
	};

	for (uint32_t n = 0; n < derive->node_count; n++) {
		const struct derive_node *node = &derive->nodes[n];
		if (node->parent == PARENT_TRASH && node->content_head_count > 0)
			revive_push(&heap, n);
		if (node->parent != PARENT_TRASH && node->parent != PARENT_ROOT &&
		    derive->nodes[node->parent].parent == PARENT_TRASH)
			revive_push(&heap, node->parent);
	}
	while (heap.count > 0) {
		uint32_t index = revive_pop(&heap);
		if (derive->nodes[index].parent == PARENT_TRASH)
			derive_revive_one(derive, &heap, index);
	}
	free(heap.nodes);
}

/* ---- liveness ----------------------------------------------------------- */

/* Walks up to the first node whose liveness is known, then marks the path.
 * A cycle cannot happen (placement and revives refuse them); the VISITING
 * mark would still end such a walk, marking the loop dead. */
static void
derive_liveness_of(struct derive *derive, uint32_t start, uint32_t *path)
{
	size_t length = 0;
	uint32_t at = start;
	bool live;

	for (;;) {
		if (at == PARENT_ROOT) {
			live = true;
			break;
		}
		if (at == PARENT_TRASH || derive->nodes[at].liveness == LIVENESS_VISITING) {
			live = false;
			break;
		}
		if (derive->nodes[at].liveness != LIVENESS_UNKNOWN) {
			live = derive->nodes[at].liveness == LIVENESS_LIVE;
			break;
		}
		derive->nodes[at].liveness = LIVENESS_VISITING;
		path[length++] = at;
		at = derive->nodes[at].parent;
	}
	while (length > 0)
		derive->nodes[path[--length]].liveness = live ? LIVENESS_LIVE : LIVENESS_DEAD;
}

static void
derive_liveness(struct derive *derive)
{
	uint32_t *path = state_allocate(derive->node_count, sizeof *path);
	for (uint32_t n = 0; n < derive->node_count; n++)
		derive_liveness_of(derive, n, path);
	free(path);
}

/* ---- names (§4.4) ------------------------------------------------------- */

struct name_entry {
	uint32_t parent;
	uint32_t node;
	uint32_t naming_op;
	const uint8_t *name;
	size_t length;
};

static int
name_entry_compare(const void *left, const void *right)
{
	const struct name_entry *a = left, *b = right;
	int order = compare_u64(a->parent, b->parent);
	if (order == 0)
		order = compare_bytes(a->name, a->length, b->name, b->length);
	if (order == 0)
		order = compare_u64(a->naming_op, b->naming_op);
	return order;
}

/* Names taken in some folder: the kept names and the ones handed out. */
struct name_set {
	struct name_entry *entries;
	size_t count;
	uint32_t *slots;
	size_t mask;
};

static uint64_t
name_hash(uint32_t parent, const uint8_t *name, size_t length)
{
	uint64_t hash = 0xcbf29ce484222325ULL ^ parent;
	for (size_t i = 0; i < length; i++)
		hash = (hash ^ name[i]) * 0x100000001b3ULL;
	return hash_mix(hash);
}

static size_t
name_set_slot(const struct name_set *set, uint32_t parent, const uint8_t *name, size_t length)
{
	size_t slot = name_hash(parent, name, length) & set->mask;
	while (set->slots[slot] != 0) {
		const struct name_entry *entry = &set->entries[set->slots[slot] - 1];
		if (entry->parent == parent && compare_bytes(entry->name, entry->length, name, length) == 0)
			break;
		slot = (slot + 1) & set->mask;
	}
	return slot;
}

/* false when the name was taken already. */
static bool
name_set_add(struct name_set *set, uint32_t parent, const uint8_t *name, size_t length)
{
	size_t slot = name_set_slot(set, parent, name, length);
	if (set->slots[slot] != 0)
		return false;
	set->entries[set->count] = (struct name_entry){ .parent = parent, .name = name, .length = length };
	set->slots[slot] = (uint32_t)++set->count;
	return true;
}

static const struct op_place *
node_naming_place(const struct derive *derive, uint32_t node)
{
	return &derive->ops[derive->nodes[node].place]->u.place;
}

static void state_numbered_name(const uint8_t *name, size_t name_length, struct node_id id,
    int hex_digits, uint64_t number, struct buffer *out);

/* The first free name among name~<8 hex>, ~<9 hex>, ... ~<32 hex>, then
 * ~<32 hex>-2, -3...: the later forms only exist if a person named files
 * after other nodes' ids, but they keep every shown name unique. */
static void
name_give_loser(struct derive *derive, struct name_set *set, const struct name_entry *loser,
    struct buffer *scratch)
{
	struct node_id id = derive->nodes[loser->node].id;

	for (uint64_t attempt = 0;; attempt++) {
		int digits = NAME_HEX_FIRST + (int)attempt;
		uint64_t number = 0;
		if (digits > NAME_HEX_LAST) {
			number = (uint64_t)(digits - NAME_HEX_LAST) + 1;
			digits = NAME_HEX_LAST;
		}
		buffer_reset(scratch);
		state_numbered_name(loser->name, loser->length, id, digits, number, scratch);
		size_t slot = name_set_slot(set, loser->parent, scratch->data, scratch->length);
		if (set->slots[slot] != 0)
			continue;
		uint8_t *shown = arena_copy(derive->arena, scratch->data, scratch->length);
		name_set_add(set, loser->parent, shown, scratch->length);
		derive->nodes[loser->node].shown_name = shown;
		derive->nodes[loser->node].shown_name_length = scratch->length;
		return;
	}
}

/* One name conflict per loser, listing the naming PLACE of every node of
 * its clash group in total order, so each renamed file is listed where the
 * user will see it and resolving one loser leaves the others listed. */
static void
name_resolve_group(struct derive *derive, struct name_set *set, const struct name_entry *group,
    size_t count, struct buffer *scratch)
{
	uint32_t *ops = state_allocate(count, sizeof *ops);
	for (size_t i = 0; i < count; i++)
		ops[i] = group[i].naming_op;
	for (size_t i = 1; i < count; i++) {
		name_give_loser(derive, set, &group[i], scratch);
		conflict_add(derive, CONFLICT_NAME, derive->nodes[group[i].node].id, ops, count);
	}
	free(ops);
}

static bool
name_same_group(const struct name_entry *a, const struct name_entry *b)
{
	return a->parent == b->parent && compare_bytes(a->name, a->length, b->name, b->length) == 0;
}

static void
derive_names(struct derive *derive)
{
	struct name_entry *live = state_allocate(derive->node_count, sizeof *live);
	size_t live_count = 0;

	for (uint32_t n = 0; n < derive->node_count; n++) {
		if (derive->nodes[n].liveness != LIVENESS_LIVE)
			continue;
		const struct op_place *place = node_naming_place(derive, n);
		live[live_count++] = (struct name_entry){ .parent = derive->nodes[n].parent,
			.node = n, .naming_op = derive->nodes[n].place, .name = place->name,
			.length = place->name_length };
	}
	state_sort(live, live_count, sizeof *live, name_entry_compare);

	bool clash = false;
	for (size_t i = 1; i < live_count && !clash; i++)
		clash = name_same_group(&live[i - 1], &live[i]);
	if (clash) {
		struct name_set set = {
			.entries = state_allocate(2 * live_count, sizeof *set.entries),
			.mask = table_size_for(2 * live_count) - 1,
		};
		struct buffer scratch;
		set.slots = state_allocate(set.mask + 1, sizeof *set.slots);
		buffer_init(&scratch);
		for (size_t i = 0; i < live_count; i++)
			name_set_add(&set, live[i].parent, live[i].name, live[i].length);
		for (size_t start = 0, end; start < live_count; start = end) {
			for (end = start + 1; end < live_count && name_same_group(&live[start], &live[end]); end++)
				;
			if (end - start > 1)
				name_resolve_group(derive, &set, live + start, end - start, &scratch);
		}
		buffer_free(&scratch);
		free(set.entries);
		free(set.slots);
	}
	free(live);
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

static void
output_node(struct derive *derive, uint32_t index, struct state_node *out)
{
	const struct derive_node *node = &derive->nodes[index];
	const struct op_place *place = node_naming_place(derive, index);
	struct arena *arena = derive->arena;

	*out = (struct state_node){
		.id = node->id,
		.kind = node->kind,
		.parent = parent_id(derive, node->parent),
		.name = arena_copy(arena, place->name, place->name_length),
		.name_length = place->name_length,
		.root = output_root(derive, place->root),
		.live = node->liveness == LIVENESS_LIVE,
		.place_op = derive->ops[node->place]->id,
		.place_heads = node->place_heads,
		.place_head_count = node->place_head_count,
		.content_heads = node->content_heads,
		.content_head_count = node->content_head_count,
	};
	out->shown_name = node->shown_name ? node->shown_name : out->name;
	out->shown_name_length = node->shown_name ? node->shown_name_length : out->name_length;
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
derive_output(struct derive *derive, struct state *out)
{
	out->node_count = derive->node_count;
	out->nodes = arena_alloc(&out->arena, derive->node_count * sizeof *out->nodes);
	for (uint32_t n = 0; n < derive->node_count; n++)
		output_node(derive, n, &out->nodes[n]);
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
	derive.pending = state_allocate(derive.op_count, sizeof *derive.pending);
	for (uint32_t i = 0; i < derive.op_count; i++)
		place_count += derive.ops[i]->kind == OP_PLACE;

	derive_placement(&derive, place_count);
	derive_content(&derive);
	derive_heads(&derive);
	derive_head_conflicts(&derive);
	derive_revives(&derive);
	derive_liveness(&derive);
	derive_names(&derive);
	derive_output(&derive, out);
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
		buffer_printf(out, " blob=%s size=%llu mode=%o mtime=%lld", blob,
		    (unsigned long long)node->size, (unsigned)node->mode, (long long)node->mtime_ns);
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

/* ---- disambiguated names ------------------------------------------------ */

/* Where the extension starts: the last '.', unless it is the first byte
 * (".bashrc" has none). length when there is no extension. */
static size_t
name_extension_start(const uint8_t *name, size_t length)
{
	for (size_t i = length; i > 1; i--)
		if (name[i - 1] == '.')
			return i - 1;
	return length;
}

/* Backs a cut off the middle of a UTF-8 sequence, so a shortened name
 * stays as valid as the original was. */
static size_t
utf8_cut(const uint8_t *bytes, size_t cut)
{
	size_t back = cut;
	while (back > 0 && (bytes[back] & 0xc0) == 0x80)
		back--;
	return back > 0 ? back : cut;
}

static void
state_numbered_name(const uint8_t *name, size_t name_length, struct node_id id,
    int hex_digits, uint64_t number, struct buffer *out)
{
	char hex[ID_HEX], suffix[ID_HEX + 32];
	size_t extension = name_extension_start(name, name_length);

	if (hex_digits < 1)
		hex_digits = 1;
	if (hex_digits > NAME_HEX_LAST)
		hex_digits = NAME_HEX_LAST;
	node_id_hex(id, hex);
	int suffix_length = number > 0
	    ? snprintf(suffix, sizeof suffix, "~%.*s-%llu", hex_digits, hex, (unsigned long long)number)
	    : snprintf(suffix, sizeof suffix, "~%.*s", hex_digits, hex);

	/* Names stay within OP_NAME_MAX so they can be written to disk: the
	 * stem is shortened first; an extension too long to keep is treated
	 * as part of the stem. */
	size_t room = OP_NAME_MAX - (size_t)suffix_length;
	if (name_length - extension >= room)
		extension = name_length;
	size_t stem = extension;
	size_t extension_length = name_length - extension;
	if (stem + extension_length > room)
		stem = utf8_cut(name, room - extension_length);
	buffer_append(out, name, stem);
	buffer_append(out, suffix, (size_t)suffix_length);
	buffer_append(out, name + extension, extension_length);
	buffer_string(out);
}

void
state_disambiguated_name(const uint8_t *name, size_t name_length, struct node_id id,
    int hex_digits, struct buffer *out)
{
	state_numbered_name(name, name_length, id, hex_digits, 0, out);
}
