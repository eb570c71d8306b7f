/* The part of checkout other backend modules use: bringing chosen nodes of
 * the working tree to head (conflict resolution writes its outcome so). */
#ifndef HEARTH_BACKEND_CHECKOUT_H
#define HEARTH_BACKEND_CHECKOUT_H

#include <stddef.h>

#include "backend/disk/home.h"
#include "model/id.h"

/* Like hearth_checkout of head, but only for nodes (the rest of the tree
 * and its version stay as they are). Refuses what would overwrite an
 * unrecorded change. The caller holds the write lock. */
int checkout_nodes(struct hearth *home, const struct node_id *nodes, size_t count,
    const struct hearth_progress *progress, struct hearth_checkout_result *out,
    struct hearth_error *error);

/* A resolve is crash-safe in two steps: its transaction records the
 * resolution and, as pending, the nodes whose paths it must then write
 * (checkout_set_pending); checkout_nodes (or any whole checkout) clears
 * the pending set in the transaction that brings them to head. A resolve
 * killed or failed in between leaves the set, and the next record or
 * resolve finishes it first (checkout_finish_pending), so no edit is ever
 * made on top of index rows that predate the resolution. The caller
 * holds the write lock and, for set, the transaction. */
int checkout_set_pending(struct hearth *home, const struct node_id *nodes, size_t count,
    struct hearth_error *error);
/* Writes what a pending set names (nothing when there is none, or when a
 * root is missing: the command fails closed on its own), saying on failure
 * that an earlier command left them. Paths that hold an unrecorded change
 * are left as they are and the set dropped: that change is the user's, and
 * recording it makes a real conflict. A record keeps such a set too: the
 * nodes whose names its ops freed or took in a name clash (record.c). */
int checkout_finish_pending(struct hearth *home, struct hearth_error *error);
/* The same, for the command that set them: *moved (may be NULL) counts
 * the nodes moved, and a failure is the checkout's own. */
int checkout_write_pending(struct hearth *home, uint64_t *moved, struct hearth_error *error);

/* For clone into a folder that already holds files: index rows for what
 * is there where head has it (see checkout.c); counts files adopted as
 * they are. Takes no lock; the caller holds it. */
int checkout_adopt(struct hearth *home, uint64_t *adopted, struct hearth_error *error);

#endif
