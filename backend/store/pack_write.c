/* The pack writer: gathers chunks into frames, compresses them off the
 * caller's thread and seals write-once pack files (layout in pack.h). */
#include "backend/store/pack.h"
#include "backend/io/space.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <zstd.h>

#include "backend/io/fail.h"
#include "backend/io/io.h"
#include "backend/store/delta.h"
#include "backend/store/pack_format.h"
#include "model/array.h"
#include "model/error.h"

/* A delta costs each later read of its chunk a read of the base, so it is
 * kept only where it saves much: outright when it is at most 1/16 of the
 * chunk (an edit of a text file), else when it is at most 3/4 of the chunk
 * compressed alone. */
#define PACK_DELTA_OUTRIGHT_SHIFT 4

/* ---- frames ----------------------------------------------------------------
 * A frame's bytes sit after PACK_FRAME_HEADER_SIZE bytes of headroom, so
 * its header is filled in place and header and bytes go out in one write. */

struct pack_frame_chunk {
	struct hash id;
	uint32_t offset_in_frame;
	uint32_t length;
	uint32_t depth;		/* set when the frame is compressed */
};

struct pack_frame {
	uint8_t *allocation;	/* headroom, then the raw or stored bytes */
	size_t capacity;	/* bytes after the headroom */
	uint32_t raw_length;
	uint32_t stored_length;
	uint32_t crc;
	uint8_t codec;
	bool done;		/* compressed and checksummed; under the writer's lock */
	bool kept;		/* stored as another pack stored it: not compressed again */
	struct pack_frame_chunk *chunks;
	size_t chunk_count;
	size_t chunk_capacity;
	/* The base a lone chunk may become a delta against (a copy). */
	bool has_base;
	struct hash base_id;
	uint8_t *base;
	size_t base_length;
	size_t base_capacity;
	uint32_t base_depth;
	/* Another pack's zstd frame of the lone chunk (a copy), stored in
	 * place of this writer's when it is the smaller. */
	uint8_t *rival;
	size_t rival_length;
	size_t rival_capacity;
};

static uint8_t *
pack_frame_bytes(const struct pack_frame *frame)
{
	return frame->allocation + PACK_FRAME_HEADER_SIZE;
}

/* Grows by doubling while small chunks gather, but never past the largest
 * frame, so a slot that once held a big chunk holds at most CHUNK_MAX. */
static void
pack_frame_reserve(struct pack_frame *frame, size_t size)
{
	if (size <= frame->capacity && frame->allocation != NULL)
		return;
	size_t capacity = frame->capacity < PACK_FRAME_MIN ? PACK_FRAME_MIN : frame->capacity * 2;
	if (capacity > PACK_FRAME_RAW_MAX)
		capacity = PACK_FRAME_RAW_MAX;
	if (capacity < size)
		capacity = size;
	/* An empty frame's bytes need no copying: realloc would move them all. */
	if (frame->raw_length == 0) {
		free(frame->allocation);
		frame->allocation = NULL;
		frame->capacity = 0;
	}
	frame->allocation = array_resize(frame->allocation, PACK_FRAME_HEADER_SIZE + capacity, 1);
	frame->capacity = capacity;
}

static void
pack_frame_add_chunk(struct pack_frame *frame, const struct hash *id, const uint8_t *data,
    size_t length)
{
	frame->chunks = array_grow(frame->chunks, &frame->chunk_capacity, frame->chunk_count + 1,
	    sizeof *frame->chunks);
	pack_frame_reserve(frame, frame->raw_length + length);
	if (length > 0)
		memcpy(pack_frame_bytes(frame) + frame->raw_length, data, length);
	frame->chunks[frame->chunk_count++] = (struct pack_frame_chunk){ .id = *id,
		.offset_in_frame = frame->raw_length, .length = (uint32_t)length };
	frame->raw_length += (uint32_t)length;
}

static void
pack_frame_clear(struct pack_frame *frame)
{
	frame->raw_length = 0;
	frame->stored_length = 0;
	frame->chunk_count = 0;
	frame->done = false;
	frame->kept = false;
	frame->has_base = false;
	frame->base_length = 0;
	frame->rival_length = 0;
}

static void
pack_frame_set_base(struct pack_frame *frame, const struct pack_base *base)
{
	if (base->length > frame->base_capacity) {
		frame->base = array_resize(frame->base, base->length, 1);
		frame->base_capacity = base->length;
	}
	memcpy(frame->base, base->data, base->length);
	frame->base_length = base->length;
	frame->base_id = base->id;
	frame->base_depth = base->depth;
	frame->has_base = true;
}

static void
pack_frame_release(struct pack_frame *frame)
{
	free(frame->allocation);
	free(frame->chunks);
	free(frame->base);
	free(frame->rival);
	memset(frame, 0, sizeof *frame);
}

/* Hands one frame's contents to another without copying bytes. */
static void
pack_frame_swap(struct pack_frame *a, struct pack_frame *b)
{
	struct pack_frame kept = *a;
	*a = *b;
	*b = kept;
}

