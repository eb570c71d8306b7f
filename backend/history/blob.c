/* Glue between the chunk/pack layer and the store's index: the pack sink
 * that records packs and chunks in SQLite, the "do we hold it" test that
 * keeps held chunks from being written twice, and blob reads. */
#include "backend/history/blob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store/hash.h"
#include "backend/store/pack_index.h"
#include "backend/io/io.h"

static const char SQL_BLOB_ADD[] = "INSERT OR IGNORE INTO blob(id, size, chunks) VALUES(?1, ?2, ?3)";
static const char SQL_BLOB_GET[] = "SELECT chunks FROM blob WHERE id = ?1";
static const char SQL_BLOB_LIST[] = "SELECT size, chunks FROM blob WHERE id = ?1";

int
blob_pack_started(struct hearth *home, const char *file_name, int64_t *pack_number)
{
	if (pack_index_add(&home->store, file_name, pack_number) != 0)
		return -1;
	home->packs_made++;
	return store_meta_add_int(&home->store, "packs_created", 1);
}

int
blob_pack_sealed(struct hearth *home, int64_t pack_number, uint64_t size, uint64_t chunk_count)
{
	return pack_index_seal(&home->store, pack_number, size, chunk_count);
}

int
blob_chunk_moved(struct hearth *home, const struct hash *chunk, const struct pack_location *where)
{
	return chunk_index_move(&home->store, chunk, where);
}

static int
sink_started(void *context, const char *file_name, int64_t *pack_number)
{
	struct blob_writer *writer = context;
	return blob_pack_started(writer->home, file_name, pack_number);
}

static int
sink_stored(void *context, const struct hash *chunk, const struct pack_location *where)
{
	struct blob_writer *writer = context;

	writer->chunks_written++;
	writer->bytes_new += where->length;
	/* Every chunk a blob writer takes was hashed by its caller (its id is
	 * that hash), so a checkout in this process need not hash it again. */
	pack_reader_trust(writer->home->reader, chunk, where);
	return chunk_index_add(&writer->home->store, chunk, where);
}

static int
sink_sealed(void *context, int64_t pack_number, uint64_t size, uint64_t chunk_count)
{
	struct blob_writer *writer = context;
	return blob_pack_sealed(writer->home, pack_number, size, chunk_count);
}

/* Each chunk cut from a file being stored: counted, the cancel flag read
 * (between chunks is a safe point: nothing commits before the end). */
static int
writer_chunk(void *context, const struct hash *chunk, size_t length)
{
	struct blob_writer *writer = context;

	if (writer->meter != NULL) {
		meter_add(writer->meter, 0, length, NULL);
		if (meter_cancelled(writer->meter)) {
			writer->cancelled = true;
			return -1;
		}
	}
	return chunk_index_holds(&writer->home->store, chunk) ? 1 : 0;
}

bool
blob_is_stored(struct hearth *home, const struct hash *blob)
{
	if (chunk_index_holds(&home->store, blob))
		return true;
	sqlite3_stmt *statement = store_statement(&home->store, SQL_BLOB_GET);
	sqlite3_bind_blob(statement, 1, blob->bytes, HASH_BYTES, SQLITE_STATIC);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return found;
}

void
blob_writer_begin(struct hearth *home, struct blob_writer *writer)
{
	memset(writer, 0, sizeof *writer);
	writer->home = home;
}

static void
ensure_pack(struct blob_writer *writer)
{
	if (writer->pack != NULL)
		return;
	struct pack_sink sink = {
		.started = sink_started, .stored = sink_stored, .sealed = sink_sealed,
		.context = writer,
	};
	writer->pack = pack_writer_new(writer->home->packs_fd, writer->home->packs_path,
	    config_durability_rules(writer->home->config->durability).sync_packs, &sink);
}

