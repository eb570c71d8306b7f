/* Watching the joined Home (docs/DESIGN.md §6): inotify on every folder of every
 * root turns each change into a mark on its folder (reconcile.h), so the
 * index stays current and status lists only what changed.
 *
 * A watch starts by putting a watch on every folder, then runs the
 * restart check, and once the Home has been quiet for QUIET_MS the full
 * walk in pages; only a walk that began after every watch was in place
 * makes the index current. From then on each event marks its folder (a
 * new folder is watched and marked at once, since what was made in it
 * before its watch went on was never seen). Marks reach the store within
 * FLUSH_MS, or at once when someone asks.
 *
 * How another process knows the index is current: the watch keeps a row
 * in the store's watch table (host, pid, state, heartbeat every BEAT_MS).
 * A status that finds a live row saying "current" drops a cookie file in
 * the state folder's cookies/ and waits for the watch to delete it. inotify
 * queues the events of one instance in the order they happened, so when
 * the watch reads the cookie it has read every change made before it;
 * it writes their marks and only then deletes the cookie (watchman syncs
 * to now the same way). No answer within WATCH_COOKIE_WAIT_MS: the status
 * walks.
 *
 * A queue overflow (events were lost) or a watch that cannot be put in
 * place (ENOSPC: the inotify watch limit) retires every watch and falls
 * back to a walk every poll_interval; after an overflow the watches are
 * put back once a walk has caught up. Tests reach both through
 * HEARTH_WATCH_FAULT ("overflow:N" after N events, "limit:N" watches). */
#include "backend/disk/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/disk/identity.h"
#include "backend/io/io.h"
#include "backend/disk/reconcile.h"
#include "model/array.h"

#define QUIET_MS 2000		/* the Home is quiet this long before walking */
#define FLUSH_MS 100		/* marks wait at most this long for the store */
#define RETRY_MS 50		/* another writer held the store: try again then */
#define BEAT_MS 30000		/* the row's heartbeat */
#define BEAT_STALE_MS 120000	/* a row not beaten this long is a dead watch's */
#define FOLDER_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | \
    IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
#define COOKIE_PREFIX "cookie."

/* What one watch descriptor watches: a folder of a root, or (root -1) the
 * cookies folder. */
struct watched {
	bool used;
	int root;
	char *path;
};

struct hearth_watch {
	struct hearth *home;
	int fd;				/* inotify; -1 while polling or stopped */
	int cookie_folder;		/* the state folder's cookies/, for unlinking */
	struct watched *by_wd;
	size_t by_wd_capacity;
	int *top_wds;			/* each root's top folder */
	size_t watched_count;
	enum hearth_watch_state state, reported;
	char detail[1024];
	/* Marks not in the store yet, and cookies to answer once they are. */
	char **pending;
	size_t pending_count, pending_capacity;
	char **cookies;
	size_t cookie_count, cookie_capacity;
	int64_t first_pending_ms, last_event_ms, next_row_ms, next_poll_ms, retry_ms;
	int64_t watched_since_ns;	/* every watch in place since (wall) */
	bool check_wanted, walk_wanted, settle_wanted, overflowed, registered;
	bool index_changed;
	uint64_t events, pages, differ, watches_added;
	long fault_overflow_after, fault_limit;
	char host[256];
};

static const char *const state_names[] = {
	[HEARTH_WATCH_CHECKING] = "checking",
	[HEARTH_WATCH_CHECKED] = "checked",
	[HEARTH_WATCH_WALKING] = "walking",
	[HEARTH_WATCH_CURRENT] = "current",
	[HEARTH_WATCH_POLLING] = "polling",
	[HEARTH_WATCH_STOPPED] = "stopped",
};

/* ---- time and small helpers ---------------------------------------------------------- */

static int64_t
monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int64_t
wall_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void
host_name(char *out, size_t size)
{
	if (gethostname(out, size - 1) != 0)
		snprintf(out, size, "localhost");
	out[size - 1] = '\0';
}

static bool
process_alive(int64_t pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Names a watch never marks for: the root's .hearth folder (markers and
 * maybe the state), which is not content. A .hearth-id may be a user's
 * file: a change to it marks its folder like any (hearth's own marker,
 * where xattrs are not kept, costs one look at the folder). */
static bool
name_is_hearths(const char *folder_path, const char *name)
{
	return folder_path[0] == '\0' && strcmp(name, HOME_DIR_NAME) == 0;
}

