/* State derivation (DESIGN §4): the tree and the conflict list as a pure
 * function of a set of ops. Two callers holding the same op set get
 * byte-identical results whatever order the ops came in; duplicates are
 * ignored. The backend's materialized head state must always equal this. */
#ifndef HEARTH_MODEL_STATE_H
#define HEARTH_MODEL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/arena.h"
#include "model/buffer.h"
#include "model/id.h"
#include "model/op.h"

struct state_node {
	struct node_id id;
	enum node_kind kind;
	/* Where it is shown: after placement, revives and name disambiguation.
	 * parent is NODE_TRASH for a deleted node. */
	struct node_id parent;
	const uint8_t *name;		/* as placed by its PLACE */
	size_t name_length;
	const uint8_t *shown_name;	/* name~<hex>.ext after a name clash */
	size_t shown_name_length;
	const char *root;
	bool live;			/* reachable from NODE_ROOT */
	struct op_id place_op;		/* the PLACE in effect */
	/* Content (files and symlinks): the winning head, greatest in total
	 * order; has_content false for folders and for files with no SET. */
	bool has_content;
	struct op_id content_op;
	struct hash blob;
	uint64_t size;
	uint32_t mode;
	int64_t mtime_ns;
	/* Heads: ops on this node's register no known op supersedes, sorted
	 * by total order, least first. */
	struct op_id *place_heads;
	size_t place_head_count;
	struct op_id *content_heads;
	size_t content_head_count;
};

enum conflict_kind {
	CONFLICT_CONTENT = 1,	/* two or more content heads */
	CONFLICT_MOVE,		/* two or more placement heads */
	CONFLICT_CYCLE,		/* a folder move skipped, or a revive put at the top */
	CONFLICT_EDIT_REVIVED,	/* deleted while edited elsewhere: revived */
	CONFLICT_REVIVED,	/* deleted folder revived for a live descendant */
	CONFLICT_NAME,		/* two live nodes, one name, one folder */
	CONFLICT_INVALID_OP,	/* PLACE under a file, SET on a folder */
};

struct state_conflict {
	enum conflict_kind kind;
	struct node_id node;
	/* The ops on each side, in total order: for content and move, every
	 * head (the winner last); for cycle, edit-revived, revived and
	 * invalid-op, the op skipped or the delete undone; for name, the
	 * naming PLACE of each node sharing the name. */
	struct op_id *ops;
	size_t op_count;
};

struct state {
	struct state_node *nodes;	/* every node ever placed, sorted by id */
	size_t node_count;
	struct state_conflict *conflicts;	/* sorted by (kind, node) */
	size_t conflict_count;
	struct op_id *pending;		/* PLACE ops whose parent never arrived */
	size_t pending_count;
	struct arena arena;		/* owns everything above */
};

/* Derives state(S) for ops[0..count): COMMIT ops are ignored; ops may come
 * in any order and repeat. Never fails (bad ops become invalid-op). */
void state_derive(const struct op *ops, size_t count, struct state *out);
void state_free(struct state *state);

const struct state_node *state_find(const struct state *state, struct node_id id);
/* Path of a live node from the top ("" for NODE_ROOT), with shown names. */
bool state_path(const struct state *state, struct node_id id, struct buffer *out);
/* A canonical text dump (one line per node and conflict) for tests: equal
 * dumps mean equal states. */
void state_dump(const struct state *state, struct buffer *out);

/* The name shown for the loser of a name clash: "notes~1a2b3c4d.txt" with
 * hex_digits of the node id before the last extension. */
void state_disambiguated_name(const uint8_t *name, size_t name_length, struct node_id id,
    int hex_digits, struct buffer *out);

const char *conflict_kind_name(enum conflict_kind kind);

#endif
