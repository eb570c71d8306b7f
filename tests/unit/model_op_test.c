/* Unit tests of model/op, model/id and model/buffer: the canonical encoding
 * round-trips, the decoder refuses every malformed input it is given, and
 * the total order and version vectors behave as docs/DESIGN.md §2 says. */
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

/* Mtimes past 2262 and before 1677 (64 bits of nanoseconds end there) are
 * kept exactly; one that fits 64 bits has the bytes an older build wrote
 * (the signed varint), so old ops decode and hash as they did. */
static void
test_wide_mtime(void)
{
	const op_mtime second = 1000000000;
	const op_mtime times[] = {
		(op_mtime)10598000400 * second + 123456789,	/* 2305-11-02 */
		(op_mtime)15000000000 * second,			/* 2445 */
		-(op_mtime)9000000000 * second - 1,		/* 1684: before 64 bits begin */
		(op_mtime)INT64_MAX + 1, (op_mtime)INT64_MIN - 1,
	};
	struct arena arena;
	struct buffer encoded, narrow;
	char error[128];

	arena_init(&arena, 0);
	buffer_init(&encoded);
	for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
		struct op op = { .id = { replica(1), 5 }, .lamport = 11, .kind = OP_SET };
		op.u.set = (struct op_set){ .node = node(7), .size = 1, .mode = 0644,
			.mtime_ns = times[i] };
		struct op decoded;
		buffer_reset(&encoded);
		op_encode(&op, &encoded);
		ok(op_decode(encoded.data, encoded.length, &decoded, &arena, error, sizeof error) &&
		    decoded.u.set.mtime_ns == times[i], "a wide mtime (%zu) decodes exactly", i);
	}
	/* The 64-bit encoding of a time that fits is unchanged. */
	buffer_init(&narrow);
	const int64_t fits[] = { 0, -1, 1764442800123456789LL, INT64_MAX, INT64_MIN };
	for (size_t i = 0; i < sizeof fits / sizeof *fits; i++) {
		buffer_reset(&encoded);
		buffer_reset(&narrow);
		buffer_append_signed128(&encoded, fits[i]);
		buffer_append_signed(&narrow, fits[i]);
		check_mem(encoded.data, encoded.length, narrow.data, narrow.length);
	}
	/* Seconds past a 64-bit time_t are refused at encode and decode. */
	struct op huge = { .id = { replica(1), 5 }, .lamport = 11, .kind = OP_SET };
	huge.u.set = (struct op_set){ .node = node(7), .mtime_ns = ((op_mtime)INT64_MAX + 1) * second };
	char scratch[128];
	ok(op_problem(&huge, scratch, sizeof scratch) != NULL, "an mtime past a time_t is a problem");
	buffer_reset(&encoded);
	op_encode(&huge, &encoded);
	struct op decoded;
	ok(!op_decode(encoded.data, encoded.length, &decoded, &arena, error, sizeof error) &&
	    strstr(error, "bad mtime") != NULL, "and refused by the decoder: %s", error);
	buffer_free(&narrow);
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

/* ---- limits: what the decoder refuses, the maker refuses first ---------- */

enum limit_field {
	LIMIT_NONE, LIMIT_KIND, LIMIT_COUNTER, LIMIT_LAMPORT, LIMIT_SUPERSEDES,
	LIMIT_SUPERSEDES_ZERO, LIMIT_NAME, LIMIT_NODE_KIND, LIMIT_NODE, LIMIT_ROOT, LIMIT_MODE,
	LIMIT_MESSAGE, LIMIT_AUTHOR, LIMIT_OFFSET, LIMIT_VV, LIMIT_VV_ORDER,
};

struct limit_case {
	const char *what;
	enum op_kind kind;
	enum limit_field field;
	long long value;	/* a length, count or number, as the field takes */
	bool refused;
};

