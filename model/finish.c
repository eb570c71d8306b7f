/* The finishing rules of state derivation: revives (docs/DESIGN.md §4.3), liveness,
 * and name clashes (§4.4). They read only each node's placement, its last
 * placement outside the trash and how many content heads it has, so the
 * pure derivation and the backend's incremental integration share them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "model/state.h"

/* A clash keeps at most this many hex digits, then numbers the name. */
#define NAME_HEX_FIRST 8
#define NAME_HEX_LAST (ID_BYTES * 2)

#define NO_NODE SIZE_MAX
#define AT_ROOT (SIZE_MAX - 1)
#define AT_TRASH (SIZE_MAX - 2)

enum liveness { LIVENESS_UNKNOWN, LIVENESS_VISITING, LIVENESS_LIVE, LIVENESS_DEAD };

/* Working state per node, beside the caller's array (same index). */
struct finish_slot {
	size_t parent;		/* index, AT_ROOT or AT_TRASH: where it is now */
	uint8_t liveness;
	bool queued;
};

struct finish {
	struct state_finish_node *nodes;
	struct finish_slot *slots;
	size_t count;
	struct arena *arena;
	struct state_conflict *conflicts;
	size_t conflict_count, conflict_capacity;
};

int
state_place_compare(const struct state_place_ref *a, const struct state_place_ref *b)
{
	return op_order_compare_keys(a->lamport, a->op, b->lamport, b->op);
}

static int
compare_by_id(const void *left, const void *right)
{
	const struct state_finish_node *a = left, *b = right;
	return node_id_compare(a->id, b->id);
}

static size_t
index_of(const struct finish *finish, struct node_id id)
{
	size_t low = 0, high = finish->count;

	if (node_id_equal(id, NODE_ROOT))
		return AT_ROOT;
	if (node_id_equal(id, NODE_TRASH))
		return AT_TRASH;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order = node_id_compare(finish->nodes[middle].id, id);
		if (order == 0)
			return middle;
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	/* A parent that is not a node: only hostile input gets here, and the
	 * derivation never applies such a PLACE; show it at the top. */
	return AT_ROOT;
}

static struct node_id
id_of(const struct finish *finish, size_t index)
{
	if (index == AT_ROOT)
		return NODE_ROOT;
	if (index == AT_TRASH)
		return NODE_TRASH;
	return finish->nodes[index].id;
}

static void
add_conflict(struct finish *finish, enum conflict_kind kind, struct node_id node,
    const struct state_place_ref *const *ops, size_t op_count)
{
	finish->conflicts = array_grow(finish->conflicts, &finish->conflict_capacity,
	    finish->conflict_count + 1, sizeof *finish->conflicts);
	struct op_id *ids = arena_alloc(finish->arena, op_count * sizeof *ids);
	for (size_t i = 0; i < op_count; i++)
		ids[i] = ops[i]->op;
	finish->conflicts[finish->conflict_count++] = (struct state_conflict){
		.kind = kind, .node = node, .ops = ids, .op_count = op_count,
	};
}

/* true when node is ancestor or below it where things are now. */
static bool
is_under(const struct finish *finish, size_t ancestor, size_t node)
{
	size_t steps = 0;

	while (node != AT_ROOT && node != AT_TRASH && steps++ <= finish->count) {
		if (node == ancestor)
			return true;
		node = finish->slots[node].parent;
	}
	return false;
}

/* ---- revives ------------------------------------------------------------ */

/* A min-heap of node indices keyed by the PLACE in effect: for a node in
 * the trash, the delete; revives happen in total order of the deletes. */
struct revive_heap {
	size_t *items;
	size_t count;
	const struct finish *finish;
};

static bool
heap_before(const struct revive_heap *heap, size_t a, size_t b)
{
	return state_place_compare(&heap->finish->nodes[heap->items[a]].effective,
		   &heap->finish->nodes[heap->items[b]].effective) < 0;
}

static void
heap_swap(struct revive_heap *heap, size_t a, size_t b)
{
	size_t swap = heap->items[a];
	heap->items[a] = heap->items[b];
	heap->items[b] = swap;
}

static void
heap_push(struct finish *finish, struct revive_heap *heap, size_t node)
{
	if (finish->slots[node].queued)
		return;
	finish->slots[node].queued = true;
	size_t at = heap->count++;
	heap->items[at] = node;
	while (at > 0 && heap_before(heap, at, (at - 1) / 2)) {
		heap_swap(heap, at, (at - 1) / 2);
		at = (at - 1) / 2;
	}
}