static char *
join_path(const char *folder, const char *name)
{
	size_t length = strlen(folder) + strlen(name) + 2;
	char *path = array_alloc(length, 1);

	snprintf(path, length, "%s%s%s", folder, folder[0] ? "/" : "", name);
	return path;
}

static void
read_faults(struct hearth_watch *watch)
{
	const char *spec = getenv("HEARTH_WATCH_FAULT");
	char kind[16];
	long count;

	if (spec == NULL || sscanf(spec, "%15[a-z]:%ld", kind, &count) != 2)
		return;
	if (strcmp(kind, "overflow") == 0)
		watch->fault_overflow_after = count;
	else if (strcmp(kind, "limit") == 0)
		watch->fault_limit = count;
}

static void
set_state(struct hearth_watch *watch, enum hearth_watch_state state)
{
	if (watch->state == state)
		return;
	watch->state = state;
	watch->next_row_ms = 0;	/* the row says so as soon as the store lets it */
}

/* ---- the row other processes read --------------------------------------------------- */

static const char SQL_ROW_PUT[] =
    "INSERT OR REPLACE INTO watch(host, pid, started, beat, state, detail, folders) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char SQL_ROW_DELETE[] = "DELETE FROM watch WHERE host = ?1 AND pid = ?2";

static int
put_row(struct hearth_watch *watch)
{
	struct store *store = &watch->home->store;
	struct hearth_error failure;

	watch->next_row_ms = monotonic_ms() + RETRY_MS;
	if (store_try_begin(store) != 0)
		return -1;
	sqlite3_stmt *statement = store_statement(store, SQL_ROW_PUT);
	sqlite3_bind_text(statement, 1, watch->host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, (int64_t)getpid());
	sqlite3_bind_int64(statement, 3, watch->watched_since_ns);
	sqlite3_bind_int64(statement, 4, wall_ns());
	sqlite3_bind_text(statement, 5, state_names[watch->state], -1, SQLITE_STATIC);
	sqlite3_bind_text(statement, 6, watch->detail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 7, (int64_t)watch->watched_count);
	if (sqlite3_step(statement) != SQLITE_DONE) {
		store_rollback(store);
		return -1;
	}
	if (store_commit(store, &failure) != 0)
		return -1;
	watch->registered = true;
	watch->next_row_ms = monotonic_ms() + BEAT_MS;
	return 0;
}

/* Rows of watches on this host whose process is gone (killed, crashed). */
static void
forget_dead_rows(struct hearth_watch *watch)
{
	struct store *store = &watch->home->store;
	sqlite3_stmt *rows = store_statement(store, "SELECT pid FROM watch WHERE host = ?1");
	int64_t dead[64];
	size_t count = 0;

	sqlite3_bind_text(rows, 1, watch->host, -1, SQLITE_STATIC);
	while (count < 64 && sqlite3_step(rows) == SQLITE_ROW)
		if (!process_alive(sqlite3_column_int64(rows, 0)))
			dead[count++] = sqlite3_column_int64(rows, 0);
	sqlite3_reset(rows);
	for (size_t i = 0; i < count; i++) {
		sqlite3_stmt *statement = store_statement(store, SQL_ROW_DELETE);
		sqlite3_bind_text(statement, 1, watch->host, -1, SQLITE_STATIC);
		sqlite3_bind_int64(statement, 2, dead[i]);
		sqlite3_step(statement);
		sqlite3_reset(statement);
	}
}

/* ---- watch descriptors ---------------------------------------------------------------- */

static void
remember(struct hearth_watch *watch, int wd, int root, const char *path)
{
	if ((size_t)wd >= watch->by_wd_capacity) {
		size_t old = watch->by_wd_capacity;
		watch->by_wd = array_grow(watch->by_wd, &watch->by_wd_capacity, (size_t)wd + 1,
		    sizeof *watch->by_wd);
		memset(watch->by_wd + old, 0, (watch->by_wd_capacity - old) * sizeof *watch->by_wd);
	}
	struct watched *entry = &watch->by_wd[wd];
	if (entry->used) {
		free(entry->path);
	} else {
		watch->watched_count += root >= 0;
	}
	entry->used = true;
	entry->root = root;
	entry->path = array_strdup(path);
}

