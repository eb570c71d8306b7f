/* Unit tests of backend/content: a file streams into a pack and reads back
 * chunk by chunk; the blob id is the SHA-256 of the bytes (and the only
 * chunk's id for small files); chunks the store or the writer already holds
 * are not written again; memory stays bounded for a big file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/store/chunk.h"
#include "backend/store/content.h"
#include "backend/store/hash.h"
#include "backend/store/pack.h"
#include "tests/unit/tap.h"
#include "tests/lib/splitmix.h"

#define TEST_MIB (1024u * 1024)

static void
test_fill_random(uint8_t *out, size_t length, uint64_t seed)
{
	splitmix_fill(out, length, &seed);
}

static void
test_fill_text(uint8_t *out, size_t length, uint64_t seed)
{
	static const char *const words[] = { "a ", "home ", "folder ", "holds ", "notes ",
		"and ", "photos\n", "that ", "sync ", "between ", "machines ", "daily\n" };

	for (size_t at = 0; at < length;) {
		const char *word = words[splitmix_next(&seed) % (sizeof words / sizeof *words)];
		size_t word_length = strlen(word);
		if (word_length > length - at)
			word_length = length - at;
		memcpy(out + at, word, word_length);
		at += word_length;
	}
}

/* ---- a store stand-in: what was stored where, and what it "holds" ---- */

struct test_record {
	struct hash chunk;
	struct pack_location where;
};

struct test_store {
	char names[16][64];
	size_t packs;
	struct test_record *records;
	size_t record_count;
	size_t record_capacity;
	const struct hash *known;	/* chunks the store claims to hold */
	size_t known_count;
	size_t known_calls;
};

static int
test_started(void *context, const char *file_name, int64_t *pack_number)
{
	struct test_store *store = context;

	snprintf(store->names[store->packs % 16], sizeof store->names[0], "%s", file_name);
	*pack_number = (int64_t)store->packs++;
	return 0;
}

static int
test_stored(void *context, const struct hash *chunk, const struct pack_location *where)
{
	struct test_store *store = context;

	if (store->record_count == store->record_capacity) {
		store->record_capacity = store->record_capacity ? store->record_capacity * 2 : 64;
		store->records = realloc(store->records,
		    store->record_capacity * sizeof *store->records);
	}
	store->records[store->record_count++] = (struct test_record){ *chunk, *where };
	return 0;
}

static int
test_file_name(void *context, int64_t pack, char *out, size_t out_size)
{
	const struct test_store *store = context;

	if (pack < 0 || (size_t)pack >= store->packs)
		return -1;
	snprintf(out, out_size, "%s", store->names[pack]);
	return 0;
}

static int
test_known(void *context, const struct hash *chunk, size_t length)
{
	struct test_store *store = context;

	(void)length;
	store->known_calls++;
	for (size_t i = 0; i < store->known_count; i++)
		if (hash_equal(&store->known[i], chunk))
			return 1;
	return 0;
}

static struct pack_writer *
test_writer(int dir_fd, const char *path, struct test_store *store)
{
	struct pack_sink sink = { .started = test_started, .stored = test_stored,
		.context = store };

	return pack_writer_new(dir_fd, path, false, &sink);
}

static const struct test_record *
test_find(const struct test_store *store, const struct hash *chunk)
{
	for (size_t i = 0; i < store->record_count; i++)
		if (hash_equal(&store->records[i].chunk, chunk))
			return &store->records[i];
	return NULL;
}

static void
test_store_free(struct test_store *store)
{
	free(store->records);
	memset(store, 0, sizeof *store);
}

/* Reads a result's chunks back in order; true when they make expected. */
static bool
test_reads_back(int dir_fd, const char *path, struct test_store *store,
    const struct content_result *result, const uint8_t *expected, size_t length)
{
	struct pack_reader *reader = pack_reader_new(dir_fd, path, test_file_name, store);
	struct buffer out;
	struct hearth_error failure = { 0 };
	bool good = true;

	buffer_init(&out);
	for (size_t i = 0; i < result->chunk_count && good; i++) {
		const struct test_record *record = test_find(store, &result->chunks[i]);
		if (record == NULL ||
		    pack_read(reader, &result->chunks[i], &record->where, &out, &failure) != 0) {
			tap_diag("chunk %zu: %s", i, record ? failure.message : "never stored");
			good = false;
		}
	}
	good = good && out.length == length && memcmp(out.data, expected, length) == 0;
	buffer_free(&out);
	pack_reader_free(reader);
	return good;
}

