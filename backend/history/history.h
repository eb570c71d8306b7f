/* The history (docs/DESIGN.md §3): versions are COMMIT ops, ordered totally; their
 * ids are the SHA-256 of the op's encoding, shown as the shortest
 * unambiguous prefix of at least 8 hex digits. Also where the working tree
 * stands: the version vector it was last recorded or checked out at. */
#ifndef HEARTH_BACKEND_HISTORY_H
#define HEARTH_BACKEND_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/buffer.h"
#include "model/id.h"
#include "model/op.h"

/* A version as the store keeps it, or the unnamed head state (unnamed:
 * id all zero, vv the head's, replica_number 0; see history_head). */
struct history_version {
	bool unnamed;
	struct hash id;
	int64_t replica_number;
	uint64_t counter;		/* of its COMMIT op */
	uint64_t previous;		/* counter of the replica's COMMIT before it, 0 if none */
	struct vv vv;			/* the state it names (owned; free with vv_free) */
};

/* Adds the row for a COMMIT op just stored (encoded is its encoding);
 * writes the new id's hex to id_hex. */
/* fsck --repair: every version row goes, to be made again from the COMMITs. */
int history_forget_versions(struct hearth *home);
/* The versions that recorded an op about node (each its replica's first
 * COMMIT at or after the op), appended to *ids (grown with array_grow from
 * *capacity), each once; ops past the newest version name none. */
void history_versions_of_node(struct hearth *home, struct node_id node, struct hash **ids,
    size_t *count, size_t *capacity);
int history_add_version(struct hearth *home, const struct op *commit, const struct buffer *encoded,
    char id_hex[HASH_HEX], struct hearth_error *error);

/* Records where the working tree stands. */
int history_set_tree(struct hearth *home, const struct vv *vv, const char *version_hex,
    struct hearth_error *error);
/* The tree's version vector and the version it was last at ("" if none). */
int history_get_tree(struct hearth *home, struct vv *vv, char version_hex[HASH_HEX]);

void history_short_id(struct hearth *home, const char *full_hex, char out[HASH_HEX]);

/* Resolves head, head~N, an id or a prefix (HEARTH_USAGE when there is no
 * such version or more than one). */
int history_resolve(struct hearth *home, const char *spec, struct history_version *out,
    struct hearth_error *error);
/* The version whose COMMIT is op (replica, counter). */
int history_version_of_op(struct hearth *home, struct replica_id replica, uint64_t counter,
    struct history_version *out, struct hearth_error *error);
void history_version_free(struct history_version *version);

/* A version's row as stored, with the bytes of the COMMIT it names (a
 * join on the op table): what fsck checks one against the other. Pointers
 * are valid during the visit only. */
struct history_version_row {
	const void *id;
	size_t id_length;
	int64_t replica_number;
	uint64_t counter, lamport;
	const void *replica_id;
	size_t replica_id_length;
	int64_t time, utc_offset;
	const char *author, *message;	/* NULL when the column is */
	size_t author_length, message_length;
	uint64_t previous, changes;
	const void *commit;		/* NULL: the op table has no such COMMIT */
	size_t commit_length;
};
/* Every version row, by replica and counter, or (newest_first) in the
 * total order from the newest; stops at the first non-zero visit. */
int history_version_rows_each(struct hearth *home, bool newest_first,
    int (*visit)(void *context, const struct history_version_row *row), void *context);
/* Whether the COMMIT (replica number, counter) has its version row. */
bool history_has_version(struct hearth *home, int64_t replica_number, uint64_t counter);

/* The node at path in head (in_head) or in the working-tree index, found
 * name by name from the top through the table's index on (folder, name),
 * not by loading a whole tree (listing.c): 1 with its id and kind, 0 none.
 * "" is the top folder. */
int history_node_at(struct hearth *home, bool in_head, const char *path, struct node_id *node,
    enum node_kind *kind);
/* hearth_log of query->path (file_history.c). */
int history_log_path(struct hearth *home, const struct hearth_log_query *query,
    struct hearth_version_list *out, struct hearth_error *error);
/* The same, with whole_trees each version's whole trees rather than the
 * path's scope (path_scope.h): what the tests hold the scope to. */
int history_log_path_by(struct hearth *home, const struct hearth_log_query *query,
    bool whole_trees, struct hearth_version_list *out, struct hearth_error *error);

/* hearth_show, with whole_trees from the version's whole trees rather
 * than the scope of what it changed (path_scope.h): what the tests hold
 * the scope to. */
int history_show_by(struct hearth *home, const char *version, const char *path, bool whole_trees,
    struct hearth_change_list *out, struct hearth_error *error);

/* The newest version's hex id in total order (the one a record or a merge
 * made last), or "" when there is none. */
void history_head_id(struct hearth *home, char out[HASH_HEX]);
/* The version an unnamed head state is shown past, and that head~1 names:
 * the first log lists (newest by time), or "" when there is none. */
void history_head_base(struct hearth *home, char out[HASH_HEX]);
uint64_t history_version_count(struct hearth *home);
/* Who recorded an op and when: the author and time of its replica's first
 * version at or after it. 1 found, 0 when no version holds it yet (author
 * set to ""). */
int history_author_of_op(struct hearth *home, struct op_id op, char *author, size_t size,
    int64_t *time);

/* Whether vv holds the head state: every op this store has that changes a
 * tree. COMMIT ops change none, so a vv that lacks only other replicas'
 * COMMITs (a merge version made elsewhere, say) still holds it. */
bool history_covers_head(struct hearth *home, const struct vv *vv);
/* Whether the working tree holds every op of head (checked out or
 * recorded since the last op came in); false when its place is unreadable. */
bool history_tree_at_head(struct hearth *home);

/* What "head" names (hearth(1), VERSIONS). Sync records a merge version
 * whenever what it took in leaves no version naming the head state, so
 * head is the newest version; a Home made by an older build, or one a
 * peer pushed into, can hold ops past its newest version, and then head
 * is that unnamed state, with head~1 the newest version. */
struct history_head {
	char version[HASH_HEX];		/* the newest version, "" when none */
	bool named;			/* it holds the head state (or nothing is held) */
	uint64_t unnamed_ops;		/* when not named: ops held past it */
};
void history_head(struct hearth *home, struct history_head *out);

#endif
