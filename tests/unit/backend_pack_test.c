/* Unit tests of backend/pack: chunks round-trip through packs (small ones
 * gathered into frames, big ones alone, compressed or raw), the pack's own
 * index agrees with what the sink heard, damage is found and named by file
 * and offset, sealing, dedup and abort behave, and a failure at every
 * write leaves an error and, after abort, no file. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "backend/store/chunk.h"
#include "backend/store/hash.h"
#include "backend/io/io.h"
#include "backend/store/pack.h"
#include "backend/store/pack_format.h"
#include "tests/unit/tap.h"
#include "tests/lib/splitmix.h"

#define TEST_PACKS_MAX 64
#define TEST_NAME_SIZE 64

/* ---- generated chunks ---- */

static void
test_fill_text(uint8_t *out, size_t length, uint64_t *state)
{
	static const char *const words[] = { "the ", "store ", "keeps ", "every ", "version ",
		"of ", "home\n", "files ", "in ", "packs ", "and ", "frames ", "sync\n" };

	for (size_t at = 0; at < length;) {
		const char *word = words[splitmix_next(state) % (sizeof words / sizeof *words)];
		size_t word_length = strlen(word);
		if (word_length > length - at)
			word_length = length - at;
		memcpy(out + at, word, word_length);
		at += word_length;
	}
}

struct test_chunk {
	struct hash id;
	size_t offset;			/* in the test's byte pool */
	size_t length;
};

struct test_chunks {
	uint8_t *pool;
	size_t pool_length;
	size_t pool_capacity;
	struct test_chunk *items;
	size_t count;
	size_t capacity;
	uint64_t state;
};

static void
test_chunks_add(struct test_chunks *chunks, size_t length, bool text)
{
	if (chunks->pool_length + length > chunks->pool_capacity) {
		chunks->pool_capacity = (chunks->pool_length + length) * 2;
		chunks->pool = realloc(chunks->pool, chunks->pool_capacity);
	}
	if (chunks->count == chunks->capacity) {
		chunks->capacity = chunks->capacity ? chunks->capacity * 2 : 64;
		chunks->items = realloc(chunks->items, chunks->capacity * sizeof *chunks->items);
	}
	uint8_t *bytes = chunks->pool + chunks->pool_length;
	if (text)
		test_fill_text(bytes, length, &chunks->state);
	else
		splitmix_fill(bytes, length, &chunks->state);
	struct test_chunk *chunk = &chunks->items[chunks->count++];
	chunk->offset = chunks->pool_length;
	chunk->length = length;
	hash_bytes(bytes, length, &chunk->id);
	chunks->pool_length += length;
}

static const uint8_t *
test_chunk_bytes(const struct test_chunks *chunks, const struct test_chunk *chunk)
{
	return chunks->pool + chunk->offset;
}

static void
test_chunks_free(struct test_chunks *chunks)
{
	free(chunks->pool);
	free(chunks->items);
	memset(chunks, 0, sizeof *chunks);
}

/* Small chunks of text and random bytes, the empty chunk, and big ones. */
static void
test_chunks_mixed(struct test_chunks *chunks, size_t small_count)
{
	memset(chunks, 0, sizeof *chunks);
	chunks->state = 99;
	for (size_t i = 0; i < small_count; i++)
		test_chunks_add(chunks, 1 + splitmix_next(&chunks->state) % 6000, i % 2 == 0);
	test_chunks_add(chunks, 0, false);
	test_chunks_add(chunks, 1024 * 1024, true);
	test_chunks_add(chunks, 1536 * 1024, false);
	test_chunks_add(chunks, CHUNK_MAX, false);
	test_chunks_add(chunks, PACK_FRAME_MIN, false);
	test_chunks_add(chunks, 300 * 1024, true);
}

/* ---- a sink that records what the writer tells its owner ---- */

struct test_record {
	struct hash chunk;
	struct pack_location where;
};

struct test_sink {
	char names[TEST_PACKS_MAX][TEST_NAME_SIZE];
	size_t started;
	size_t sealed;
	uint64_t sealed_size[TEST_PACKS_MAX];
	uint64_t sealed_chunks[TEST_PACKS_MAX];
	bool open;
	size_t order_errors;		/* a callback out of started/stored/sealed order */
	struct test_record *records;
	size_t record_count;
	size_t record_capacity;
	int refuse_stored;		/* returned from stored once refuse_after were taken */
	size_t refuse_after;
};

static int
test_started(void *context, const char *file_name, int64_t *pack_number)
{
	struct test_sink *sink = context;

	if (sink->open || sink->started == TEST_PACKS_MAX)
		sink->order_errors++;
	snprintf(sink->names[sink->started % TEST_PACKS_MAX], TEST_NAME_SIZE, "%s", file_name);
	*pack_number = 100 + (int64_t)sink->started++;
	sink->open = true;
	return 0;
}

static int
test_stored(void *context, const struct hash *chunk, const struct pack_location *where)
{
	struct test_sink *sink = context;

	if (!sink->open || where->pack != 100 + (int64_t)sink->started - 1)
		sink->order_errors++;
	if (sink->refuse_stored != 0 && sink->record_count == sink->refuse_after)
		return sink->refuse_stored;
	if (sink->record_count == sink->record_capacity) {
		sink->record_capacity = sink->record_capacity ? sink->record_capacity * 2 : 64;
		sink->records = realloc(sink->records,
		    sink->record_capacity * sizeof *sink->records);
	}
	sink->records[sink->record_count++] = (struct test_record){ *chunk, *where };
	return 0;
}

static int
test_sealed(void *context, int64_t pack_number, uint64_t size, uint64_t chunk_count)
{
	struct test_sink *sink = context;

	if (!sink->open || pack_number != 100 + (int64_t)sink->started - 1)
		sink->order_errors++;
	sink->sealed_size[sink->sealed % TEST_PACKS_MAX] = size;
	sink->sealed_chunks[sink->sealed % TEST_PACKS_MAX] = chunk_count;
	sink->sealed++;
	sink->open = false;
	return 0;
}

static int
test_file_name(void *context, int64_t pack, char *out, size_t out_size)
{
	const struct test_sink *sink = context;

	if (pack < 100 || pack >= 100 + (int64_t)sink->started)
		return -1;
	snprintf(out, out_size, "%s", sink->names[pack - 100]);
	return 0;
}

