/* Unit tests of model/op, model/id and model/buffer: the canonical encoding
 * round-trips, the decoder refuses every malformed input it is given, and
 * the total order and version vectors behave as DESIGN §2 says. */
#include <string.h>

#include "model/op.h"
#include "tests/unit/tap.h"

static struct replica_id
replica(uint8_t byte)
{
	struct replica_id id;
	memset(id.bytes, byte, sizeof id.bytes);
	return id;
}

static struct node_id
node(uint8_t byte)
{
	struct node_id id;
	memset(id.bytes, byte, sizeof id.bytes);
	return id;
}

static void
test_varints(void)
{
	static const uint64_t values[] = { 0, 1, 127, 128, 300, UINT32_MAX, UINT64_MAX };
	struct buffer buffer;
	struct reader reader;

	buffer_init(&buffer);
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		buffer_append_varint(&buffer, values[i]);
	buffer_append_signed(&buffer, -5);
	buffer_append_signed(&buffer, INT64_MIN);
	reader_init(&reader, buffer.data, buffer.length);
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		uint64_t value = 0;
		ok(reader_varint(&reader, &value) && value == values[i], "varint %zu round-trips", i);
	}
	int64_t signed_value;
	ok(reader_signed(&reader, &signed_value) && signed_value == -5, "signed -5 round-trips");
	ok(reader_signed(&reader, &signed_value) && signed_value == INT64_MIN, "INT64_MIN round-trips");
	ok(reader_at_end(&reader), "reader ends exactly at the end");
	uint8_t byte;
	ok(!reader_byte(&reader, &byte) && reader.bad, "reading past the end fails");

	static const uint8_t overlong[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
	uint64_t value;
	reader_init(&reader, overlong, sizeof overlong);
	ok(!reader_varint(&reader, &value), "a varint over 64 bits is refused");
	buffer_free(&buffer);
}

static void
test_round_trip(void)
{
	struct op_id seen[2] = { { replica(1), 3 }, { replica(2), 9 } };
	struct vv_entry vv[2] = { { replica(1), 7 }, { replica(2), 9 } };
	struct op ops[3];
	struct buffer encoded;
	struct arena arena;
	char error[128];

	memset(ops, 0, sizeof ops);
	ops[0] = (struct op){ .id = { replica(1), 4 }, .lamport = 10, .kind = OP_PLACE,
		.supersedes = seen, .supersedes_count = 2 };
	ops[0].u.place = (struct op_place){ .node = node(7), .parent = NODE_ROOT,
		.name = (const uint8_t *)"caf\xc3\xa9 \xff", .name_length = 7, .kind = NODE_FILE,
		.root = "main" };
	ops[1] = (struct op){ .id = { replica(1), 5 }, .lamport = 11, .kind = OP_SET };
	ops[1].u.set = (struct op_set){ .node = node(7), .size = 42, .mode = 0755,
		.mtime_ns = -1234567890 };
	memset(ops[1].u.set.blob.bytes, 0xab, HASH_BYTES);
	ops[2] = (struct op){ .id = { replica(1), 6 }, .lamport = 12, .kind = OP_COMMIT };
	ops[2].u.commit = (struct op_commit){ .message = "first\nsecond line", .author = "me@here",
		.time = 1764442800, .utc_offset = 3600, .vv_entries = vv, .vv_count = 2 };

	arena_init(&arena, 0);
	buffer_init(&encoded);
	for (int i = 0; i < 3; i++) {
		struct op decoded;
		struct buffer again;
		buffer_reset(&encoded);
		op_encode(&ops[i], &encoded);
		ok(op_decode(encoded.data, encoded.length, &decoded, &arena, error, sizeof error),
		    "%s op decodes", op_kind_name(ops[i].kind));
		buffer_init(&again);
		op_encode(&decoded, &again);
		check_mem(again.data, again.length, encoded.data, encoded.length);
		buffer_free(&again);
		check_int(op_order_compare(&decoded, &ops[i]), 0);
	}

	/* Every truncation of a valid op is refused, never misread. */
	buffer_reset(&encoded);
	op_encode(&ops[0], &encoded);
	int refused = 0;
	for (size_t cut = 0; cut < encoded.length; cut++) {
		struct op decoded;
		if (!op_decode(encoded.data, cut, &decoded, &arena, error, sizeof error))
			refused++;
	}
	check_int(refused, (long long)encoded.length);
	buffer_append_byte(&encoded, 0);
	struct op decoded;
	ok(!op_decode(encoded.data, encoded.length, &decoded, &arena, error, sizeof error) &&
	    strstr(error, "trailing") != NULL, "trailing bytes are refused: %s", error);

	buffer_free(&encoded);
	arena_free(&arena);
}

