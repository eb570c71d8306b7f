/* Seeded multi-replica histories for state derivation tests (see
 * history_gen.h). Each replica keeps a bitmap of the ops that reached it
 * and acts on state_derive of exactly those, so every history has the
 * causality real replicas would give it. */
#include "tests/unit/history_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/lib/splitmix.h"

/* Few names, so concurrent creates clash often; with extensions, dotfiles
 * and none, to exercise every form of disambiguated name. */
static const char *const history_names[] = {
	"a", "b", "notes.txt", ".bashrc", "x.tar.gz", "Docs", "c", "d.txt",
};
#define HISTORY_NAME_COUNT (sizeof history_names / sizeof *history_names)

static void *
history_gen_realloc(void *memory, size_t size)
{
	memory = realloc(memory, size ? size : 1);
	if (memory == NULL) {
		fputs("history: out of memory\n", stderr);
		abort();
	}
	return memory;
}

/* ---- randomness --------------------------------------------------------- */

void
history_gen_random_seed(struct history_random *random, uint64_t seed)
{
	random->state = seed;
}

uint64_t
history_gen_random_next(struct history_random *random)
{
	return splitmix_next(&random->state);
}

uint64_t
history_gen_random_below(struct history_random *random, uint64_t bound)
{
	return history_gen_random_next(random) % bound;
}

static void
history_gen_random_bytes(struct history_random *random, uint8_t *out, size_t length)
{
	for (size_t i = 0; i < length; i++)
		out[i] = (uint8_t)history_gen_random_next(random);
}

void
history_gen_shuffle(struct history_random *random, struct op *ops, size_t count)
{
	for (size_t i = count; i > 1; i--) {
		size_t j = (size_t)history_gen_random_below(random, i);
		struct op swap = ops[i - 1];
		ops[i - 1] = ops[j];
		ops[j] = swap;
	}
}

/* ---- the history and its replicas --------------------------------------- */

void
history_gen_init(struct history *history, int replica_count, uint64_t seed)
{
	memset(history, 0, sizeof *history);
	arena_init(&history->arena, 0);
	buffer_init(&history->problems);
	history_gen_random_seed(&history->random, seed);
	history->replica_count = replica_count;
	/* A fixed era: node ids share their first 8 hex digits, as UUIDv7s
	 * made within a minute of each other do. */
	history->clock_ms = 0x019a00000000ULL + (seed % 1000);
	for (int r = 0; r < replica_count; r++)
		history_gen_random_bytes(&history->random, history->replicas[r].id.bytes, ID_BYTES);
}

void
history_gen_free(struct history *history)
{
	for (int r = 0; r < history->replica_count; r++) {
		free(history->replicas[r].known);
		state_free(&history->replicas[r].view);
	}
	free(history->ops);
	arena_free(&history->arena);
	buffer_free(&history->problems);
	memset(history, 0, sizeof *history);
}

static void
history_gen_reserve(struct history *history)
{
	if (history->count < history->capacity)
		return;
	size_t capacity = history->capacity ? history->capacity * 2 : 64;
	history->ops = history_gen_realloc(history->ops, capacity * sizeof *history->ops);
	for (int r = 0; r < history->replica_count; r++) {
		struct history_replica *replica = &history->replicas[r];
		replica->known = history_gen_realloc(replica->known, capacity);
		memset(replica->known + history->capacity, 0, capacity - history->capacity);
	}
	history->capacity = capacity;
}

struct op *
history_gen_known_ops(const struct history *history, int replica, size_t *count)
{
	const uint8_t *known = history->replicas[replica].known;
	struct op *ops = history_gen_realloc(NULL, history->count * sizeof *ops);
	size_t filled = 0;

	for (size_t i = 0; i < history->count; i++)
		if (known[i])
			ops[filled++] = history->ops[i];
	*count = filled;
	return ops;
}

const struct state *
history_gen_view(struct history *history, int replica)
{
	struct history_replica *entry = &history->replicas[replica];
	size_t count;

	if (entry->view_current)
		return &entry->view;
	struct op *ops = history_gen_known_ops(history, replica, &count);
	state_free(&entry->view);
	state_derive(ops, count, &entry->view);
	if (history->check_views)
		history_gen_check_state(ops, count, &entry->view, &history->problems);
	free(ops);
	entry->view_current = true;
	return &entry->view;
}