static struct pack_sink
test_sink_of(struct test_sink *sink)
{
	return (struct pack_sink){ .started = test_started, .stored = test_stored,
		.sealed = test_sealed, .context = sink };
}

static void
test_sink_free(struct test_sink *sink)
{
	free(sink->records);
	memset(sink, 0, sizeof *sink);
}

static const struct test_record *
test_find_record(const struct test_sink *sink, const struct hash *chunk)
{
	for (size_t i = 0; i < sink->record_count; i++)
		if (hash_equal(&sink->records[i].chunk, chunk))
			return &sink->records[i];
	return NULL;
}

/* ---- folders ---- */

static int
test_folder(const char *name, char *path, size_t path_size)
{
	snprintf(path, path_size, "%s/%s", tap_scratch_dir(), name);
	mkdir(path, 0755);
	return open(path, O_RDONLY | O_DIRECTORY);
}

static size_t
test_file_count(const char *path)
{
	DIR *folder = opendir(path);
	struct dirent *entry;
	size_t count = 0;

	while (folder != NULL && (entry = readdir(folder)) != NULL)
		if (entry->d_name[0] != '.')
			count++;
	if (folder != NULL)
		closedir(folder);
	return count;
}

static bool
test_pack_name_valid(const char *name)
{
	if (strlen(name) != 37 || strcmp(name + 32, ".pack") != 0)
		return false;
	for (size_t i = 0; i < 32; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return false;
	return true;
}

static uint64_t
test_file_size(int dir_fd, const char *name)
{
	struct stat status;
	return fstatat(dir_fd, name, &status, 0) == 0 ? (uint64_t)status.st_size : 0;
}

static int
test_write_chunks(struct pack_writer *writer, const struct test_chunks *chunks,
    struct hearth_error *error)
{
	for (size_t i = 0; i < chunks->count; i++) {
		const struct test_chunk *chunk = &chunks->items[i];
		int status = pack_writer_add(writer, &chunk->id, test_chunk_bytes(chunks, chunk),
		    chunk->length, error);
		if (status != 0)
			return status;
	}
	return pack_writer_finish(writer, error);
}

/* Reads every chunk back, in a scattered order so the reader's caches of
 * files and frames both evict. */
static size_t
test_read_back(int dir_fd, const char *path, const struct test_sink *sink,
    const struct test_chunks *chunks)
{
	struct pack_reader *reader = pack_reader_new(dir_fd, path, test_file_name, (void *)sink);
	struct buffer out;
	struct hearth_error failure = { 0 };
	size_t good = 0;

	buffer_init(&out);
	for (size_t step = 0; step < chunks->count; step++) {
		const struct test_chunk *chunk = &chunks->items[step * 7 % chunks->count];
		const struct test_record *record = test_find_record(sink, &chunk->id);
		buffer_reset(&out);
		if (record == NULL ||
		    pack_read(reader, &chunk->id, &record->where, &out, &failure) != 0) {
			tap_diag("chunk %zu: %s", step * 7 % chunks->count,
			    record ? failure.message : "never stored");
			continue;
		}
		if (out.length == chunk->length &&
		    memcmp(out.data, test_chunk_bytes(chunks, chunk), chunk->length) == 0)
			good++;
	}
	buffer_free(&out);
	pack_reader_free(reader);
	return good;
}

/* ---- the tests ---- */

static void
test_crc32c(void)
{
	check_uint(pack_crc32c(0, "123456789", 9), 0xe3069283u);
	check_uint(pack_crc32c(pack_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	check_uint(pack_crc32c(0, "", 0), 0);
	check_uint(pack_crc32c_portable(0, "123456789", 9), 0xe3069283u);
}

/* The CPU's instruction and the portable fallback agree on every length
 * around the three-stream blocks, at every alignment, from any start. */
static void
test_crc32c_hardware_agrees(void)
{
	size_t size = 3 * 8192 * 2 + 3 * 256 + 64;
	uint8_t *bytes = malloc(size + 8);
	uint64_t state = 0x9e3779b97f4a7c15ull;
	size_t disagree = 0, tried = 0;

	for (size_t i = 0; i < size + 8; i++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		bytes[i] = (uint8_t)(state >> 56);
	}
	for (size_t length = 0; length <= size; length += length < 64 ? 1 : 61) {
		for (size_t offset = 0; offset < 8; offset++) {
			uint32_t start = (uint32_t)(length * 2654435761u);
			tried++;
			disagree += pack_crc32c(start, bytes + offset, length) !=
			    pack_crc32c_portable(start, bytes + offset, length);
		}
	}
	check_uint(disagree, 0);
	ok(tried > 1000, "%zu lengths and alignments compared (%s)", tried,
	    pack_crc32c_uses_hardware() ? "the CPU's CRC32C instruction" : "no CRC32C instruction here");
	free(bytes);
}

struct test_frame_survey {
	size_t zstd;
	size_t raw;
	size_t gathered;
	size_t gathered_short;		/* gathered frames under PACK_FRAME_TARGET */
	size_t alone_small;		/* a frame of one chunk under PACK_FRAME_MIN */
};

/* Reads the header of every frame the sink was told of. */
static void
test_survey_frames(int dir_fd, const struct test_sink *sink, struct test_frame_survey *out)
{
	int fd = openat(dir_fd, sink->names[0], O_RDONLY);

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sink->record_count; i++) {
		uint64_t offset = sink->records[i].where.frame_offset;
		bool seen = false;
		size_t in_frame = 0;
		for (size_t j = 0; j < sink->record_count; j++) {
			if (sink->records[j].where.frame_offset != offset)
				continue;
			seen = seen || j < i;
			in_frame++;
		}
		if (seen)
			continue;
		uint8_t header[16];
		if (pread(fd, header, sizeof header, (off_t)offset) != sizeof header)
			continue;
		uint32_t raw_length = load_u32be(header + 8);
		if (header[0] == 1)
			out->zstd++;
		else
			out->raw++;
		if (in_frame > 1) {
			out->gathered++;
			if (raw_length < PACK_FRAME_TARGET)
				out->gathered_short++;
		} else if (raw_length < PACK_FRAME_MIN) {
			out->alone_small++;
		}
	}
	close(fd);
}

struct test_scan {
	const struct test_sink *sink;
	size_t visited;
	size_t matched;
};

static int
test_visit(void *context, const struct hash *chunk, uint64_t frame_offset,
    uint32_t offset_in_frame, uint32_t length)
{
	struct test_scan *scan = context;
	const struct test_record *record = test_find_record(scan->sink, chunk);

	scan->visited++;
	if (record != NULL && record->where.frame_offset == frame_offset &&
	    record->where.offset_in_frame == offset_in_frame && record->where.length == length)
		scan->matched++;
	return 0;
}

static void
test_round_trip(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("round-trip", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks;

	test_chunks_mixed(&chunks, 1500);
	struct pack_writer *writer = pack_writer_new(dir_fd, path, true, &callbacks);
	check_int(test_write_chunks(writer, &chunks, &failure), 0);
	check_str(failure.message, "");
	check_uint(sink.started, 1);
	check_uint(sink.sealed, 1);
	check_uint(sink.order_errors, 0);
	check_uint(sink.record_count, chunks.count);
	check_uint(sink.sealed_chunks[0], chunks.count);
	ok(test_pack_name_valid(sink.names[0]), "pack named 32 hex digits + .pack: %s",
	    sink.names[0]);
	check_uint(test_file_count(path), 1);
	check_uint(test_file_size(dir_fd, sink.names[0]), sink.sealed_size[0]);
	check_uint(pack_writer_bytes(writer), sink.sealed_size[0]);
	ok(sink.sealed_size[0] < chunks.pool_length, "text compresses: %llu bytes for %zu",
	    (unsigned long long)sink.sealed_size[0], chunks.pool_length);
	check_uint(test_read_back(dir_fd, path, &sink, &chunks), chunks.count);

	struct test_frame_survey survey;
	test_survey_frames(dir_fd, &sink, &survey);
	tap_diag("frames: %zu zstd, %zu raw, %zu gathered", survey.zstd, survey.raw,
	    survey.gathered);
	ok(survey.zstd > 0 && survey.raw > 0, "both compressed and raw frames are written");
	ok(survey.gathered > 10, "small chunks share frames");
	ok(survey.gathered_short <= 1, "gathered frames reach PACK_FRAME_TARGET but the last");
	check_uint(survey.alone_small, 0);

	struct test_scan scan = { .sink = &sink };
	check_int(pack_scan_index(dir_fd, sink.names[0], test_visit, &scan, &failure), 0);
	check_uint(scan.visited, chunks.count);
	check_uint(scan.matched, chunks.count);

	pack_writer_free(writer);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

static void
test_dedup_and_empty(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("dedup", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks;

	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	check_int(pack_writer_finish(writer, &failure), 0);
	pack_writer_free(writer);
	check_uint(test_file_count(path), 0);
	check_uint(sink.started, 0);

	memset(&chunks, 0, sizeof chunks);
	test_chunks_add(&chunks, 5000, true);
	test_chunks_add(&chunks, 200 * 1024, false);
	test_chunks_add(&chunks, 7, false);
	writer = pack_writer_new(dir_fd, path, false, &callbacks);
	ok(!pack_writer_holds(writer, &chunks.items[0].id), "a new writer holds nothing");
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < 2; i++)
			ok(pack_writer_add(writer, &chunks.items[i].id,
			    test_chunk_bytes(&chunks, &chunks.items[i]), chunks.items[i].length,
			    &failure) == 0, "add chunk %zu, round %d", i, round);
	ok(pack_writer_holds(writer, &chunks.items[0].id), "holds a small chunk it gathers");
	ok(pack_writer_holds(writer, &chunks.items[1].id), "holds a big chunk it added");
	ok(!pack_writer_holds(writer, &chunks.items[2].id), "does not hold one never added");
	check_int(pack_writer_finish(writer, &failure), 0);
	check_uint(sink.record_count, 2);
	ok(pack_writer_add(writer, &chunks.items[2].id, test_chunk_bytes(&chunks,
	    &chunks.items[2]), 7, &failure) != 0, "add after finish is refused: %s",
	    failure.message);
	pack_writer_free(writer);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

static void
test_sealing(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("sealing", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks;
	uint64_t seal_size = 256 * 1024;

	memset(&chunks, 0, sizeof chunks);
	chunks.state = 5;
	for (size_t i = 0; i < 30; i++)
		test_chunks_add(&chunks, 100 * 1024, false);
	for (size_t i = 0; i < 300; i++)
		test_chunks_add(&chunks, 2000, i % 3 != 0);
	struct pack_writer *writer = pack_writer_new(dir_fd, path, true, &callbacks);
	pack_writer_set_seal_size(writer, seal_size);
	check_int(test_write_chunks(writer, &chunks, &failure), 0);
	ok(sink.started > 8, "a small seal size makes many packs (%zu)", sink.started);
	check_uint(sink.sealed, sink.started);
	check_uint(sink.order_errors, 0);
	check_uint(test_file_count(path), sink.started);
	uint64_t total_chunks = 0, total_size = 0;
	bool bounded = true, scanned = true;
	for (size_t i = 0; i < sink.sealed; i++) {
		struct test_scan scan = { .sink = &sink };
		total_chunks += sink.sealed_chunks[i];
		total_size += sink.sealed_size[i];
		if (sink.sealed_size[i] > seal_size + 48 * sink.sealed_chunks[i] + 32)
			bounded = false;
		if (pack_scan_index(dir_fd, sink.names[i], test_visit, &scan, &failure) != 0 ||
		    scan.matched != sink.sealed_chunks[i])
			scanned = false;
	}
	check_uint(total_chunks, chunks.count);
	check_uint(total_size, pack_writer_bytes(writer));
	ok(bounded, "no pack's frames pass the seal size");
	ok(scanned, "every pack's own index matches what the sink heard");
	check_uint(test_read_back(dir_fd, path, &sink, &chunks), chunks.count);
	pack_writer_free(writer);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

static void
test_abort(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("abort", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks;

	test_chunks_mixed(&chunks, 200);
	for (size_t i = 0; i < 20; i++)
		test_chunks_add(&chunks, 300 * 1024, false);
	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	pack_writer_set_seal_size(writer, 1024 * 1024);
	for (size_t i = 0; i < chunks.count; i++)
		pack_writer_add(writer, &chunks.items[i].id,
		    test_chunk_bytes(&chunks, &chunks.items[i]), chunks.items[i].length, &failure);
	ok(test_file_count(path) >= 2, "packs are on disk before finish (%zu)",
	    test_file_count(path));
	pack_writer_abort(writer);
	check_uint(test_file_count(path), 0);
	ok(pack_writer_finish(writer, &failure) != 0, "finish after abort is refused");
	pack_writer_free(writer);

	writer = pack_writer_new(dir_fd, path, false, &callbacks);
	check_int(test_write_chunks(writer, &chunks, &failure), 0);
	check_uint(test_file_count(path), 1);
	pack_writer_abort(writer);
	check_uint(test_file_count(path), 0);
	pack_writer_free(writer);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

/* Every pack file is identical whatever thread count compressed it. */
static void
test_threads_agree(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("threads", path, sizeof path);
	struct test_chunks chunks;
	uint8_t *first = NULL;
	size_t first_length = 0;
	bool same = true;

	test_chunks_mixed(&chunks, 300);
	for (int threads = 0; threads <= 2; threads++) {
		struct test_sink sink = { 0 };
		struct pack_sink callbacks = test_sink_of(&sink);
		struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
		pack_writer_set_threads(writer, threads);
		check_int(test_write_chunks(writer, &chunks, &failure), 0);
		size_t length = test_file_size(dir_fd, sink.names[0]);
		uint8_t *bytes = malloc(length);
		int fd = openat(dir_fd, sink.names[0], O_RDONLY);
		ok(pread(fd, bytes, length, 0) == (ssize_t)length, "read pack %d", threads);
		close(fd);
		if (first == NULL) {
			first = bytes;
			first_length = length;
		} else {
			same = same && length == first_length && memcmp(bytes, first, length) == 0;
			free(bytes);
		}
		pack_writer_abort(writer);
		pack_writer_free(writer);
		test_sink_free(&sink);
	}
	ok(same, "0, 1 and 2 compressing threads write the same bytes");
	free(first);
	test_chunks_free(&chunks);
	close(dir_fd);
}

/* ---- damage ---- */

struct test_damaged {
	int dir_fd;
	char path[4096];
	struct test_sink sink;
	struct test_chunks chunks;
	uint8_t *pristine;
	size_t length;
	const struct test_record *raw;		/* the big random chunk: a raw frame */
	const struct test_record *zstd;		/* the big text chunk: a zstd frame */
};

static void
test_damaged_make(struct test_damaged *damaged)
{
	struct pack_sink callbacks = test_sink_of(&damaged->sink);
	struct hearth_error failure;

	memset(damaged, 0, sizeof *damaged);
	damaged->dir_fd = test_folder("damage", damaged->path, sizeof damaged->path);
	test_chunks_mixed(&damaged->chunks, 100);
	struct pack_writer *writer = pack_writer_new(damaged->dir_fd, damaged->path, false,
	    &callbacks);
	test_write_chunks(writer, &damaged->chunks, &failure);
	pack_writer_free(writer);
	size_t count = damaged->chunks.count;
	damaged->raw = test_find_record(&damaged->sink, &damaged->chunks.items[count - 4].id);
	damaged->zstd = test_find_record(&damaged->sink, &damaged->chunks.items[count - 5].id);
	damaged->length = test_file_size(damaged->dir_fd, damaged->sink.names[0]);
	damaged->pristine = malloc(damaged->length);
	int fd = openat(damaged->dir_fd, damaged->sink.names[0], O_RDONLY);
	if (pread(fd, damaged->pristine, damaged->length, 0) != (ssize_t)damaged->length)
		tap_diag("could not read the pack back");
	close(fd);
}

/* Rewrites the pack as pristine bytes with one byte xor-ed (or none when
 * at is beyond length), cut to length. */
static void
test_damage(struct test_damaged *damaged, size_t at, uint8_t flip, size_t length)
{
	const char *name = damaged->sink.names[0];

	fchmodat(damaged->dir_fd, name, 0644, 0);
	int fd = openat(damaged->dir_fd, name, O_WRONLY | O_TRUNC);
	if (write(fd, damaged->pristine, length) != (ssize_t)length)
		tap_diag("could not rewrite the pack");
	if (at < length && pwrite(fd, &(uint8_t){ damaged->pristine[at] ^ flip }, 1,
		(off_t)at) != 1)
		tap_diag("could not damage the pack");
	close(fd);
}

/* The message into a caller's buffer, cut to its size. */
static void
test_copy_message(char *out, size_t size, const struct hearth_error *failure)
{
	size_t length = strnlen(failure->message, size - 1);
	memcpy(out, failure->message, length);
	out[length] = '\0';
}

static void
test_damaged_read(struct test_damaged *damaged, const struct test_record *record,
    char *error, size_t error_size)
{
	struct pack_reader *reader = pack_reader_new(damaged->dir_fd, damaged->path,
	    test_file_name, &damaged->sink);
	struct buffer out;

	buffer_init(&out);
	struct hearth_error failure;
	if (pack_read(reader, &record->chunk, &record->where, &out, &failure) == 0)
		snprintf(error, error_size, "(read succeeded)");
	else
		test_copy_message(error, error_size, &failure);
	buffer_free(&out);
	pack_reader_free(reader);
}

static void
test_damaged_scan(struct test_damaged *damaged, char *error, size_t error_size)
{
	struct test_scan scan = { .sink = &damaged->sink };

	struct hearth_error failure;
	if (pack_scan_index(damaged->dir_fd, damaged->sink.names[0], test_visit, &scan,
		&failure) == 0)
		snprintf(error, error_size, "(scan succeeded)");
	else
		test_copy_message(error, error_size, &failure);
}

static void
test_damage_found(void)
{
	struct test_damaged damaged;
	char error[512], want[512];

	test_damaged_make(&damaged);
	const char *name = damaged.sink.names[0];
	size_t raw_at = (size_t)damaged.raw->where.frame_offset;
	size_t zstd_at = (size_t)damaged.zstd->where.frame_offset;
	ok(damaged.pristine[raw_at] == 0 && damaged.pristine[zstd_at] == 1,
	    "the big random chunk is a raw frame, the big text chunk a zstd one");

	test_damage(&damaged, raw_at + 16 + 1000, 0x40, damaged.length);
	test_damaged_read(&damaged, damaged.raw, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: frame at offset %zu: checksum mismatch", name,
	    raw_at);
	check_str(error, want);

	test_damage(&damaged, zstd_at + 13, 0x01, damaged.length);
	test_damaged_read(&damaged, damaged.zstd, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: frame at offset %zu: checksum mismatch", name,
	    zstd_at);
	check_str(error, want);

	/* A flipped byte under a matching crc: only the chunk hash can tell. */
	test_damage(&damaged, raw_at + 16 + 1000, 0x40, damaged.length);
	uint8_t *frame = damaged.pristine + raw_at;
	uint32_t stored_length = load_u32be(frame + 4);
	uint8_t *copy = malloc(stored_length);
	memcpy(copy, frame + 16, stored_length);
	copy[1000] ^= 0x40;
	uint8_t crc[4];
	store_u32be(crc, pack_crc32c(0, copy, stored_length));
	free(copy);
	int fd = openat(damaged.dir_fd, name, O_WRONLY);
	ok(pwrite(fd, crc, 4, (off_t)raw_at + 12) == 4, "crc rewritten to match");
	close(fd);
	test_damaged_read(&damaged, damaged.raw, error, sizeof error);
	ok(strstr(error, "hash mismatch") != NULL, "bad bytes under a good crc: %s", error);
	snprintf(want, sizeof want, "pack %s: frame at offset %zu: chunk ", name, raw_at);
	ok(strncmp(error, want, strlen(want)) == 0, "the error names file and frame offset");

	test_damage(&damaged, SIZE_MAX, 0, zstd_at + 100);
	test_damaged_read(&damaged, damaged.zstd, error, sizeof error);
	snprintf(want, sizeof want,
	    "pack %s: frame at offset %zu: truncated (the file ends at %zu)",
	    name, zstd_at, zstd_at + 100);
	check_str(error, want);
	test_damaged_scan(&damaged, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: footer at offset %zu: no seal (truncated or "
	    "unfinished)", name, zstd_at + 100 - 20);
	check_str(error, want);

	test_damage(&damaged, zstd_at, 0x07, damaged.length);
	test_damaged_read(&damaged, damaged.zstd, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: frame at offset %zu: bad frame header", name,
	    zstd_at);
	check_str(error, want);

	/* A delta frame claiming 4 GiB of stored bytes is refused by its header,
	 * before anything is allocated for it (the pack fuzzer's OOM). */
	test_damage(&damaged, SIZE_MAX, 0, damaged.length);
	uint8_t claim[8] = { PACK_CODEC_DELTA, 0, 0, 0, 0xff, 0x3f, 0, 0 };
	fd = openat(damaged.dir_fd, name, O_WRONLY);
	ok(pwrite(fd, claim, sizeof claim, (off_t)zstd_at) == (ssize_t)sizeof claim,
	    "a delta header claiming 4 GiB written");
	close(fd);
	test_damaged_read(&damaged, damaged.zstd, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: frame at offset %zu: bad frame header", name,
	    zstd_at);
	check_str(error, want);

	uint64_t index_at = load_u64be(damaged.pristine + damaged.length - 20);
	test_damage(&damaged, (size_t)index_at + 12 + 40, 0x10, damaged.length);
	test_damaged_scan(&damaged, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: index at offset %llu: checksum mismatch", name,
	    (unsigned long long)index_at);
	check_str(error, want);

	test_damage(&damaged, 3, 0x20, damaged.length);
	test_damaged_scan(&damaged, error, sizeof error);
	snprintf(want, sizeof want, "pack %s: header at offset 0: not a hearth pack", name);
	check_str(error, want);

	test_damage(&damaged, SIZE_MAX, 0, damaged.length);
	test_damaged_scan(&damaged, error, sizeof error);
	check_str(error, "(scan succeeded)");
	test_damaged_read(&damaged, damaged.zstd, error, sizeof error);
	check_str(error, "(read succeeded)");

	free(damaged.pristine);
	test_chunks_free(&damaged.chunks);
	test_sink_free(&damaged.sink);
	close(damaged.dir_fd);
}

/* ---- deltas ---- */

static int
test_locate(void *context, const struct hash *chunk, struct pack_location *out)
{
	const struct test_record *record = test_find_record(context, chunk);

	if (record == NULL)
		return -1;
	*out = record->where;
	return 0;
}

/* The chunk at index from of chunks, with a few bytes changed, as a new one. */
static void
test_chunks_edit(struct test_chunks *chunks, size_t from, size_t edits)
{
	size_t length = chunks->items[from].length;

	test_chunks_add(chunks, length, false);
	struct test_chunk *edited = &chunks->items[chunks->count - 1];
	uint8_t *bytes = chunks->pool + edited->offset;
	memcpy(bytes, chunks->pool + chunks->items[from].offset, length);
	for (size_t i = 0; i < edits; i++)
		bytes[splitmix_next(&chunks->state) % length] ^= 0x20;
	hash_bytes(bytes, length, &edited->id);
}

static uint32_t
test_stored_length(int dir_fd, const struct test_sink *sink, const struct test_record *record)
{
	uint8_t header[16] = { 0 };
	int fd = openat(dir_fd, sink->names[record->where.pack - 100], O_RDONLY);

	if (fd >= 0 && pread(fd, header, sizeof header, (off_t)record->where.frame_offset) < 0)
		memset(header, 0, sizeof header);
	if (fd >= 0)
		close(fd);
	return load_u32be(header + 4);
}

static int
test_add_based(struct pack_writer *writer, struct test_chunks *chunks, size_t index,
    size_t base_index, const struct test_sink *sink, struct hearth_error *error)
{
	const struct test_chunk *chunk = &chunks->items[index];
	const struct test_chunk *based = &chunks->items[base_index];
	const struct test_record *record = test_find_record(sink, &based->id);
	struct pack_base base = { .id = based->id, .data = test_chunk_bytes(chunks, based),
		.length = based->length, .depth = record != NULL ? record->where.depth : 0 };

	return pack_writer_add_delta(writer, &chunk->id, test_chunk_bytes(chunks, chunk),
	    chunk->length, &base, error);
}

static uint32_t
test_depth_of(const struct test_sink *sink, const struct test_chunks *chunks, size_t index)
{
	const struct test_record *record = test_find_record(sink, &chunks->items[index].id);
	return record != NULL ? record->where.depth : 999;
}

/* Text chunks edited a little become small deltas, chained, each read back
 * through its bases; random bytes against unrelated ones, and a base too
 * deep, are stored whole; a delta with no base to be found, or a damaged
 * one, is an error naming the pack, never wrong bytes. */
static void
test_deltas(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("deltas", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks;
	enum { TEXT, RANDOM, SMALL, OTHER, TEXT_2, RANDOM_2, SMALL_2, TEXT_3, COUNT };

	memset(&chunks, 0, sizeof chunks);
	chunks.state = 7;
	test_chunks_add(&chunks, 200 * 1024, true);
	test_chunks_add(&chunks, 100 * 1024, false);
	test_chunks_add(&chunks, 3000, true);
	test_chunks_add(&chunks, 100 * 1024, false);
	test_chunks_edit(&chunks, TEXT, 3);
	test_chunks_add(&chunks, 100 * 1024, false);
	test_chunks_edit(&chunks, SMALL, 1);
	test_chunks_edit(&chunks, TEXT_2, 2);
	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	for (size_t i = TEXT; i <= OTHER; i++)
		pack_writer_add(writer, &chunks.items[i].id, test_chunk_bytes(&chunks,
		    &chunks.items[i]), chunks.items[i].length, &failure);
	check_int(pack_writer_finish(writer, &failure), 0);
	pack_writer_free(writer);
	writer = pack_writer_new(dir_fd, path, false, &callbacks);
	ok(test_add_based(writer, &chunks, TEXT_2, TEXT, &sink, &failure) == 0 &&
	    test_add_based(writer, &chunks, RANDOM_2, RANDOM, &sink, &failure) == 0 &&
	    test_add_based(writer, &chunks, SMALL_2, SMALL, &sink, &failure) == 0 &&
	    pack_writer_finish(writer, &failure) == 0, "deltas written: %s", failure.message);
	pack_writer_free(writer);
	writer = pack_writer_new(dir_fd, path, false, &callbacks);
	ok(test_add_based(writer, &chunks, TEXT_3, TEXT_2, &sink, &failure) == 0 &&
	    pack_writer_finish(writer, &failure) == 0, "a delta of a delta: %s", failure.message);
	pack_writer_free(writer);

	check_uint(test_depth_of(&sink, &chunks, TEXT_2), 1);
	check_uint(test_depth_of(&sink, &chunks, TEXT_3), 2);
	check_uint(test_depth_of(&sink, &chunks, SMALL_2), 1);
	check_uint(test_depth_of(&sink, &chunks, RANDOM_2), 0);
	uint32_t stored = test_stored_length(dir_fd, &sink, test_find_record(&sink,
	    &chunks.items[TEXT_3].id));
	ok(stored > 32 && stored < 200 * 1024 / 16, "an edit of 200 KiB of text is a %u-byte "
	    "delta", stored);

	struct pack_reader *reader = pack_reader_new(dir_fd, path, test_file_name, &sink);
	pack_reader_set_locate(reader, test_locate);
	struct buffer out;
	size_t good = 0;
	buffer_init(&out);
	for (size_t round = 0; round < 2; round++)
		for (size_t i = COUNT; i-- > 0;) {
			const struct test_record *record = test_find_record(&sink,
			    &chunks.items[i].id);
			buffer_reset(&out);
			if (pack_read(reader, &chunks.items[i].id, &record->where, &out,
			    &failure) == 0 && out.length == chunks.items[i].length &&
			    memcmp(out.data, test_chunk_bytes(&chunks, &chunks.items[i]),
				out.length) == 0)
				good++;
			else
				tap_diag("chunk %zu: %s", i, failure.message);
		}
	check_uint(good, 2 * COUNT);
	pack_reader_free(reader);

	reader = pack_reader_new(dir_fd, path, test_file_name, &sink);
	const struct test_record *delta = test_find_record(&sink, &chunks.items[TEXT_3].id);
	ok(pack_read(reader, &chunks.items[TEXT_3].id, &delta->where, &out, &failure) != 0 &&
	    strstr(failure.message, "base of this delta is not in the store") != NULL,
	    "without the store's index a delta is an error: %s", failure.message);
	pack_reader_free(reader);

	/* A byte of the first base flipped: its deltas no longer read. */
	const struct test_record *base = test_find_record(&sink, &chunks.items[TEXT].id);
	int fd = openat(dir_fd, sink.names[0], O_RDWR);
	uint8_t byte = 0;
	off_t at = (off_t)base->where.frame_offset + 16 + 40;
	ok(fd >= 0 && pread(fd, &byte, 1, at) == 1, "read a byte of the base");
	byte ^= 1;
	ok(fchmod(fd, 0644) == 0 && pwrite(fd, &byte, 1, at) == 1, "flipped a byte of the base");
	close(fd);
	reader = pack_reader_new(dir_fd, path, test_file_name, &sink);
	pack_reader_set_locate(reader, test_locate);
	buffer_reset(&out);
	ok(pack_read(reader, &chunks.items[TEXT_3].id, &delta->where, &out, &failure) != 0 &&
	    strstr(failure.message, sink.names[0]) != NULL && out.length == 0,
	    "a delta over a damaged base is an error naming the base's pack: %s", failure.message);
	pack_reader_free(reader);

	/* A base as deep as allowed: the chunk goes whole. */
	writer = pack_writer_new(dir_fd, path, false, &callbacks);
	test_chunks_edit(&chunks, TEXT_3, 1);
	struct pack_base deep = { .id = chunks.items[TEXT_3].id,
		.data = test_chunk_bytes(&chunks, &chunks.items[TEXT_3]),
		.length = chunks.items[TEXT_3].length, .depth = PACK_DELTA_DEPTH_MAX };
	const struct test_chunk *last = &chunks.items[chunks.count - 1];
	ok(pack_writer_add_delta(writer, &last->id, test_chunk_bytes(&chunks, last),
	    last->length, &deep, &failure) == 0 &&
	    pack_writer_finish(writer, &failure) == 0, "written beside a deep base");
	check_uint(test_depth_of(&sink, &chunks, chunks.count - 1), 0);
	pack_writer_free(writer);

	/* An empty base (a file that was empty before): no bytes to copy from
	 * (UBSan once stopped on the copy of none), the chunk goes whole. */
	writer = pack_writer_new(dir_fd, path, false, &callbacks);
	test_chunks_add(&chunks, 100 * 1024, true);
	struct pack_base empty = { .id = chunks.items[SMALL].id, .data = NULL, .length = 0 };
	last = &chunks.items[chunks.count - 1];
	ok(pack_writer_add_delta(writer, &last->id, test_chunk_bytes(&chunks, last),
	    last->length, &empty, &failure) == 0 &&
	    pack_writer_finish(writer, &failure) == 0, "written beside an empty base: %s",
	    failure.message);
	check_uint(test_depth_of(&sink, &chunks, chunks.count - 1), 0);
	pack_writer_free(writer);
	buffer_free(&out);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

/* ---- failures ---- */

static void
test_sink_refuses(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("refuse", path, sizeof path);
	struct test_sink sink = { .refuse_stored = 7, .refuse_after = 3 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks;

	test_chunks_mixed(&chunks, 50);
	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	check_int(test_write_chunks(writer, &chunks, &failure), 7);
	ok(strstr(failure.message, "refused") != NULL, "the error says the store refused: %s",
	    failure.message);
	ok(pack_writer_add(writer, &chunks.items[0].id, test_chunk_bytes(&chunks,
	    &chunks.items[0]), chunks.items[0].length, &failure) == 7,
	    "a stopped writer keeps refusing");
	pack_writer_abort(writer);
	check_uint(test_file_count(path), 0);
	pack_writer_free(writer);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

/* Fails the 1st, 2nd, ... write-class call of a writer making several
 * synced packs, until one run gets through: each failure must come back as
 * an error, and abort must then leave no file. */
static void
test_fault_walk(enum io_fault_kind kind, const char *kind_name)
{
	char path[4096];
	struct hearth_error failure;
	int dir_fd = test_folder("faults", path, sizeof path);
	struct test_chunks chunks;
	size_t failures = 0, unclean = 0, unexplained = 0;
	bool completed = false;

	memset(&chunks, 0, sizeof chunks);
	for (size_t i = 0; i < 6; i++)
		test_chunks_add(&chunks, 100 * 1024, i % 2 == 0);
	for (size_t i = 0; i < 40; i++)
		test_chunks_add(&chunks, 3000, true);
	for (uint64_t nth = 1; nth < 200 && !completed; nth++) {
		struct test_sink sink = { 0 };
		struct pack_sink callbacks = test_sink_of(&sink);
		struct pack_writer *writer = pack_writer_new(dir_fd, path, true, &callbacks);
		pack_writer_set_seal_size(writer, 200 * 1024);
		uint64_t before = io_call_count();
		io_fault_arm(nth, kind);
		failure.message[0] = '\0';
		int status = test_write_chunks(writer, &chunks, &failure);
		bool fired = io_call_count() - before >= nth;
		io_fault_arm(0, kind);
		if (status == 0) {
			completed = !fired;
			if (fired)
				unexplained++;
		} else {
			failures++;
			if (failure.message[0] == '\0' || !fired)
				unexplained++;
		}
		pack_writer_abort(writer);
		if (test_file_count(path) != 0)
			unclean++;
		pack_writer_free(writer);
		test_sink_free(&sink);
	}
	ok(completed, "%s: a run past the last write completes", kind_name);
	ok(failures > 10, "%s: %zu failing writes walked", kind_name, failures);
	check_uint(unexplained, 0);
	check_uint(unclean, 0);
	test_chunks_free(&chunks);
	close(dir_fd);
}

/* A chunk as one zstd frame at level, as another pack may hold it; the
 * caller frees its bytes. A length of 0 when zstd fails. */
static struct pack_stored
test_zstd_frame(const struct test_chunks *chunks, const struct test_chunk *chunk, int level)
{
	size_t bound = ZSTD_compressBound(chunk->length);
	uint8_t *bytes = malloc(bound);
	size_t length = ZSTD_compress(bytes, bound, test_chunk_bytes(chunks, chunk),
	    chunk->length, level);
	return (struct pack_stored){ .bytes = bytes, .length = ZSTD_isError(length) ? 0 : length };
}

/* A chunk another pack stored alone in a frame (sync protocol 5) is kept
 * as it came: the zstd frame byte for byte, raw bytes raw; a small one
 * gathers as any other, and a "compressed" frame no shorter than the chunk
 * is compressed here as usual. Each reads back as the chunk. */
static void
test_stored_kept(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("stored", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks = { .state = 7 };

	test_chunks_add(&chunks, 512 * 1024, true);	/* kept as a zstd frame */
	test_chunks_add(&chunks, 300 * 1024, false);	/* kept raw */
	test_chunks_add(&chunks, 4000, true);		/* small: gathers */
	test_chunks_add(&chunks, 200 * 1024, true);	/* a frame as long as the chunk */
	const struct test_chunk *text = &chunks.items[0];
	/* Level 9, which the writer never uses: only the frame given makes these bytes. */
	struct pack_stored as_frame = test_zstd_frame(&chunks, text, 9), as_raw = { NULL, 0 };
	const uint8_t *frame = as_frame.bytes;
	size_t frame_length = as_frame.length;
	ok(frame_length > 0 && frame_length < text->length, "a zstd frame to keep");
	struct pack_stored too_long = { test_chunk_bytes(&chunks, &chunks.items[3]),
		chunks.items[3].length };
	const struct pack_stored *forms[] = { &as_frame, &as_raw, &as_frame, &too_long };

	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	for (size_t i = 0; i < chunks.count; i++) {
		const struct test_chunk *chunk = &chunks.items[i];
		ok(pack_writer_add_stored(writer, &chunk->id, test_chunk_bytes(&chunks, chunk),
		    chunk->length, forms[i], &failure) == 0, "chunk %zu added as stored", i);
	}
	check_int(pack_writer_finish(writer, &failure), 0);
	pack_writer_free(writer);
	check_uint(test_read_back(dir_fd, path, &sink, &chunks), chunks.count);

	struct pack_reader *reader = pack_reader_new(dir_fd, path, test_file_name, &sink);
	struct buffer out;
	bool compressed = false;
	buffer_init(&out);
	const struct test_record *record = test_find_record(&sink, &text->id);
	ok(record != NULL && pack_read_stored(reader, &record->where, &out, &compressed,
	    &failure) == 1 && compressed && out.length == frame_length &&
	    memcmp(out.data, frame, frame_length) == 0, "the zstd frame is kept byte for byte");
	buffer_reset(&out);
	record = test_find_record(&sink, &chunks.items[1].id);
	ok(record != NULL && pack_read_stored(reader, &record->where, &out, &compressed,
	    &failure) == 1 && !compressed && out.length == chunks.items[1].length &&
	    memcmp(out.data, test_chunk_bytes(&chunks, &chunks.items[1]), out.length) == 0,
	    "the raw chunk is kept raw");
	buffer_reset(&out);
	record = test_find_record(&sink, &chunks.items[3].id);
	ok(record != NULL && pack_read_stored(reader, &record->where, &out, &compressed,
	    &failure) == 1 && compressed && out.length < chunks.items[3].length,
	    "a frame no shorter than its chunk is not kept: the chunk is compressed here");

	/* A chunk sharing its frame is not read as stored. */
	struct pack_sink gathered_callbacks = test_sink_of(&sink);
	struct test_chunks small = { .state = 8 };
	test_chunks_add(&small, 3000, true);
	test_chunks_add(&small, 3000, true);
	writer = pack_writer_new(dir_fd, path, false, &gathered_callbacks);
	check_int(test_write_chunks(writer, &small, &failure), 0);
	pack_writer_free(writer);
	record = test_find_record(&sink, &small.items[1].id);
	buffer_reset(&out);
	ok(record != NULL && pack_read_stored(reader, &record->where, &out, &compressed,
	    &failure) == 0 && out.length == 0, "a chunk that shares its frame is read raw");

	buffer_free(&out);
	pack_reader_free(reader);
	free((void *)frame);
	test_chunks_free(&small);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

/* A chunk this process wrote and hashed is not hashed again when read at
 * the place it was written; read at any other place, or a chunk never
 * trusted, it is. */
static void
test_trusted_reads(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("trusted", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks = { .state = 11 };

	test_chunks_add(&chunks, 200 * 1024, true);
	test_chunks_add(&chunks, 300 * 1024, true);
	test_chunks_add(&chunks, 1000, true);
	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	check_int(test_write_chunks(writer, &chunks, &failure), 0);
	pack_writer_free(writer);

	struct pack_reader *reader = pack_reader_new(dir_fd, path, test_file_name, &sink);
	struct buffer out;
	buffer_init(&out);
	const struct test_record *first = test_find_record(&sink, &chunks.items[0].id);
	const struct test_record *second = test_find_record(&sink, &chunks.items[1].id);
	const struct test_record *small = test_find_record(&sink, &chunks.items[2].id);
	pack_reader_trust(reader, &first->chunk, &first->where);
	pack_reader_trust(reader, &small->chunk, &small->where);
	struct pack_location elsewhere = second->where;
	pack_reader_trust(reader, &second->chunk, &elsewhere);
	elsewhere.frame_offset += 1;
	pack_reader_trust(reader, &second->chunk, &elsewhere);
	ok(pack_read(reader, &first->chunk, &first->where, &out, &failure) == 0 &&
	    out.length == chunks.items[0].length && pack_reader_chunks_hashed(reader) == 0,
	    "a trusted chunk read where it was written is not hashed again");
	ok(pack_read(reader, &second->chunk, &second->where, &out, &failure) == 0 &&
	    pack_reader_chunks_hashed(reader) == 1,
	    "one trusted at another place (the last said) is hashed");
	ok(pack_read(reader, &small->chunk, &small->where, &out, &failure) == 0 &&
	    pack_reader_chunks_hashed(reader) == 2, "a small chunk is not trusted, so hashed");
	buffer_reset(&out);
	ok(pack_read(reader, &second->chunk, &first->where, &out, &failure) != 0 &&
	    strstr(failure.message, "hash mismatch") != NULL,
	    "another chunk's id at a trusted place is still caught: %s", failure.message);

	buffer_free(&out);
	pack_reader_free(reader);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

/* A full gc offers the frame a chunk had as a rival to its own: the
 * smaller of the two is stored. */
static void
test_rival_frames(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("rival", path, sizeof path);
	struct test_sink sink = { 0 };
	struct pack_sink callbacks = test_sink_of(&sink);
	struct test_chunks chunks = { .state = 13 };

	test_chunks_add(&chunks, 400 * 1024, true);
	test_chunks_add(&chunks, 400 * 1024, true);
	/* Level 19 beats the writer's level 1; a negative level loses to it. */
	struct pack_stored rivals[] = { test_zstd_frame(&chunks, &chunks.items[0], 19),
		test_zstd_frame(&chunks, &chunks.items[1], -5) };
	const uint8_t *better = rivals[0].bytes;
	size_t better_length = rivals[0].length, worse_length = rivals[1].length;
	struct pack_writer *writer = pack_writer_new(dir_fd, path, false, &callbacks);
	for (size_t i = 0; i < 2; i++)
		ok(pack_writer_add_rival(writer, &chunks.items[i].id, test_chunk_bytes(&chunks,
		    &chunks.items[i]), chunks.items[i].length, &rivals[i], &failure) == 0,
		    "chunk %zu added with a rival", i);
	check_int(pack_writer_finish(writer, &failure), 0);
	pack_writer_free(writer);
	check_uint(test_read_back(dir_fd, path, &sink, &chunks), chunks.count);

	struct pack_reader *reader = pack_reader_new(dir_fd, path, test_file_name, &sink);
	struct buffer out;
	bool compressed = false;
	buffer_init(&out);
	const struct test_record *record = test_find_record(&sink, &chunks.items[0].id);
	ok(record != NULL && pack_read_stored(reader, &record->where, &out, &compressed,
	    &failure) == 1 && compressed && out.length == better_length &&
	    memcmp(out.data, better, better_length) == 0, "a smaller rival is stored as it came");
	buffer_reset(&out);
	record = test_find_record(&sink, &chunks.items[1].id);
	int found = record != NULL ? pack_read_stored(reader, &record->where, &out, &compressed,
	    &failure) : -1;
	ok(found == 1 && compressed && out.length < worse_length,
	    "a bigger rival is not: the writer's own frame is (%zu bytes against %zu)",
	    out.length, worse_length);
	buffer_free(&out);
	pack_reader_free(reader);
	free((void *)rivals[0].bytes);
	free((void *)rivals[1].bytes);
	test_chunks_free(&chunks);
	test_sink_free(&sink);
	close(dir_fd);
}

int
main(void)
{
	test_crc32c();
	test_crc32c_hardware_agrees();
	test_round_trip();
	test_dedup_and_empty();
	test_sealing();
	test_abort();
	test_threads_agree();
	test_damage_found();
	test_deltas();
	test_stored_kept();
	test_trusted_reads();
	test_rival_frames();
	test_sink_refuses();
	test_fault_walk(IO_FAULT_EIO, "EIO");
	test_fault_walk(IO_FAULT_SHORT, "short write");
	return tap_done();
}
