/* The observed index and the reconcile that keeps it: stamps of every
 * folder, the folders that differ from the recorded index, and the paged
 * walk, restart check and settling that find them.
 *
 * Design. The entry table stays what it was: the working tree as last
 * recorded or checked out, with each file's stat stamp; record and
 * checkout alone write it, and node ids live only there (so nothing here
 * can change an id). Beside it, at folder grain, the store keeps what the
 * disk holds now:
 *
 *   folder  each folder's stamp (device, inode, mtime, ctime) in each
 *           root, when it was taken and by which walk: the restart check.
 *   dirty   the folders whose contents differ, or may differ, from their
 *           entry rows, each with the seq of its mark; verified once a walk
 *           has listed it and found it different.
 *   meta    dirty_seq (the last mark), the walk's generation, start,
 *           cursor (the last folder done) and whether one is under way,
 *           and reconcile_pages (pages committed so far).
 *
 * A folder not marked holds what its entry rows say: every name, kind and
 * root, and files whose stamps tell them unchanged. So while the marks are
 * complete (a watch saw every change since a walk that began after its
 * watches were in place: watch.c), status and record list only the marked
 * folders, one level deep, walking whole only what is new or moved there
 * (scan_folders), and find exactly what a walk of the whole tree finds.
 * A per-file copy of the disk would double the index for nothing status
 * needs: a folder's listing is cheap, and a new file gets its id when it is
 * recorded, as before.
 *
 * The walk visits the index's folders in name order (pre-order), a page
 * of about RECONCILE_PAGE_ENTRIES listed items per transaction. Each page
 * reads the cursor, lists its folders, writes their stamps and marks and
 * the new cursor, and commits: a walk killed between pages resumes after
 * the last committed folder, and nothing a page did is seen before it
 * commits. At its end, stamps of folders no longer there and marks older
 * than the walk go (every folder was listed after them). A page holds the
 * store's write lock while it lists, so no record commits between its
 * listing and its verdict; a record that commits after a page marks the
 * folders it changed (reconcile_recorded), since the page judged them
 * against the rows before it.
 *
 * The restart check stats only the folders that have stamps: a folder
 * whose stamp moved, or changed within 2 s of when its stamp was taken
 * (racy timestamps, as git treats its index), is marked; so are folders
 * holding files whose own stamps are racy (the index's entry_untrusted),
 * which status then hashes. It cannot see a file edited in place, which
 * changes no folder: the full walk follows it, and until that walk is
 * done no watch calls the index current. */
#include "backend/disk/reconcile.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/disk/scan.h"
#include "backend/disk/watch.h"
#include "model/array.h"
#include "model/buffer.h"

#define SETTLE_BATCH 64

static const char SQL_MARK[] =
    "INSERT OR REPLACE INTO dirty(path, seq, verified) VALUES(?1, ?2, ?3)";
static const char SQL_UNMARK[] = "DELETE FROM dirty WHERE path = ?1";
static const char SQL_STAMP[] =
    "INSERT OR REPLACE INTO folder(path, root, device, inode, mtime, ctime, checked, generation) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

/* ---- small helpers ----------------------------------------------------------------- */

static int64_t
wall_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static size_t
page_limit(void)
{
	const char *text = getenv("HEARTH_RECONCILE_PAGE");
	long value = text ? strtol(text, NULL, 10) : 0;

	return value > 0 ? (size_t)value : RECONCILE_PAGE_ENTRIES;
}

/* Tests: HEARTH_RECONCILE_KILL_AFTER=N kills this process the moment its
 * Nth page has committed, as a crash or kill -9 between pages would. */
static void
maybe_die_after_page(void)
{
	static long committed;
	const char *text = getenv("HEARTH_RECONCILE_KILL_AFTER");

	if (text == NULL || ++committed != strtol(text, NULL, 10))
		return;
	raise(SIGKILL);
}