/* A new op by replica: the next counter, 1 + the greatest lamport known. */
static struct op *
history_gen_new_op(struct history *history, int replica, enum op_kind kind,
    const struct op_id *supersedes, size_t supersedes_count)
{
	struct history_replica *author = &history->replicas[replica];

	history_gen_reserve(history);
	struct op *op = &history->ops[history->count];
	memset(op, 0, sizeof *op);
	op->id = (struct op_id){ author->id, ++author->counter };
	op->lamport = ++author->lamport;
	op->kind = kind;
	op->supersedes = arena_copy(&history->arena, supersedes,
	    supersedes_count * sizeof *supersedes);
	op->supersedes_count = supersedes_count;
	author->known[history->count++] = 1;
	author->view_current = false;
	return op;
}

static void
history_gen_new_set(struct history *history, int replica, struct node_id node,
    const struct op_id *supersedes, size_t supersedes_count)
{
	struct op *op = history_gen_new_op(history, replica, OP_SET, supersedes, supersedes_count);

	op->u.set.node = node;
	history_gen_random_bytes(&history->random, op->u.set.blob.bytes, HASH_BYTES);
	op->u.set.size = history_gen_random_below(&history->random, 100000);
	op->u.set.mode = history_gen_random_below(&history->random, 4) ? 0644 : 0600;
	op->u.set.mtime_ns = (int64_t)history->clock_ms * 1000000;
}

static void
history_gen_new_place(struct history *history, int replica, struct node_id node,
    struct node_id parent, const uint8_t *name, size_t name_length, enum node_kind kind,
    const char *root, const struct op_id *supersedes, size_t supersedes_count)
{
	struct op *op = history_gen_new_op(history, replica, OP_PLACE, supersedes, supersedes_count);

	op->u.place = (struct op_place){
		.node = node,
		.parent = parent,
		.name = arena_copy(&history->arena, name, name_length),
		.name_length = name_length,
		.kind = kind,
		.root = arena_strdup(&history->arena, root),
	};
}

struct node_id
history_gen_create(struct history *history, int replica, struct node_id parent, const char *name,
    enum node_kind kind)
{
	uint8_t random[10];

	history_gen_random_bytes(&history->random, random, sizeof random);
	history->clock_ms += history_gen_random_below(&history->random, 3);
	struct node_id id = node_id_from_parts(history->clock_ms, random);
	const char *root = kind != NODE_DIR && history_gen_random_below(&history->random, 4) == 0
	    ? "hdd" : "main";
	history_gen_new_place(history, replica, id, parent, (const uint8_t *)name, strlen(name), kind,
	    root, NULL, 0);
	if (kind != NODE_DIR)
		history_gen_new_set(history, replica, id, NULL, 0);
	return id;
}

void
history_gen_edit(struct history *history, int replica, struct node_id id)
{
	const struct state_node *node = state_find(history_gen_view(history, replica), id);

	if (node == NULL || node->kind == NODE_DIR)
		return;
	struct op_id on_disk = node->content_op;
	history_gen_new_set(history, replica, id, &on_disk, node->has_content ? 1 : 0);
}

void
history_gen_resolve(struct history *history, int replica, struct node_id id)
{
	const struct state_node *node = state_find(history_gen_view(history, replica), id);

	if (node == NULL || node->kind == NODE_DIR)
		return;
	if (node->content_head_count == 0) {
		history_gen_edit(history, replica, id);
		return;
	}
	history_gen_new_set(history, replica, id, node->content_heads, node->content_head_count);
}

static void
history_gen_move_bytes(struct history *history, int replica, struct node_id id,
    struct node_id parent, const uint8_t *name, size_t name_length)
{
	const struct state_node *node = state_find(history_gen_view(history, replica), id);

	if (node == NULL)
		return;
	history_gen_new_place(history, replica, id, parent, name, name_length, node->kind, node->root,
	    node->place_heads, node->place_head_count);
}

void
history_gen_move(struct history *history, int replica, struct node_id node, struct node_id parent,
    const char *name)
{
	history_gen_move_bytes(history, replica, node, parent, (const uint8_t *)name, strlen(name));
}

void
history_gen_settle_move(struct history *history, int replica, struct node_id id)
{
	const struct state_node *node = state_find(history_gen_view(history, replica), id);

	if (node != NULL)
		history_gen_move_bytes(history, replica, id, node->parent, node->name, node->name_length);
}

static bool
history_gen_is_under(const struct state *view, const struct state_node *node, struct node_id ancestor)
{
	for (size_t steps = 0; node != NULL && steps <= view->node_count; steps++) {
		if (node_id_equal(node->id, ancestor))
			return true;
		node = state_find(view, node->parent);
	}
	return false;
}