static size_t
heap_pop(struct revive_heap *heap)
{
	size_t top = heap->items[0];
	heap->items[0] = heap->items[--heap->count];
	for (size_t at = 0;;) {
		size_t least = at, left = 2 * at + 1, right = left + 1;
		if (left < heap->count && heap_before(heap, left, least))
			least = left;
		if (right < heap->count && heap_before(heap, right, least))
			least = right;
		if (least == at)
			break;
		heap_swap(heap, at, least);
		at = least;
	}
	return top;
}

/* A node never placed outside the trash has no old place to return to and
 * is revived at the top; so is a folder whose old place is now inside it. */
static void
revive_one(struct finish *finish, struct revive_heap *heap, size_t index)
{
	struct state_finish_node *node = &finish->nodes[index];
	struct state_place_ref delete = node->effective;
	const struct state_place_ref *ops[1] = { &delete };
	size_t target = AT_ROOT;
	bool cycle = false;

	if (node->visible.valid) {
		target = index_of(finish, node->visible.parent);
		node->effective = node->visible;
		if (node->kind == NODE_DIR && is_under(finish, index, target)) {
			target = AT_ROOT;
			cycle = true;
		}
	}
	finish->slots[index].parent = target;
	add_conflict(finish, node->content_head_count > 0 ? CONFLICT_EDIT_REVIVED : CONFLICT_REVIVED,
	    node->id, ops, 1);
	if (cycle)
		add_conflict(finish, CONFLICT_CYCLE, node->id, ops, 1);
	if (target != AT_ROOT && finish->slots[target].parent == AT_TRASH)
		heap_push(finish, heap, target);
}

static void
finish_revives(struct finish *finish)
{
	struct revive_heap heap = {
		.items = array_zeroed(finish->count, sizeof *heap.items),
		.finish = finish,
	};

	for (size_t n = 0; n < finish->count; n++) {
		size_t parent = finish->slots[n].parent;
		if (parent == AT_TRASH && finish->nodes[n].content_head_count > 0)
			heap_push(finish, &heap, n);
		if (parent != AT_TRASH && parent != AT_ROOT && finish->slots[parent].parent == AT_TRASH)
			heap_push(finish, &heap, parent);
	}
	while (heap.count > 0) {
		size_t index = heap_pop(&heap);
		if (finish->slots[index].parent == AT_TRASH)
			revive_one(finish, &heap, index);
	}
	free(heap.items);
}

/* ---- liveness ----------------------------------------------------------- */

/* Walks up to the first node whose liveness is known, then marks the path.
 * Placement and revives refuse cycles; the VISITING mark would still end
 * such a walk, marking the loop dead. */
static void
liveness_of(struct finish *finish, size_t start, size_t *path)
{
	size_t length = 0, at = start;
	bool live;

	for (;;) {
		if (at == AT_ROOT) {
			live = true;
			break;
		}
		if (at == AT_TRASH || finish->slots[at].liveness == LIVENESS_VISITING) {
			live = false;
			break;
		}
		if (finish->slots[at].liveness != LIVENESS_UNKNOWN) {
			live = finish->slots[at].liveness == LIVENESS_LIVE;
			break;
		}
		finish->slots[at].liveness = LIVENESS_VISITING;
		path[length++] = at;
		at = finish->slots[at].parent;
	}
	while (length > 0)
		finish->slots[path[--length]].liveness = live ? LIVENESS_LIVE : LIVENESS_DEAD;
}

static void
finish_liveness(struct finish *finish)
{
	size_t *path = array_zeroed(finish->count, sizeof *path);

	for (size_t n = 0; n < finish->count; n++)
		liveness_of(finish, n, path);
	free(path);
	for (size_t n = 0; n < finish->count; n++) {
		struct state_finish_node *node = &finish->nodes[n];
		node->live = finish->slots[n].liveness == LIVENESS_LIVE;
		node->shown_parent = id_of(finish, finish->slots[n].parent);
		node->shown_name = node->effective.name;
		node->shown_name_length = node->effective.name_length;
	}
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
numbered_name(const uint8_t *name, size_t name_length, struct node_id id, int hex_digits,
    uint64_t number, struct buffer *out)
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
	numbered_name(name, name_length, id, hex_digits, 0, out);
}

static bool
is_hex_digit(uint8_t byte)
{
	return (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'f');
}

/* The suffix at shown[at] ("~<hex>" and maybe "-<number>") read into its
 * digit count and number; false where it is not one. */
