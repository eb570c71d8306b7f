/* record (DESIGN §7): turns what the scan found into ops (PLACE for new,
 * moved and deleted nodes, SET for new content), a COMMIT with the message,
 * the new head state and index rows, all in one transaction that commits
 * only after the pack holding the new content is durable. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/blob.h"
#include "backend/hash.h"
#include "backend/head.h"
#include "backend/history.h"
#include "backend/scan.h"

#define READ_RETRIES 3

/* Everything one record builds up as it goes. */
struct recorder {
	struct hearth *home;
	const struct hearth_progress *progress;
	struct hearth_error *error;
	struct blob_writer blobs;
	struct arena arena;		/* ops and lists of the node in hand */
	struct buffer encoded, seen;
	uint64_t counter;		/* last counter used by this replica */
	uint64_t lamport;		/* largest lamport known */
	uint64_t ops;
	uint64_t files_stored, bytes_stored;
	int64_t now_ns;
};

static int64_t
wall_clock_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static bool
cancelled(const struct recorder *recorder)
{
	return recorder->progress != NULL && recorder->progress->cancel != NULL &&
	    atomic_load(recorder->progress->cancel) != 0;
}

static void
report(struct recorder *recorder, const char *phase, uint64_t done, uint64_t total,
    const char *path)
{
	if (recorder->progress == NULL || recorder->progress->report == NULL)
		return;
	struct hearth_progress_report report = {
		.phase = phase, .done = done, .total = total, .bytes_done = recorder->bytes_stored,
		.path = path,
	};
	recorder->progress->report(recorder->progress->context, &report);
}

/* ---- content ---------------------------------------------------------------- */

static bool
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ino == b->st_ino;
}

static void
stamp_from(struct scan_stamp *stamp, const struct stat *status)
{
	stamp->size = (uint64_t)status->st_size;
	stamp->mode = status->st_mode & 07777;
	stamp->mtime_ns = (int64_t)status->st_mtim.tv_sec * 1000000000LL + status->st_mtim.tv_nsec;
	stamp->ctime_ns = (int64_t)status->st_ctim.tv_sec * 1000000000LL + status->st_ctim.tv_nsec;
	stamp->device = (uint64_t)status->st_dev;
	stamp->inode = (uint64_t)status->st_ino;
}

/* Stores a file's bytes. A file that changes while it is read is read
 * again; if it never holds still, what was read is stored (its hash matches
 * its bytes) and the stamp is left untrusted so the next status looks again. */
static int
store_file(struct recorder *recorder, struct scan_change *change, bool *stamp_trusted)
{
	const struct home_root *root = &recorder->home->roots[change->root];
	struct content_result result;

	*stamp_trusted = false;
	for (int attempt = 0; attempt < READ_RETRIES; attempt++) {
		struct stat before, after;
		int fd = scan_open_file(root->fd, change->path);
		if (fd < 0)
			return hearth_fail_errno(recorder->error, "cannot read %s/%s", root->path,
			    change->path);
		if (fstat(fd, &before) != 0 || !S_ISREG(before.st_mode)) {
			close(fd);
			return hearth_fail(recorder->error, HEARTH_FAILED,
			    "%s/%s changed into something else while being recorded; record again",
			    root->path, change->path);
		}
		int status = blob_store_fd(&recorder->blobs, fd, &result, recorder->error);
		bool still = status == 0 && fstat(fd, &after) == 0 && same_stat(&before, &after);
		close(fd);
		if (status != 0)
			return status;
		change->blob = result.blob;
		stamp_from(&change->stamp, &before);
		change->stamp.size = result.size;
		content_result_free(&result);
		if (still) {
			*stamp_trusted = true;
			break;
		}
	}
	recorder->files_stored++;
	return 0;
}

static int
store_link(struct recorder *recorder, struct scan_change *change)
{
	const struct home_root *root = &recorder->home->roots[change->root];
	struct content_result result;
	char *target;
	size_t length;

	if (scan_read_link(root->fd, change->path, &recorder->arena, &target, &length) != 0)
		return hearth_fail_errno(recorder->error, "cannot read link %s/%s", root->path,
		    change->path);
	if (blob_store_bytes(&recorder->blobs, target, length, &result, recorder->error) != 0)
		return recorder->error->code;
	change->blob = result.blob;
	change->stamp.size = length;
	content_result_free(&result);
	return 0;
}

