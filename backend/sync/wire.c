/* Encoding and decoding of sync frames (see wire.h for the layout). Pure:
 * bytes in, bytes or structs out. The decoders are the protocol's first
 * line against a broken or hostile peer, so each one says exactly what was
 * wrong and trusts no length it has not checked. */
#include "backend/sync/wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/io/fail.h"
#include "backend/store/pack.h"
#include "model/array.h"

static bool
wire_fail(struct hearth_error *error, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static bool
wire_fail(struct hearth_error *error, const char *format, ...)
{
	va_list args;

	/* The wire's readers answer true or false: the text as everywhere. */
	va_start(args, format);
	hearth_error_vput(error, format, args);
	va_end(args);
	return false;
}

const char *
wire_type_name(uint8_t type)
{
	static const char *const names[] = {
		[WIRE_HELLO] = "HELLO", [WIRE_ERROR] = "ERROR", [WIRE_OPS] = "OPS",
		[WIRE_BLOB] = "BLOB", [WIRE_OPS_END] = "OPS_END", [WIRE_WANT] = "WANT",
		[WIRE_WANT_END] = "WANT_END", [WIRE_CHUNK] = "CHUNK",
		[WIRE_CHUNKS_END] = "CHUNKS_END", [WIRE_DONE] = "DONE", [WIRE_LACK] = "LACK",
		[WIRE_BASES] = "BASES",
	};

	if (type == 0 || type > WIRE_TYPE_LAST)
		return "unknown";
	return names[type];
}

/* ---- frames ------------------------------------------------------------------ */

size_t
wire_begin(struct buffer *out, enum wire_type type)
{
	size_t start = out->length;
	uint8_t header[WIRE_HEADER_SIZE] = { 0, 0, 0, 0, (uint8_t)type };

	buffer_append(out, header, sizeof header);
	return start;
}

bool
wire_end(struct buffer *out, size_t start)
{
	size_t length = out->length - start - WIRE_HEADER_SIZE;

	if (length > WIRE_PAYLOAD_MAX)
		return false;
	store_u32be(out->data + start, (uint32_t)length);
	/* The type byte is covered too: a flipped type must not pass as
	 * another frame with the same payload. */
	uint32_t crc = pack_crc32c(0, out->data + start + 4, length + 1);
	buffer_append_u32be(out, crc);
	return true;
}

bool
wire_parse_header(const uint8_t header[WIRE_HEADER_SIZE], size_t *length,
    struct hearth_error *error)
{
	uint32_t declared = load_u32be(header);
	uint8_t type = header[4];

	if (declared > WIRE_PAYLOAD_MAX)
		return wire_fail(error,
		    "oversized frame: %lu bytes declared, the limit is %u", (unsigned long)declared,
		    WIRE_PAYLOAD_MAX);
	if (type == 0 || type > WIRE_TYPE_LAST)
		return wire_fail(error, "unknown frame type %u", type);
	*length = declared;
	return true;
}

int
wire_parse_frame(const uint8_t *data, size_t length, struct wire_frame *out, size_t *used,
    struct hearth_error *error)
{
	size_t payload_length;

	if (length < WIRE_HEADER_SIZE)
		return 0;
	if (!wire_parse_header(data, &payload_length, error))
		return -1;
	/* payload_length <= WIRE_PAYLOAD_MAX, so this cannot overflow. */
	size_t whole = WIRE_HEADER_SIZE + payload_length + WIRE_TRAILER_SIZE;
	if (length < whole)
		return 0;
	uint32_t want = load_u32be(data + WIRE_HEADER_SIZE + payload_length);
	uint32_t got = pack_crc32c(0, data + 4, payload_length + 1);
	if (want != got) {
		wire_fail(error, "bad checksum on a %s frame of %zu bytes "
		    "(crc32c %08x, the frame says %08x)", wire_type_name(data[4]), payload_length,
		    got, want);
		return -1;
	}
	out->type = data[4];
	out->payload = data + WIRE_HEADER_SIZE;
	out->length = payload_length;
	*used = whole;
	return 1;
}

/* ---- small pieces -------------------------------------------------------------- */

static bool
wire_truncated(const char *what, struct hearth_error *error)
{
	return wire_fail(error, "truncated or malformed %s frame", what);
}

static bool
wire_ended(const struct reader *reader, const char *what, struct hearth_error *error)
{
	if (reader->bad)
		return wire_truncated(what, error);
	if (!reader_at_end(reader))
		return wire_fail(error, "%zu stray bytes after a %s frame's payload",
		    reader->length - reader->offset, what);
	return true;
}

static void
wire_encode_vv(struct buffer *out, const struct vv *vv)
{
	buffer_append_varint(out, vv->count);
	for (size_t i = 0; i < vv->count; i++) {
		buffer_append(out, vv->entries[i].replica.bytes, ID_BYTES);
		buffer_append_varint(out, vv->entries[i].counter);
	}
}

/* A version vector in canonical form: sorted, no duplicates, no zeros. It
 * grows entry by entry, so memory follows the bytes actually received. */
static bool
wire_decode_vv(struct reader *reader, struct vv *out, const char *what, struct hearth_error *error)
{
	uint64_t count;

	if (!reader_varint(reader, &count))
		return wire_truncated(what, error);
	if (count > reader->length - reader->offset)
		return wire_fail(error, "a %s frame claims %llu version vector "
		    "entries in fewer bytes", what, (unsigned long long)count);
	for (uint64_t i = 0; i < count; i++) {
		struct replica_id replica;
		uint64_t counter;
		if (!reader_fixed(reader, replica.bytes, ID_BYTES) ||
		    !reader_varint(reader, &counter))
			return wire_truncated(what, error);
		if (counter == 0)
			return wire_fail(error, "a %s frame's version vector has a "
			    "zero counter", what);
		if (out->count > 0 &&
		    replica_id_compare(out->entries[out->count - 1].replica, replica) >= 0)
			return wire_fail(error, "a %s frame's version vector is not "
			    "sorted by replica", what);
		vv_set(out, replica, counter);
	}
	return true;
}

/* ---- HELLO --------------------------------------------------------------------- */

void
wire_encode_hello(struct buffer *out, const struct wire_hello *hello)
{
	buffer_append(out, WIRE_MAGIC, WIRE_MAGIC_SIZE);
	buffer_append_varint(out, hello->protocol_min);
	buffer_append_varint(out, hello->protocol_max);
	buffer_append_varint(out, hello->flags);
	buffer_append_bytes(out, hello->software, strnlen(hello->software, WIRE_SOFTWARE_MAX));
	buffer_append(out, hello->home, ID_BYTES);
	buffer_append(out, hello->replica.bytes, ID_BYTES);
	wire_encode_vv(out, &hello->vv);
	for (size_t i = 0; hello->chains != NULL && i < hello->vv.count; i++)
		buffer_append(out, hello->chains[i].bytes, HASH_BYTES);
}

static bool
wire_decode_u32(struct reader *reader, uint32_t *out)
{
	uint64_t value;

	if (!reader_varint(reader, &value) || value > UINT32_MAX)
		return false;
	*out = (uint32_t)value;
	return true;
}

bool
wire_decode_hello(const uint8_t *payload, size_t length, struct wire_hello *out,
    struct hearth_error *error)
{
	struct reader reader;
	uint8_t magic[WIRE_MAGIC_SIZE];
	const uint8_t *software;
	size_t software_length;

	memset(out, 0, sizeof *out);
	vv_init(&out->vv);
	reader_init(&reader, payload, length);
	if (!reader_fixed(&reader, magic, sizeof magic) ||
	    memcmp(magic, WIRE_MAGIC, WIRE_MAGIC_SIZE) != 0)
		return wire_fail(error, "not a hearth sync peer (bad magic in HELLO)");
	if (!wire_decode_u32(&reader, &out->protocol_min) ||
	    !wire_decode_u32(&reader, &out->protocol_max) ||
	    !wire_decode_u32(&reader, &out->flags) ||
	    !reader_bytes(&reader, &software, &software_length, WIRE_SOFTWARE_MAX) ||
	    !reader_fixed(&reader, out->home, ID_BYTES) ||
	    !reader_fixed(&reader, out->replica.bytes, ID_BYTES))
		return wire_truncated("HELLO", error);
	for (size_t i = 0; i < software_length; i++)
		out->software[i] = software[i] >= 0x20 && software[i] < 0x7f ? (char)software[i] : '?';
	out->software[software_length] = '\0';
	if (out->protocol_min == 0 || out->protocol_min > out->protocol_max)
		return wire_fail(error, "HELLO with a bad protocol range %lu-%lu",
		    (unsigned long)out->protocol_min, (unsigned long)out->protocol_max);
	/* Bytes after the version vector are fields a later version added:
	 * HELLO is the one frame read before a version is agreed on. */
	if (!wire_decode_vv(&reader, &out->vv, "HELLO", error)) {
		vv_free(&out->vv);
		return false;
	}
	/* Protocol 3's chains, one per entry, when the bytes hold them all. */
	size_t left = reader.length - reader.offset;
	if (out->vv.count > 0 && left / HASH_BYTES >= out->vv.count) {
		out->chains = array_alloc(out->vv.count, sizeof *out->chains);
		for (size_t i = 0; i < out->vv.count; i++)
			reader_fixed(&reader, out->chains[i].bytes, HASH_BYTES);
	}
	return true;
}

void
wire_hello_free(struct wire_hello *hello)
{
	vv_free(&hello->vv);
	free(hello->chains);
	hello->chains = NULL;
}

bool
wire_negotiate(uint32_t our_min, uint32_t our_max, uint32_t their_min, uint32_t their_max,
    uint32_t *chosen, struct hearth_error *error)
{
	uint32_t highest = our_max < their_max ? our_max : their_max;
	uint32_t lowest = our_min > their_min ? our_min : their_min;

	if (highest < lowest)
		return wire_fail(error, "peer speaks protocol %lu-%lu, we need %lu-%lu; "
		    "upgrade the %s hearth", (unsigned long)their_min, (unsigned long)their_max,
		    (unsigned long)our_min, (unsigned long)our_max,
		    their_max < our_min ? "peer's" : "local");
	*chosen = highest;
	return true;
}

/* ---- ERROR --------------------------------------------------------------------- */

void
wire_encode_error(struct buffer *out, const char *message)
{
	buffer_append_bytes(out, message, strnlen(message, WIRE_MESSAGE_MAX));
}

/* The peer's words end up on our terminal: no escapes get through. */
static void
wire_copy_text(const uint8_t *text, size_t length, char *out, size_t out_size)
{
	if (out_size == 0)
		return;
	size_t kept = length < out_size - 1 ? length : out_size - 1;
	for (size_t i = 0; i < kept; i++)
		out[i] = text[i] < 0x20 || text[i] == 0x7f ? '?' : (char)text[i];
	out[kept] = '\0';
}

bool
wire_decode_error(const uint8_t *payload, size_t length, char *out, size_t out_size,
    struct hearth_error *error)
{
	struct reader reader;
	const uint8_t *text;
	size_t text_length;

	reader_init(&reader, payload, length);
	if (!reader_bytes(&reader, &text, &text_length, WIRE_MESSAGE_MAX))
		return wire_truncated("ERROR", error);
	if (!wire_ended(&reader, "ERROR", error))
		return false;
	wire_copy_text(text, text_length, out, out_size);
	return true;
}

/* ---- OPS ----------------------------------------------------------------------- */

bool
wire_ops_begin(const uint8_t *payload, size_t length, struct wire_ops *out,
    struct hearth_error *error)
{
	reader_init(&out->reader, payload, length);
	if (!reader_varint(&out->reader, &out->remaining))
		return wire_truncated("OPS", error);
	/* Each op takes at least two bytes (its length and one of body). */
	if (out->remaining == 0 || out->remaining > (length - out->reader.offset) / 2)
		return wire_fail(error, "an OPS frame claims %llu ops in %zu bytes",
		    (unsigned long long)out->remaining, length);
	return true;
}

int
wire_ops_next(struct wire_ops *ops, const uint8_t **body, size_t *length,
    struct hearth_error *error)
{
	if (ops->remaining == 0)
		return wire_ended(&ops->reader, "OPS", error) ? 0 : -1;
	if (!reader_bytes(&ops->reader, body, length, WIRE_PAYLOAD_MAX) || *length == 0) {
		wire_truncated("OPS", error);
		return -1;
	}
	ops->remaining--;
	return 1;
}

/* ---- BLOB ---------------------------------------------------------------------- */

void
wire_encode_blob(struct buffer *out, const struct hash *blob, uint64_t size, uint64_t total,
    uint64_t first, const struct hash *hashes, size_t count)
{
	buffer_append(out, blob->bytes, HASH_BYTES);
	buffer_append_varint(out, size);
	buffer_append_varint(out, total);
	buffer_append_varint(out, first);
	buffer_append_varint(out, count);
	buffer_append(out, hashes, count * HASH_BYTES);
}

bool
wire_decode_blob(const uint8_t *payload, size_t length, struct wire_blob *out,
    struct hearth_error *error)
{
	struct reader reader;
	uint64_t count;

	reader_init(&reader, payload, length);
	if (!reader_fixed(&reader, out->blob.bytes, HASH_BYTES) ||
	    !reader_varint(&reader, &out->size) || !reader_varint(&reader, &out->total) ||
	    !reader_varint(&reader, &out->first) || !reader_varint(&reader, &count))
		return wire_truncated("BLOB", error);
	if (count == 0 || count > WIRE_HASHES_MAX)
		return wire_fail(error, "a BLOB frame with %llu chunk ids (1 to %u "
		    "allowed)", (unsigned long long)count, WIRE_HASHES_MAX);
	if (out->total < 2 || out->first >= out->total || count > out->total - out->first)
		return wire_fail(error, "a BLOB frame with chunks %llu+%llu of %llu",
		    (unsigned long long)out->first, (unsigned long long)count,
		    (unsigned long long)out->total);
	/* A blob of N chunks holds at least N - 1 bytes (only the last chunk
	 * of a file may be short, and only an empty file's may be empty). */
	if (out->total - 1 > out->size)
		return wire_fail(error, "a BLOB frame claims %llu chunks for %llu bytes",
		    (unsigned long long)out->total, (unsigned long long)out->size);
	if (count * HASH_BYTES != length - reader.offset)
		return wire_fail(error, "a BLOB frame claims %llu chunk ids in %zu bytes",
		    (unsigned long long)count, length - reader.offset);
	out->count = (size_t)count;
	out->hashes = payload + reader.offset;
	return true;
}

/* ---- WANT ---------------------------------------------------------------------- */

void
wire_encode_hashes(struct buffer *out, const struct hash *hashes, size_t count)
{
	buffer_append_varint(out, count);
	buffer_append(out, hashes, count * HASH_BYTES);
}

bool
wire_decode_hashes(const uint8_t *payload, size_t length, const uint8_t **hashes, size_t *count,
    struct hearth_error *error)
{
	struct reader reader;
	uint64_t declared;

	reader_init(&reader, payload, length);
	if (!reader_varint(&reader, &declared))
		return wire_truncated("WANT", error);
	if (declared == 0 || declared > WIRE_HASHES_MAX ||
	    declared * HASH_BYTES != length - reader.offset)
		return wire_fail(error, "a WANT frame claims %llu chunk ids in %zu "
		    "bytes (1 to %u allowed)", (unsigned long long)declared, length - reader.offset,
		    WIRE_HASHES_MAX);
	*hashes = payload + reader.offset;
	*count = (size_t)declared;
	return true;
}

/* ---- counts -------------------------------------------------------------------- */

void
wire_encode_count(struct buffer *out, uint64_t count)
{
	buffer_append_varint(out, count);
}

bool
wire_decode_count(const uint8_t *payload, size_t length, uint64_t *count,
    struct hearth_error *error)
{
	struct reader reader;

	reader_init(&reader, payload, length);
	if (!reader_varint(&reader, count))
		return wire_truncated("end", error);
	return wire_ended(&reader, "end", error);
}

/* ---- OPS_END ------------------------------------------------------------------- */

#define WIRE_CLAIM_MIN_BYTES (ID_BYTES + 1 + HASH_BYTES)

void
wire_encode_ops_end(struct buffer *out, uint64_t count, const struct wire_chain_claim *claims,
    size_t n)
{
	buffer_append_varint(out, count);
	buffer_append_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		buffer_append(out, claims[i].replica.bytes, ID_BYTES);
		buffer_append_varint(out, claims[i].counter);
		buffer_append(out, claims[i].chain.bytes, HASH_BYTES);
	}
}

