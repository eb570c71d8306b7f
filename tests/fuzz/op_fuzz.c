/* Fuzz target: the op decoder (model/op.c), which every op from a peer and
 * from the store passes through. What it accepts must keep the promises of
 * op.h (names valid, lengths within the limits) and must have one
 * canonical encoding: decode, encode, decode and encode again give the
 * same bytes. */
#include <stdbool.h>
#include <string.h>

#include "model/op.h"
#include "tests/fuzz/fuzz.h"

static void
op_fuzz_promises(const struct op *op)
{
	fuzz_check(op->kind >= OP_PLACE && op->kind <= OP_COMMIT, "a known kind");
	fuzz_check(op->id.counter > 0 && op->lamport > 0, "counters start at 1");
	fuzz_check(op->supersedes_count <= OP_SUPERSEDES_MAX, "supersedes bounded");
	if (op->kind == OP_PLACE) {
		fuzz_check(op_name_valid(op->u.place.name, op->u.place.name_length),
		    "a decoded name is a valid name");
		fuzz_check(strlen(op->u.place.root) <= OP_ROOT_NAME_MAX, "root name bounded");
		fuzz_check(!node_id_equal(op->u.place.node, NODE_ROOT) &&
		    !node_id_equal(op->u.place.node, NODE_TRASH), "the top and trash never move");
	} else if (op->kind == OP_COMMIT) {
		fuzz_check(strlen(op->u.commit.message) <= OP_MESSAGE_MAX, "message bounded");
		fuzz_check(strlen(op->u.commit.author) <= OP_AUTHOR_MAX, "author bounded");
		fuzz_check(op->u.commit.vv_count <= OP_VV_MAX, "vv bounded");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena arena;
	struct op op, again;
	struct buffer first, second;
	char error[160] = "";

	arena_init(&arena, 4096);
	if (!op_decode(data, size, &op, &arena, error, sizeof error)) {
		fuzz_check(error[0] != '\0' && strlen(error) <= 128, "a refusal says why, briefly");
		arena_free(&arena);
		return 0;
	}
	op_fuzz_promises(&op);
	fuzz_check(op_order_compare(&op, &op) == 0, "an op orders equal to itself");
	buffer_init(&first);
	buffer_init(&second);
	op_encode(&op, &first);
	fuzz_check(op_decode(first.data, first.length, &again, &arena, error, sizeof error),
	    "an op's encoding decodes");
	op_encode(&again, &second);
	fuzz_check(first.length == second.length && memcmp(first.data, second.data,
	    first.length) == 0, "encoding is canonical: a second round trip changes nothing");
	buffer_free(&first);
	buffer_free(&second);
	arena_free(&arena);
	return 0;
}
