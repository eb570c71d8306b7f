/* Canonical encoding and total order of ops. The layout, field by field:
 *
 *   u8 format (1) | u8 kind | replica[16] | varint counter | varint lamport
 *   varint n, n x (replica[16] varint counter)           supersedes, sorted
 *   PLACE:  node[16] parent[16] bytes name  u8 node-kind  bytes root
 *   SET:    node[16] hash[32] varint size  varint mode  signed128 mtime_ns
 *   COMMIT: bytes message  bytes author  signed time  signed utc_offset
 *           varint n, n x (replica[16] varint counter)   the version vector
 *
 * "bytes" is a varint length then the bytes; "signed128" is the same
 * zigzag LEB128 as "signed", up to 128 bits, so every mtime before 2262
 * (all an older build wrote) has the bytes it always had. Nothing is
 * optional, so one op has exactly one encoding and a version id (its hash)
 * is stable. */
#include "model/op.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int
op_order_compare_keys(uint64_t lamport_a, struct op_id a, uint64_t lamport_b, struct op_id b)
{
	if (lamport_a != lamport_b)
		return lamport_a < lamport_b ? -1 : 1;
	return op_id_compare(a, b);
}

int
op_order_compare(const struct op *a, const struct op *b)
{
	return op_order_compare_keys(a->lamport, a->id, b->lamport, b->id);
}

struct node_id
op_node(const struct op *op)
{
	static const struct node_id none;

	switch (op->kind) {
	case OP_PLACE:
		return op->u.place.node;
	case OP_SET:
		return op->u.set.node;
	default:
		return none;
	}
}

const char *
op_name_problem(const uint8_t *name, size_t length)
{
	if (length == 0)
		return "an empty name";
	if (length > OP_NAME_MAX)
		return "a name over 255 bytes";
	if (memchr(name, '/', length) != NULL)
		return "a name holding '/'";
	if (memchr(name, '\0', length) != NULL)
		return "a name holding a NUL byte";
	if (length == 1 && name[0] == '.')
		return "the name '.'";
	if (length == 2 && name[0] == '.' && name[1] == '.')
		return "the name '..'";
	return NULL;
}

bool
op_name_valid(const uint8_t *name, size_t length)
{
	return op_name_problem(name, length) == NULL;
}

/* A text field of a limited length: the decoder reads at most max bytes
 * and refuses a NUL among them (a C string holds none). */
static const char *
text_problem(const char *text, size_t max, const char *what, char *scratch, size_t size)
{
	size_t length = strlen(text);

	if (length <= max)
		return NULL;
	snprintf(scratch, size, "%s is %zu bytes; it may hold at most %zu", what, length, max);
	return scratch;
}

const char *
op_message_problem(const char *message, char *scratch, size_t scratch_size)
{
	return text_problem(message, OP_MESSAGE_MAX, "the message", scratch, scratch_size);
}

const char *
op_author_problem(const char *author, char *scratch, size_t scratch_size)
{
	return text_problem(author, OP_AUTHOR_MAX, "the author", scratch, scratch_size);
}

static const char *
op_ids_problem(const struct op *op, char *scratch, size_t size)
{
	if (op->supersedes_count > OP_SUPERSEDES_MAX) {
		snprintf(scratch, size, "it supersedes %zu ops; an op may supersede at most %d",
		    op->supersedes_count, OP_SUPERSEDES_MAX);
		return scratch;
	}
	for (size_t i = 0; i < op->supersedes_count; i++)
		if (op->supersedes[i].counter == 0)
			return "it supersedes an op with counter 0";
	return NULL;
}

static const char *
place_problem(const struct op_place *place, char *scratch, size_t size)
{
	const char *problem = op_name_problem(place->name, place->name_length);

	if (problem != NULL)
		return problem;
	if (place->kind < NODE_FILE || place->kind > NODE_SYMLINK)
		return "an unknown node kind";
	if (node_id_equal(place->node, NODE_ROOT) || node_id_equal(place->node, NODE_TRASH))
		return "a place of the top folder or the trash";
	return text_problem(place->root, OP_ROOT_NAME_MAX, "the root name", scratch, size);
}

static const char *
commit_problem(const struct op_commit *commit, char *scratch, size_t size)
{
	const char *problem;

	if ((problem = op_message_problem(commit->message, scratch, size)) != NULL ||
	    (problem = op_author_problem(commit->author, scratch, size)) != NULL)
		return problem;
	if (commit->utc_offset < -86400 || commit->utc_offset > 86400)
		return "a UTC offset of more than a day";
	if (commit->vv_count > OP_VV_MAX) {
		snprintf(scratch, size, "its version vector names %zu replicas; at most %d",
		    commit->vv_count, OP_VV_MAX);
		return scratch;
	}
	for (size_t i = 1; i < commit->vv_count; i++)
		if (replica_id_compare(commit->vv_entries[i - 1].replica,
			commit->vv_entries[i].replica) >= 0)
			return "an unsorted version vector";
	return NULL;
}