static int
test_folder(const char *name, char *path, size_t path_size)
{
	snprintf(path, path_size, "%s/%s", tap_scratch_dir(), name);
	mkdir(path, 0755);
	return open(path, O_RDONLY | O_DIRECTORY);
}

static int
test_write_file(const char *name, const uint8_t *bytes, size_t length)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", tap_scratch_dir(), name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (length > 0 && write(fd, bytes, length) != (ssize_t)length))
		tap_diag("cannot write %s", path);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* ---- the tests ---- */

/* Valgrind runs these 30 to 50 times slower; a smaller big file keeps the
 * test within seconds there. */
static bool
test_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");
	return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

/* The sanitizers' shadow memory (and ASan's quarantine of freed blocks)
 * add to the process's RSS; the bound is what hearth itself may use. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_RSS_BOUND_MIB 256
#else
#define TEST_RSS_BOUND_MIB 64
#endif

static long
test_peak_rss_kib(void)
{
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_maxrss;
}

/* Runs first, before any big buffer raises the process's peak. */
static void
test_memory_bounded(void)
{
	size_t size = (test_under_valgrind() ? 32 : 256) * (size_t)TEST_MIB;
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("big", path, sizeof path);
	struct test_store store = { 0 };
	uint8_t block[64 * 1024];
	struct content_result result;
	struct hash blob;
	uint64_t hashed_size = 0;

	/* Mostly holes, with 64 KiB of random bytes in every MiB so that no
	 * two chunks are alike and every one is written. */
	int fd = test_write_file("big-file", NULL, 0);
	check_int(ftruncate(fd, (off_t)size), 0);
	for (size_t at = 0; at < size; at += TEST_MIB) {
		test_fill_random(block, sizeof block, at);
		if (pwrite(fd, block, sizeof block, (off_t)at) != (ssize_t)sizeof block)
			tap_diag("cannot write the big file");
	}
	long before = test_peak_rss_kib();
	struct pack_writer *writer = test_writer(dir_fd, path, &store);
	check_int(content_store_fd(writer, fd, test_known, &store, &result, &failure), 0);
	check_int(pack_writer_finish(writer, &failure), 0);
	long grown = (test_peak_rss_kib() - before) / 1024;
	tap_diag("storing a %zu MiB file raised peak RSS by %ld MiB (pack: %llu bytes)",
	    size / TEST_MIB, grown, (unsigned long long)pack_writer_bytes(writer));
	ok(grown < TEST_RSS_BOUND_MIB, "memory stays bounded: +%ld MiB for a %zu MiB file", grown,
	    size / TEST_MIB);
	check_uint(result.size, size);
	check_uint(store.record_count, result.chunk_count);
	lseek(fd, 0, SEEK_SET);
	check_int(content_hash_fd(fd, &blob, &hashed_size, &failure), 0);
	ok(hash_equal(&blob, &result.blob), "content_hash_fd agrees with the stored blob id");
	check_uint(hashed_size, size);
	content_result_free(&result);
	pack_writer_abort(writer);
	pack_writer_free(writer);
	test_store_free(&store);
	close(fd);
	close(dir_fd);
}