static void
forget(struct hearth_watch *watch, int wd)
{
	if (wd < 0 || (size_t)wd >= watch->by_wd_capacity || !watch->by_wd[wd].used)
		return;
	watch->watched_count -= watch->by_wd[wd].root >= 0;
	free(watch->by_wd[wd].path);
	memset(&watch->by_wd[wd], 0, sizeof watch->by_wd[wd]);
}

static void
forget_all(struct hearth_watch *watch)
{
	for (size_t wd = 0; wd < watch->by_wd_capacity; wd++)
		forget(watch, (int)wd);
	for (size_t i = 0; i < watch->home->root_count; i++)
		watch->top_wds[i] = -1;
}

/* A watch on the folder open at folder_fd (opened without following any
 * link, so the watch is on what the walk would list). */
static int
add_watch(struct hearth_watch *watch, int folder_fd, uint32_t mask)
{
	char proc_path[64];

	if (watch->fault_limit > 0 && watch->watches_added >= (uint64_t)watch->fault_limit) {
		errno = ENOSPC;
		return -1;
	}
	snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", folder_fd);
	int wd = inotify_add_watch(watch->fd, proc_path, mask);
	if (wd >= 0)
		watch->watches_added++;
	return wd;
}

/* ---- marks ---------------------------------------------------------------------------- */

static void
pending_add(struct hearth_watch *watch, const char *path)
{
	/* Events come in runs on one folder: the last mark is the usual repeat. */
	if (watch->pending_count > 0 && strcmp(watch->pending[watch->pending_count - 1], path) == 0)
		return;
	if (watch->pending_count == 0)
		watch->first_pending_ms = monotonic_ms();
	watch->pending = array_grow(watch->pending, &watch->pending_capacity,
	    watch->pending_count + 1, sizeof *watch->pending);
	watch->pending[watch->pending_count] = array_strdup(path);
	watch->pending_count++;
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
pending_clear(struct hearth_watch *watch)
{
	for (size_t i = 0; i < watch->pending_count; i++)
		free(watch->pending[i]);
	watch->pending_count = 0;
}

/* Writes the marks to the store; false when another writer held it. */
static int
flush(struct hearth_watch *watch, struct hearth_error *error)
{
	bool busy = false;

	if (watch->pending_count == 0)
		return 0;
	qsort(watch->pending, watch->pending_count, sizeof *watch->pending, compare_strings);
	size_t kept = 0;
	for (size_t i = 0; i < watch->pending_count; i++) {
		if (kept > 0 && strcmp(watch->pending[kept - 1], watch->pending[i]) == 0)
			free(watch->pending[i]);
		else
			watch->pending[kept++] = watch->pending[i];
	}
	watch->pending_count = kept;
	int status = reconcile_mark(watch->home, watch->pending, watch->pending_count, false, &busy,
	    error);
	if (status != 0)
		return status;
	if (busy) {
		watch->retry_ms = monotonic_ms() + RETRY_MS;
		return 0;
	}
	pending_clear(watch);
	watch->retry_ms = 0;
	watch->index_changed = true;
	watch->settle_wanted = true;
	return 0;
}

/* Cookies are answered (deleted) once every mark made before them is in
 * the store, and only while the index is current: a watch that is not
 * lets the asker time out and walk. */
static void
answer_cookies(struct hearth_watch *watch)
{
	if (watch->cookie_count == 0 || watch->pending_count > 0)
		return;
	for (size_t i = 0; i < watch->cookie_count; i++) {
		if (watch->state == HEARTH_WATCH_CURRENT && watch->cookie_folder >= 0)
			io_unlink(watch->cookie_folder, watch->cookies[i]);
		free(watch->cookies[i]);
	}
	watch->cookie_count = 0;
}

/* ---- putting watches in place ------------------------------------------------------- */

static void retire(struct hearth_watch *watch, bool overflow, const char *why);

/* Watches the folder at path in root and every folder below it that the
 * walk would enter; with mark_new, marks each (it was not watched before,
 * so what happened in it is unknown). -1 when a watch could not be put in
 * place: the watch is then retired (polling). */
static int
add_tree(struct hearth_watch *watch, int root, const char *path, bool mark_new, int *top_wd)
{
	struct hearth *home = watch->home;
	int fd = scan_open_folder(home->roots[root].fd, path);

	if (fd < 0)
		return 0;	/* gone again, or not a folder: its parent's mark covers it */
	int wd = add_watch(watch, fd, FOLDER_MASK);
	if (wd < 0) {
		int saved = errno;
		close(fd);
		if (saved == ENOENT)
			return 0;
		char why[1024];
		if (saved == ENOSPC)
			snprintf(why, sizeof why, "the inotify watch limit is reached after %zu folder%s "
			    "(raise fs.inotify.max_user_watches, then restart the watch)",
			    watch->watched_count, watch->watched_count == 1 ? "" : "s");
		else
			snprintf(why, sizeof why, "cannot watch %s/%s: %s", home->roots[root].path, path,
			    strerror(saved));
		retire(watch, false, why);
		return -1;
	}
	remember(watch, wd, root, path);
	if (top_wd != NULL)
		*top_wd = wd;
	if (mark_new)
		pending_add(watch, path);
	DIR *dir = fdopendir(fd);
	if (dir == NULL) {
		close(fd);
		return 0;
	}
	struct dirent *dirent;
	int status = 0;
	while (status == 0 && (dirent = readdir(dir)) != NULL) {
		const char *name = dirent->d_name;
		struct stat child;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || name_is_hearths(path, name))
			continue;
		if (dirent->d_type != DT_DIR && (dirent->d_type != DT_UNKNOWN ||
			fstatat(dirfd(dir), name, &child, AT_SYMLINK_NOFOLLOW) != 0 ||
			!S_ISDIR(child.st_mode)))
			continue;
		char *child_path = join_path(path, name);
		if (!ignore_match(home->ignore, child_path, true))
			status = add_tree(watch, root, child_path, mark_new, NULL);
		free(child_path);
	}
	closedir(dir);
	return status;
}

