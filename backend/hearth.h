/* hearth's public API: the one header the full-screen app and the CLI use.
 * Everything a front end can do to a Home goes through these functions; the
 * engine behind them never prints, never exits and never touches a terminal.
 *
 * Conventions. Functions return 0 on success or a nonzero enum hearth_code
 * and fill a struct hearth_error. Results that hold strings own them until
 * their _free function runs. A hearth handle belongs to one thread; a
 * background worker opens its own (SQLite's WAL lets readers and the one
 * writer run side by side). Paths are relative to the Home, '/'-separated,
 * and may hold any bytes but NUL; names are never re-encoded. */
#ifndef HEARTH_BACKEND_HEARTH_H
#define HEARTH_BACKEND_HEARTH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct config;

/* ---- errors ---------------------------------------------------------------- */

enum hearth_code {
	HEARTH_OK = 0,
	HEARTH_FAILED = 1,	/* anything else: the message says what and where */
	HEARTH_USAGE = 2,	/* bad arguments: unknown version, bad path */
	HEARTH_LOCKED = 3,	/* another process holds the Home's write lock */
	HEARTH_NOT_A_HOME = 4,	/* no Home found from here */
	HEARTH_CANCELLED = 5,	/* the caller's cancel flag was set */
	HEARTH_REFUSED = 6,	/* would destroy unrecorded data; nothing done */
	HEARTH_DAMAGED = 7,	/* the store failed a check; names pack and offset */
};

#define HEARTH_ERROR_MAX 8192

struct hearth_error {
	enum hearth_code code;
	char message[HEARTH_ERROR_MAX];
};

/* The exit status the CLI uses for a code (hearth(1), EXIT STATUS). */
int hearth_exit_status(enum hearth_code code);

/* ---- progress and cancelling ----------------------------------------------------- */

struct hearth_progress_report {
	const char *phase;	/* "scanning", "storing", "writing", ... */
	uint64_t done, total;	/* items; total 0 when unknown */
	uint64_t bytes_done, bytes_total;
	const char *path;	/* item being worked on, may be NULL */
};

/* Long calls report through report (from the calling thread) and stop at the
 * next safe point once *cancel is nonzero, returning HEARTH_CANCELLED with
 * the store as it was before the call. Either member may be NULL. */
struct hearth_progress {
	void (*report)(void *context, const struct hearth_progress_report *report);
	void *context;
	const atomic_int *cancel;
};

/* ---- finding, making and opening a Home ------------------------------------------ */

typedef struct hearth hearth;

/* Where a Home was found (DESIGN §10): -c FILE, HEARTH_CONFIG, a root marker
 * above start_dir, or $XDG_CONFIG_HOME/hearth/config.yaml. */
struct hearth_location {
	char config_path[4096];	/* "" when the Home runs on defaults */
	char state_path[4096];
	char found_by[64];	/* "-c", "HEARTH_CONFIG", "marker", "XDG" */
};

struct hearth_open_options {
	const char *config_path;	/* -c FILE, or NULL */
	const char *start_dir;		/* NULL: the current folder */
};

int hearth_locate(const struct hearth_open_options *options,
    struct hearth_location *out, struct hearth_error *error);

int hearth_open(hearth **out, const struct hearth_open_options *options,
    struct hearth_error *error);
void hearth_close(hearth *home);

/* The effective config of an open Home (never NULL). */
const struct config *hearth_config(const hearth *home);

struct hearth_init_options {
	const char *dir;		/* the Home's only root; made if missing */
	const char *config_path;	/* a joined Home's config; NULL for DIR/.hearth */
};

/* Makes a working single-root Home at dir with its state in dir/.hearth/,
 * or, with config_path, the Home that config describes. Refuses a folder
 * that is already a Home. */
int hearth_init(const struct hearth_init_options *options, struct hearth_error *error);

/* Turns a path as a user typed it (relative to the current folder, or
 * absolute) into a Home-relative one; HEARTH_USAGE when it is outside every
 * root. The path need not exist (a deleted file can still be named). */
int hearth_home_path(hearth *home, const char *user_path, char *out, size_t out_size,
    struct hearth_error *error);

/* ---- lists and their memory ---------------------------------------------------- */

/* Strings inside a result live in its storage until the result is freed. */
struct hearth_storage;

/* ---- versions and history -------------------------------------------------------- */

#define HEARTH_ID_HEX 65	/* 64 hex digits and a NUL */

