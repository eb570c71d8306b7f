/* hearth's public API: the one header the full-screen app and the CLI use.
 * Everything a front end can do to a Home goes through these functions; the
 * engine behind them never prints, never exits and never touches a terminal,
 * with one exception: running out of memory (see below).
 *
 * Conventions. Functions return 0 on success or a nonzero enum hearth_code
 * and fill a struct hearth_error; below this header every room of the
 * engine reports in that same type (backend/io/fail.h), so a message comes
 * up as the layer that saw the fault wrote it; out of memory is never one
 * of them (below). Results that hold strings own them until their _free
 * function runs. A hearth handle belongs to one thread; a
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

/* Out of memory is never an error returned. Every allocation the engine
 * makes itself (model/array.h; `make lint-layers` holds backend/ to it)
 * either succeeds or runs the hook given here, prints "hearth: out of
 * memory" on stderr and aborts: a half-made batch of ops or half-planned
 * checkout has no sensible way back, and a path no test can reach would
 * sit behind every allocation. What the store has committed stays intact
 * (every change commits whole). Allocation failures inside the libraries
 * (SQLite's SQLITE_NOMEM, zstd's) are errors like any other. The hook (the
 * app's restores the terminal) runs once; NULL removes it. */
void hearth_set_out_of_memory_hook(void (*hook)(void));

/* ---- progress and cancelling ----------------------------------------------------- */

struct hearth_progress_report {
	const char *phase;	/* "scanning", "storing", "writing", ... */
	uint64_t done, total;	/* items; total 0 when unknown */
	/* Bytes of this phase so far (read and stored, written, or on the
	 * wire), and how many it expects (0 when unknown). */
	uint64_t bytes_done, bytes_total;
	const char *path;	/* item being worked on, may be NULL */
	/* sync: bytes on the wire each way since it began. */
	uint64_t bytes_in, bytes_out;
};

/* Long calls report through report (from the calling thread) as they go,
 * every chunk's bytes counted, at most about ten times a second and at
 * least at each new phase; they stop at the next safe point once *cancel
 * is nonzero (within a file: between its chunks), returning
 * HEARTH_CANCELLED with the store as it was before the call (a sync keeps
 * the chunks it made durable; hearth_sync says how). Either member may be
 * NULL. */
struct hearth_progress {
	void (*report)(void *context, const struct hearth_progress_report *report);
	void *context;
	const atomic_int *cancel;
};

/* ---- finding, making and opening a Home ------------------------------------------ */

typedef struct hearth hearth;

/* Where a Home was found (docs/DESIGN.md §10): -c FILE, HEARTH_CONFIG, a root marker
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

/* What the config module cannot check alone: every ignore: pattern and
 * place: glob compiles. HEARTH_FAILED naming the file, the key and the
 * entry otherwise. */
int hearth_validate_config(const struct config *config, struct hearth_error *error);

/* Whether the config's peer number index can be synced with, as far as can
 * be told without connecting. HEARTH_USAGE when its URL can never work (a
 * kind other than a path or ssh://, a malformed ssh:// URL, scp's
 * host:path); HEARTH_FAILED or HEARTH_NOT_A_HOME when its path is not there
 * or not a Home now (a disk not mounted). The message names the peer, the
 * config file, the URL and what is wrong. */
int hearth_check_peer(const struct config *config, size_t index, struct hearth_error *error);
/* The effective config of an open Home (never NULL). */
const struct config *hearth_config(const hearth *home);

struct hearth_init_options {
	const char *dir;		/* the Home's only root; made if missing */
	const char *config_path;	/* a joined Home's config; NULL for DIR/.hearth */
	/* The Home's id, hex: set by clone (a new replica of an existing
	 * Home); NULL makes a new Home. */
	const char *home_id;
	/* Set by clone: the source, written into the config as peer "origin",
	 * with the remote_command and ssh_command it needed (NULL: none). */
	const char *origin;
	const char *origin_remote_command, *origin_ssh_command;
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
	/* The unnamed head state (see hearth_head), as hearth_resolve gives
	 * it: id and short_id "head", no author, its ops in changes. */
	bool unnamed;
	char id[HEARTH_ID_HEX];		/* full id: SHA-256 of the COMMIT op */
	char short_id[HEARTH_ID_HEX];	/* shortest unambiguous prefix, >= 8 */
	char replica[33];		/* the recording replica, hex */
	uint64_t counter;		/* the COMMIT op's counter on that replica */
	int64_t time;			/* unix seconds */
	int32_t utc_offset;		/* seconds east of UTC where it was recorded */
	const char *author;
	const char *message;
	uint64_t changes;		/* ops this version recorded */
	bool synced;			/* recorded by another replica: it arrived by a sync */
	/* hearth_log with a path: where that file or folder was in this
	 * version (before it, for the version that deleted it); else NULL. */
	const char *path;
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
	/* Only the versions whose own work changed this file or folder
	 * (Home-relative; one in the working tree, head or, once deleted,
	 * an older version), followed through renames and moves by its
	 * identity; merge versions, which record no work, are left out.
	 * HEARTH_USAGE when no version ever held it. NULL: every version. */
	const char *path;
};