/* A fresh inotify instance watching the cookies folder and every folder
 * of every root. -1 when that failed (the watch is then polling). */
static int
establish(struct hearth_watch *watch)
{
	struct hearth *home = watch->home;
	char cookies[PATH_MAX + 32];

	watch->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (watch->fd < 0) {
		char why[512];
		snprintf(why, sizeof why, "cannot start inotify: %s", strerror(errno));
		retire(watch, false, why);
		return -1;
	}
	snprintf(cookies, sizeof cookies, "%s/" WATCH_COOKIE_FOLDER, home->location.state_path);
	int cookie_fd = open(cookies, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int cookie_wd = cookie_fd >= 0 ? add_watch(watch, cookie_fd, IN_CREATE | IN_MOVED_TO |
	    IN_ONLYDIR) : -1;
	if (cookie_fd >= 0)
		close(cookie_fd);
	if (cookie_wd >= 0)
		remember(watch, cookie_wd, -1, "");
	for (size_t i = 0; i < home->root_count; i++)
		if (add_tree(watch, (int)i, "", false, &watch->top_wds[i]) != 0)
			return -1;
	watch->watched_since_ns = wall_ns();
	watch->overflowed = false;
	return 0;
}

/* Events were lost, or a folder cannot be watched: no watch is trusted
 * any more. A walk every poll_interval keeps the marks instead. */
static void
retire(struct hearth_watch *watch, bool overflow, const char *why)
{
	if (watch->fd >= 0)
		close(watch->fd);
	watch->fd = -1;
	forget_all(watch);
	watch->overflowed = overflow;
	snprintf(watch->detail, sizeof watch->detail, "%s; walking the Home every %.1f s instead",
	    why, watch->home->config->poll_interval_ms / 1000.0);
	set_state(watch, HEARTH_WATCH_POLLING);
	watch->check_wanted = false;
	watch->walk_wanted = true;
	watch->next_poll_ms = monotonic_ms();
	watch->index_changed = true;
}

/* ---- reading events ---------------------------------------------------------------------- */

static bool
root_top(const struct hearth_watch *watch, int wd)
{
	for (size_t i = 0; i < watch->home->root_count; i++)
		if (watch->top_wds[i] == wd)
			return true;
	return false;
}

static void
take_cookie(struct hearth_watch *watch, const char *name)
{
	if (strncmp(name, COOKIE_PREFIX, sizeof COOKIE_PREFIX - 1) != 0)
		return;
	watch->cookies = array_grow(watch->cookies, &watch->cookie_capacity,
	    watch->cookie_count + 1, sizeof *watch->cookies);
	watch->cookies[watch->cookie_count] = array_strdup(name);
	watch->cookie_count++;
	/* Someone asked: the walk waits until they are served. */
	watch->last_event_ms = monotonic_ms();
}

/* One event on a folder: its folder is marked; a folder made or moved in
 * is watched (and marked) whole. Returns false when a root went away. */
static bool
handle_event(struct hearth_watch *watch, const struct inotify_event *event)
{
	if (event->wd < 0 || (size_t)event->wd >= watch->by_wd_capacity ||
	    !watch->by_wd[event->wd].used)
		return true;	/* a watch already forgotten */
	struct watched *folder = &watch->by_wd[event->wd];
	if (folder->root < 0) {
		if (event->len > 0 && (event->mask & (IN_CREATE | IN_MOVED_TO)))
			take_cookie(watch, event->name);
		return true;
	}
	if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED)) {
		bool top = root_top(watch, event->wd);
		if (event->mask & IN_IGNORED)
			forget(watch, event->wd);
		return !top;
	}
	watch->events++;
	watch->last_event_ms = monotonic_ms();
	if (event->len == 0 || name_is_hearths(folder->path, event->name))
		return true;
	char *child = join_path(folder->path, event->name);
	bool is_dir = (event->mask & IN_ISDIR) != 0;
	if (!ignore_match(watch->home->ignore, child, is_dir)) {
		pending_add(watch, folder->path);
		if (is_dir && (event->mask & (IN_CREATE | IN_MOVED_TO)))
			add_tree(watch, folder->root, child, true, NULL);
	}
	free(child);
	return true;
}