/* ---- compression (the only work done off the caller's thread) ------------- */

struct pack_compressor {
	ZSTD_CCtx *context;	/* NULL when zstd could not allocate: frames go raw */
	uint8_t *scratch;	/* headroom, then compressed bytes */
	size_t scratch_capacity;
	ZSTD_DCtx *checker;	/* decodes each delta once before it is kept */
	uint8_t *check;		/* its output, or a frame compressed alone */
	size_t check_capacity;
};

static void
pack_compressor_release(struct pack_compressor *compressor)
{
	ZSTD_freeCCtx(compressor->context);
	ZSTD_freeDCtx(compressor->checker);
	free(compressor->scratch);
	free(compressor->check);
	memset(compressor, 0, sizeof *compressor);
}

/* Room for budget compressed bytes; false sends the frame out raw. */
static bool
pack_compressor_ready(struct pack_compressor *compressor, size_t budget)
{
	if (compressor->context == NULL || budget == 0)
		return false;
	if (compressor->scratch_capacity >= budget)
		return true;
	free(compressor->scratch);
	compressor->scratch = array_alloc(PACK_FRAME_HEADER_SIZE + budget, 1);
	compressor->scratch_capacity = budget;
	return true;
}

/* The compressed bytes become the frame's, and its old buffer the next
 * scratch: no copy, and no allocation once both have grown. */
static void
pack_frame_take_compressed(struct pack_frame *frame, struct pack_compressor *compressor,
    size_t stored_length)
{
	uint8_t *allocation = frame->allocation;
	size_t capacity = frame->capacity;

	frame->allocation = compressor->scratch;
	frame->capacity = compressor->scratch_capacity;
	compressor->scratch = allocation;
	compressor->scratch_capacity = capacity;
	frame->codec = PACK_CODEC_ZSTD;
	frame->stored_length = (uint32_t)stored_length;
}

static bool
pack_compressor_check_room(struct pack_compressor *compressor, size_t size)
{
	if (compressor->check_capacity >= size)
		return true;
	free(compressor->check);
	compressor->check = array_alloc(size, 1);
	compressor->check_capacity = compressor->check != NULL ? size : 0;
	return compressor->check != NULL;
}

/* The chunk as a delta against its base, after the base's id, in
 * scratch; returns the stored length, or 0 when it cannot be made. */
static size_t
pack_delta_make(const struct pack_frame *frame, struct pack_compressor *compressor, int level)
{
	size_t bound = ZSTD_compressBound(frame->raw_length);

	if (!pack_compressor_ready(compressor, HASH_BYTES + bound))
		return 0;
	uint8_t *out = compressor->scratch + PACK_FRAME_HEADER_SIZE;
	size_t made = delta_encode(compressor->context, level, frame->base, frame->base_length,
	    pack_frame_bytes(frame), frame->raw_length, out + HASH_BYTES, bound);
	if (made == 0)
		return 0;
	memcpy(out, frame->base_id.bytes, HASH_BYTES);
	return HASH_BYTES + made;
}

/* A delta is kept only once it decodes, from the base, to the very bytes. */
static bool
pack_delta_decodes(const struct pack_frame *frame, struct pack_compressor *compressor,
    size_t stored)
{
	if (compressor->checker == NULL)
		compressor->checker = ZSTD_createDCtx();
	if (compressor->checker == NULL ||
	    !pack_compressor_check_room(compressor, frame->raw_length))
		return false;
	return delta_decode(compressor->checker, frame->base, frame->base_length,
	    compressor->scratch + PACK_FRAME_HEADER_SIZE + HASH_BYTES, stored - HASH_BYTES,
	    compressor->check, frame->raw_length, NULL) &&
	    memcmp(compressor->check, pack_frame_bytes(frame), frame->raw_length) == 0;
}

/* Whether a delta of stored bytes beats the chunk compressed alone. */
static bool
pack_delta_pays(const struct pack_frame *frame, struct pack_compressor *compressor,
    size_t stored, int level)
{
	if (stored <= (size_t)frame->raw_length >> PACK_DELTA_OUTRIGHT_SHIFT)
		return true;
	size_t bound = ZSTD_compressBound(frame->raw_length);
	if (!pack_compressor_check_room(compressor, bound))
		return false;
	size_t alone = ZSTD_compressCCtx(compressor->context, compressor->check, bound,
	    pack_frame_bytes(frame), frame->raw_length, level);
	if (ZSTD_isError(alone))
		alone = frame->raw_length;
	return stored * 4 <= alone * 3;
}