struct hearth_version {
	char id[HEARTH_ID_HEX];		/* full id: SHA-256 of the COMMIT op */
	char short_id[HEARTH_ID_HEX];	/* shortest unambiguous prefix, >= 8 */
	char replica[33];		/* the recording replica, hex */
	uint64_t counter;		/* the COMMIT op's counter on that replica */
	int64_t time;			/* unix seconds */
	int32_t utc_offset;		/* seconds east of UTC where it was recorded */
	const char *author;
	const char *message;
	uint64_t changes;		/* ops this version recorded */
};

struct hearth_version_list {
	struct hearth_version *items;
	size_t count;
	bool more;			/* older versions follow */
	struct hearth_storage *storage;
};

struct hearth_log_query {
	const char *before;	/* full id: list versions older than it; NULL = newest */
	size_t limit;		/* 0: all */
	const char *grep;	/* case-insensitive substring of the message, or NULL */
};

/* Newest first, in the total order of DESIGN §2. */
int hearth_log(hearth *home, const struct hearth_log_query *query,
    struct hearth_version_list *out, struct hearth_error *error);

/* Resolves "head", "head~N", a full id or an unambiguous prefix (>= 4 hex)
 * to exactly one version. "head" is the newest version. */
int hearth_resolve(hearth *home, const char *spec, struct hearth_version_list *out,
    struct hearth_error *error);
void hearth_version_list_free(struct hearth_version_list *list);

/* ---- changes: status, show, record --------------------------------------------- */

enum hearth_change_kind {
	HEARTH_ADDED = 'A',
	HEARTH_MODIFIED = 'M',	/* content or permissions */
	HEARTH_DELETED = 'D',
	HEARTH_MOVED = 'R',	/* renamed or moved; may also be modified */
	HEARTH_TYPE_CHANGED = 'T',	/* a file became a folder, a link... */
	HEARTH_CONFLICTED = 'C',
};

enum hearth_entry_kind {
	HEARTH_FILE = 1,
	HEARTH_DIR = 2,
	HEARTH_SYMLINK = 3,
};

struct hearth_change {
	enum hearth_change_kind kind;
	enum hearth_entry_kind entry_kind;
	const char *path;
	const char *old_path;	/* for HEARTH_MOVED, else NULL */
	bool content_changed;	/* a move that also changed content */
	uint64_t size;
};

struct hearth_change_list {
	struct hearth_change *items;
	size_t count;
	struct hearth_storage *storage;
};

void hearth_change_list_free(struct hearth_change_list *list);

struct hearth_status_report {
	struct hearth_change_list changes;	/* sorted by path */
	char tree_version[HEARTH_ID_HEX];	/* version the tree was last at; "" before any */
	char tree_short[HEARTH_ID_HEX];
	char head_version[HEARTH_ID_HEX];	/* newest version; "" before any */
	char head_short[HEARTH_ID_HEX];
	uint64_t head_ahead;	/* ops the head has that the tree lacks */
	uint64_t restore_paths;	/* a record would restore tree_version for these */
	uint64_t conflicts;
};

/* Compares the working tree with the version it is at. Reads; never writes ops. */
int hearth_status(hearth *home, const struct hearth_progress *progress,
    struct hearth_status_report *out, struct hearth_error *error);
void hearth_status_report_free(struct hearth_status_report *report);

/* What a version changed against the one before it on its replica
 * (or, for the first, against the empty Home). path limits it to one path
 * or folder; NULL for all. */
int hearth_show(hearth *home, const char *version, const char *path,
    struct hearth_change_list *out, struct hearth_error *error);

struct hearth_record_options {
	const char *message;		/* NULL: "" */
	const char *const *paths;	/* limit to these paths (and below); NULL: all */
	size_t path_count;
};

struct hearth_record_result {
	char version[HEARTH_ID_HEX];	/* "" when there was nothing to record */
	char short_id[HEARTH_ID_HEX];
	uint64_t ops;
	uint64_t files_stored;		/* files whose content was read and stored */
	uint64_t bytes_stored;		/* their bytes, before compression */
	struct hearth_change_list changes;
};

int hearth_record(hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct hearth_error *error);
void hearth_record_result_free(struct hearth_record_result *result);

/* ---- checkout and export ---------------------------------------------------------- */

struct hearth_checkout_options {
	const char *version;	/* NULL: head */
	bool force;		/* record unrecorded changes first, then check out */
};

struct hearth_checkout_result {
	char version[HEARTH_ID_HEX];
	char recorded[HEARTH_ID_HEX];	/* the version --force recorded first, or "" */
	uint64_t written, removed, moved;
	/* When refused (HEARTH_REFUSED): the unrecorded paths it would clobber. */
	struct hearth_change_list blocked;
};