/* Newest first by the time each was recorded, ties broken by the total
 * order of docs/DESIGN.md §2 (versions two replicas made at once
 * interleave by time). head~N counts in this order from head. */
int hearth_log(hearth *home, const struct hearth_log_query *query,
    struct hearth_version_list *out, struct hearth_error *error);

/* Resolves "head", "head~N", a full id or an unambiguous prefix (>= 4 hex)
 * to exactly one version. "head" is the head state (see hearth_head):
 * the newest version when it holds every op, else the unnamed state. */
int hearth_resolve(hearth *home, const char *spec, struct hearth_version_list *out,
    struct hearth_error *error);
void hearth_version_list_free(struct hearth_version_list *list);

/* What "head" names: the head state, every op this replica holds. A sync
 * that leaves no version naming it records a merge version (made by the
 * syncing replica, "Merge N versions from PEER"), so head is the newest
 * version. A Home made by an older build, or one a peer pushed into, can
 * hold ops past its newest version: head is then that unnamed state,
 * head~1 the newest version, and log and status say so. */
struct hearth_head {
	char version[HEARTH_ID_HEX];	/* the newest version; "" before any */
	char short_id[HEARTH_ID_HEX];
	bool named;			/* that version holds the head state */
	uint64_t unnamed_ops;		/* when not named: ops held past it */
	bool tree_at_head;		/* the working tree holds the head state */
};

int hearth_head(hearth *home, struct hearth_head *out, struct hearth_error *error);

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
	/* The root that holds it, and for a move the one it was in (NULL when
	 * not known, as in a version's changes). */
	const char *root, *old_root;
	/* hearth_show: when a line merge made this content in the version,
	 * who made the sides ("laptop and desktop"); else NULL. hearth_diff
	 * of it shows what each side brought, against their base. */
	const char *merged_from;
};

struct hearth_change_list {
	struct hearth_change *items;
	size_t count;
	struct hearth_storage *storage;
};

void hearth_change_list_free(struct hearth_change_list *list);

/* What a walk of the tree left out on purpose, one line each ("PATH: why,
 * left out"; another Home's state, say), each thing once. */
struct hearth_note_list {
	const char **items;
	size_t count;
	struct hearth_storage *storage;
};

void hearth_note_list_free(struct hearth_note_list *list);