/* Reads every event queued. Returns false when a root went away. */
static bool
read_events(struct hearth_watch *watch)
{
	char buffer[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));

	while (watch->fd >= 0) {
		ssize_t got = read(watch->fd, buffer, sizeof buffer);
		if (got <= 0)
			return true;	/* EAGAIN: all read */
		for (char *at = buffer; at < buffer + got;) {
			const struct inotify_event *event = (const struct inotify_event *)at;
			at += sizeof *event + event->len;
			bool faked = watch->fault_overflow_after > 0 &&
			    watch->events >= (uint64_t)watch->fault_overflow_after;
			if ((event->mask & IN_Q_OVERFLOW) || faked) {
				watch->fault_overflow_after = 0;
				retire(watch, true, "the inotify event queue overflowed "
				    "(fs.inotify.max_queued_events): changes were lost");
				return true;
			}
			if (!handle_event(watch, event))
				return false;
		}
	}
	return true;
}

/* ---- background work ---------------------------------------------------------------------- */

static bool
quiet(const struct hearth_watch *watch, int64_t now)
{
	return now - watch->last_event_ms >= QUIET_MS;
}

static int
do_check(struct hearth_watch *watch, struct hearth_error *error)
{
	uint64_t checked, changed;
	bool busy;
	int status = reconcile_check(watch->home, false, &busy, &checked, &changed, error);

	if (status != 0 || busy) {
		watch->retry_ms = monotonic_ms() + RETRY_MS;
		return status;
	}
	watch->pages++;
	watch->check_wanted = false;
	watch->walk_wanted = true;
	watch->index_changed = true;
	if (checked == 0)
		snprintf(watch->detail, sizeof watch->detail,
		    "no folder walked before, so a first walk follows");
	else
		snprintf(watch->detail, sizeof watch->detail,
		    "%llu folder%s checked, %llu changed since the last walk",
		    (unsigned long long)checked, checked == 1 ? "" : "s", (unsigned long long)changed);
	set_state(watch, HEARTH_WATCH_CHECKED);
	return 0;
}

static void
walk_finished(struct hearth_watch *watch, const struct reconcile_page *page)
{
	int64_t now = monotonic_ms();

	watch->differ = reconcile_dirty_count(watch->home);
	if (watch->state == HEARTH_WATCH_POLLING) {
		watch->walk_wanted = false;
		watch->next_poll_ms = now + watch->home->config->poll_interval_ms;
		watch->index_changed = true;
		/* Lost events are caught up with: watch again. A watch limit
		 * stays what it is, so that retire is for good. */
		if (watch->overflowed && establish(watch) == 0) {
			watch->detail[0] = '\0';
			watch->walk_wanted = true;
			set_state(watch, HEARTH_WATCH_WALKING);
		}
		return;
	}
	/* A walk begun before the watches were in place may have missed what
	 * changed before them: only a later one makes the index current. */
	if (page->walk_started < watch->watched_since_ns)
		return;
	watch->walk_wanted = false;
	watch->index_changed = true;
	/* Current is about what the index knows: the folders it names are
	 * those status lists (changed, or changed too lately to trust times). */
	snprintf(watch->detail, sizeof watch->detail, "status lists %llu folder%s%s",
	    (unsigned long long)watch->differ, watch->differ == 1 ? "" : "s",
	    watch->differ > 0 ? " (changed, or changed too lately to trust their times)" : "");
	set_state(watch, HEARTH_WATCH_CURRENT);
}