/* Reads what the stamps could not settle; true in *trusted when the stamp
 * taken can be kept as evidence. */
static int
settle_content(struct recorder *recorder, struct scan_change *change, bool *trusted)
{
	*trusted = true;
	if (!change->needs_content)
		return 0;
	int status = change->node_kind == NODE_SYMLINK ? store_link(recorder, change)
						       : store_file(recorder, change, trusted);
	if (status != 0)
		return status;
	change->needs_content = false;
	change->content_changed = !change->has_entry || !hash_equal(&change->blob, &change->old_blob);
	if (change->kind == SCAN_MODIFIED && !change->content_changed && !change->mode_changed)
		change->kind = change->restore ? SCAN_RESTORE : SCAN_STAMP;
	return 0;
}

/* ---- ops -------------------------------------------------------------------- */

static struct op *
new_op(struct recorder *recorder, enum op_kind kind, const struct op_id *supersedes,
    size_t supersedes_count)
{
	struct op *op = arena_alloc(&recorder->arena, sizeof *op);

	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->id.replica = recorder->home->replica;
	op->id.counter = ++recorder->counter;
	op->lamport = ++recorder->lamport;
	op->supersedes = supersedes;
	op->supersedes_count = supersedes_count;
	return op;
}

static int
save_op(struct recorder *recorder, const struct op *op)
{
	buffer_reset(&recorder->encoded);
	op_encode(op, &recorder->encoded);
	if (store_put_op(&recorder->home->store, op, &recorder->encoded,
		recorder->home->replica_number) != 0)
		return hearth_fail(recorder->error, HEARTH_FAILED, "cannot store an op: %s",
		    sqlite3_errmsg(recorder->home->store.db));
	if (op->kind != OP_COMMIT)
		recorder->ops++;
	return 0;
}

static struct op *
place_op(struct recorder *recorder, const struct scan_change *change, struct node_id parent,
    const struct op_id *supersedes, size_t count)
{
	struct op *op = new_op(recorder, OP_PLACE, supersedes, count);
	const struct home_root *root = &recorder->home->roots[change->root];

	op->u.place.node = change->node;
	op->u.place.parent = parent;
	op->u.place.name = change->name;
	op->u.place.name_length = change->name_length;
	op->u.place.kind = change->node_kind;
	op->u.place.root = root->name;
	return op;
}

static struct op *
set_op(struct recorder *recorder, const struct scan_change *change, const struct op_id *supersedes,
    size_t count)
{
	struct op *op = new_op(recorder, OP_SET, supersedes, count);

	op->u.set.node = change->node;
	op->u.set.blob = change->blob;
	op->u.set.size = change->stamp.size;
	op->u.set.mode = change->node_kind == NODE_FILE ? change->stamp.mode & 0777 : 0;
	op->u.set.mtime_ns = change->stamp.mtime_ns;
	return op;
}

/* A delete supersedes the placement and the content its author saw; what
 * it did not see (an edit elsewhere) revives the node (DESIGN §4.3). */
static struct op *
delete_op(struct recorder *recorder, const struct scan_change *change,
    const struct op_id *place, size_t place_count, const struct op_id *content,
    size_t content_count)
{
	struct op_id *all = arena_alloc(&recorder->arena,
	    (place_count + content_count + 1) * sizeof *all);

	if (place_count > 0)
		memcpy(all, place, place_count * sizeof *all);
	if (content_count > 0)
		memcpy(all + place_count, content, content_count * sizeof *all);
	return place_op(recorder, change, NODE_TRASH, all, place_count + content_count);
}

/* The name a node had in the index (deleted nodes keep their last name, so
 * the trash shows what they were). */
static void
name_from_path(struct scan_change *change)
{
	const char *slash = strrchr(change->path, '/');
	const char *name = slash ? slash + 1 : change->path;

	change->name = (const uint8_t *)name;
	change->name_length = strlen(name);
}

