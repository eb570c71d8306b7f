/* Ops made by this replica (see author.h). Batching matters for speed: a
 * first record of 100 000 files is 200 000 ops, integrated a few thousand
 * at a time rather than one by one. */
#include "backend/history/author.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/history/history.h"
#include "backend/history/integrate.h"
#include "backend/io/io.h"
#include "model/array.h"

#define AUTHOR_BATCH 4096

void
author_begin(struct author *author, struct hearth *home, struct hearth_error *error)
{
	struct timespec now;

	memset(author, 0, sizeof *author);
	author->home = home;
	author->error = error;
	arena_init(&author->arena, 64 * 1024);
	author->counter = store_replica_counter(&home->store, home->replica_number);
	author->lamport = store_max_lamport(&home->store);
	clock_gettime(CLOCK_REALTIME, &now);
	author->now_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

void
author_end(struct author *author)
{
	arena_free(&author->arena);
	free(author->pending);
	author->pending = NULL;
	author->pending_count = author->pending_capacity = 0;
}

int
author_check_input(struct hearth *home, const char *message, struct hearth_error *error)
{
	char scratch[128];
	const char *problem = message ? op_message_problem(message, scratch, sizeof scratch) : NULL;

	if (problem == NULL)
		problem = op_author_problem(home->author, scratch, sizeof scratch);
	if (problem != NULL)
		return hearth_fail(error, HEARTH_USAGE, "%s; nothing was recorded", problem);
	return 0;
}

/* Every pending op is one every decoder takes: an op that broke a limit
 * would be stored here and refused by every peer and by fsck. */
static int
check_pending(struct author *author)
{
	char scratch[128];

	for (size_t i = 0; i < author->pending_count; i++) {
		const struct op *op = &author->pending[i];
		const char *problem = op_problem(op, scratch, sizeof scratch);
		if (problem != NULL)
			return hearth_fail(author->error, HEARTH_USAGE, "cannot make a %s op: %s",
			    op_kind_name(op->kind), problem);
	}
	return 0;
}

int
author_flush(struct author *author)
{
	struct integrate_result result;
	int status;

	if (author->failed != 0 || author->pending_count == 0) {
		author->pending_count = 0;
		return author->failed;
	}
	status = check_pending(author);
	if (status == 0 && io_batch_fault_due())
		status = hearth_fail_errno(author->error, "cannot integrate a batch of %zu ops",
		    author->pending_count);
	if (status == 0)
		status = integrate_ops(author->home, author->pending, author->pending_count,
		    &result, author->error);
	author->failed = status;
	author->pending_count = 0;
	/* The ops' lists lived in the arena until they were integrated. */
	arena_free(&author->arena);
	arena_init(&author->arena, 64 * 1024);
	return status;
}

/* A new op with the next counter and lamport, queued; flushes first when
 * the batch is full, so the returned op stays valid until the next call. */
static struct op *
author_new(struct author *author, enum op_kind kind, const struct op_id *supersedes,
    size_t supersedes_count)
{
	/* A failure here is kept in author->failed for the caller's next
	 * flush or commit: the op is still made, never integrated. */
	if (author->pending_count >= AUTHOR_BATCH)
		(void)author_flush(author);
	author->pending = array_grow(author->pending, &author->pending_capacity,
	    author->pending_count + 1, sizeof *author->pending);
	struct op *op = &author->pending[author->pending_count++];
	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->id.replica = author->home->replica;
	op->id.counter = ++author->counter;
	op->lamport = ++author->lamport;
	op->supersedes = supersedes_count ? arena_copy(&author->arena, supersedes,
	    supersedes_count * sizeof *supersedes) : NULL;
	op->supersedes_count = supersedes_count;
	if (kind != OP_COMMIT)
		author->ops++;
	return op;
}

struct op_id
author_place(struct author *author, struct node_id node, struct node_id parent,
    const uint8_t *name, size_t name_length, enum node_kind kind, const char *root,
    const struct op_id *supersedes, size_t supersedes_count)
{
	struct op *op = author_new(author, OP_PLACE, supersedes, supersedes_count);

	op->u.place.node = node;
	op->u.place.parent = parent;
	op->u.place.name = arena_copy(&author->arena, name, name_length);
	op->u.place.name_length = name_length;
	op->u.place.kind = kind;
	op->u.place.root = arena_strdup(&author->arena, root);
	return op->id;
}

struct op_id
author_set(struct author *author, struct node_id node, const struct hash *blob, uint64_t size,
    uint32_t mode, op_mtime mtime_ns, const struct op_id *supersedes, size_t supersedes_count)
{
	struct op *op = author_new(author, OP_SET, supersedes, supersedes_count);

	op->u.set.node = node;
	op->u.set.blob = *blob;
	op->u.set.size = size;
	op->u.set.mode = mode;
	op->u.set.mtime_ns = mtime_ns;
	return op->id;
}

struct op_id
author_delete(struct author *author, struct node_id node, const uint8_t *name,
    size_t name_length, enum node_kind kind, const char *root, const struct op_id *place_heads,
    size_t place_count, const struct op_id *content_heads, size_t content_count)
{
	struct op_id *all = array_alloc(place_count + content_count + 1, sizeof *all);

	if (place_count > 0)
		memcpy(all, place_heads, place_count * sizeof *all);
	if (content_count > 0)
		memcpy(all + place_count, content_heads, content_count * sizeof *all);
	struct op_id id = author_place(author, node, NODE_TRASH, name, name_length, kind, root, all,
	    place_count + content_count);
	free(all);
	return id;
}

/* The COMMIT; moves_tree: the working tree holds this replica's new ops
 * (a record, a resolve), so its pointer moves to the new version. */
static int
make_commit(struct author *author, const char *message, bool moves_tree, char version[65])
{
	struct hearth *home = author->home;
	struct vv head, tree;
	char tree_version[HASH_HEX];
	struct tm local;
	time_t now = (time_t)(author->now_ns / 1000000000LL);

	/* The version names every op held once this replica's are in. */
	if (author_flush(author) != 0)
		return author->failed;
	vv_init(&head);
	vv_init(&tree);
	if (store_head_vv(&home->store, &head) != 0 ||
	    history_get_tree(home, &tree, tree_version) != 0) {
		vv_free(&head);
		vv_free(&tree);
		return hearth_fail(author->error, HEARTH_FAILED, "cannot read the version vectors");
	}
	struct op *commit = author_new(author, OP_COMMIT, NULL, 0);
	vv_set(&head, home->replica, commit->id.counter);
	localtime_r(&now, &local);
	commit->u.commit.message = arena_strdup(&author->arena, message);
	commit->u.commit.author = home->author;
	commit->u.commit.time = (int64_t)now;
	commit->u.commit.utc_offset = (int32_t)local.tm_gmtoff;
	commit->u.commit.vv_entries = head.entries;
	commit->u.commit.vv_count = head.count;
	int status = author_flush(author);
	if (status == 0)
		history_head_id(home, version);
	if (status == 0 && moves_tree && !author->keeps_tree) {
		/* The tree holds what it held plus this replica's new ops: the
		 * version just made, less what came from other replicas and was
		 * not checked out (status counts those as head ahead). */
		vv_set(&tree, home->replica, author->counter);
		status = history_set_tree(home, &tree, version, author->error);
	}
	vv_free(&head);
	vv_free(&tree);
	return status;
}

int
author_commit(struct author *author, const char *message, char version[65])
{
	return make_commit(author, message, true, version);
}

int
author_merge(struct author *author, const char *message, char version[65])
{
	return make_commit(author, message, false, version);
}