static int
do_walk_page(struct hearth_watch *watch, struct hearth_error *error)
{
	struct reconcile_page page;
	int status = reconcile_walk_page(watch->home, true, false, &page, error);

	if (status != 0 || page.busy) {
		watch->retry_ms = monotonic_ms() + RETRY_MS;
		return status;
	}
	watch->retry_ms = 0;
	watch->pages++;
	if (watch->state != HEARTH_WATCH_POLLING)
		set_state(watch, HEARTH_WATCH_WALKING);
	if (page.finished)
		walk_finished(watch, &page);
	return 0;
}

static int
do_settle_page(struct hearth_watch *watch, struct hearth_error *error)
{
	struct reconcile_page page;
	int status = reconcile_settle_page(watch->home, false, &page, error);

	if (status != 0 || page.busy) {
		watch->retry_ms = monotonic_ms() + RETRY_MS;
		return status;
	}
	watch->retry_ms = 0;
	if (page.folders > 0)
		watch->pages++;
	if (page.finished)
		watch->settle_wanted = false;
	return 0;
}

static int
background_step(struct hearth_watch *watch, struct hearth_error *error)
{
	int64_t now = monotonic_ms();

	if (watch->retry_ms > now || watch->pending_count > 0)
		return 0;
	if (watch->check_wanted)
		return do_check(watch, error);
	if (watch->state == HEARTH_WATCH_POLLING && !watch->walk_wanted && now >= watch->next_poll_ms)
		watch->walk_wanted = true;
	bool polling = watch->state == HEARTH_WATCH_POLLING;
	if (watch->walk_wanted && (polling || quiet(watch, now)))
		return do_walk_page(watch, error);
	if (watch->settle_wanted && watch->state == HEARTH_WATCH_CURRENT && quiet(watch, now))
		return do_settle_page(watch, error);
	return 0;
}

/* ---- the API ------------------------------------------------------------------------------- */

static void
watch_free(struct hearth_watch *watch)
{
	if (watch->fd >= 0)
		close(watch->fd);
	if (watch->cookie_folder >= 0)
		close(watch->cookie_folder);
	forget_all(watch);
	pending_clear(watch);
	/* Cookies left are not answered: the marks before them may be lost. */
	for (size_t i = 0; i < watch->cookie_count; i++)
		free(watch->cookies[i]);
	free(watch->cookies);
	free(watch->pending);
	free(watch->by_wd);
	free(watch->top_wds);
	free(watch);
}