static int
index_blob(struct blob_writer *writer, const struct content_result *result,
    struct hearth_error *error)
{
	if (result->chunk_count <= 1)
		return 0;
	sqlite3_stmt *statement = store_statement(&writer->home->store, SQL_BLOB_ADD);
	sqlite3_bind_blob(statement, 1, result->blob.bytes, HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, (int64_t)result->size);
	sqlite3_bind_blob(statement, 3, result->chunks, (int)(result->chunk_count * HASH_BYTES),
	    SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return hearth_fail(error, HEARTH_FAILED, "cannot index a blob: %s",
		    sqlite3_errmsg(writer->home->store.db));
	return 0;
}

/* The chunks of a file's previous version, offered as the bases of its new
 * chunks: chunk i against the previous version's chunk i (or its last), as
 * content-defined cuts keep an edit's chunks where they were. */
struct blob_bases {
	struct hearth *home;
	struct blob_writer *writer;	/* whose meter counts each chunk */
	struct hash single;		/* a one-chunk previous version */
	struct buffer list;		/* or its chunk list */
	const struct hash *chunks;
	size_t count;
	struct buffer bytes;		/* the base offered last */
};

static void
blob_bases_open(struct blob_bases *bases, struct blob_writer *writer, const struct hash *previous)
{
	struct hearth *home = writer->home;
	uint64_t size;

	memset(bases, 0, sizeof *bases);
	bases->home = home;
	bases->writer = writer;
	buffer_init(&bases->list);
	buffer_init(&bases->bytes);
	if (previous == NULL)
		return;
	if (blob_chunk_list(home, previous, &size, &bases->list) == 1) {
		bases->chunks = (const struct hash *)bases->list.data;
		bases->count = bases->list.length / HASH_BYTES;
	} else if (chunk_index_holds(&home->store, previous)) {
		bases->single = *previous;
		bases->chunks = &bases->single;
		bases->count = 1;
	}
}

static void
blob_bases_close(struct blob_bases *bases)
{
	buffer_free(&bases->list);
	buffer_free(&bases->bytes);
}

static int
bases_known(void *context, const struct hash *chunk, size_t length)
{
	const struct blob_bases *bases = context;
	return writer_chunk(bases->writer, chunk, length);
}

/* A base that cannot be read (damaged) is no base: the chunk goes whole. */
static int
bases_offer(void *context, size_t index, struct pack_base *base)
{
	struct blob_bases *bases = context;
	struct pack_location where;
	struct hearth_error failure;

	if (bases->count == 0)
		return 0;
	const struct hash *id = &bases->chunks[index < bases->count ? index : bases->count - 1];
	if (blob_chunk_find(bases->home, id, &where) != 1 || where.depth >= PACK_DELTA_DEPTH_MAX)
		return 0;
	buffer_reset(&bases->bytes);
	if (pack_read(bases->home->reader, id, &where, &bases->bytes, &failure) != 0)
		return 0;
	*base = (struct pack_base){ .id = *id, .data = bases->bytes.data,
		.length = bases->bytes.length, .depth = where.depth };
	return 1;
}

int
blob_store_fd(struct blob_writer *writer, int fd, const struct hash *previous,
    struct content_result *out, struct hearth_error *error)
{
	struct blob_bases bases;

