/* The three operations of docs/DESIGN.md §3 (PLACE, SET, COMMIT), their total order
 * and their canonical binary encoding. The encoding is what the store keeps,
 * what sync sends and what a version id hashes, so it never changes
 * meaning: new fields get a new format byte. */
#ifndef HEARTH_MODEL_OP_H
#define HEARTH_MODEL_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/arena.h"
#include "model/buffer.h"
#include "model/id.h"

enum op_kind {
	OP_PLACE = 1,
	OP_SET = 2,
	OP_COMMIT = 3,
};

/* Fixed when a node is created. */
enum node_kind {
	NODE_FILE = 1,
	NODE_DIR = 2,
	NODE_SYMLINK = 3,
};

/* Limits every decoder enforces, so a hostile peer cannot make us allocate
 * without bound. Names are bytes (any but '/' and NUL), at most NAME_MAX. */
#define OP_NAME_MAX 255
#define OP_ROOT_NAME_MAX 64
#define OP_MESSAGE_MAX (64 * 1024)
#define OP_AUTHOR_MAX 256
#define OP_SUPERSEDES_MAX 4096
#define OP_VV_MAX 65536
#define OP_ENCODING_VERSION 1

struct op_place {
	struct node_id node;
	struct node_id parent;	/* NODE_TRASH deletes */
	const uint8_t *name;
	size_t name_length;
	enum node_kind kind;
	const char *root;	/* which configured root holds it */
};

/* A modification time in nanoseconds since the epoch. 64 bits of them end
 * in 2262 and begin in 1677; filesystems hold times well past both (ext4
 * to 2446), so the time is 128 bits wide. Its seconds fit a time_t (the
 * decoder refuses more). */
typedef __int128 op_mtime;

struct op_set {
	struct node_id node;
	struct hash blob;	/* content, or a symlink's target bytes */
	uint64_t size;
	uint32_t mode;		/* permission bits (0777); private keys stay private */
	op_mtime mtime_ns;
};

struct op_commit {
	const char *message;
	const char *author;
	int64_t time;		/* unix seconds */
	int32_t utc_offset;	/* seconds east of UTC where it was recorded */
	/* The author's version vector when it recorded, sorted by replica;
	 * a view into memory its builder owns (the arena, when decoded). */
	const struct vv_entry *vv_entries;
	size_t vv_count;
};

struct op {
	struct op_id id;
	uint64_t lamport;
	enum op_kind kind;
	const struct op_id *supersedes;
	size_t supersedes_count;
	union {
		struct op_place place;
		struct op_set set;
		struct op_commit commit;
	} u;
};

/* Total order of docs/DESIGN.md §2: (lamport, replica bytes, counter). */
int op_order_compare(const struct op *a, const struct op *b);
/* The same order on bare keys, for code that holds no whole op. */
int op_order_compare_keys(uint64_t lamport_a, struct op_id a, uint64_t lamport_b, struct op_id b);

/* The node a PLACE or SET is about; zero for COMMIT. */
struct node_id op_node(const struct op *op);

/* Appends the canonical encoding. */
void op_encode(const struct op *op, struct buffer *out);

/* Decodes one op; strings, names and arrays live in arena (names and roots
 * are copied, so data may be freed afterwards). On failure returns false and
 * writes a reason of at most 128 bytes to error. Refuses trailing bytes,
 * unknown kinds, names with '/' or NUL, "." and "..", empty names, and every
 * length above the limits above. */
bool op_decode(const uint8_t *data, size_t length, struct op *out,
    struct arena *arena, char *error, size_t error_size);

/* A name that may appear in a folder: 1..OP_NAME_MAX bytes, no '/' or NUL,
 * not "." or "..". */
bool op_name_valid(const uint8_t *name, size_t length);
/* What is wrong with a name ("an empty name", "the name '..'", ...), or
 * NULL when op_name_valid. */
const char *op_name_problem(const uint8_t *name, size_t length);

/* What the decoder would refuse in op (every limit above, each field's
 * range, names, a sorted version vector), as a sentence of at most 128
 * bytes written to scratch; NULL when the op encodes to something every
 * replica decodes. Whoever makes an op asks this before it is written,
 * so no op a decoder refuses is ever stored or sent. */
const char *op_problem(const struct op *op, char *scratch, size_t scratch_size);
/* Whether an mtime's seconds fit a 64-bit time_t (what a filesystem can be
 * asked to set). */
bool op_mtime_fits(op_mtime mtime_ns);
/* The same for a version's message and author alone, for commands that
 * check their input before they begin. */
const char *op_message_problem(const char *message, char *scratch, size_t scratch_size);
const char *op_author_problem(const char *author, char *scratch, size_t scratch_size);

const char *op_kind_name(enum op_kind kind);
const char *node_kind_name(enum node_kind kind);

#endif
