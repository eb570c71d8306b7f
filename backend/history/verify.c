/* Compares the head state with state_derive, field by field, so that a
 * difference names the node and the field rather than just "differs". */
#include "backend/history/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/conflicts.h"
#include "backend/history/head.h"
#include "model/array.h"

struct verify {
	struct hearth *home;
	void (*problem)(void *context, const char *line);
	void *context;
	size_t count;
};

static void
report(struct verify *verify, struct node_id node, const char *what)
{
	char hex[ID_HEX], line[1024];

	node_id_hex(node, hex);
	snprintf(line, sizeof line, "node %s: the head state and its ops disagree on %s", hex, what);
	verify->problem(verify->context, line);
	verify->count++;
}

static int
compare_ids(const void *left, const void *right)
{
	return op_id_compare(*(const struct op_id *)left, *(const struct op_id *)right);
}

/* Heads as sets: the order they are kept in does not matter. */
static bool
same_ids(const struct op_id *a, size_t a_count, const struct op_id *b, size_t b_count)
{
	if (a_count != b_count)
		return false;
	if (a_count == 0)
		return true;
	struct op_id *x = array_alloc(a_count, sizeof *x), *y = array_alloc(a_count, sizeof *y);
	memcpy(x, a, a_count * sizeof *x);
	memcpy(y, b, a_count * sizeof *y);
	qsort(x, a_count, sizeof *x, compare_ids);
	qsort(y, a_count, sizeof *y, compare_ids);
	bool same = memcmp(x, y, a_count * sizeof *x) == 0;
	free(x);
	free(y);
	return same;
}

static void
compare_node(struct verify *verify, const struct state_node *want, const struct head_node *have)
{
	if (have->live != want->live)
		report(verify, want->id, have->live ? "being live (head only)" : "being live (ops only)");
	if (!same_ids(have->place_heads, have->place_head_count, want->place_heads,
		want->place_head_count))
		report(verify, want->id, "its placement heads");
	if (!same_ids(have->content_heads, have->content_head_count, want->content_heads,
		want->content_head_count))
		report(verify, want->id, "its content heads");
	if (!want->live)
		return;	/* where a deleted node sits is the trash's business */
	if (!node_id_equal(have->shown_parent, want->parent))
		report(verify, want->id, "its folder");
	if (have->shown_length != want->shown_name_length ||
	    memcmp(have->shown, want->shown_name, have->shown_length) != 0) {
		char what[600];
		snprintf(what, sizeof what, "its name (head \"%.*s\", ops \"%.*s\")",
		    (int)(have->shown_length > 200 ? 200 : have->shown_length), have->shown,
		    (int)(want->shown_name_length > 200 ? 200 : want->shown_name_length),
		    want->shown_name);
		report(verify, want->id, what);
	}
	if (strcmp(have->shown_root ? have->shown_root : "", want->root ? want->root : "") != 0)
		report(verify, want->id, "its root");
	if (have->has_content != want->has_content ||
	    (want->has_content && (!hash_equal(&have->blob, &want->blob) ||
				      have->mode != want->mode || have->size != want->size)))
		report(verify, want->id, "its content");
}

struct conflict_load {
	struct hearth *home;
	struct arena *arena;
	struct state_conflict *conflicts;
	size_t count, capacity;
};

static int
load_conflict(void *context, enum conflict_kind kind, struct node_id node, const void *ops,
    size_t length)
{
	struct conflict_load *load = context;
	load->conflicts = array_grow(load->conflicts, &load->capacity, load->count + 1,
	    sizeof *load->conflicts);
	struct state_conflict *conflict = &load->conflicts[load->count];
	conflict->kind = kind;
	conflict->node = node;
	if (store_decode_op_ids(&load->home->store, ops, length, &conflict->ops,
		&conflict->op_count, load->arena) == 0 && conflict->op_count > 0)
		load->count++;
	return 0;
}