static void
test_round_trip(void)
{
	size_t size = 20 * (size_t)TEST_MIB;
	uint8_t *bytes = malloc(size);
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("round-trip", path, sizeof path);
	struct test_store store = { 0 };
	struct content_result result, again;
	struct hash expected;

	test_fill_random(bytes, 8 * TEST_MIB, 1);
	test_fill_text(bytes + 8 * TEST_MIB, 6 * TEST_MIB, 2);
	memcpy(bytes + 14 * TEST_MIB, bytes, 2 * TEST_MIB);
	test_fill_random(bytes + 16 * TEST_MIB, 4 * TEST_MIB, 3);
	hash_bytes(bytes, size, &expected);
	int fd = test_write_file("twenty", bytes, size);
	struct pack_writer *writer = test_writer(dir_fd, path, &store);
	check_int(content_store_fd(writer, fd, NULL, NULL, &result, &failure), 0);
	check_int(pack_writer_finish(writer, &failure), 0);
	ok(hash_equal(&result.blob, &expected), "the blob id is the SHA-256 of the file");
	check_uint(result.size, size);
	ok(result.chunk_count >= 10, "20 MiB makes %zu chunks", result.chunk_count);
	ok(test_reads_back(dir_fd, path, &store, &result, bytes, size),
	    "the file reads back chunk by chunk");
	pack_writer_free(writer);

	/* The same bytes from memory give the same ids. */
	writer = test_writer(dir_fd, path, &store);
	check_int(content_store_bytes(writer, bytes, size, NULL, NULL, &again, &failure), 0);
	ok(hash_equal(&again.blob, &result.blob) && again.chunk_count == result.chunk_count &&
	    memcmp(again.chunks, result.chunks, result.chunk_count * sizeof *result.chunks) == 0,
	    "content_store_bytes cuts and names the bytes as content_store_fd does");
	pack_writer_abort(writer);
	pack_writer_free(writer);

	content_result_free(&again);
	content_result_free(&result);
	test_store_free(&store);
	free(bytes);
	close(fd);
	close(dir_fd);
}

static void
test_one_chunk(const char *name, const uint8_t *bytes, size_t length, int dir_fd,
    const char *path)
{
	struct test_store store = { 0 };
	struct content_result result;
	struct hash expected;
	struct hearth_error failure = { 0 };

	hash_bytes(bytes, length, &expected);
	int fd = test_write_file(name, bytes, length);
	struct pack_writer *writer = test_writer(dir_fd, path, &store);
	check_int(content_store_fd(writer, fd, NULL, NULL, &result, &failure), 0);
	check_int(pack_writer_finish(writer, &failure), 0);
	ok(result.chunk_count == 1 && hash_equal(&result.chunks[0], &result.blob) &&
	    hash_equal(&result.blob, &expected), "%s: one chunk whose id is the blob id", name);
	check_uint(result.size, length);
	ok(test_reads_back(dir_fd, path, &store, &result, bytes, length), "%s reads back", name);
	content_result_free(&result);
	pack_writer_abort(writer);
	pack_writer_free(writer);
	test_store_free(&store);
	close(fd);
}

static void
test_small_files(void)
{
	uint8_t *bytes = malloc(CHUNK_MIN);
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("small", path, sizeof path);
	struct test_store store = { 0 };
	struct content_result result;

	test_fill_text(bytes, CHUNK_MIN, 4);
	test_one_chunk("empty", bytes, 0, dir_fd, path);
	test_one_chunk("hundred", bytes, 100, dir_fd, path);
	test_one_chunk("chunk-min", bytes, CHUNK_MIN, dir_fd, path);

	static const char target[] = "../photos/2024";
	struct hash expected;
	hash_bytes(target, strlen(target), &expected);
	struct pack_writer *writer = test_writer(dir_fd, path, &store);
	check_int(content_store_bytes(writer, target, strlen(target), NULL, NULL, &result,
	    &failure), 0);
	check_int(pack_writer_finish(writer, &failure), 0);
	ok(result.chunk_count == 1 && hash_equal(&result.blob, &expected) &&
	    hash_equal(&result.chunks[0], &expected), "a symlink target is one chunk");
	ok(test_reads_back(dir_fd, path, &store, &result, (const uint8_t *)target,
	    strlen(target)), "the symlink target reads back");
	content_result_free(&result);
	pack_writer_abort(writer);
	pack_writer_free(writer);
	test_store_free(&store);
	free(bytes);
	close(dir_fd);
}

/* Stores fd with a fresh writer and returns how many chunks it wrote. */
static size_t
test_store_counting(int dir_fd, const char *path, int fd, struct test_store *store,
    struct content_result *result, bool twice)
{
	struct hearth_error failure = { 0 };
	struct pack_writer *writer = test_writer(dir_fd, path, store);
	size_t before = store->record_count;

	for (int round = 0; round < (twice ? 2 : 1); round++) {
		if (round > 0)
			content_result_free(result);
		lseek(fd, 0, SEEK_SET);
		if (content_store_fd(writer, fd, test_known, store, result, &failure) != 0)
			tap_diag("store: %s", failure.message);
	}
	if (pack_writer_finish(writer, &failure) != 0)
		tap_diag("finish: %s", failure.message);
	pack_writer_abort(writer);
	pack_writer_free(writer);
	return store->record_count - before;
}

