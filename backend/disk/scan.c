/* The tree walk behind status and record. Each folder's disk listing is
 * merge-joined with the index rows of its node (both sorted by name bytes),
 * so memory is bounded by the largest folder plus the changes found. Moves
 * are told from deletes by inode evidence: a new folder whose inode an index
 * row holds, at a place that no longer exists, is that row moved (and its
 * contents are joined against that row's children); files are matched at
 * the end of the walk between what vanished and what appeared. */
#include "backend/disk/scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend/store/content.h"
#include "backend/store/hash.h"
#include "backend/disk/identity.h"
#include "backend/disk/layout.h"
#include "backend/disk/scan_prefetch.h"
#include "model/array.h"
#include "model/path.h"
#include "model/buffer.h"

#define RACY_WINDOW_NS (2 * 1000000000LL)

bool
scan_stamp_is_racy(op_mtime mtime_ns, int64_t stamped_ns)
{
	return mtime_ns >= stamped_ns - RACY_WINDOW_NS;
}

/* ---- opening below a root ------------------------------------------------------ */

/* Component by component, each opened with O_NOFOLLOW from the last, so no
 * link is followed and no ".." leaves the root: for kernels before 5.6
 * (no openat2), and for a path past PATH_MAX, which no single call takes. */
static int
open_by_components(int root_fd, const char *path, int flags)
{
	int current = dup(root_fd);
	char component[256];

	while (current >= 0 && *path) {
		size_t length = strcspn(path, "/");
		if (length == 0 || length >= sizeof component) {
			close(current);
			errno = length == 0 ? ENOENT : ENAMETOOLONG;
			return -1;
		}
		memcpy(component, path, length);
		component[length] = '\0';
		if (strcmp(component, ".") == 0 || strcmp(component, "..") == 0) {
			close(current);
			errno = EXDEV;
			return -1;
		}
		path += length + (path[length] == '/');
		int next = openat(current, component,
		    (*path ? O_RDONLY | O_DIRECTORY : flags) | O_CLOEXEC | O_NOFOLLOW);
		close(current);
		current = next;
	}
	return current;
}

static int
open_beneath(int root_fd, const char *relative_path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const char *path = relative_path[0] ? relative_path : ".";

	/* Asked once: a kernel without openat2 has none for the process's life
	 * (any thread may be the one to find out). */
	static atomic_bool no_openat2;

	if (strlen(path) >= PATH_MAX || atomic_load_explicit(&no_openat2, memory_order_relaxed))
		return open_by_components(root_fd, path, flags);
	int fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
	if (fd >= 0 || errno != ENOSYS)
		return fd;
	atomic_store_explicit(&no_openat2, true, memory_order_relaxed);
	return open_by_components(root_fd, path, flags);
}

int
scan_open_folder(int root_fd, const char *relative_path)
{
	return open_beneath(root_fd, relative_path, O_RDONLY | O_DIRECTORY);
}

int
scan_open_file(int root_fd, const char *relative_path)
{
	struct stat status;
	int fd = open_beneath(root_fd, relative_path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
		close(fd);
		return SCAN_NOT_A_FILE;
	}
	return fd;
}

int
scan_open_parent(int root_fd, const char *relative_path, const char **leaf)
{
	const char *slash = strrchr(relative_path, '/');
	char folder[PATH_MAX];

	*leaf = slash != NULL ? slash + 1 : relative_path;
	if (slash == NULL)
		return scan_open_folder(root_fd, "");
	size_t folder_length = (size_t)(slash - relative_path);
	if (folder_length >= sizeof folder) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(folder, relative_path, folder_length);
	folder[folder_length] = '\0';
	return scan_open_folder(root_fd, folder);
}

int
scan_read_link(int root_fd, const char *relative_path, struct arena *arena, char **target,
    size_t *length)
{
	const char *leaf;
	int folder_fd = scan_open_parent(root_fd, relative_path, &leaf);

	if (folder_fd < 0)
		return -1;
	char buffer[4097];
	ssize_t got = readlinkat(folder_fd, leaf, buffer, sizeof buffer);
	close(folder_fd);
	if (got < 0)
		return -1;
	if ((size_t)got >= sizeof buffer) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*target = arena_strndup(arena, buffer, (size_t)got);
	*length = (size_t)got;
	return 0;
}

/* ---- what the disk holds ------------------------------------------------------- */

struct disk_item {
	char *name;
	size_t name_length;
	enum node_kind kind;
	int root;
	struct scan_stamp stamp;
	/* Past PATH_MAX: neither recorded nor, if the index holds it, deleted. */
	bool too_long;
};

static int64_t
timespec_ns(struct timespec time)
{
	return (int64_t)time.tv_sec * 1000000000LL + time.tv_nsec;
}

static void
stamp_from_stat(const struct stat *status, struct scan_stamp *stamp)
{
	stamp->size = S_ISDIR(status->st_mode) ? 0 : (uint64_t)status->st_size;
	stamp->mode = status->st_mode & 07777;
	stamp->mtime_ns = (op_mtime)status->st_mtim.tv_sec * 1000000000 + status->st_mtim.tv_nsec;
	stamp->ctime_ns = timespec_ns(status->st_ctim);
	stamp->device = (uint64_t)status->st_dev;
	stamp->inode = (uint64_t)status->st_ino;
}

/* The order both sides of a folder are joined in: by name, then (files
 * only) by root, since one name in two roots is two files while a folder
 * in several roots is one folder. */
static int
compare_places(const char *name_a, enum node_kind kind_a, int root_a, const char *name_b,
    enum node_kind kind_b, int root_b)
{
	int order = strcmp(name_a, name_b);
	if (order != 0)
		return order;
	int key_a = kind_a == NODE_DIR ? -1 : root_a, key_b = kind_b == NODE_DIR ? -1 : root_b;
	return (key_a > key_b) - (key_a < key_b);
}

static int
compare_disk_items(const void *a, const void *b)
{
	const struct disk_item *x = a, *y = b;
	return compare_places(x->name, x->kind, x->root, y->name, y->kind, y->root);
}

/* An index row as the walk reads it. */
struct entry_row {
	struct node_id node;
	char *name;
	size_t name_length;
	enum node_kind kind;
	int root;
	struct hash blob;
	struct scan_stamp stamp;
	int64_t stamped;
	uint8_t *seen;
	size_t seen_length;
	int restore;
	bool stamp_only;	/* blob and seen not read (load_entries) */
};

struct walk {
	struct hearth *home;
	const char *const *paths;
	size_t path_count;
	const struct hearth_progress *progress;
	struct scan_result *result;
	struct hearth_error *error;
	struct buffer path;		/* scratch for building child paths */
	uint8_t *dirents;		/* a folder's listing, SCAN_DIRENT_BUFFER bytes */
	/* Lists folders ahead of a whole walk on the other core; NULL when
	 * the walk lists each itself. */
	struct scan_prefetch *prefetch;
	/* Index rows found missing during the walk, resolved at its end. */
	struct missing {
		struct node_id node;
		enum node_kind kind;
		uint64_t device, inode;
		op_mtime mtime_ns;
		char *path;
		int root;
		bool claimed;
	} *missing;
	size_t missing_count, missing_capacity;
	/* Nodes moved here from elsewhere; their old place is not a delete. */
	struct node_id *claimed;
	size_t claimed_count, claimed_capacity;
	/* scan_folders: the folders given are listed one level deep (depth 1);
	 * what is new or moved inside them is walked whole. */
	bool shallow;
	int depth;
	/* Set by a listing that could not see everything (a folder hearth may
	 * not read): then nothing the index holds there is taken as deleted. */
	bool partial;
	/* Folders at an index path whose identity the disk cannot tell (no
	 * marker, another inode): walked once the rest is, as the index's node
	 * unless that node turned up moved elsewhere (settle_folders). */
	struct deferred {
		struct disk_item item;
		struct entry_row row;
		struct node_id parent;
		char *path;
		int depth;
	} *deferred;
	size_t deferred_count, deferred_capacity;
};

static bool
is_hidden_from_history(const char *folder_path, const char *name)
{
	/* .hearth/ holds markers and state: never recorded, at the top of
	 * every root. */
	return folder_path[0] == '\0' && strcmp(name, HOME_DIR_NAME) == 0;
}

static void
child_path(struct buffer *out, const char *folder_path, const char *name)
{
	buffer_reset(out);
	if (folder_path[0] != '\0') {
		buffer_append(out, folder_path, strlen(folder_path));
		buffer_append_byte(out, '/');
	}
	buffer_append(out, name, strlen(name));
	buffer_string(out);
}

#define TOO_LONG "a path longer than PATH_MAX (4096 bytes)"
#define TOO_LONG_RECORDED "recorded, but a folder above it was renamed or moved so that its " \
    "path is longer than PATH_MAX (4096 bytes); record refuses until a folder above it has a " \
    "shorter name"

/* NODE_FILE, NODE_DIR or NODE_SYMLINK; 0 for what is not content. */
static enum node_kind
node_kind_of(mode_t mode)
{
	if (S_ISREG(mode))
		return NODE_FILE;
	if (S_ISDIR(mode))
		return NODE_DIR;
	if (S_ISLNK(mode))
		return NODE_SYMLINK;
	return 0;
}

/* Why a FIFO, socket or device is left out: hearth keeps files, folders
 * and links, and never opens anything else (a FIFO would block). */
static const char *
not_content(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO, not content";
	if (S_ISSOCK(mode))
		return "a socket, not content";
	return "a device, not content";
}