	ensure_pack(writer);
	blob_bases_open(&bases, writer, previous);
	int status = content_store_fd_based(writer->pack, fd, bases_known, bases_offer, &bases,
	    out, error);
	blob_bases_close(&bases);
	if (status != 0)
		return writer->cancelled ? hearth_fail(error, HEARTH_CANCELLED, "cancelled")
					 : HEARTH_FAILED;
	writer->bytes_stored += out->size;
	return index_blob(writer, out, error);
}

int
blob_store_bytes(struct blob_writer *writer, const void *data, size_t length,
    struct content_result *out, struct hearth_error *error)
{
	ensure_pack(writer);
	if (content_store_bytes(writer->pack, data, length, writer_chunk, writer, out, error) != 0)
		return writer->cancelled ? hearth_fail(error, HEARTH_CANCELLED, "cancelled")
					 : HEARTH_FAILED;
	writer->bytes_stored += out->size;
	return index_blob(writer, out, error);
}

int
blob_writer_finish(struct blob_writer *writer, struct hearth_error *error)
{
	struct hearth_error failure;

	if (writer->pack == NULL)
		return 0;
	if (pack_writer_finish(writer->pack, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	return 0;
}

void
blob_writer_abort(struct blob_writer *writer)
{
	if (writer->pack == NULL)
		return;
	pack_writer_abort(writer->pack);
	pack_writer_free(writer->pack);
	writer->pack = NULL;
}

/* ---- reading ------------------------------------------------------------------- */

/* What an emit callback returns to end a read early without an error. */
#define EMIT_STOP (-2)

void
blob_locate(struct hearth *home, const struct hash *blob, struct blob_place *out)
{
	struct hash first = *blob;
	sqlite3_stmt *statement = store_statement(&home->store, SQL_BLOB_GET);

	memset(out, 0, sizeof *out);
	out->single = true;
	sqlite3_bind_blob(statement, 1, blob->bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) == SQLITE_ROW &&
	    sqlite3_column_bytes(statement, 0) >= HASH_BYTES) {
		memcpy(first.bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
		out->single = false;
	}
	sqlite3_reset(statement);
	out->found = store_chunk_find(&home->store, &first, &out->first) == 1;
}

int
blob_place_compare(const struct blob_place *a, const struct blob_place *b)
{
	if (a->found != b->found)
		return a->found ? -1 : 1;
	if (a->first.pack != b->first.pack)
		return a->first.pack < b->first.pack ? -1 : 1;
	if (a->first.frame_offset != b->first.frame_offset)
		return a->first.frame_offset < b->first.frame_offset ? -1 : 1;
	if (a->first.offset_in_frame != b->first.offset_in_frame)
		return a->first.offset_in_frame < b->first.offset_in_frame ? -1 : 1;
	return 0;
}

/* The chunk list of a blob that is not one chunk, into list. */
static void
load_chunk_list(struct hearth *home, const struct hash *blob, struct buffer *list)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_BLOB_GET);

	sqlite3_bind_blob(statement, 1, blob->bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) == SQLITE_ROW)
		buffer_append(list, sqlite3_column_blob(statement, 0),
		    (size_t)sqlite3_column_bytes(statement, 0));
	sqlite3_reset(statement);
}

/* Calls emit for each chunk of a blob, in order; place (when not NULL)
 * says where its first chunk lies. */
static int
each_chunk(struct hearth *home, const struct hash *blob, const struct blob_place *place,
    int (*emit)(void *context, const uint8_t *data, size_t length), void *context,
    struct hearth_error *error)
{
	struct blob_place looked;
	struct hash single = *blob, *chunks = &single;
	size_t count = 1;
	struct buffer list, bytes;
	struct hearth_error failure;
	char hex[HASH_HEX];
	int status = 0;

	if (place == NULL) {
		blob_locate(home, blob, &looked);
		place = &looked;
	}
	buffer_init(&list);
	buffer_init(&bytes);
	if (!place->single) {
		load_chunk_list(home, blob, &list);
		chunks = (struct hash *)list.data;
		count = list.length / HASH_BYTES;
	}
	for (size_t i = 0; i < count && status == 0; i++) {
		struct pack_location where = place->first;
		if ((i > 0 || !place->found) && store_chunk_find(&home->store, &chunks[i], &where) != 1) {
			hash_hex(&chunks[i], hex);
			status = hearth_fail(error, HEARTH_DAMAGED,
			    "chunk %.16s of a blob is not in the store (run hearth fsck)", hex);
			break;
		}
		buffer_reset(&bytes);
		if (pack_read(home->reader, &chunks[i], &where, &bytes, &failure) != 0)
			status = hearth_fail(error, HEARTH_DAMAGED, "%s", failure.message);
		else
			status = emit(context, bytes.data, bytes.length);
	}
	buffer_free(&list);
	buffer_free(&bytes);
	return status;
}

struct fd_target {
	int fd;
	struct hearth_error *error;
};

static int
emit_to_fd(void *context, const uint8_t *data, size_t length)
{
	struct fd_target *target = context;

	if (io_write_all(target->fd, data, length) != 0)
		return hearth_fail_errno(target->error, "cannot write");
	return 0;
}

