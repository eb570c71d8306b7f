/* The history (docs/DESIGN.md §3): versions are COMMIT ops, ordered totally; their
 * ids are the SHA-256 of the op's encoding, shown as the shortest
 * unambiguous prefix of at least 8 hex digits. Also where the working tree
 * stands: the version vector it was last recorded or checked out at. */
#ifndef HEARTH_BACKEND_HISTORY_H
#define HEARTH_BACKEND_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/home.h"
#include "model/buffer.h"
#include "model/id.h"
#include "model/op.h"

/* A version as the store keeps it. */
struct history_version {
	struct hash id;
	int64_t replica_number;
	uint64_t counter;		/* of its COMMIT op */
	uint64_t previous;		/* counter of the replica's COMMIT before it, 0 if none */
	struct vv vv;			/* the state it names (owned; free with vv_free) */
};

/* Adds the row for a COMMIT op just stored (encoded is its encoding);
 * writes the new id's hex to id_hex. */
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
void history_version_free(struct history_version *version);

/* The newest version's hex id, or "" when there is none. */
void history_head_id(struct hearth *home, char out[HASH_HEX]);

#endif