void
scan_note(struct scan_result *result, int root, const char *path, const char *why, bool excluded)
{
	for (size_t i = 0; i < result->left_out_count; i++)
		if (result->left_out[i].root == root && strcmp(result->left_out[i].path, path) == 0)
			return;
	result->left_out = array_grow(result->left_out, &result->left_out_capacity,
	    result->left_out_count + 1, sizeof *result->left_out);
	struct scan_left_out *item = &result->left_out[result->left_out_count++];
	item->path = arena_strdup(&result->arena, path);
	item->root = root;
	item->why = arena_strdup(&result->arena, why);
	item->excluded = excluded;
}

/* A folder the walk may not list (no permission): named once, and none of
 * what the index holds in it counts as deleted. */
static void
unreadable(struct walk *walk, int root, const char *folder_path)
{
	char why[256];

	snprintf(why, sizeof why, "cannot be read (%s), left out", strerror(errno));
	scan_note(walk->result, root, folder_path[0] ? folder_path : ".", why, true);
	walk->partial = true;
}

static bool
denied(int error)
{
	return error == EACCES || error == EPERM;
}

/* Left out of the walk: said once, "PATH: why, left out". */
static void
leave_out(struct walk *walk, int root, const char *path, const char *why)
{
	char line[256];

	snprintf(line, sizeof line, "%s, left out", why);
	scan_note(walk->result, root, path, line, true);
}

/* The item's Home-relative path, in walk->path: made only for a note. */
static const char *
item_path(struct walk *walk, const char *folder_path, const char *name)
{
	child_path(&walk->path, folder_path, name);
	return (const char *)walk->path.data;
}

/* The folder an item is listed in: its path, that path's length, and the
 * ignore patterns read as far as it (each name is matched alone). */
struct listed_folder {
	const char *path;
	size_t path_length;
	struct ignore_folder ignore;
};

/* One entry of a folder's listing (fd) into items, unless it is left out;
 * true when the rest of the folder cannot be told. */
static bool
list_item(struct walk *walk, int root, const struct listed_folder *folder, int fd,
    const char *name, const struct scan_listed *listed, struct disk_item **items, size_t *count,
    size_t *capacity)
{
	const struct stat *status = &listed->status;
	const char *folder_path = folder->path;
	if (is_hidden_from_history(folder_path, name))
		return false;
	if (listed->error != 0) {
		/* Vanished while we looked: seen next time. Listed but not
		 * searchable (r without x): what is there cannot be told. */
		if (denied(listed->error)) {
			unreadable(walk, root, folder_path);
			return true;
		}
		return false;
	}
	/* A folder's identity marker, where xattrs are not kept, is
	 * hearth's; a user's own file of that name is theirs. */
	if (S_ISREG(status->st_mode) && identity_is_marker(fd, name))
		return false;
	enum node_kind kind = node_kind_of(status->st_mode);
	size_t name_length = strlen(name);
	/* Past PATH_MAX no call can name it: said once, the rest walked.
	 * It stays in the listing, so what the index holds there (a
	 * folder above it renamed longer) is not taken as deleted. */
	bool too_long = folder->path_length + (folder->path_length > 0) + name_length >= PATH_MAX;
	if (too_long)
		leave_out(walk, root, item_path(walk, folder_path, name), TOO_LONG);
	if (ignore_match_in(walk->home->ignore, &folder->ignore, name, name_length,
		kind == NODE_DIR))
		return false;
	if (kind == NODE_DIR && listed->may_be_home_state && layout_is_home_state(fd, name)) {
		scan_note(walk->result, root, item_path(walk, folder_path, name),
		    "another Home's state, left out", true);
		return false;
	}
	if (kind == 0 && !too_long) {
		leave_out(walk, root, item_path(walk, folder_path, name),
		    not_content(status->st_mode));
		return false;
	}
	*items = array_grow(*items, capacity, *count + 1, sizeof **items);
	struct disk_item *item = &(*items)[(*count)++];
	item->name_length = name_length;
	item->name = arena_strndup(&walk->result->arena, name, item->name_length);
	item->kind = kind != 0 ? kind : NODE_FILE;
	item->root = root;
	item->too_long = too_long;
	stamp_from_stat(status, &item->stamp);
	return false;
}

/* One folder of one root, as listed (by the walk or ahead of it), into
 * items. A folder missing from this root is simply absent there. With
 * folder (may be NULL), also the folder's own stamp in this root. */
static int
list_root_folder(struct walk *walk, int root, const struct listed_folder *listed,
    const struct scan_listing *listing, struct disk_item **items, size_t *count,
    size_t *capacity, struct scan_root_stamp *folder)
{
	const char *folder_path = listed->path;
	if (!listing->opened) {
		errno = listing->open_error;
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		if (denied(errno)) {
			unreadable(walk, root, folder_path);
			return 0;
		}
		return hearth_fail_errno(walk->error, "cannot open %s/%s",
		    walk->home->roots[root].path, folder_path);
	}
	struct stat folder_status;
	if (folder != NULL && fstat(listing->fd, &folder_status) == 0) {
		folder->present = true;
		stamp_from_stat(&folder_status, &folder->stamp);
	}
	bool stop = false;
	for (size_t i = 0; !stop && i < listing->count; i++)
		stop = list_item(walk, root, listed, listing->fd,
		    listing->names + listing->entries[i].name, &listing->entries[i], items, count,
		    capacity);
	/* A failed read ends the listing, as readdir's NULL did. */
	if (!stop && denied(listing->read_error))
		unreadable(walk, root, folder_path);
	return 0;
}

/* ---- what the index holds ------------------------------------------------------ */

static int
compare_entry_rows(const void *a, const void *b)
{
	const struct entry_row *x = a, *y = b;
	return compare_places(x->name, x->kind, x->root, y->name, y->kind, y->root);
}

static bool
rows_in_order(const struct entry_row *rows, size_t count)
{
	for (size_t i = 1; i < count; i++)
		if (compare_entry_rows(&rows[i - 1], &rows[i]) > 0)
			return false;
	return true;
}

/* A folder's rows with what compares a stamp, from the covering index
 * entry_listing alone (its rows are in (parent, name) order), in the
 * columns of every row read here: blob and seen are NULL, read only for a
 * row that changed (fill_from_entry). */
static const char SQL_ENTRY_CHILDREN[] =
    "SELECT node, name, kind, root, NULL, size, mode, mtime, device, inode, ctime, stamped, "
    "NULL, restore FROM entry WHERE parent = ?1";
static const char SQL_ENTRY_CONTENT[] = "SELECT blob, seen FROM entry WHERE node = ?1";

static int
root_index(const struct hearth *home, const char *name)
{
	for (size_t i = 0; i < home->root_count; i++)
		if (strcmp(home->roots[i].name, name) == 0)
			return (int)i;
	return 0;	/* a root this replica lacks: the first (docs/DESIGN.md §6) */
}

static void
entry_row_from_statement(struct walk *walk, sqlite3_stmt *statement, struct entry_row *row)
{
	memset(row, 0, sizeof *row);
	memcpy(row->node.bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
	row->name_length = (size_t)sqlite3_column_bytes(statement, 1);
	row->name = arena_strndup(&walk->result->arena, sqlite3_column_blob(statement, 1),
	    row->name_length);
	row->kind = (enum node_kind)sqlite3_column_int(statement, 2);
	row->root = root_index(walk->home, (const char *)sqlite3_column_text(statement, 3));
	if (sqlite3_column_bytes(statement, 4) == HASH_BYTES)
		memcpy(row->blob.bytes, sqlite3_column_blob(statement, 4), HASH_BYTES);
	row->stamp.size = (uint64_t)sqlite3_column_int64(statement, 5);
	row->stamp.mode = (uint32_t)sqlite3_column_int(statement, 6);
	row->stamp.mtime_ns = store_column_mtime(statement, 7);
	row->stamp.device = (uint64_t)sqlite3_column_int64(statement, 8);
	row->stamp.inode = (uint64_t)sqlite3_column_int64(statement, 9);
	row->stamp.ctime_ns = sqlite3_column_int64(statement, 10);
	row->stamped = sqlite3_column_int64(statement, 11);
	row->seen_length = (size_t)sqlite3_column_bytes(statement, 12);
	row->seen = arena_copy(&walk->result->arena, sqlite3_column_blob(statement, 12),
	    row->seen_length);
	row->restore = sqlite3_column_int(statement, 13);
}

static int
load_entries(struct walk *walk, struct node_id parent, struct entry_row **rows, size_t *count,
    size_t *capacity)
{
	sqlite3_stmt *statement = store_statement(&walk->home->store, SQL_ENTRY_CHILDREN);
	int step;

	sqlite3_bind_blob(statement, 1, parent.bytes, ID_BYTES, SQLITE_STATIC);
	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		*rows = array_grow(*rows, capacity, *count + 1, sizeof **rows);
		struct entry_row *row = &(*rows)[(*count)++];
		entry_row_from_statement(walk, statement, row);
		row->stamp_only = true;
	}
	if (step != SQLITE_DONE) {
		struct hearth_error failure;
		store_fail(&walk->home->store, "cannot read the index", &failure);
		return hearth_fail(walk->error, HEARTH_FAILED, "%s", failure.message);
	}
	return 0;
}

/* ---- scope: record PATH... limits the walk ------------------------------------- */

static bool
path_is_within(const char *path, const char *scope)
{
	size_t length = strlen(scope);
	return scope[0] == '\0' ||
	    (strncmp(path, scope, length) == 0 && (path[length] == '\0' || path[length] == '/'));
}

/* Changes at path are reported. */
static bool
in_scope(const struct walk *walk, const char *path)
{
	if (walk->path_count == 0)
		return true;
	for (size_t i = 0; i < walk->path_count; i++)
		if (path_is_within(path, walk->paths[i]))
			return true;
	return false;
}