int hearth_checkout(hearth *home, const struct hearth_checkout_options *options,
    const struct hearth_progress *progress, struct hearth_checkout_result *out,
    struct hearth_error *error);
void hearth_checkout_result_free(struct hearth_checkout_result *result);

/* Writes a version's tree into dir, which must be empty or absent and
 * outside the Home. */
int hearth_export(hearth *home, const char *version, const char *dir,
    const struct hearth_progress *progress, struct hearth_error *error);

/* ---- listing and reading ------------------------------------------------------------- */

struct hearth_entry {
	const char *name;
	enum hearth_entry_kind kind;
	const char *root;
	uint64_t size;
	int64_t mtime_ns;
	uint32_t mode;
	char mark;		/* 'M' for a tree entry a record would restore, else ' ';
				 * status marks come from hearth_status */
	char node[33];		/* the node id, hex */
};

struct hearth_entry_list {
	struct hearth_entry *items;
	size_t count;
	bool more;		/* another page follows */
	struct hearth_storage *storage;
};

struct hearth_list_query {
	const char *version;	/* NULL: the working tree as last recorded/checked out */
	const char *folder;	/* "" or NULL: the top of the Home */
	const char *after;	/* keyset: names strictly after this one; NULL: first page */
	size_t limit;		/* 0: all */
};

/* One folder's entries, sorted by name bytes, paged by keyset. */
int hearth_list(hearth *home, const struct hearth_list_query *query,
    struct hearth_entry_list *out, struct hearth_error *error);
void hearth_entry_list_free(struct hearth_entry_list *list);

/* Writes the bytes of a file (or a symlink's target) at a version to fd. */
int hearth_cat(hearth *home, const char *version, const char *path, int fd,
    struct hearth_error *error);

struct hearth_text {
	char *text;		/* NUL-terminated, owned; free with hearth_text_free */
	size_t length;
	bool binary;		/* not shown as text: binary or too big */
};

/* A unified diff of one path between a version and the one before it on its
 * replica; files over max_bytes or with NUL bytes give binary = true. */
int hearth_diff(hearth *home, const char *version, const char *path, size_t max_bytes,
    struct hearth_text *out, struct hearth_error *error);
void hearth_text_free(struct hearth_text *text);

/* ---- the Home at a glance ----------------------------------------------------------- */

struct hearth_summary {
	char home_id[33];
	char replica[33];
	char top[4096];			/* the first root's path */
	char state[4096];
	const char *durability;		/* "full", "group" or "none" */
	char head_short[HEARTH_ID_HEX];	/* "" before the first version */
	uint64_t versions;
	uint64_t ops;
	size_t root_count;
	/* Why the tree cannot be used now (a root missing or foreign), or "";
	 * history can still be read. */
	char root_problem[HEARTH_ERROR_MAX];
};

int hearth_summary(hearth *home, struct hearth_summary *out, struct hearth_error *error);

/* The store's cost counters (DESIGN §5), kept across runs. */
struct hearth_stats {
	uint64_t ops, versions, nodes, entries;
	uint64_t chunks, blobs, packs;
	uint64_t stored_bytes;		/* content bytes held, before compression */
	uint64_t pack_bytes;		/* bytes in pack files */
	uint64_t bytes_written;		/* packs + database, since the Home was made */
	uint64_t content_bytes_written;	/* stored bytes those writes carried */
	uint64_t packs_created;
	uint64_t transactions;
	uint64_t database_bytes;
};

int hearth_stats(hearth *home, struct hearth_stats *out, struct hearth_error *error);

/* ---- checking the store ---------------------------------------------------------------- */

struct hearth_fsck_report {
	uint64_t ops_checked, chunks_checked, packs_checked, versions_checked;
	size_t problem_count;
	const char **problems;	/* one line each, naming what and where */
	struct hearth_storage *storage;
};

/* Verifies every op decodes and the counters have no gaps, every chunk's
 * hash, every blob's chunk list, the head state against the ops, and the
 * working-tree index against the head. Returns HEARTH_DAMAGED when a
 * problem was found. */
int hearth_fsck(hearth *home, const struct hearth_progress *progress,
    struct hearth_fsck_report *out, struct hearth_error *error);
void hearth_fsck_report_free(struct hearth_fsck_report *report);

/* ---- small helpers front ends share ------------------------------------------------------ */

/* Writes name into out with invalid UTF-8 and control characters escaped
 * (\xNN, \n, \t, \\), so a name shows on one line and can be told apart. */
size_t hearth_escape_name(const char *name, char *out, size_t out_size);

const char *hearth_version_string(void);

#endif
