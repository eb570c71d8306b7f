/* The ops that alone decide where some nodes are and what they hold at
 * every version, so `log PATH` and `show` derive a version's trees from a
 * few hundred ops instead of the whole log (file_history.c, show.c;
 * docs/DESIGN.md §4.7). */
#ifndef HEARTH_BACKEND_PATH_SCOPE_H
#define HEARTH_BACKEND_PATH_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/disk/home.h"
#include "backend/history/tree.h"
#include "model/arena.h"
#include "model/op.h"

/* The scope of a set of start nodes: the ops of
 *   - the start nodes and every node ever placed below one of them;
 *   - every folder one of those was ever placed in, and so on to the top
 *     (where it is, and whether a move of it was a cycle);
 *   - every node ever placed in one of those folders or at the top (its
 *     name and theirs clash: the shown name of each depends on the
 *     others), and every folder those were ever placed in, to the top.
 * A folder in TRASH is revived by any live node below it, which the scope
 * need not hold: each folder of the scope ever deleted, outside what is
 * below the start, joins the start and the scope is found again (a few
 * rounds at most). The model (docs/DESIGN.md §4) then places, names and
 * fills the scope's nodes from its ops alone, unless an op supersedes
 * across its edge. And no op of a start node changes a node outside it:
 * where a node is placed, what it is named, whether it lives and what it
 * holds depend only on nodes its scope holds (§4.7). */
struct path_scope {
	struct op *ops;
	size_t count;
	struct arena arena;
	/* path_scope_open_changes only: ops is every op of the log, as the
	 * scope could not decide alone or held more than half of a long log. */
	bool whole;
};

/* 1 with out filled; 0 when the scope cannot decide alone (the caller
 * derives from the whole log); or an error code. The scope of some nodes,
 * for the history of a path (its node, or every node ever given its last
 * name when it is gone): */
int path_scope_open(struct hearth *home, const struct node_id *nodes, size_t count,
    struct path_scope *out, struct hearth_error *error);
/* and of the nodes touched by the ops in after but not in before, for
 * what a version changed: a tree_diff of its two trees lists exactly what
 * the whole trees' does. Never 0: where the scope would not do, out is
 * the whole log (out->whole). */
int path_scope_open_changes(struct hearth *home, const struct vv *after, const struct vv *before,
    struct path_scope *out, struct hearth_error *error);
/* The tree the scope's ops at or below vv derive: the whole log's tree at
 * vv, restricted to the scope's nodes. */
void path_scope_tree(const struct path_scope *scope, const struct vv *vv, struct tree *out);
void path_scope_close(struct path_scope *scope);

#endif
