/* record (docs/DESIGN.md §7): turns what the scan found into ops (PLACE for new,
 * moved and deleted nodes, SET for new content), a COMMIT with the message,
 * the new head state and index rows, all in one transaction that commits
 * only after the pack holding the new content is durable. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/history/adopt.h"
#include "backend/history/author.h"
#include "backend/history/blob.h"
#include "backend/history/checkout.h"
#include "backend/history/conflicts.h"
#include "backend/disk/guard.h"
#include "backend/store/hash.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/history/record.h"
#include "backend/disk/identity.h"
#include "backend/disk/reconcile.h"
#include "backend/disk/scan.h"
#include "backend/history/tree.h"
#include "model/array.h"
#include "model/merge.h"
#include "model/node_set.h"

#define READ_RETRIES 3
/* Up to this many changes a record runs in the read page cache: each
 * change rewrites a dozen pages or so (its entry and node rows, their
 * indexes, its ops), well inside the 8 MiB cache's 2 048 pages, while the
 * wide cache would only make each page the record reads a new allocation. */
#define RECORD_FEW_CHANGES 64

/* Everything one record builds up as it goes. */
struct recorder {
	struct hearth *home;
	const struct hearth_progress *progress;
	struct hearth_error *error;
	struct blob_writer blobs;
	struct author author;
	struct arena arena;		/* scratch for the change in hand */
	struct buffer seen;
	struct meter meter;		/* files and their bytes as they are stored */
	uint64_t files_stored;
	int64_t now_ns;
	bool leave_restores;
	/* Rows head had dropped before the record (status listed them as
	 * added; so does the record's report) and the names of every row
	 * keep_dropped reads. */
	struct arena dropped_names;
	struct head_dropped *listed;
	size_t listed_count;
	bool placed;		/* a PLACE op made: which nodes are live may change */
	/* None was known before the record (head_dropped_known_none): only
	 * the nodes that stop being live in it are asked about. */
	bool dropped_tracked;
	/* Changes adopt_places took head's part of where the walk found the
	 * disk differing from the index: the tree may now be head. */
	uint64_t adopted;
};

static int64_t
wall_clock_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int
fail_cancelled(struct recorder *recorder)
{
	return hearth_fail(recorder->error, HEARTH_CANCELLED,
	    "record cancelled; nothing was recorded");
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
	stamp->mtime_ns = (op_mtime)status->st_mtim.tv_sec * 1000000000 + status->st_mtim.tv_nsec;
	stamp->ctime_ns = (int64_t)status->st_ctim.tv_sec * 1000000000LL + status->st_ctim.tv_nsec;
	stamp->device = (uint64_t)status->st_dev;
	stamp->inode = (uint64_t)status->st_ino;
}

/* Stores a file's bytes. A file that changes while it is read is read
 * again; if it never holds still, what was read is stored (its hash matches
 * its bytes) and the stamp is left untrusted so the next status looks again. */
/* The walk saw a file; what is there now is not one (a FIFO, say, which
 * is never opened for more than a look). Nothing is recorded. */
static int
changed_kind(struct recorder *recorder, const struct home_root *root,
    const struct scan_change *change)
{
	return hearth_fail(recorder->error, HEARTH_FAILED,
	    "%s/%s changed into something else while being recorded; record again",
	    root->path, change->path);
}

/* Whether a file just stored still holds the markers of a merge with
 * markers (hearth resolve --markers) over its node's content conflict:
 * then its record settles nothing (make_ops). Reads the open file again,
 * at most MERGE_MAX_BYTES; only for nodes in a content conflict. */
