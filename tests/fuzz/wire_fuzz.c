/* Fuzz target: the sync protocol's frame and payload decoders
 * (backend/sync/wire.c) on a byte stream as a peer would send it. The stream is
 * walked twice: frame by frame as the receiver does, checksums and all,
 * and again trusting each header's length but not its checksum, so that
 * mutated payloads reach every decoder instead of stopping at the CRC. */
#include <stdbool.h>
#include <string.h>

#include "backend/sync/wire.h"
#include "model/op.h"
#include "tests/fuzz/fuzz.h"

/* The ops of an OPS frame, each through op_decode as sync_receive does. */
static void
wire_fuzz_ops(const uint8_t *payload, size_t length)
{
	struct wire_ops ops;
	const uint8_t *body;
	size_t body_length;
	struct hearth_error failure;
	struct arena arena;

	if (!wire_ops_begin(payload, length, &ops, &failure))
		return;
	arena_init(&arena, 4096);
	while (wire_ops_next(&ops, &body, &body_length, &failure) == 1) {
		struct op op;
		fuzz_check(body_length > 0 && body >= payload && body + body_length <= payload + length,
		    "an op's bytes lie inside its frame");
		op_decode(body, body_length, &op, &arena, failure.message, sizeof failure.message);
	}
	arena_free(&arena);
}

/* HELLO's promises: a printable, terminated software name and a version
 * vector sorted with no zero counters, which re-encodes to a HELLO that
 * decodes to the same. */
static void
wire_fuzz_hello(const uint8_t *payload, size_t length)
{
	struct wire_hello hello, again;
	struct buffer encoded;
	struct hearth_error failure;

	if (!wire_decode_hello(payload, length, &hello, &failure))
		return;
	fuzz_check(strlen(hello.software) <= WIRE_SOFTWARE_MAX, "software name bounded");
	for (const char *c = hello.software; *c; c++)
		fuzz_check(*c >= 0x20 && *c < 0x7f, "software name printable");
	for (size_t i = 0; i < hello.vv.count; i++) {
		fuzz_check(hello.vv.entries[i].counter > 0, "no zero counter");
		fuzz_check(i == 0 || replica_id_compare(hello.vv.entries[i - 1].replica,
		    hello.vv.entries[i].replica) < 0, "vv sorted");
	}
	buffer_init(&encoded);
	wire_encode_hello(&encoded, &hello);
	fuzz_check(wire_decode_hello(encoded.data, encoded.length, &again, &failure),
	    "a decoded HELLO re-encodes to one that decodes");
	fuzz_check(again.vv.count == hello.vv.count && again.flags == hello.flags &&
	    again.protocol_min == hello.protocol_min && again.protocol_max == hello.protocol_max,
	    "a HELLO survives re-encoding");
	wire_hello_free(&again);
	wire_hello_free(&hello);
	buffer_free(&encoded);
}

static void
wire_fuzz_payload(uint8_t type, const uint8_t *payload, size_t length)
{
	struct wire_frame frame = { .type = type, .payload = payload, .length = length };
	struct hearth_error failure = { 0 };

	if (!wire_check_payload(&frame, &failure))
		fuzz_check(failure.message[0] != '\0', "a refused payload says why");
	if (type == WIRE_OPS)
		wire_fuzz_ops(payload, length);
	else if (type == WIRE_HELLO)
		wire_fuzz_hello(payload, length);
	else if (type == WIRE_ERROR) {
		char message[WIRE_MESSAGE_MAX + 1];
		if (wire_decode_error(payload, length, message, sizeof message, &failure))
			for (const char *c = message; *c; c++)
				fuzz_check((unsigned char)*c >= 0x20 && *c != 0x7f,
				    "a peer's message reaches the terminal without control bytes");
	} else if (type == WIRE_BLOB) {
		struct wire_blob blob;
		if (wire_decode_blob(payload, length, &blob, &failure))
			fuzz_check(blob.hashes + blob.count * HASH_BYTES == payload + length &&
			    blob.first + blob.count <= blob.total, "a BLOB's ids lie inside it");
	}
}

/* As the receiver reads: a frame is used only when whole and checked. */
static void
wire_fuzz_checked(const uint8_t *data, size_t size)
{
	size_t offset = 0;

	while (offset < size) {
		struct wire_frame frame;
		size_t used = 0;
		struct hearth_error failure = { 0 };
		int parsed = wire_parse_frame(data + offset, size - offset, &frame, &used, &failure);
		if (parsed < 0)
			fuzz_check(failure.message[0] != '\0', "a refused frame says why");
		if (parsed != 1)
			return;
		fuzz_check(used == WIRE_HEADER_SIZE + frame.length + WIRE_TRAILER_SIZE &&
		    used <= size - offset, "a parsed frame lies inside the stream");
		wire_fuzz_payload(frame.type, frame.payload, frame.length);
		offset += used;
	}
}

/* Past the checksum: each header's length taken on trust. */
static void
wire_fuzz_unchecked(const uint8_t *data, size_t size)
{
	size_t offset = 0;

	while (size - offset >= WIRE_HEADER_SIZE) {
		size_t length;
		struct hearth_error failure;
		if (!wire_parse_header(data + offset, &length, &failure))
			return;
		uint8_t type = data[offset + 4];
		offset += WIRE_HEADER_SIZE;
		if (length > size - offset)
			length = size - offset;
		wire_fuzz_payload(type, data + offset, length);
		offset += length;
		offset += size - offset < WIRE_TRAILER_SIZE ? size - offset : WIRE_TRAILER_SIZE;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wire_fuzz_checked(data, size);
	wire_fuzz_unchecked(data, size);
	return 0;
}
