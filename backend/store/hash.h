/* SHA-256 through OpenSSL's libcrypto (SHA-NI where the CPU has it): content
 * ids, chunk ids and version ids. */
#ifndef HEARTH_BACKEND_HASH_H
#define HEARTH_BACKEND_HASH_H

#include <stddef.h>

#include "model/id.h"

struct hash_state;

struct hash_state *hash_begin(void);	/* aborts on allocation failure */
void hash_update(struct hash_state *state, const void *data, size_t length);
/* Writes the digest and frees the state. */
void hash_finish(struct hash_state *state, struct hash *out);
void hash_bytes(const void *data, size_t length, struct hash *out);
/* For many small digests in a row: hash_digest writes the digest and
 * keeps the state, hash_restart begins the next, hash_free ends it. A
 * context made once costs a tenth of one made per digest. */
void hash_digest(struct hash_state *state, struct hash *out);
void hash_restart(struct hash_state *state);
void hash_free(struct hash_state *state);

#endif