static bool
pack_frame_try_delta(struct pack_frame *frame, struct pack_compressor *compressor, int level,
    int delta_level)
{
	if (compressor->context == NULL || frame->chunk_count != 1 || frame->base_length == 0)
		return false;
	size_t stored = pack_delta_make(frame, compressor, delta_level);
	if (stored == 0 || stored >= frame->raw_length || !pack_delta_pays(frame, compressor,
		stored, level) || !pack_delta_decodes(frame, compressor, stored))
		return false;
	pack_frame_take_compressed(frame, compressor, stored);
	frame->codec = PACK_CODEC_DELTA;
	frame->chunks[0].depth = frame->base_depth + 1;
	frame->crc = pack_crc32c(0, pack_frame_bytes(frame), frame->stored_length);
	return true;
}

/* Never fails: a frame that does not shrink enough, or cannot be compressed
 * even for want of memory, is stored raw. */
static void
pack_frame_compress(struct pack_frame *frame, struct pack_compressor *compressor, int level,
    int delta_level)
{
	size_t budget = frame->raw_length - (frame->raw_length >> PACK_MIN_SAVING_SHIFT);

	if (frame->kept) {
		frame->crc = pack_crc32c(0, pack_frame_bytes(frame), frame->stored_length);
		return;
	}
	if (frame->has_base && pack_frame_try_delta(frame, compressor, level, delta_level))
		return;
	frame->codec = PACK_CODEC_RAW;
	frame->stored_length = frame->raw_length;
	if (pack_compressor_ready(compressor, budget)) {
		size_t stored = ZSTD_compressCCtx(compressor->context,
		    compressor->scratch + PACK_FRAME_HEADER_SIZE, budget, pack_frame_bytes(frame),
		    frame->raw_length, level);
		if (!ZSTD_isError(stored) && stored < budget)
			pack_frame_take_compressed(frame, compressor, stored);
	}
	/* The frame's room holds at least the stored bytes, which are more. */
	if (frame->rival_length > 0 && frame->rival_length < frame->stored_length) {
		memcpy(pack_frame_bytes(frame), frame->rival, frame->rival_length);
		frame->codec = PACK_CODEC_ZSTD;
		frame->stored_length = (uint32_t)frame->rival_length;
	}
	frame->crc = pack_crc32c(0, pack_frame_bytes(frame), frame->stored_length);
}

/* ---- the writer --------------------------------------------------------------
 * Threading. pack_writer_add copies each chunk into a frame on the caller's
 * thread; a full frame joins a ring of submitted frames, which worker
 * threads compress and checksum in memory, nothing more. Frames are
 * written, in submission order, by the caller's thread: when it needs a
 * ring slot and all are taken it waits for the oldest, writes it and calls
 * `stored` for its chunks, and pack_writer_finish drains the rest. So every
 * io_* call and every sink callback happens on the caller's thread, in an
 * order that depends only on the chunks added (io.c's counters and fault
 * injection stay single-threaded and repeatable; the store may call SQLite
 * from the sink), while hashing and reading the next chunks overlap with
 * compression. Memory stays bounded by the ring: at most PACK_RING_MAX
 * frames plus one scratch buffer per worker. The lock guards only the
 * ring's hand-over fields (waiting, compress_next, stopping, frame->done). */

struct pack_worker {
	struct pack_writer *writer;
	pthread_t thread;
	struct pack_compressor compressor;
};

struct pack_writer {
	int dir_fd;
	char *packs_path;
	bool sync;
	struct pack_sink sink;
	uint64_t seal_size;
	int level;
	int delta_level;
	int worker_target;

	struct pack_frame gather;	/* small chunks collecting into a frame */
	struct pack_frame ring[PACK_RING_MAX];
	size_t ring_size;
	size_t ring_head;		/* oldest frame submitted and not written */
	size_t ring_used;		/* frames submitted and not written */

	pthread_mutex_t lock;
	pthread_cond_t work_ready;
	pthread_cond_t frame_done;
	size_t compress_next;		/* ring slot the next idle worker takes */
	size_t waiting;			/* submitted frames no worker has taken */
	bool stopping;
	struct pack_worker workers[PACK_WORKERS_MAX];
	size_t worker_count;
	bool workers_started;
	struct pack_compressor inline_compressor;	/* when no thread could start */

	int fd;				/* the open pack, or -1 */
	char file_name[PACK_NAME_SIZE];
	int64_t pack_number;
	uint64_t pack_size;
	uint64_t writeback_from;	/* start of the pages not yet handed to the disk */
	uint8_t *index;			/* the open pack's index, as it will be written */
	size_t index_length;
	size_t index_capacity;
	uint32_t index_count;
	uint8_t *depths;		/* each index entry's delta depth, in index order */
	size_t depths_capacity;

	char (*created)[PACK_NAME_SIZE];	/* every file made, for abort */
	size_t created_count;
	size_t created_capacity;

	struct hash *held;		/* open addressing; the zero hash marks a free slot */
	size_t held_capacity;
	size_t held_count;
	bool holds_zero_hash;

	uint64_t bytes_written;
	int status;			/* 0, or the first failure's code: the writer is stopped */
	bool finished;
	bool aborted;
	char failure[PACK_ERROR_SIZE];
};