/* The walk must enter folder to reach something in scope. */
static bool
leads_to_scope(const struct walk *walk, const char *folder)
{
	if (in_scope(walk, folder))
		return true;
	for (size_t i = 0; i < walk->path_count; i++)
		if (path_is_within(walk->paths[i], folder))
			return true;
	return false;
}

/* ---- recording changes ----------------------------------------------------------- */

static struct scan_change *
add_change(struct walk *walk, enum scan_change_kind kind, const char *path)
{
	struct scan_result *result = walk->result;

	result->changes = array_grow(result->changes, &result->capacity, result->count + 1,
	    sizeof *result->changes);
	struct scan_change *change = &result->changes[result->count++];
	memset(change, 0, sizeof *change);
	change->kind = kind;
	change->old_root = -1;
	change->path = arena_strdup(&result->arena, path);
	return change;
}

static void
fill_from_disk(struct scan_change *change, const struct disk_item *item, struct node_id parent)
{
	change->node_kind = item->kind;
	change->parent = parent;
	change->name = (const uint8_t *)item->name;
	change->name_length = item->name_length;
	change->root = item->root;
	change->stamp = item->stamp;
}

/* The index's side of a change; a row read for its stamp alone has its
 * blob and seen read now. */
static void
fill_from_entry(struct walk *walk, struct scan_change *change, const struct entry_row *row)
{
	change->has_entry = true;
	change->node = row->node;
	change->old_root = row->root;
	change->old_blob = row->blob;
	change->old_mode = row->stamp.mode;
	change->restore = row->restore;
	change->seen = row->seen;
	change->seen_length = row->seen_length;
	if (change->node_kind == 0)
		change->node_kind = row->kind;
	if (!row->stamp_only)
		return;
	sqlite3_stmt *statement = store_statement(&walk->home->store, SQL_ENTRY_CONTENT);
	sqlite3_bind_blob(statement, 1, row->node.bytes, ID_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) == SQLITE_ROW) {
		if (sqlite3_column_bytes(statement, 0) == HASH_BYTES)
			memcpy(change->old_blob.bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
		change->seen_length = (size_t)sqlite3_column_bytes(statement, 1);
		change->seen = arena_copy(&walk->result->arena, sqlite3_column_blob(statement, 1),
		    change->seen_length);
	}
	sqlite3_reset(statement);
}

static void
remember_missing(struct walk *walk, const struct entry_row *row, const char *path)
{
	walk->missing = array_grow(walk->missing, &walk->missing_capacity, walk->missing_count + 1,
	    sizeof *walk->missing);
	struct missing *missing = &walk->missing[walk->missing_count++];
	missing->node = row->node;
	missing->kind = row->kind;
	missing->device = row->stamp.device;
	missing->inode = row->stamp.inode;
	missing->mtime_ns = row->stamp.mtime_ns;
	missing->path = arena_strdup(&walk->result->arena, path);
	missing->root = row->root;
	missing->claimed = false;
}

static void
remember_claim(struct walk *walk, struct node_id node)
{
	walk->claimed = array_grow(walk->claimed, &walk->claimed_capacity, walk->claimed_count + 1,
	    sizeof *walk->claimed);
	walk->claimed[walk->claimed_count++] = node;
}

static bool
is_claimed(const struct walk *walk, struct node_id node)
{
	for (size_t i = 0; i < walk->claimed_count; i++)
		if (node_id_equal(walk->claimed[i], node))
			return true;
	return false;
}

static void
report_progress(struct walk *walk, const char *path)
{
	if (walk->progress == NULL || walk->progress->report == NULL ||
	    walk->result->entries_seen % 2048 != 0)
		return;
	struct hearth_progress_report report = {
		.phase = "scanning", .done = walk->result->entries_seen, .path = path,
	};
	walk->progress->report(walk->progress->context, &report);
}

static bool
cancelled(const struct walk *walk)
{
	return walk->progress != NULL && walk->progress->cancel != NULL &&
	    atomic_load(walk->progress->cancel) != 0;
}

/* ---- the walk ----------------------------------------------------------------------- */

static int walk_folder(struct walk *walk, struct node_id node, const char *folder_path);

/* A file or link present both on disk and in the index. */
static void
compare_file(struct walk *walk, const struct disk_item *item, const struct entry_row *row,
    struct node_id parent, const char *path)
{
	const struct scan_stamp *disk = &item->stamp, *known = &row->stamp;
	bool stamp_equal = disk->size == known->size && disk->mtime_ns == known->mtime_ns &&
	    disk->ctime_ns == known->ctime_ns && disk->inode == known->inode &&
	    disk->device == known->device;
	bool mode_changed = item->kind == NODE_FILE && (disk->mode & 0777) != (known->mode & 0777);

	if (stamp_equal && !mode_changed && !scan_stamp_is_racy(disk->mtime_ns, row->stamped)) {
		if (row->restore != 0) {
			struct scan_change *change = add_change(walk, SCAN_RESTORE, path);
			fill_from_disk(change, item, parent);
			fill_from_entry(walk, change, row);
			change->blob = change->old_blob;
		}
		return;
	}
	struct scan_change *change = add_change(walk, SCAN_MODIFIED, path);
	fill_from_disk(change, item, parent);
	fill_from_entry(walk, change, row);
	change->mode_changed = mode_changed;
	/* A size change settles it; anything else needs the bytes. */
	change->content_changed = disk->size != known->size;
	change->needs_content = true;
}

static bool
load_entry_by_node(struct walk *walk, struct node_id node, struct entry_row *out)
{
	static const char SQL_ENTRY_BY_NODE[] =
	    "SELECT node, name, kind, root, blob, size, mode, mtime, device, inode, ctime, stamped, "
	    "seen, restore FROM entry WHERE node = ?1 AND restore != 2";
	sqlite3_stmt *statement = store_statement(&walk->home->store, SQL_ENTRY_BY_NODE);
	bool found = false;

	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) == SQLITE_ROW) {
		entry_row_from_statement(walk, statement, out);
		found = true;
	}
	sqlite3_reset(statement);
	return found;
}

/* Looks for an index folder with this inode whose own place no longer holds
 * it: then the folder on disk is that node, moved. */
static bool
find_moved_folder(struct walk *walk, const struct disk_item *item, struct entry_row *out)
{
	static const char SQL_BY_INODE[] =
	    "SELECT node, name, kind, root, blob, size, mode, mtime, device, inode, ctime, stamped, "
	    "seen, restore FROM entry WHERE inode = ?1 AND device = ?2 AND kind = 2";
	sqlite3_stmt *statement = store_statement(&walk->home->store, SQL_BY_INODE);
	bool found = false;

	sqlite3_bind_int64(statement, 1, (int64_t)item->stamp.inode);
	sqlite3_bind_int64(statement, 2, (int64_t)item->stamp.device);
	if (sqlite3_step(statement) == SQLITE_ROW) {
		entry_row_from_statement(walk, statement, out);
		found = !is_claimed(walk, out->node);
	}
	sqlite3_reset(statement);
	return found;
}

/* One step up the working-tree index, for path_from_parents. */
static const char SQL_INDEX_PLACE[] = "SELECT parent, name FROM entry WHERE node = ?1";