bool
wire_decode_ops_end(const uint8_t *payload, size_t length, uint64_t *count,
    struct wire_chain_claim **claims, size_t *n, struct hearth_error *error)
{
	struct reader reader;
	uint64_t declared;

	*claims = NULL;
	*n = 0;
	reader_init(&reader, payload, length);
	if (!reader_varint(&reader, count))
		return wire_truncated("OPS_END", error);
	if (reader_at_end(&reader))
		return true;
	if (!reader_varint(&reader, &declared))
		return wire_truncated("OPS_END", error);
	if (declared > WIRE_HASHES_MAX ||
	    declared > (reader.length - reader.offset) / WIRE_CLAIM_MIN_BYTES)
		return wire_fail(error, "an OPS_END frame claims %llu chains in %zu bytes",
		    (unsigned long long)declared, reader.length - reader.offset);
	struct wire_chain_claim *read = array_alloc(declared, sizeof *read);
	for (uint64_t i = 0; i < declared; i++) {
		if (!reader_fixed(&reader, read[i].replica.bytes, ID_BYTES) ||
		    !reader_varint(&reader, &read[i].counter) ||
		    !reader_fixed(&reader, read[i].chain.bytes, HASH_BYTES)) {
			free(read);
			return wire_truncated("OPS_END", error);
		}
	}
	if (!wire_ended(&reader, "OPS_END", error)) {
		free(read);
		return false;
	}
	*claims = read;
	*n = (size_t)declared;
	return true;
}