struct pack_writer *
pack_writer_new(int packs_dir_fd, const char *packs_path, bool sync, const struct pack_sink *sink)
{
	struct pack_writer *writer = array_zeroed(1, sizeof *writer);

	writer->packs_path = array_strdup(packs_path != NULL ? packs_path : ".");
	writer->dir_fd = packs_dir_fd;
	writer->sync = sync;
	if (sink != NULL)
		writer->sink = *sink;
	writer->seal_size = PACK_SEAL_SIZE;
	writer->level = PACK_DEFAULT_LEVEL;
	writer->delta_level = DELTA_LEVEL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	writer->worker_target = cpus >= PACK_WORKERS_MAX ? PACK_WORKERS_MAX : 1;
	writer->fd = -1;
	pthread_mutex_init(&writer->lock, NULL);
	pthread_cond_init(&writer->work_ready, NULL);
	pthread_cond_init(&writer->frame_done, NULL);
	return writer;
}

void
pack_writer_set_seal_size(struct pack_writer *writer, uint64_t seal_size)
{
	writer->seal_size = seal_size;
}

void
pack_writer_set_level(struct pack_writer *writer, int level)
{
	writer->level = level;
}

void
pack_writer_set_delta_level(struct pack_writer *writer, int level)
{
	writer->delta_level = level;
}

void
pack_writer_set_threads(struct pack_writer *writer, int threads)
{
	if (writer->workers_started)
		return;
	writer->worker_target = threads < 0 ? 0 : threads > PACK_WORKERS_MAX ? PACK_WORKERS_MAX
									    : threads;
}

uint64_t
pack_writer_bytes(const struct pack_writer *writer)
{
	return writer->bytes_written;
}

