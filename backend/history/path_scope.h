/* The ops that alone decide where one node is and what it holds at every
 * version, so `log PATH` derives each version's trees from a few hundred
 * ops instead of the whole log (file_history.c; docs/DESIGN.md §4.7). */
#ifndef HEARTH_BACKEND_PATH_SCOPE_H
#define HEARTH_BACKEND_PATH_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/disk/home.h"
#include "backend/history/tree.h"
#include "model/arena.h"
#include "model/op.h"

/* The scope of a node: the ops of
 *   - the node, and for a folder every node ever placed below it;
 *   - every folder one of those was ever placed in, and so on to the top
 *     (where it is, and whether a move of it was a cycle);
 *   - every node ever placed in one of those folders or at the top (its
 *     name and theirs clash: the shown name of each depends on the
 *     others), and every folder those were ever placed in, to the top.
 * The model (docs/DESIGN.md §4) places, names and fills those nodes from
 * these ops alone, except where a folder of the scope was ever deleted
 * (a folder in TRASH is revived by any live node below it, which the scope
 * need not hold) or an op outside the scope supersedes one inside it. */
struct path_scope {
	struct op *ops;
	size_t count;
	struct arena arena;
};

/* 1 with out filled; 0 when the scope cannot decide alone (the caller
 * derives from the whole log); or an error code. */
int path_scope_open(struct hearth *home, struct node_id node, enum node_kind kind,
    struct path_scope *out, struct hearth_error *error);
/* The tree the scope's ops at or below vv derive: the whole log's tree at
 * vv, restricted to the scope's nodes. */
void path_scope_tree(const struct path_scope *scope, const struct vv *vv, struct tree *out);
void path_scope_close(struct path_scope *scope);

#endif