static bool
index_step(void *context, struct node_id node, struct node_id *parent, const uint8_t **name,
    size_t *name_length)
{
	struct hearth *home = context;
	sqlite3_stmt *statement = store_statement(&home->store, SQL_INDEX_PLACE);

	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return false;
	memcpy(parent->bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
	*name = sqlite3_column_blob(statement, 1);
	*name_length = (size_t)sqlite3_column_bytes(statement, 1);
	return true;
}

bool
scan_index_path(struct hearth *home, struct node_id node, struct buffer *out)
{
	enum path_end end = path_from_parents(node, index_step, home, out);

	store_statement(&home->store, SQL_INDEX_PLACE);	/* resets it */
	return end == PATH_AT_TOP;
}

/* Whether the index's place of a folder still holds it: by marker, or
 * (without one) by inode. */
static bool
folder_still_there(struct walk *walk, const struct entry_row *row, struct buffer *old_path)
{
	struct stat status;
	struct node_id claimed;
	int fd = walk->home->roots[row->root].fd;

	if (!scan_index_path(walk->home, row->node, old_path))
		return false;
	if (fstatat(fd, (const char *)old_path->data, &status, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISDIR(status.st_mode))
		return false;
	if (identity_read_folder(fd, (const char *)old_path->data, &claimed))
		return node_id_equal(claimed, row->node);
	return (uint64_t)status.st_ino == row->stamp.inode;
}

static int
record_moved_folder(struct walk *walk, const struct disk_item *item, struct node_id parent,
    const char *path, const struct entry_row *moved, const char *old_path, bool has_marker)
{
	struct scan_change *change = add_change(walk, SCAN_MOVED, path);

	fill_from_disk(change, item, parent);
	fill_from_entry(walk, change, moved);
	change->old_path = arena_strdup(&walk->result->arena, old_path);
	change->has_identity = has_marker;
	change->identity = moved->node;
	change->identity_stale = !has_marker;
	remember_claim(walk, moved->node);
	return walk_folder(walk, moved->node, path);
}

/* A folder present on disk, absent from the index here: the node its
 * marker names, moved; else one with its inode, moved; else a new one (a
 * copied marker names a folder still in its place: the copy is new). */
/* Whether the folder at path, new to the walk and matched to row only by
 * its inode (it carries no id), still holds one of the names row's node
 * held. A folder made after another was removed may be given the removed
 * one's inode; it holds none of those names, and is a new folder, not that
 * one moved (else a peer's file added to the removed folder would follow
 * it there). A node that held nothing cannot be told so: taken as moved. */
static int
holds_what_it_held(struct walk *walk, const char *path, const struct entry_row *row,
    bool *holds)
{
	struct entry_row *rows = NULL;
	size_t count = 0, capacity = 0;
	struct buffer child;
	struct stat status;

	int failed = load_entries(walk, row->node, &rows, &count, &capacity);
	*holds = count == 0;
	buffer_init(&child);
	for (size_t i = 0; failed == 0 && !*holds && i < count; i++) {
		child_path(&child, path, rows[i].name);
		*holds = fstatat(walk->home->roots[rows[i].root].fd, (const char *)child.data, &status,
		    AT_SYMLINK_NOFOLLOW) == 0;
	}
	buffer_free(&child);
	free(rows);
	return failed;
}

static int
handle_new_folder(struct walk *walk, const struct disk_item *item, struct node_id parent,
    const char *path)
{
	struct entry_row moved;
	struct buffer old_path;
	struct node_id claimed;
	bool has_marker = identity_read_folder(walk->home->roots[item->root].fd, path, &claimed);
	int status = -2;

	buffer_init(&old_path);
	if (has_marker && load_entry_by_node(walk, claimed, &moved) && moved.kind == NODE_DIR &&
	    !is_claimed(walk, moved.node) && !folder_still_there(walk, &moved, &old_path))
		status = record_moved_folder(walk, item, parent, path, &moved,
		    (const char *)old_path.data, true);
	else if (!has_marker && find_moved_folder(walk, item, &moved) &&
	    !folder_still_there(walk, &moved, &old_path)) {
		bool holds;
		int failed = holds_what_it_held(walk, path, &moved, &holds);
		if (failed != 0 || holds)
			status = failed != 0 ? failed : record_moved_folder(walk, item, parent, path,
			    &moved, (const char *)old_path.data, false);
	}
	buffer_free(&old_path);
	if (status != -2)
		return status;
	struct scan_change *change = add_change(walk, SCAN_ADDED, path);
	fill_from_disk(change, item, parent);
	change->node = home_new_node_id();
	change->has_identity = has_marker;
	change->identity = claimed;
	change->identity_stale = true;
	return walk_folder(walk, change->node, path);
}

static void
handle_new_file(struct walk *walk, const struct disk_item *item, struct node_id parent,
    const char *path)
{
	struct scan_change *change = add_change(walk, SCAN_ADDED, path);
	fill_from_disk(change, item, parent);
	change->node = home_new_node_id();
	change->needs_content = true;
	change->content_changed = true;
	change->identity_stale = item->kind == NODE_FILE;
	if (item->kind == NODE_FILE)
		change->has_identity = identity_read_file(walk->home->roots[item->root].fd, path,
		    &change->identity);
}

/* Whether the folder on disk at an index row's path is that row's node:
 * its marker says so (or names another), else its inode; another inode
 * without a marker is a folder made again there, or another one. */
enum folder_match { FOLDER_IS_NODE, FOLDER_IS_OTHER, FOLDER_UNSURE };

static enum folder_match
folder_match(struct walk *walk, const struct disk_item *item, const struct entry_row *row,
    const char *path)
{
	struct node_id claimed;

	if (item->stamp.inode == row->stamp.inode && item->stamp.device == row->stamp.device)
		return FOLDER_IS_NODE;
	if (identity_read_folder(walk->home->roots[item->root].fd, path, &claimed))
		return node_id_equal(claimed, row->node) ? FOLDER_IS_NODE : FOLDER_IS_OTHER;
	return FOLDER_UNSURE;
}

/* A folder the index holds here, on disk here: walked as its node. */
static int
walk_same_folder(struct walk *walk, const struct disk_item *item, const struct entry_row *row,
    struct node_id parent, const char *path)
{
	if (row->restore != 0) {
		struct scan_change *change = add_change(walk, SCAN_RESTORE, path);
		fill_from_disk(change, item, parent);
		fill_from_entry(walk, change, row);
	}
	/* In a shallow scan its contents are listed only if it is itself one
	 * of the folders. */
	if (walk->shallow && walk->depth == 1)
		return 0;
	return walk_folder(walk, row->node, path);
}

static void
defer_folder(struct walk *walk, const struct disk_item *item, const struct entry_row *row,
    struct node_id parent, const char *path)
{
	walk->deferred = array_grow(walk->deferred, &walk->deferred_capacity,
	    walk->deferred_count + 1, sizeof *walk->deferred);
	struct deferred *later = &walk->deferred[walk->deferred_count++];
	later->item = *item;
	later->row = *row;
	later->parent = parent;
	later->path = arena_strdup(&walk->result->arena, path);
	later->depth = walk->depth;
}

/* The deferred folders, in turn (walking one may defer more): a node
 * moved elsewhere left its place to a new folder; else the folder there
 * is the node, made again. */
static int
settle_folders(struct walk *walk)
{
	int status = 0;

	for (size_t i = 0; status == 0 && i < walk->deferred_count; i++) {
		struct deferred later = walk->deferred[i];
		int depth = walk->depth;
		walk->depth = later.depth;
		if (is_claimed(walk, later.row.node))
			status = handle_new_folder(walk, &later.item, later.parent, later.path);
		else
			status = walk_same_folder(walk, &later.item, &later.row, later.parent,
			    later.path);
		walk->depth = depth;
	}
	return status;
}

static int
handle_both(struct walk *walk, const struct disk_item *item, const struct entry_row *row,
    struct node_id parent, const char *path)
{
	if (item->kind != row->kind) {
		/* A file replaced by a folder (or a link...): the old node goes,
		 * a new one comes; they are different things. */
		remember_missing(walk, row, path);
		if (item->kind == NODE_DIR)
			return handle_new_folder(walk, item, parent, path);
		handle_new_file(walk, item, parent, path);
		return 0;
	}
	if (item->kind == NODE_DIR) {
		switch (folder_match(walk, item, row, path)) {
		case FOLDER_IS_NODE:
			return walk_same_folder(walk, item, row, parent, path);
		case FOLDER_IS_OTHER:
			/* Another folder took the place: the node moved or went. */
			if (!is_claimed(walk, row->node))
				remember_missing(walk, row, path);
			return handle_new_folder(walk, item, parent, path);
		case FOLDER_UNSURE:
			defer_folder(walk, item, row, parent, path);
			return 0;
		}
	}
	compare_file(walk, item, row, parent, path);
	return 0;
}

/* A recorded path now past PATH_MAX (a folder above it renamed longer or
 * moved deeper): a replica could not write it, so record refuses, and its
 * note says why. */
static void
recorded_too_long(struct walk *walk, int root, const char *path)
{
	struct scan_result *result = walk->result;

	if (result->recorded_too_long == NULL)
		result->recorded_too_long = arena_strdup(&result->arena, path);
	for (size_t i = 0; i < result->left_out_count; i++)
		if (result->left_out[i].root == root && strcmp(result->left_out[i].path, path) == 0)
			result->left_out[i].why = arena_strdup(&result->arena, TOO_LONG_RECORDED);
}

static int
join_folder(struct walk *walk, struct node_id node, const char *folder_path,
    struct disk_item *items, size_t item_count, struct entry_row *rows, size_t row_count,
    bool partial)
{
	size_t i = 0, j = 0;
	struct buffer path;
	int status = 0;

	buffer_init(&path);
	while (status == 0 && (i < item_count || j < row_count)) {
		int order;
		if (i == item_count)
			order = 1;
		else if (j == row_count)
			order = -1;
		else
			order = compare_places(items[i].name, items[i].kind, items[i].root, rows[j].name,
			    rows[j].kind, rows[j].root);
		child_path(&path, folder_path, order <= 0 ? items[i].name : rows[j].name);
		const char *child = (const char *)path.data;
		bool report = in_scope(walk, child);
		walk->result->entries_seen++;
		report_progress(walk, child);

		if (order <= 0 && items[i].too_long) {
			/* Said once when listed; the index row there is kept. */
			if (order == 0)
				recorded_too_long(walk, items[i].root, child);
			i++;
			j += order == 0;
		} else if (order == 0) {
			if (leads_to_scope(walk, child))
				status = report ? handle_both(walk, &items[i], &rows[j], node, child)
						: (items[i].kind == NODE_DIR && rows[j].kind == NODE_DIR
							  ? walk_folder(walk, rows[j].node, child)
							  : 0);
			i++, j++;
		} else if (order < 0) {
			/* A new folder on the way to a path in scope is recorded too:
			 * what is inside needs a parent. */
			if (items[i].kind == NODE_DIR && leads_to_scope(walk, child))
				status = handle_new_folder(walk, &items[i], node, child);
			else if (report)
				handle_new_file(walk, &items[i], node, child);
			i++;
		} else {
			if (report && !partial && !is_claimed(walk, rows[j].node))
				remember_missing(walk, &rows[j], child);
			j++;
		}
		if (status == 0 && cancelled(walk))
			status = hearth_fail(walk->error, HEARTH_CANCELLED, "cancelled");
	}
	buffer_free(&path);
	return status;
}

/* Both sides of one folder, each sorted in join order: what every root
 * holds there (a folder in several roots once, its first) and the index
 * rows of node. The caller frees both arrays. */
static int
read_folder(struct walk *walk, struct node_id node, const char *folder_path,
    struct disk_item **items, size_t *item_count, struct entry_row **rows, size_t *row_count,
    struct scan_root_stamp *folders)
{
	size_t item_capacity = 0, row_capacity = 0;
	int status = 0;

	*items = NULL;
	*rows = NULL;
	*item_count = *row_count = 0;
	size_t root_count = walk->home->root_count;
	struct scan_listing *listings = array_alloc(root_count, sizeof *listings);
	bool listed_ahead = walk->prefetch != NULL && folders == NULL &&
	    scan_prefetch_take(walk->prefetch, folder_path, listings);
	if (!listed_ahead && walk->dirents == NULL)
		walk->dirents = array_alloc(SCAN_DIRENT_BUFFER, 1);
	struct listed_folder folder = { .path = folder_path, .path_length = strlen(folder_path) };
	ignore_folder_open(walk->home->ignore, folder_path, &folder.ignore);
	for (size_t root = 0; root < root_count; root++) {
		bool listed = listed_ahead || status == 0;
		if (!listed_ahead && listed)
			scan_listing_read(walk->home->roots[root].fd, folder_path, walk->dirents,
			    &listings[root]);
		if (status == 0)
			status = list_root_folder(walk, (int)root, &folder, &listings[root], items,
			    item_count, &item_capacity, folders ? &folders[root] : NULL);
		if (listed)
			scan_listing_free(&listings[root]);
	}
	ignore_folder_close(&folder.ignore);
	free(listings);
	if (status == 0)
		status = load_entries(walk, node, rows, row_count, &row_capacity);
	if (status != 0)
		return status;
	/* entry_listing gives them in this order already; an index from
	 * another SQLite could differ, so it is checked, not assumed. */
	if (*row_count > 1 && !rows_in_order(*rows, *row_count))
		qsort(*rows, *row_count, sizeof **rows, compare_entry_rows);
	if (*item_count > 1)
		qsort(*items, *item_count, sizeof **items, compare_disk_items);
	/* A folder in several roots is one folder: keep its first. */
	size_t kept = 0;
	for (size_t i = 0; i < *item_count; i++) {
		struct disk_item *item = &(*items)[i];
		if (kept > 0 && item->kind == NODE_DIR && (*items)[kept - 1].kind == NODE_DIR &&
		    strcmp((*items)[kept - 1].name, item->name) == 0)
			continue;
		(*items)[kept++] = *item;
	}
	*item_count = kept;
	return 0;
}

/* The folders in items, which the walk goes into next in this order,
 * listed ahead of it. */
static void
ask_ahead(struct walk *walk, const char *folder_path, const struct disk_item *items,
    size_t item_count)
{
	const char **names = array_alloc(item_count + 1, sizeof *names);
	size_t count = 0;

	for (size_t i = 0; i < item_count; i++)
		if (items[i].kind == NODE_DIR && !items[i].too_long)
			names[count++] = items[i].name;
	scan_prefetch_ask(walk->prefetch, folder_path, names, count);
	free(names);
}

static int
walk_folder(struct walk *walk, struct node_id node, const char *folder_path)
{
	struct disk_item *items;
	struct entry_row *rows;
	size_t item_count, row_count;

	walk->depth++;
	walk->partial = false;
	int status = read_folder(walk, node, folder_path, &items, &item_count, &rows, &row_count,
	    NULL);
	bool partial = walk->partial;
	if (status == 0 && walk->prefetch != NULL)
		ask_ahead(walk, folder_path, items, item_count);
	if (status == 0)
		status = join_folder(walk, node, folder_path, items, item_count, rows, row_count,
		    partial);
	free(items);
	free(rows);
	walk->depth--;
	return status;
}

/* ---- after the walk: what vanished ------------------------------------------------ */

/* Adds the index rows below a vanished folder to the missing list. */
static int
expand_missing_folder(struct walk *walk, struct node_id node, const char *path)
{
	struct entry_row *rows = NULL;
	size_t count = 0, capacity = 0;
	struct buffer child;
	int status = load_entries(walk, node, &rows, &count, &capacity);

	buffer_init(&child);
	for (size_t i = 0; status == 0 && i < count; i++) {
		if (is_claimed(walk, rows[i].node))
			continue;
		child_path(&child, path, rows[i].name);
		remember_missing(walk, &rows[i], (const char *)child.data);
		if (rows[i].kind == NODE_DIR)
			status = expand_missing_folder(walk, rows[i].node,
			    walk->missing[walk->missing_count - 1].path);
	}
	buffer_free(&child);
	free(rows);
	return status;
}

/* A vanished file whose inode and mtime turn up at a new path moved there
 * (rename keeps both; an edit changes mtime, and then it is a delete and
 * an add: identity is never guessed from content). */
static void
claim_move(struct scan_change *added, struct missing *missing)
{
	missing->claimed = true;
	added->kind = SCAN_MOVED;
	added->old_path = missing->path;
	added->old_root = missing->root;
	added->node = missing->node;
	added->has_entry = true;
}

/* A vanished file whose id an appeared one carries moved there, whatever
 * else changed (across devices and roots too). */
static void
match_by_identity(struct walk *walk)
{
	struct scan_result *result = walk->result;

	for (size_t i = 0; i < result->count; i++) {
		struct scan_change *added = &result->changes[i];
		if (added->kind != SCAN_ADDED || !added->has_identity || added->node_kind == NODE_DIR)
			continue;
		for (size_t j = 0; j < walk->missing_count; j++) {
			struct missing *missing = &walk->missing[j];
			if (missing->claimed || missing->kind != added->node_kind ||
			    !node_id_equal(missing->node, added->identity))
				continue;
			claim_move(added, missing);
			added->identity_stale = false;
			/* Same bytes? Only its stamp can say without reading. */
			added->needs_content = missing->mtime_ns != added->stamp.mtime_ns ||
			    missing->inode != added->stamp.inode;
			added->content_changed = false;
			break;
		}
	}
}

static void
match_moved_files(struct walk *walk)
{
	struct scan_result *result = walk->result;

	match_by_identity(walk);
	for (size_t i = 0; i < result->count; i++) {
		struct scan_change *added = &result->changes[i];
		if (added->kind != SCAN_ADDED || added->node_kind == NODE_DIR)
			continue;
		for (size_t j = 0; j < walk->missing_count; j++) {
			struct missing *missing = &walk->missing[j];
			if (missing->claimed || missing->kind != added->node_kind ||
			    missing->inode != added->stamp.inode ||
			    missing->device != added->stamp.device ||
			    missing->mtime_ns != added->stamp.mtime_ns)
				continue;
			claim_move(added, missing);
			added->needs_content = false;
			added->content_changed = false;
			added->identity_stale = !added->has_identity;
			break;
		}
	}
}

/* Fills the index side of moved files (their seen sets and old blobs). */
static int
load_entry_side(struct walk *walk, struct scan_change *change)
{
	static const char SQL_ENTRY[] =
	    "SELECT node, name, kind, root, blob, size, mode, mtime, device, inode, ctime, stamped, "
	    "seen, restore FROM entry WHERE node = ?1";
	sqlite3_stmt *statement = store_statement(&walk->home->store, SQL_ENTRY);
	struct entry_row row;

	sqlite3_bind_blob(statement, 1, change->node.bytes, ID_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return hearth_fail(walk->error, HEARTH_FAILED, "index row for %s vanished",
		    change->path);
	entry_row_from_statement(walk, statement, &row);
	sqlite3_reset(statement);
	fill_from_entry(walk, change, &row);
	change->blob = row.blob;
	change->mode_changed = change->node_kind == NODE_FILE &&
	    (change->stamp.mode & 0777) != (row.stamp.mode & 0777);
	return 0;
}

static int
record_deletions(struct walk *walk)
{
	/* Folders first expand to their contents, so a file moved out of a
	 * deleted folder can still be matched. */
	size_t initial = walk->missing_count;
	for (size_t i = 0; i < initial; i++) {
		/* A folder that moved was walked where it is now. */
		if (walk->missing[i].kind == NODE_DIR && !walk->missing[i].claimed &&
		    !is_claimed(walk, walk->missing[i].node)) {
			int status = expand_missing_folder(walk, walk->missing[i].node,
			    walk->missing[i].path);
			if (status != 0)
				return status;
		}
	}
	match_moved_files(walk);
	for (size_t i = 0; i < walk->result->count; i++) {
		struct scan_change *change = &walk->result->changes[i];
		if (change->kind == SCAN_MOVED && change->node_kind != NODE_DIR && change->seen == NULL) {
			int status = load_entry_side(walk, change);
			if (status != 0)
				return status;
		}
	}
	for (size_t i = 0; i < walk->missing_count; i++) {
		struct missing *missing = &walk->missing[i];
		if (missing->claimed || is_claimed(walk, missing->node))
			continue;
		struct scan_change *change = add_change(walk, SCAN_DELETED, missing->path);
		change->node = missing->node;
		change->node_kind = missing->kind;
		change->parent = NODE_TRASH;
		if (load_entry_side(walk, change) != 0)
			return walk->error->code;
	}
	return 0;
}

/* Nodes a checkout of an older version left out of the tree: a record
 * deletes them from head (the restore). */
static int
record_absent_restores(struct walk *walk)
{
	/* "restore != 0" lets the planner take the partial index
	 * entry_restoring, which "restore = 2" alone does not imply. */
	static const char SQL_ABSENT[] =
	    "SELECT node, name, kind, root, blob, size, mode, mtime, device, inode, ctime, stamped, "
	    "seen, restore FROM entry WHERE restore != 0 AND restore = 2";
	sqlite3_stmt *statement = store_statement(&walk->home->store, SQL_ABSENT);
	int step;

	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct entry_row row;
		entry_row_from_statement(walk, statement, &row);
		struct scan_change *change = add_change(walk, SCAN_RESTORE, row.name);
		fill_from_entry(walk, change, &row);
		change->node_kind = row.kind;
		change->parent = NODE_TRASH;
	}
	return step == SQLITE_DONE ? 0 : hearth_fail(walk->error, HEARTH_FAILED,
	    "cannot read the index: %s", sqlite3_errmsg(walk->home->store.db));
}

static int
compare_changes(const void *a, const void *b)
{
	const struct scan_change *x = a, *y = b;
	return strcmp(x->path, y->path);
}

/* After the folders are walked: what vanished (and moved), restores when
 * asked, then the changes sorted by path with their roots' names. */
static int
finish_walk(struct walk *walk, bool restores, int status)
{
	struct scan_result *out = walk->result;
	struct hearth *home = walk->home;

	if (status == 0)
		status = record_deletions(walk);
	if (status == 0 && restores)
		status = record_absent_restores(walk);
	buffer_free(&walk->path);
	free(walk->dirents);
	free(walk->missing);
	free(walk->claimed);
	free(walk->deferred);
	if (status != 0) {
		scan_result_free(out);
		return status;
	}
	if (out->count > 1)
		qsort(out->changes, out->count, sizeof *out->changes, compare_changes);
	for (size_t i = 0; i < out->count; i++) {
		struct scan_change *change = &out->changes[i];
		change->root_name = home->roots[change->root].name;
		if (change->old_root >= 0 && (size_t)change->old_root < home->root_count)
			change->old_root_name = home->roots[change->old_root].name;
	}
	return 0;
}

int
scan_tree(struct hearth *home, const char *const *paths, size_t path_count,
    const struct hearth_progress *progress, struct scan_result *out, struct hearth_error *error)
{
	struct walk walk = {
		.home = home, .paths = paths, .path_count = path_count, .progress = progress,
		.result = out, .error = error,
	};

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 256 * 1024);
	if (home_require_roots(home, error) != 0)
		return error->code;
	buffer_init(&walk.path);
	/* A whole walk lists its folders ahead on the other core; one limited
	 * to paths reads too few for it to pay. */
	if (path_count == 0)
		walk.prefetch = scan_prefetch_start(home);
	int status = walk_folder(&walk, NODE_ROOT, "");
	if (status == 0)
		status = settle_folders(&walk);
	scan_prefetch_stop(walk.prefetch);
	walk.prefetch = NULL;
	return finish_walk(&walk, path_count == 0, status);
}

/* Whether a folder scan_folders listed by its index node was not that
 * node: another folder holds its path, or the node was found moved. Then
 * what its listing said is wrong, and only a whole walk can tell. */
static bool
listed_elsewhere(struct walk *walk, const struct scan_folder *folder)
{
	struct entry_row row;
	struct stat status;
	struct node_id claimed;

	if (node_id_equal(folder->node, NODE_ROOT))
		return false;
	if (is_claimed(walk, folder->node))
		return true;
	if (!load_entry_by_node(walk, folder->node, &row) || row.kind != NODE_DIR)
		return false;
	int fd = walk->home->roots[row.root].fd;
	if (fstatat(fd, folder->path, &status, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	return identity_read_folder(fd, folder->path, &claimed) &&
	    !node_id_equal(claimed, folder->node);
}

int
scan_folders(struct hearth *home, const struct scan_folder *folders, size_t count,
    const struct hearth_progress *progress, struct scan_result *out, struct hearth_error *error)
{
	struct walk walk = {
		.home = home, .progress = progress, .result = out, .error = error, .shallow = true,
	};

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 64 * 1024);
	if (home_require_roots(home, error) != 0)
		return error->code;
	buffer_init(&walk.path);
	int status = 0;
	for (size_t i = 0; status == 0 && i < count; i++)
		status = walk_folder(&walk, folders[i].node, folders[i].path);
	if (status == 0)
		status = settle_folders(&walk);
	bool whole = false;
	for (size_t i = 0; status == 0 && !whole && i < count; i++)
		whole = listed_elsewhere(&walk, &folders[i]);
	out->folders_listed = count;
	status = finish_walk(&walk, false, status);
	if (status != 0 || !whole)
		return status;
	scan_result_free(out);
	return scan_tree(home, NULL, 0, progress, out, error);
}

/* ---- one folder against the index, for the reconcile ------------------------------ */

/* Whether a file's stamp on disk is the index's, mode included: what tells
 * it unchanged once the stamp was taken long enough after the last write. */
static bool
stamps_agree(enum node_kind kind, const struct scan_stamp *disk, const struct scan_stamp *known)
{
	if (disk->size != known->size || disk->mtime_ns != known->mtime_ns ||
	    disk->ctime_ns != known->ctime_ns || disk->inode != known->inode ||
	    disk->device != known->device)
		return false;
	return kind != NODE_FILE || (disk->mode & 0777) == (known->mode & 0777);
}

/* Whether a file's stamp on disk tells it unchanged, by the rule of
 * compare_file: the same stamp, taken long enough after the last write. */
static bool
stamp_trusted(const struct disk_item *item, const struct entry_row *row)
{
	return stamps_agree(item->kind, &item->stamp, &row->stamp) &&
	    !scan_stamp_is_racy(item->stamp.mtime_ns, row->stamped);
}

bool
scan_entry_unchanged(struct hearth *home, int root, const char *path,
    const struct scan_entry_row *row)
{
	struct stat status;
	struct scan_stamp disk;

	if (fstatat(home->roots[root].fd, path, &status, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	enum node_kind kind = S_ISDIR(status.st_mode) ? NODE_DIR : S_ISREG(status.st_mode) ? NODE_FILE
	    : S_ISLNK(status.st_mode) ? NODE_SYMLINK : 0;
	stamp_from_stat(&status, &disk);
	if (kind != row->kind || disk.device != row->stamp.device || disk.inode != row->stamp.inode)
		return false;
	if (kind == NODE_DIR)
		return true;
	if (!stamps_agree(kind, &disk, &row->stamp) || row->blob == NULL)
		return false;
	if (!scan_stamp_is_racy(disk.mtime_ns, row->stamped_ns))
		return true;
	/* Too recent to tell by the stamp: the bytes, as compare_file's
	 * caller reads them. */
	struct scan_change change = {
		.kind = SCAN_MODIFIED, .node_kind = kind, .path = path, .root = root,
		.has_entry = true, .old_blob = *row->blob,
	};
	struct hearth_error ignored;
	return scan_hash_content(home, &change, &ignored) == 0 && !change.content_changed;
}

/* Whether the two sorted sides of a folder agree: the same names, kinds
 * and roots, every file's stamp trusted. Folders inside are not entered. */
static bool
folder_sides_differ(const struct disk_item *items, size_t item_count,
    const struct entry_row *rows, size_t row_count)
{
	if (item_count != row_count)
		return true;
	for (size_t i = 0; i < item_count; i++) {
		if (compare_places(items[i].name, items[i].kind, items[i].root, rows[i].name,
			rows[i].kind, rows[i].root) != 0 || items[i].kind != rows[i].kind)
			return true;
		if (items[i].kind != NODE_DIR && !stamp_trusted(&items[i], &rows[i]))
			return true;
	}
	return false;
}

int
scan_check_folder(struct hearth *home, struct node_id node, const char *path,
    struct scan_folder_check *out, struct hearth_error *error)
{
	struct scan_result scratch;
	struct walk walk = { .home = home, .result = &scratch, .error = error };
	struct disk_item *items;
	struct entry_row *rows;
	size_t item_count, row_count;

	memset(&scratch, 0, sizeof scratch);
	arena_init(&scratch.arena, 16 * 1024);
	buffer_init(&walk.path);
	for (size_t root = 0; root < home->root_count; root++)
		out->roots[root].present = false;
	int status = read_folder(&walk, node, path, &items, &item_count, &rows, &row_count,
	    out->roots);
	if (status == 0) {
		out->present = false;
		for (size_t root = 0; root < home->root_count; root++)
			out->present |= out->roots[root].present;
		out->items = item_count;
		out->differs = !out->present || folder_sides_differ(items, item_count, rows, row_count);
		free(items);
		free(rows);
	}
	buffer_free(&walk.path);
	free(walk.dirents);
	arena_free(&scratch.arena);
	return status;
}

uint64_t
scan_entry_count(struct hearth *home)
{
	return store_scalar(&home->store, "SELECT count(*) FROM entry");
}

uint64_t
scan_restore_count(struct hearth *home)
{
	return store_scalar(&home->store, "SELECT count(*) FROM entry WHERE restore != 0");
}

void
scan_result_free(struct scan_result *result)
{
	free(result->changes);
	result->changes = NULL;
	result->count = result->capacity = 0;
	free(result->left_out);
	result->left_out = NULL;
	result->left_out_count = result->left_out_capacity = 0;
	arena_free(&result->arena);
}

int
scan_hash_content(struct hearth *home, struct scan_change *change, struct hearth_error *error)
{
	const struct home_root *root = &home->roots[change->root];

	if (change->node_kind == NODE_SYMLINK) {
		struct arena scratch;
		char *target;
		size_t length;
		arena_init(&scratch, 4096);
		if (scan_read_link(root->fd, change->path, &scratch, &target, &length) != 0) {
			arena_free(&scratch);
			return hearth_fail_errno(error, "cannot read link %s/%s", root->path,
			    change->path);
		}
		hash_bytes(target, length, &change->blob);
		change->stamp.size = length;
		arena_free(&scratch);
	} else {
		int fd = scan_open_file(root->fd, change->path);
		uint64_t size;
		if (fd == SCAN_NOT_A_FILE)
			return hearth_fail(error, HEARTH_FAILED, "%s/%s is no longer a file (it "
			    "changed while being read); try again", root->path, change->path);
		if (fd < 0)
			return hearth_fail_errno(error, "cannot read %s/%s", root->path, change->path);
		int status = content_hash_fd(fd, &change->blob, &size, error);
		close(fd);
		if (status != 0)
			return hearth_fail(error, HEARTH_FAILED, "%s/%s: %s", root->path, change->path,
			    error->message);
	}
	change->needs_content = false;
	change->content_changed = !change->has_entry || !hash_equal(&change->blob, &change->old_blob);
	if (change->kind == SCAN_MODIFIED && !change->content_changed && !change->mode_changed)
		change->kind = change->restore ? SCAN_RESTORE : SCAN_STAMP;
	return 0;
}

int
scan_settle_content(struct hearth *home, struct scan_result *scan,
    const struct hearth_progress *progress, struct hearth_error *error)
{
	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *change = &scan->changes[i];
		/* Added files are added whatever their bytes: no need to read. */
		if (!change->needs_content || change->kind == SCAN_ADDED)
			continue;
		if (progress != NULL && progress->cancel != NULL && atomic_load(progress->cancel))
			return hearth_fail(error, HEARTH_CANCELLED, "cancelled");
		if (scan_hash_content(home, change, error) != 0)
			return error->code;
	}
	return 0;
}

static enum hearth_change_kind
public_kind(const struct scan_change *change)
{
	switch (change->kind) {
	case SCAN_ADDED:
		return HEARTH_ADDED;
	case SCAN_DELETED:
		return HEARTH_DELETED;
	case SCAN_MOVED:
		return HEARTH_MOVED;
	default:
		return HEARTH_MODIFIED;
	}
}

static bool
listed(const struct scan_change *change, bool restores)
{
	if (change->adopted && (change->kind == SCAN_DELETED || change->kind == SCAN_RESTORE))
		return false;
	return change->kind != SCAN_STAMP && (restores || change->kind != SCAN_RESTORE);
}

void
scan_to_change_list(const struct scan_result *result, bool restores,
    struct hearth_change_list *out)
{
	size_t count = 0;

	memset(out, 0, sizeof *out);
	out->storage = storage_new();
	for (size_t i = 0; i < result->count; i++)
		count += listed(&result->changes[i], restores);
	out->items = storage_alloc(out->storage, (count ? count : 1) * sizeof *out->items);
	for (size_t i = 0; i < result->count; i++) {
		const struct scan_change *change = &result->changes[i];
		if (!listed(change, restores))
			continue;
		struct hearth_change *item = &out->items[out->count++];
		memset(item, 0, sizeof *item);
		item->kind = change->kind == SCAN_RESTORE && change->restore == 2 ? HEARTH_DELETED
		    : public_kind(change);
		item->entry_kind = (enum hearth_entry_kind)change->node_kind;
		item->path = storage_strdup(out->storage, change->path);
		if (change->old_path != NULL)
			item->old_path = storage_strdup(out->storage, change->old_path);
		item->content_changed = change->content_changed || change->mode_changed;
		item->size = change->stamp.size;
		item->root = change->root_name;
		item->old_root = change->old_root_name;
	}
}

void
scan_to_note_list(const struct scan_result *result, struct hearth_note_list *out)
{
	memset(out, 0, sizeof *out);
	out->storage = storage_new();
	size_t count = result->left_out_count;
	out->items = storage_alloc(out->storage, (count ? count : 1) * sizeof *out->items);
	for (size_t i = 0; i < count; i++) {
		const struct scan_left_out *item = &result->left_out[i];
		size_t size = strlen(item->path) * 4 + strlen(item->why) + 8;
		char *line = storage_alloc(out->storage, size);
		size_t used = hearth_escape_name(item->path, line, size);
		snprintf(line + used, size - used, ": %s", item->why);
		out->items[out->count++] = line;
	}
}

int
scan_stat_path(int root_fd, const char *relative_path, struct stat *out)
{
	const char *leaf;
	int folder_fd = scan_open_parent(root_fd, relative_path, &leaf);

	if (folder_fd < 0)
		return -1;
	int status = fstatat(folder_fd, leaf, out, AT_SYMLINK_NOFOLLOW);
	close(folder_fd);
	return status;
}

int
hearth_disk_stamp(hearth *home, const char *path, const char *root, uint64_t *size,
    __int128 *mtime_ns)
{
	struct stat status;
	const struct home_root *named = root != NULL ? home_root_named(home, root) : NULL;

	for (size_t i = 0; i <= home->root_count; i++) {
		const struct home_root *at = i == 0 ? named : &home->roots[i - 1];
		if (at == NULL || (i > 0 && at == named) || scan_stat_path(at->fd, path, &status) != 0)
			continue;
		*size = (uint64_t)status.st_size;
		*mtime_ns = (__int128)status.st_mtim.tv_sec * 1000000000 + status.st_mtim.tv_nsec;
		return 1;
	}
	return 0;
}

void
hearth_note_list_free(struct hearth_note_list *list)
{
	storage_free(list->storage);
	memset(list, 0, sizeof *list);
}

void
hearth_change_list_free(struct hearth_change_list *list)
{
	storage_free(list->storage);
	memset(list, 0, sizeof *list);
}

bool
scan_index_lookup(struct hearth *home, const char *path, size_t length, bool folder,
    struct node_id *node)
{
	struct node_id at = NODE_ROOT;

	for (size_t offset = 0; offset < length;) {
		size_t part = 0;
		while (offset + part < length && path[offset + part] != '/')
			part++;
		sqlite3_stmt *statement = store_statement(&home->store, folder
		    ? "SELECT node FROM entry WHERE parent = ?1 AND name = ?2 AND kind = 2 LIMIT 1"
		    : "SELECT node FROM entry WHERE parent = ?1 AND name = ?2 LIMIT 1");
		sqlite3_bind_blob(statement, 1, at.bytes, ID_BYTES, SQLITE_TRANSIENT);
		sqlite3_bind_blob(statement, 2, path + offset, (int)part, SQLITE_STATIC);
		bool found = sqlite3_step(statement) == SQLITE_ROW;
		if (found)
			memcpy(at.bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
		sqlite3_reset(statement);
		if (!found)
			return false;
		offset += part + 1;
	}
	*node = at;
	return true;
}

bool
scan_path_known(struct hearth *home, const char *path)
{
	struct stat status;
	struct node_id node;

	if (path[0] == '\0')
		return true;
	for (size_t i = 0; i < home->root_count; i++)
		if (home->roots[i].fd >= 0 && fstatat(home->roots[i].fd, path, &status,
			AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	/* Not on disk: known if the index holds it (a deleted path). */
	return scan_index_lookup(home, path, strlen(path), false, &node);
}

/* ---- rows of the working-tree index ------------------------------------------------- */

static const char SQL_ENTRY_PUT[] =
    "INSERT OR REPLACE INTO entry(node, parent, name, kind, root, blob, size, mode, mtime, "
    "device, inode, ctime, stamped, seen, restore) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "?10, ?11, ?12, ?13, ?14, ?15)";
static const char SQL_ENTRY_DROP[] = "DELETE FROM entry WHERE node = ?1";
static const char SQL_ENTRY_SEEN[] = "UPDATE entry SET seen = ?2, restore = ?3 WHERE node = ?1";
static const char SQL_ENTRY_ALL[] =
    "SELECT node, parent, name, kind, root, blob, mode, restore, seen, size, mtime, device, "
    "inode, ctime, stamped FROM entry ORDER BY node";
/* Answered from the covering index entry_listing, not the wide rows. */
static const char SQL_ENTRY_NAMES[] = "SELECT node, parent, name, kind FROM entry";
/* LIMIT -1 is none. */
static const char SQL_FILES_IN_ROOT[] =
    "SELECT count(*) FROM (SELECT 1 FROM entry WHERE root = ?1 AND kind != 2 AND restore != 2 "
    "LIMIT ?2)";

int
scan_entry_put(struct hearth *home, const struct scan_entry_row *entry)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_ENTRY_PUT);

	sqlite3_bind_blob(statement, 1, entry->node.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, entry->parent.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 3, entry->name, (int)entry->name_length, SQLITE_STATIC);
	sqlite3_bind_int(statement, 4, (int)entry->kind);
	sqlite3_bind_text(statement, 5, entry->root, -1, SQLITE_STATIC);
	if (entry->blob != NULL)
		sqlite3_bind_blob(statement, 6, entry->blob->bytes, HASH_BYTES, SQLITE_STATIC);
	else
		sqlite3_bind_null(statement, 6);
	sqlite3_bind_int64(statement, 7, (int64_t)entry->stamp.size);
	sqlite3_bind_int(statement, 8, (int)entry->stamp.mode);
	store_bind_mtime(statement, 9, entry->stamp.mtime_ns);
	sqlite3_bind_int64(statement, 10, (int64_t)entry->stamp.device);
	sqlite3_bind_int64(statement, 11, (int64_t)entry->stamp.inode);
	sqlite3_bind_int64(statement, 12, entry->stamp.ctime_ns);
	sqlite3_bind_int64(statement, 13, entry->stamped_ns);
	sqlite3_bind_blob(statement, 14, entry->seen, (int)entry->seen_length, SQLITE_STATIC);
	sqlite3_bind_int(statement, 15, entry->restore);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
scan_entry_drop(struct hearth *home, struct node_id node)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_ENTRY_DROP);
	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
scan_entry_set_seen(struct hearth *home, struct node_id node, const void *seen, size_t length,
    int restore)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_ENTRY_SEEN);
	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_blob(statement, 2, seen, (int)length, SQLITE_STATIC);
	sqlite3_bind_int(statement, 3, restore);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

/* The rows sql selects: node, parent, name and kind first, and with whole
 * the rest of SQL_ENTRY_ALL's columns. */
static int
entries_each(struct hearth *home, const char *sql, bool whole,
    int (*visit)(void *context, const struct scan_entry_row *entry), void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, sql);
	int status = 0, step;

	while (status == 0 && (step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct scan_entry_row entry;
		struct hash blob;
		memset(&entry, 0, sizeof entry);
		memcpy(entry.node.bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
		memcpy(entry.parent.bytes, sqlite3_column_blob(statement, 1), ID_BYTES);
		entry.name = sqlite3_column_blob(statement, 2);
		entry.name_length = (size_t)sqlite3_column_bytes(statement, 2);
		entry.kind = (enum node_kind)sqlite3_column_int(statement, 3);
		if (whole) {
			entry.root = (const char *)sqlite3_column_text(statement, 4);
			if (sqlite3_column_bytes(statement, 5) == HASH_BYTES) {
				memcpy(blob.bytes, sqlite3_column_blob(statement, 5), HASH_BYTES);
				entry.blob = &blob;
			}
			entry.stamp.mode = (uint32_t)sqlite3_column_int(statement, 6);
			entry.restore = sqlite3_column_int(statement, 7);
			entry.seen = sqlite3_column_blob(statement, 8);
			entry.seen_length = (size_t)sqlite3_column_bytes(statement, 8);
			entry.stamp.size = (uint64_t)sqlite3_column_int64(statement, 9);
			entry.stamp.mtime_ns = store_column_mtime(statement, 10);
			entry.stamp.device = (uint64_t)sqlite3_column_int64(statement, 11);
			entry.stamp.inode = (uint64_t)sqlite3_column_int64(statement, 12);
			entry.stamp.ctime_ns = sqlite3_column_int64(statement, 13);
			entry.stamped_ns = sqlite3_column_int64(statement, 14);
		}
		status = visit(context, &entry);
	}
	sqlite3_reset(statement);
	return status != 0 ? status : step == SQLITE_DONE ? 0 : -1;
}

int
scan_entries_each(struct hearth *home,
    int (*visit)(void *context, const struct scan_entry_row *entry), void *context)
{
	return entries_each(home, SQL_ENTRY_ALL, true, visit, context);
}

int
scan_index_names_each(struct hearth *home,
    int (*visit)(void *context, const struct scan_entry_row *entry), void *context)
{
	return entries_each(home, SQL_ENTRY_NAMES, false, visit, context);
}

uint64_t
scan_entry_files_in_root(struct hearth *home, const char *root, uint64_t at_most)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_FILES_IN_ROOT);
	uint64_t files = 0;

	sqlite3_bind_text(statement, 1, root, -1, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, at_most == 0 || at_most > INT64_MAX ? -1 : (int64_t)at_most);
	if (sqlite3_step(statement) == SQLITE_ROW)
		files = (uint64_t)sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);
	return files;
}