void
history_gen_delete(struct history *history, int replica, struct node_id id)
{
	const struct state *view = history_gen_view(history, replica);
	const struct state_node *top = state_find(view, id);
	struct op_id *seen = NULL;

	if (top == NULL || !top->live)
		return;
	for (size_t i = 0; i < view->node_count; i++) {
		const struct state_node *node = &view->nodes[i];
		if (!node->live || !history_gen_is_under(view, node, id))
			continue;
		size_t count = node->place_head_count + node->content_head_count;
		seen = history_gen_realloc(seen, (count ? count : 1) * sizeof *seen);
		for (size_t j = 0; j < node->place_head_count; j++)
			seen[j] = node->place_heads[j];
		for (size_t j = 0; j < node->content_head_count; j++)
			seen[node->place_head_count + j] = node->content_heads[j];
		history_gen_new_place(history, replica, node->id, NODE_TRASH, node->name,
		    node->name_length, node->kind, node->root, seen, count);
	}
	free(seen);
}

void
history_gen_sync(struct history *history, int from, int to)
{
	struct history_replica *source = &history->replicas[from];
	struct history_replica *target = &history->replicas[to];

	for (size_t i = 0; i < history->count; i++) {
		if (source->known[i] && !target->known[i]) {
			target->known[i] = 1;
			target->view_current = false;
		}
	}
	if (source->lamport > target->lamport)
		target->lamport = source->lamport;
}

void
history_gen_sync_all(struct history *history)
{
	for (int r = 1; r < history->replica_count; r++)
		history_gen_sync(history, r, 0);
	for (int r = 1; r < history->replica_count; r++)
		history_gen_sync(history, 0, r);
}

/* ---- random steps ------------------------------------------------------- */

enum history_pick {
	PICK_ANY,
	PICK_FOLDER,
	PICK_CONTENT,	/* files and symlinks */
};

static bool
history_gen_pick_fits(const struct state_node *node, enum history_pick pick)
{
	if (!node->live)
		return false;
	if (pick == PICK_FOLDER)
		return node->kind == NODE_DIR;
	if (pick == PICK_CONTENT)
		return node->kind != NODE_DIR;
	return true;
}

/* A random live node of the view that fits, or NULL. */
static const struct state_node *
history_gen_pick(struct history *history, const struct state *view, enum history_pick pick)
{
	size_t fits = 0;

	for (size_t i = 0; i < view->node_count; i++)
		fits += history_gen_pick_fits(&view->nodes[i], pick);
	if (fits == 0)
		return NULL;
	size_t chosen = (size_t)history_gen_random_below(&history->random, fits);
	for (size_t i = 0; i < view->node_count; i++)
		if (history_gen_pick_fits(&view->nodes[i], pick) && chosen-- == 0)
			return &view->nodes[i];
	return NULL;
}

/* A live folder or the top, one time in three the top. */
static struct node_id
history_gen_pick_folder(struct history *history, const struct state *view)
{
	const struct state_node *folder = history_gen_pick(history, view, PICK_FOLDER);

	if (folder == NULL || history_gen_random_below(&history->random, 3) == 0)
		return NODE_ROOT;
	return folder->id;
}

static bool
history_gen_name_taken(const struct state *view, struct node_id parent, const char *name)
{
	size_t length = strlen(name);

	for (size_t i = 0; i < view->node_count; i++) {
		const struct state_node *node = &view->nodes[i];
		if (node->live && node_id_equal(node->parent, parent) &&
		    node->shown_name_length == length && memcmp(node->shown_name, name, length) == 0)
			return true;
	}
	return false;
}

/* Like a client, mostly avoids names its own folder already shows; a clash
 * then comes from concurrency, or now and then from joined roots. */
static const char *
history_gen_pick_name(struct history *history, const struct state *view, struct node_id parent)
{
	const char *name = history_names[history_gen_random_below(&history->random, HISTORY_NAME_COUNT)];

	if (history_gen_random_below(&history->random, 10) == 0)
		return name;
	for (int attempt = 0; attempt < 4 && history_gen_name_taken(view, parent, name); attempt++)
		name = history_names[history_gen_random_below(&history->random, HISTORY_NAME_COUNT)];
	return name;
}

static const char *
history_gen_step_create(struct history *history, int replica)
{
	const struct state *view = history_gen_view(history, replica);
	struct node_id parent = history_gen_pick_folder(history, view);
	uint64_t roll = history_gen_random_below(&history->random, 10);
	enum node_kind kind = roll < 3 ? NODE_DIR : roll < 9 ? NODE_FILE : NODE_SYMLINK;

	history_gen_create(history, replica, parent, history_gen_pick_name(history, view, parent), kind);
	return "create";
}