static bool
holds_markers(struct recorder *recorder, const struct scan_change *change, int fd, uint64_t size)
{
	if (size > MERGE_MAX_BYTES || change->kind == SCAN_ADDED)
		return false;
	if (!conflicts_listed(recorder->home, change->node, CONFLICT_CONTENT))
		return false;
	char *bytes = array_alloc(size + 1, 1);
	size_t done = 0;
	while (done < size) {
		ssize_t got = pread(fd, bytes + done, size - done, (off_t)done);
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	bool found = merge_has_markers(bytes, done);
	free(bytes);
	return found;
}

static int
store_file(struct recorder *recorder, struct scan_change *change, bool *stamp_trusted)
{
	const struct home_root *root = &recorder->home->roots[change->root];
	struct content_result result;

	*stamp_trusted = false;
	for (int attempt = 0; attempt < READ_RETRIES; attempt++) {
		struct stat before, after;
		int fd = scan_open_file(root->fd, change->path);
		if (fd == SCAN_NOT_A_FILE)
			return changed_kind(recorder, root, change);
		if (fd < 0)
			return hearth_fail_errno(recorder->error, "cannot read %s/%s", root->path,
			    change->path);
		/* Its id first: the xattr moves ctime, and the stamp comes after. */
		if (change->identity_stale && identity_write_file(fd, change->node))
			change->identity_stale = false;
		if (fstat(fd, &before) != 0 || !S_ISREG(before.st_mode)) {
			close(fd);
			return changed_kind(recorder, root, change);
		}
		int status = blob_store_fd(&recorder->blobs, fd,
		    change->has_entry ? &change->old_blob : NULL, &result, recorder->error);
		if (status == 0)
			change->has_markers = holds_markers(recorder, change, fd, result.size);
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

/* The ids of the ops made for one change: a PLACE and/or a SET, and the
 * content heads the SET left standing on purpose (markers). */
struct change_ops {
	bool placed, set;
	struct op_id place, content;
	struct op_id *kept;
	size_t kept_count;
};

/* The root a PLACE names. A node that another replica keeps in a root this
 * Home lacks sits here in the root standing in for it; renaming or moving
 * it within that root must not move it between disks on the replica that
 * has the real one, so it keeps its root's name. */
static const char *
root_for_place(struct recorder *recorder, const struct scan_change *change)
{
	struct hearth *home = recorder->home;
	const char *here = home->roots[change->root].name;
	struct head_node node;

	if (change->kind == SCAN_ADDED || change->old_root != change->root ||
	    head_get(home, change->node, &node, &recorder->arena) != 1)
		return here;
	for (size_t i = 0; i < home->root_count; i++)
		if (strcmp(home->roots[i].name, node.shown_root) == 0)
			return here;
	return node.shown_root;
}

static struct op_id
place_change(struct recorder *recorder, const struct scan_change *change, struct node_id parent,
    const struct op_id *supersedes, size_t count)
{
	return author_place(&recorder->author, change->node, parent, change->name,
	    change->name_length, change->node_kind, root_for_place(recorder, change), supersedes,
	    count);
}

static struct op_id
set_change(struct recorder *recorder, const struct scan_change *change,
    const struct op_id *supersedes, size_t count)
{
	uint32_t mode = change->node_kind == NODE_FILE ? change->stamp.mode & 0777 : 0;
	return author_set(&recorder->author, change->node, &change->blob, change->stamp.size, mode,
	    change->stamp.mtime_ns, supersedes, count);
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

/* A file recorded with conflict markers supersedes only the side on disk
 * (the one shown), so the other sides keep the conflict listed; the
 * tree's seen set keeps them too, so the record that drops the markers
 * supersedes every side and settles it. */
static struct op_id
set_with_markers(struct recorder *recorder, const struct scan_change *change,
    struct change_ops *made)
{
	struct head_node node;

	if (head_get(recorder->home, change->node, &node, &recorder->arena) != 1 ||
	    !node.has_content)
		return set_change(recorder, change, NULL, 0);
	made->kept = arena_alloc(&recorder->arena, (node.content_head_count + 1) * sizeof *made->kept);
	for (size_t i = 0; i < node.content_head_count; i++)
		if (!op_id_equal(node.content_heads[i], node.content_op))
			made->kept[made->kept_count++] = node.content_heads[i];
	return set_change(recorder, change, &node.content_op, 1);
}

/* Makes the ops for one change. */
static int
make_ops(struct recorder *recorder, struct scan_change *change, struct change_ops *made)
{
	struct op_id *seen_place = NULL, *seen_content = NULL;
	size_t place_count = 0, content_count = 0;
	bool deleting = change->kind == SCAN_DELETED ||
	    (change->kind == SCAN_RESTORE && change->restore == 2);

	memset(made, 0, sizeof *made);
	if (change->seen != NULL &&
	    head_decode_seen(recorder->home, change->seen, change->seen_length, &seen_place,
		&place_count, &seen_content, &content_count, &recorder->arena) != 0)
		return hearth_fail(recorder->error, HEARTH_DAMAGED,
		    "the index row of %s is damaged (run hearth fsck)", change->path);
	if (deleting) {
		/* Restoring an older version deletes what it lacked. */
		name_from_path(change);
		made->place = author_delete(&recorder->author, change->node, change->name,
		    change->name_length, change->node_kind, root_for_place(recorder, change),
		    seen_place, place_count, seen_content, content_count);
		made->placed = true;
		return 0;
	}
	switch (change->kind) {
	case SCAN_ADDED:
		made->place = place_change(recorder, change, change->parent, NULL, 0);
		made->placed = true;
		if (change->node_kind != NODE_DIR) {
			made->content = set_change(recorder, change, NULL, 0);
			made->set = true;
		}
		break;
	case SCAN_MOVED:
	case SCAN_MODIFIED:
		/* Edited after a checkout of an older version: the node is
		 * restored to where the tree has it as well as edited, or head
		 * would keep it where the tree does not. */
		if (change->kind == SCAN_MOVED ||
		    (change->restore != 0 && !recorder->leave_restores)) {
			made->place = place_change(recorder, change, change->parent, seen_place,
			    place_count);
			made->placed = true;
		}
		if (change->content_changed || change->mode_changed) {
			made->content = change->has_markers ? set_with_markers(recorder, change, made)
			    : set_change(recorder, change, seen_content, content_count);
			made->set = true;
		}
		break;
	case SCAN_RESTORE:
		/* The tree holds an older version: make head match it again. */
		made->place = place_change(recorder, change, change->parent, seen_place, place_count);
		made->placed = true;
		if (change->node_kind != NODE_DIR) {
			made->content = set_change(recorder, change, seen_content, content_count);
			made->set = true;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* ---- the index --------------------------------------------------------------- */

/* What the tree has now seen of this node: the ops just made for it, and
 * for a register they left alone, what it had seen before. */
static void
new_seen(struct recorder *recorder, const struct scan_change *change, struct change_ops *made)
{
	struct op_id *place = NULL, *content = NULL;
	size_t place_count = 0, content_count = 0;

	if (change->seen != NULL)
		head_decode_seen(recorder->home, change->seen, change->seen_length, &place,
		    &place_count, &content, &content_count, &recorder->arena);
	if (made->placed) {
		place = &made->place;
		place_count = 1;
	}
	if (made->set) {
		content = arena_alloc(&recorder->arena, (made->kept_count + 1) * sizeof *content);
		content[0] = made->content;
		if (made->kept_count > 0)
			memcpy(content + 1, made->kept, made->kept_count * sizeof *content);
		content_count = 1 + made->kept_count;
	}
	head_encode_seen(recorder->home, place, place_count, content, content_count,
	    &recorder->seen);
}

static int
update_entry(struct recorder *recorder, const struct scan_change *change, bool stamp_trusted)
{
	int status;

	if (change->kind == SCAN_DELETED || (change->kind == SCAN_RESTORE && change->restore == 2)) {
		status = scan_entry_drop(recorder->home, change->node);
	} else {
		struct scan_entry_row entry = {
			.node = change->node, .parent = change->parent,
			.name = change->name, .name_length = change->name_length,
			.kind = change->node_kind, .root = recorder->home->roots[change->root].name,
			.blob = change->node_kind == NODE_DIR ? NULL
			    : change->needs_content ? &change->old_blob : &change->blob,
			.stamp = change->stamp, .stamped_ns = stamp_trusted ? recorder->now_ns : 0,
			.seen = recorder->seen.data, .seen_length = recorder->seen.length,
		};
		status = scan_entry_put(recorder->home, &entry);
	}
	if (status != 0)
		return hearth_fail(recorder->error, HEARTH_FAILED, "cannot update the index for %s: %s",
		    change->path, sqlite3_errmsg(recorder->home->store.db));
	return 0;
}

/* The tree is the version (docs/DESIGN.md §7): once this record's ops are
 * in head, a row still on disk whose node head dropped (a folder a peer
 * deleted that only what this record removed had kept alive) is kept
 * where the tree has it, superseding its placement heads, as a resolve
 * keeps a revived node. Called only when the tree held all of head before
 * the record: behind head, such a row is a delete not yet checked out. */
static int
keep_dropped(struct recorder *recorder)
{
	struct hearth *home = recorder->home;
	struct head_dropped *rows;
	size_t count;
	int status = author_flush(&recorder->author);

	if (status != 0)
		return status;
	if ((recorder->dropped_tracked
		? head_dropped_rows_tracked(home, &recorder->dropped_names, &rows, &count)
		: head_dropped_rows(home, &recorder->dropped_names, &rows, &count)) != 0)
		status = hearth_fail(recorder->error, HEARTH_FAILED, "cannot read the index: %s",
		    sqlite3_errmsg(home->store.db));
	for (size_t i = 0; status == 0 && i < count; i++) {
		struct head_node node = { 0 };
		if (head_get(home, rows[i].node, &node, &recorder->arena) < 0) {
			status = hearth_fail(recorder->error, HEARTH_FAILED, "cannot read the head "
			    "state: %s", sqlite3_errmsg(home->store.db));
			break;
		}
		struct change_ops made = { .placed = true };
		made.place = author_place(&recorder->author, rows[i].node, rows[i].parent,
		    rows[i].name, rows[i].name_length, rows[i].kind, rows[i].root, node.place_heads,
		    node.place_head_count);
		struct scan_change change = { .seen = rows[i].seen, .seen_length = rows[i].seen_length };
		new_seen(recorder, &change, &made);
		/* Its restore stays 0: head_dropped_rows gives only such rows. */
		if (scan_entry_set_seen(home, rows[i].node, recorder->seen.data, recorder->seen.length,
			0) != 0)
			status = hearth_fail(recorder->error, HEARTH_FAILED, "cannot update the index: "
			    "%s", sqlite3_errmsg(home->store.db));
	}
	free(rows);
	return status;
}

/* ---- identity ------------------------------------------------------------------- */

/* Marks a file or folder with its node id where it does not carry it yet
 * (new, moved by inode evidence, or a copy carrying another's id). Where
 * the file system has no xattrs, a file's identity rests on the index
 * alone, and so does a folder's where hearth may not write it or the
 * name of its marker is the user's: said once, as a note. Any other
 * failure fails the record (rolled back: the next record writes it). */
static int
write_identity(struct recorder *recorder, struct scan_result *scan, struct scan_change *change)
{
	const struct home_root *root = &recorder->home->roots[change->root];

	if (!change->identity_stale ||
	    (change->kind != SCAN_ADDED && change->kind != SCAN_MOVED))
		return 0;
	if (change->node_kind == NODE_DIR) {
		if (identity_write_folder(root->fd, change->path, change->node) == 0)
			return 0;
		if (errno == EACCES || errno == EPERM || errno == EROFS || errno == EEXIST) {
			char why[256];
			snprintf(why, sizeof why, errno == EEXIST
				? "its " IDENTITY_MARKER " is the user's, so its identity rests on its inode"
				: "cannot carry its id (%s): its identity rests on its inode, which a copy "
				  "or another disk does not keep", strerror(errno));
			scan_note(scan, change->root, change->path, why, false);
			return 0;
		}
		return hearth_fail_errno(recorder->error, "cannot write the identity of %s/%s",
		    root->path, change->path);
	}
	if (change->node_kind != NODE_FILE)
		return 0;
	int fd = scan_open_file(root->fd, change->path);
	struct stat status;
	if (fd < 0)
		return 0;
	if (identity_write_file(fd, change->node) && fstat(fd, &status) == 0)
		stamp_from(&change->stamp, &status);
	close(fd);
	return 0;
}

/* Once what a stopped checkout placed is adopted, the tree may hold all
 * of head: then it is at head, as that checkout would have left it (and a
 * version this record makes is on top of it). */
static int
tree_adopted_head(struct hearth *home, struct hearth_error *error)
{
	struct history_head head;
	struct vv vv;

	if (head_pending_changes(home) != 0)
		return 0;
	vv_init(&vv);
	history_head(home, &head);
	int status = store_head_vv(&home->store, &vv) != 0
	    ? hearth_fail(error, HEARTH_FAILED, "cannot read the head")
	    : history_set_tree(home, &vv, head.version, error);
	vv_free(&vv);
	return status;
}

/* ---- one change, start to end --------------------------------------------------- */

static int
record_change(struct recorder *recorder, struct scan_result *scan, struct scan_change *change)
{
	struct change_ops made;
	bool trusted;

	/* A delete head made too: the row goes, with no op. */
	if (change->adopted && change->kind == SCAN_DELETED) {
		trusted = true;
	} else {
		if (settle_content(recorder, change, &trusted) != 0 ||
		    make_ops(recorder, change, &made) != 0 ||
		    write_identity(recorder, scan, change) != 0)
			return recorder->error->code;
		recorder->placed |= made.placed;
		if (change->seen != NULL || made.placed || made.set)
			new_seen(recorder, change, &made);
		else
			buffer_reset(&recorder->seen);
	}
	int status = update_entry(recorder, change, trusted);
	/* Scratch of this change; the author keeps its own copies. */
	arena_free(&recorder->arena);
	arena_init(&recorder->arena, 16 * 1024);
	return status;
}

static int
compare_for_recording(const void *a, const void *b)
{
	const struct scan_change *x = a, *y = b;
	/* Deletes first: a file replaced by a folder frees its name before
	 * the folder takes it; and deepest first, so a folder goes to the
	 * trash after what it held. Then by path, so parents precede children. */
	bool x_delete = x->kind == SCAN_DELETED, y_delete = y->kind == SCAN_DELETED;
	if (x_delete != y_delete)
		return x_delete ? -1 : 1;
	return x_delete ? strcmp(y->path, x->path) : strcmp(x->path, y->path);
}

static int
record_changes(struct recorder *recorder, struct scan_result *scan)
{
	uint64_t total = 0, bytes = 0;

	if (scan->count > 1)
		qsort(scan->changes, scan->count, sizeof *scan->changes, compare_for_recording);
	for (size_t i = 0; i < scan->count; i++) {
		total += scan->changes[i].needs_content;
		if (scan->changes[i].needs_content)
			bytes += scan->changes[i].stamp.size;
	}
	/* Bytes as each chunk is read (blob_writer's meter): a 2 GB file moves
	 * the bar while it is stored, and a cancel stops inside it. */
	meter_phase(&recorder->meter, "storing", total, bytes);
	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *change = &scan->changes[i];
		/* A restore an adopted item did is done. */
		if (change->kind == SCAN_RESTORE && (recorder->leave_restores || change->adopted))
			continue;
		if (meter_cancelled(&recorder->meter))
			return fail_cancelled(recorder);
		int status = record_change(recorder, scan, change);
		if (status == HEARTH_CANCELLED)
			return fail_cancelled(recorder);
		if (status != 0)
			return recorder->error->code;
		if (change->needs_content)
			meter_add(&recorder->meter, 1, 0, change->path);
	}
	meter_flush(&recorder->meter);
	return author_flush(&recorder->author);
}

/* The guard on emptying: what the index holds per root against what this
 * record would delete there (files and links; folders follow them). */
static int
check_deletes(struct hearth *home, const struct scan_result *scan, struct hearth_delete_guard *out,
    struct hearth_error *error)
{
	struct guard_count *roots = array_zeroed(home->root_count, sizeof *roots);

	for (size_t i = 0; i < scan->count; i++) {
		const struct scan_change *change = &scan->changes[i];
		if (change->kind == SCAN_DELETED && change->node_kind != NODE_DIR &&
		    !change->adopted && change->old_root >= 0 &&
		    (size_t)change->old_root < home->root_count) {
			roots[change->old_root].deleting++;
		}
	}
	/* A root that loses no file is never over the limit (guard.c), so its
	 * files are counted only when it loses some, and only as far as
	 * decides: a count that stops short is all of them, one that does not
	 * is within the limit. */
	for (size_t i = 0; i < home->root_count; i++)
		if (roots[i].deleting > 0)
			roots[i].files = scan_entry_files_in_root(home, home->roots[i].name,
			    guard_files_enough(home, roots[i].deleting));
	int status = guard_check(home, "record", roots, out, error);
	free(roots);
	return status;
}

/* ---- names a record frees or takes ---------------------------------------------- */

/* Two replicas made one name at once: head shows one node under it and the
 * other as name~hex, and so does the tree. A record that renames, moves or
 * deletes the one with the name gives it to the other in head; one whose
 * new node takes a name an earlier node holds shows it as name~hex. The
 * tree follows head for those nodes: they are kept as pending paths in the
 * record's own transaction and written once it commits (checkout.h), so a
 * kill in between leaves them to the next command, as a resolve's. */

/* Appends the losers of name clashes (in_place: those the tree shows
 * where head does). */
static int
add_name_losers(struct hearth *home, bool in_place, struct node_set *out,
    struct hearth_error *error)
{
	return conflicts_nodes(home, CONFLICT_NAME, in_place, &out->ids, &out->count,
	    &out->capacity) == 0 ? 0 : hearth_fail(error, HEARTH_FAILED,
	    "cannot read the name clashes: %s", sqlite3_errmsg(home->store.db));
}

/* Before the record: the losers of name clashes the tree shows where head
 * does (not a tree behind head). */
static int
names_before(struct hearth *home, struct node_set *out, struct hearth_error *error)
{
	return add_name_losers(home, true, out, error);
}

/* After the record's ops, in its transaction: of those and of the losers
 * this record placed, the ones head now shows elsewhere than the tree
 * become the pending paths. Sets *any when there are some. */
static int
names_after(struct hearth *home, const struct scan_result *scan, struct node_set *before,
    bool *any, struct hearth_error *error)
{
	struct node_set losers = { 0 }, placed = { 0 }, follow = { 0 };
	int status = add_name_losers(home, false, &losers, error);

	*any = false;
	for (size_t i = 0; status == 0 && losers.count > 0 && i < scan->count; i++)
		if (scan->changes[i].kind == SCAN_ADDED || scan->changes[i].kind == SCAN_MOVED)
			node_set_add(&placed, scan->changes[i].node);
	node_set_seal(&placed);
	for (size_t i = 0; i < losers.count; i++)
		if (node_set_has(&placed, losers.ids[i]))
			node_set_add(before, losers.ids[i]);
	for (size_t i = 0; status == 0 && i < before->count; i++)
		if (head_shown_apart_from_tree(home, before->ids[i]))
			node_set_add(&follow, before->ids[i]);
	if (status == 0 && follow.count > 0) {
		status = checkout_set_pending(home, follow.ids, follow.count, error);
		*any = status == 0;
	}
	node_set_free(&losers);
	node_set_free(&placed);
	node_set_free(&follow);
	return status;
}

/* After the commit: the pending paths names_after kept, written. */
static int
follow_names(struct hearth *home, struct hearth_record_result *out, struct hearth_error *error)
{
	int status = checkout_write_pending(home, &out->names_followed, error);

	if (status == 0)
		return 0;
	char first[HEARTH_ERROR_MAX];
	snprintf(first, sizeof first, "%s", error->message);
	return hearth_fail(error, status, "recorded %s, but what takes the names it freed or "
	    "took could not be moved in the tree: %s; the next record, resolve or checkout moves "
	    "it", out->short_id, first);
}

/* A restore is listed as show lists the version it makes: paths (R old ->
 * new, D, A, M) from the head state before it against the one after, not
 * the tree's rows, which for a restored node are head's ids and places. */
static bool
restores_anything(const struct recorder *recorder, const struct scan_result *scan)
{
	if (recorder->leave_restores)
		return false;
	/* By the restore mark, not the kind: a file the stamps could not
	 * settle is still MODIFIED here and turns RESTORE only once read. */
	for (size_t i = 0; i < scan->count; i++)
		if (scan->changes[i].restore != 0)
			return true;
	return false;
}

static int
normalise_paths(const struct hearth_record_options *options, char ***out, size_t *count,
    struct hearth_error *error)
{
	*out = NULL;
	*count = 0;
	if (options->path_count == 0)
		return 0;
	*out = array_zeroed(options->path_count, sizeof **out);
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
		(*out)[i] = array_strndup(path, length);
		(*count)++;
	}
	return 0;
}

/* hearth_record; with walk, a successful record of the whole tree hands
 * its walk on (record.h). */
static int
record_run(hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct record_walk *walk, struct hearth_error *error)
{
	struct recorder recorder = { .home = home, .progress = progress, .error = error,
		.leave_restores = options->leave_restores };
	struct scan_result scan;
	char **paths;
	size_t path_count;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if ((status = author_check_input(home, options->message, error)) != 0)
		return status;
	if ((status = normalise_paths(options, &paths, &path_count, error)) != 0)
		return status;
	if ((status = home_lock(home, "record", error)) != 0)
		goto done_paths;
	if ((status = home_require_roots(home, error)) != 0)
		goto done_lock;
	/* A resolve killed before its paths were written: finished first, so
	 * nothing is recorded on top of index rows that predate it. */
	if ((status = checkout_finish_pending(home, error)) != 0)
		goto done_lock;
	for (size_t i = 0; i < path_count; i++) {
		if (!scan_path_known(home, paths[i])) {
			status = hearth_fail(error, HEARTH_USAGE,
			    "no such path: %s (neither on disk nor recorded)", paths[i]);
			goto done_lock;
		}
	}
	struct reconcile_scan how;
	if (path_count == 0) {
		status = reconcile_scan_tree(home, progress, &scan, &how, error);
	} else {
		memset(&how, 0, sizeof how);
		store_begin_read(&home->store);
		reconcile_snapshot(home, &how.seq, &how.pages);
		status = scan_tree(home, (const char *const *)paths, path_count, progress, &scan,
		    error);
		store_end_read(&home->store);
	}
	if (status != 0)
		goto done_lock;
	if (scan.recorded_too_long != NULL) {
		status = hearth_fail(error, HEARTH_FAILED, "cannot record: a folder was renamed or "
		    "moved so that a recorded path below it is longer than PATH_MAX (4096 bytes), "
		    "which no replica could write; nothing was recorded. Give a folder above it a "
		    "shorter name, then record. The path: %s", scan.recorded_too_long);
		scan_result_free(&scan);
		goto done_lock;
	}
	bool tree_at_head = history_tree_at_head(home);
	if (!tree_at_head)
		recorder.adopted = adopt_places(home, &scan);
	if (!options->allow_deletes &&
	    (status = check_deletes(home, &scan, &out->guard, error)) != 0) {
		scan_result_free(&scan);
		goto done_lock;
	}

	arena_init(&recorder.arena, 64 * 1024);
	arena_init(&recorder.dropped_names, 4 * 1024);
	buffer_init(&recorder.seen);
	blob_writer_begin(home, &recorder.blobs);
	meter_init(&recorder.meter, progress);
	recorder.blobs.meter = &recorder.meter;
	recorder.now_ns = wall_clock_ns();
	struct hearth_error failure;
	/* A record of a few changes writes a few pages: the read cache will do
	 * (store_begin_small). */
	if ((scan.count <= RECORD_FEW_CHANGES ? store_begin_small(&home->store, &failure)
		: store_begin(&home->store, &failure)) != 0) {
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
		goto done_scan;
	}
	author_begin(&recorder.author, home, error);
	struct tree before = { 0 };
	struct node_set names = { 0 };
	bool names_to_write = false;
	bool restoring = restores_anything(&recorder, &scan);
	recorder.dropped_tracked = tree_at_head && head_dropped_known_none(home);
	if (recorder.dropped_tracked)
		head_track_dropped(home);
	else if (tree_at_head && head_dropped_rows(home, &recorder.dropped_names,
		&recorder.listed, &recorder.listed_count) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "cannot read the index: %s",
		    sqlite3_errmsg(home->store.db));
	if (status == 0 && restoring)
		status = tree_load_head(home, &before, error);
	if (status == 0)
		status = names_before(home, &names, error);
	if (status == 0)
		status = record_changes(&recorder, &scan);
	if (status == 0 && recorder.adopted > 0)
		status = tree_adopted_head(home, error);
	if (status == 0)
		status = reconcile_recorded(home, how.seq, how.pages, path_count == 0, &scan, error);
	/* A record of SET ops alone drops no node from head (a content head
	 * can only revive one, docs/DESIGN.md §4.3): with no row dropped
	 * before it, none is after. */
	if (status == 0 && tree_at_head && (recorder.placed || recorder.listed_count > 0))
		status = keep_dropped(&recorder);
	head_untrack_dropped(home);
	/* At head, with every such row kept: none is left. */
	if (status == 0 && tree_at_head && head_dropped_none(home) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "cannot update the store: %s",
		    sqlite3_errmsg(home->store.db));
	if (status == 0 && recorder.author.ops > 0)
		status = author_commit(&recorder.author, options->message ? options->message : "",
		    out->version);
	if (status == 0 && recorder.author.ops > 0)
		status = names_after(home, &scan, &names, &names_to_write, error);
	node_set_free(&names);
	struct tree after = { 0 };
	if (status == 0 && restoring && (status = tree_load_head(home, &after, error)) == 0) {
		tree_diff(&before, &after, NULL, 0, NULL, NULL, &out->changes);
		tree_free(&after);
	}
	if (restoring)
		tree_free(&before);
	if (status == 0)
		status = blob_writer_finish(&recorder.blobs, error);
	if (status == 0 && store_commit(&home->store, &failure) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	if (status == 0)
		home_count_writes(home, recorder.blobs.bytes_new);
	if (status != 0) {
		store_rollback(&home->store);
		blob_writer_abort(&recorder.blobs);
		hearth_change_list_free(&out->changes);
		goto done_scan;
	}
	if (recorder.blobs.pack != NULL)
		pack_writer_free(recorder.blobs.pack);
	out->ops = recorder.author.ops;
	out->files_stored = recorder.files_stored;
	out->bytes_stored = recorder.blobs.bytes_stored;
	if (out->version[0] != '\0')
		history_short_id(home, out->version, out->short_id);
	if (!restoring) {
		scan_to_change_list(&scan, false, &out->changes);
		head_dropped_list(home, recorder.listed, recorder.listed_count, &out->changes);
	}
	scan_to_note_list(&scan, &out->notes);
	if (names_to_write && (status = follow_names(home, out, error)) != 0)
		hearth_record_result_free(out);
	/* Names followed after the walk moved files it saw: then it is stale. */
	if (walk != NULL && status == 0 && path_count == 0 && !how.from_index && !names_to_write) {
		walk->usable = true;
		walk->data_version = store_data_version(&home->store);
		walk->scan = scan;
		memset(&scan, 0, sizeof scan);
	}
done_scan:
	arena_free(&recorder.arena);
	arena_free(&recorder.dropped_names);
	free(recorder.listed);
	author_end(&recorder.author);
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

int
hearth_record(hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct hearth_error *error)
{
	return record_run(home, options, progress, out, NULL, error);
}

int
record_keeping_walk(struct hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct record_walk *walk, struct hearth_error *error)
{
	memset(walk, 0, sizeof *walk);
	return record_run(home, options, progress, out, walk, error);
}

void
record_walk_free(struct record_walk *walk)
{
	if (walk->usable)
		scan_result_free(&walk->scan);
	memset(walk, 0, sizeof *walk);
}

void
hearth_record_result_free(struct hearth_record_result *result)
{
	hearth_change_list_free(&result->changes);
	hearth_note_list_free(&result->notes);
}
