/* The whole-blob hasher a sync's receiving side runs beside it
 * (backend/sync/sync_hasher.c): blobs fed in parts, more of them than its
 * ring holds, each held against its hash; a wrong one, one never ended and
 * one never fed are not matched; a hasher freed mid-blob stops cleanly. */
#include <stdlib.h>
#include <string.h>

#include "backend/store/hash.h"
#include "backend/sync/sync_hasher.h"
#include "tests/lib/splitmix.h"
#include "tests/unit/tap.h"

#define BLOBS 6
#define PARTS 9
#define PART_BYTES 100000

static void
test_blobs_in_parts(void)
{
	uint8_t *bytes = malloc((size_t)BLOBS * PARTS * PART_BYTES);
	uint64_t state = 5;
	struct hash ids[BLOBS];

	splitmix_fill(bytes, (size_t)BLOBS * PARTS * PART_BYTES, &state);
	for (size_t blob = 0; blob < BLOBS; blob++)
		hash_bytes(bytes + blob * PARTS * PART_BYTES, (size_t)PARTS * PART_BYTES, &ids[blob]);
	/* Blob 3 is said to be blob 2 (a list that makes other bytes); blob 4
	 * is never ended; blob 5 is never fed. */
	struct hash said[BLOBS];
	memcpy(said, ids, sizeof said);
	said[3] = ids[2];
	struct sync_hasher *hasher = sync_hasher_new(BLOBS);
	tap_hang_bound(60, "the hasher's ring");
	for (size_t blob = 0; blob < 5; blob++)
		for (size_t part = 0; part < PARTS; part++)
			sync_hasher_add(hasher, blob, part == 0, blob != 4 && part + 1 == PARTS,
			    &said[blob], bytes + (blob * PARTS + part) * PART_BYTES, PART_BYTES);
	sync_hasher_drain(hasher);
	tap_hang_bound(0, NULL);
	for (size_t blob = 0; blob < 3; blob++)
		ok(sync_hasher_matched(hasher, blob), "blob %zu, in %d parts, made its hash", blob,
		    PARTS);
	ok(!sync_hasher_matched(hasher, 3), "a blob said to be another is not matched");
	ok(!sync_hasher_matched(hasher, 4), "a blob never ended is not matched");
	ok(!sync_hasher_matched(hasher, 5), "a blob never fed is not matched");
	ok(!sync_hasher_matched(hasher, BLOBS), "a number past the count is not matched");
	sync_hasher_free(hasher);
	free(bytes);
}

static void
test_nothing_to_hash(void)
{
	ok(sync_hasher_new(0) == NULL, "no blobs to check: no hasher");
	sync_hasher_free(NULL);
	/* Left mid-blob, more parts than its ring holds: the blob in hand
	 * matches nothing, and the hasher frees with it (valgrind and ASan
	 * see nothing leak). */
	struct sync_hasher *hasher = sync_hasher_new(1);
	uint8_t part[1000] = { 1 };
	struct hash any = { { 0 } };
	tap_hang_bound(60, "a hasher fed mid-blob");
	for (int i = 0; i < 10; i++)
		sync_hasher_add(hasher, 0, i == 0, false, &any, part, sizeof part);
	sync_hasher_drain(hasher);
	tap_hang_bound(0, NULL);
	ok(!sync_hasher_matched(hasher, 0), "a blob left mid-way matches nothing");
	sync_hasher_free(hasher);
}

int
main(void)
{
	test_blobs_in_parts();
	test_nothing_to_hash();
	return tap_done();
}
