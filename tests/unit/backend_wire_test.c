/* Unit tests of backend/wire: every frame and payload round-trips, and the
 * decoders refuse what a broken or hostile peer might send (oversized and
 * truncated frames, bad checksums, unknown types, lying counts), including
 * every prefix and every single-bit change of valid frames and a stream
 * of random bytes, which must never make them read out of bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store/pack.h"
#include "backend/sync/wire.h"
#include "tests/unit/tap.h"

static struct replica_id
replica(uint8_t byte)
{
	struct replica_id id;
	memset(id.bytes, byte, sizeof id.bytes);
	return id;
}

static struct hash
hash_of(uint8_t byte)
{
	struct hash hash;
	memset(hash.bytes, byte, sizeof hash.bytes);
	return hash;
}

/* Parses the single frame in buffer; 1 on success with frame filled. */
static int
parse_one(const struct buffer *buffer, struct wire_frame *frame, struct hearth_error *error)
{
	size_t used = 0;
	int parsed = wire_parse_frame(buffer->data, buffer->length, frame, &used, error);
	if (parsed == 1 && used != buffer->length)
		return -2;
	return parsed;
}

static void
make_hello(struct buffer *out, uint32_t min, uint32_t max)
{
	struct wire_hello hello = { .protocol_min = min, .protocol_max = max, .flags = WIRE_PULL };

	snprintf(hello.software, sizeof hello.software, "hearth test");
	memset(hello.home, 7, ID_BYTES);
	hello.replica = replica(1);
	vv_init(&hello.vv);
	vv_set(&hello.vv, replica(1), 5);
	vv_set(&hello.vv, replica(9), 300);
	size_t start = wire_begin(out, WIRE_HELLO);
	wire_encode_hello(out, &hello);
	ok(wire_end(out, start), "a HELLO frame closes");
	vv_free(&hello.vv);
}

static void
test_hello(void)
{
	struct buffer buffer;
	struct wire_frame frame;
	struct wire_hello hello;
	struct hearth_error failure = { 0 };

	buffer_init(&buffer);
	make_hello(&buffer, 1, 3);
	check_int(parse_one(&buffer, &frame, &failure), 1);
	check_int(frame.type, WIRE_HELLO);
	ok(wire_decode_hello(frame.payload, frame.length, &hello, &failure),
	    "HELLO decodes: %s", failure.message);
	check_uint(hello.protocol_min, 1);
	check_uint(hello.protocol_max, 3);
	check_uint(hello.flags, WIRE_PULL);
	check_str(hello.software, "hearth test");
	ok(replica_id_equal(hello.replica, replica(1)), "replica round-trips");
	check_uint(hello.vv.count, 2);
	check_uint(vv_get(&hello.vv, replica(9)), 300);
	wire_hello_free(&hello);

	/* A later version may append fields to HELLO; older ones read past them. */
	struct buffer longer;
	buffer_init(&longer);
	buffer_append(&longer, frame.payload, frame.length);
	buffer_append(&longer, "future", 6);
	ok(wire_decode_hello(longer.data, longer.length, &hello, &failure),
	    "a HELLO with fields appended (by a later version) is read: %s", failure.message);
	wire_hello_free(&hello);

	/* Wrong magic. */
	buffer_reset(&longer);
	buffer_append(&longer, frame.payload, frame.length);
	longer.data[0] = 'X';
	failure.message[0] = '\0';
	ok(!wire_decode_hello(longer.data, longer.length, &hello, &failure) &&
	    strstr(failure.message, "bad magic") != NULL,
	    "a HELLO with another magic is refused: %s", failure.message);

	/* Every truncation of the payload is refused. */
	bool all_refused = true;
	for (size_t length = 0; length < frame.length; length++) {
		if (wire_decode_hello(frame.payload, length, &hello, &failure)) {
			wire_hello_free(&hello);
			all_refused = false;
		}
	}
	ok(all_refused, "every truncated HELLO payload is refused");
	buffer_free(&longer);
	buffer_free(&buffer);
}