struct hearth_status_report {
	struct hearth_change_list changes;	/* sorted by path */
	struct hearth_note_list notes;		/* what the walk left out */
	char tree_version[HEARTH_ID_HEX];	/* version the tree was last at; "" before any */
	char tree_short[HEARTH_ID_HEX];
	char head_version[HEARTH_ID_HEX];	/* newest version; "" before any */
	char head_short[HEARTH_ID_HEX];
	/* As hearth_head: whether head_version holds the head state, the ops
	 * past it when not, and whether the tree holds the head state. */
	bool head_named;
	uint64_t head_unnamed_ops;
	bool tree_at_head;
	uint64_t head_ahead;	/* ops the head has that the tree lacks */
	/* Paths `checkout` would write, remove or move to bring the tree to
	 * head (0 when head_ahead is 0): what those ops change on disk. */
	uint64_t head_changes;
	uint64_t restore_paths;	/* a record would restore tree_version for these */
	uint64_t conflicts;
	/* Answered from the index a running watch keeps current (only the
	 * folders it marked were listed), not by walking the tree. */
	bool from_index;
	uint64_t folders_listed;	/* with from_index: how many */
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

/* The guard on emptying (hearth(1), --yes): a record or checkout that would
 * delete more than max_delete of one root's files, or every file of a
 * root, is refused (HEARTH_REFUSED, nothing done) unless allowed; then
 * refused says so and names the root and the counts. */
struct hearth_delete_guard {
	bool refused;
	bool recording;		/* a record was stopped (else a checkout) */
	bool every_file;	/* it would delete every file of the root */
	uint32_t max_delete_percent;	/* the limit it went past, otherwise */
	char root[128];
	char root_path[4096];
	uint64_t deleting, files;
};

struct hearth_record_options {
	const char *message;		/* NULL: "" */
	const char *const *paths;	/* limit to these paths (and below); NULL: all */
	size_t path_count;
	/* After checking out an older version, a record makes it head's
	 * content again (a restore); with this, only what was edited since is
	 * recorded (checkout --force saving edits before moving on). */
	bool leave_restores;
	/* Past the guard on emptying (struct hearth_delete_guard). */
	bool allow_deletes;
};

struct hearth_record_result {
	char version[HEARTH_ID_HEX];	/* "" when there was nothing to record */
	char short_id[HEARTH_ID_HEX];
	uint64_t ops;
	uint64_t files_stored;		/* files whose content was read and stored */
	uint64_t bytes_stored;		/* their bytes, before compression */
	/* Files and folders the record moved in the tree to the names head
	 * now gives them: a name clash its changes settled or made. */
	uint64_t names_followed;
	struct hearth_change_list changes;
	struct hearth_note_list notes;	/* what the walk left out */
	struct hearth_delete_guard guard;	/* why it was refused, if it was */
};

int hearth_record(hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct hearth_error *error);
void hearth_record_result_free(struct hearth_record_result *result);

/* ---- checkout and export ---------------------------------------------------------- */

struct hearth_checkout_options {
	const char *version;	/* NULL: head */
	bool force;		/* record unrecorded changes first, then check out */
	/* Past the guard on emptying (struct hearth_delete_guard): a vanished
	 * disk on one machine must not empty the others unasked. */
	bool allow_deletes;
};

struct hearth_checkout_result {
	char version[HEARTH_ID_HEX];
	struct hearth_delete_guard guard;	/* why it was refused, if it was */
	char recorded[HEARTH_ID_HEX];	/* the version --force recorded first, or "" */
	uint64_t written, removed, moved;
	uint64_t prefilled;	/* of written: files a sync wrote as their bytes arrived */
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
	__int128 mtime_ns;	/* 128 bits: a file may be dated after 2262 */
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

/* Paths, sorted by their bytes. */
struct hearth_path_list {
	const char **items;
	size_t count;
	bool more;		/* the limit left some out */
	struct hearth_storage *storage;
};

/* The working tree's paths, as hearth_list (version NULL) has them in the
 * index, whose own name holds text, ASCII letters matched in either case
 * (the app's Home filter); at most limit (0: all), the first by path. An
 * empty text matches nothing. */
int hearth_find_names(hearth *home, const char *text, size_t limit,
    struct hearth_path_list *out, struct hearth_error *error);
void hearth_path_list_free(struct hearth_path_list *list);

/* A working-tree path's size and time as the disk has them now (the index
 * has them as last recorded): from the root named root when it holds the
 * path, else from the first root that does. Nothing is followed, not a
 * link on the way nor at the end. 1 found, 0 when no root holds it (moved
 * away, deleted). */
int hearth_disk_stamp(hearth *home, const char *path, const char *root, uint64_t *size,
    __int128 *mtime_ns);

/* Writes the bytes of a file at a version to fd; a folder or a symbolic
 * link is HEARTH_USAGE (hearth(1): show --cat). */
int hearth_cat(hearth *home, const char *version, const char *path, int fd,
    struct hearth_error *error);

struct hearth_text {
	char *text;		/* NUL-terminated, owned; free with hearth_text_free */
	size_t length;
	bool binary;		/* not shown as text: binary or too big */
	/* hearth_diff and hearth_comparison_diff: the lines the diff adds
	 * and removes (0 for a binary file). */
	size_t added, removed;
};

/* A diff of one path between a version and the one before it on its
 * replica, as hearth_comparison_diff writes it; a moved file is diffed
 * against itself where it was. */
int hearth_diff(hearth *home, const char *version, const char *path, size_t max_bytes,
    struct hearth_text *out, struct hearth_error *error);
/* A unified diff between two contents named by their ids (the hash of a
 * struct hearth_conflict_side; NULL or "" for no content), with the labels
 * on its ---/+++ lines. Contents over max_bytes or with NUL bytes give
 * binary = true and no text. */
int hearth_diff_blobs(hearth *home, const char *old_hash, const char *new_hash,
    const char *old_label, const char *new_label, size_t max_bytes, struct hearth_text *out,
    struct hearth_error *error);
void hearth_text_free(struct hearth_text *text);

/* Two states of the Home side by side (hearth diff): two versions, a
 * version and the working tree, or the working tree and the version it
 * is at. Files are matched by identity, so a move is one change and a
 * moved file is diffed against itself where it was. */
struct hearth_compare_options {
	/* The old side: a version; NULL: the working tree as last recorded
	 * or checked out (what status compares the disk with). */
	const char *from;
	/* The new side: a version; NULL: the working tree on disk. A version
	 * here needs one in from too. */
	const char *to;
	const char *const *paths;	/* Home-relative; limit to these and below; NULL: all */
	size_t path_count;
};

typedef struct hearth_comparison hearth_comparison;

/* Compares the two sides: out->changes as hearth_show lists them (sorted
 * by path). The working tree side walks it as hearth_status does.
 * HEARTH_USAGE for an unknown version, or a path on neither side. The
 * comparison belongs to home's thread; free it before closing home. */
struct hearth_comparison_result {
	struct hearth_change_list changes;
	hearth_comparison *comparison;
};

int hearth_compare(hearth *home, const struct hearth_compare_options *options,
    const struct hearth_progress *progress, struct hearth_comparison_result *out,
    struct hearth_error *error);
/* The diff of changes.items[index]: a "diff --git a/OLD b/NEW" heading,
 * rename, root and mode lines, then a unified diff with 3 lines of
 * context, or "Binary files ... differ" when a side has NUL bytes or is
 * over max_bytes (binary = true then). A folder gives the heading alone. */
int hearth_comparison_diff(struct hearth_comparison_result *result, size_t index,
    size_t max_bytes, struct hearth_text *out, struct hearth_error *error);
void hearth_comparison_free(struct hearth_comparison_result *result);

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
	/* The first root that cannot be used, and where it should be ("" when
	 * all are there): what to tell the user to mount. */
	char problem_root[128];
	char problem_root_path[4096];
};

int hearth_summary(hearth *home, struct hearth_summary *out, struct hearth_error *error);

/* The store's cost counters (docs/DESIGN.md §5), kept across runs. */
struct hearth_stats {
	uint64_t ops, versions, nodes, entries;
	uint64_t chunks, blobs, packs;
	uint64_t stored_bytes;		/* content bytes held, before compression and deltas */
	uint64_t pack_bytes;		/* bytes in pack files */
	uint64_t delta_chunks;		/* chunks stored as deltas against another */
	uint64_t delta_bytes;		/* their stored_bytes */
	uint64_t depth_max;		/* the longest delta chain */
	double depth_mean;		/* the mean depth of the chunks stored as deltas */
	uint64_t bytes_written;		/* packs + database, since the Home was made */
	uint64_t content_bytes_written;	/* stored bytes those writes carried */
	uint64_t packs_created;
	uint64_t transactions;
	uint64_t database_bytes;
};

int hearth_stats(hearth *home, struct hearth_stats *out, struct hearth_error *error);

/* ---- pack upkeep ---------------------------------------------------------------------- */

struct hearth_gc_result {
	bool ran;			/* false: nothing to consolidate */
	uint64_t packs_before, packs_after;
	uint64_t bytes_before, bytes_after;	/* in pack files */
	uint64_t chunks;		/* chunks copied into the new packs */
	uint64_t delta_chunks;		/* of which stored as deltas */
};

/* Consolidates every pack into new ones (about 1 GiB each), each node's
 * newest version whole and its older ones as deltas against the version
 * after them; the old packs go once the new ones are durable and the
 * store points at them. */
int hearth_gc(hearth *home, struct hearth_gc_result *out, struct hearth_error *error);
/* The light upkeep after a command that made a pack: when the Home holds
 * more than 50 packs (HEARTH_GC_AUTO_PACKS; 0 never), the small ones are
 * merged into one, their chunks and deltas as they were. out->ran says
 * whether it did. */
int hearth_upkeep(hearth *home, struct hearth_gc_result *out, struct hearth_error *error);

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

struct hearth_repair_options {
	const char *peer;	/* a replica to fetch from, as hearth_sync_options.peer */
	const char *program;	/* as hearth_sync_options.program */
};

struct hearth_repair_result {
	char peer_name[4096];
	uint64_t chunks_damaged;	/* damaged or missing, as fsck found them */
	uint64_t chunks_copied;		/* still whole here: moved out of a damaged pack */
	uint64_t chunks_fetched;	/* from the peer */
	uint64_t chunks_lacking;	/* the peer could not give them either */
	uint64_t packs_retired;		/* damaged packs no longer used, kept in STATE/damaged */
	uint64_t markers_rewritten;	/* folders' identity markers written anew */
	uint64_t ops_damaged;		/* ops whose bytes do not match their hash chain */
	uint64_t ops_fetched;		/* fetched from the peer and proved by the chain */
	uint64_t ops_lacking;		/* the peer sent no copy the chain proves */
	uint64_t rows_mended;		/* op and history rows written anew from their op */
	uint64_t index_notes_cleared;	/* the index's wrong note that head dropped none of its rows */
	char lacking[HEARTH_ERROR_MAX];	/* why the first lacking chunk or op could not be had */
};

/* Mends what hearth_fsck finds damaged in the content: every chunk of a
 * damaged, truncated or missing pack (and every chunk an op needs that the
 * store lacks) is copied from the pack while it still reads whole, or else
 * fetched from the peer (protocol 2, WIRE_FETCH), into one new pack; the
 * index then points there, and the damaged packs, no longer used, move to
 * STATE/damaged/. Damaged folder markers are written anew from the index.
 * A damaged op is fetched again from the peer (protocol 3, WIRE_REFETCH)
 * and taken only when this store's hash chain proves it; op and history
 * rows that disagree with their op are written anew, and the index's note
 * that head dropped none of its rows taken away where rows prove it wrong.
 * Takes the write lock; all or nothing for the content (one
 * transaction after the new pack is durable). HEARTH_DAMAGED when some
 * chunks could not be had; run hearth_fsck afterwards to see what is
 * left. Damage to store.db itself is not mended here. */
int hearth_fsck_repair(hearth *home, const struct hearth_repair_options *options,
    const struct hearth_progress *progress, struct hearth_repair_result *out,
    struct hearth_error *error);

/* ---- small helpers front ends share ------------------------------------------------------ */

/* Writes name into out with invalid UTF-8 and control characters escaped
 * (\xNN, \n, \t, \\), so a name shows on one line and can be told apart. */
size_t hearth_escape_name(const char *name, char *out, size_t out_size);

const char *hearth_version_string(void);

/* ---- the index of the disk: reconcile and watch (docs/DESIGN.md §6) ---------------- */

/* Beside the working-tree index (as last recorded or checked out), the
 * store keeps what the disk holds at folder grain: each folder's stamp and
 * the folders that differ from the index. A watch keeps it current; while
 * one does, status and record list only those folders. */

struct hearth_reconcile_options {
	bool check_only;	/* the restart check alone: folders stat'ed, none listed */
};

struct hearth_reconcile_result {
	uint64_t folders_checked;	/* restart check: folders whose stamps were compared */
	uint64_t folders_changed;	/* restart check: those found changed or untrusted */
	uint64_t folders_walked;	/* the walk: folders listed */
	uint64_t entries;		/* the walk: items listed */
	uint64_t pages;			/* transactions committed */
	uint64_t differ;		/* folders that differ from the index afterwards */
	bool resumed;			/* the walk went on where a stopped one left off */
	char resumed_after[4096];	/* the last folder that one had done ("" the top) */
	uint64_t generation;		/* the walk's number */
};

/* The restart check (check_only), or the walk of every folder in pages of
 * a few hundred entries, one transaction each, going on from where an
 * interrupted walk stopped. Writes no ops and no entry row; fails closed
 * when a root is missing. A set cancel flag stops between pages (what the
 * pages did stays; the next call goes on). */
int hearth_reconcile(hearth *home, const struct hearth_reconcile_options *options,
    const struct hearth_progress *progress, struct hearth_reconcile_result *out,
    struct hearth_error *error);

enum hearth_watch_state {
	HEARTH_WATCH_CHECKING = 1,	/* watches in place; the restart check is to come */
	HEARTH_WATCH_CHECKED,		/* folders checked; the full walk is to come */
	HEARTH_WATCH_WALKING,		/* the full walk is under way */
	HEARTH_WATCH_CURRENT,		/* the index is current: status needs no walk */
	HEARTH_WATCH_POLLING,		/* inotify gave up: a walk every poll_interval */
	HEARTH_WATCH_STOPPED,		/* a root went missing: nothing is watched */
};

struct hearth_watch_report {
	enum hearth_watch_state state;
	const char *state_name;		/* "checking", "checked", "walking", "current", ... */
	bool state_changed;		/* since the last report */
	bool index_changed;		/* a status now may differ from the last one */
	uint64_t folders_watched;
	uint64_t events;		/* inotify events read so far */
	uint64_t pages;			/* reconcile pages committed so far */
	uint64_t differ;		/* marked folders, as of the last page */
	char detail[1024];		/* why polling or stopped; what the check found */
};

struct hearth_watch;

/* Watches every folder of every root (inotify) and keeps the index
 * current: a restart check first, then, once the Home has been quiet for
 * about 2 s, the full walk in the background; from then on each change
 * marks its folder at once. A queue overflow or the inotify watch limit
 * retires the watches and falls back to a walk every poll_interval. While
 * it runs, hearth_status in any process answers from the index. The watch
 * belongs to home's thread; hearth_watch_stop before hearth_close. */
int hearth_watch_start(hearth *home, struct hearth_watch **out, struct hearth_error *error);
/* Readable when the watch has events to read; -1 while polling. */
int hearth_watch_fd(const struct hearth_watch *watch);
/* Milliseconds until hearth_watch_run has work to do with may_walk as
 * given (-1: only when the fd is readable). */
int hearth_watch_timeout(const struct hearth_watch *watch, bool may_walk);
/* Reads what the fd holds, keeps the marks, answers status requests, and
 * with may_walk (the user is not waiting for anything) does one short
 * step of background work: the restart check, a page of the walk or of
 * settling. Never waits for another writer. Fails when a root went
 * missing (the watch is then stopped; the message says which). */
int hearth_watch_run(struct hearth_watch *watch, bool may_walk, struct hearth_watch_report *out,
    struct hearth_error *error);
void hearth_watch_stop(struct hearth_watch *watch);

/* ---- sync (docs/DESIGN.md §8) ------------------------------------------------------ */

/* One more than the last enum hearth_conflict_kind (see conflicts). */
#define HEARTH_CONFLICT_KINDS 8

/* Which ways a sync goes; both by default. */
enum hearth_sync_direction {
	HEARTH_SYNC_BOTH = 0,
	HEARTH_SYNC_PULL = 1,	/* only take in what the peer has */
	HEARTH_SYNC_PUSH = 2,	/* only give the peer what it lacks */
};

struct hearth_sync_options {
	/* A name from the config's peers:, a path to another Home (its
	 * folder, its .hearth folder or its config file), or
	 * ssh://[user@]host[:port]/path. */
	const char *peer;
	enum hearth_sync_direction direction;
	/* The program a local peer runs as `PROGRAM serve PATH`; NULL: this
	 * program (/proc/self/exe). */
	const char *program;
	/* The caller owns the terminal (the app): ssh runs without one, with
	 * BatchMode, so it never asks there; a question it needed fails the
	 * sync with a message that says to make the first contact from a
	 * shell. */
	bool batch;
	/* The caller checks head out after a pull (hearth_apply_head): the
	 * sync writes each big file it brings as its bytes arrive, for that
	 * checkout to take instead of reading the pack back. The files wait
	 * in staging until hearth_apply_head, a failed sync or one that
	 * brings nothing to check out, or hearth_close. */
	bool checkout_after;
};

struct hearth_sync_result {
	char peer_name[4096];	/* the config's name, or the URL */
	char url[4096];
	char peer_software[65];	/* "hearth 0.1.0" as the peer reports it */
	char peer_replica[33];
	uint32_t protocol;	/* the version both sides spoke */
	/* Ops, versions and chunks that travelled each way, and the bytes on
	 * the wire (frames included). */
	uint64_t ops_sent, ops_received;
	uint64_t versions_sent, versions_received;
	uint64_t chunks_sent, chunks_received;
	uint64_t chunk_bytes_sent, chunk_bytes_received;
	uint64_t bytes_sent, bytes_received;
	/* Files whose concurrent edits this side merged by line, in a version
	 * of their own ("merged: edits from ..."); the working tree gets them
	 * at the next checkout, like any change from a peer. */
	uint64_t files_merged;
	/* After the sync: ops this replica holds that the peer lacks, and the
	 * other way (both 0 unless someone recorded meanwhile). */
	uint64_t local_ahead, remote_ahead;
	/* Ops the head holds that the working tree lacks, and the paths a
	 * `checkout` would write, remove or move for them (not counted, 0,
	 * with checkout_after: that checkout says what it wrote); sync itself
	 * never touches the tree. */
	uint64_t head_ahead, head_changes;
	/* Conflicts listed after the sync that were not listed before it
	 * (hearth_conflicts lists them): all, and by kind, indexed by enum
	 * hearth_conflict_kind. */
	uint64_t conflicts_new;
	uint64_t conflicts_new_by_kind[HEARTH_CONFLICT_KINDS];
};

/* Syncs with a peer in one connection: takes in the ops this replica
 * lacks (and the chunks of their content it lacks, into one new pack),
 * then gives the peer what it lacks. Each side commits what it received in
 * one transaction after its pack is durable, so an interruption at any
 * point leaves both as they were or with a complete first half; running
 * the sync again completes it. The working tree is not changed. The
 * outcome is kept in the peer table (hearth_peers), on failure too.
 * progress reports phases "connecting", "receiving ops", "receiving
 * chunks", "integrating", "sending ops", "sending chunks"; a set cancel
 * flag stops at the next frame (HEARTH_CANCELLED, nothing half-done).
 * Ignores SIGPIPE in the calling process from then on. */
int hearth_sync(hearth *home, const struct hearth_sync_options *options,
    const struct hearth_progress *progress, struct hearth_sync_result *out,
    struct hearth_error *error);

struct hearth_serve_options {
	/* The Home to serve: its folder, its .hearth folder or its config
	 * file; a leading "~/" is the user's home folder. */
	const char *path;
	int in_fd, out_fd;	/* the protocol's two directions */
};

/* The other end of hearth_sync (`hearth serve PATH`): answers one client
 * on in_fd/out_fd, writing nothing else to out_fd. Returns when the client
 * is done or gone; on failure the client is sent the message too. */
int hearth_serve(const struct hearth_serve_options *options, struct hearth_error *error);

struct hearth_peer_status {
	const char *name;
	const char *url;
	bool configured;	/* in the config's peers: (else synced with by URL) */
	char replica[33];	/* "" before the first successful contact */
	int64_t last_attempt, last_success;	/* unix seconds, 0 for never */
	const char *last_error;	/* "" when the last attempt succeeded */
	uint64_t ops_sent, ops_received, bytes_sent, bytes_received;	/* last success */
	uint64_t local_ahead, remote_ahead;	/* as of the last attempt */
};

struct hearth_peer_list {
	struct hearth_peer_status *items;
	size_t count;
	struct hearth_storage *storage;
};

/* The config's peers in their order, then any other peer synced with by
 * URL, each with what its last sync did; a replica synced with by URL and
 * named in the config since is one row, the configured one. Reads only. */
int hearth_peers(hearth *home, struct hearth_peer_list *out, struct hearth_error *error);
void hearth_peer_list_free(struct hearth_peer_list *list);

/* ---- conflicts ----------------------------------------------------------------------- */

enum hearth_conflict_kind {
	HEARTH_CONFLICT_CONTENT = 1,	/* edited on two replicas at once */
	HEARTH_CONFLICT_MOVE,		/* moved or renamed two ways at once */
	HEARTH_CONFLICT_CYCLE,		/* a folder move skipped: it would have looped */
	HEARTH_CONFLICT_EDIT_REVIVED,	/* deleted on one replica, edited on another: kept */
	HEARTH_CONFLICT_REVIVED,	/* a deleted folder kept for what was added inside */
	HEARTH_CONFLICT_NAME,		/* two files, one name, one folder: both kept */
	HEARTH_CONFLICT_INVALID_OP,	/* an op that could not apply (a broken peer) */
};

/* One side of a conflict: an op, who made it and what it would mean. */
struct hearth_conflict_side {
	char replica[33];
	uint64_t counter;	/* the op on that replica */
	bool mine;		/* made by this replica */
	bool shown;		/* the side the working tree holds */
	const char *author;	/* of the version that recorded it ("" if unknown) */
	int64_t time;		/* of that version, unix seconds (0 if unknown) */
	const char *what;	/* "edit", "delete", "move", "add" (into a revived folder), "name" */
	const char *path;	/* where this side puts the node */
	/* Where head shows what this side holds now: for a name conflict
	 * that side's own file (n.txt, or n~01a232e5.txt renamed), else
	 * the conflict's path. */
	const char *shown_path;
	bool has_content;
	uint64_t size;
	char hash[HEARTH_ID_HEX];	/* content id, "" without content */
};

struct hearth_conflict {
	char id[40];		/* for resolve: "<kind letter><16 hex of the node>", stable */
	char node[33];		/* the node, hex */
	enum hearth_conflict_kind kind;
	const char *kind_name;	/* "content", "move", "cycle", "edit-revived", ... */
	const char *path;	/* where the node is shown now */
	enum hearth_entry_kind entry_kind;
	/* In total order, the winner last. An edit-revived conflict lists
	 * the delete, then each edit it was kept for; a revived folder the
	 * delete, then what is in it ("add", or the edit that revived it
	 * too); a cycle the skipped move, then the move (shown) it would
	 * have looped with. A name conflict's sides are the naming ops of
	 * each file of the clash, with the size and content each file holds
	 * now. */
	struct hearth_conflict_side *sides;
	size_t side_count;
};

struct hearth_conflict_list {
	struct hearth_conflict *items;	/* sorted by path, then kind */
	size_t count;
	struct hearth_storage *storage;
};

int hearth_conflicts(hearth *home, struct hearth_conflict_list *out, struct hearth_error *error);
/* "content", "move", "cycle", "edit-revived", "revived", "name", "invalid-op". */
const char *hearth_conflict_kind_name(enum hearth_conflict_kind kind);
void hearth_conflict_list_free(struct hearth_conflict_list *list);

/* A content conflict as a three-way merge sees it: the base its sides
 * share (found through what each edit replaced) and, for each hunk where
 * they overlap, the base's lines and each side's. */
struct hearth_overlap {
	uint64_t base_line, base_count;	/* 1-based first line of the base, and how many */
	const char *base, *mine, *theirs;	/* the lines, each with its newline */
};

struct hearth_conflict_merge {
	/* false when it cannot be merged by line: binary, over 4 MiB,
	 * never_merge, or no base; why says which. */
	bool text;
	const char *why;
	const char *mine_label, *theirs_label;	/* who made each side */
	struct hearth_overlap *overlaps;
	size_t overlap_count;
	/* The sides beyond the first two, folded into mine in total order,
	 * when the conflict has more than two. */
	size_t sides_folded;
	struct hearth_storage *storage;
};

/* The three-way view of a content conflict (its id, from
 * hearth_conflicts): mine is this replica's side when it has one. Reads
 * only. HEARTH_USAGE when id names no content conflict. */
int hearth_conflict_merge(hearth *home, const char *conflict_id,
    struct hearth_conflict_merge *out, struct hearth_error *error);
void hearth_conflict_merge_free(struct hearth_conflict_merge *merge);

enum hearth_resolution {
	HEARTH_KEEP_MINE = 1,	/* this replica's side wins */
	HEARTH_KEEP_THEIRS,	/* the other replicas' side wins */
	HEARTH_KEEP_BOTH,	/* content: the others beside it as name~hex; names: keep both */
	HEARTH_KEEP_VERSION,	/* content: as it was at a version */
	/* content, text: mine and theirs merged by line, each overlap between
	 * diff3 markers, written as a new side in place of mine; the
	 * conflict stays listed until the file is recorded without markers. */
	HEARTH_KEEP_MARKERS,
};

struct hearth_resolve_options {
	/* Conflicts to settle: ids from hearth_conflicts, or paths, or globs
	 * of paths ("Documents/ *.txt", no space). */
	const char *const *targets;
	size_t target_count;
	enum hearth_resolution resolution;
	const char *version;	/* for HEARTH_KEEP_VERSION */
	const char *message;	/* of the version the resolution records; NULL: a default */
};

struct hearth_resolve_result {
	char version[HEARTH_ID_HEX];	/* the version recorded, "" if nothing was */
	size_t resolved;
	struct hearth_change_list changes;	/* what changed in the working tree */
};

/* Settles conflicts with new ops (a version recorded at once) and writes
 * the outcome to the working tree for those paths only. Refuses, changing
 * nothing, when a path it would write holds an unrecorded change
 * (HEARTH_REFUSED), or when a target names no conflict (HEARTH_USAGE). */
int hearth_resolve_conflicts(hearth *home, const struct hearth_resolve_options *options,
    const struct hearth_progress *progress, struct hearth_resolve_result *out,
    struct hearth_error *error);
void hearth_resolve_result_free(struct hearth_resolve_result *result);

/* After a sync, with auto_checkout in the config: records what the working
 * tree holds that is not recorded, then checks out head; both stop at the
 * guard on emptying unless allow_deletes (HEARTH_REFUSED, out->guard).
 * Takes the files a sync with checkout_after wrote, and removes those it
 * did not need. */
int hearth_apply_head(hearth *home, bool allow_deletes, const struct hearth_progress *progress,
    struct hearth_checkout_result *out, struct hearth_error *error);

/* ---- more replicas ------------------------------------------------------------------- */

struct hearth_clone_options {
	const char *source;	/* a peer: path, ssh:// URL */
	const char *dir;	/* the new replica's only root; may hold files already */
	/* Or the config of a joined Home (its roots and state), made as
	 * hearth_init does with config_path; dir is then not used. */
	const char *config_path;
};

struct hearth_clone_result {
	char replica[33];
	uint64_t ops;		/* ops received */
	uint64_t adopted;	/* files already there with the same content */
	uint64_t written;	/* files written */
	uint64_t prefilled;	/* of those, written as their bytes arrived */
	char recorded[HEARTH_ID_HEX];	/* files there that differ, recorded as this
					 * replica's own changes ("" if none) */
};

/* Makes a new replica of SOURCE's Home at dir with its own replica id,
 * syncs, and brings the tree to head without overwriting anything: a file
 * already at its path with the same content is adopted as is; one that
 * differs, and files head does not have, are recorded as this replica's
 * own changes. */
int hearth_clone(const struct hearth_clone_options *options,
    const struct hearth_progress *progress, struct hearth_clone_result *out,
    struct hearth_error *error);

/* Gives this replica (a copied state folder) a fresh id; ops it makes from
 * now on carry it. Writes the new id's hex to replica. */
int hearth_reid(hearth *home, char replica[33], struct hearth_error *error);

/* Copies into out (NUL-terminated) and clears what this Home has to tell
 * the user that is no error: that its state folder was found to be a copy
 * and given its own replica id. false when there is nothing. */
bool hearth_take_notice(hearth *home, char *out, size_t size);

#endif
