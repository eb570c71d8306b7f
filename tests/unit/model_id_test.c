/* Unit tests of model/id's order: the inline word compares must order and
 * match ids exactly as their bytes do (memcmp), since stores, packs and
 * every sorted table were written in that order. */
#include <stdlib.h>
#include <string.h>

#include "model/id.h"
#include "tests/unit/tap.h"

static int
sign(int value)
{
	return (value > 0) - (value < 0);
}

/* Pairs that share a random prefix of 0-16 bytes, then differ in one byte
 * or not at all: every word boundary and the equal case are reached. */
static void
random_pair(unsigned *seed, uint8_t a[ID_BYTES], uint8_t b[ID_BYTES])
{
	for (size_t i = 0; i < ID_BYTES; i++)
		a[i] = b[i] = (uint8_t)rand_r(seed);
	size_t shared = (size_t)rand_r(seed) % (ID_BYTES + 1);
	for (size_t i = shared; i < ID_BYTES; i++)
		b[i] = (uint8_t)rand_r(seed);
}

static void
test_order_is_the_bytes(void)
{
	unsigned seed = 17;
	size_t wrong_order = 0, wrong_equal = 0, wrong_op = 0, equal_pairs = 0;

	for (int round = 0; round < 200000; round++) {
		struct node_id x, y;
		random_pair(&seed, x.bytes, y.bytes);
		int bytes = sign(memcmp(x.bytes, y.bytes, ID_BYTES));
		equal_pairs += bytes == 0;
		wrong_order += sign(node_id_compare(x, y)) != bytes;
		wrong_equal += node_id_equal(x, y) != (bytes == 0);

		struct op_id p = { .counter = (uint64_t)rand_r(&seed) % 3 };
		struct op_id q = { .counter = (uint64_t)rand_r(&seed) % 3 };
		memcpy(p.replica.bytes, x.bytes, ID_BYTES);
		memcpy(q.replica.bytes, y.bytes, ID_BYTES);
		int want = bytes != 0 ? bytes : (p.counter > q.counter) - (p.counter < q.counter);
		wrong_op += sign(op_id_compare(p, q)) != want ||
		    op_id_equal(p, q) != (want == 0) ||
		    sign(replica_id_compare(p.replica, q.replica)) != bytes ||
		    replica_id_equal(p.replica, q.replica) != (bytes == 0);
	}
	ok(wrong_order == 0, "node_id_compare orders as memcmp (%zu of 200000 differ)", wrong_order);
	ok(wrong_equal == 0 && equal_pairs > 1000,
	    "node_id_equal agrees (%zu differ; %zu equal pairs tried)", wrong_equal, equal_pairs);
	ok(wrong_op == 0, "op and replica ids: the bytes, then the counter (%zu differ)", wrong_op);
}

static void
test_fixed_ids(void)
{
	struct node_id high = NODE_ROOT;

	high.bytes[0] = 0x80;
	ok(node_id_compare(NODE_ROOT, NODE_TRASH) < 0 && node_id_compare(NODE_TRASH, NODE_ROOT) > 0,
	    "the top sorts before the trash (their last byte)");
	ok(node_id_compare(NODE_ROOT, high) < 0 && node_id_compare(high, NODE_TRASH) > 0,
	    "a high first byte sorts last (unsigned, big-endian)");
	ok(node_id_compare(NODE_ROOT, NODE_ROOT) == 0 && node_id_equal(NODE_TRASH, NODE_TRASH),
	    "an id equals itself");
}

int
main(void)
{
	test_order_is_the_bytes();
	test_fixed_ids();
	return tap_done();
}
