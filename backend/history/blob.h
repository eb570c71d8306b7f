/* Content in the store: writing files' bytes into this command's pack and
 * indexing their chunks, and reading a blob back, chunk by chunk, with
 * every chunk's hash checked. */
#ifndef HEARTH_BACKEND_BLOB_H
#define HEARTH_BACKEND_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/store/content.h"
#include "backend/disk/home.h"
#include "backend/disk/meter.h"
#include "model/buffer.h"

/* One per writing command, used inside its transaction. */
struct blob_writer {
	struct hearth *home;
	struct pack_writer *pack;
	uint64_t bytes_stored;		/* content bytes offered */
	uint64_t bytes_new;		/* of which new to the store (written) */
	uint64_t chunks_written;
	struct hearth_error *error;	/* where sink failures are reported */
	/* The caller's progress, NULL for none: blob_store_fd counts each
	 * chunk's bytes there as it is read, and stops between chunks when
	 * the caller cancels (HEARTH_CANCELLED). */
	struct meter *meter;
	bool cancelled;
};

void blob_writer_begin(struct hearth *home, struct blob_writer *writer);
/* previous: the node's content before (NULL for none), whose chunks the
 * new ones may be stored as deltas against. */
int blob_store_fd(struct blob_writer *writer, int fd, const struct hash *previous,
    struct content_result *out, struct hearth_error *error);
int blob_store_bytes(struct blob_writer *writer, const void *data, size_t length,
    struct content_result *out, struct hearth_error *error);
/* Seals the pack (synced unless durability is none); call before COMMIT. */
int blob_writer_finish(struct blob_writer *writer, struct hearth_error *error);
/* Removes what this writer wrote; call when the transaction rolls back. */
void blob_writer_abort(struct blob_writer *writer);

/* Where a blob's first chunk lies in the packs, looked up once: writers of
 * many files (checkout, export) sort by it so each pack frame is read and
 * decompressed once, then write each blob from it without a second lookup. */
struct blob_place {
	struct pack_location first;
	bool found;		/* the store holds the first chunk */
	bool single;		/* the blob is that one chunk */
};
void blob_locate(struct hearth *home, const struct hash *blob, struct blob_place *out);
/* Orders places as the packs hold them (pack, frame, offset); not found last. */
int blob_place_compare(const struct blob_place *a, const struct blob_place *b);

/* Writes a blob's bytes to fd through the I/O seam. */
int blob_write_to_fd(struct hearth *home, const struct hash *blob, int fd,
    struct hearth_error *error);
/* The same into a new, empty regular file, from a place blob_locate found
 * (NULL: look it up), leaving its blocks of zeros as holes: a sparse file
 * stays sparse (checkout, export). meter (or NULL) counts each chunk's
 * bytes as written and stops between chunks when the caller cancels
 * (HEARTH_CANCELLED). writeback: the command flushes what it wrote at its
 * end, so the file's pages are handed to the disk as they pile up. */
int blob_write_sparse_placed(struct hearth *home, const struct hash *blob,
    const struct blob_place *place, int fd, struct meter *meter, bool writeback,
    struct hearth_error *error);
/* A new, empty regular file written from its start, its blocks of zeros
 * left as holes (the file is new, so a hole reads as zeros): what
 * blob_write_sparse_placed writes with, and a clone's prefill (prefill.h)
 * as its bytes arrive. writeback: the pages are handed to the disk every
 * few MiB, as the command flushes at its end. */
struct blob_sparse_file {
	int fd;
	bool writeback;
	struct hearth_error *error;
	uint64_t offset;	/* of the next byte; start at zero */
	bool ends_in_hole;
	uint64_t writeback_from;
};
int blob_sparse_append(struct blob_sparse_file *file, const uint8_t *data, size_t length);
/* Extends a file that ends in a hole to its size. */
int blob_sparse_end(struct blob_sparse_file *file);
/* Reads up to max bytes of a blob into out; *truncated when there was more. */
int blob_read(struct hearth *home, const struct hash *blob, size_t max, struct buffer *out,
    bool *truncated, struct hearth_error *error);
bool blob_is_stored(struct hearth *home, const struct hash *blob);

/* ---- the rows of packs written elsewhere (fsck --repair, gc) ---------------------- */

/* As a pack_sink's started, sealed, and stored where a chunk's row moves
 * to its new copy (replacing the row it had). */
int blob_pack_started(struct hearth *home, const char *file_name, int64_t *pack_number);
int blob_pack_sealed(struct hearth *home, int64_t pack_number, uint64_t size,
    uint64_t chunk_count);
int blob_chunk_moved(struct hearth *home, const struct hash *chunk,
    const struct pack_location *where);

/* ---- chunks by id, for sync ------------------------------------------------------ */

/* Where the store keeps a chunk (its length too): 1 found, 0 not held. */
int blob_chunk_find(struct hearth *home, const struct hash *chunk, struct pack_location *out);
/* The content figures of hearth_stats: chunks, blobs, packs, their bytes,
 * the deltas and their depths. */
void blob_stats(struct hearth *home, struct hearth_stats *out);
/* Visits every multi-chunk content with its chunk list (count ids of
 * HASH_BYTES each) until visit returns nonzero, which comes back. */
int blob_each(struct hearth *home,
    int (*visit)(void *context, const struct hash *blob, const uint8_t *chunks, size_t count),
    void *context);
/* A multi-chunk blob's size and chunk list (appended to chunks, HASH_BYTES
 * each): 1 found, 0 when the store keeps no list for it (a one-chunk blob,
 * whose only chunk is the blob, or a blob it does not hold). */
int blob_chunk_list(struct hearth *home, const struct hash *blob, uint64_t *size,
    struct buffer *chunks);
/* Stores a chunk that arrived with its id, after checking the bytes hash to
 * it (HEARTH_DAMAGED when they do not); as a delta against base where that
 * pays, when base is not NULL; as the peer's pack stored it, when stored is
 * not NULL (pack_writer_add_stored). */
int blob_store_chunk(struct blob_writer *writer, const struct hash *chunk, const void *data,
    size_t length, const struct pack_base *base, const struct pack_stored *stored,
    struct hearth_error *error);
/* Records a multi-chunk blob's chunk list (kept as is when already known). */
int blob_add_chunk_list(struct hearth *home, const struct hash *blob, uint64_t size,
    const struct hash *chunks, size_t count, struct hearth_error *error);

#endif
