/* Comparing two states of the Home by node identity (hearth_compare):
 * trees of versions, the index, and the working tree as the disk holds it;
 * and the text diff of one node between two trees, which show -p shares. */
#ifndef HEARTH_BACKEND_HISTORY_COMPARE_H
#define HEARTH_BACKEND_HISTORY_COMPARE_H

#include <stddef.h>

#include "backend/disk/home.h"
#include "backend/history/tree.h"

/* The tree of a version (head, head~N, an id or a prefix). */
int compare_load_version(struct hearth *home, const char *spec, struct tree *out,
    struct hearth_error *error);

/* The working tree: the index with what a walk of the disk (or a current
 * watched index) finds changed laid over it; those files' content is read
 * from the disk. An added file whose id other holds is hashed, to tell
 * whether it changed. other NULL: against the index, what status lists,
 * so what a stopped checkout placed is left as the index has it. */
int compare_load_working(struct hearth *home, const struct tree *other,
    const struct hearth_progress *progress, struct tree *out, struct hearth_error *error);

/* A version and the state it is shown against (hearth_show): the state
 * before it on its replica (its author's previous version), so each
 * version shows the work recorded in it; a merge version, which records no
 * work of its own, what it took in against its replica's version before
 * it; the unnamed head state, what it holds past the newest version. */
struct compare_pair {
	struct tree before, after;
	/* The ops the version made: its replica's, counters (previous, counter]. */
	struct replica_id replica;
	uint64_t previous, counter;
};

/* The states compare_load_pair loads the trees of: the version's, and the
 * one before it; both owned by the caller (vv_free) on success. */
int compare_version_vvs(struct hearth *home, const char *spec, struct vv *after, struct vv *before,
    struct hearth_error *error);
int compare_load_pair(struct hearth *home, const char *spec, struct compare_pair *pair,
    struct hearth_error *error);
/* The same pair, with whole_trees false restricted to the nodes the
 * version changed and their scope (path_scope_open_changes): tree_diff of
 * it lists exactly what the whole trees' does, and nothing else may be
 * looked up in it. Where the scope would not do, the whole trees, from the
 * same one read of the log. */
int compare_load_changes(struct hearth *home, const char *spec, bool whole_trees,
    struct compare_pair *pair, struct hearth_error *error);
void compare_free_pair(struct compare_pair *pair);

/* The diff of one node: was in before (NULL: added), now in after (NULL:
 * deleted), as hearth_comparison_diff describes it. */
int compare_diff_nodes(struct hearth *home, struct tree *before, struct tree_node *was,
    struct tree *after, struct tree_node *now, size_t max_bytes, struct hearth_text *out,
    struct hearth_error *error);

/* The nodes a change of tree_diff(before, after) is about: *now in after
 * (NULL for a delete), *was in before (NULL for an add). */
void compare_change_nodes(struct tree *before, struct tree *after,
    const struct hearth_change *change, struct tree_node **was, struct tree_node **now);

#endif