const char *
op_problem(const struct op *op, char *scratch, size_t scratch_size)
{
	const char *problem;

	if (op->kind < OP_PLACE || op->kind > OP_COMMIT)
		return "an unknown op kind";
	if (op->id.counter == 0 || op->lamport == 0)
		return "a counter or lamport of 0";
	if ((problem = op_ids_problem(op, scratch, scratch_size)) != NULL)
		return problem;
	switch (op->kind) {
	case OP_PLACE:
		return place_problem(&op->u.place, scratch, scratch_size);
	case OP_SET:
		if (!op_mtime_fits(op->u.set.mtime_ns))
			return "an mtime whose seconds do not fit 64 bits";
		return op->u.set.mode > 07777 ? "a mode above 07777" : NULL;
	default:
		return commit_problem(&op->u.commit, scratch, scratch_size);
	}
}

bool
op_mtime_fits(op_mtime mtime_ns)
{
	op_mtime seconds = mtime_ns / 1000000000;
	return seconds >= INT64_MIN && seconds <= INT64_MAX;
}

const char *
op_kind_name(enum op_kind kind)
{
	switch (kind) {
	case OP_PLACE:
		return "place";
	case OP_SET:
		return "set";
	case OP_COMMIT:
		return "commit";
	}
	return "unknown";
}

const char *
node_kind_name(enum node_kind kind)
{
	switch (kind) {
	case NODE_FILE:
		return "file";
	case NODE_DIR:
		return "dir";
	case NODE_SYMLINK:
		return "symlink";
	}
	return "unknown";
}

static void
encode_op_ids(struct buffer *out, const struct op_id *ids, size_t count)
{
	buffer_append_varint(out, count);
	for (size_t i = 0; i < count; i++) {
		buffer_append(out, ids[i].replica.bytes, ID_BYTES);
		buffer_append_varint(out, ids[i].counter);
	}
}

void
op_encode(const struct op *op, struct buffer *out)
{
	buffer_append_byte(out, OP_ENCODING_VERSION);
	buffer_append_byte(out, (uint8_t)op->kind);
	buffer_append(out, op->id.replica.bytes, ID_BYTES);
	buffer_append_varint(out, op->id.counter);
	buffer_append_varint(out, op->lamport);
	encode_op_ids(out, op->supersedes, op->supersedes_count);

	switch (op->kind) {
	case OP_PLACE: {
		const struct op_place *place = &op->u.place;
		buffer_append(out, place->node.bytes, ID_BYTES);
		buffer_append(out, place->parent.bytes, ID_BYTES);
		buffer_append_bytes(out, place->name, place->name_length);
		buffer_append_byte(out, (uint8_t)place->kind);
		buffer_append_bytes(out, place->root, strlen(place->root));
		break;
	}
	case OP_SET: {
		const struct op_set *set = &op->u.set;
		buffer_append(out, set->node.bytes, ID_BYTES);
		buffer_append(out, set->blob.bytes, HASH_BYTES);
		buffer_append_varint(out, set->size);
		buffer_append_varint(out, set->mode);
		buffer_append_signed128(out, set->mtime_ns);
		break;
	}
	case OP_COMMIT: {
		const struct op_commit *commit = &op->u.commit;
		buffer_append_bytes(out, commit->message, strlen(commit->message));
		buffer_append_bytes(out, commit->author, strlen(commit->author));
		buffer_append_signed(out, commit->time);
		buffer_append_signed(out, commit->utc_offset);
		buffer_append_varint(out, commit->vv_count);
		for (size_t i = 0; i < commit->vv_count; i++) {
			buffer_append(out, commit->vv_entries[i].replica.bytes, ID_BYTES);
			buffer_append_varint(out, commit->vv_entries[i].counter);
		}
		break;
	}
	}
}

struct decoder {
	struct reader reader;
	struct arena *arena;
	char *error;
	size_t error_size;
};

static bool
decode_fail(struct decoder *decoder, const char *what)
{
	snprintf(decoder->error, decoder->error_size, "%s at byte %zu", what,
	    decoder->reader.offset);
	return false;
}

static bool
decode_text(struct decoder *decoder, const char **out, size_t max, const char *what)
{
	const uint8_t *bytes;
	size_t length;

	if (!reader_bytes(&decoder->reader, &bytes, &length, max))
		return decode_fail(decoder, what);
	if (memchr(bytes, '\0', length) != NULL)
		return decode_fail(decoder, what);
	*out = arena_strndup(decoder->arena, (const char *)bytes, length);
	return true;
}

static bool
decode_op_ids(struct decoder *decoder, const struct op_id **out, size_t *count_out)
{
	uint64_t count;

	if (!reader_varint(&decoder->reader, &count) || count > OP_SUPERSEDES_MAX)
		return decode_fail(decoder, "bad supersedes count");
	struct op_id *ids = arena_alloc(decoder->arena, (count ? count : 1) * sizeof *ids);
	for (uint64_t i = 0; i < count; i++) {
		if (!reader_fixed(&decoder->reader, ids[i].replica.bytes, ID_BYTES) ||
		    !reader_varint(&decoder->reader, &ids[i].counter) || ids[i].counter == 0)
			return decode_fail(decoder, "bad supersedes entry");
	}
	*out = ids;
	*count_out = (size_t)count;
	return true;
}