/* The table's own order (entry is keyed by node): a scan, no sort. */
static const char SQL_NODES_ON_DISK[] = "SELECT node FROM entry WHERE restore = 0 ORDER BY node";

int
scan_entry_each_on_disk(struct hearth *home,
    int (*visit)(void *context, const void *node, size_t length), void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NODES_ON_DISK);
	int status = 0, step = SQLITE_DONE;

	while (status == 0 && (step = sqlite3_step(statement)) == SQLITE_ROW)
		status = visit(context, sqlite3_column_blob(statement, 0),
		    (size_t)sqlite3_column_bytes(statement, 0));
	sqlite3_reset(statement);
	return status != 0 ? status : step == SQLITE_DONE ? 0 : -1;
}

static const char SQL_PLACE_ON_DISK[] =
    "SELECT parent, name FROM entry WHERE node = ?1 AND restore != 2";
static const char SQL_FIRST_FOLDER[] =
    "SELECT node, name FROM entry WHERE parent = ?1 AND kind = 2 ORDER BY name LIMIT 1";
static const char SQL_NEXT_FOLDER[] =
    "SELECT node, name FROM entry WHERE parent = ?1 AND kind = 2 AND name > ?2 "
    "ORDER BY name LIMIT 1";
static const char SQL_RACY_FOLDERS[] =
    "SELECT DISTINCT parent FROM entry WHERE kind != 2 AND mtime >= stamped - 2000000000";
