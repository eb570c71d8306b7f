/* Streams a file's bytes through the chunker into a pack, hashing the whole
 * (the blob id) and each chunk (the chunk ids) on the way, so memory stays
 * bounded (about 2 x CHUNK_MAX) whatever the file's size. */
#ifndef HEARTH_BACKEND_CONTENT_H
#define HEARTH_BACKEND_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/hearth.h"
#include "backend/store/pack.h"
#include "model/id.h"

struct content_result {
	struct hash blob;	/* SHA-256 of all the bytes */
	uint64_t size;
	size_t chunk_count;	/* 1 for files up to CHUNK_MIN */
	struct hash *chunks;	/* malloc'd; chunks[0] == blob when chunk_count == 1 */
};

/* Called for every chunk cut, with its length (a caller's progress goes
 * with it): 1 when the store already holds it (held chunks are not
 * written), 0 when not, negative to stop the store there (it fails). */
typedef int (*content_known_fn)(void *context, const struct hash *chunk, size_t length);

/* Offers a base for the chunk at index (in the file) that the store lacks:
 * 1 with *base filled (its bytes valid until the next call), 0 for none. */
typedef int (*content_base_fn)(void *context, size_t index, struct pack_base *base);

/* Reads fd to its end. */
int content_store_fd(struct pack_writer *writer, int fd, content_known_fn known, void *context,
    struct content_result *out, struct hearth_error *error);
/* The same, storing each new chunk as a delta against what base offers
 * where that pays (the file's previous version). */
int content_store_fd_based(struct pack_writer *writer, int fd, content_known_fn known,
    content_base_fn base, void *context, struct content_result *out, struct hearth_error *error);
/* The same for bytes in memory (symlink targets, tests). */
int content_store_bytes(struct pack_writer *writer, const void *data, size_t length,
    content_known_fn known, void *context, struct content_result *out,
    struct hearth_error *error);
/* Hashes fd's bytes (the blob id) without storing them. */
int content_hash_fd(int fd, struct hash *out, uint64_t *size, struct hearth_error *error);
void content_result_free(struct content_result *result);

#endif
