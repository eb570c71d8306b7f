/* Simulated replicas for tests of state derivation: each replica acts on
 * its own view (state_derive over the ops it has seen), so supersedes lists
 * name only ops its author saw, counters have no gaps and lamports are
 * 1 + the greatest known. Scenario tests drive it step by step; property
 * tests let history_random_step pick the steps from a seed. */
#ifndef HEARTH_TESTS_HISTORY_GEN_H
#define HEARTH_TESTS_HISTORY_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/state.h"

#define HISTORY_REPLICAS_MAX 5

/* splitmix64: small, seedable, and the same on every platform. */
struct history_random {
	uint64_t state;
};

void history_gen_random_seed(struct history_random *random, uint64_t seed);
uint64_t history_gen_random_next(struct history_random *random);
/* Uniform in [0, bound); bound > 0. */
uint64_t history_gen_random_below(struct history_random *random, uint64_t bound);
/* Fisher-Yates shuffle of count ops. */
void history_gen_shuffle(struct history_random *random, struct op *ops, size_t count);

struct history_replica {
	struct replica_id id;
	uint64_t counter;	/* of its last op */
	uint64_t lamport;	/* the greatest it knows */
	uint8_t *known;		/* known[i]: history op i has reached it */
	struct state view;
	bool view_current;
};

struct history {
	struct op *ops;		/* every op made, in the order made: a causal order */
	size_t count;
	size_t capacity;
	struct arena arena;	/* names, roots, supersedes lists of the ops */
	struct history_replica replicas[HISTORY_REPLICAS_MAX];
	int replica_count;
	struct history_random random;
	uint64_t clock_ms;	/* for node ids; many share their first 8 hex digits */
	/* When set, every view derived is checked with history_check_state
	 * and what is wrong is appended to problems. */
	bool check_views;
	struct buffer problems;
};

/* Replica ids are drawn from the seed; replica_count is 1..HISTORY_REPLICAS_MAX. */
void history_gen_init(struct history *history, int replica_count, uint64_t seed);
void history_gen_free(struct history *history);

/* The replica's view, derived again only when it has learnt ops. */
const struct state *history_gen_view(struct history *history, int replica);
/* Copies the ops the replica knows into a malloc'ed array (caller frees). */
struct op *history_gen_known_ops(const struct history *history, int replica, size_t *count);

/* Actions of one replica, made as a client would from its view. */
struct node_id history_gen_create(struct history *history, int replica, struct node_id parent,
    const char *name, enum node_kind kind);
/* An ordinary edit: supersedes only the content on disk (the winner). */
void history_gen_edit(struct history *history, int replica, struct node_id node);
/* An explicit resolve: new content superseding every content head. */
void history_gen_resolve(struct history *history, int replica, struct node_id node);
/* Move and/or rename; supersedes the placement heads seen. */
void history_gen_move(struct history *history, int replica, struct node_id node,
    struct node_id parent, const char *name);
/* Keeps the current place, superseding every placement head. */
void history_gen_settle_move(struct history *history, int replica, struct node_id node);
/* TRASH PLACE for the node and every descendant the replica sees, each
 * superseding the placement and content heads seen. */
void history_gen_delete(struct history *history, int replica, struct node_id node);
/* to learns every op from knows. */
void history_gen_sync(struct history *history, int from, int to);
void history_gen_sync_all(struct history *history);

/* One random action or sync; returns a short name of what it did. */
const char *history_gen_random_step(struct history *history);
/* A whole random history: 2-5 replicas, 10-250 steps, from seed; with
 * check_views, every view a replica acts on is checked (see check_views). */
void history_gen_generate(struct history *history, uint64_t seed, bool check_views);

/* Invariants of state(S) for any S: nodes sorted, live chains reach the
 * top through live folders, every other node is in the trash, shown names
 * are valid and unique per folder, content is the greatest head, conflicts
 * and pending ops name ops of S. Appends one line per problem; true when
 * none. */
bool history_gen_check_structure(const struct op *ops, size_t count, const struct state *state,
    struct buffer *problems);
/* history_check_structure, plus what holds for a causally closed S of
 * well-formed ops: nothing pending or invalid, every placed node kept, and
 * every node live unless a TRASH PLACE of its own superseded what its
 * author saw and no edit survived it. */
bool history_gen_check_state(const struct op *ops, size_t count, const struct state *state,
    struct buffer *problems);

/* A large synthetic history for timing: node_count nodes (a tenth of them
 * folders), then edits, renames, moves and deletes up to op_count ops
 * (exactly, and at least node_count) from four replicas that see each
 * other's ops: mostly one head per node, some concurrent edits. The ops and
 * everything they point to live in arena. */
struct op *history_gen_bulk(struct arena *arena, uint64_t seed, size_t node_count,
    size_t op_count);

#endif