static void
test_hello_vv_rules(void)
{
	struct buffer payload;
	struct wire_hello hello;
	struct hearth_error failure = { 0 };
	static const uint8_t home[ID_BYTES] = { 0 };

	/* Unsorted entries. */
	buffer_init(&payload);
	buffer_append(&payload, WIRE_MAGIC, WIRE_MAGIC_SIZE);
	buffer_append_varint(&payload, 1);
	buffer_append_varint(&payload, 1);
	buffer_append_varint(&payload, 0);
	buffer_append_bytes(&payload, "x", 1);
	buffer_append(&payload, home, ID_BYTES);
	buffer_append(&payload, replica(1).bytes, ID_BYTES);
	size_t prefix = payload.length;
	buffer_append_varint(&payload, 2);
	buffer_append(&payload, replica(9).bytes, ID_BYTES);
	buffer_append_varint(&payload, 1);
	buffer_append(&payload, replica(2).bytes, ID_BYTES);
	buffer_append_varint(&payload, 1);
	ok(!wire_decode_hello(payload.data, payload.length, &hello, &failure) &&
	    strstr(failure.message, "not sorted") != NULL,
	    "an unsorted version vector is refused: %s", failure.message);

	/* A zero counter. */
	payload.length = prefix;
	buffer_append_varint(&payload, 1);
	buffer_append(&payload, replica(2).bytes, ID_BYTES);
	buffer_append_varint(&payload, 0);
	ok(!wire_decode_hello(payload.data, payload.length, &hello, &failure) &&
	    strstr(failure.message, "zero counter") != NULL, "a zero counter is refused: %s",
	    failure.message);

	/* A count far beyond the bytes: refused before anything is allocated. */
	payload.length = prefix;
	buffer_append_varint(&payload, UINT64_MAX / 2);
	ok(!wire_decode_hello(payload.data, payload.length, &hello, &failure) &&
	    strstr(failure.message, "claims") != NULL, "a lying entry count is refused: %s",
	    failure.message);

	/* A bad protocol range. */
	payload.length = WIRE_MAGIC_SIZE;
	buffer_append_varint(&payload, 3);
	buffer_append_varint(&payload, 2);
	buffer_append_varint(&payload, 0);
	buffer_append_bytes(&payload, "x", 1);
	buffer_append(&payload, home, ID_BYTES);
	buffer_append(&payload, replica(1).bytes, ID_BYTES);
	buffer_append_varint(&payload, 0);
	ok(!wire_decode_hello(payload.data, payload.length, &hello, &failure) &&
	    strstr(failure.message, "range") != NULL, "a protocol range 3-2 is refused: %s",
	    failure.message);
	buffer_free(&payload);
}

static void
test_negotiate(void)
{
	uint32_t chosen = 0;
	struct hearth_error failure = { 0 };

	ok(wire_negotiate(1, 1, 1, 1, &chosen, &failure) && chosen == 1, "1-1 with 1-1");
	ok(wire_negotiate(1, 3, 2, 5, &chosen, &failure) && chosen == 3,
	    "1-3 with 2-5 speaks 3");
	ok(wire_negotiate(2, 5, 1, 3, &chosen, &failure) && chosen == 3,
	    "and the other way round too");
	ok(!wire_negotiate(2, 3, 1, 1, &chosen, &failure), "2-3 with 1-1 fails");
	check_str(failure.message,
	    "peer speaks protocol 1-1, we need 2-3; upgrade the peer's hearth");
	ok(!wire_negotiate(1, 1, 2, 3, &chosen, &failure), "1-1 with 2-3 fails");
	check_str(failure.message,
	    "peer speaks protocol 2-3, we need 1-1; upgrade the local hearth");
}

