/* The part of checkout other backend modules use: bringing chosen nodes of
 * the working tree to head (conflict resolution writes its outcome so). */
#ifndef HEARTH_BACKEND_CHECKOUT_H
#define HEARTH_BACKEND_CHECKOUT_H

#include <stddef.h>

#include "backend/home.h"
#include "model/id.h"

/* Like hearth_checkout of head, but only for nodes (the rest of the tree
 * and its version stay as they are). Refuses what would overwrite an
 * unrecorded change. The caller holds the write lock. */
int checkout_nodes(struct hearth *home, const struct node_id *nodes, size_t count,
    const struct hearth_progress *progress, struct hearth_checkout_result *out,
    struct hearth_error *error);

/* For clone into a folder that already holds files: index rows for what
 * is there where head has it (see checkout.c); counts files adopted as
 * they are. Takes no lock; the caller holds it. */
int checkout_adopt(struct hearth *home, uint64_t *adopted, struct hearth_error *error);

#endif
