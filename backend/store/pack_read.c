/* The pack reader, which verifies and caches frames, and the walk of a
 * pack's own index that fsck uses (layout in pack.h). */
#include "backend/store/pack.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "backend/io/fail.h"
#include "backend/store/delta.h"
#include "backend/store/hash.h"
#include "backend/store/pack_format.h"
#include "model/array.h"

/* ---- reading ----------------------------------------------------------------- */

/* Both caches are tiny: reads come in file order, so one file's frames are
 * used back to back, and a frame holds up to 4 MiB once decompressed. */
#define PACK_READER_FILES 8
#define PACK_READER_FRAMES 4
#define PACK_READER_NAME_SIZE 256
/* Chunks written and hashed by this process, remembered with where they
 * were written: only frame-sized ones (hashing a small chunk again costs
 * little beside writing its file), and at most this many (64 GiB of
 * chunks in a table of at most 8 MiB). */
#define PACK_READER_TRUST_MAX 65536

struct pack_open_file {
	int64_t pack;
	int fd;				/* -1 when the slot is free */
	uint64_t size;
	uint64_t last_use;
	char name[PACK_READER_NAME_SIZE];
};

struct pack_cached_frame {
	int64_t pack;
	uint64_t frame_offset;
	uint8_t *bytes;			/* raw bytes */
	size_t capacity;
	uint32_t raw_length;
	bool valid;
	uint64_t last_use;
};

struct pack_trusted {
	struct hash chunk;
	struct pack_location where;
};

struct pack_reader {
	int dir_fd;
	char *packs_path;
	int (*file_name)(void *context, int64_t pack, char *out, size_t out_size);
	void *context;
	struct pack_open_file files[PACK_READER_FILES];
	struct pack_cached_frame frames[PACK_READER_FRAMES];
	uint8_t *stored;		/* compressed bytes on their way in */
	size_t stored_capacity;
	uint8_t *spare;			/* a frame's buffer while it loads */
	size_t spare_capacity;
	ZSTD_DCtx *decompressor;
	uint64_t clock;
	pack_locate_fn locate;		/* a delta's base, by id */
	unsigned depth;			/* deltas being followed now */
	uint64_t frames_loaded;
	uint64_t chunks_hashed;
	struct pack_trusted *trusted;	/* open addressing; length 0 marks a free slot */
	size_t trusted_count;
	size_t trusted_capacity;	/* a power of two, or 0 */
};

struct pack_reader *
pack_reader_new(int packs_dir_fd, const char *packs_path,
    int (*file_name)(void *context, int64_t pack, char *out, size_t out_size), void *context)
{
	struct pack_reader *reader = array_zeroed(1, sizeof *reader);

	reader->packs_path = array_strdup(packs_path != NULL ? packs_path : ".");
	reader->decompressor = ZSTD_createDCtx();
	if (reader->decompressor == NULL) {
		free(reader->packs_path);
		ZSTD_freeDCtx(reader->decompressor);
		free(reader);
		return NULL;
	}
	reader->dir_fd = packs_dir_fd;
	reader->file_name = file_name;
	reader->context = context;
	for (size_t i = 0; i < PACK_READER_FILES; i++)
		reader->files[i].fd = -1;
	return reader;
}

void
pack_reader_set_locate(struct pack_reader *reader, pack_locate_fn locate)
{
	reader->locate = locate;
}

void
pack_reader_free(struct pack_reader *reader)
{
	if (reader == NULL)
		return;
	for (size_t i = 0; i < PACK_READER_FILES; i++)
		if (reader->files[i].fd >= 0)
			close(reader->files[i].fd);
	for (size_t i = 0; i < PACK_READER_FRAMES; i++)
		free(reader->frames[i].bytes);
	free(reader->stored);
	free(reader->spare);
	free(reader->trusted);
	ZSTD_freeDCtx(reader->decompressor);
	free(reader->packs_path);
	free(reader);
}

/* ---- chunks this process wrote ---- */

static size_t
pack_trust_slot(const struct hash *chunk, size_t capacity)
{
	return (size_t)load_u64be(chunk->bytes) & (capacity - 1);
}

static bool
pack_location_equal(const struct pack_location *a, const struct pack_location *b)
{
	return a->pack == b->pack && a->frame_offset == b->frame_offset &&
	    a->offset_in_frame == b->offset_in_frame && a->length == b->length;
}

