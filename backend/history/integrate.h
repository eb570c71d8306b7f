/* Integration (docs/DESIGN.md §4.6): brings the materialized head state forward by
 * a batch of ops, in one merged pass, so that it always equals
 * state_derive(every op held). Every op enters the store through here: a
 * record's own ops (which sort last) and a peer's (which may sort anywhere
 * in the total order and need the undo/redo of later folder moves). */
#ifndef HEARTH_BACKEND_INTEGRATE_H
#define HEARTH_BACKEND_INTEGRATE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/op.h"

struct integrate_result {
	uint64_t ops_new;		/* ops the store did not hold before */
	uint64_t ops_known;		/* duplicates, skipped */
	uint64_t versions_new;
};

/* Inserts the ops the store lacks and updates the head state, the history
 * and the conflict lists. The batch plus what the store holds must be
 * causally closed: per replica, counters continue without a gap, and every
 * op an op supersedes is held or in the batch (HEARTH_FAILED otherwise,
 * naming the op: a peer that sends that is broken or hostile). Ops may come
 * in any order; they are sorted here. Call inside a write transaction (the
 * caller commits, after the content they name is durable). */
/* The rows of the history's node table (every node of every version). */
uint64_t integrate_node_count(struct hearth *home);

int integrate_ops(struct hearth *home, const struct op *ops, size_t count,
    struct integrate_result *out, struct hearth_error *error);

#endif
