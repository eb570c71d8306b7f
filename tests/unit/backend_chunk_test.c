/* Unit tests of backend/chunk: cut points are deterministic, pinned (the
 * gear table must never change), within [CHUNK_MIN, CHUNK_MAX], independent
 * of how far ahead the caller can see, and an insert near the start of a
 * big buffer changes only the chunks around it. */
#include <stdlib.h>
#include <string.h>

#include "backend/store/chunk.h"
#include "backend/store/hash.h"
#include "tests/unit/tap.h"
#include "tests/lib/splitmix.h"

#define TEST_SIZE (20u * 1024 * 1024)

static void
test_fill_random(uint8_t *out, size_t length, uint64_t seed)
{
	uint64_t value = 0;

	for (size_t at = 0; at < length; at++) {
		if (at % 8 == 0)
			value = splitmix_next(&seed);
		out[at] = (uint8_t)(value >> (at % 8 * 8));
	}
}

/* Cuts data the way the content stream does, seeing at most CHUNK_MAX
 * bytes ahead; lengths[] gets each chunk's length. */
static size_t
test_chunk_all(const uint8_t *data, size_t length, size_t *lengths, size_t capacity)
{
	size_t count = 0;

	for (size_t offset = 0; offset < length && count < capacity;) {
		size_t left = length - offset;
		bool at_end = left <= CHUNK_MAX;
		size_t cut = chunk_next(data + offset, at_end ? left : CHUNK_MAX, at_end);
		lengths[count++] = cut;
		offset += cut;
	}
	return count;
}

static void
test_small_inputs(void)
{
	static uint8_t small[CHUNK_MIN + 1];

	check_uint(chunk_next(small, 0, true), 0);
	check_uint(chunk_next(small, 1, true), 1);
	check_uint(chunk_next(small, CHUNK_MIN, true), CHUNK_MIN);
	check_uint(chunk_next(small, CHUNK_MIN + 1, true), CHUNK_MIN + 1);
}

static void
test_bounds_and_determinism(const uint8_t *data)
{
	static size_t first[64], second[64];
	size_t count = test_chunk_all(data, TEST_SIZE, first, 64);
	size_t again = test_chunk_all(data, TEST_SIZE, second, 64);
	size_t total = 0;
	bool bounded = true;

	check_uint(again, count);
	ok(memcmp(first, second, count * sizeof *first) == 0, "the same bytes give the same cuts");
	for (size_t i = 0; i < count; i++) {
		total += first[i];
		if (i + 1 < count && (first[i] < CHUNK_MIN || first[i] > CHUNK_MAX))
			bounded = false;
	}
	ok(bounded, "every chunk but the last is within [CHUNK_MIN, CHUNK_MAX]");
	check_uint(total, TEST_SIZE);
	ok(count >= 10 && count <= 40, "20 MiB gives about 20 chunks of ~1 MiB (got %zu)", count);
	tap_diag("20 MiB of random bytes: %zu chunks, average %zu KiB", count,
	    TEST_SIZE / count / 1024);

	/* Seeing the whole rest or only CHUNK_MAX ahead cuts alike. */
	bool same = true;
	for (size_t i = 0, offset = 0; i < count; offset += first[i++])
		if (chunk_next(data + offset, TEST_SIZE - offset, true) != first[i])
			same = false;
	ok(same, "cuts depend only on the bytes up to CHUNK_MAX ahead");

	/* A streaming caller may look fewer bytes ahead (chunk.h): one byte
	 * past the cut finds it, one byte short finds nothing earlier. */
	bool early = true;
	for (size_t i = 0, offset = 0; i + 1 < count; offset += first[i++]) {
		if (chunk_next(data + offset, first[i] + 1, false) != first[i])
			early = false;
		if (chunk_next(data + offset, first[i] - 1, false) != first[i] - 1)
			early = false;
	}
	ok(early, "a cut found in fewer than CHUNK_MAX bytes is final");
}

/* The gear table defines every store's chunks: these lengths were computed
 * when it was fixed and must never change. */
static void
test_pinned_cuts(const uint8_t *data)
{
	static const size_t pinned[] = { 1176418, 1418888, 1255442, 1142137, 1565888, 1367597,
		1250650, 1212724 };
	size_t lengths[8];
	size_t count = test_chunk_all(data, TEST_SIZE, lengths, 8);

	check_uint(count, 8);
	for (size_t i = 0; i < sizeof pinned / sizeof *pinned; i++)
		ok(lengths[i] == pinned[i], "pinned cut %zu: %zu", i, lengths[i]);
}

static void
test_constant_runs(void)
{
	uint8_t *zeros = calloc(1, CHUNK_MAX + 1);

	check_uint(chunk_next(zeros, CHUNK_MAX + 1, false), CHUNK_MAX);
	check_uint(chunk_next(zeros, CHUNK_MAX - 5, true), CHUNK_MAX - 5);
	free(zeros);
}

static bool
test_has_chunk(const struct hash *set, size_t count, const struct hash *wanted)
{
	for (size_t i = 0; i < count; i++)
		if (hash_equal(&set[i], wanted))
			return true;
	return false;
}

static size_t
test_chunk_hashes(const uint8_t *data, size_t length, struct hash *out, size_t capacity)
{
	size_t lengths[64];
	size_t count = test_chunk_all(data, length, lengths, capacity < 64 ? capacity : 64);

	for (size_t i = 0, offset = 0; i < count; offset += lengths[i++])
		hash_bytes(data + offset, lengths[i], &out[i]);
	return count;
}

static void
test_shift_resistance(const uint8_t *data)
{
	static const char insert[] = "hello";
	size_t inserted = sizeof insert - 1;
	uint8_t *shifted = malloc(TEST_SIZE + inserted);
	struct hash before[64], after[64];

	memcpy(shifted, data, 1000);
	memcpy(shifted + 1000, insert, inserted);
	memcpy(shifted + 1000 + inserted, data + 1000, TEST_SIZE - 1000);
	size_t count_before = test_chunk_hashes(data, TEST_SIZE, before, 64);
	size_t count_after = test_chunk_hashes(shifted, TEST_SIZE + inserted, after, 64);
	size_t kept = 0;
	for (size_t i = 0; i < count_after; i++)
		if (test_has_chunk(before, count_before, &after[i]))
			kept++;
	tap_diag("5 bytes inserted at offset 1000: %zu of %zu chunks unchanged", kept, count_after);
	ok(kept + 2 >= count_after && kept + 2 >= count_before,
	    "an insert near the start changes at most 2 chunks (%zu of %zu kept)", kept,
	    count_after);
	free(shifted);
}

int
main(void)
{
	uint8_t *data = malloc(TEST_SIZE);

	test_fill_random(data, TEST_SIZE, 1);
	test_small_inputs();
	test_bounds_and_determinism(data);
	test_pinned_cuts(data);
	test_constant_runs();
	test_shift_resistance(data);
	free(data);
	return tap_done();
}
