/* The materialized head state (docs/DESIGN.md §4.6): the node table holds
 * state(all ops) and integrate.c brings it forward as ops arrive, so
 * opening a Home never replays its history. This module reads and writes
 * one node row and the seen sets the working-tree index keeps. */
#ifndef HEARTH_BACKEND_HEAD_H
#define HEARTH_BACKEND_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/disk/home.h"
#include "model/arena.h"
#include "model/buffer.h"
#include "model/op.h"
#include "model/state.h"

/* A node as the head state holds it; strings and lists in an arena. */
struct head_node {
	struct node_id id;
	enum node_kind kind;
	struct state_place_ref place;	/* in effect after placement (§4.1) */
	struct state_place_ref visible;	/* last applied PLACE outside the trash */
	struct op_id *place_heads, *content_heads;
	size_t place_head_count, content_head_count;
	bool has_content;
	struct op_id content_op;
	struct hash blob;
	uint64_t size;
	uint32_t mode;
	op_mtime mtime_ns;
	/* As shown, after revives and name clashes. */
	struct node_id shown_parent;
	const uint8_t *shown;
	size_t shown_length;
	const char *shown_root;
	bool live;
};

/* How many paths a checkout of head would write, remove or move: the
 * node table against the working-tree index, in SQL, without loading
 * either. Unrecorded changes on disk are status's to find, not this. */
uint64_t head_pending_changes(struct hearth *home);

/* Loads one node. 1 found, 0 not, -1 error. */
int head_get(struct hearth *home, struct node_id id, struct head_node *out, struct arena *arena);
/* Writes one node (insert or replace). */
int head_put(struct hearth *home, const struct head_node *node);

/* A live node as head shows it (a row of the node table); pointers valid
 * during the call. */
struct head_shown_row {
	struct node_id id, shown_parent;
	const void *shown;
	size_t shown_length;
	enum node_kind kind;
	const char *root;
	const struct hash *blob;	/* NULL: none (a folder) */
	uint64_t size;
	uint32_t mode;
	op_mtime mtime_ns;
	const void *place_heads, *content_heads;	/* as store_encode_op_ids keeps them */
	size_t place_heads_length, content_heads_length;
};
/* Every live node by id until visit returns nonzero, which comes back;
 * -1 when the store fails. */
int head_each_live(struct hearth *home,
    int (*visit)(void *context, const struct head_shown_row *row), void *context);

/* The live nodes shown in folder by name after after (at most limit; the
 * heads left out), until visit returns nonzero; -1 when the store fails. */
int head_shown_page(struct hearth *home, struct node_id folder, const char *after,
    size_t limit, int (*visit)(void *context, const struct head_shown_row *row), void *context);

/* ---- single facts of the node table, for the rules and the sync ---- */

/* The kind of a node, 0 when the head state holds no such node. */
enum node_kind head_kind(struct hearth *home, struct node_id id);
/* Where a node is placed (its PLACE's folder): NODE_ROOT when no such node. */
struct node_id head_placed_parent(struct hearth *home, struct node_id id);
/* The blob a node shows: true with it in *out, false when none. */
bool head_blob(struct hearth *home, struct node_id id, struct hash *out);
/* Whether any node but except is placed in folder (live or not). */
bool head_has_placed_child(struct hearth *home, struct node_id folder, struct node_id except);
/* Whether a live node but except is shown under name in folder. */
bool head_name_taken(struct hearth *home, struct node_id folder, const void *name,
    size_t length, struct node_id except);
/* Whether node is live and shown in the folder it is placed in. */
bool head_shown_where_placed(struct hearth *home, struct node_id id);
/* The live node shown under name in folder: 1 with its id and kind, 0 none. */
int head_shown_at(struct hearth *home, struct node_id folder, const void *name, size_t length,
    struct node_id *id, enum node_kind *kind);
/* The live nodes shown in folder, appended to *ids (grown with array_grow
 * from *capacity). */
void head_shown_children(struct hearth *home, struct node_id folder, struct node_id **ids,
    size_t *count, size_t *capacity);