int
blob_write_to_fd(struct hearth *home, const struct hash *blob, int fd, struct hearth_error *error)
{
	struct fd_target target = { .fd = fd, .error = error };
	return each_chunk(home, blob, NULL, emit_to_fd, &target, error);
}

/* Writing a file sparse: blocks of zeros are left as holes (the file is
 * new and empty, so a hole reads as zeros), and a file ending in one is
 * extended to its size. The block is the usual page, so a hole is only
 * made where the filesystem could keep one. */
#define SPARSE_BLOCK 4096

/* A file being written hands its pages to the disk every this many bytes
 * when the command flushes what it wrote at its end (a hint, as the pack
 * writer's): without it the kernel starts writing back only past its
 * dirty threshold (10 % of memory), so a big file's every byte waited for
 * the flush at the end, after the writing, instead of going out beside it. */
#define BLOB_WRITEBACK_STEP (8u * 1024 * 1024)

static bool
all_zero(const uint8_t *data, size_t length)
{
	return length == 0 || (data[0] == 0 && memcmp(data, data + 1, length - 1) == 0);
}

/* The run of bytes from data up to the next block boundary of the file. */
static size_t
block_run(uint64_t at, size_t left)
{
	size_t run = SPARSE_BLOCK - (size_t)(at % SPARSE_BLOCK);
	return run < left ? run : left;
}

int
blob_sparse_append(struct blob_sparse_file *file, const uint8_t *data, size_t length)
{
	size_t at = 0;

	while (at < length) {
		size_t run = block_run(file->offset, length - at);
		if (all_zero(data + at, run)) {
			at += run;
			file->offset += run;
			file->ends_in_hole = true;
			continue;
		}
		/* Coalesce the blocks that hold data into one write. */
		size_t start = at;
		uint64_t start_offset = file->offset;
		while (at < length && !all_zero(data + at, run)) {
			at += run;
			file->offset += run;
			if (at < length)
				run = block_run(file->offset, length - at);
		}
		if (io_pwrite_all(file->fd, data + start, at - start, (off_t)start_offset) != 0)
			return hearth_fail_errno(file->error, "cannot write");
		file->ends_in_hole = false;
	}
	if (file->writeback && file->offset - file->writeback_from >= BLOB_WRITEBACK_STEP) {
		(void)io_start_writeback(file->fd, (off_t)file->writeback_from,
		    (off_t)(file->offset - file->writeback_from));
		file->writeback_from = file->offset;
	}
	return 0;
}

int
blob_sparse_end(struct blob_sparse_file *file)
{
	if (file->ends_in_hole && io_ftruncate(file->fd, (off_t)file->offset) != 0)
		return hearth_fail_errno(file->error, "cannot write");
	return 0;
}

struct sparse_target {
	struct blob_sparse_file file;
	struct meter *meter;	/* may be NULL */
};

static int
emit_sparse(void *context, const uint8_t *data, size_t length)
{
	struct sparse_target *target = context;

	int status = blob_sparse_append(&target->file, data, length);
	if (status != 0 || target->meter == NULL)
		return status;
	meter_add(target->meter, 0, length, NULL);
	return meter_cancelled(target->meter) ? hearth_fail(target->file.error, HEARTH_CANCELLED,
	    "cancelled") : 0;
}

int
blob_write_sparse_placed(struct hearth *home, const struct hash *blob,
    const struct blob_place *place, int fd, struct meter *meter, bool writeback,
    struct hearth_error *error)
{
	struct sparse_target target = { .file = { .fd = fd, .writeback = writeback,
		.error = error }, .meter = meter };
	int status = each_chunk(home, blob, place, emit_sparse, &target, error);

	return status != 0 ? status : blob_sparse_end(&target.file);
}

struct buffer_target {
	struct buffer *out;
	size_t max;
	bool *truncated;
};

static int
emit_to_buffer(void *context, const uint8_t *data, size_t length)
{
	struct buffer_target *target = context;
	size_t room = target->max - target->out->length;

	if (length > room) {
		*target->truncated = true;
		length = room;
	}
	buffer_append(target->out, data, length);
	/* Stop reading once full: a preview never needs the rest. */
	return *target->truncated ? EMIT_STOP : 0;
}