static const char SQL_RESTORES_WAITING[] = "SELECT 1 FROM entry WHERE restore != 0 LIMIT 1";

/* A row's id (column) and name (column + 1, into name when not NULL). */
static void
read_id_and_name(sqlite3_stmt *statement, int column, struct node_id *id, struct buffer *name)
{
	memset(id->bytes, 0, ID_BYTES);
	if (sqlite3_column_bytes(statement, column) == ID_BYTES)
		memcpy(id->bytes, sqlite3_column_blob(statement, column), ID_BYTES);
	if (name == NULL)
		return;
	buffer_reset(name);
	buffer_append(name, sqlite3_column_blob(statement, column + 1),
	    (size_t)sqlite3_column_bytes(statement, column + 1));
	buffer_string(name);
}

bool
scan_index_place(struct hearth *home, struct node_id node, bool on_disk,
    struct node_id *parent, struct buffer *name)
{
	sqlite3_stmt *statement = store_statement(&home->store,
	    on_disk ? SQL_PLACE_ON_DISK : SQL_INDEX_PLACE);
	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	if (found)
		read_id_and_name(statement, 0, parent, name);
	sqlite3_reset(statement);
	return found;
}

bool
scan_index_folder_after(struct hearth *home, struct node_id parent, const void *after,
    size_t after_length, struct node_id *node, struct buffer *name)
{
	sqlite3_stmt *statement = store_statement(&home->store,
	    after != NULL ? SQL_NEXT_FOLDER : SQL_FIRST_FOLDER);
	sqlite3_bind_blob(statement, 1, parent.bytes, ID_BYTES, SQLITE_TRANSIENT);
	if (after != NULL)
		sqlite3_bind_blob(statement, 2, after, (int)after_length, SQLITE_TRANSIENT);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	if (found)
		read_id_and_name(statement, 0, node, name);
	sqlite3_reset(statement);
	return found;
}

