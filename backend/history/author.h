/* Making ops as this replica: counters without gaps, lamports one above
 * everything known, PLACE/SET/delete builders, and integration in batches
 * (each one merged pass), ending with the COMMIT that names the version.
 * Record, conflict resolution and clone all author through here. */
#ifndef HEARTH_BACKEND_AUTHOR_H
#define HEARTH_BACKEND_AUTHOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/arena.h"
#include "model/op.h"

struct author {
	struct hearth *home;
	struct hearth_error *error;
	struct arena arena;		/* the pending ops' lists and names */
	struct op *pending;		/* made, not yet integrated */
	size_t pending_count, pending_capacity;
	uint64_t counter;		/* last counter this replica used */
	uint64_t lamport;		/* largest lamport known */
	uint64_t ops;			/* PLACE and SET ops made */
	int64_t now_ns;
	/* The first failed integration, kept: a batch that filled mid-way
	 * failed, so nothing after it may commit (author_flush and
	 * author_commit return it; the caller rolls back). */
	int failed;
	/* Set after author_begin when the ops are made in the store alone
	 * (a line merge at sync): the working tree does not hold them, so
	 * author_commit leaves its version vector as it was. */
	bool keeps_tree;
};

/* Call inside the write transaction. */
void author_begin(struct author *author, struct hearth *home, struct hearth_error *error);
void author_end(struct author *author);

/* The ops' fields are copied (names, roots and supersedes lists into the
 * author's arena), so callers may pass temporaries. Each returns the new
 * op's id. */
struct op_id author_place(struct author *author, struct node_id node, struct node_id parent,
    const uint8_t *name, size_t name_length, enum node_kind kind, const char *root,
    const struct op_id *supersedes, size_t supersedes_count);
struct op_id author_set(struct author *author, struct node_id node, const struct hash *blob,
    uint64_t size, uint32_t mode, op_mtime mtime_ns, const struct op_id *supersedes,
    size_t supersedes_count);
/* A TRASH PLACE superseding the placement and content heads given. */
struct op_id author_delete(struct author *author, struct node_id node, const uint8_t *name,
    size_t name_length, enum node_kind kind, const char *root, const struct op_id *place_heads,
    size_t place_count, const struct op_id *content_heads, size_t content_count);

/* Refuses (HEARTH_USAGE) a message (NULL for none) or an author no op
 * may hold, before a command begins: nothing is scanned or written. */
int author_check_input(struct hearth *home, const char *message, struct hearth_error *error);

/* Integrates what is pending (done by itself every few thousand ops).
 * Returns the first failure of any batch so far, not only of this one. */
int author_flush(struct author *author);
/* Flushes, then makes the COMMIT naming every op held; writes its id. The
 * working tree's version vector gains this replica's new ops (it holds
 * them), and names this version if the tree now holds all of head. */
int author_commit(struct author *author, const char *message, char version[65]);
/* A merge version: a COMMIT naming every op held, made with no ops of its
 * own (sync, when what it took in leaves no version naming the head
 * state). The working tree's pointer stays where it was. */
int author_merge(struct author *author, const char *message, char version[65]);

#endif
