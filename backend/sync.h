/* The parts of sync (sync.c) other backend modules use; the protocol
 * itself is behind hearth_sync and hearth_serve (hearth.h). */
#ifndef HEARTH_BACKEND_SYNC_H
#define HEARTH_BACKEND_SYNC_H

#include <stdint.h>

#include "backend/home.h"
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
 * replica's store. program and ssh_command as for transport_open (NULL:
 * this program; the default ssh, or HEARTH_SSH). Changes nothing on
 * either side. */
int sync_probe(const char *url, const char *program, const char *ssh_command,
    struct sync_identity *out, struct hearth_error *error);

#endif