static const char *
history_gen_step_edit(struct history *history, int replica)
{
	const struct state_node *node = history_gen_pick(history, history_gen_view(history, replica),
	    PICK_CONTENT);

	if (node == NULL)
		return history_gen_step_create(history, replica);
	history_gen_edit(history, replica, node->id);
	return "edit";
}

static const char *
history_gen_step_rename(struct history *history, int replica)
{
	const struct state *view = history_gen_view(history, replica);
	const struct state_node *node = history_gen_pick(history, view, PICK_ANY);

	if (node == NULL)
		return history_gen_step_create(history, replica);
	history_gen_move(history, replica, node->id, node->parent,
	    history_gen_pick_name(history, view, node->parent));
	return "rename";
}

/* Two moves in three go where a client could put the node; the third may
 * go into the node itself or below it, which derivation must skip. */
static struct node_id
history_gen_pick_move_target(struct history *history, const struct state *view,
    const struct state_node *node)
{
	bool careful = history_gen_random_below(&history->random, 3) != 0;
	struct node_id target = history_gen_pick_folder(history, view);

	for (int attempt = 0; careful && attempt < 8; attempt++) {
		const struct state_node *folder = state_find(view, target);
		if (folder == NULL || !history_gen_is_under(view, folder, node->id))
			break;
		target = history_gen_pick_folder(history, view);
	}
	return target;
}

static const char *
history_gen_step_move(struct history *history, int replica)
{
	const struct state *view = history_gen_view(history, replica);
	bool folder = history_gen_random_below(&history->random, 10) < 7;
	const struct state_node *node = history_gen_pick(history, view, folder ? PICK_FOLDER : PICK_ANY);
	char name[OP_NAME_MAX + 1];

	if (node == NULL)
		return history_gen_step_create(history, replica);
	struct node_id target = history_gen_pick_move_target(history, view, node);
	memcpy(name, node->name, node->name_length);
	name[node->name_length] = '\0';
	if (history_gen_name_taken(view, target, name))
		snprintf(name, sizeof name, "%s", history_gen_pick_name(history, view, target));
	history_gen_move(history, replica, node->id, target, name);
	return "move";
}

/* Folders half the time: deleting a folder is where concurrent work hides. */
static const char *
history_gen_step_delete(struct history *history, int replica)
{
	const struct state *view = history_gen_view(history, replica);
	bool folder = history_gen_random_below(&history->random, 2) == 0;
	const struct state_node *node = history_gen_pick(history, view, folder ? PICK_FOLDER : PICK_ANY);

	if (node == NULL)
		node = history_gen_pick(history, view, PICK_ANY);
	if (node == NULL)
		return history_gen_step_create(history, replica);
	history_gen_delete(history, replica, node->id);
	return "delete";
}

/* Settles one listed conflict as a user would: new content for a content
 * conflict, the shown place for a move or a revive, a fresh name for the
 * loser of a name clash. Cycles need no op. */
static const char *
history_gen_step_resolve(struct history *history, int replica)
{
	const struct state *view = history_gen_view(history, replica);
	char name[32];

	if (view->conflict_count == 0)
		return history_gen_step_edit(history, replica);
	const struct state_conflict *conflict =
	    &view->conflicts[history_gen_random_below(&history->random, view->conflict_count)];
	struct node_id id = conflict->node;
	const struct state_node *node = state_find(view, id);
	if (node == NULL)
		return "nothing to settle";
	switch (conflict->kind) {
	case CONFLICT_CONTENT:
		history_gen_resolve(history, replica, id);
		return "resolve content";
	case CONFLICT_MOVE:
	case CONFLICT_REVIVED:
	case CONFLICT_EDIT_REVIVED:
		history_gen_settle_move(history, replica, id);
		return "settle place";
	case CONFLICT_NAME:
		snprintf(name, sizeof name, "renamed-%llu", (unsigned long long)history->count);
		history_gen_move(history, replica, id, node->parent, name);
		return "rename loser";
	default:
		return "nothing to settle";
	}
}

/* Two replicas create one name in one folder both see, unaware of each
 * other: the clash of docs/DESIGN.md §4.4. */