void
scan_index_racy_folders(struct hearth *home, struct node_id **ids, size_t *count,
    size_t *capacity)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_RACY_FOLDERS);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		*ids = array_grow(*ids, capacity, *count + 1, sizeof **ids);
		read_id_and_name(statement, 0, &(*ids)[(*count)++], NULL);
	}
	sqlite3_reset(statement);
}

bool
scan_index_restores_waiting(struct hearth *home)
{
	return store_scalar(&home->store, SQL_RESTORES_WAITING) != 0;
}

static const char SQL_INDEX_CHILD[] =
    "SELECT node, kind FROM entry WHERE parent = ?1 AND name = ?2 ORDER BY kind = 2 DESC LIMIT 1";
static const char SQL_INDEX_PAGE[] =
    "SELECT name, kind, root, size, mtime, mode, node, restore FROM entry "
    "WHERE parent = ?1 AND name > ?2 ORDER BY name LIMIT ?3";
static const char SQL_INDEX_ROOT[] = "SELECT root FROM entry WHERE node = ?1";

int
scan_index_child(struct hearth *home, struct node_id folder, const void *name, size_t length,
    struct node_id *node, enum node_kind *kind)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_INDEX_CHILD);
	sqlite3_bind_blob(statement, 1, folder.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_blob(statement, 2, length ? name : "", (int)length, SQLITE_TRANSIENT);
	int found = sqlite3_step(statement) == SQLITE_ROW;
	if (found) {
		read_id_and_name(statement, 0, node, NULL);
		*kind = (enum node_kind)sqlite3_column_int(statement, 1);
	}
	sqlite3_reset(statement);
	return found;
}