static bool
read_suffix(const uint8_t *shown, size_t length, size_t at, int *hex_digits, uint64_t *number)
{
	size_t end = at + 1;

	while (end < length && end - at - 1 < NAME_HEX_LAST && is_hex_digit(shown[end]))
		end++;
	*hex_digits = (int)(end - at - 1);
	*number = 0;
	if (*hex_digits == 0)
		return false;
	if (end + 1 < length && shown[end] == '-' && *hex_digits == NAME_HEX_LAST)
		for (end++; end < length && shown[end] >= '0' && shown[end] <= '9'; end++) {
			if (*number > (UINT64_MAX - 9) / 10)
				return false;
			*number = *number * 10 + (uint64_t)(shown[end] - '0');
		}
	return true;
}

bool
state_is_disambiguated_name(const uint8_t *name, size_t name_length, struct node_id id,
    const uint8_t *shown, size_t shown_length)
{
	char hex[ID_HEX];
	struct buffer candidate;
	bool same = false;

	node_id_hex(id, hex);
	buffer_init(&candidate);
	for (size_t at = 0; at < shown_length && !same; at++) {
		int hex_digits;
		uint64_t number;
		if (shown[at] != '~' || !read_suffix(shown, shown_length, at, &hex_digits, &number) ||
		    memcmp(shown + at + 1, hex, (size_t)hex_digits) != 0)
			continue;
		buffer_reset(&candidate);
		numbered_name(name, name_length, id, hex_digits, number, &candidate);
		same = candidate.length == shown_length && memcmp(candidate.data, shown, shown_length) == 0;
	}
	buffer_free(&candidate);
	return same;
}

/* ---- names -------------------------------------------------------------- */

struct name_entry {
	size_t parent;
	size_t node;
	const uint8_t *name;
	size_t length;
	const struct state_place_ref *naming;	/* the PLACE that gave the name */
};

/* Groups by (folder, name); within a group the least naming PLACE first. */
static int
compare_name_entries(const void *left, const void *right)
{
	const struct name_entry *a = left, *b = right;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	int order = bytes_compare(a->name, a->length, b->name, b->length);
	if (order != 0)
		return order;
	return state_place_compare(a->naming, b->naming);
}

static bool
same_group(const struct name_entry *a, const struct name_entry *b)
{
	return a->parent == b->parent && bytes_compare(a->name, a->length, b->name, b->length) == 0;
}

/* Names taken in each folder: the kept names and the ones handed out. */
struct name_set {
	struct name_entry *entries;
	size_t count;
	size_t *slots;		/* entry index + 1, 0 free */
	size_t mask;
};

static uint64_t
name_hash(size_t parent, const uint8_t *name, size_t length)
{
	uint64_t hash = 0xcbf29ce484222325ULL ^ (uint64_t)parent;
	for (size_t i = 0; i < length; i++)
		hash = (hash ^ name[i]) * 0x100000001b3ULL;
	hash ^= hash >> 33;
	return hash * 0xff51afd7ed558ccdULL;
}

static size_t
name_slot(const struct name_set *set, size_t parent, const uint8_t *name, size_t length)
{
	size_t slot = name_hash(parent, name, length) & set->mask;
	while (set->slots[slot] != 0) {
		const struct name_entry *entry = &set->entries[set->slots[slot] - 1];
		if (entry->parent == parent && bytes_compare(entry->name, entry->length, name, length) == 0)
			break;
		slot = (slot + 1) & set->mask;
	}
	return slot;
}

static void
name_add(struct name_set *set, size_t parent, const uint8_t *name, size_t length)
{
	size_t slot = name_slot(set, parent, name, length);
	if (set->slots[slot] != 0)
		return;
	set->entries[set->count] = (struct name_entry){ .parent = parent, .name = name, .length = length };
	set->slots[slot] = ++set->count;
}

/* The first free name among name~<8 hex>, ~<9 hex>, ... ~<32 hex>, then
 * ~<32 hex>-2, -3...: the later forms only exist if a person named files
 * after other nodes' ids, but they keep every shown name unique. */
static void
give_loser_a_name(struct finish *finish, struct name_set *set, const struct name_entry *loser,
    struct buffer *scratch)
{
	struct state_finish_node *node = &finish->nodes[loser->node];