/* ---- CHUNK --------------------------------------------------------------------- */

void
wire_encode_coded_header(struct buffer *out, const struct hash *chunk, uint8_t codec)
{
	buffer_append(out, chunk->bytes, HASH_BYTES);
	buffer_append_byte(out, codec);
}

void
wire_encode_chunk_header(struct buffer *out, const struct hash *chunk)
{
	wire_encode_coded_header(out, chunk, WIRE_CODEC_RAW);
}

void
wire_encode_delta_header(struct buffer *out, const struct hash *chunk, const struct hash *base)
{
	wire_encode_coded_header(out, chunk, WIRE_CODEC_DELTA);
	buffer_append(out, base->bytes, HASH_BYTES);
}

bool
wire_decode_chunk(const uint8_t *payload, size_t length, struct hash *chunk,
    const uint8_t **data, size_t *data_length, struct hearth_error *error)
{
	if (length > HASH_BYTES && payload[HASH_BYTES] != WIRE_CODEC_RAW)
		return wire_fail(error, "a CHUNK frame with unknown codec %u",
		    payload[HASH_BYTES]);
	uint8_t codec;
	struct hash base;
	return wire_decode_chunk_coded(payload, length, chunk, &codec, &base, data, data_length,
	    error);
}

bool
wire_decode_chunk_coded(const uint8_t *payload, size_t length, struct hash *chunk,
    uint8_t *codec, struct hash *base, const uint8_t **data, size_t *data_length,
    struct hearth_error *error)
{
	if (length < HASH_BYTES + 1)
		return wire_truncated("CHUNK", error);
	memcpy(chunk->bytes, payload, HASH_BYTES);
	*codec = payload[HASH_BYTES];
	if (*codec != WIRE_CODEC_RAW && *codec != WIRE_CODEC_DELTA && *codec != WIRE_CODEC_ZSTD &&
	    *codec != WIRE_CODEC_INCOMPRESSIBLE)
		return wire_fail(error, "a CHUNK frame with unknown codec %u", *codec);
	size_t header = HASH_BYTES + 1 + (*codec == WIRE_CODEC_DELTA ? HASH_BYTES : 0);
	if (length < header)
		return wire_truncated("CHUNK", error);
	if (*codec == WIRE_CODEC_DELTA)
		memcpy(base->bytes, payload + HASH_BYTES + 1, HASH_BYTES);
	*data = payload + header;
	*data_length = length - header;
	if (*data_length > WIRE_CHUNK_DATA_MAX)
		return wire_fail(error, "a CHUNK frame of %zu bytes (chunks are at most "
		    "%u)", *data_length, WIRE_CHUNK_DATA_MAX);
	return true;
}