static void
test_frames(void)
{
	struct buffer buffer;
	struct wire_frame frame;
	struct hearth_error failure = { 0 };
	size_t used;

	buffer_init(&buffer);
	make_hello(&buffer, 1, 1);
	/* Every prefix asks for more bytes, never claims a frame. */
	bool all_wait = true;
	for (size_t length = 0; length < buffer.length; length++)
		if (wire_parse_frame(buffer.data, length, &frame, &used, &failure) != 0)
			all_wait = false;
	ok(all_wait, "every prefix of a frame needs more bytes");
	/* Every single-bit change is caught (by the header or the checksum). */
	bool all_caught = true;
	for (size_t bit = 0; bit < buffer.length * 8; bit++) {
		buffer.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		int parsed = wire_parse_frame(buffer.data, buffer.length, &frame, &used, &failure);
		/* A flipped length bit may make the frame look longer (need
		 * more) or shorter (then the checksum lands elsewhere). */
		if (parsed == 1)
			all_caught = false;
		buffer.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	ok(all_caught, "no single-bit change of a frame passes");

	/* Oversized, unknown type, zero type. */
	uint8_t header[WIRE_HEADER_SIZE] = { 0, 0, 0, 0, WIRE_OPS };
	size_t length;
	store_u32be(header, WIRE_PAYLOAD_MAX + 1);
	ok(!wire_parse_header(header, &length, &failure) &&
	    strstr(failure.message, "oversized") != NULL, "an oversized length is refused: %s",
	    failure.message);
	ok(wire_parse_frame(header, sizeof header, &frame, &used, &failure) == -1,
	    "and refused from the header alone, before its bytes arrive");
	store_u32be(header, 0xffffffffu);
	ok(!wire_parse_header(header, &length, &failure), "a length of 4 GiB is refused");
	store_u32be(header, WIRE_PAYLOAD_MAX);
	ok(wire_parse_header(header, &length, &failure) && length == WIRE_PAYLOAD_MAX,
	    "the largest allowed length passes the header check");
	header[4] = WIRE_TYPE_LAST + 1;
	ok(!wire_parse_header(header, &length, &failure) &&
	    strstr(failure.message, "unknown frame type") != NULL, "an unknown type is refused: %s",
	    failure.message);
	header[4] = 0;
	ok(!wire_parse_header(header, &length, &failure), "type 0 is refused");

	/* Two frames back to back parse one at a time. */
	buffer_reset(&buffer);
	size_t start = wire_begin(&buffer, WIRE_OPS_END);
	wire_encode_count(&buffer, 42);
	wire_end(&buffer, start);
	size_t first = buffer.length;
	start = wire_begin(&buffer, WIRE_WANT_END);
	wire_encode_count(&buffer, 7);
	wire_end(&buffer, start);
	ok(wire_parse_frame(buffer.data, buffer.length, &frame, &used, &failure) == 1 &&
	    used == first && frame.type == WIRE_OPS_END, "the first of two frames");
	uint64_t count = 0;
	ok(wire_decode_count(frame.payload, frame.length, &count, &failure) &&
	    count == 42, "its count");
	ok(wire_parse_frame(buffer.data + used, buffer.length - used, &frame, &used,
	    &failure) == 1 && frame.type == WIRE_WANT_END, "then the second");
	buffer_free(&buffer);
}

static void
test_ops(void)
{
	struct buffer payload;
	struct wire_ops ops;
	const uint8_t *body;
	size_t length;
	struct hearth_error failure = { 0 };

	buffer_init(&payload);
	buffer_append_varint(&payload, 2);
	buffer_append_bytes(&payload, "abc", 3);
	buffer_append_bytes(&payload, "de", 2);
	ok(wire_ops_begin(payload.data, payload.length, &ops, &failure), "OPS begins");
	ok(wire_ops_next(&ops, &body, &length, &failure) == 1 && length == 3 &&
	    memcmp(body, "abc", 3) == 0, "first op");
	ok(wire_ops_next(&ops, &body, &length, &failure) == 1 && length == 2,
	    "second op");
	check_int(wire_ops_next(&ops, &body, &length, &failure), 0);

	/* Trailing bytes after the last op. */
	buffer_append_byte(&payload, 0);
	ok(wire_ops_begin(payload.data, payload.length, &ops, &failure), "begins");
	wire_ops_next(&ops, &body, &length, &failure);
	wire_ops_next(&ops, &body, &length, &failure);
	ok(wire_ops_next(&ops, &body, &length, &failure) == -1 &&
	    strstr(failure.message, "stray") != NULL, "trailing bytes are refused: %s",
	    failure.message);

	/* A count the bytes cannot hold, zero, and an op running past the end. */
	buffer_reset(&payload);
	buffer_append_varint(&payload, 1000);
	buffer_append_bytes(&payload, "abc", 3);
	ok(!wire_ops_begin(payload.data, payload.length, &ops, &failure),
	    "1000 ops in 4 bytes is refused: %s", failure.message);
	buffer_reset(&payload);
	buffer_append_varint(&payload, 0);
	ok(!wire_ops_begin(payload.data, payload.length, &ops, &failure),
	    "an empty OPS frame is refused");
	buffer_reset(&payload);
	buffer_append_varint(&payload, 1);
	buffer_append_varint(&payload, 50);
	buffer_append(&payload, "short", 5);
	ok(wire_ops_begin(payload.data, payload.length, &ops, &failure), "begins");
	ok(wire_ops_next(&ops, &body, &length, &failure) == -1,
	    "an op longer than what is left is refused");
	buffer_free(&payload);
}

static void
test_blob(void)
{
	struct buffer payload;
	struct wire_blob blob;
	struct hash chunks[3] = { hash_of(1), hash_of(2), hash_of(3) };
	struct hash id = hash_of(9);
	struct hearth_error failure = { 0 };

	buffer_init(&payload);
	wire_encode_blob(&payload, &id, 5000000, 3, 0, chunks, 3);
	ok(wire_decode_blob(payload.data, payload.length, &blob, &failure),
	    "BLOB decodes: %s", failure.message);
	ok(hash_equal(&blob.blob, &id) && blob.size == 5000000 && blob.total == 3 &&
	    blob.first == 0 && blob.count == 3 && memcmp(blob.hashes, chunks, sizeof chunks) == 0,
	    "BLOB round-trips");
	buffer_reset(&payload);
	wire_encode_blob(&payload, &id, 5000000, 3, 2, chunks, 1);
	ok(wire_decode_blob(payload.data, payload.length, &blob, &failure) &&
	    blob.first == 2 && blob.count == 1, "the last part of a split list");
	buffer_reset(&payload);
	wire_encode_blob(&payload, &id, 5000000, 3, 2, chunks, 2);
	ok(!wire_decode_blob(payload.data, payload.length, &blob, &failure),
	    "a part running past the total is refused: %s", failure.message);
	buffer_reset(&payload);
	wire_encode_blob(&payload, &id, 1, 3, 0, chunks, 3);
	ok(!wire_decode_blob(payload.data, payload.length, &blob, &failure),
	    "3 chunks for 1 byte is refused: %s", failure.message);
	buffer_reset(&payload);
	wire_encode_blob(&payload, &id, 5000000, 1, 0, chunks, 1);
	ok(!wire_decode_blob(payload.data, payload.length, &blob, &failure),
	    "a one-chunk list is refused (one chunk needs no list)");
	buffer_reset(&payload);
	wire_encode_blob(&payload, &id, 5000000, 3, 0, chunks, 3);
	payload.length -= 1;
	ok(!wire_decode_blob(payload.data, payload.length, &blob, &failure),
	    "a short id list is refused");
	buffer_free(&payload);
}

static void
test_hashes_chunk_done_error(void)
{
	struct buffer payload;
	struct hash wants[2] = { hash_of(4), hash_of(5) };
	const uint8_t *hashes;
	size_t count;
	struct hearth_error failure = { 0 };

	buffer_init(&payload);
	wire_encode_hashes(&payload, wants, 2);
	ok(wire_decode_hashes(payload.data, payload.length, &hashes, &count, &failure) &&
	    count == 2 && memcmp(hashes, wants, sizeof wants) == 0, "WANT round-trips");
	payload.length--;
	ok(!wire_decode_hashes(payload.data, payload.length, &hashes, &count, &failure),
	    "a WANT one byte short is refused");
	buffer_reset(&payload);
	buffer_append_varint(&payload, WIRE_HASHES_MAX + 1);
	ok(!wire_decode_hashes(payload.data, payload.length, &hashes, &count, &failure),
	    "a WANT over the limit is refused");

	/* CHUNK */
	struct hash chunk = hash_of(6), got;
	const uint8_t *data;
	size_t length;
	buffer_reset(&payload);
	wire_encode_chunk_header(&payload, &chunk);
	buffer_append(&payload, "bytes", 5);
	ok(wire_decode_chunk(payload.data, payload.length, &got, &data, &length, &failure) &&
	    hash_equal(&got, &chunk) && length == 5 &&
	    memcmp(data, "bytes", 5) == 0, "CHUNK round-trips");
	payload.data[HASH_BYTES] = 7;
	ok(!wire_decode_chunk(payload.data, payload.length, &got, &data, &length, &failure) &&
	    strstr(failure.message, "codec") != NULL, "an unknown codec is refused: %s",
	    failure.message);
	ok(!wire_decode_chunk(payload.data, HASH_BYTES, &got, &data, &length, &failure),
	    "a CHUNK without its codec byte is refused");
	uint8_t *huge = calloc(1, HASH_BYTES + 1 + WIRE_CHUNK_DATA_MAX + 1);
	ok(!wire_decode_chunk(huge, HASH_BYTES + 1 + WIRE_CHUNK_DATA_MAX + 1, &got, &data, &length,
	    &failure), "a chunk over CHUNK_MAX is refused");
	free(huge);

	/* DONE */
	struct vv vv, decoded;
	uint64_t ops_new = 0;
	vv_init(&vv);
	vv_set(&vv, replica(3), 12);
	buffer_reset(&payload);
	wire_encode_done(&payload, 77, &vv);
	ok(wire_decode_done(payload.data, payload.length, &ops_new, &decoded, &failure) &&
	    ops_new == 77 && vv_equal(&vv, &decoded), "DONE round-trips");
	vv_free(&decoded);
	buffer_append_byte(&payload, 1);
	ok(!wire_decode_done(payload.data, payload.length, &ops_new, &decoded, &failure),
	    "a DONE with stray bytes is refused");
	vv_free(&vv);

	/* ERROR: control bytes never reach a terminal. */
	char message[64];
	buffer_reset(&payload);
	wire_encode_error(&payload, "bad\033[2Jthing\n");
	ok(wire_decode_error(payload.data, payload.length, message, sizeof message, &failure),
	    "ERROR decodes");
	check_str(message, "bad?[2Jthing?");
	/* Counts. */
	uint64_t count64;
	buffer_reset(&payload);
	ok(!wire_decode_count(payload.data, payload.length, &count64, &failure),
	    "an empty count is refused");
	buffer_free(&payload);
}

/* A delta CHUNK (protocol 4): its base travels beside it; the raw-only
 * decoder refuses it, and a delta cut inside its base id is refused. */
static void
test_delta_chunk(void)
{
	struct buffer payload;
	struct hash chunk = hash_of(8), base = hash_of(9), got, got_base;
	const uint8_t *data;
	size_t length;
	uint8_t codec = 0;
	struct hearth_error failure = { 0 };

	buffer_init(&payload);
	wire_encode_delta_header(&payload, &chunk, &base);
	buffer_append(&payload, "delta", 5);
	ok(wire_decode_chunk_coded(payload.data, payload.length, &got, &codec, &got_base, &data,
	    &length, &failure) && codec == WIRE_CODEC_DELTA && hash_equal(&got, &chunk) &&
	    hash_equal(&got_base, &base) && length == 5 && memcmp(data, "delta", 5) == 0,
	    "a delta CHUNK round-trips with its base");
	ok(!wire_decode_chunk(payload.data, payload.length, &got, &data, &length, &failure) &&
	    strstr(failure.message, "codec 2") != NULL,
	    "where only raw chunks may come, a delta is refused: %s", failure.message);
	ok(!wire_decode_chunk_coded(payload.data, HASH_BYTES + 1 + 10, &got, &codec, &got_base,
	    &data, &length, &failure), "a delta cut inside its base id is refused");
	buffer_reset(&payload);
	wire_encode_chunk_header(&payload, &chunk);
	buffer_append(&payload, "raw", 3);
	ok(wire_decode_chunk_coded(payload.data, payload.length, &got, &codec, &got_base, &data,
	    &length, &failure) && codec == WIRE_CODEC_RAW && length == 3,
	    "a raw CHUNK decodes there too");
	/* Protocol 5: a chunk as the sender's pack stores it. */
	const uint8_t stored_codecs[] = { WIRE_CODEC_ZSTD, WIRE_CODEC_INCOMPRESSIBLE };
	for (size_t i = 0; i < sizeof stored_codecs; i++) {
		buffer_reset(&payload);
		wire_encode_coded_header(&payload, &chunk, stored_codecs[i]);
		buffer_append(&payload, "frame", 5);
		ok(wire_decode_chunk_coded(payload.data, payload.length, &got, &codec, &got_base,
		    &data, &length, &failure) && codec == stored_codecs[i] &&
		    hash_equal(&got, &chunk) && length == 5 && memcmp(data, "frame", 5) == 0,
		    "a CHUNK in codec %u round-trips", stored_codecs[i]);
		ok(!wire_decode_chunk(payload.data, payload.length, &got, &data, &length, &failure),
		    "where only raw chunks may come, codec %u is refused", stored_codecs[i]);
	}
	payload.data[HASH_BYTES] = WIRE_CODEC_INCOMPRESSIBLE + 1;
	ok(!wire_decode_chunk_coded(payload.data, payload.length, &got, &codec, &got_base, &data,
	    &length, &failure) && strstr(failure.message, "unknown codec 4") != NULL,
	    "the codec after the known ones is refused: %s", failure.message);
	buffer_free(&payload);
}

/* LACK (protocol 2): the chunk and the peer's reason, which reaches the
 * terminal without control bytes; anything short or trailing is refused. */
static void
test_lack(void)
{
	struct buffer payload;
	struct hash chunk = hash_of(8), got;
	char reason[64];
	struct hearth_error failure;

	buffer_init(&payload);
	wire_encode_lack(&payload, &chunk, "damaged\033[2J here too");
	ok(wire_decode_lack(payload.data, payload.length, &got, reason, sizeof reason, &failure) &&
	    hash_equal(&got, &chunk), "LACK round-trips");
	check_str(reason, "damaged?[2J here too");
	ok(!wire_decode_lack(payload.data, HASH_BYTES, &got, reason, sizeof reason, &failure),
	    "a LACK without its reason is refused");
	buffer_append_byte(&payload, 0);
	ok(!wire_decode_lack(payload.data, payload.length, &got, reason, sizeof reason, &failure) &&
	    strstr(failure.message, "stray") != NULL, "a LACK with stray bytes is refused");
	struct wire_frame frame = { .type = WIRE_LACK, .payload = payload.data,
		.length = payload.length - 1 };
	ok(wire_check_payload(&frame, &failure), "wire_check_payload knows LACK");
	check_str(wire_type_name(WIRE_LACK), "LACK");
	ok(WIRE_PROTOCOL_FETCH > WIRE_PROTOCOL_MIN && WIRE_PROTOCOL_FETCH <= WIRE_PROTOCOL_MAX,
	    "fetching is a later version this hearth speaks");
	buffer_free(&payload);
}

/* Random bytes, and valid frames with random damage, through every
 * decoder: ASan and UBSan watch for any read out of bounds. */
static void
test_random_input(void)
{
	uint64_t state = 0x5eed;
	uint8_t bytes[512];
	struct hearth_error failure = { 0 };
	size_t accepted = 0;

	for (int round = 0; round < 200000; round++) {
		size_t length = (size_t)(state % sizeof bytes);
		for (size_t i = 0; i < length; i++) {
			state = state * 6364136223846793005u + 1442695040888963407u;
			bytes[i] = (uint8_t)(state >> 56);
		}
		/* Half the rounds get a plausible header and a right checksum,
		 * so the payload decoders see the bytes too. */
		if (round % 2 == 0 && length >= WIRE_HEADER_SIZE + WIRE_TRAILER_SIZE) {
			size_t payload = length - WIRE_HEADER_SIZE - WIRE_TRAILER_SIZE;
			store_u32be(bytes, (uint32_t)payload);
			bytes[4] = (uint8_t)(1 + bytes[4] % WIRE_TYPE_LAST);
			store_u32be(bytes + WIRE_HEADER_SIZE + payload,
			    pack_crc32c(0, bytes + 4, payload + 1));
		}
		struct wire_frame frame;
		size_t used;
		if (wire_parse_frame(bytes, length, &frame, &used, &failure) == 1 &&
		    wire_check_payload(&frame, &failure))
			accepted++;
	}
	ok(true, "200000 random inputs decoded without a fault (%zu happened to be valid)",
	    accepted);
}

int
main(void)
{
	test_hello();
	test_hello_vv_rules();
	test_negotiate();
	test_frames();
	test_ops();
	test_blob();
	test_hashes_chunk_done_error();
	test_delta_chunk();
	test_lack();
	test_random_input();
	return tap_done();
}