static void
test_known_chunks_skipped(void)
{
	size_t size = 12 * (size_t)TEST_MIB;
	uint8_t *bytes = malloc(size);
	char path[4096];
	int dir_fd = test_folder("known", path, sizeof path);
	struct test_store store = { 0 };
	struct content_result first, second;

	test_fill_random(bytes, size, 9);
	int fd = test_write_file("twelve", bytes, size);
	size_t written = test_store_counting(dir_fd, path, fd, &store, &first, false);
	check_uint(written, first.chunk_count);

	store.known = first.chunks;
	store.known_count = first.chunk_count;
	store.known_calls = 0;
	written = test_store_counting(dir_fd, path, fd, &store, &second, false);
	check_uint(written, 0);
	check_uint(store.known_calls, first.chunk_count);
	ok(hash_equal(&first.blob, &second.blob), "the same file, the same blob id");
	check_uint(store.packs, 1);
	content_result_free(&second);

	/* 100 bytes changed in the middle: only the chunk around them is new. */
	memset(bytes + 6 * TEST_MIB, 'x', 100);
	close(fd);
	fd = test_write_file("twelve", bytes, size);
	written = test_store_counting(dir_fd, path, fd, &store, &second, false);
	ok(written >= 1 && written <= 2, "an edit writes 1 or 2 new chunks (%zu of %zu)", written,
	    second.chunk_count);
	content_result_free(&second);

	/* One writer given the same file twice writes it once. */
	store.known_count = 0;
	written = test_store_counting(dir_fd, path, fd, &store, &second, true);
	check_uint(written, second.chunk_count);
	content_result_free(&second);

	content_result_free(&first);
	test_store_free(&store);
	free(bytes);
	close(fd);
	close(dir_fd);
}

/* A pipe gives no size: the window starts small and grows while the
 * read-ahead thread runs. */
static void
test_pipe(void)
{
	size_t size = 12 * (size_t)TEST_MIB;
	uint8_t *bytes = malloc(size);
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("pipe", path, sizeof path);
	struct test_store store = { 0 };
	struct content_result result;
	struct hash expected;
	int ends[2];

	test_fill_text(bytes, size, 11);
	hash_bytes(bytes, size, &expected);
	if (pipe(ends) != 0)
		tap_diag("pipe failed");
	pid_t child = fork();
	if (child == 0) {
		close(ends[0]);
		for (size_t at = 0; at < size;) {
			ssize_t wrote = write(ends[1], bytes + at, size - at);
			if (wrote <= 0)
				_exit(1);
			at += (size_t)wrote;
		}
		_exit(0);
	}
	close(ends[1]);
	struct pack_writer *writer = test_writer(dir_fd, path, &store);
	check_int(content_store_fd(writer, ends[0], NULL, NULL, &result, &failure), 0);
	check_int(pack_writer_finish(writer, &failure), 0);
	waitpid(child, NULL, 0);
	ok(hash_equal(&result.blob, &expected) && result.size == size,
	    "a pipe's bytes get the same blob id");
	ok(test_reads_back(dir_fd, path, &store, &result, bytes, size), "and read back");
	content_result_free(&result);
	pack_writer_abort(writer);
	pack_writer_free(writer);
	test_store_free(&store);
	close(ends[0]);
	free(bytes);
	close(dir_fd);
}

static void
test_read_error(void)
{
	char path[4096];
	struct hearth_error failure = { 0 };
	int dir_fd = test_folder("read-error", path, sizeof path);
	struct test_store store = { 0 };
	struct content_result result;

	struct pack_writer *writer = test_writer(dir_fd, path, &store);
	ok(content_store_fd(writer, dir_fd, NULL, NULL, &result, &failure) != 0,
	    "reading a folder fails: %s", failure.message);
	ok(strncmp(failure.message, "read: ", 6) == 0, "the error says read");
	ok(result.chunks == NULL && result.chunk_count == 0, "a failure leaves no result");
	pack_writer_free(writer);
	test_store_free(&store);
	close(dir_fd);
}

int
main(void)
{
	test_memory_bounded();
	test_round_trip();
	test_small_files();
	test_known_chunks_skipped();
	test_pipe();
	test_read_error();
	return tap_done();
}