/* Adds the ops for one change to ops[] (at most two). */
static int
build_ops(struct recorder *recorder, struct scan_change *change, struct op **ops, size_t *count)
{
	struct op_id *seen_place = NULL, *seen_content = NULL;
	size_t place_count = 0, content_count = 0;

	*count = 0;
	if (change->seen != NULL &&
	    head_decode_seen(recorder->home, change->seen, change->seen_length, &seen_place,
		&place_count, &seen_content, &content_count, &recorder->arena) != 0)
		return hearth_fail(recorder->error, HEARTH_DAMAGED,
		    "the index row of %s is damaged (run hearth fsck)", change->path);

	switch (change->kind) {
	case SCAN_ADDED:
		ops[(*count)++] = place_op(recorder, change, change->parent, NULL, 0);
		if (change->node_kind != NODE_DIR)
			ops[(*count)++] = set_op(recorder, change, NULL, 0);
		return 0;
	case SCAN_DELETED:
		name_from_path(change);
		ops[(*count)++] = delete_op(recorder, change, seen_place, place_count, seen_content,
		    content_count);
		return 0;
	case SCAN_MOVED:
		ops[(*count)++] = place_op(recorder, change, change->parent, seen_place, place_count);
		if (change->content_changed || change->mode_changed)
			ops[(*count)++] = set_op(recorder, change, seen_content, content_count);
		return 0;
	case SCAN_MODIFIED:
		if (change->content_changed || change->mode_changed)
			ops[(*count)++] = set_op(recorder, change, seen_content, content_count);
		return 0;
	case SCAN_RESTORE:
		/* The tree holds an older version: make head match it again. */
		if (change->restore == 2) {
			name_from_path(change);
			ops[(*count)++] = delete_op(recorder, change, seen_place, place_count, seen_content,
			    content_count);
			return 0;
		}
		ops[(*count)++] = place_op(recorder, change, change->parent, seen_place, place_count);
		if (change->node_kind != NODE_DIR)
			ops[(*count)++] = set_op(recorder, change, seen_content, content_count);
		return 0;
	case SCAN_STAMP:
		return 0;
	}
	return 0;
}

/* ---- the index --------------------------------------------------------------- */

static const char SQL_ENTRY_PUT[] =
    "INSERT OR REPLACE INTO entry(node, parent, name, kind, root, blob, size, mode, mtime, "
    "device, inode, ctime, stamped, seen, restore) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "?10, ?11, ?12, ?13, ?14, 0)";
static const char SQL_ENTRY_DELETE[] = "DELETE FROM entry WHERE node = ?1";

/* What the tree has now seen of this node: the ops just made for it, and
 * for a register they left alone, what it had seen before. */
static void
new_seen(struct recorder *recorder, const struct scan_change *change, struct op **ops,
    size_t count)
{
	struct op_id *place = NULL, *content = NULL;
	size_t place_count = 0, content_count = 0;

	if (change->seen != NULL)
		head_decode_seen(recorder->home, change->seen, change->seen_length, &place,
		    &place_count, &content, &content_count, &recorder->arena);
	for (size_t i = 0; i < count; i++) {
		if (ops[i]->kind == OP_PLACE) {
			place = &ops[i]->id;
			place_count = 1;
		} else {
			content = &ops[i]->id;
			content_count = 1;
		}
	}
	head_encode_seen(recorder->home, place, place_count, content, content_count,
	    &recorder->seen);
}