/* Each limit the decoder enforces, once just inside it and once past it. */
static const struct limit_case limit_cases[] = {
	{ "a valid place", OP_PLACE, LIMIT_NONE, 0, false },
	{ "a valid set", OP_SET, LIMIT_NONE, 0, false },
	{ "a valid commit", OP_COMMIT, LIMIT_NONE, 0, false },
	{ "op kind 4", OP_PLACE, LIMIT_KIND, 4, true },
	{ "counter 0", OP_SET, LIMIT_COUNTER, 0, true },
	{ "lamport 0", OP_SET, LIMIT_LAMPORT, 0, true },
	{ "4096 superseded", OP_SET, LIMIT_SUPERSEDES, OP_SUPERSEDES_MAX, false },
	{ "4097 superseded", OP_SET, LIMIT_SUPERSEDES, OP_SUPERSEDES_MAX + 1, true },
	{ "a superseded counter 0", OP_PLACE, LIMIT_SUPERSEDES_ZERO, 0, true },
	{ "a 255-byte name", OP_PLACE, LIMIT_NAME, 255, false },
	{ "a 256-byte name", OP_PLACE, LIMIT_NAME, 256, true },
	{ "an empty name", OP_PLACE, LIMIT_NAME, 0, true },
	{ "the name .", OP_PLACE, LIMIT_NAME, -1, true },
	{ "the name ..", OP_PLACE, LIMIT_NAME, -2, true },
	{ "a name with /", OP_PLACE, LIMIT_NAME, -3, true },
	{ "a name with NUL", OP_PLACE, LIMIT_NAME, -4, true },
	{ "node kind 0", OP_PLACE, LIMIT_NODE_KIND, 0, true },
	{ "node kind 4", OP_PLACE, LIMIT_NODE_KIND, 4, true },
	{ "a place of the top folder", OP_PLACE, LIMIT_NODE, 0, true },
	{ "a place of the trash", OP_PLACE, LIMIT_NODE, 1, true },
	{ "a 64-byte root", OP_PLACE, LIMIT_ROOT, OP_ROOT_NAME_MAX, false },
	{ "a 65-byte root", OP_PLACE, LIMIT_ROOT, OP_ROOT_NAME_MAX + 1, true },
	{ "mode 07777", OP_SET, LIMIT_MODE, 07777, false },
	{ "mode 010000", OP_SET, LIMIT_MODE, 010000, true },
	{ "a 65536-byte message", OP_COMMIT, LIMIT_MESSAGE, OP_MESSAGE_MAX, false },
	{ "a 65537-byte message", OP_COMMIT, LIMIT_MESSAGE, OP_MESSAGE_MAX + 1, true },
	{ "a 70000-byte message", OP_COMMIT, LIMIT_MESSAGE, 70000, true },
	{ "a 256-byte author", OP_COMMIT, LIMIT_AUTHOR, OP_AUTHOR_MAX, false },
	{ "a 257-byte author", OP_COMMIT, LIMIT_AUTHOR, OP_AUTHOR_MAX + 1, true },
	{ "offset +86400", OP_COMMIT, LIMIT_OFFSET, 86400, false },
	{ "offset -86400", OP_COMMIT, LIMIT_OFFSET, -86400, false },
	{ "offset +86401", OP_COMMIT, LIMIT_OFFSET, 86401, true },
	{ "offset -86401", OP_COMMIT, LIMIT_OFFSET, -86401, true },
	{ "65536 replicas", OP_COMMIT, LIMIT_VV, OP_VV_MAX, false },
	{ "65537 replicas", OP_COMMIT, LIMIT_VV, OP_VV_MAX + 1, true },
	{ "an unsorted version vector", OP_COMMIT, LIMIT_VV_ORDER, 0, true },
	{ "a repeated replica", OP_COMMIT, LIMIT_VV_ORDER, 1, true },
};

struct limit_scratch {
	uint8_t name[300];
	char text[OP_MESSAGE_MAX + 2];
	char root[OP_ROOT_NAME_MAX + 2];
	struct op_id ids[OP_SUPERSEDES_MAX + 1];
	struct vv_entry vv[OP_VV_MAX + 1];
};

static struct replica_id
replica_numbered(size_t n)
{
	struct replica_id id;
	memset(id.bytes, 0, sizeof id.bytes);
	for (int byte = ID_BYTES - 1; byte >= 0 && n > 0; byte--, n >>= 8)
		id.bytes[byte] = (uint8_t)(n & 0xff);
	return id;
}

static const char *
filled(char *text, size_t length)
{
	memset(text, 'x', length);
	text[length] = '\0';
	return text;
}

static void
limit_name(struct op_place *place, struct limit_scratch *scratch, long long value)
{
	static const char *const special[] = { ".", "..", "a/b", "a\0b" };
	static const size_t special_length[] = { 1, 2, 3, 3 };

	if (value < 0) {
		place->name = (const uint8_t *)special[-value - 1];
		place->name_length = special_length[-value - 1];
		return;
	}
	memset(scratch->name, 'n', (size_t)value);
	place->name = scratch->name;
	place->name_length = (size_t)value;
}

static void
limit_commit(struct op_commit *commit, struct limit_scratch *scratch, const struct limit_case *c)
{
	switch (c->field) {
	case LIMIT_MESSAGE:
		commit->message = filled(scratch->text, (size_t)c->value);
		break;
	case LIMIT_AUTHOR:
		commit->author = filled(scratch->text, (size_t)c->value);
		break;
	case LIMIT_OFFSET:
		commit->utc_offset = (int32_t)c->value;
		break;
	case LIMIT_VV:
		for (size_t i = 0; i < (size_t)c->value; i++)
			scratch->vv[i] = (struct vv_entry){ replica_numbered(i + 1), 1 };
		commit->vv_count = (size_t)c->value;
		break;
	case LIMIT_VV_ORDER:
		scratch->vv[0] = (struct vv_entry){ replica(2), 1 };
		scratch->vv[1] = (struct vv_entry){ replica(c->value ? 2 : 1), 1 };
		commit->vv_count = 2;
		break;
	default:
		break;
	}
}