int
blob_read(struct hearth *home, const struct hash *blob, size_t max, struct buffer *out,
    bool *truncated, struct hearth_error *error)
{
	struct buffer_target target = { .out = out, .max = max, .truncated = truncated };

	*truncated = false;
	buffer_reset(out);
	int status = each_chunk(home, blob, NULL, emit_to_buffer, &target, error);
	return status == EMIT_STOP ? 0 : status;
}

/* ---- chunks by id, for sync ------------------------------------------------------ */

int
blob_each(struct hearth *home,
    int (*visit)(void *context, const struct hash *blob, const uint8_t *chunks, size_t count),
    void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, "SELECT id, chunks FROM blob");
	int status = 0;

	while (status == 0 && sqlite3_step(statement) == SQLITE_ROW) {
		struct hash blob;
		memcpy(blob.bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
		status = visit(context, &blob, sqlite3_column_blob(statement, 1),
		    (size_t)sqlite3_column_bytes(statement, 1) / HASH_BYTES);
	}
	sqlite3_reset(statement);
	return status;
}

void
blob_stats(struct hearth *home, struct hearth_stats *out)
{
	struct pack_index_figures figures;

	pack_index_figures(&home->store, &figures);
	out->chunks = figures.chunks;
	out->blobs = store_scalar(&home->store, "SELECT count(*) FROM blob") + figures.chunks;
	out->packs = figures.packs;
	out->stored_bytes = figures.stored_bytes;
	out->pack_bytes = figures.pack_bytes;
	out->delta_chunks = figures.delta_chunks;
	out->delta_bytes = figures.delta_bytes;
	out->depth_max = figures.depth_max;
	if (figures.delta_chunks > 0)
		out->depth_mean = (double)figures.depth_sum / (double)figures.delta_chunks;
}

int
blob_chunk_find(struct hearth *home, const struct hash *chunk, struct pack_location *out)
{
	return store_chunk_find(&home->store, chunk, out);
}

int
blob_chunk_list(struct hearth *home, const struct hash *blob, uint64_t *size,
    struct buffer *chunks)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_BLOB_LIST);

	sqlite3_bind_blob(statement, 1, blob->bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return 0;
	*size = (uint64_t)sqlite3_column_int64(statement, 0);
	buffer_append(chunks, sqlite3_column_blob(statement, 1),
	    (size_t)sqlite3_column_bytes(statement, 1));
	sqlite3_reset(statement);
	return 1;
}

int
blob_store_chunk(struct blob_writer *writer, const struct hash *chunk, const void *data,
    size_t length, const struct pack_base *base, const struct pack_stored *stored,
    struct hearth_error *error)
{
	struct hash got;
	struct hearth_error failure;
	char hex[HASH_HEX];

	hash_bytes(data, length, &got);
	if (!hash_equal(&got, chunk)) {
		hash_hex(chunk, hex);
		return hearth_fail(error, HEARTH_DAMAGED, "chunk %.16s: its %zu bytes hash to "
		    "something else", hex, length);
	}
	ensure_pack(writer);
	writer->bytes_stored += length;
	if (pack_writer_holds(writer->pack, chunk))
		return 0;
	int status = stored != NULL
	    ? pack_writer_add_stored(writer->pack, chunk, data, length, stored, &failure)
	    : pack_writer_add_delta(writer->pack, chunk, data, length, base, &failure);
	if (status != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	return 0;
}

int
blob_add_chunk_list(struct hearth *home, const struct hash *blob, uint64_t size,
    const struct hash *chunks, size_t count, struct hearth_error *error)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_BLOB_ADD);

	sqlite3_bind_blob(statement, 1, blob->bytes, HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, (int64_t)size);
	sqlite3_bind_blob(statement, 3, chunks, (int)(count * HASH_BYTES), SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return hearth_fail(error, HEARTH_FAILED, "cannot index a blob: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}