static bool
decode_place(struct decoder *decoder, struct op_place *place)
{
	const uint8_t *name;
	size_t name_length;
	uint8_t kind;

	if (!reader_fixed(&decoder->reader, place->node.bytes, ID_BYTES) ||
	    !reader_fixed(&decoder->reader, place->parent.bytes, ID_BYTES))
		return decode_fail(decoder, "truncated place");
	/* Any length the bytes hold is read, so that a long name is refused
	 * as too long rather than as truncated. */
	if (!reader_bytes(&decoder->reader, &name, &name_length, SIZE_MAX))
		return decode_fail(decoder, "truncated name");
	const char *problem = op_name_problem(name, name_length);
	if (problem != NULL)
		return decode_fail(decoder, problem);
	place->name = arena_copy(decoder->arena, name, name_length);
	place->name_length = name_length;
	if (!reader_byte(&decoder->reader, &kind) || kind < NODE_FILE || kind > NODE_SYMLINK)
		return decode_fail(decoder, "bad node kind");
	place->kind = (enum node_kind)kind;
	if (node_id_equal(place->node, NODE_ROOT) || node_id_equal(place->node, NODE_TRASH))
		return decode_fail(decoder, "place of the top folder or the trash");
	return decode_text(decoder, &place->root, OP_ROOT_NAME_MAX, "bad root name");
}

static bool
decode_set(struct decoder *decoder, struct op_set *set)
{
	uint64_t mode;

	if (!reader_fixed(&decoder->reader, set->node.bytes, ID_BYTES) ||
	    !reader_fixed(&decoder->reader, set->blob.bytes, HASH_BYTES) ||
	    !reader_varint(&decoder->reader, &set->size) ||
	    !reader_varint(&decoder->reader, &mode) ||
	    !reader_signed128(&decoder->reader, &set->mtime_ns))
		return decode_fail(decoder, "truncated set");
	if (!op_mtime_fits(set->mtime_ns))
		return decode_fail(decoder, "bad mtime");
	if (mode > 07777)
		return decode_fail(decoder, "bad mode");
	set->mode = (uint32_t)mode;
	return true;
}

static bool
decode_commit(struct decoder *decoder, struct op_commit *commit)
{
	uint64_t count;
	int64_t offset;

	if (!decode_text(decoder, &commit->message, OP_MESSAGE_MAX, "bad message") ||
	    !decode_text(decoder, &commit->author, OP_AUTHOR_MAX, "bad author"))
		return false;
	if (!reader_signed(&decoder->reader, &commit->time) ||
	    !reader_signed(&decoder->reader, &offset) || offset < -86400 || offset > 86400)
		return decode_fail(decoder, "bad time");
	commit->utc_offset = (int32_t)offset;
	if (!reader_varint(&decoder->reader, &count) || count > OP_VV_MAX)
		return decode_fail(decoder, "bad version vector size");
	struct vv_entry *entries = arena_alloc(decoder->arena, (count ? count : 1) * sizeof *entries);
	for (uint64_t i = 0; i < count; i++) {
		if (!reader_fixed(&decoder->reader, entries[i].replica.bytes, ID_BYTES) ||
		    !reader_varint(&decoder->reader, &entries[i].counter))
			return decode_fail(decoder, "truncated version vector");
		if (i > 0 && replica_id_compare(entries[i - 1].replica, entries[i].replica) >= 0)
			return decode_fail(decoder, "unsorted version vector");
	}
	commit->vv_entries = entries;
	commit->vv_count = (size_t)count;
	return true;
}

bool
op_decode(const uint8_t *data, size_t length, struct op *out, struct arena *arena,
    char *error, size_t error_size)
{
	struct decoder decoder = { .arena = arena, .error = error, .error_size = error_size };
	uint8_t version, kind;
	bool ok;

	reader_init(&decoder.reader, data, length);
	memset(out, 0, sizeof *out);
	if (!reader_byte(&decoder.reader, &version) || version != OP_ENCODING_VERSION)
		return decode_fail(&decoder, "unknown op format");
	if (!reader_byte(&decoder.reader, &kind) || kind < OP_PLACE || kind > OP_COMMIT)
		return decode_fail(&decoder, "unknown op kind");
	out->kind = (enum op_kind)kind;
	if (!reader_fixed(&decoder.reader, out->id.replica.bytes, ID_BYTES) ||
	    !reader_varint(&decoder.reader, &out->id.counter) || out->id.counter == 0 ||
	    !reader_varint(&decoder.reader, &out->lamport) || out->lamport == 0)
		return decode_fail(&decoder, "bad op id");
	if (!decode_op_ids(&decoder, &out->supersedes, &out->supersedes_count))
		return false;

	switch (out->kind) {
	case OP_PLACE:
		ok = decode_place(&decoder, &out->u.place);
		break;
	case OP_SET:
		ok = decode_set(&decoder, &out->u.set);
		break;
	default:
		ok = decode_commit(&decoder, &out->u.commit);
		break;
	}
	if (ok && !reader_at_end(&decoder.reader))
		return decode_fail(&decoder, "trailing bytes");
	return ok;
}
