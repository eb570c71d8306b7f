/* Fuzz target: the pack reader (backend/store/pack_read.c): a pack file's ends and
 * its own index (pack_scan_index, what fsck and repair walk), and its
 * frames read through pack_read, on a file holding the input. Each input
 * is tried as it is and again with every checksum made to fit, so that
 * mutations reach the frame headers, the zstd decoder and the index
 * entries behind the CRCs. A read that succeeds must hand out exactly the
 * chunk asked for. */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "backend/store/hash.h"
#include "backend/store/pack.h"
#include "tests/fuzz/fuzz.h"

/* The layout of pack.h, as a hostile writer sees it. */
#define PACK_FUZZ_HEADER 16
#define PACK_FUZZ_FRAME_HEADER 16
#define PACK_FUZZ_FOOTER 20
#define PACK_FUZZ_ENTRIES 256
#define PACK_FUZZ_FRAMES 64
#define PACK_FUZZ_NAME "fuzz.pack"

struct pack_fuzz_entry {
	struct hash chunk;
	struct pack_location where;
};

struct pack_fuzz_entries {
	struct pack_fuzz_entry items[PACK_FUZZ_ENTRIES];
	size_t count;
};

static int pack_fuzz_dir = -1;
static char pack_fuzz_path[256];

static void
pack_fuzz_setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	if (pack_fuzz_dir >= 0)
		return;
	snprintf(pack_fuzz_path, sizeof pack_fuzz_path, "%s/hearth-pack-fuzz.XXXXXX", base);
	fuzz_check(mkdtemp(pack_fuzz_path) != NULL, "a scratch folder");
	pack_fuzz_dir = open(pack_fuzz_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fuzz_check(pack_fuzz_dir >= 0, "the scratch folder opens");
}

static void
pack_fuzz_write(const uint8_t *data, size_t size)
{
	int fd = openat(pack_fuzz_dir, PACK_FUZZ_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);

	fuzz_check(fd >= 0, "the scratch pack opens");
	for (size_t done = 0; done < size;) {
		ssize_t put = write(fd, data + done, size - done);
		fuzz_check(put > 0, "the scratch pack is written");
		done += (size_t)put;
	}
	close(fd);
}

static int
pack_fuzz_name(void *context, int64_t pack, char *out, size_t out_size)
{
	(void)context;
	if (pack != 1)
		return -1;
	snprintf(out, out_size, "%s", PACK_FUZZ_NAME);
	return 0;
}

static int
pack_fuzz_visit(void *context, const struct hash *chunk, uint64_t frame_offset,
    uint32_t offset_in_frame, uint32_t length)
{
	struct pack_fuzz_entries *entries = context;

	if (entries->count == PACK_FUZZ_ENTRIES)
		return 0;
	entries->items[entries->count++] = (struct pack_fuzz_entry){ .chunk = *chunk,
		.where = { .pack = 1, .frame_offset = frame_offset,
			.offset_in_frame = offset_in_frame, .length = length } };
	return 0;
}

/* One read; if it succeeds, the bytes are the chunk's. */
static void
pack_fuzz_read(struct pack_reader *reader, const struct hash *chunk,
    const struct pack_location *where, struct buffer *out)
{
	struct hearth_error failure = { 0 };

	buffer_reset(out);
	if (pack_read(reader, chunk, where, out, &failure) != 0) {
		fuzz_check(strstr(failure.message, PACK_FUZZ_NAME) != NULL ||
		    strstr(failure.message, "memory") != NULL,
		    "a failed read names the pack");
		return;
	}
	struct hash got;
	hash_bytes(out->data, out->length, &got);
	fuzz_check(out->length == where->length && hash_equal(&got, chunk),
	    "a read that succeeds hands out the chunk asked for");
}

/* The file as it is on disk now: index walk, the chunks it lists, and each
 * frame from the first (asked for an empty chunk, so the frame is loaded
 * and checked whatever its bytes). */
static void
pack_fuzz_file(const uint8_t *data, size_t size)
{
	static struct pack_fuzz_entries entries;
	struct hearth_error failure = { 0 };
	struct buffer out;

	entries.count = 0;
	if (pack_scan_index(pack_fuzz_dir, PACK_FUZZ_NAME, pack_fuzz_visit, &entries,
	    &failure) != 0)
		fuzz_check(strstr(failure.message, PACK_FUZZ_NAME) != NULL ||
		    strstr(failure.message, "memory") != NULL,
		    "a refused pack is named");
	struct pack_reader *reader = pack_reader_new(pack_fuzz_dir, pack_fuzz_path, pack_fuzz_name,
	    NULL);
	fuzz_check(reader != NULL, "a reader");
	buffer_init(&out);
	for (size_t i = 0; i < entries.count; i++)
		pack_fuzz_read(reader, &entries.items[i].chunk, &entries.items[i].where, &out);
	struct hash empty;
	hash_bytes("", 0, &empty);
	uint64_t offset = PACK_FUZZ_HEADER;
	for (int frame = 0; frame < PACK_FUZZ_FRAMES && offset + PACK_FUZZ_FRAME_HEADER <= size;
	    frame++) {
		struct pack_location where = { .pack = 1, .frame_offset = offset };
		pack_fuzz_read(reader, &empty, &where, &out);
		offset += PACK_FUZZ_FRAME_HEADER + load_u32be(data + offset + 4);
	}
	buffer_free(&out);
	pack_reader_free(reader);
}

/* Rewrites every frame's and the index's checksum to fit their bytes. */
static void
pack_fuzz_fix_checksums(uint8_t *data, size_t size)
{
	uint64_t index_offset = size;

	if (size >= PACK_FUZZ_HEADER + PACK_FUZZ_FOOTER) {
		uint64_t claimed = load_u64be(data + size - PACK_FUZZ_FOOTER);
		if (claimed >= PACK_FUZZ_HEADER && claimed <= size - PACK_FUZZ_FOOTER) {
			index_offset = claimed;
			store_u32be(data + size - PACK_FUZZ_FOOTER + 8, pack_crc32c(0,
			    data + index_offset, size - PACK_FUZZ_FOOTER - index_offset));
		}
	}
	uint64_t offset = PACK_FUZZ_HEADER;
	for (int frame = 0; frame < PACK_FUZZ_FRAMES &&
	    offset + PACK_FUZZ_FRAME_HEADER <= index_offset;
	    frame++) {
		uint64_t stored = load_u32be(data + offset + 4);
		if (offset + PACK_FUZZ_FRAME_HEADER + stored > index_offset)
			break;
		store_u32be(data + offset + 12,
		    pack_crc32c(0, data + offset + PACK_FUZZ_FRAME_HEADER, (size_t)stored));
		offset += PACK_FUZZ_FRAME_HEADER + stored;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pack_fuzz_setup();
	pack_fuzz_write(data, size);
	pack_fuzz_file(data, size);
	uint8_t *fixed = malloc(size ? size : 1);
	fuzz_check(fixed != NULL, "memory");
	memcpy(fixed, data, size);
	pack_fuzz_fix_checksums(fixed, size);
	if (memcmp(fixed, data, size) != 0) {
		pack_fuzz_write(fixed, size);
		pack_fuzz_file(fixed, size);
	}
	free(fixed);
	return 0;
}