static int
update_entry(struct recorder *recorder, const struct scan_change *change, bool stamp_trusted)
{
	sqlite3_stmt *statement;
	const struct home_root *root = &recorder->home->roots[change->root];

	if (change->kind == SCAN_DELETED || (change->kind == SCAN_RESTORE && change->restore == 2)) {
		statement = store_statement(&recorder->home->store, SQL_ENTRY_DELETE);
		sqlite3_bind_blob(statement, 1, change->node.bytes, ID_BYTES, SQLITE_STATIC);
	} else {
		bool has_blob = change->node_kind != NODE_DIR;
		const struct hash *blob = change->needs_content ? &change->old_blob : &change->blob;
		statement = store_statement(&recorder->home->store, SQL_ENTRY_PUT);
		sqlite3_bind_blob(statement, 1, change->node.bytes, ID_BYTES, SQLITE_STATIC);
		sqlite3_bind_blob(statement, 2, change->parent.bytes, ID_BYTES, SQLITE_STATIC);
		sqlite3_bind_blob(statement, 3, change->name, (int)change->name_length, SQLITE_STATIC);
		sqlite3_bind_int(statement, 4, (int)change->node_kind);
		sqlite3_bind_text(statement, 5, root->name, -1, SQLITE_STATIC);
		if (has_blob)
			sqlite3_bind_blob(statement, 6, blob->bytes, HASH_BYTES, SQLITE_STATIC);
		else
			sqlite3_bind_null(statement, 6);
		sqlite3_bind_int64(statement, 7, (int64_t)change->stamp.size);
		sqlite3_bind_int(statement, 8, (int)change->stamp.mode);
		sqlite3_bind_int64(statement, 9, change->stamp.mtime_ns);
		sqlite3_bind_int64(statement, 10, (int64_t)change->stamp.device);
		sqlite3_bind_int64(statement, 11, (int64_t)change->stamp.inode);
		sqlite3_bind_int64(statement, 12, change->stamp.ctime_ns);
		sqlite3_bind_int64(statement, 13, stamp_trusted ? recorder->now_ns : 0);
		sqlite3_bind_blob(statement, 14, recorder->seen.data, (int)recorder->seen.length,
		    SQLITE_STATIC);
	}
	if (sqlite3_step(statement) != SQLITE_DONE)
		return hearth_fail(recorder->error, HEARTH_FAILED, "cannot update the index for %s: %s",
		    change->path, sqlite3_errmsg(recorder->home->store.db));
	return 0;
}

/* ---- one change, start to end --------------------------------------------------- */

static int
record_change(struct recorder *recorder, struct scan_change *change)
{
	struct op *ops[2];
	size_t count;
	bool trusted;

	if (settle_content(recorder, change, &trusted) != 0 ||
	    build_ops(recorder, change, ops, &count) != 0)
		return recorder->error->code;
	for (size_t i = 0; i < count; i++)
		if (save_op(recorder, ops[i]) != 0)
			return recorder->error->code;
	if (count > 0) {
		struct op batch[2];
		for (size_t i = 0; i < count; i++)
			batch[i] = *ops[i];
		if (head_apply_local(recorder->home, batch, count, recorder->error) != 0)
			return recorder->error->code;
	}
	if (change->seen != NULL || count > 0)
		new_seen(recorder, change, ops, count);
	else
		buffer_reset(&recorder->seen);
	return update_entry(recorder, change, trusted);
}

static int
compare_for_recording(const void *a, const void *b)
{
	const struct scan_change *x = a, *y = b;
	/* Deletes first: a file replaced by a folder frees its name before
	 * the folder takes it. Then by path, so parents precede children. */
	bool x_delete = x->kind == SCAN_DELETED, y_delete = y->kind == SCAN_DELETED;
	if (x_delete != y_delete)
		return x_delete ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int
record_changes(struct recorder *recorder, struct scan_result *scan)
{
	uint64_t total = 0, done = 0;

	if (scan->count > 1)
		qsort(scan->changes, scan->count, sizeof *scan->changes, compare_for_recording);
	for (size_t i = 0; i < scan->count; i++)
		total += scan->changes[i].needs_content;
	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *change = &scan->changes[i];
		if (change->needs_content && (++done % 64 == 0 || done == total))
			report(recorder, "storing", done, total, change->path);
		if (cancelled(recorder))
			return hearth_fail(recorder->error, HEARTH_CANCELLED,
			    "record cancelled; nothing was recorded");
		if (record_change(recorder, change) != 0)
			return recorder->error->code;
		/* Ops of finished changes are in SQLite now. */
		if (recorder->arena.allocated > (4u << 20)) {
			arena_free(&recorder->arena);
			arena_init(&recorder->arena, 64 * 1024);
		}
	}
	return 0;
}