static const char *
history_gen_step_twin_create(struct history *history, int replica)
{
	int other = (replica + 1 + (int)history_gen_random_below(&history->random,
	    (uint64_t)history->replica_count - 1)) % history->replica_count;
	const struct state *view = history_gen_view(history, replica);
	struct node_id parent = history_gen_pick_folder(history, view);
	const struct state_node *shared = state_find(history_gen_view(history, other), parent);
	const char *name = history_names[history_gen_random_below(&history->random, HISTORY_NAME_COUNT)];

	if (other == replica)
		return history_gen_step_create(history, replica);
	if (shared == NULL || !shared->live)
		parent = NODE_ROOT;
	history_gen_create(history, replica, parent, name, NODE_FILE);
	history_gen_create(history, other, parent, name,
	    history_gen_random_below(&history->random, 4) ? NODE_FILE : NODE_DIR);
	return "twin create";
}

static const char *
history_gen_step_sync(struct history *history, int replica)
{
	int other = (int)history_gen_random_below(&history->random, (uint64_t)history->replica_count);

	if (other == replica)
		other = (replica + 1) % history->replica_count;
	history_gen_sync(history, replica, other);
	if (history_gen_random_below(&history->random, 3) == 0)
		history_gen_sync(history, other, replica);
	return "sync";
}

const char *
history_gen_random_step(struct history *history)
{
	int replica = (int)history_gen_random_below(&history->random, (uint64_t)history->replica_count);
	uint64_t roll = history_gen_random_below(&history->random, 100);

	if (roll < 20)
		return history_gen_step_create(history, replica);
	if (roll < 36)
		return history_gen_step_edit(history, replica);
	if (roll < 43)
		return history_gen_step_rename(history, replica);
	if (roll < 55)
		return history_gen_step_move(history, replica);
	if (roll < 63)
		return history_gen_step_delete(history, replica);
	if (roll < 68)
		return history_gen_step_resolve(history, replica);
	if (roll < 72 && history->replica_count > 1)
		return history_gen_step_twin_create(history, replica);
	return history_gen_step_sync(history, replica);
}

void
history_gen_generate(struct history *history, uint64_t seed, bool check_views)
{
	struct history_random random;

	history_gen_random_seed(&random, seed);
	int replica_count = 2 + (int)history_gen_random_below(&random, 4);
	int steps = 10 + (int)history_gen_random_below(&random, 241);
	history_gen_init(history, replica_count, history_gen_random_next(&random));
	history->check_views = check_views;
	for (int step = 0; step < steps; step++)
		history_gen_random_step(history);
}

/* ---- invariants --------------------------------------------------------- */

static void
history_gen_problem(struct buffer *problems, const char *what, struct node_id node)
{
	char hex[ID_HEX];

	node_id_hex(node, hex);
	buffer_printf(problems, "%s: node %s\n", what, hex);
}

static int
history_gen_op_pointer_compare(const void *left, const void *right)
{
	const struct op *const *a = left, *const *b = right;
	return op_id_compare((*a)->id, (*b)->id);
}

struct history_check {
	const struct op *ops;
	size_t count;
	const struct op **sorted;	/* ops by id, for lookups */
	const struct state *state;
	struct buffer *problems;
	bool ok;
};

static const struct op *
history_gen_check_op(const struct history_check *check, struct op_id id)
{
	struct op key = { .id = id };
	const struct op *key_pointer = &key;
	const struct op *const *found = bsearch(&key_pointer, check->sorted, check->count,
	    sizeof *check->sorted, history_gen_op_pointer_compare);
	return found ? *found : NULL;
}

static void
history_gen_fail(struct history_check *check, const char *what, struct node_id node)
{
	history_gen_problem(check->problems, what, node);
	check->ok = false;
}

/* Up to the top through live folders, in at most node_count steps. */
static void
history_gen_check_chain(struct history_check *check, const struct state_node *node)
{
	const struct state *state = check->state;
	struct node_id at = node->parent;

	for (size_t steps = 0; !node_id_equal(at, NODE_ROOT); steps++) {
		const struct state_node *parent = state_find(state, at);
		if (parent == NULL || !parent->live || parent->kind != NODE_DIR ||
		    steps > state->node_count) {
			history_gen_fail(check, "live node under a missing, dead or non-folder parent, or a cycle",
			    node->id);
			return;
		}
		at = parent->parent;
	}
}

/* Off the tree only through a delete that saw it, with no edit surviving. */
static void
history_gen_check_dead(struct history_check *check, const struct state_node *node)
{
	const struct op *place = history_gen_check_op(check, node->place_op);

	if (place == NULL || place->kind != OP_PLACE ||
	    !node_id_equal(place->u.place.parent, NODE_TRASH) || place->supersedes_count == 0)
		history_gen_fail(check, "node in the trash without a delete that saw it", node->id);
	if (node->content_head_count > 0)
		history_gen_fail(check, "an edit lost in the trash", node->id);
}