static int
sql_failed(struct hearth *home, const char *what, struct hearth_error *error)
{
	return hearth_fail(error, HEARTH_FAILED, "%s: %s (%s)", what,
	    sqlite3_errmsg(home->store.db), home->store.path);
}

static int
begin(struct hearth *home, bool wait, bool *busy, struct hearth_error *error)
{
	struct hearth_error failure;

	*busy = false;
	if (!wait) {
		if (store_try_begin(&home->store) == 0)
			return 0;
		*busy = true;
		return 0;
	}
	if (store_begin(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	return 0;
}

static int
commit(struct hearth *home, struct hearth_error *error)
{
	struct hearth_error failure;

	if (store_meta_add_int(&home->store, "reconcile_pages", 1) != 0) {
		store_rollback(&home->store);
		return sql_failed(home, "cannot count the page", error);
	}
	if (store_commit(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	maybe_die_after_page();
	return 0;
}

/* The seq the marks of one transaction carry, taken on first use. */
struct marker_seq {
	bool taken;
	int64_t value;
};

static int64_t
take_seq(struct hearth *home, struct marker_seq *seq)
{
	if (!seq->taken) {
		store_meta_get_int(&home->store, "dirty_seq", &seq->value);
		seq->value++;
		store_meta_set_int(&home->store, "dirty_seq", seq->value);
		seq->taken = true;
	}
	return seq->value;
}

static int
mark(struct hearth *home, const char *path, size_t length, struct marker_seq *seq, bool verified)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_MARK);

	sqlite3_bind_blob(statement, 1, length ? path : "", (int)length, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, take_seq(home, seq));
	sqlite3_bind_int(statement, 3, verified);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

static int
unmark(struct hearth *home, const char *path, size_t length)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_UNMARK);

	sqlite3_bind_blob(statement, 1, length ? path : "", (int)length, SQLITE_STATIC);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

/* ---- folders of the index, by path ---------------------------------------------- */

/* The folder of the index at path (whole), into *node; false if the index
 * has no folder there. */
static bool
index_folder(struct hearth *home, const char *path, size_t length, struct node_id *node)
{
	return scan_index_lookup(home, path, length, true, node);
}

/* Whether some root holds a folder at path (no link followed). */
static bool
folder_on_disk(struct hearth *home, const char *path)
{
	for (size_t i = 0; i < home->root_count; i++) {
		int fd = scan_open_folder(home->roots[i].fd, path);
		if (fd >= 0) {
			close(fd);
			return true;
		}
	}
	return false;
}

/* Moves path (in buffer) up to the nearest folder the index holds and the
 * disk has, and gives its node: what to list for a change at path. */
static void
nearest_listed_folder(struct hearth *home, struct buffer *path, struct node_id *node)
{
	for (;;) {
		const char *text = buffer_string(path);
		if (path->length == 0 || (index_folder(home, text, path->length, node) &&
			folder_on_disk(home, text))) {
			if (path->length == 0)
				*node = NODE_ROOT;
			return;
		}
		const char *slash = memrchr(text, '/', path->length);
		path->length = slash ? (size_t)(slash - text) : 0;
	}
}

/* ---- marks from outside: a watch's events ------------------------------------------- */

int
reconcile_mark(struct hearth *home, char *const *paths, size_t count, bool wait, bool *busy,
    struct hearth_error *error)
{
	struct marker_seq seq = { 0 };

	if (count == 0) {
		*busy = false;
		return 0;
	}
	if (begin(home, wait, busy, error) != 0 || *busy)
		return error->code;
	for (size_t i = 0; i < count; i++) {
		if (mark(home, paths[i], strlen(paths[i]), &seq, false) != 0) {
			store_rollback(&home->store);
			return sql_failed(home, "cannot mark a folder", error);
		}
	}
	struct hearth_error failure;
	if (store_commit(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	return 0;
}

/* ---- the restart check ---------------------------------------------------------------- */

static int
root_number(const struct hearth *home, const char *name)
{
	for (size_t i = 0; i < home->root_count; i++)
		if (strcmp(home->roots[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Whether one folder's stamp in one root (a row of the folder table) no
 * longer tells that nothing was added, removed or renamed in it. */
static bool
stamp_moved(struct hearth *home, sqlite3_stmt *row)
{
	int root = root_number(home, (const char *)sqlite3_column_text(row, 1));
	if (root < 0)
		return false;	/* a root this Home no longer has: nothing to see */
	const char *path = sqlite3_column_blob(row, 0);
	char text[4096];
	size_t length = (size_t)sqlite3_column_bytes(row, 0);
	if (length >= sizeof text)
		return true;
	memcpy(text, path ? path : "", length);
	text[length] = '\0';
	int fd = scan_open_folder(home->roots[root].fd, text);
	struct stat status;
	bool known = fd >= 0 && fstat(fd, &status) == 0;
	if (fd >= 0)
		close(fd);
	if (!known)
		return true;
	int64_t mtime = (int64_t)status.st_mtim.tv_sec * 1000000000LL + status.st_mtim.tv_nsec;
	int64_t ctime = (int64_t)status.st_ctim.tv_sec * 1000000000LL + status.st_ctim.tv_nsec;
	if ((uint64_t)sqlite3_column_int64(row, 2) != (uint64_t)status.st_dev ||
	    (uint64_t)sqlite3_column_int64(row, 3) != (uint64_t)status.st_ino ||
	    sqlite3_column_int64(row, 4) != mtime || sqlite3_column_int64(row, 5) != ctime)
		return true;
	/* Changed within 2 s of the stamp: a change in the same tick leaves
	 * the same mtime, so the stamp proves nothing (docs/DESIGN.md §6). */
	return scan_stamp_is_racy(mtime, sqlite3_column_int64(row, 6));
}

static int
check_stamps(struct hearth *home, struct marker_seq *seq, uint64_t *checked, uint64_t *changed)
{
	sqlite3_stmt *rows = store_statement(&home->store,
	    "SELECT path, root, device, inode, mtime, ctime, checked FROM folder ORDER BY path");
	struct buffer last;
	bool last_marked = false;
	int step, status = 0;

	buffer_init(&last);
	while (status == 0 && (step = sqlite3_step(rows)) == SQLITE_ROW) {
		const void *path = sqlite3_column_blob(rows, 0);
		size_t length = (size_t)sqlite3_column_bytes(rows, 0);
		bool same_folder = last.data != NULL && last.length == length &&
		    memcmp(last.data, path ? path : "", length) == 0;
		if (!same_folder) {
			buffer_reset(&last);
			buffer_append(&last, path ? path : "", length);
			buffer_string(&last);
			last_marked = false;
			(*checked)++;
		}
		if (last_marked || !stamp_moved(home, rows))
			continue;
		last_marked = true;
		(*changed)++;
		status = mark(home, (const char *)last.data, last.length, seq, false);
	}
	sqlite3_reset(rows);
	buffer_free(&last);
	return status;
}

/* Folders holding files whose own stamps are racy: status must read them. */
static int
check_untrusted(struct hearth *home, struct marker_seq *seq)
{
	struct node_id *parents = NULL;
	size_t count = 0, capacity = 0;
	struct buffer path;
	int status = 0;

	scan_index_racy_folders(home, &parents, &count, &capacity);
	buffer_init(&path);
	for (size_t i = 0; status == 0 && i < count; i++) {
		if (!scan_index_path(home, parents[i], &path))
			continue;	/* restores waiting in the trash */
		status = mark(home, (const char *)path.data, path.length, seq, false);
	}
	buffer_free(&path);
	free(parents);
	return status;
}

int
reconcile_check(struct hearth *home, bool wait, bool *busy, uint64_t *checked,
    uint64_t *changed, struct hearth_error *error)
{
	struct marker_seq seq = { 0 };

	*checked = *changed = 0;
	if (home_require_roots(home, error) != 0)
		return error->code;
	if (begin(home, wait, busy, error) != 0 || *busy)
		return error->code;
	if (check_stamps(home, &seq, checked, changed) != 0 ||
	    check_untrusted(home, &seq) != 0) {
		store_rollback(&home->store);
		return sql_failed(home, "cannot check the folders' stamps", error);
	}
	return commit(home, error);
}

/* ---- the walk ------------------------------------------------------------------------ */

/* Where the walk under way stands, as the store keeps it. */
struct walk_state {
	bool active;
	int64_t generation, started, seq_at_start;
	bool has_cursor;
	struct buffer cursor;
};

static void
load_state(struct hearth *home, struct walk_state *state)
{
	int64_t active = 0;

	store_meta_get_int(&home->store, "reconcile_active", &active);
	store_meta_get_int(&home->store, "reconcile_generation", &state->generation);
	store_meta_get_int(&home->store, "reconcile_started", &state->started);
	store_meta_get_int(&home->store, "reconcile_seq", &state->seq_at_start);
	state->active = active != 0;
	state->has_cursor = store_meta_get_buffer(&home->store, "reconcile_cursor",
	    &state->cursor) == 0;
	buffer_string(&state->cursor);
}

static int
start_walk(struct hearth *home, struct walk_state *state)
{
	state->generation++;
	state->started = wall_ns();
	store_meta_get_int(&home->store, "dirty_seq", &state->seq_at_start);
	state->active = true;
	state->has_cursor = false;
	buffer_reset(&state->cursor);
	store_meta_delete(&home->store, "reconcile_cursor");
	if (store_meta_set_int(&home->store, "reconcile_generation", state->generation) != 0 ||
	    store_meta_set_int(&home->store, "reconcile_started", state->started) != 0 ||
	    store_meta_set_int(&home->store, "reconcile_seq", state->seq_at_start) != 0 ||
	    store_meta_set_int(&home->store, "reconcile_active", 1) != 0)
		return -1;
	return 0;
}

/* Stamps of folders the walk did not meet are of folders gone; marks
 * older than the walk were all looked at again after they were made. */
static int
finish_walk(struct hearth *home, struct walk_state *state)
{
	sqlite3_stmt *statement = store_statement(&home->store,
	    "DELETE FROM folder WHERE generation < ?1");

	sqlite3_bind_int64(statement, 1, state->generation);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	statement = store_statement(&home->store, "DELETE FROM dirty WHERE seq <= ?1");
	sqlite3_bind_int64(statement, 1, state->seq_at_start);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	state->active = false;
	store_meta_delete(&home->store, "reconcile_cursor");
	if (store_meta_set_int(&home->store, "reconcile_active", 0) != 0 ||
	    store_meta_set_int(&home->store, "reconcile_done", state->generation) != 0)
		return -1;
	return 0;
}

/* path cut to parent_length, then name below it. */
static void
folder_path(struct buffer *path, size_t parent_length, const struct buffer *name)
{
	path->length = parent_length;
	if (parent_length > 0)
		buffer_append_byte(path, '/');
	buffer_append(path, name->data, name->length);
	buffer_string(path);
}

/* The folder after (node, path) in the walk's order: its first folder,
 * else the next folder beside it or beside a folder above it. */
static bool
next_folder(struct hearth *home, struct node_id *node, struct buffer *path)
{
	struct buffer name;
	bool found;

	buffer_init(&name);
	found = scan_index_folder_after(home, *node, NULL, 0, node, &name);
	if (found)
		folder_path(path, path->length, &name);
	while (!found && !node_id_equal(*node, NODE_ROOT)) {
		struct node_id parent;
		if (!scan_index_place(home, *node, false, &parent, NULL))
			break;
		const char *text = buffer_string(path);
		const char *slash = memrchr(text, '/', path->length);
		size_t parent_length = slash ? (size_t)(slash - text) : 0;
		const char *after = slash ? slash + 1 : text;
		found = scan_index_folder_after(home, parent, after,
		    path->length - (size_t)(after - text), node, &name);
		if (found) {
			folder_path(path, parent_length, &name);
			break;
		}
		*node = parent;
		path->length = parent_length;
		buffer_string(path);
	}
	buffer_free(&name);
	return found;
}

static int
keep_stamps(struct hearth *home, const char *path, const struct scan_root_stamp *roots,
    int64_t generation)
{
	int64_t now = wall_ns();

	for (size_t i = 0; i < home->root_count; i++) {
		if (!roots[i].present)
			continue;
		sqlite3_stmt *statement = store_statement(&home->store, SQL_STAMP);
		sqlite3_bind_blob(statement, 1, path[0] ? path : "", (int)strlen(path), SQLITE_STATIC);
		sqlite3_bind_text(statement, 2, home->roots[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(statement, 3, (int64_t)roots[i].stamp.device);
		sqlite3_bind_int64(statement, 4, (int64_t)roots[i].stamp.inode);
		sqlite3_bind_int64(statement, 5, roots[i].stamp.mtime_ns);
		sqlite3_bind_int64(statement, 6, roots[i].stamp.ctime_ns);
		sqlite3_bind_int64(statement, 7, now);
		sqlite3_bind_int64(statement, 8, generation);
		if (sqlite3_step(statement) != SQLITE_DONE)
			return -1;
	}
	return 0;
}

/* Lists one folder of the index and keeps what it found: its stamps, and
 * its mark set (verified) or cleared. A folder gone from the disk is left
 * to its parent, whose listing lacks it. */
static int
visit_folder(struct hearth *home, struct node_id node, const char *path, int64_t generation,
    struct marker_seq *seq, struct reconcile_page *out, struct hearth_error *error)
{
	struct scan_root_stamp roots[CONFIG_MAX_ROOTS];
	struct scan_folder_check check = { .roots = roots };

	if (scan_check_folder(home, node, path, &check, error) != 0)
		return error->code;
	out->folders++;
	out->entries += check.items + 1;
	if (!check.present)
		return 0;
	size_t length = strlen(path);
	int status = keep_stamps(home, path, roots, generation);
	if (status == 0 && check.differs) {
		out->differ++;
		status = mark(home, path, length, seq, true);
	} else if (status == 0) {
		status = unmark(home, path, length);
	}
	return status == 0 ? 0 : sql_failed(home, "cannot keep a folder's stamp", error);
}

/* The folder to go on from: the one after the cursor, or the top when the
 * walk has done nothing yet. A cursor the index no longer holds (a record
 * moved or deleted it) sends the walk back to the top: its verdicts hold
 * whenever they are made, so doing some folders twice costs only time. */
static bool
walk_resume_point(struct hearth *home, struct walk_state *state, struct node_id *node,
    struct buffer *path)
{
	buffer_reset(path);
	if (!state->has_cursor) {
		*node = NODE_ROOT;
		buffer_string(path);
		return true;
	}
	buffer_append(path, state->cursor.data, state->cursor.length);
	buffer_string(path);
	if (!index_folder(home, (const char *)path->data, path->length, node)) {
		buffer_reset(path);
		buffer_string(path);
		*node = NODE_ROOT;
		return true;
	}
	return next_folder(home, node, path);
}

static int
walk_page(struct hearth *home, struct walk_state *state, struct reconcile_page *out,
    struct hearth_error *error)
{
	struct marker_seq seq = { 0 };
	struct node_id node;
	struct buffer path;
	size_t limit = page_limit();
	int status = 0;

	buffer_init(&path);
	bool more = walk_resume_point(home, state, &node, &path);
	while (status == 0 && more) {
		status = visit_folder(home, node, (const char *)path.data, state->generation, &seq,
		    out, error);
		if (status != 0)
			break;
		buffer_reset(&state->cursor);
		buffer_append(&state->cursor, path.data, path.length);
		state->has_cursor = true;
		if (out->entries >= limit)
			break;
		more = next_folder(home, &node, &path);
	}
	if (status == 0 && more) {
		if (store_meta_set_blob(&home->store, "reconcile_cursor", state->cursor.data,
			state->cursor.length) != 0)
			status = sql_failed(home, "cannot keep the walk's cursor", error);
	} else if (status == 0 && finish_walk(home, state) != 0) {
		status = sql_failed(home, "cannot finish the walk", error);
	}
	snprintf(out->cursor, sizeof out->cursor, "%s", buffer_string(&state->cursor));
	out->finished = status == 0 && !state->active;
	buffer_free(&path);
	return status;
}

int
reconcile_walk_page(struct hearth *home, bool start, bool wait, struct reconcile_page *out,
    struct hearth_error *error)
{
	struct walk_state state = { 0 };

	memset(out, 0, sizeof *out);
	if (home_require_roots(home, error) != 0)
		return error->code;
	if (begin(home, wait, &out->busy, error) != 0 || out->busy)
		return error->code;
	buffer_init(&state.cursor);
	load_state(home, &state);
	int status = 0;
	if (!state.active && !start) {
		out->finished = true;
		store_rollback(&home->store);
		goto done;
	}
	out->resumed = state.active;
	if (state.active && state.has_cursor)
		snprintf(out->resumed_after, sizeof out->resumed_after, "%s",
		    buffer_string(&state.cursor));
	if (!state.active && start_walk(home, &state) != 0) {
		store_rollback(&home->store);
		status = sql_failed(home, "cannot begin a walk", error);
		goto done;
	}
	out->walk_started = state.started;
	out->generation = (uint64_t)state.generation;
	status = walk_page(home, &state, out, error);
	if (status != 0)
		store_rollback(&home->store);
	else
		status = commit(home, error);
done:
	buffer_free(&state.cursor);
	return status;
}

/* ---- settling the marks ---------------------------------------------------------------- */

int
reconcile_settle_page(struct hearth *home, bool wait, struct reconcile_page *out,
    struct hearth_error *error)
{
	struct marker_seq seq = { 0 };
	struct buffer path;
	int64_t generation = 0;
	size_t limit = page_limit();
	int status = 0;

	memset(out, 0, sizeof *out);
	if (home_require_roots(home, error) != 0)
		return error->code;
	if (begin(home, wait, &out->busy, error) != 0 || out->busy)
		return error->code;
	store_meta_get_int(&home->store, "reconcile_generation", &generation);
	buffer_init(&path);
	out->finished = true;
	while (status == 0 && out->entries < limit) {
		sqlite3_stmt *statement = store_statement(&home->store,
		    "SELECT path FROM dirty WHERE verified = 0 ORDER BY path LIMIT 1");
		if (sqlite3_step(statement) != SQLITE_ROW) {
			sqlite3_reset(statement);
			break;
		}
		buffer_reset(&path);
		buffer_append(&path, sqlite3_column_blob(statement, 0),
		    (size_t)sqlite3_column_bytes(statement, 0));
		sqlite3_reset(statement);
		size_t marked_length = path.length;
		char *marked = array_strndup((const char *)buffer_string(&path), marked_length);
		struct node_id node;
		nearest_listed_folder(home, &path, &node);
		/* The mark goes whatever the verdict: the folder that holds its
		 * change now carries it (verified) or nothing differs there. */
		if (unmark(home, marked, marked_length) != 0)
			status = sql_failed(home, "cannot settle a mark", error);
		if (status == 0)
			status = visit_folder(home, node, buffer_string(&path), generation, &seq, out,
			    error);
		free(marked);
		out->finished = false;
	}
	buffer_free(&path);
	if (status != 0) {
		store_rollback(&home->store);
		return status;
	}
	if (out->folders == 0) {
		store_rollback(&home->store);
		return 0;
	}
	return commit(home, error);
}

/* ---- what status and record list ---------------------------------------------------- */

static int
compare_scope_folders(const void *a, const void *b)
{
	return strcmp(((const struct scan_folder *)a)->path, ((const struct scan_folder *)b)->path);
}

static bool
restores_waiting(struct hearth *home)
{
	return scan_index_restores_waiting(home);
}

int
reconcile_scope(struct hearth *home, struct reconcile_scope *out, struct hearth_error *error)
{
	size_t capacity = 0;
	struct buffer path;
	int step;

	memset(out, 0, sizeof *out);
	arena_init(&out->arena, 16 * 1024);
	if (restores_waiting(home))
		return 0;
	out->usable = true;
	store_meta_get_int(&home->store, "dirty_seq", &out->seq);
	store_meta_get_int(&home->store, "reconcile_pages", &out->pages);
	sqlite3_stmt *rows = store_statement(&home->store, "SELECT path FROM dirty ORDER BY path");
	struct buffer *paths = NULL;
	size_t path_count = 0, path_capacity = 0;
	/* Read every mark first: resolving them runs other statements. */
	while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
		paths = array_grow(paths, &path_capacity, path_count + 1, sizeof *paths);
		buffer_init(&paths[path_count]);
		buffer_append(&paths[path_count], sqlite3_column_blob(rows, 0),
		    (size_t)sqlite3_column_bytes(rows, 0));
		path_count++;
	}
	sqlite3_reset(rows);
	buffer_init(&path);
	for (size_t i = 0; i < path_count; i++) {
		struct node_id node;
		nearest_listed_folder(home, &paths[i], &node);
		out->folders = array_grow(out->folders, &capacity, out->count + 1,
		    sizeof *out->folders);
		out->folders[out->count].node = node;
		out->folders[out->count].path = arena_strndup(&out->arena,
		    (const char *)paths[i].data ? (const char *)paths[i].data : "", paths[i].length);
		out->count++;
		buffer_free(&paths[i]);
	}
	buffer_free(&path);
	free(paths);
	if (step != SQLITE_DONE) {
		reconcile_scope_free(out);
		return sql_failed(home, "cannot read the marked folders", error);
	}
	if (out->count > 1)
		qsort(out->folders, out->count, sizeof *out->folders, compare_scope_folders);
	size_t kept = 0;
	for (size_t i = 0; i < out->count; i++)
		if (kept == 0 || strcmp(out->folders[kept - 1].path, out->folders[i].path) != 0)
			out->folders[kept++] = out->folders[i];
	out->count = kept;
	return 0;
}

void
reconcile_scope_free(struct reconcile_scope *scope)
{
	free(scope->folders);
	arena_free(&scope->arena);
	memset(scope, 0, sizeof *scope);
}

int
reconcile_scan_tree(struct hearth *home, const struct hearth_progress *progress,
    struct scan_result *out, struct reconcile_scan *info, struct hearth_error *error)
{
	struct reconcile_scope scope;
	int status;

	memset(info, 0, sizeof *info);
	memset(out, 0, sizeof *out);
	if (home_require_roots(home, error) != 0)
		return error->code;
	/* Before the snapshot: the watch writes what it saw, then answers. */
	bool current = watch_index_current(home);
	store_begin_read(&home->store);
	if (current && (status = reconcile_scope(home, &scope, error)) != 0) {
		store_end_read(&home->store);
		return status;
	}
	if (current && scope.usable) {
		info->from_index = true;
		info->folders_listed = scope.count;
		info->seq = scope.seq;
		info->pages = scope.pages;
		status = scan_folders(home, scope.folders, scope.count, progress, out, error);
	} else {
		reconcile_snapshot(home, &info->seq, &info->pages);
		status = scan_tree(home, NULL, 0, progress, out, error);
	}
	if (current)
		reconcile_scope_free(&scope);
	store_end_read(&home->store);
	return status;
}

void
reconcile_snapshot(struct hearth *home, int64_t *seq, int64_t *pages)
{
	store_meta_get_int(&home->store, "dirty_seq", seq);
	store_meta_get_int(&home->store, "reconcile_pages", pages);
}

static int
mark_parent_of(struct hearth *home, const char *path, struct marker_seq *seq)
{
	const char *slash = strrchr(path, '/');

	return mark(home, path, slash ? (size_t)(slash - path) : 0, seq, false);
}

int
reconcile_recorded(struct hearth *home, int64_t seq, int64_t pages, bool whole_tree,
    const struct scan_result *scan, struct hearth_error *error)
{
	struct marker_seq marks = { 0 };
	int64_t pages_now = 0;

	if (whole_tree) {
		sqlite3_stmt *statement = store_statement(&home->store,
		    "DELETE FROM dirty WHERE seq <= ?1");
		sqlite3_bind_int64(statement, 1, seq);
		if (sqlite3_step(statement) != SQLITE_DONE)
			return sql_failed(home, "cannot clear the marked folders", error);
	}
	store_meta_get_int(&home->store, "reconcile_pages", &pages_now);
	if (pages_now == pages)
		return 0;
	for (size_t i = 0; i < scan->count; i++) {
		const struct scan_change *change = &scan->changes[i];
		if (change->kind == SCAN_STAMP)
			continue;
		if (mark_parent_of(home, change->path, &marks) != 0 ||
		    (change->old_path != NULL && mark_parent_of(home, change->old_path, &marks) != 0))
			return sql_failed(home, "cannot mark a recorded folder", error);
	}
	return 0;
}

uint64_t
reconcile_dirty_count(struct hearth *home)
{
	sqlite3_stmt *statement = store_statement(&home->store, "SELECT count(*) FROM dirty");
	uint64_t count = 0;

	if (sqlite3_step(statement) == SQLITE_ROW)
		count = (uint64_t)sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);
	return count;
}

/* ---- hearth_reconcile ------------------------------------------------------------------- */

static bool
reconcile_cancelled(const struct hearth_progress *progress)
{
	return progress != NULL && progress->cancel != NULL && atomic_load(progress->cancel) != 0;
}

static void
reconcile_report(const struct hearth_progress *progress, const struct hearth_reconcile_result *out,
    const char *path)
{
	if (progress == NULL || progress->report == NULL)
		return;
	struct hearth_progress_report report = {
		.phase = "walking", .done = out->folders_walked, .path = path,
	};
	progress->report(progress->context, &report);
}

int
hearth_reconcile(hearth *home, const struct hearth_reconcile_options *options,
    const struct hearth_progress *progress, struct hearth_reconcile_result *out,
    struct hearth_error *error)
{
	bool busy;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (options != NULL && options->check_only) {
		int status = reconcile_check(home, true, &busy, &out->folders_checked,
		    &out->folders_changed, error);
		if (status == 0)
			out->pages = 1;
		out->differ = reconcile_dirty_count(home);
		return status;
	}
	for (bool first = true;; first = false) {
		struct reconcile_page page;
		if (reconcile_cancelled(progress))
			return hearth_fail(error, HEARTH_CANCELLED,
			    "reconcile cancelled after %llu pages; the next one goes on from there",
			    (unsigned long long)out->pages);
		int status = reconcile_walk_page(home, first, true, &page, error);
		if (status != 0)
			return status;
		if (first && page.resumed) {
			out->resumed = true;
			snprintf(out->resumed_after, sizeof out->resumed_after, "%s", page.resumed_after);
		}
		out->generation = page.generation;
		out->folders_walked += page.folders;
		out->entries += page.entries;
		out->pages += page.folders > 0;
		reconcile_report(progress, out, page.cursor);
		if (page.finished)
			break;
	}
	out->differ = reconcile_dirty_count(home);
	return 0;
}