/* ---- LACK ---------------------------------------------------------------------- */

void
wire_encode_lack(struct buffer *out, const struct hash *chunk, const char *reason)
{
	buffer_append(out, chunk->bytes, HASH_BYTES);
	buffer_append_bytes(out, reason, strnlen(reason, WIRE_MESSAGE_MAX));
}

bool
wire_decode_lack(const uint8_t *payload, size_t length, struct hash *chunk, char *reason,
    size_t reason_size, struct hearth_error *error)
{
	struct reader reader;
	const uint8_t *text;
	size_t text_length;

	reader_init(&reader, payload, length);
	if (!reader_fixed(&reader, chunk->bytes, HASH_BYTES) ||
	    !reader_bytes(&reader, &text, &text_length, WIRE_MESSAGE_MAX))
		return wire_truncated("LACK", error);
	if (!wire_ended(&reader, "LACK", error))
		return false;
	wire_copy_text(text, text_length, reason, reason_size);
	return true;
}

/* ---- DONE ---------------------------------------------------------------------- */

void
wire_encode_done(struct buffer *out, uint64_t ops_new, const struct vv *vv)
{
	buffer_append_varint(out, ops_new);
	wire_encode_vv(out, vv);
}

bool
wire_decode_done(const uint8_t *payload, size_t length, uint64_t *ops_new, struct vv *vv,
    struct hearth_error *error)
{
	struct reader reader;