static void
history_gen_check_content(struct history_check *check, const struct state_node *node)
{
	if (node->content_head_count > 0 &&
	    !op_id_equal(node->content_op, node->content_heads[node->content_head_count - 1]))
		history_gen_fail(check, "content shown is not the greatest head", node->id);
	if (node->kind == NODE_DIR && (node->has_content || node->content_head_count > 0))
		history_gen_fail(check, "folder with content", node->id);
}

struct history_name {
	struct node_id parent;
	const uint8_t *name;
	size_t length;
};

static int
history_gen_name_compare(const void *left, const void *right)
{
	const struct history_name *a = left, *b = right;
	int order = node_id_compare(a->parent, b->parent);
	if (order != 0)
		return order;
	return bytes_compare(a->name, a->length, b->name, b->length);
}

static void
history_gen_check_names(struct history_check *check)
{
	const struct state *state = check->state;
	struct history_name *names = history_gen_realloc(NULL, (state->node_count + 1) * sizeof *names);
	size_t count = 0;

	for (size_t i = 0; i < state->node_count; i++) {
		const struct state_node *node = &state->nodes[i];
		if (!node->live)
			continue;
		if (!op_name_valid(node->shown_name, node->shown_name_length))
			history_gen_fail(check, "invalid shown name", node->id);
		names[count++] = (struct history_name){ node->parent, node->shown_name,
			node->shown_name_length };
	}
	qsort(names, count, sizeof *names, history_gen_name_compare);
	for (size_t i = 1; i < count; i++)
		if (history_gen_name_compare(&names[i - 1], &names[i]) == 0)
			history_gen_fail(check, "two live nodes show one name in one folder", names[i].parent);
	free(names);
}

static void
history_gen_check_conflicts(struct history_check *check)
{
	const struct state *state = check->state;

	for (size_t i = 0; i < state->conflict_count; i++) {
		const struct state_conflict *conflict = &state->conflicts[i];
		if (conflict->op_count == 0)
			history_gen_fail(check, "conflict without ops", conflict->node);
		for (size_t j = 0; j < conflict->op_count; j++)
			if (history_gen_check_op(check, conflict->ops[j]) == NULL)
				history_gen_fail(check, "conflict names an unknown op", conflict->node);
		if ((conflict->kind == CONFLICT_CONTENT || conflict->kind == CONFLICT_MOVE ||
		    conflict->kind == CONFLICT_NAME) && conflict->op_count < 2)
			history_gen_fail(check, "conflict with one side", conflict->node);
		if (i > 0 && state->conflicts[i - 1].kind > conflict->kind)
			history_gen_fail(check, "conflicts not sorted by kind", conflict->node);
	}
	for (size_t i = 0; i < state->pending_count; i++)
		if (history_gen_check_op(check, state->pending[i]) == NULL)
			history_gen_fail(check, "pending names an unknown op", NODE_ROOT);
}

/* Every node some PLACE names must be in the state: nothing is lost. */
static void
history_gen_check_nodes_kept(struct history_check *check)
{
	for (size_t i = 0; i < check->count; i++) {
		const struct op *op = &check->ops[i];
		if (op->kind == OP_PLACE && state_find(check->state, op->u.place.node) == NULL)
			history_gen_fail(check, "a placed node is missing", op->u.place.node);
	}
}

/* What only holds when the ops are well formed and causally closed. */
static void
history_gen_check_causal(struct history_check *check)
{
	const struct state *state = check->state;

	for (size_t i = 0; i < state->conflict_count; i++) {
		const struct state_conflict *conflict = &state->conflicts[i];
		if (conflict->kind == CONFLICT_INVALID_OP)
			history_gen_fail(check, "invalid-op from well-formed ops", conflict->node);
		if (state_find(state, conflict->node) == NULL)
			history_gen_fail(check, "conflict on an unknown node", conflict->node);
	}
	if (state->pending_count > 0)
		history_gen_fail(check, "pending ops in a causally closed set", NODE_ROOT);
	for (size_t i = 0; i < state->node_count; i++)
		if (!state->nodes[i].live)
			history_gen_check_dead(check, &state->nodes[i]);
	history_gen_check_nodes_kept(check);
}