/* The slot holding chunk, or the free one where it would go. */
static struct pack_trusted *
pack_trust_find(struct pack_trusted *table, size_t capacity, const struct hash *chunk)
{
	size_t slot = pack_trust_slot(chunk, capacity);

	while (table[slot].where.length != 0 && !hash_equal(&table[slot].chunk, chunk))
		slot = (slot + 1) & (capacity - 1);
	return &table[slot];
}

/* Kept at most half full, so probes stay short. */
static void
pack_trust_grow(struct pack_reader *reader)
{
	size_t capacity = reader->trusted_capacity ? reader->trusted_capacity * 2 : 256;
	struct pack_trusted *table = array_zeroed(capacity, sizeof *table);

	for (size_t i = 0; i < reader->trusted_capacity; i++)
		if (reader->trusted[i].where.length != 0)
			*pack_trust_find(table, capacity, &reader->trusted[i].chunk) =
			    reader->trusted[i];
	free(reader->trusted);
	reader->trusted = table;
	reader->trusted_capacity = capacity;
}

void
pack_reader_trust(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where)
{
	if (reader == NULL || where->length < PACK_FRAME_MIN ||
	    reader->trusted_count >= PACK_READER_TRUST_MAX)
		return;
	if ((reader->trusted_count + 1) * 2 > reader->trusted_capacity)
		pack_trust_grow(reader);
	struct pack_trusted *slot = pack_trust_find(reader->trusted, reader->trusted_capacity,
	    chunk);
	if (slot->where.length == 0)
		reader->trusted_count++;
	*slot = (struct pack_trusted){ .chunk = *chunk, .where = *where };
}

/* Whether this process wrote chunk at where, having hashed its bytes. */
static bool
pack_reader_trusts(const struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where)
{
	if (reader->trusted_capacity == 0)
		return false;
	const struct pack_trusted *slot = pack_trust_find(reader->trusted,
	    reader->trusted_capacity, chunk);
	return slot->where.length != 0 && pack_location_equal(&slot->where, where);
}

uint64_t
pack_reader_chunks_hashed(const struct pack_reader *reader)
{
	return reader->chunks_hashed;
}

