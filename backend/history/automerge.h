/* Line merges at sync (docs/DESIGN.md §4.2): a content conflict whose heads merge
 * by line without overlap (model/merge.h) is settled by the replica that
 * takes the heads in, with a SET of the merged bytes superseding every
 * head, in a version of its own. And the same reading of a node's heads
 * for the front ends: the base and the sides of a conflict, what a merge
 * made of which heads, and the bytes with markers.
 *
 * Why an op and not a derived content: state_derive is a function of ops
 * alone and never reads a blob, and so are the head state, fsck, checkout
 * of an old version and every peer's view of history. The merged bytes as
 * a SET keep all of that true: history shows the merge as a version, the
 * merged blob travels like any other, `resolve` can take either side
 * back, and two replicas that merge the same heads concurrently make two
 * SETs of one blob and mode, which state_derive takes as one content (no
 * conflict). The bytes are a pure function of the heads and their base,
 * so every replica that merges writes the same ones. */
#ifndef HEARTH_BACKEND_AUTOMERGE_H
#define HEARTH_BACKEND_AUTOMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/buffer.h"
#include "model/merge.h"
#include "model/op.h"

struct automerge_result {
	uint64_t merged;		/* files merged by line */
	uint64_t overlapping;		/* content conflicts left: their heads overlap */
	char version[65];		/* the version the merges made, "" if none */
};

/* After a batch of ops from a peer is committed, with the write lock
 * held: each node a SET of the batch names whose content heads are in
 * conflict and merge without overlap (a file, not matched by
 * never_merge, text or matched by always_merge) gets the merged content,
 * all of them in one version "merged: edits from A and B". Its own
 * transaction; on failure nothing of it is kept. */
int automerge_after_sync(struct hearth *home, const struct op *ops, size_t count,
    struct automerge_result *out, struct hearth_error *error);

/* A node's heads as a merge sees them. */
struct automerge_sides {
	struct hearth *home;
	struct op *heads;		/* SET ops, in total order */
	struct merge_text *head_texts;	/* their bytes (readable), in blobs */
	size_t head_count;
	bool readable;			/* every head's bytes were read */
	bool never_merge;		/* its path matches never_merge */
	/* A head holds diff3 markers (a merge with markers not yet done): a
	 * person is at it, so it is not merged at sync. */
	bool has_markers;
	/* merge_heads over the heads: the base (merge.base), and the merged
	 * bytes or the overlapping hunks. */
	struct merge_result merge;
	struct automerge_blob {
		struct hash hash;
		struct buffer bytes;
	} *blobs;			/* every blob read, once */
	size_t blob_count, blob_capacity;
	struct arena arena;
};

/* Reads the SET ops heads[0..count) of node (any order), merges them
 * (model/merge.h: merge_heads; always_merge lets NUL bytes through) and
 * keeps the bytes read. never_merge is only noted: the caller decides. 0,
 * or an error (store, missing op). Free with automerge_sides_free
 * whatever it returns. */
int automerge_load(struct hearth *home, struct node_id node, const char *path,
    const struct op_id *heads, size_t count, struct automerge_sides *out,
    struct hearth_error *error);
void automerge_sides_free(struct automerge_sides *sides);

/* Whether a SET is a line merge: it supersedes two or more SETs of its
 * node and its blob is what merge_lines makes of them. 1 yes (sides
 * loaded: the heads it merged, their base), 0 no, or an error. */
int automerge_explain(struct hearth *home, const struct op *set, struct automerge_sides *out,
    struct hearth_error *error);

/* How a merge names a side: the author of the version that recorded op,
 * or "replica 1a2b3c4d" when none is known. Writes into out (size bytes). */
void automerge_side_name(struct hearth *home, struct op_id op, char *out, size_t size);

/* The content shown for node, if a line merge made it: 1 (sides of that
 * merge loaded, free them), 0 not, or an error. */
int automerge_merged_node(struct hearth *home, struct node_id node, struct automerge_sides *out,
    struct hearth_error *error);
/* Appends "laptop and desktop": who made the sides, each replica once. */
void automerge_merged_from(struct hearth *home, const struct automerge_sides *sides,
    struct buffer *out);
/* Appends the name of head index's side, as automerge_merged_from shows it. */
void automerge_head_label(struct hearth *home, const struct automerge_sides *sides, size_t index,
    struct buffer *out);
/* The live node shown at path in the head state: 1 found, 0 not. */
int automerge_node_at(struct hearth *home, const char *path, struct node_id *out);

#endif