static void
history_gen_check_paths(struct history_check *check, const struct state_node *node)
{
	struct buffer path;

	buffer_init(&path);
	if (!state_path(check->state, node->id, &path) || path.length < node->shown_name_length ||
	    memcmp(path.data + path.length - node->shown_name_length, node->shown_name,
		node->shown_name_length) != 0)
		history_gen_fail(check, "state_path does not end with the shown name", node->id);
	buffer_free(&path);
}

static bool
history_gen_check(const struct op *ops, size_t count, const struct state *state,
    struct buffer *problems, bool causal)
{
	struct history_check check = { .ops = ops, .count = count, .state = state,
		.problems = problems, .ok = true };

	check.sorted = history_gen_realloc(NULL, (count + 1) * sizeof *check.sorted);
	for (size_t i = 0; i < count; i++)
		check.sorted[i] = &ops[i];
	qsort(check.sorted, count, sizeof *check.sorted, history_gen_op_pointer_compare);
	for (size_t i = 0; i < state->node_count; i++) {
		const struct state_node *node = &state->nodes[i];
		if (i > 0 && node_id_compare(state->nodes[i - 1].id, node->id) >= 0)
			history_gen_fail(&check, "nodes not sorted by id", node->id);
		if (node->live) {
			history_gen_check_chain(&check, node);
			history_gen_check_paths(&check, node);
		} else if (!node_id_equal(node->parent, NODE_TRASH)) {
			history_gen_fail(&check, "dead node outside the trash", node->id);
		}
		history_gen_check_content(&check, node);
	}
	history_gen_check_names(&check);
	history_gen_check_conflicts(&check);
	if (causal)
		history_gen_check_causal(&check);
	free(check.sorted);
	return check.ok;
}

bool
history_gen_check_structure(const struct op *ops, size_t count, const struct state *state,
    struct buffer *problems)
{
	return history_gen_check(ops, count, state, problems, false);
}

bool
history_gen_check_state(const struct op *ops, size_t count, const struct state *state,
    struct buffer *problems)
{
	return history_gen_check(ops, count, state, problems, true);
}

/* ---- bulk histories for timing ------------------------------------------ */

#define BULK_ROOT UINT32_MAX

struct bulk_node {
	struct node_id id;
	uint32_t parent;
	bool folder;
	bool deleted;
	struct op_id place_head;
	struct op_id content_head;
	const uint8_t *name;
	size_t name_length;
};

struct bulk {
	struct arena *arena;
	struct history_random random;
	struct op *ops;
	size_t count;
	size_t op_limit;
	struct bulk_node *nodes;
	size_t node_count;
	size_t folder_count;	/* nodes [0, folder_count) are the folders */
	struct replica_id replicas[4];
	uint64_t counters[4];
	uint64_t lamport;
};

static struct op *
bulk_op(struct bulk *bulk, enum op_kind kind, const struct op_id *supersedes, size_t count,
    uint64_t lamport)
{
	int replica = (int)history_gen_random_below(&bulk->random, 4);
	struct op *op = &bulk->ops[bulk->count++];

	memset(op, 0, sizeof *op);
	op->id = (struct op_id){ bulk->replicas[replica], ++bulk->counters[replica] };
	op->lamport = lamport;
	op->kind = kind;
	op->supersedes = arena_copy(bulk->arena, supersedes, count * sizeof *supersedes);
	op->supersedes_count = count;
	return op;
}

static void
bulk_place(struct bulk *bulk, size_t index, uint32_t parent, bool trash)
{
	struct bulk_node *node = &bulk->nodes[index];
	bool created = node->place_head.counter != 0;
	struct op_id seen[2] = { node->place_head, node->content_head };
	size_t seen_count = !created ? 0 : trash && node->content_head.counter ? 2 : 1;
	struct op *op = bulk_op(bulk, OP_PLACE, seen, seen_count, ++bulk->lamport);

	op->u.place = (struct op_place){
		.node = node->id,
		.parent = trash ? NODE_TRASH : parent == BULK_ROOT ? NODE_ROOT : bulk->nodes[parent].id,
		.name = node->name,
		.name_length = node->name_length,
		.kind = node->folder ? NODE_DIR : NODE_FILE,
		.root = "main",
	};
	node->place_head = op->id;
	node->parent = parent;
	node->deleted = trash;
}