/* pread until length bytes or the end; returns the bytes read or -1. */
static ssize_t
pack_read_at(int fd, void *out, size_t length, uint64_t offset)
{
	size_t done = 0;

	while (done < length) {
		ssize_t got = pread(fd, (uint8_t *)out + done, length - done,
		    (off_t)(offset + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

static struct pack_open_file *
pack_reader_file(struct pack_reader *reader, int64_t pack, struct hearth_error *error)
{
	struct pack_open_file *oldest = &reader->files[0];

	for (size_t i = 0; i < PACK_READER_FILES; i++) {
		struct pack_open_file *file = &reader->files[i];
		if (file->fd >= 0 && file->pack == pack) {
			file->last_use = ++reader->clock;
			return file;
		}
		if (file->fd < 0 || (oldest->fd >= 0 && file->last_use < oldest->last_use))
			oldest = file;
	}
	char name[PACK_READER_NAME_SIZE];
	if (reader->file_name == NULL ||
	    reader->file_name(reader->context, pack, name, sizeof name) != 0) {
		hearth_error_put(error, "pack %lld: the store knows no file for it",
		    (long long)pack);
		return NULL;
	}
	int fd = openat(reader->dir_fd, name, O_RDONLY | O_CLOEXEC);
	struct stat status;
	if (fd < 0 || fstat(fd, &status) != 0) {
		hearth_error_put(error, "pack %s: cannot open in %s: %s", name,
		    reader->packs_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (oldest->fd >= 0)
		close(oldest->fd);
	oldest->fd = fd;
	oldest->pack = pack;
	oldest->size = (uint64_t)status.st_size;
	oldest->last_use = ++reader->clock;
	snprintf(oldest->name, sizeof oldest->name, "%s", name);
	return oldest;
}

struct pack_frame_header {
	uint8_t codec;
	uint32_t stored_length;
	uint32_t raw_length;
	uint32_t crc;
};

static int
pack_parse_frame_header(const uint8_t bytes[PACK_FRAME_HEADER_SIZE],
    struct pack_frame_header *out)
{
	out->codec = bytes[0];
	out->stored_length = load_u32be(bytes + 4);
	out->raw_length = load_u32be(bytes + 8);
	out->crc = load_u32be(bytes + 12);
	if (bytes[1] != 0 || bytes[2] != 0 || bytes[3] != 0)
		return -1;
	if (out->raw_length > PACK_FRAME_RAW_MAX)
		return -1;
	if (out->codec == PACK_CODEC_RAW)
		return out->stored_length == out->raw_length ? 0 : -1;
	if (out->codec == PACK_CODEC_ZSTD)
		return out->stored_length < out->raw_length ? 0 : -1;
	/* The writer keeps a delta only within ZSTD_compressBound of the raw
	 * bytes, so a longer claim is damage, refused before any allocation. */
	if (out->codec == PACK_CODEC_DELTA)
		return out->stored_length > HASH_BYTES &&
		    out->stored_length - HASH_BYTES <= ZSTD_COMPRESSBOUND(out->raw_length) ? 0 : -1;
	return -1;
}

/* Whether the file reaches end; the pack being written grows after it was
 * opened here, so a frame past the size seen then asks the file again. */
static bool
pack_file_holds(struct pack_open_file *file, uint64_t end)
{
	struct stat status;

	if (end <= file->size)
		return true;
	if (fstat(file->fd, &status) != 0)
		return false;
	file->size = (uint64_t)status.st_size;
	return end <= file->size;
}

/* Exactly needed, not doubled: a frame's size is bounded (PACK_FRAME_RAW_MAX). */
static void
pack_grow(uint8_t **bytes, size_t *capacity, size_t needed)
{
	if (needed <= *capacity && *bytes != NULL)
		return;
	*bytes = array_resize(*bytes, needed, 1);
	*capacity = needed;
}

/* A delta frame's stored bytes (checked) into slot: its base is read first,
 * through the store's index and this same reader, and the stored bytes are
 * taken from the shared buffer meanwhile, since that read reuses it. */
static int
pack_reader_undelta(struct pack_reader *reader, const char *file_name, uint64_t frame_offset,
    uint32_t stored_length, struct pack_cached_frame *slot, struct hearth_error *error)
{
	char name[PACK_READER_NAME_SIZE];
	unsigned long long at = (unsigned long long)frame_offset;
	struct pack_location where;
	struct hash base_id;
	struct buffer base;
	uint8_t *stored = reader->stored;
	size_t stored_capacity = reader->stored_capacity;
	int status = -1;

	snprintf(name, sizeof name, "%s", file_name);
	memcpy(base_id.bytes, stored, HASH_BYTES);
	if (reader->locate == NULL || reader->locate(reader->context, &base_id, &where) != 0)
		return hearth_error_put(error, "pack %s: frame at offset %llu: the base of "
		    "this delta is not in the store", name, at);
	if (reader->depth >= PACK_DELTA_READ_MAX)
		return hearth_error_put(error, "pack %s: frame at offset %llu: a chain of "
		    "more than %d deltas", name, at, PACK_DELTA_READ_MAX);
	reader->stored = NULL;
	reader->stored_capacity = 0;
	buffer_init(&base);
	reader->depth++;
	status = pack_read(reader, &base_id, &where, &base, error);
	reader->depth--;
	const char *reason = NULL;
	if (status == 0 && !delta_decode(reader->decompressor, base.data, base.length,
		stored + HASH_BYTES, stored_length - HASH_BYTES, slot->bytes, slot->raw_length,
		&reason))
		status = hearth_error_put(error, "pack %s: frame at offset %llu: the delta "
		    "does not decode (%s)", name, at, reason);
	buffer_free(&base);
	free(reader->stored);
	reader->stored = stored;
	reader->stored_capacity = stored_capacity;
	return status;
}

/* A frame's header, read and checked, and the file known to hold its
 * stored bytes. */
static int
pack_frame_header_read(struct pack_open_file *file, uint64_t frame_offset,
    struct pack_frame_header *header, struct hearth_error *error)
{
	const char *name = file->name;
	unsigned long long at = (unsigned long long)frame_offset;
	uint8_t header_bytes[PACK_FRAME_HEADER_SIZE];

	if (frame_offset < PACK_HEADER_SIZE)
		return hearth_error_put(error, "pack %s: frame at offset %llu: inside the "
		    "pack header", name, at);
	ssize_t got = pack_read_at(file->fd, header_bytes, sizeof header_bytes, frame_offset);
	if (got < 0)
		return hearth_error_put(error, "pack %s: frame at offset %llu: %s", name, at,
		    strerror(errno));
	if ((size_t)got < sizeof header_bytes)
		return hearth_error_put(error, "pack %s: frame at offset %llu: truncated "
		    "(the file ends at %llu)", name, at, (unsigned long long)file->size);
	if (pack_parse_frame_header(header_bytes, header) != 0)
		return hearth_error_put(error, "pack %s: frame at offset %llu: bad frame "
		    "header", name, at);
	if (!pack_file_holds(file, frame_offset + PACK_FRAME_HEADER_SIZE + header->stored_length))
		return hearth_error_put(error, "pack %s: frame at offset %llu: truncated "
		    "(the file ends at %llu)", name, at, (unsigned long long)file->size);
	return 0;
}

/* A frame's stored bytes into stored, their CRC checked. */
static int
pack_frame_stored_read(struct pack_open_file *file, uint64_t frame_offset,
    const struct pack_frame_header *header, uint8_t *stored, struct hearth_error *error)
{
	const char *name = file->name;
	unsigned long long at = (unsigned long long)frame_offset;
	ssize_t got = pack_read_at(file->fd, stored, header->stored_length,
	    frame_offset + PACK_FRAME_HEADER_SIZE);

	if (got < 0)
		return hearth_error_put(error, "pack %s: frame at offset %llu: %s", name, at,
		    strerror(errno));
	if ((size_t)got < header->stored_length)
		return hearth_error_put(error, "pack %s: frame at offset %llu: truncated "
		    "(the file ends at %llu)", name, at, (unsigned long long)file->size);
	if (pack_crc32c(0, stored, header->stored_length) != header->crc)
		return hearth_error_put(error, "pack %s: frame at offset %llu: checksum "
		    "mismatch", name, at);
	return 0;
}

/* Reads, checks and decompresses one frame into slot. */
static int
pack_reader_load(struct pack_reader *reader, struct pack_open_file *file,
    uint64_t frame_offset, struct pack_cached_frame *slot, struct hearth_error *error)
{
	const char *name = file->name;
	unsigned long long at = (unsigned long long)frame_offset;
	struct pack_frame_header header;

	if (pack_frame_header_read(file, frame_offset, &header, error) != 0)
		return -1;
	bool raw = header.codec == PACK_CODEC_RAW;
	pack_grow(&slot->bytes, &slot->capacity, header.raw_length);
	if (!raw)
		pack_grow(&reader->stored, &reader->stored_capacity, header.stored_length);
	uint8_t *stored = raw ? slot->bytes : reader->stored;
	if (pack_frame_stored_read(file, frame_offset, &header, stored, error) != 0)
		return -1;
	slot->raw_length = header.raw_length;
	if (header.codec == PACK_CODEC_DELTA)
		return pack_reader_undelta(reader, name, frame_offset, header.stored_length, slot,
		    error);
	if (!raw) {
		size_t length = ZSTD_decompressDCtx(reader->decompressor, slot->bytes,
		    header.raw_length, stored, header.stored_length);
		if (ZSTD_isError(length))
			return hearth_error_put(error, "pack %s: frame at offset %llu: %s",
			    name, at, ZSTD_getErrorName(length));
		if (length != header.raw_length)
			return hearth_error_put(error, "pack %s: frame at offset %llu: "
			    "decompressed to %zu bytes, not %u", name, at, length, header.raw_length);
	}
	return 0;
}

static struct pack_cached_frame *
pack_reader_cached(struct pack_reader *reader, int64_t pack, uint64_t frame_offset)
{
	for (size_t i = 0; i < PACK_READER_FRAMES; i++) {
		struct pack_cached_frame *frame = &reader->frames[i];
		if (frame->valid && frame->pack == pack && frame->frame_offset == frame_offset) {
			frame->last_use = ++reader->clock;
			return frame;
		}
	}
	return NULL;
}

static struct pack_cached_frame *
pack_reader_oldest(struct pack_reader *reader)
{
	struct pack_cached_frame *oldest = &reader->frames[0];

	for (size_t i = 0; i < PACK_READER_FRAMES; i++) {
		struct pack_cached_frame *frame = &reader->frames[i];
		if (!frame->valid || (oldest->valid && frame->last_use < oldest->last_use))
			oldest = frame;
	}
	return oldest;
}

/* A frame loads into the spare buffer and takes a cache slot only once
 * whole: reading a delta's base loads other frames in between. */
static struct pack_cached_frame *
pack_reader_frame(struct pack_reader *reader, struct pack_open_file *file,
    uint64_t frame_offset, struct hearth_error *error)
{
	int64_t pack = file->pack;
	struct pack_cached_frame *slot = pack_reader_cached(reader, pack, frame_offset);

	if (slot != NULL)
		return slot;
	struct pack_cached_frame incoming = { .bytes = reader->spare,
		.capacity = reader->spare_capacity };
	reader->spare = NULL;
	reader->spare_capacity = 0;
	int status = pack_reader_load(reader, file, frame_offset, &incoming, error);
	free(reader->spare);
	if (status != 0) {
		reader->spare = incoming.bytes;
		reader->spare_capacity = incoming.capacity;
		return NULL;
	}
	reader->frames_loaded++;
	slot = pack_reader_oldest(reader);
	reader->spare = slot->bytes;
	reader->spare_capacity = slot->capacity;
	*slot = incoming;
	slot->valid = true;
	slot->pack = pack;
	slot->frame_offset = frame_offset;
	slot->last_use = ++reader->clock;
	return slot;
}

uint64_t
pack_reader_frames_loaded(const struct pack_reader *reader)
{
	return reader->frames_loaded;
}

static bool
chunk_hash_is(const uint8_t *bytes, size_t length, const struct hash *chunk)
{
	struct hash got;
	hash_bytes(bytes, length, &got);
	return hash_equal(&got, chunk);
}

static int
read_chunk(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where, bool hashed, struct buffer *out,
    struct hearth_error *error)
{
	struct pack_open_file *file = pack_reader_file(reader, where->pack, error);

	if (file == NULL)
		return -1;
	struct pack_cached_frame *frame = pack_reader_frame(reader, file, where->frame_offset,
	    error);
	if (frame == NULL)
		return -1;
	/* Following a delta may have given file's slot to another pack. */
	file = pack_reader_file(reader, where->pack, error);
	if (file == NULL)
		return -1;
	unsigned long long at = (unsigned long long)where->frame_offset;
	if ((uint64_t)where->offset_in_frame + where->length > frame->raw_length)
		return hearth_error_put(error, "pack %s: frame at offset %llu: chunk at "
		    "%u+%u lies outside the frame's %u bytes", file->name, at,
		    where->offset_in_frame, where->length, frame->raw_length);
	const uint8_t *bytes = frame->bytes + where->offset_in_frame;
	hashed = hashed && !pack_reader_trusts(reader, chunk, where);
	reader->chunks_hashed += hashed;
	if (hashed && !chunk_hash_is(bytes, where->length, chunk)) {
		char hex[HASH_HEX];
		hash_hex(chunk, hex);
		return hearth_error_put(error, "pack %s: frame at offset %llu: chunk %.16s "
		    "at %u: hash mismatch", file->name, at, hex, where->offset_in_frame);
	}
	buffer_append(out, bytes, where->length);
	return 0;
}

int
pack_read(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where, struct buffer *out, struct hearth_error *error)
{
	return read_chunk(reader, chunk, where, true, out, error);
}

int
pack_read_for_peer(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where, struct buffer *out, struct hearth_error *error)
{
	return read_chunk(reader, chunk, where, false, out, error);
}

int
pack_read_stored(struct pack_reader *reader, const struct pack_location *where,
    struct buffer *out, bool *compressed, struct hearth_error *error)
{
	struct pack_open_file *file = pack_reader_file(reader, where->pack, error);
	struct pack_frame_header header;

	if (file == NULL || pack_frame_header_read(file, where->frame_offset, &header, error) != 0)
		return -1;
	if (header.codec == PACK_CODEC_DELTA || where->offset_in_frame != 0 ||
	    where->length != header.raw_length)
		return 0;
	size_t start = out->length;
	buffer_reserve(out, header.stored_length);
	if (pack_frame_stored_read(file, where->frame_offset, &header, out->data + start,
		error) != 0)
		return -1;
	out->length = start + header.stored_length;
	*compressed = header.codec == PACK_CODEC_ZSTD;
	return 1;
}

int
pack_delta_base(struct pack_reader *reader, const struct pack_location *where,
    struct hash *base, struct hearth_error *error)
{
	struct pack_open_file *file = pack_reader_file(reader, where->pack, error);
	uint8_t bytes[PACK_FRAME_HEADER_SIZE + HASH_BYTES];
	struct pack_frame_header header;

	if (file == NULL)
		return -1;
	ssize_t got = pack_read_at(file->fd, bytes, sizeof bytes, where->frame_offset);
	if (got < PACK_FRAME_HEADER_SIZE || pack_parse_frame_header(bytes, &header) != 0)
		return hearth_error_put(error, "pack %s: frame at offset %llu: bad or "
		    "truncated frame header", file->name, (unsigned long long)where->frame_offset);
	if (header.codec != PACK_CODEC_DELTA)
		return 0;
	if ((size_t)got < sizeof bytes)
		return hearth_error_put(error, "pack %s: frame at offset %llu: truncated",
		    file->name, (unsigned long long)where->frame_offset);
	memcpy(base->bytes, bytes + PACK_FRAME_HEADER_SIZE, HASH_BYTES);
	return 1;
}

/* ---- the pack's own index ------------------------------------------------------ */

#define PACK_SCAN_BLOCK (1024 * PACK_INDEX_ENTRY_SIZE)

struct pack_scan {
	int fd;
	const char *name;
	uint64_t size;
	uint64_t index_offset;
	uint32_t index_crc;
	uint8_t *block;
	struct hearth_error *error;
};

static int
pack_scan_read(struct pack_scan *scan, void *out, size_t length, uint64_t offset,
    const char *what)
{
	ssize_t got = pack_read_at(scan->fd, out, length, offset);

	if (got < 0)
		return hearth_error_put(scan->error, "pack %s: %s at offset %llu: %s",
		    scan->name, what, (unsigned long long)offset, strerror(errno));
	if ((size_t)got < length)
		return hearth_error_put(scan->error, "pack %s: %s at offset %llu: "
		    "truncated", scan->name, what, (unsigned long long)offset);
	return 0;
}

static int
pack_scan_ends(struct pack_scan *scan)
{
	uint8_t header[PACK_HEADER_SIZE];
	uint8_t footer[PACK_FOOTER_SIZE];
	uint64_t footer_offset = scan->size - PACK_FOOTER_SIZE;

	if (pack_scan_read(scan, header, sizeof header, 0, "header") != 0)
		return -1;
	if (memcmp(header, pack_magic, sizeof pack_magic) != 0 || load_u32be(header + 12) != 0)
		return hearth_error_put(scan->error, "pack %s: header at offset 0: "
		    "not a hearth pack", scan->name);
	if (load_u32be(header + 8) < 1 || load_u32be(header + 8) > PACK_VERSION)
		return hearth_error_put(scan->error, "pack %s: header at offset 0: "
		    "unknown version %u", scan->name, load_u32be(header + 8));
	if (pack_scan_read(scan, footer, sizeof footer, footer_offset, "footer") != 0)
		return -1;
	if (memcmp(footer + 12, pack_seal_magic, sizeof pack_seal_magic) != 0)
		return hearth_error_put(scan->error, "pack %s: footer at offset %llu: "
		    "no seal (truncated or unfinished)", scan->name,
		    (unsigned long long)footer_offset);
	scan->index_offset = load_u64be(footer);
	scan->index_crc = load_u32be(footer + 8);
	if (scan->index_offset < PACK_HEADER_SIZE ||
	    scan->index_offset > footer_offset - PACK_INDEX_HEADER_SIZE ||
	    (footer_offset - scan->index_offset - PACK_INDEX_HEADER_SIZE) %
		    PACK_INDEX_ENTRY_SIZE != 0)
		return hearth_error_put(scan->error, "pack %s: footer at offset %llu: "
		    "index offset %llu is out of range", scan->name,
		    (unsigned long long)footer_offset, (unsigned long long)scan->index_offset);
	return 0;
}

/* The whole index is checksummed before any entry is believed. */
static int
pack_scan_check_index(struct pack_scan *scan)
{
	uint64_t end = scan->size - PACK_FOOTER_SIZE;
	uint32_t crc = 0;

	for (uint64_t offset = scan->index_offset; offset < end;) {
		size_t length = end - offset < PACK_SCAN_BLOCK ? (size_t)(end - offset)
							       : PACK_SCAN_BLOCK;
		if (pack_scan_read(scan, scan->block, length, offset, "index") != 0)
			return -1;
		crc = pack_crc32c(crc, scan->block, length);
		offset += length;
	}
	if (crc != scan->index_crc)
		return hearth_error_put(scan->error, "pack %s: index at offset %llu: "
		    "checksum mismatch", scan->name, (unsigned long long)scan->index_offset);
	uint8_t header[PACK_INDEX_HEADER_SIZE];
	if (pack_scan_read(scan, header, sizeof header, scan->index_offset, "index") != 0)
		return -1;
	uint64_t entries = (end - scan->index_offset - PACK_INDEX_HEADER_SIZE) /
	    PACK_INDEX_ENTRY_SIZE;
	if (memcmp(header, pack_index_magic, sizeof pack_index_magic) != 0 ||
	    load_u32be(header + 8) != entries)
		return hearth_error_put(scan->error, "pack %s: index at offset %llu: "
		    "bad index header", scan->name, (unsigned long long)scan->index_offset);
	return 0;
}

static int
pack_scan_entries(struct pack_scan *scan,
    int (*visit)(void *context, const struct hash *chunk, uint64_t frame_offset,
        uint32_t offset_in_frame, uint32_t length),
    void *context)
{
	uint64_t end = scan->size - PACK_FOOTER_SIZE;

	for (uint64_t offset = scan->index_offset + PACK_INDEX_HEADER_SIZE; offset < end;) {
		size_t length = end - offset < PACK_SCAN_BLOCK ? (size_t)(end - offset)
							       : PACK_SCAN_BLOCK;
		if (pack_scan_read(scan, scan->block, length, offset, "index") != 0)
			return -1;
		for (size_t at = 0; at < length; at += PACK_INDEX_ENTRY_SIZE) {
			const uint8_t *entry = scan->block + at;
			struct hash chunk;
			memcpy(chunk.bytes, entry, HASH_BYTES);
			uint64_t frame_offset = load_u64be(entry + 32);
			uint32_t offset_in_frame = load_u32be(entry + 40);
			uint32_t chunk_length = load_u32be(entry + 44);
			if (frame_offset < PACK_HEADER_SIZE ||
			    frame_offset + PACK_FRAME_HEADER_SIZE > scan->index_offset ||
			    (uint64_t)offset_in_frame + chunk_length > PACK_FRAME_RAW_MAX)
				return hearth_error_put(scan->error, "pack %s: index "
				    "entry at offset %llu: points outside the pack's frames",
				    scan->name, (unsigned long long)(offset + at));
			int status = visit(context, &chunk, frame_offset, offset_in_frame,
			    chunk_length);
			if (status != 0)
				return status;
		}
		offset += length;
	}
	return 0;
}

int
pack_scan_index(int packs_dir_fd, const char *file_name,
    int (*visit)(void *context, const struct hash *chunk, uint64_t frame_offset,
        uint32_t offset_in_frame, uint32_t length),
    void *context, struct hearth_error *error)
{
	struct pack_scan scan = { .name = file_name, .error = error };
	struct stat status;
	int result = -1;

	scan.fd = openat(packs_dir_fd, file_name, O_RDONLY | O_CLOEXEC);
	if (scan.fd < 0)
		return hearth_error_put(error, "pack %s: cannot open: %s", file_name,
		    strerror(errno));
	if (fstat(scan.fd, &status) != 0) {
		hearth_error_put(error, "pack %s: %s", file_name, strerror(errno));
		goto done;
	}
	scan.size = (uint64_t)status.st_size;
	if (scan.size < PACK_HEADER_SIZE + PACK_INDEX_HEADER_SIZE + PACK_FOOTER_SIZE) {
		hearth_error_put(error, "pack %s: %llu bytes is too short for a pack",
		    file_name, (unsigned long long)scan.size);
		goto done;
	}
	scan.block = array_alloc(PACK_SCAN_BLOCK, 1);
	if (pack_scan_ends(&scan) == 0 && pack_scan_check_index(&scan) == 0)
		result = pack_scan_entries(&scan, visit, context);
done:
	free(scan.block);
	close(scan.fd);
	return result;
}
