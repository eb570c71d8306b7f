/* The parts of sync (sync.c) other backend modules use; the protocol
 * itself is behind hearth_sync and hearth_serve (hearth.h). */
#ifndef HEARTH_BACKEND_SYNC_H
#define HEARTH_BACKEND_SYNC_H

#include <stdint.h>

#include "backend/disk/home.h"
#include "backend/sync/transport.h"
#include "model/id.h"

/* Who a peer is, as its HELLO says. */
struct sync_identity {
	uint8_t home[ID_BYTES];
	struct replica_id replica;
	char software[65];
	uint32_t protocol;
};

/* Asks the peer at url (a path or an ssh:// URL) whose Home it serves,
 * without a Home of our own: what clone needs before it can make the new
 * replica's store. program and command as for transport_open (NULL: this
 * program; the defaults, or HEARTH_SSH and HEARTH_REMOTE_COMMAND).
 * Changes nothing on either side. */
int sync_probe(const char *url, const char *program, const struct transport_command *command,
    struct sync_identity *out, struct hearth_error *error);

/* What sync_fetch hands its caller, per chunk asked for, in the order
 * asked: take for one the peer sent (its bytes already hash to its id),
 * lacked for one it could not give (why: the peer's words). take returns
 * 0, or a hearth code to stop. */
struct sync_fetch_sink {
	int (*take)(void *context, const struct hash *chunk, const uint8_t *data, size_t length,
	    struct hearth_error *error);
	void (*lacked)(void *context, const struct hash *chunk, const char *why);
	void *context;
};

/* Fetches chunks by id from peer (as for hearth_sync: a config name, a
 * path or an ssh:// URL) with protocol 2's WIRE_FETCH: what fsck --repair
 * uses. Changes nothing on either side by itself; the caller stores what
 * take gets. program as for hearth_sync. peer_name gets how the peer is
 * named (at least 4096 bytes). */
int sync_fetch(struct hearth *home, const char *peer, const char *program,
    const struct hash *chunks, size_t count, const struct sync_fetch_sink *sink,
    const struct hearth_progress *progress, char *peer_name, struct hearth_error *error);

/* What sync_fetch_ops hands its caller: each op the peer sent, in total
 * order, as its bytes (not yet checked against anything). take returns 0,
 * or a hearth code to stop. */
struct sync_op_sink {
	int (*take)(void *context, const uint8_t *body, size_t length, struct hearth_error *error);
	void *context;
};

/* Fetches from peer again the ops above from (this replica's vector with
 * some counters lowered, entries at 0 left out), this replica's own
 * included, with protocol 3's WIRE_REFETCH: what fsck --repair uses for a
 * damaged op. The peer first proves it holds the same ops up to from (the
 * HELLO chains). Changes nothing on either side by itself. */
int sync_fetch_ops(struct hearth *home, const char *peer, const char *program, const struct vv *from,
    const struct sync_op_sink *sink, char *peer_name, struct hearth_error *error);

#endif
