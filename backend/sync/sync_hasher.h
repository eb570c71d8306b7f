/* The whole hash of blobs whose chunks arrive one after the other, taken
 * on a thread of its own while the receiving thread decodes and hashes
 * the next chunks (docs/DESIGN.md §8): a blob's bytes are hashed twice on
 * arrival, as chunks and as the blob, and the two passes now run on two
 * cores. */
#ifndef HEARTH_BACKEND_SYNC_HASHER_H
#define HEARTH_BACKEND_SYNC_HASHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/id.h"

struct sync_hasher;

/* A hasher for blobs numbered 0 to count - 1; its thread starts at the
 * first bytes. NULL when count is 0: nothing to hash. */
struct sync_hasher *sync_hasher_new(size_t count);
/* The next part of blob number: its bytes are copied, so the caller's may
 * change at once. first starts the blob; last ends it, and the blob's
 * whole hash is held against expected. Waits while the thread is behind
 * by a few parts. */
void sync_hasher_add(struct sync_hasher *hasher, size_t number, bool first, bool last,
    const struct hash *expected, const uint8_t *data, size_t length);
/* Waits until every part added is hashed. */
void sync_hasher_drain(struct sync_hasher *hasher);
/* After a drain: whether blob number was ended with its expected hash. */
bool sync_hasher_matched(const struct sync_hasher *hasher, size_t number);
/* Stops the thread (a blob left unended is dropped) and frees it all. */
void sync_hasher_free(struct sync_hasher *hasher);

#endif
