/* Write-once pack files (docs/DESIGN.md §5): chunks appended by one writer, grouped
 * into zstd frames of at least 64 KiB (stored raw when compression does not
 * shrink them), one pack per command, sealed at PACK_SEAL_SIZE and never
 * appended to afterwards. SQLite holds the index; each pack also ends with
 * its own index so a store can be rebuilt or repaired from packs alone.
 *
 * File layout (all integers big-endian):
 *   header  "HRTHPACK" u32 version(1 or 2) u32 zero                 16 bytes
 *   frame   u8 codec(0 raw, 1 zstd, 2 delta) u8 zero[3] u32 stored_length
 *           u32 raw_length u32 crc32c(stored bytes)  then stored bytes
 *   ...
 *   index   "HRTHINDX" u32 count, count x (hash[32] u64 frame_offset
 *           u32 offset_in_frame u32 length)
 *   footer  u64 index_offset u32 crc32c(index) "HRTHSEAL"           20 bytes
 * A chunk never spans frames; a chunk larger than the frame target gets a
 * frame of its own. A delta frame (version 2 packs) holds one chunk: its
 * stored bytes are the base chunk's id[32], then a zstd frame made with the
 * base chunk's bytes as its prefix. */
#ifndef HEARTH_BACKEND_PACK_H
#define HEARTH_BACKEND_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/hearth.h"
#include "model/buffer.h"
#include "model/id.h"

#define PACK_SEAL_SIZE (1024ull * 1024 * 1024)
#define PACK_FRAME_TARGET (256u * 1024)	/* small chunks gather up to this */
#define PACK_FRAME_MIN (64u * 1024)
#define PACK_VERSION 2
/* A chunk stored as a delta is this many deltas from a full chunk at most
 * when written here; a read refuses chains longer than PACK_DELTA_READ_MAX
 * (a loop, or a hostile pack). */
#define PACK_DELTA_DEPTH_MAX 16
#define PACK_DELTA_READ_MAX 64

/* A chunk as the pack it came from stores it alone in a frame (sync
 * protocol 5): bytes a zstd frame of the chunk, or NULL when the chunk is
 * stored raw there because it did not shrink. The receiver keeps the frame
 * rather than compress the chunk again, or try to. */
struct pack_stored {
	const uint8_t *bytes;
	size_t length;
};

struct pack_location {
	int64_t pack;			/* the store's number for the pack file */
	uint64_t frame_offset;		/* where the frame header starts */
	uint32_t offset_in_frame;	/* in the frame's raw (decompressed) bytes */
	uint32_t length;
	uint32_t depth;			/* deltas to a full chunk; 0 when stored whole */
};

/* A chunk a new one may be stored as a delta against: its bytes (the
 * caller's, read only during pack_writer_add_delta) and its own depth. */
struct pack_base {
	struct hash id;
	const uint8_t *data;
	size_t length;
	uint32_t depth;
};

/* What the writer tells its owner (the store), in this order per pack:
 * started once, stored once per chunk in chunk id order when the pack is
 * complete (and synced, when syncing), then sealed once. Returning
 * nonzero from any stops the writer with that error. */
struct pack_sink {
	int (*started)(void *context, const char *file_name, int64_t *pack_number);
	int (*stored)(void *context, const struct hash *chunk, const struct pack_location *where);
	int (*sealed)(void *context, int64_t pack_number, uint64_t size, uint64_t chunk_count);
	void *context;
};

struct pack_writer;

/* sync: fsync each pack as it is sealed, and the folder once at finish. */
struct pack_writer *pack_writer_new(int packs_dir_fd, const char *packs_path, bool sync,
    const struct pack_sink *sink);
/* Adds a chunk unless this writer already holds it. length <= CHUNK_MAX. */
int pack_writer_add(struct pack_writer *writer, const struct hash *chunk, const uint8_t *data,
    size_t length, struct hearth_error *error);
/* The same, offering base: the chunk is stored as a delta against it when
 * that is much smaller than the chunk compressed alone (and decodes back to
 * the same bytes), else whole. base->depth < PACK_DELTA_DEPTH_MAX. */
int pack_writer_add_delta(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_base *base, struct hearth_error *error);
/* The same, keeping the chunk as another pack stored it (the caller has
 * decoded stored->bytes to data and checked its hash): a chunk under
 * PACK_FRAME_MIN, or a "compressed" frame no shorter than the chunk, is
 * added as pack_writer_add adds it. */
int pack_writer_add_stored(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_stored *stored,
    struct hearth_error *error);
/* The same chunk compressed here, but stored as rival's zstd frame when
 * that is smaller (a full gc at its own level beside the frame a record
 * or a peer made); a rival with no zstd frame, or none shorter than the
 * chunk, changes nothing. */
int pack_writer_add_rival(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_stored *rival,
    struct hearth_error *error);
