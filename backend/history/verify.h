/* The equivalence docs/DESIGN.md §4.6 demands, checked: the materialized head
 * state (nodes, heads, content, where and how each is shown, conflicts)
 * against state_derive over the same ops. fsck runs it on every Home; the
 * property tests run it after every random batch. */
#ifndef HEARTH_BACKEND_VERIFY_H
#define HEARTH_BACKEND_VERIFY_H

#include <stddef.h>

#include "backend/disk/home.h"
#include "model/state.h"

/* Calls problem once per difference (a line naming the node and what
 * differs); returns how many there were. */
size_t verify_head_state(struct hearth *home, const struct state *expected,
    void (*problem)(void *context, const char *line), void *context);

/* Loads every op the store holds (decoded into arena; free *ops). */
int verify_load_ops(struct hearth *home, struct op **ops, size_t *count, struct arena *arena,
    struct hearth_error *error);

#endif
