/* Content in the store: writing files' bytes into this command's pack and
 * indexing their chunks, and reading a blob back, chunk by chunk, with
 * every chunk's hash checked. */
#ifndef HEARTH_BACKEND_BLOB_H
#define HEARTH_BACKEND_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/content.h"
#include "backend/home.h"
#include "model/buffer.h"

/* One per writing command, used inside its transaction. */
struct blob_writer {
	struct hearth *home;
	struct pack_writer *pack;
	uint64_t bytes_stored;		/* content bytes offered */
	uint64_t bytes_new;		/* of which new to the store (written) */
	uint64_t chunks_written;
	struct hearth_error *error;	/* where sink failures are reported */
};

void blob_writer_begin(struct hearth *home, struct blob_writer *writer);
int blob_store_fd(struct blob_writer *writer, int fd, struct content_result *out,
    struct hearth_error *error);
int blob_store_bytes(struct blob_writer *writer, const void *data, size_t length,
    struct content_result *out, struct hearth_error *error);
/* Seals the pack (synced unless durability is none); call before COMMIT. */
int blob_writer_finish(struct blob_writer *writer, struct hearth_error *error);
/* Removes what this writer wrote; call when the transaction rolls back. */
void blob_writer_abort(struct blob_writer *writer);

/* Writes a blob's bytes to fd through the I/O seam. */
int blob_write_to_fd(struct hearth *home, const struct hash *blob, int fd,
    struct hearth_error *error);
/* Reads up to max bytes of a blob into out; *truncated when there was more. */
int blob_read(struct hearth *home, const struct hash *blob, size_t max, struct buffer *out,
    bool *truncated, struct hearth_error *error);
bool blob_is_stored(struct hearth *home, const struct hash *blob);

#endif