static int
record_commit(struct recorder *recorder, const char *message, struct hearth_record_result *out)
{
	struct hearth *home = recorder->home;
	struct vv vv;
	struct op *commit = new_op(recorder, OP_COMMIT, NULL, 0);
	struct tm local;
	time_t now = (time_t)(recorder->now_ns / 1000000000LL);

	vv_init(&vv);
	if (store_head_vv(&home->store, &vv) != 0) {
		vv_free(&vv);
		return hearth_fail(recorder->error, HEARTH_FAILED, "cannot read the version vector");
	}
	vv_set(&vv, home->replica, commit->id.counter);
	localtime_r(&now, &local);
	commit->u.commit.message = message;
	commit->u.commit.author = home->author;
	commit->u.commit.time = (int64_t)now;
	commit->u.commit.utc_offset = (int32_t)local.tm_gmtoff;
	commit->u.commit.vv_entries = vv.entries;
	commit->u.commit.vv_count = vv.count;
	int status = save_op(recorder, commit);
	if (status == 0)
		status = history_add_version(home, commit, &recorder->encoded, recorder->ops,
		    out->version, recorder->error);
	if (status == 0)
		status = history_set_tree(home, &vv, out->version, recorder->error);
	vv_free(&vv);
	return status;
}

static int
normalise_paths(const struct hearth_record_options *options, char ***out, size_t *count,
    struct hearth_error *error)
{
	*out = NULL;
	*count = 0;
	if (options->path_count == 0)
		return 0;
	*out = calloc(options->path_count, sizeof **out);
	for (size_t i = 0; i < options->path_count; i++) {
		const char *path = options->paths[i];
		size_t length = strlen(path);
		while (length > 0 && path[length - 1] == '/')
			length--;
		if (path[0] == '/' || strstr(path, "/../") != NULL || strncmp(path, "../", 3) == 0 ||
		    strcmp(path, "..") == 0) {
			for (size_t j = 0; j < i; j++)
				free((*out)[j]);
			free(*out);
			*out = NULL;
			return hearth_fail(error, HEARTH_USAGE, "path %s is outside the Home", path);
		}
		(*out)[i] = strndup(path, length);
		(*count)++;
	}
	return 0;
}

int
hearth_record(hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct hearth_error *error)
{
	struct recorder recorder = { .home = home, .progress = progress, .error = error };
	struct scan_result scan;
	char **paths;
	size_t path_count;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if ((status = normalise_paths(options, &paths, &path_count, error)) != 0)
		return status;
	if ((status = home_lock(home, "record", error)) != 0)
		goto done_paths;
	status = scan_tree(home, (const char *const *)paths, path_count, progress, &scan, error);
	if (status != 0)
		goto done_lock;

	arena_init(&recorder.arena, 64 * 1024);
	buffer_init(&recorder.encoded);
	buffer_init(&recorder.seen);
	blob_writer_begin(home, &recorder.blobs);
	recorder.now_ns = wall_clock_ns();
	char message[1024];
	if (store_begin(&home->store, message, sizeof message) != 0) {
		status = hearth_fail(error, HEARTH_FAILED, "%s", message);
		goto done_scan;
	}
	recorder.counter = store_replica_counter(&home->store, home->replica_number);
	recorder.lamport = store_max_lamport(&home->store);
	status = record_changes(&recorder, &scan);
	if (status == 0 && recorder.ops > 0)
		status = record_commit(&recorder, options->message ? options->message : "", out);
	if (status == 0)
		status = blob_writer_finish(&recorder.blobs, error);
	if (status == 0 && store_commit(&home->store, message, sizeof message) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", message);
	if (status == 0)
		home_count_writes(home, recorder.blobs.bytes_new);
	if (status != 0) {
		store_rollback(&home->store);
		blob_writer_abort(&recorder.blobs);
		goto done_scan;
	}
	if (recorder.blobs.pack != NULL)
		pack_writer_free(recorder.blobs.pack);
	out->ops = recorder.ops;
	out->files_stored = recorder.files_stored;
	out->bytes_stored = recorder.blobs.bytes_stored;
	if (out->version[0] != '\0')
		history_short_id(home, out->version, out->short_id);
	scan_to_change_list(&scan, &out->changes);
done_scan:
	arena_free(&recorder.arena);
	buffer_free(&recorder.encoded);
	buffer_free(&recorder.seen);
	scan_result_free(&scan);
done_lock:
	home_unlock(home);
done_paths:
	for (size_t i = 0; i < path_count; i++)
		free(paths[i]);
	free(paths);
	return status;
}

void
hearth_record_result_free(struct hearth_record_result *result)
{
	hearth_change_list_free(&result->changes);
}