static void
test_bad_names(void)
{
	static const char *const bad[] = { "", ".", "..", "a/b" };
	struct buffer encoded;
	struct arena arena;
	char error[128];

	buffer_init(&encoded);
	arena_init(&arena, 0);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct op op = { .id = { replica(1), 1 }, .lamport = 1, .kind = OP_PLACE };
		struct op decoded;
		op.u.place = (struct op_place){ .node = node(3), .parent = NODE_ROOT,
			.name = (const uint8_t *)bad[i], .name_length = strlen(bad[i]),
			.kind = NODE_FILE, .root = "main" };
		buffer_reset(&encoded);
		op_encode(&op, &encoded);
		ok(!op_decode(encoded.data, encoded.length, &decoded, &arena, error, sizeof error),
		    "name \"%s\" is refused", bad[i]);
	}
	ok(!op_name_valid((const uint8_t *)"a\0b", 3), "a name with NUL is invalid");
	ok(op_name_valid((const uint8_t *)"...", 3), "\"...\" is a valid name");
	buffer_free(&encoded);
	arena_free(&arena);
}

static void
test_order_and_vv(void)
{
	struct op a = { .id = { replica(2), 1 }, .lamport = 5 };
	struct op b = { .id = { replica(1), 9 }, .lamport = 5 };
	struct op c = { .id = { replica(1), 1 }, .lamport = 6 };
	struct vv x, y;

	ok(op_order_compare(&b, &a) < 0, "equal lamport: replica bytes decide");
	ok(op_order_compare(&a, &c) < 0, "lamport decides first");
	vv_init(&x);
	vv_init(&y);
	vv_raise(&x, replica(2), 4);
	vv_raise(&x, replica(1), 2);
	vv_raise(&x, replica(1), 1);
	check_uint(vv_get(&x, replica(1)), 2);
	check_uint(x.count, 2);
	ok(replica_id_compare(x.entries[0].replica, x.entries[1].replica) < 0, "vv stays sorted");
	vv_raise(&y, replica(1), 5);
	ok(!vv_less_equal(&x, &y) && !vv_less_equal(&y, &x), "concurrent vvs are unordered");
	check_uint(vv_ops_ahead(&x, &y), 3);
	vv_merge(&x, &y);
	ok(vv_less_equal(&y, &x), "merge includes both");
	check_uint(vv_total(&x), 9);
	vv_free(&x);
	vv_free(&y);

	char hex[ID_HEX];
	node_id_hex(NODE_ROOT, hex);
	struct node_id back;
	ok(hex_decode(hex, back.bytes, ID_BYTES) && node_id_equal(back, NODE_ROOT), "hex round-trips");
	ok(!hex_decode("zz", back.bytes, 1), "non-hex is refused");
	uint8_t random[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct node_id v7 = node_id_from_parts(0x0123456789ab, random);
	ok(v7.bytes[0] == 0x01 && v7.bytes[5] == 0xab && (v7.bytes[6] >> 4) == 7 &&
	    (v7.bytes[8] >> 6) == 2, "UUIDv7 layout: time, version, variant");
}

int
main(void)
{
	test_varints();
	test_round_trip();
	test_bad_names();
	test_order_and_vv();
	return tap_done();
}
