/* State derivation (docs/DESIGN.md §4): the tree and the conflict list as a pure
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
	/* name, root and place_op come from the PLACE that names the node:
	 * the last applied one, or for a revived node the last applied one
	 * outside the trash (its TRASH PLACE is in its revive conflict). */
	const uint8_t *name;		/* as placed by its PLACE */
	size_t name_length;
	const uint8_t *shown_name;	/* name~<hex>.ext after a name clash */
	size_t shown_name_length;
	const char *root;
	bool live;			/* reachable from NODE_ROOT */
	struct op_id place_op;		/* the PLACE in effect */
	/* Content (files and symlinks): the winning head, greatest in total
	 * order; with no head left (all superseded), the greatest SET known.
	 * has_content false for folders and for files with no SET. */
	bool has_content;
	struct op_id content_op;
	struct hash blob;
	uint64_t size;
	uint32_t mode;
	op_mtime mtime_ns;
	/* Heads: ops on this node's register no known op supersedes, sorted
	 * by total order, least first; NULL when there are none. Placement
	 * heads count every such PLACE, applied or not; content heads only
	 * SETs that applied. */
	struct op_id *place_heads;
	size_t place_head_count;
	struct op_id *content_heads;
	size_t content_head_count;
};

enum conflict_kind {
	CONFLICT_CONTENT = 1,	/* two or more content heads, not all of one
				 * blob and mode */
	CONFLICT_MOVE,		/* two or more placement heads */
	CONFLICT_CYCLE,		/* a folder move skipped (listed while that move is
				 * still a placement head), or a revive put at the top */
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
	 * naming PLACE of each node sharing the name. A name clash gives one
	 * conflict per node that lost the name (node is the loser). A revive
	 * at the top gives both a revived (or edit-revived) and a cycle
	 * conflict for the same delete. */
	struct op_id *ops;
	size_t op_count;
};

/* For qsort: kind, node, then first op by id (state.conflicts orders the
 * first ops by total order instead, which needs the ops themselves). */
int state_conflict_compare(const void *left, const void *right);

struct state {
	struct state_node *nodes;	/* every node ever placed, sorted by id */
	size_t node_count;
	/* sorted by (kind, node, first op in total order) */
	struct state_conflict *conflicts;
	size_t conflict_count;
	/* In total order: PLACE ops whose parent was not placed at their point
	 * in total order, and SET ops whose node was never placed. */
	struct op_id *pending;
	size_t pending_count;
	struct arena arena;		/* owns everything above */
};

/* Derives state(S) for ops[0..count): COMMIT ops are ignored; ops may come
 * in any order and repeat. Never fails (bad ops become invalid-op). out
 * needs no initialization and owns copies of everything it shows: ops may
 * be freed afterwards. Rules beyond docs/DESIGN.md §4, fixed here so every replica
 * agrees:
 *  - Two ops with one id: the one least in total order counts (then by
 *    content, so even a broken peer cannot make arrival order matter).
 *  - A PLACE's parent is looked up at the PLACE's point in total order:
 *    not placed by then means pending (a causal history always creates a
 *    parent earlier in total order).
 *  - invalid-op also covers a PLACE of the top folder or the trash, with
 *    an invalid name or kind, or with a kind other than the one the node
 *    was created with.
 *  - A node in the trash with no place outside it, if revived, goes to the
 *    top. Revives run in total order of the deletes they undo; reviving a
 *    node may revive its old parent in turn. A folder's "live descendant"
 *    is any node under it that is not itself in the trash.
 *  - Name clashes: losers get name~<hex>.ext with 8 hex digits, then 9...
 *    32 while taken (by any shown name in the folder), then
 *    name~<32 hex>-2.ext, -3...; names stay within OP_NAME_MAX (see
 *    state_disambiguated_name). The naming PLACE is the one that gave the
 *    node its current name, so a node renamed into a taken name loses it
 *    even if it was created first. */
void state_derive(const struct op *ops, size_t count, struct state *out);
void state_free(struct state *state);

const struct state_node *state_find(const struct state *state, struct node_id id);
/* Appends the path of a live node from the top ("" for NODE_ROOT), with
 * shown names; false (nothing appended) for a node not live or unknown. */
bool state_path(const struct state *state, struct node_id id, struct buffer *out);
/* A canonical text dump for tests: equal dumps mean equal states. One
 * line per node ("node <id> <kind> parent= name= shown= root= live= place=
 * content= [blob= size= mode= mtime=] place_heads= content_heads="), per
 * conflict ("conflict <kind> <node> ops=") and per pending op; ids in hex,
 * op ids as <replica hex>:<counter>, names with bytes outside printable
 * ASCII, space and backslash as \xNN. Appends to out. */
void state_dump(const struct state *state, struct buffer *out);

/* Appends the name shown for the loser of a name clash:
 * "notes~1a2b3c4d.txt" with hex_digits (1..32) of the node id before the
 * extension: from the last '.', none when that '.' is the first byte
 * (".bashrc~1a2b3c4d"). A result over OP_NAME_MAX bytes is shortened in
 * the stem, at a UTF-8 boundary; an extension too long to keep counts as
 * part of the stem. */
void state_disambiguated_name(const uint8_t *name, size_t name_length, struct node_id id,
    int hex_digits, struct buffer *out);
/* Whether shown is a name state_disambiguated_name (or, past 32 digits,
 * the numbered form) gives a node id named name: how a path that shows a
 * clash's loser is traced back to the PLACE that named it. */
bool state_is_disambiguated_name(const uint8_t *name, size_t name_length, struct node_id id,
    const uint8_t *shown, size_t shown_length);

const char *conflict_kind_name(enum conflict_kind kind);

/* ---- the finishing rules, shared by state_derive and the backend's
 * incremental integration: revives (§4.3), liveness and names (§4.4) are
 * a function of each node's placement and content heads alone, so both
 * run this one implementation. ----------------------------------------- */

/* A PLACE as the finishing rules need it. */
struct state_place_ref {
	bool valid;
	struct op_id op;
	uint64_t lamport;
	struct node_id parent;		/* a node, NODE_ROOT or NODE_TRASH */
	const uint8_t *name;
	size_t name_length;
	const char *root;
};

struct state_finish_node {
	/* In: */
	struct node_id id;
	enum node_kind kind;
	struct state_place_ref place;	/* the PLACE in effect after §4.1 */
	struct state_place_ref visible;	/* last applied PLACE outside the trash */
	uint32_t content_head_count;
	/* Out: the PLACE in effect after revives (its name and root are the
	 * node's), where it is shown, whether it is live, its shown name. */
	struct state_place_ref effective;
	struct node_id shown_parent;
	bool live;
	const uint8_t *shown_name;
	size_t shown_name_length;
};

/* Applies the finishing rules to every node (any order; the array is
 * sorted by id on return). Conflicts of kinds revived, edit-revived, name
 * and the revive-made cycle are appended to *conflicts (malloc'd array,
 * its op lists in arena), sorted by (kind, node, first op); shown names of
 * clash losers live in arena. */
void state_finish(struct state_finish_node *nodes, size_t count, struct arena *arena,
    struct state_conflict **conflicts, size_t *conflict_count);
/* Order of two places' ops in the total order. */
int state_place_compare(const struct state_place_ref *a, const struct state_place_ref *b);

#endif