/* The op of a case: a valid op of its kind with the one field changed. */
static void
limit_op(const struct limit_case *c, struct limit_scratch *scratch, struct op *op)
{
	memset(op, 0, sizeof *op);
	*op = (struct op){ .id = { replica(1), 3 }, .lamport = 9, .kind = c->kind };
	scratch->ids[0] = (struct op_id){ replica(1), 2 };
	op->supersedes = scratch->ids;
	op->supersedes_count = 1;
	if (c->kind == OP_PLACE)
		op->u.place = (struct op_place){ .node = node(5), .parent = NODE_ROOT,
			.name = (const uint8_t *)"a", .name_length = 1, .kind = NODE_FILE,
			.root = "main" };
	else if (c->kind == OP_SET)
		op->u.set = (struct op_set){ .node = node(5), .size = 1, .mode = 0644 };
	else
		op->u.commit = (struct op_commit){ .message = "m", .author = "a@b", .time = 1,
			.vv_entries = scratch->vv, .vv_count = 0 };
	switch (c->field) {
	case LIMIT_KIND:
		op->kind = (enum op_kind)c->value;
		break;
	case LIMIT_COUNTER:
		op->id.counter = (uint64_t)c->value;
		break;
	case LIMIT_LAMPORT:
		op->lamport = (uint64_t)c->value;
		break;
	case LIMIT_SUPERSEDES:
		for (size_t i = 0; i < (size_t)c->value; i++)
			scratch->ids[i] = (struct op_id){ replica_numbered(i), 1 };
		op->supersedes_count = (size_t)c->value;
		break;
	case LIMIT_SUPERSEDES_ZERO:
		scratch->ids[0].counter = 0;
		break;
	case LIMIT_NAME:
		limit_name(&op->u.place, scratch, c->value);
		break;
	case LIMIT_NODE_KIND:
		op->u.place.kind = (enum node_kind)c->value;
		break;
	case LIMIT_NODE:
		op->u.place.node = c->value ? NODE_TRASH : NODE_ROOT;
		break;
	case LIMIT_ROOT:
		op->u.place.root = filled(scratch->root, (size_t)c->value);
		break;
	case LIMIT_MODE:
		op->u.set.mode = (uint32_t)c->value;
		break;
	default:
		limit_commit(&op->u.commit, scratch, c);
		break;
	}
}

/* Walks every limit of the decoder: what it refuses, op_problem (which
 * every maker of ops asks) refuses too, and what it takes, both take. */
static void
test_limits(void)
{
	static struct limit_scratch scratch;
	struct buffer encoded;
	struct arena arena;
	char error[128], why[128];

	buffer_init(&encoded);
	arena_init(&arena, 0);
	for (size_t i = 0; i < sizeof limit_cases / sizeof *limit_cases; i++) {
		const struct limit_case *c = &limit_cases[i];
		struct op op, decoded;
		limit_op(c, &scratch, &op);
		buffer_reset(&encoded);
		op_encode(&op, &encoded);
		bool decodes = op_decode(encoded.data, encoded.length, &decoded, &arena, error,
		    sizeof error);
		const char *problem = op_problem(&op, why, sizeof why);
		ok(decodes == !c->refused, "%s: the decoder %s it%s%s", c->what,
		    decodes ? "takes" : "refuses", decodes ? "" : ": ", decodes ? "" : error);
		ok((problem != NULL) == c->refused, "%s: the maker %s it%s%s", c->what,
		    problem ? "refuses" : "takes", problem ? ": " : "", problem ? problem : "");
	}
	char text[OP_MESSAGE_MAX + 2];
	ok(op_message_problem(filled(text, OP_MESSAGE_MAX), why, sizeof why) == NULL &&
	    op_message_problem(filled(text, OP_MESSAGE_MAX + 1), why, sizeof why) != NULL,
	    "a message is checked alone at its limit: %s", why);
	ok(op_author_problem(filled(text, OP_AUTHOR_MAX), why, sizeof why) == NULL &&
	    op_author_problem(filled(text, OP_AUTHOR_MAX + 1), why, sizeof why) != NULL,
	    "an author is checked alone at its limit: %s", why);
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
	test_wide_mtime();
	test_bad_names();
	test_limits();
	test_order_and_vv();
	return tap_done();
}