	for (uint64_t attempt = 0;; attempt++) {
		int digits = NAME_HEX_FIRST + (int)attempt;
		uint64_t number = 0;
		if (digits > NAME_HEX_LAST) {
			number = (uint64_t)(digits - NAME_HEX_LAST) + 1;
			digits = NAME_HEX_LAST;
		}
		buffer_reset(scratch);
		numbered_name(loser->name, loser->length, node->id, digits, number, scratch);
		if (set->slots[name_slot(set, loser->parent, scratch->data, scratch->length)] != 0)
			continue;
		uint8_t *shown = arena_copy(finish->arena, scratch->data, scratch->length);
		name_add(set, loser->parent, shown, scratch->length);
		node->shown_name = shown;
		node->shown_name_length = scratch->length;
		return;
	}
}

/* One name conflict per loser, listing the naming PLACE of every node of
 * its clash group in total order, so each renamed file is listed where the
 * user will see it and resolving one loser leaves the others listed. */
static void
resolve_group(struct finish *finish, struct name_set *set, const struct name_entry *group,
    size_t count, struct buffer *scratch)
{
	const struct state_place_ref **ops = array_zeroed(count, sizeof *ops);

	for (size_t i = 0; i < count; i++)
		ops[i] = &finish->nodes[group[i].node].effective;
	for (size_t i = 1; i < count; i++) {
		give_loser_a_name(finish, set, &group[i], scratch);
		add_conflict(finish, CONFLICT_NAME, finish->nodes[group[i].node].id, ops, count);
	}
	free(ops);
}

static void
finish_names(struct finish *finish)
{
	struct name_entry *live = array_zeroed(finish->count, sizeof *live);
	size_t live_count = 0;

	for (size_t n = 0; n < finish->count; n++) {
		const struct state_finish_node *node = &finish->nodes[n];
		if (node->live)
			live[live_count++] = (struct name_entry){ .parent = finish->slots[n].parent,
				.node = n, .name = node->effective.name, .length = node->effective.name_length,
				.naming = &node->effective };
	}
	if (live_count > 1)
		qsort(live, live_count, sizeof *live, compare_name_entries);
	bool clash = false;
	for (size_t i = 1; i < live_count && !clash; i++)
		clash = same_group(&live[i - 1], &live[i]);
	if (clash) {
		size_t size = 16;
		while (size < 4 * live_count)
			size *= 2;
		struct name_set set = {
			.entries = array_zeroed(2 * live_count, sizeof *set.entries),
			.slots = array_zeroed(size, sizeof *set.slots),
			.mask = size - 1,
		};
		struct buffer scratch;
		buffer_init(&scratch);
		for (size_t i = 0; i < live_count; i++)
			name_add(&set, live[i].parent, live[i].name, live[i].length);
		for (size_t start = 0, end; start < live_count; start = end) {
			for (end = start + 1; end < live_count && same_group(&live[start], &live[end]); end++)
				;
			if (end - start > 1)
				resolve_group(finish, &set, live + start, end - start, &scratch);
		}
		buffer_free(&scratch);
		free(set.entries);
		free(set.slots);
	}
	free(live);
}

/* ---- the whole pass ------------------------------------------------------ */

int
state_conflict_compare(const void *left, const void *right)
{
	const struct state_conflict *a = left, *b = right;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	int order = node_id_compare(a->node, b->node);
	if (order != 0)
		return order;
	return op_id_compare(a->ops[0], b->ops[0]);
}

void
state_finish(struct state_finish_node *nodes, size_t count, struct arena *arena,
    struct state_conflict **conflicts, size_t *conflict_count)
{
	struct finish finish = {
		.nodes = nodes, .count = count, .arena = arena,
		.conflicts = *conflicts, .conflict_count = *conflict_count,
		.conflict_capacity = *conflict_count,
	};
	size_t first_new = *conflict_count;

	if (count > 1)
		qsort(nodes, count, sizeof *nodes, compare_by_id);
	finish.slots = array_zeroed(count, sizeof *finish.slots);
	for (size_t n = 0; n < count; n++) {
		nodes[n].effective = nodes[n].place;
		finish.slots[n].parent = index_of(&finish, nodes[n].place.parent);
	}
	finish_revives(&finish);
	finish_liveness(&finish);
	finish_names(&finish);
	/* Within one kind and node, conflicts differ by first op; ops of one
	 * node are from different deletes or groups, so the op id orders them
	 * as the total order would. */
	if (finish.conflict_count - first_new > 1)
		qsort(finish.conflicts + first_new, finish.conflict_count - first_new,
		    sizeof *finish.conflicts, state_conflict_compare);
	free(finish.slots);
	*conflicts = finish.conflicts;
	*conflict_count = finish.conflict_count;
}