	vv_init(vv);
	reader_init(&reader, payload, length);
	if (!reader_varint(&reader, ops_new))
		return wire_truncated("DONE", error);
	if (!wire_decode_vv(&reader, vv, "DONE", error) ||
	    !wire_ended(&reader, "DONE", error)) {
		vv_free(vv);
		return false;
	}
	return true;
}

/* ---- any frame ------------------------------------------------------------------- */

bool
wire_check_payload(const struct wire_frame *frame, struct hearth_error *error)
{
	switch (frame->type) {
	case WIRE_HELLO: {
		struct wire_hello hello;
		if (!wire_decode_hello(frame->payload, frame->length, &hello, error))
			return false;
		wire_hello_free(&hello);
		return true;
	}
	case WIRE_ERROR: {
		char message[WIRE_MESSAGE_MAX + 1];
		return wire_decode_error(frame->payload, frame->length, message, sizeof message,
		    error);
	}
	case WIRE_OPS: {
		struct wire_ops ops;
		const uint8_t *body;
		size_t length;
		int step;
		if (!wire_ops_begin(frame->payload, frame->length, &ops, error))
			return false;
		while ((step = wire_ops_next(&ops, &body, &length, error)) == 1)
			continue;
		return step == 0;
	}
	case WIRE_BLOB: {
		struct wire_blob blob;
		return wire_decode_blob(frame->payload, frame->length, &blob, error);
	}
	case WIRE_WANT:
	case WIRE_BASES: {
		const uint8_t *hashes;
		size_t count;
		return wire_decode_hashes(frame->payload, frame->length, &hashes, &count, error);
	}
	case WIRE_OPS_END: {
		uint64_t count;
		struct wire_chain_claim *claims;
		size_t n;
		bool good = wire_decode_ops_end(frame->payload, frame->length, &count, &claims, &n,
		    error);
		free(claims);
		return good;
	}
	case WIRE_WANT_END:
	case WIRE_CHUNKS_END: {
		uint64_t count;
		return wire_decode_count(frame->payload, frame->length, &count, error);
	}
	case WIRE_CHUNK: {
		struct hash chunk, base;
		uint8_t codec;
		const uint8_t *data;
		size_t length;
		return wire_decode_chunk_coded(frame->payload, frame->length, &chunk, &codec, &base,
		    &data, &length, error);
	}
	case WIRE_DONE: {
		struct vv vv;
		uint64_t ops_new;
		bool good = wire_decode_done(frame->payload, frame->length, &ops_new, &vv, error);
		if (good)
			vv_free(&vv);
		return good;
	}
	case WIRE_LACK: {
		struct hash chunk;
		char reason[WIRE_MESSAGE_MAX + 1];
		return wire_decode_lack(frame->payload, frame->length, &chunk, reason, sizeof reason,
		    error);
	}
	default:
		return wire_fail(error, "unknown frame type %u", frame->type);
	}
}