static size_t
load_conflicts(struct hearth *home, struct state_conflict **out, struct arena *arena)
{
	struct conflict_load load = { .home = home, .arena = arena };

	conflicts_each(home, load_conflict, &load);
	if (load.count > 1)
		qsort(load.conflicts, load.count, sizeof *load.conflicts, state_conflict_compare);
	*out = load.conflicts;
	return load.count;
}

static void
compare_conflicts(struct verify *verify, const struct state *expected)
{
	struct arena arena;
	struct state_conflict *have;
	size_t have_count, i = 0, j = 0;
	/* Derivation orders a node's conflicts by the total order of their
	 * first ops, which the store does not know: both sides by op id. */
	struct state_conflict *want = array_alloc(expected->conflict_count + 1, sizeof *want);

	memcpy(want, expected->conflicts, expected->conflict_count * sizeof *want);
	if (expected->conflict_count > 1)
		qsort(want, expected->conflict_count, sizeof *want, state_conflict_compare);
	arena_init(&arena, 16 * 1024);
	have_count = load_conflicts(verify->home, &have, &arena);
	while (i < have_count || j < expected->conflict_count) {
		int order = i == have_count ? 1 : j == expected->conflict_count ? -1
		    : state_conflict_compare(&have[i], &want[j]);
		char what[96];
		if (order == 0) {
			if (!same_ids(have[i].ops, have[i].op_count, want[j].ops, want[j].op_count)) {
				snprintf(what, sizeof what, "the sides of its %s conflict",
				    conflict_kind_name(want[j].kind));
				report(verify, want[j].node, what);
			}
			i++, j++;
		} else if (order < 0) {
			snprintf(what, sizeof what, "a %s conflict (head only)",
			    conflict_kind_name(have[i].kind));
			report(verify, have[i].node, what);
			i++;
		} else {
			snprintf(what, sizeof what, "a %s conflict (ops only)",
			    conflict_kind_name(want[j].kind));
			report(verify, want[j].node, what);
			j++;
		}
	}
	free(have);
	free(want);
	arena_free(&arena);
}

size_t
verify_head_state(struct hearth *home, const struct state *expected,
    void (*problem)(void *context, const char *line), void *context)
{
	struct verify verify = { .home = home, .problem = problem, .context = context };
	struct arena arena;
	uint64_t held = 0;
	char line[128];

	held = head_count(home);
	if (held != expected->node_count) {
		snprintf(line, sizeof line, "the head state holds %llu nodes, the ops make %zu",
		    (unsigned long long)held, expected->node_count);
		problem(context, line);
		verify.count++;
	}
	arena_init(&arena, 64 * 1024);
	for (size_t i = 0; i < expected->node_count; i++) {
		struct head_node have;
		if (head_get(home, expected->nodes[i].id, &have, &arena) != 1)
			report(&verify, expected->nodes[i].id, "existing (ops only)");
		else
			compare_node(&verify, &expected->nodes[i], &have);
		if (arena.allocated > (1u << 20)) {
			arena_free(&arena);
			arena_init(&arena, 64 * 1024);
		}
	}
	arena_free(&arena);
	compare_conflicts(&verify, expected);
	return verify.count;
}

int
verify_load_ops(struct hearth *home, struct op **ops, size_t *count, struct arena *arena,
    struct hearth_error *error)
{
	struct store_ops changes;
	struct store_op_row row;
	size_t capacity = 1024;
	char reason[128];

	*count = 0;
	*ops = array_alloc(capacity, sizeof **ops);
	store_ops_changes(&home->store, &changes);
	while (store_ops_next(&changes, &row)) {
		*ops = array_grow(*ops, &capacity, *count + 1, sizeof **ops);
		if (!op_decode(row.body, row.body_length, &(*ops)[*count], arena, reason,
			sizeof reason)) {
			store_ops_close(&changes);
			return hearth_fail(error, HEARTH_DAMAGED, "an op does not decode: %s", reason);
		}
		(*count)++;
	}
	return store_ops_end(&changes, 0, error);
}