static void
bulk_set(struct bulk *bulk, size_t index, uint64_t lamport)
{
	struct bulk_node *node = &bulk->nodes[index];
	struct op *op = bulk_op(bulk, OP_SET, &node->content_head,
	    node->content_head.counter ? 1 : 0, lamport);

	op->u.set.node = node->id;
	history_gen_random_bytes(&bulk->random, op->u.set.blob.bytes, 8);
	op->u.set.size = history_gen_random_below(&bulk->random, 1 << 20);
	op->u.set.mode = 0644;
	op->u.set.mtime_ns = (int64_t)bulk->count;
	node->content_head = op->id;
}

static uint32_t
bulk_random_folder(struct bulk *bulk, size_t below)
{
	if (below == 0 || history_gen_random_below(&bulk->random, 8) == 0)
		return BULK_ROOT;
	return (uint32_t)history_gen_random_below(&bulk->random, below);
}

static bool
bulk_under(const struct bulk *bulk, uint32_t folder, uint32_t ancestor)
{
	for (; folder != BULK_ROOT; folder = bulk->nodes[folder].parent)
		if (folder == ancestor)
			return true;
	return false;
}

static void
bulk_create_all(struct bulk *bulk)
{
	for (size_t i = 0; i < bulk->node_count; i++) {
		struct bulk_node *node = &bulk->nodes[i];
		char name[32];
		uint8_t random[10];
		history_gen_random_bytes(&bulk->random, random, sizeof random);
		node->id = node_id_from_parts(0x019a00000000ULL + i, random);
		node->folder = i < bulk->folder_count;
		int length = snprintf(name, sizeof name, node->folder ? "folder%zu" : "file%zu.txt", i);
		node->name = arena_copy(bulk->arena, name, (size_t)length);
		node->name_length = (size_t)length;
		bulk_place(bulk, i, bulk_random_folder(bulk, node->folder ? i : bulk->folder_count), false);
		size_t creates_left = bulk->node_count - i - 1;
		if (!node->folder && bulk->count + 1 + creates_left <= bulk->op_limit)
			bulk_set(bulk, i, ++bulk->lamport);
	}
}

/* Edits mostly; one in twenty is two concurrent edits of one head. */
static void
bulk_step(struct bulk *bulk, size_t room)
{
	size_t files = bulk->node_count - bulk->folder_count;
	size_t file = bulk->folder_count + (size_t)history_gen_random_below(&bulk->random, files);
	uint64_t roll = history_gen_random_below(&bulk->random, 100);

	if (bulk->nodes[file].deleted) {
		bulk_place(bulk, file, bulk_random_folder(bulk, bulk->folder_count), false);
	} else if (roll < 65) {
		bulk_set(bulk, file, ++bulk->lamport);
	} else if (roll < 70 && room >= 2) {
		struct op_id head = bulk->nodes[file].content_head;
		uint64_t lamport = ++bulk->lamport;
		bulk_set(bulk, file, lamport);
		bulk->nodes[file].content_head = head;
		bulk_set(bulk, file, lamport);
	} else if (roll < 80) {
		bulk_place(bulk, file, bulk->nodes[file].parent, false);
	} else if (roll < 92) {
		bulk_place(bulk, file, bulk_random_folder(bulk, bulk->folder_count), false);
	} else if (roll < 97) {
		uint32_t folder = (uint32_t)history_gen_random_below(&bulk->random, bulk->folder_count);
		uint32_t target = bulk_random_folder(bulk, bulk->folder_count);
		if (!bulk_under(bulk, target, folder))
			bulk_place(bulk, folder, target, false);
		else
			bulk_set(bulk, file, ++bulk->lamport);
	} else {
		bulk_place(bulk, file, 0, true);
	}
}

struct op *
history_gen_bulk(struct arena *arena, uint64_t seed, size_t node_count, size_t op_count)
{
	struct bulk bulk = { .arena = arena, .node_count = node_count,
		.folder_count = node_count / 10 ? node_count / 10 : 1 };

	history_gen_random_seed(&bulk.random, seed);
	for (int r = 0; r < 4; r++)
		history_gen_random_bytes(&bulk.random, bulk.replicas[r].bytes, ID_BYTES);
	if (op_count < node_count)
		op_count = node_count;
	bulk.ops = arena_alloc(arena, op_count * sizeof *bulk.ops);
	bulk.op_limit = op_count;
	bulk.nodes = history_gen_realloc(NULL, node_count * sizeof *bulk.nodes);
	memset(bulk.nodes, 0, node_count * sizeof *bulk.nodes);
	bulk_create_all(&bulk);
	while (bulk.count < op_count)
		bulk_step(&bulk, op_count - bulk.count);
	free(bulk.nodes);
	return bulk.ops;
}