int
scan_index_page(struct hearth *home, struct node_id folder, const char *after, size_t limit,
    int (*visit)(void *context, const struct scan_entry_row *entry), void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_INDEX_PAGE);
	int status = 0, step;

	sqlite3_bind_blob(statement, 1, folder.bytes, ID_BYTES, SQLITE_TRANSIENT);
	/* Always a range on the name, "" (below every name) for the first
	 * page: an optional one ("?2 IS NULL OR") keeps SQLite from seeking,
	 * and a later page would read every name before it. */
	sqlite3_bind_blob(statement, 2, after, (int)strlen(after), SQLITE_STATIC);
	sqlite3_bind_int64(statement, 3, (int64_t)limit);
	while (status == 0 && (step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct scan_entry_row entry = {
			.name = sqlite3_column_blob(statement, 0),
			.name_length = (size_t)sqlite3_column_bytes(statement, 0),
			.kind = (enum node_kind)sqlite3_column_int(statement, 1),
			.root = (const char *)sqlite3_column_text(statement, 2),
			.stamp = {
				.size = (uint64_t)sqlite3_column_int64(statement, 3),
				.mtime_ns = store_column_mtime(statement, 4),
				.mode = (uint32_t)sqlite3_column_int(statement, 5),
			},
			.restore = sqlite3_column_int(statement, 7),
		};
		read_id_and_name(statement, 6, &entry.node, NULL);
		status = visit(context, &entry);
	}
	sqlite3_reset(statement);
	return status != 0 ? status : step == SQLITE_DONE ? 0 : -1;
}

bool
scan_index_root(struct hearth *home, struct node_id node, struct buffer *root)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_INDEX_ROOT);
	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	if (found) {
		buffer_reset(root);
		buffer_append(root, sqlite3_column_text(statement, 0),
		    (size_t)sqlite3_column_bytes(statement, 0));
		buffer_string(root);
	}
	sqlite3_reset(statement);
	return found;
}

static const char SQL_ORPHANS[] =
    "SELECT e.node FROM entry e WHERE e.parent NOT IN (SELECT node FROM entry) "
    "AND e.parent != ?1 AND e.parent != ?2";

int
scan_index_orphans(struct hearth *home, int (*visit)(void *context, struct node_id node),
    void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_ORPHANS);
	int status = 0;

	sqlite3_bind_blob(statement, 1, NODE_ROOT.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, NODE_TRASH.bytes, ID_BYTES, SQLITE_STATIC);
	while (status == 0 && sqlite3_step(statement) == SQLITE_ROW) {
		struct node_id node;
		read_id_and_name(statement, 0, &node, NULL);
		status = visit(context, node);
	}
	sqlite3_reset(statement);
	return status;
}