bool pack_writer_holds(const struct pack_writer *writer, const struct hash *chunk);
/* Flushes the last frame, writes index and footer, syncs, seals. A writer
 * that added nothing leaves no file. */
int pack_writer_finish(struct pack_writer *writer, struct hearth_error *error);
/* Removes every pack this writer made that the owner has not committed:
 * used when the command fails before its transaction commits. */
void pack_writer_abort(struct pack_writer *writer);
void pack_writer_free(struct pack_writer *writer);
/* Bytes written to pack files by this writer (headers included). */
uint64_t pack_writer_bytes(const struct pack_writer *writer);
/* Settings, each before the first add. The seal size (default
 * PACK_SEAL_SIZE) is small in tests; the zstd level (default 1) and the
 * number of compressing threads (default 2, or 1 on a one-CPU machine; 0
 * compresses on the caller's thread) are for benchmarks. */
void pack_writer_set_seal_size(struct pack_writer *writer, uint64_t seal_size);
void pack_writer_set_level(struct pack_writer *writer, int level);
/* The zstd level of deltas (default DELTA_LEVEL, store/delta.h). */
void pack_writer_set_delta_level(struct pack_writer *writer, int level);
void pack_writer_set_threads(struct pack_writer *writer, int threads);

struct pack_reader;

/* file_name returns the pack's file name for its number (from the store). */
struct pack_reader *pack_reader_new(int packs_dir_fd, const char *packs_path,
    int (*file_name)(void *context, int64_t pack, char *out, size_t out_size), void *context);
/* Where the store keeps a chunk (a delta's base): 0 found, else not held. */
typedef int (*pack_locate_fn)(void *context, const struct hash *chunk,
    struct pack_location *out);
/* Lets the reader follow delta frames to their bases (same context as
 * file_name); without it a delta frame reads as an error. */
void pack_reader_set_locate(struct pack_reader *reader, pack_locate_fn locate);
/* Reads one chunk, checks its SHA-256, and appends it to out. A mismatch or
 * a damaged frame is an error naming the pack file and the offset. A
 * chunk this process wrote at where (pack_reader_trust) has its frame's
 * CRC checked but is not hashed again: each byte is hashed once. */
int pack_read(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where, struct buffer *out, struct hearth_error *error);
/* pack_read without the SHA-256, the frame's CRC still checked: for bytes
 * on their way to a peer, which hashes each chunk as it arrives and refuses
 * one that does not match, so each byte is hashed once on its way. */
int pack_read_for_peer(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where, struct buffer *out, struct hearth_error *error);
/* The chunk at where as its pack stores it, when it lies alone in a
 * frame stored whole: its stored bytes appended to out, the frame's CRC
 * checked, and *compressed set when they are a zstd frame (else they are
 * the chunk's raw bytes). Returns 1 when so, 0 when the chunk shares its
 * frame or is a delta (pack_read_for_peer reads it), -1 on damage. The
 * chunk's hash is not checked: the peer checks it. */
int pack_read_stored(struct pack_reader *reader, const struct pack_location *where,
    struct buffer *out, bool *compressed, struct hearth_error *error);
/* Remembers that this process hashed chunk's bytes and wrote them at
 * where (a pack writer's sink learns it), for pack_read. Only chunks of
 * PACK_FRAME_MIN or more, and a bounded number of them. */
void pack_reader_trust(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where);
/* Chunks pack_read has hashed so far: a test sees that a trusted one is not. */
uint64_t pack_reader_chunks_hashed(const struct pack_reader *reader);
/* Whether the chunk at where is stored as a delta: 1 with its base's id in
 * *base, 0 when whole, -1 when its frame header cannot be read. */
int pack_delta_base(struct pack_reader *reader, const struct pack_location *where,
    struct hash *base, struct hearth_error *error);
void pack_reader_free(struct pack_reader *reader);
/* Frames read and checked so far (each decompressed once per load): a
 * test sees that a tree is written in pack order. */
uint64_t pack_reader_frames_loaded(const struct pack_reader *reader);

/* Walks a sealed pack's own index (fsck, repair): calls visit per chunk.
 * Checks header, footer and index checksums first. */
int pack_scan_index(int packs_dir_fd, const char *file_name,
    int (*visit)(void *context, const struct hash *chunk, uint64_t frame_offset,
        uint32_t offset_in_frame, uint32_t length),
    void *context, struct hearth_error *error);

/* CRC-32C (Castagnoli) as frames and the index use it: pass 0 to start, or
 * a previous result to continue over more bytes. */
uint32_t pack_crc32c(uint32_t crc, const void *data, size_t length);
/* The same in portable C (what pack_crc32c falls back to), and whether
 * pack_crc32c uses the CPU's CRC32C instruction: the unit test holds the
 * two equal. */
uint32_t pack_crc32c_portable(uint32_t crc, const void *data, size_t length);
bool pack_crc32c_uses_hardware(void);

#endif