/* Stops the writer: every later call reports this failure. */
static int
pack_writer_fail(struct pack_writer *writer, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static int
pack_writer_fail(struct pack_writer *writer, int status, const char *format, ...)
{
	va_list args;

	if (writer->status != 0)
		return writer->status;
	va_start(args, format);
	error_vput(writer->failure, sizeof writer->failure, format, args);
	va_end(args);
	writer->status = status != 0 ? status : -1;
	return writer->status;
}

static int
pack_writer_report(const struct pack_writer *writer, struct hearth_error *error)
{
	if (writer->status == 0)
		return 0;
	hearth_error_put(error, "%s", writer->failure);
	return writer->status;
}

/* ---- which chunks this writer holds ---- */

static size_t
pack_held_slot(const struct hash *chunk, size_t capacity)
{
	return (size_t)load_u64be(chunk->bytes) & (capacity - 1);
}

bool
pack_writer_holds(const struct pack_writer *writer, const struct hash *chunk)
{
	if (hash_is_zero(chunk))
		return writer->holds_zero_hash;
	if (writer->held_capacity == 0)
		return false;
	for (size_t slot = pack_held_slot(chunk, writer->held_capacity);;
	     slot = (slot + 1) & (writer->held_capacity - 1)) {
		if (hash_is_zero(&writer->held[slot]))
			return false;
		if (hash_equal(&writer->held[slot], chunk))
			return true;
	}
}

static void
pack_held_place(struct hash *table, size_t capacity, const struct hash *chunk)
{
	size_t slot = pack_held_slot(chunk, capacity);

	while (!hash_is_zero(&table[slot]))
		slot = (slot + 1) & (capacity - 1);
	table[slot] = *chunk;
}

/* Keeps the table at most half full, so probes stay short. */
static void
pack_held_insert(struct pack_writer *writer, const struct hash *chunk)
{
	if (hash_is_zero(chunk)) {
		writer->holds_zero_hash = true;
		return;
	}
	if ((writer->held_count + 1) * 2 > writer->held_capacity) {
		size_t capacity = writer->held_capacity ? writer->held_capacity * 2 : 1024;
		struct hash *table = array_zeroed(capacity, sizeof *table);
		for (size_t i = 0; i < writer->held_capacity; i++)
			if (!hash_is_zero(&writer->held[i]))
				pack_held_place(table, capacity, &writer->held[i]);
		free(writer->held);
		writer->held = table;
		writer->held_capacity = capacity;
	}
	pack_held_place(writer->held, writer->held_capacity, chunk);
	writer->held_count++;
}

/* ---- worker threads ---- */

static void *
pack_worker_main(void *argument)
{
	struct pack_worker *worker = argument;
	struct pack_writer *writer = worker->writer;

	pthread_mutex_lock(&writer->lock);
	for (;;) {
		while (!writer->stopping && writer->waiting == 0)
			pthread_cond_wait(&writer->work_ready, &writer->lock);
		if (writer->stopping)
			break;
		struct pack_frame *frame = &writer->ring[writer->compress_next];
		writer->compress_next = (writer->compress_next + 1) % writer->ring_size;
		writer->waiting--;
		pthread_mutex_unlock(&writer->lock);
		pack_frame_compress(frame, &worker->compressor, writer->level, writer->delta_level);
		pthread_mutex_lock(&writer->lock);
		frame->done = true;
		pthread_cond_broadcast(&writer->frame_done);
	}
	pthread_mutex_unlock(&writer->lock);
	return NULL;
}

/* Starts the workers at the first frame, so a writer that never fills one
 * costs no thread. With none (asked for, or none could start) frames are
 * compressed on the caller's thread as they are submitted. */
static void
pack_writer_start_workers(struct pack_writer *writer)
{
	writer->workers_started = true;
	for (int i = 0; i < writer->worker_target; i++) {
		struct pack_worker *worker = &writer->workers[writer->worker_count];
		worker->writer = writer;
		worker->compressor.context = ZSTD_createCCtx();
		if (pthread_create(&worker->thread, NULL, pack_worker_main, worker) != 0) {
			pack_compressor_release(&worker->compressor);
			break;
		}
		writer->worker_count++;
	}
	writer->ring_size = writer->worker_count + PACK_RING_EXTRA;
	if (writer->worker_count == 0) {
		writer->ring_size = 1;
		writer->inline_compressor.context = ZSTD_createCCtx();
	}
}

static void
pack_writer_stop_workers(struct pack_writer *writer)
{
	pthread_mutex_lock(&writer->lock);
	writer->stopping = true;
	pthread_cond_broadcast(&writer->work_ready);
	pthread_mutex_unlock(&writer->lock);
	for (size_t i = 0; i < writer->worker_count; i++) {
		pthread_join(writer->workers[i].thread, NULL);
		pack_compressor_release(&writer->workers[i].compressor);
	}
	writer->worker_count = 0;
}

/* ---- pack files ---- */

static void
pack_writer_remember_file(struct pack_writer *writer, const char *name)
{
	writer->created = array_grow(writer->created, &writer->created_capacity,
	    writer->created_count + 1, sizeof *writer->created);
	memcpy(writer->created[writer->created_count++], name, PACK_NAME_SIZE);
}

static int
pack_random_name(char out[PACK_NAME_SIZE])
{
	uint8_t random[PACK_NAME_RANDOM_BYTES];
	size_t done = 0;

	while (done < sizeof random) {
		ssize_t got = getrandom(random + done, sizeof random - done, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		done += (size_t)got;
	}
	hex_encode(random, sizeof random, out);
	memcpy(out + 2 * sizeof random, ".pack", sizeof ".pack");
	return 0;
}

/* The index buffer begins with room for its header, filled in at sealing. */
static void
pack_index_reserve(struct pack_writer *writer, size_t extra)
{
	writer->index = array_grow(writer->index, &writer->index_capacity,
	    writer->index_length + extra, 1);
}

static int
pack_writer_start_pack(struct pack_writer *writer)
{
	char name[PACK_NAME_SIZE];

	if (pack_random_name(name) != 0)
		return pack_writer_fail(writer, -1, "cannot name a new pack: getrandom: %s",
		    space_strerror(errno));
	pack_writer_remember_file(writer, name);
	int fd = io_open(writer->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL, 0444);
	if (fd < 0) {
		writer->created_count--;
		return pack_writer_fail(writer, -1, "cannot create pack %s/%s: %s",
		    writer->packs_path, name, space_strerror(errno));
	}
	writer->fd = fd;
	memcpy(writer->file_name, name, sizeof name);
	writer->pack_number = 0;
	writer->pack_size = 0;
	writer->writeback_from = 0;
	writer->index_length = 0;
	writer->index_count = 0;
	pack_index_reserve(writer, PACK_INDEX_HEADER_SIZE);
	writer->index_length = PACK_INDEX_HEADER_SIZE;
	if (writer->sink.started != NULL) {
		int status = writer->sink.started(writer->sink.context, name, &writer->pack_number);
		if (status != 0)
			return pack_writer_fail(writer, status, "pack %s: the store refused it", name);
	}
	uint8_t header[PACK_HEADER_SIZE];
	memcpy(header, pack_magic, sizeof pack_magic);
	store_u32be(header + 8, PACK_VERSION);
	store_u32be(header + 12, 0);
	if (io_write_all(fd, header, sizeof header) != 0)
		return pack_writer_fail(writer, -1, "pack %s: writing the header: %s", name,
		    space_strerror(errno));
	writer->pack_size = sizeof header;
	writer->bytes_written += sizeof header;
	return 0;
}

static void
pack_writer_close_pack(struct pack_writer *writer)
{
	if (writer->fd >= 0)
		io_close(writer->fd);
	writer->fd = -1;
}

static int
compare_index_entries(const void *left, const void *right)
{
	return memcmp(*(const uint8_t *const *)left, *(const uint8_t *const *)right, HASH_BYTES);
}

/* Tells the sink where each chunk of the pack lies, in chunk id order: the
 * store's chunk table is keyed by id, and a million ids inserted in the
 * order they were written land on random pages of it; in id order they
 * fill its pages one after another. Nothing reads those rows before the
 * writer finishes (pack_writer_holds answers for the chunks in between). */
static int
pack_writer_sink_index(struct pack_writer *writer)
{
	size_t count = writer->index_count;

	if (writer->sink.stored == NULL || count == 0)
		return 0;
	const uint8_t **entries = array_alloc(count, sizeof *entries);
	for (size_t i = 0; i < count; i++)
		entries[i] = writer->index + PACK_INDEX_HEADER_SIZE + i * PACK_INDEX_ENTRY_SIZE;
	qsort(entries, count, sizeof *entries, compare_index_entries);
	int status = 0;
	const uint8_t *first = writer->index + PACK_INDEX_HEADER_SIZE;
	for (size_t i = 0; i < count && status == 0; i++) {
		struct hash id;
		memcpy(id.bytes, entries[i], HASH_BYTES);
		struct pack_location where = { .pack = writer->pack_number,
			.frame_offset = load_u64be(entries[i] + 32),
			.offset_in_frame = load_u32be(entries[i] + 40),
			.length = load_u32be(entries[i] + 44),
			.depth = writer->depths[(size_t)(entries[i] - first) / PACK_INDEX_ENTRY_SIZE] };
		status = writer->sink.stored(writer->sink.context, &id, &where);
	}
	free(entries);
	if (status != 0)
		return pack_writer_fail(writer, status, "pack %s: the store refused a chunk",
		    writer->file_name);
	return 0;
}

/* Index, footer, then (when syncing) fsync before the owner hears of it. */
static int
pack_writer_seal(struct pack_writer *writer)
{
	const char *name = writer->file_name;

	pack_index_reserve(writer, PACK_FOOTER_SIZE);
	memcpy(writer->index, pack_index_magic, sizeof pack_index_magic);
	store_u32be(writer->index + 8, writer->index_count);
	uint32_t crc = pack_crc32c(0, writer->index, writer->index_length);
	uint8_t *footer = writer->index + writer->index_length;
	store_u64be(footer, writer->pack_size);
	store_u32be(footer + 8, crc);
	memcpy(footer + 12, pack_seal_magic, sizeof pack_seal_magic);
	size_t length = writer->index_length + PACK_FOOTER_SIZE;
	if (io_write_all(writer->fd, writer->index, length) != 0)
		return pack_writer_fail(writer, -1, "pack %s: writing the index at offset %llu: %s",
		    name, (unsigned long long)writer->pack_size, space_strerror(errno));
	writer->pack_size += length;
	writer->bytes_written += length;
	if (writer->sync && io_fsync(writer->fd) != 0)
		return pack_writer_fail(writer, -1, "pack %s: fsync: %s", name, space_strerror(errno));
	int fd = writer->fd;
	writer->fd = -1;
	if (io_close(fd) != 0)
		return pack_writer_fail(writer, -1, "pack %s: close: %s", name, space_strerror(errno));
	if (pack_writer_sink_index(writer) != 0)
		return writer->status;
	if (writer->sink.sealed != NULL) {
		int status = writer->sink.sealed(writer->sink.context, writer->pack_number,
		    writer->pack_size, writer->index_count);
		if (status != 0)
			return pack_writer_fail(writer, status, "pack %s: the store refused the seal",
			    name);
	}
	return 0;
}

static void
pack_writer_index_chunk(struct pack_writer *writer, const struct pack_frame_chunk *chunk,
    uint64_t frame_offset)
{
	pack_index_reserve(writer, PACK_INDEX_ENTRY_SIZE);
	writer->depths = array_grow(writer->depths, &writer->depths_capacity,
	    writer->index_count + 1, 1);
	writer->depths[writer->index_count] = (uint8_t)chunk->depth;
	uint8_t *entry = writer->index + writer->index_length;
	memcpy(entry, chunk->id.bytes, HASH_BYTES);
	store_u64be(entry + 32, frame_offset);
	store_u32be(entry + 40, chunk->offset_in_frame);
	store_u32be(entry + 44, chunk->length);
	writer->index_length += PACK_INDEX_ENTRY_SIZE;
	writer->index_count++;
}

/* A hint: it only starts writeback of pages already written, and io_fsync
 * at sealing is still what makes them durable, so its failure changes
 * nothing. It goes through io.h all the same, so every call that touches
 * the disk is counted and can be faulted. */
static void
pack_writer_start_writeback(struct pack_writer *writer)
{
	uint64_t dirty = writer->pack_size - writer->writeback_from;

	if (!writer->sync || dirty < PACK_WRITEBACK_STEP)
		return;
	(void)io_start_writeback(writer->fd, (off_t)writer->writeback_from, (off_t)dirty);
	writer->writeback_from = writer->pack_size;
}

/* Seals first when this frame would take the pack past its size limit. */
static int
pack_writer_write_frame(struct pack_writer *writer, struct pack_frame *frame)
{
	uint64_t frame_size = PACK_FRAME_HEADER_SIZE + (uint64_t)frame->stored_length;

	if (writer->fd >= 0 && writer->index_count > 0 &&
	    (writer->pack_size + frame_size > writer->seal_size ||
		writer->index_count + frame->chunk_count > PACK_SEAL_CHUNKS) &&
	    pack_writer_seal(writer) != 0)
		return writer->status;
	if (writer->fd < 0 && pack_writer_start_pack(writer) != 0)
		return writer->status;
	uint8_t *header = frame->allocation;
	header[0] = frame->codec;
	header[1] = header[2] = header[3] = 0;
	store_u32be(header + 4, frame->stored_length);
	store_u32be(header + 8, frame->raw_length);
	store_u32be(header + 12, frame->crc);
	uint64_t frame_offset = writer->pack_size;
	if (io_write_all(writer->fd, header, frame_size) != 0)
		return pack_writer_fail(writer, -1, "pack %s: writing the frame at offset %llu: %s",
		    writer->file_name, (unsigned long long)frame_offset, space_strerror(errno));
	writer->pack_size += frame_size;
	writer->bytes_written += frame_size;
	pack_writer_start_writeback(writer);
	for (size_t i = 0; i < frame->chunk_count; i++)
		pack_writer_index_chunk(writer, &frame->chunks[i], frame_offset);
	return 0;
}

/* Waits for the oldest submitted frame, writes it and frees its slot. The
 * slot is freed even when the write fails: the writer is stopped then. */
static int
pack_writer_write_oldest(struct pack_writer *writer)
{
	struct pack_frame *frame = &writer->ring[writer->ring_head];

	pthread_mutex_lock(&writer->lock);
	while (!frame->done)
		pthread_cond_wait(&writer->frame_done, &writer->lock);
	pthread_mutex_unlock(&writer->lock);
	int status = writer->status != 0 ? writer->status : pack_writer_write_frame(writer, frame);
	pack_frame_clear(frame);
	writer->ring_head = (writer->ring_head + 1) % writer->ring_size;
	writer->ring_used--;
	return status;
}

static struct pack_frame *
pack_writer_take_slot(struct pack_writer *writer)
{
	if (!writer->workers_started)
		pack_writer_start_workers(writer);
	if (writer->ring_used == writer->ring_size && pack_writer_write_oldest(writer) != 0)
		return NULL;
	struct pack_frame *frame = &writer->ring[(writer->ring_head + writer->ring_used) %
	    writer->ring_size];
	pack_frame_clear(frame);
	return frame;
}

static void
pack_writer_submit(struct pack_writer *writer, struct pack_frame *frame)
{
	writer->ring_used++;
	if (writer->worker_count == 0) {
		pack_frame_compress(frame, &writer->inline_compressor, writer->level,
		    writer->delta_level);
		frame->done = true;
		return;
	}
	pthread_mutex_lock(&writer->lock);
	writer->waiting++;
	pthread_cond_signal(&writer->work_ready);
	pthread_mutex_unlock(&writer->lock);
}

static int
pack_writer_submit_gather(struct pack_writer *writer)
{
	struct pack_frame *frame = pack_writer_take_slot(writer);

	if (frame == NULL)
		return writer->status;
	pack_frame_swap(frame, &writer->gather);
	pack_frame_clear(&writer->gather);
	pack_writer_submit(writer, frame);
	return 0;
}

static int
pack_writer_submit_alone(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_base *base)
{
	struct pack_frame *frame = pack_writer_take_slot(writer);

	if (frame == NULL)
		return writer->status;
	pack_frame_add_chunk(frame, chunk, data, length);
	if (base != NULL)
		pack_frame_set_base(frame, base);
	pack_writer_submit(writer, frame);
	return 0;
}

static int
pack_writer_usable(struct pack_writer *writer, struct hearth_error *error)
{
	if (writer->status != 0)
		return pack_writer_report(writer, error);
	if (writer->finished || writer->aborted)
		return hearth_error_put(error, "pack writer used after it %s",
		    writer->aborted ? "was aborted" : "finished");
	return 0;
}

/* A chunk with a base goes in a frame of its own, which becomes a delta
 * when that pays; small chunks without one gather. An empty base (the
 * previous version of a file that was empty) shares nothing and has no
 * bytes to copy: the chunk goes whole. */
int
pack_writer_add_delta(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_base *base, struct hearth_error *error)
{
	int status = pack_writer_usable(writer, error);

	if (status != 0)
		return status;
	if (length > CHUNK_MAX)
		return hearth_error_put(error, "chunk of %zu bytes exceeds the %u-byte limit",
		    length, CHUNK_MAX);
	if (base != NULL && (base->length == 0 || base->depth >= PACK_DELTA_DEPTH_MAX ||
				base->length > CHUNK_MAX || hash_equal(&base->id, chunk)))
		base = NULL;
	if (pack_writer_holds(writer, chunk))
		return 0;
	pack_held_insert(writer, chunk);
	if (length >= PACK_FRAME_MIN || base != NULL) {
		status = pack_writer_submit_alone(writer, chunk, data, length, base);
	} else {
		pack_frame_add_chunk(&writer->gather, chunk, data, length);
		if (writer->gather.raw_length >= PACK_FRAME_TARGET)
			status = pack_writer_submit_gather(writer);
	}
	if (status != 0)
		return pack_writer_report(writer, error);
	return 0;
}

/* A chunk with another pack's frame of it (pack.h: pack_writer_add_stored
 * and pack_writer_add_rival): only one that would have a frame of its own
 * here gets one from that frame; a small one gathers with the others, as
 * pack_writer_add's do. rival: compressed here too, the smaller kept;
 * else kept as it came, compressed or raw. */
static int
pack_writer_add_lone(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_stored *stored, bool rival,
    struct hearth_error *error)
{
	int status = pack_writer_usable(writer, error);

	if (status != 0)
		return status;
	bool compressed = stored->bytes != NULL;
	if (length < PACK_FRAME_MIN || length > CHUNK_MAX || (rival && !compressed) ||
	    (compressed && (stored->length == 0 || stored->length >= length)))
		return pack_writer_add_delta(writer, chunk, data, length, NULL, error);
	if (pack_writer_holds(writer, chunk))
		return 0;
	pack_held_insert(writer, chunk);
	struct pack_frame *frame = pack_writer_take_slot(writer);
	if (frame == NULL)
		return pack_writer_report(writer, error);
	if (rival) {
		pack_frame_add_chunk(frame, chunk, data, length);
		if (stored->length > frame->rival_capacity) {
			frame->rival = array_resize(frame->rival, stored->length, 1);
			frame->rival_capacity = stored->length;
		}
		memcpy(frame->rival, stored->bytes, stored->length);
		frame->rival_length = stored->length;
	} else {
		size_t stored_length = compressed ? stored->length : length;
		pack_frame_add_chunk(frame, chunk, compressed ? stored->bytes : data, stored_length);
		frame->chunks[0].length = frame->raw_length = (uint32_t)length;
		frame->stored_length = (uint32_t)stored_length;
		frame->codec = compressed ? PACK_CODEC_ZSTD : PACK_CODEC_RAW;
		frame->kept = true;
	}
	pack_writer_submit(writer, frame);
	return 0;
}

int
pack_writer_add_stored(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_stored *stored,
    struct hearth_error *error)
{
	return pack_writer_add_lone(writer, chunk, data, length, stored, false, error);
}

int
pack_writer_add_rival(struct pack_writer *writer, const struct hash *chunk,
    const uint8_t *data, size_t length, const struct pack_stored *rival,
    struct hearth_error *error)
{
	return pack_writer_add_lone(writer, chunk, data, length, rival, true, error);
}

int
pack_writer_add(struct pack_writer *writer, const struct hash *chunk, const uint8_t *data,
    size_t length, struct hearth_error *error)
{
	return pack_writer_add_delta(writer, chunk, data, length, NULL, error);
}

int
pack_writer_finish(struct pack_writer *writer, struct hearth_error *error)
{
	int status = pack_writer_usable(writer, error);

	if (status != 0)
		return status;
	if (writer->gather.chunk_count > 0)
		pack_writer_submit_gather(writer);
	while (writer->ring_used > 0)
		pack_writer_write_oldest(writer);
	if (writer->status == 0 && writer->fd >= 0)
		pack_writer_seal(writer);
	if (writer->status == 0 && writer->sync && writer->created_count > 0 &&
	    io_fsync(writer->dir_fd) != 0)
		pack_writer_fail(writer, -1, "packs folder %s: fsync: %s", writer->packs_path,
		    strerror(errno));
	pack_writer_stop_workers(writer);
	writer->finished = true;
	return pack_writer_report(writer, error);
}

void
pack_writer_abort(struct pack_writer *writer)
{
	if (writer->aborted)
		return;
	writer->aborted = true;
	pack_writer_stop_workers(writer);
	pack_writer_close_pack(writer);
	for (size_t i = 0; i < writer->created_count; i++)
		io_unlink(writer->dir_fd, writer->created[i]);
	writer->created_count = 0;
}

void
pack_writer_free(struct pack_writer *writer)
{
	if (writer == NULL)
		return;
	pack_writer_stop_workers(writer);
	pack_writer_close_pack(writer);
	pack_compressor_release(&writer->inline_compressor);
	pack_frame_release(&writer->gather);
	for (size_t i = 0; i < PACK_RING_MAX; i++)
		pack_frame_release(&writer->ring[i]);
	pthread_mutex_destroy(&writer->lock);
	pthread_cond_destroy(&writer->work_ready);
	pthread_cond_destroy(&writer->frame_done);
	free(writer->index);
	free(writer->depths);
	free(writer->created);
	free(writer->held);
	free(writer->packs_path);
	free(writer);
}
