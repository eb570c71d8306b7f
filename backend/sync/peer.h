/* Sync peers as the store remembers them (the peer table, docs/DESIGN.md §8):
 * what the last sync with each did, for `hearth peers` and the Sync view.
 * Written by the syncing side only, under the Home's write lock. */
#ifndef HEARTH_BACKEND_PEER_H
#define HEARTH_BACKEND_PEER_H

#include <stdint.h>

#include "backend/disk/home.h"

/* One sync's outcome. error NULL: it succeeded. The ahead counts and the
 * replica are kept when known (replica NULL: not reached). */
struct peer_outcome {
	const char *name;
	const char *url;
	const struct replica_id *replica;
	const char *error;
	uint64_t ops_sent, ops_received, bytes_sent, bytes_received;
	uint64_t local_ahead, remote_ahead;
	bool ahead_known;
};

/* Saves it in its own small transaction; the caller holds the lock. */
int peer_record(struct hearth *home, const struct peer_outcome *outcome,
    struct hearth_error *error);

#endif