int
hearth_watch_start(hearth *home, struct hearth_watch **out, struct hearth_error *error)
{
	char cookies[PATH_MAX + 32];

	*out = NULL;
	hearth_error_clear(error);
	if (home_require_roots(home, error) != 0)
		return error->code;
	struct hearth_watch *watch = array_zeroed(1, sizeof *watch);
	watch->home = home;
	watch->fd = watch->cookie_folder = -1;
	watch->top_wds = array_zeroed(home->root_count, sizeof *watch->top_wds);
	host_name(watch->host, sizeof watch->host);
	read_faults(watch);
	snprintf(cookies, sizeof cookies, "%s/" WATCH_COOKIE_FOLDER, home->location.state_path);
	if (io_mkdir(AT_FDCWD, cookies, 0700) != 0 && errno != EEXIST) {
		int status = hearth_fail_errno(error, "cannot make %s", cookies);
		watch_free(watch);
		return status;
	}
	watch->cookie_folder = open(cookies, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	watch->state = HEARTH_WATCH_CHECKING;
	watch->reported = 0;
	watch->check_wanted = true;
	watch->last_event_ms = monotonic_ms();
	establish(watch);
	/* Registered now, so a status sees the watch starting; a busy store
	 * only delays the row (run retries it). */
	if (store_try_begin(&home->store) == 0) {
		forget_dead_rows(watch);
		struct hearth_error failure;
		store_commit(&home->store, &failure);
	}
	put_row(watch);
	home->watch = watch;
	*out = watch;
	return 0;
}

int
hearth_watch_fd(const struct hearth_watch *watch)
{
	return watch->fd;
}

static void
consider(int64_t *soonest, int64_t when)
{
	if (*soonest < 0 || when < *soonest)
		*soonest = when;
}

int
hearth_watch_timeout(const struct hearth_watch *watch, bool may_walk)
{
	int64_t now = monotonic_ms(), soonest = -1;

	if (watch->state == HEARTH_WATCH_STOPPED)
		return -1;
	consider(&soonest, watch->next_row_ms);
	if (watch->pending_count > 0)
		consider(&soonest, watch->first_pending_ms + FLUSH_MS);
	if (watch->retry_ms > 0)
		consider(&soonest, watch->retry_ms);
	if (may_walk) {
		bool polling = watch->state == HEARTH_WATCH_POLLING;
		if (watch->check_wanted)
			consider(&soonest, now);
		if (watch->walk_wanted)
			consider(&soonest, polling ? now : watch->last_event_ms + QUIET_MS);
		if (polling && !watch->walk_wanted)
			consider(&soonest, watch->next_poll_ms);
		if (watch->settle_wanted && watch->state == HEARTH_WATCH_CURRENT)
			consider(&soonest, watch->last_event_ms + QUIET_MS);
	}
	if (soonest < 0)
		return -1;
	if (watch->retry_ms > now && soonest < watch->retry_ms)
		soonest = watch->retry_ms;
	return soonest <= now ? 0 : (int)(soonest - now > INT_MAX ? INT_MAX : soonest - now);
}

static void
fill_report(struct hearth_watch *watch, struct hearth_watch_report *out)
{
	memset(out, 0, sizeof *out);
	out->state = watch->state;
	out->state_name = state_names[watch->state];
	out->state_changed = watch->reported != watch->state;
	out->index_changed = watch->index_changed;
	out->folders_watched = watch->watched_count;
	out->events = watch->events;
	out->pages = watch->pages;
	out->differ = watch->differ;
	snprintf(out->detail, sizeof out->detail, "%s", watch->detail);
	watch->reported = watch->state;
	watch->index_changed = false;
}

/* A root went away: nothing more is watched or walked (fail closed); the
 * row goes, so no status trusts the index. */
static int
stop_for_root(struct hearth_watch *watch, struct hearth_error *error)
{
	if (watch->fd >= 0)
		close(watch->fd);
	watch->fd = -1;
	forget_all(watch);
	pending_clear(watch);
	if (home_require_roots(watch->home, error) == 0)
		hearth_fail(error, HEARTH_FAILED, "a root of the Home went away while it was watched; "
		    "nothing was changed. Mount it again, then watch again");
	snprintf(watch->detail, sizeof watch->detail, "%.1000s", error->message);
	set_state(watch, HEARTH_WATCH_STOPPED);
	if (watch->registered) {
		sqlite3_stmt *statement = store_statement(&watch->home->store, SQL_ROW_DELETE);
		sqlite3_bind_text(statement, 1, watch->host, -1, SQLITE_STATIC);
		sqlite3_bind_int64(statement, 2, (int64_t)getpid());
		sqlite3_step(statement);
		sqlite3_reset(statement);
		watch->registered = false;
	}
	return error->code;
}

int
hearth_watch_run(struct hearth_watch *watch, bool may_walk, struct hearth_watch_report *out,
    struct hearth_error *error)
{
	int status = 0;

	hearth_error_clear(error);
	if (watch->state == HEARTH_WATCH_STOPPED) {
		fill_report(watch, out);
		return hearth_fail(error, HEARTH_FAILED, "%s", watch->detail);
	}
	enum hearth_watch_state before = watch->state;
	if (!read_events(watch) || home_require_roots(watch->home, error) != 0) {
		status = stop_for_root(watch, error);
		fill_report(watch, out);
		return status;
	}
	/* Falling back to polling is reported before the walk that follows
	 * it, which may finish in this same call and hide that events were lost. */
	if (watch->state == HEARTH_WATCH_POLLING && before != HEARTH_WATCH_POLLING) {
		fill_report(watch, out);
		return 0;
	}
	int64_t now = monotonic_ms();
	bool flush_due = watch->pending_count > 0 && (watch->cookie_count > 0 ||
	    now >= watch->first_pending_ms + FLUSH_MS) && watch->retry_ms <= now;
	if (flush_due)
		status = flush(watch, error);
	answer_cookies(watch);
	if (status == 0 && may_walk)
		status = background_step(watch, error);
	if (status == 0 && watch->pending_count > 0 && watch->cookie_count > 0)
		status = flush(watch, error);
	answer_cookies(watch);
	if (monotonic_ms() >= watch->next_row_ms)
		put_row(watch);
	if (status != 0 && home_require_roots(watch->home, error) != 0)
		status = stop_for_root(watch, error);
	fill_report(watch, out);
	return status;
}

void
hearth_watch_stop(struct hearth_watch *watch)
{
	if (watch == NULL)
		return;
	struct hearth *home = watch->home;
	if (watch->registered) {
		struct hearth_error failure;
		if (store_begin(&home->store, &failure) == 0) {
			sqlite3_stmt *statement = store_statement(&home->store, SQL_ROW_DELETE);
			sqlite3_bind_text(statement, 1, watch->host, -1, SQLITE_STATIC);
			sqlite3_bind_int64(statement, 2, (int64_t)getpid());
			sqlite3_step(statement);
			sqlite3_reset(statement);
			store_commit(&home->store, &failure);
		}
	}
	if (home->watch == watch)
		home->watch = NULL;
	watch_free(watch);
}

/* ---- is the index current? --------------------------------------------------------------- */

/* A watch on this host whose row says current and whose process lives. */
static bool
current_watch_row(struct hearth *home)
{
	char host[256];
	sqlite3_stmt *rows = store_statement(&home->store,
	    "SELECT pid, beat FROM watch WHERE host = ?1 AND state = 'current'");
	int64_t fresh = wall_ns() - (int64_t)BEAT_STALE_MS * 1000000;
	bool found = false;

	host_name(host, sizeof host);
	sqlite3_bind_text(rows, 1, host, -1, SQLITE_TRANSIENT);
	while (!found && sqlite3_step(rows) == SQLITE_ROW)
		found = sqlite3_column_int64(rows, 1) >= fresh &&
		    process_alive(sqlite3_column_int64(rows, 0));
	sqlite3_reset(rows);
	return found;
}

/* Waits until the cookie named name is deleted from the folder inotify_fd
 * watches, or the time is up. */
static bool
cookie_answered(int inotify_fd, const char *name)
{
	char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int64_t deadline = monotonic_ms() + WATCH_COOKIE_WAIT_MS;

	for (int64_t now = monotonic_ms(); now < deadline; now = monotonic_ms()) {
		struct pollfd poller = { .fd = inotify_fd, .events = POLLIN };
		if (poll(&poller, 1, (int)(deadline - now)) <= 0)
			continue;
		ssize_t got = read(inotify_fd, buffer, sizeof buffer);
		for (char *at = buffer; got > 0 && at < buffer + got;) {
			const struct inotify_event *event = (const struct inotify_event *)at;
			at += sizeof *event + event->len;
			if (event->len > 0 && strcmp(event->name, name) == 0)
				return true;
		}
	}
	return false;
}

bool
watch_index_current(struct hearth *home)
{
	static unsigned asked;
	char folder[PATH_MAX + 32], name[64];

	/* This very handle watches: its own events are read here and now. */
	if (home->watch != NULL) {
		struct hearth_watch *watch = home->watch;
		struct hearth_error error;
		if (watch->state != HEARTH_WATCH_CURRENT || !read_events(watch) ||
		    flush(watch, &error) != 0)
			return false;
		return watch->state == HEARTH_WATCH_CURRENT && watch->pending_count == 0;
	}
	if (!current_watch_row(home))
		return false;
	snprintf(folder, sizeof folder, "%s/" WATCH_COOKIE_FOLDER, home->location.state_path);
	int inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int folder_fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool answered = false;
	if (inotify_fd >= 0 && folder_fd >= 0 &&
	    inotify_add_watch(inotify_fd, folder, IN_DELETE | IN_ONLYDIR) >= 0) {
		snprintf(name, sizeof name, COOKIE_PREFIX "%d.%u", (int)getpid(), ++asked);
		int fd = io_open(folder_fd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			io_close(fd);
			answered = cookie_answered(inotify_fd, name);
			if (!answered)
				io_unlink(folder_fd, name);
		}
	}
	if (inotify_fd >= 0)
		close(inotify_fd);
	if (folder_fd >= 0)
		close(folder_fd);
	return answered;
}
