/* The conflict table's owner (conflicts.c): what the rest of the backend
 * asks of the conflicts the head holds. */
#ifndef HEARTH_BACKEND_HISTORY_CONFLICTS_H
#define HEARTH_BACKEND_HISTORY_CONFLICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/state.h"

/* The conflicts the head holds, settled or not by the tree. */
uint64_t conflicts_count(struct hearth *home);

/* Whether a conflict of kind is listed on node. */
bool conflicts_listed(struct hearth *home, struct node_id node, enum conflict_kind kind);
/* Lists (or replaces) the conflict of kind on node keyed by its first op,
 * from placement and heads (phase 1) or the finishing rules (phase 2). */
int conflicts_put(struct hearth *home, enum conflict_kind kind, struct node_id node,
    const struct op_id *ops, size_t count, int phase);
/* Unlists node's conflicts of placement and heads (move, content, cycle). */
int conflicts_clear_heads(struct hearth *home, struct node_id node);
/* Unlists every conflict of the finishing rules (phase 2). */
int conflicts_clear_finished(struct hearth *home);
bool conflicts_any_finished(struct hearth *home);
/* The nodes with a conflict of kind listed, appended to *ids (grown with
 * array_grow from *capacity); in_place: only those the working-tree
 * index holds where head shows them. -1 when the store fails. */
int conflicts_nodes(struct hearth *home, enum conflict_kind kind, bool in_place,
    struct node_id **ids, size_t *count, size_t *capacity);
/* Calls visit for every conflict listed (ops as store_encode_op_ids keeps
 * them, valid during the call) until it returns nonzero, which comes back. */
int conflicts_each(struct hearth *home, int (*visit)(void *context, enum conflict_kind kind,
    struct node_id node, const void *ops, size_t length), void *context);

#endif