/* Where and whether a node is shown, as the finishing rules decided. */
int head_set_shown(struct hearth *home, struct node_id id, struct node_id shown_parent,
    const void *name, size_t length, const char *root, bool live);
/* Whether a live node is shown elsewhere than the working-tree index holds
 * it (the index's row not one a restore brings back). */
bool head_shown_apart_from_tree(struct hearth *home, struct node_id id);
/* How many nodes the head state holds (live or not). */
uint64_t head_count(struct hearth *home);

/* The path a node is shown at, from the top ("(deleted)/name" for one in
 * the trash). */
int head_path(struct hearth *home, struct node_id id, struct buffer *out);

/* Calls visit for every node (for the finishing rules and fsck); the node
 * and its strings are valid only during the call. */
int head_each(struct hearth *home, int (*visit)(void *context, const struct head_node *node),
    void *context);

/* The seen set an index row keeps: the placement heads and content heads
 * the tree had seen, which is what a record of that node supersedes. */
void head_encode_seen(struct hearth *home, const struct op_id *place, size_t place_count,
    const struct op_id *content, size_t content_count, struct buffer *out);
int head_decode_seen(struct hearth *home, const uint8_t *data, size_t length,
    struct op_id **place, size_t *place_count, struct op_id **content, size_t *content_count,
    struct arena *arena);

/* The conflicts the head state lists now, as keys (a kind byte, then the
 * node's id) in order, into out: what a sync compares with afterwards to
 * tell which conflicts it brought. */
void head_conflict_keys(struct hearth *home, struct buffer *out);
/* Conflicts listed now that before (head_conflict_keys) did not list, by
 * kind: counts[kind] for kind 1 to kinds - 1 (enum hearth_conflict_kind);
 * returns their number. */
uint64_t head_conflicts_new(struct hearth *home, const struct buffer *before, uint64_t *counts,
    size_t kinds);

/* What the working tree holds that head dropped (docs/DESIGN.md §7, "The
 * tree is the version"): an index row on disk whose node head no longer
 * holds live; status lists them, record keeps them with a PLACE. Name,
 * root and seen set in an arena. */
struct head_dropped {
	struct node_id node, parent;
	enum node_kind kind;
	const uint8_t *name;
	size_t name_length;
	const char *root;
	const uint8_t *seen;	/* the row's seen set (head_encode_seen), NULL if none */
	size_t seen_length;
};

/* The rows on disk (restore 0) whose node head does not hold live, into
 * *rows (the caller frees the array). 0, or -1 when the store cannot be read. */
int head_dropped_rows(struct hearth *home, struct arena *arena, struct head_dropped **rows,
    size_t *count);
/* Appends each row to list as an added path (what a record of the tree
 * adds to head), the paths in list's storage. */
void head_dropped_list(struct hearth *home, const struct head_dropped *rows, size_t count,
    struct hearth_change_list *list);
/* Whether the index is known to hold no such row (meta `dropped_none`):
 * set by a record of a tree at head, which keeps every one, and by a
 * checkout of head that looked and found none; cleared whenever a node
 * stops being live (head_put, head_set_shown). So status and record look
 * only in a Home an earlier build left, or after a sync dropped a node. */
bool head_dropped_known_none(struct hearth *home);
int head_dropped_none(struct hearth *home);
/* Takes the note away (fsck --repair, where rows prove it wrong); the
 * caller holds the write transaction. */
int head_dropped_unknown(struct hearth *home);
/* A record of a tree at head with none known asks only about the nodes
 * that stop being live while it runs (head_track_dropped notes them,
 * head_untrack_dropped stops), not the whole index: before it there were
 * no such rows, and a row can only become one when its node stops being
 * live. head_dropped_rows_tracked gives their rows as head_dropped_rows
 * would. */
void head_track_dropped(struct hearth *home);
void head_untrack_dropped(struct hearth *home);
int head_dropped_rows_tracked(struct hearth *home, struct arena *arena,
    struct head_dropped **rows, size_t *count);

#endif
