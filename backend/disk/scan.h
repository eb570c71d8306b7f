/* Walking the joined tree and comparing it with the working-tree index:
 * what was added, deleted, modified, moved or restored since the tree was
 * last recorded or checked out. Status reports the result; record turns it
 * into ops. Unchanged files are known from their stat stamps unread. */
#ifndef HEARTH_BACKEND_SCAN_H
#define HEARTH_BACKEND_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "backend/disk/home.h"
#include "model/arena.h"
#include "model/id.h"
#include "model/op.h"

struct buffer;

enum scan_change_kind {
	SCAN_ADDED = 1,
	SCAN_DELETED,
	SCAN_MODIFIED,		/* content or mode; maybe unchanged until hashed */
	SCAN_MOVED,		/* new parent or name; content may also differ */
	SCAN_RESTORE,		/* tree holds an older version than head; record restores it */
	SCAN_STAMP,		/* content unchanged, stat stamp moved: refresh it */
};

/* A stat stamp: what tells an unchanged file without reading it. */
struct scan_stamp {
	uint64_t size;
	uint32_t mode;		/* permission bits */
	op_mtime mtime_ns;	/* exact, whatever the year (op.h) */
	int64_t ctime_ns;
	uint64_t device, inode;
};

struct scan_change {
	enum scan_change_kind kind;
	enum node_kind node_kind;
	struct node_id node;
	struct node_id parent;		/* on disk now (NODE_TRASH for deleted) */
	const uint8_t *name;		/* on disk now */
	size_t name_length;
	const char *path;		/* Home-relative, on disk now (or as it was, deleted) */
	const char *old_path;		/* where the index had it, for moved */
	int root;			/* index into home->roots */
	int old_root;			/* where the index had it; -1 if nowhere */
	const char *root_name, *old_root_name;	/* the same, by name (NULL: none) */
	struct scan_stamp stamp;	/* on disk now */
	/* Content: needs_content when the stamp cannot tell and the bytes must
	 * be hashed; content_changed once known different. */
	bool needs_content;
	bool content_changed;
	bool mode_changed;
	struct hash blob;		/* new content once hashed/stored */
	/* The index's side. */
	bool has_entry;
	struct hash old_blob;
	uint32_t old_mode;
	int restore;
	const uint8_t *seen;		/* encoded op ids the tree had seen */
	size_t seen_length;
	/* The id the file's xattr or the folder's marker claims (read for what
	 * the index does not hold where it is); identity_stale when the item
	 * does not carry its own node's id yet and a record should write it. */
	bool has_identity;
	struct node_id identity;
	bool identity_stale;
	/* Found by record: the file holds diff3 conflict markers and its node
	 * is in a content conflict (the markers are a merge not yet done). */
	bool has_markers;
	/* Found by record and status while the tree is behind head
	 * (backend/history/adopt.h): what of the change is head's already
	 * was taken out of it. A delete or restore so marked is no change. */
	bool adopted;
};

/* Something on disk the walk left out on purpose, said once (status and
 * record show it; checkout never writes there). */
struct scan_left_out {
	const char *path;		/* Home-relative */
	int root;
	const char *why;		/* "another Home's state, left out" */
	bool excluded;			/* left out of the walk: checkout never writes there */
};

struct scan_result {
	struct scan_change *changes;	/* sorted by path */
	size_t count, capacity;
	struct scan_left_out *left_out;	/* in the order found */
	size_t left_out_count, left_out_capacity;
	uint64_t entries_seen;		/* files, folders and links walked */
	uint64_t folders_listed;	/* scan_folders: the folders it was given */
	/* A path the index holds that a rename or move above it put past
	 * PATH_MAX (the first found), or NULL: record refuses it. */
	const char *recorded_too_long;
	struct arena arena;		/* owns every string and the array */
};

/* Walks the tree (limited to paths, Home-relative, when path_count > 0).
 * Nodes for added items get fresh ids here. Nothing is written. */
int scan_tree(struct hearth *home, const char *const *paths, size_t path_count,
    const struct hearth_progress *progress, struct scan_result *out, struct hearth_error *error);
void scan_result_free(struct scan_result *result);
/* The rows of the working-tree index. */
uint64_t scan_entry_count(struct hearth *home);
/* The index's rows a restore left to write (entry.restore set). */
uint64_t scan_restore_count(struct hearth *home);

/* A folder the index holds: its node and Home-relative path. */
struct scan_folder {
	struct node_id node;
	const char *path;
};

/* What scan_tree of the whole tree finds, when every change lies in these
 * folders (the dirty folders of a current index, reconcile.h): each is
 * listed one level deep, and only what is new or moved in one is walked
 * whole. The folders must be distinct, on disk, and none inside a folder
 * that is new or moved. Restores are not looked for. */
int scan_folders(struct hearth *home, const struct scan_folder *folders, size_t count,
    const struct hearth_progress *progress, struct scan_result *out, struct hearth_error *error);

/* One folder's own stamp in one root. */
struct scan_root_stamp {
	bool present;
	struct scan_stamp stamp;
};

/* One folder of the index against the disk, the reconcile's unit. */
struct scan_folder_check {
	bool present;		/* a folder in at least one root */
	/* Something in it is added, gone, retyped, or a file whose stamp does
	 * not tell it unchanged (status would read it). Folders inside are
	 * not entered. */
	bool differs;
	uint64_t items;		/* what the roots hold there */
	struct scan_root_stamp *roots;	/* the caller's, one per root: the folder's stamps */
};

int scan_check_folder(struct hearth *home, struct node_id node, const char *path,
    struct scan_folder_check *out, struct hearth_error *error);

/* Reads the content of a change whose stamp could not tell: hashes it and
 * settles content_changed, turning an unchanged MODIFIED into SCAN_STAMP. */
int scan_hash_content(struct hearth *home, struct scan_change *change, struct hearth_error *error);

/* scan_hash_content for every change but an added one whose stamp could
 * not tell (what status and diff need settled); stops when cancelled. */
int scan_settle_content(struct hearth *home, struct scan_result *scan,
    const struct hearth_progress *progress, struct hearth_error *error);

/* Opens a folder below a root without following any symlink on the way
 * (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS): "" opens the root itself. */
int scan_open_folder(int root_fd, const char *relative_path);
/* Opens a regular file below a root the same way, and never blocks: the
 * open is O_NONBLOCK (a FIFO put in a file's place since the walk opens at
 * once instead of waiting for a writer) and fstat must find a regular
 * file, else the descriptor is closed and SCAN_NOT_A_FILE returned. -1
 * with errno when it cannot be opened. */
#define SCAN_NOT_A_FILE (-2)
int scan_open_file(int root_fd, const char *relative_path);
/* Reads a symlink's target below a root (allocates into arena). */
/* Opens the folder that holds relative_path beneath root_fd, as
 * scan_open_folder (nothing followed on the way); *leaf is the last name.
 * -1 with errno. */
int scan_open_parent(int root_fd, const char *relative_path, const char **leaf);
/* lstat of relative_path beneath root_fd, nothing followed on the way. */
int scan_stat_path(int root_fd, const char *relative_path, struct stat *out);
int scan_read_link(int root_fd, const char *relative_path, struct arena *arena, char **target,
    size_t *length);

/* The user-facing list: stamp refreshes left out, restores (the tree at an
 * older version than head) only when asked. */
void scan_to_change_list(const struct scan_result *result, bool restores,
    struct hearth_change_list *out);
/* Adds a note about path (once per root and path); excluded when the walk
 * left it out. */
void scan_note(struct scan_result *result, int root, const char *path, const char *why,
    bool excluded);
/* What was left out, as "PATH: why" lines. */
void scan_to_note_list(const struct scan_result *result, struct hearth_note_list *out);
/* Whether a Home-relative path is on disk in some root or in the index. */
bool scan_path_known(struct hearth *home, const char *path);
/* The path the index holds for a node (for reporting moves and deletes);
 * false when its chain of parents is broken. */
bool scan_index_path(struct hearth *home, struct node_id node, struct buffer *out);
/* The node the index holds at path (its first length bytes), into *node;
 * with folder, only folders count at every step (a name a file holds in
 * one root and a folder in another leads to the folder). False when there
 * is none. */
bool scan_index_lookup(struct hearth *home, const char *path, size_t length, bool folder,
    struct node_id *node);

/* Whether the racy rule forbids trusting a stamp: the file changed within
 * 2 s of when the stamp was taken (docs/DESIGN.md §6, as git does). */
bool scan_stamp_is_racy(op_mtime mtime_ns, int64_t stamped_ns);

/* ---- rows of the working-tree index, as record and checkout write them ---- */

/* One entry row (docs/DESIGN.md §5); pointers valid during the call. */
struct scan_entry_row {
	struct node_id node, parent;
	const void *name;
	size_t name_length;
	enum node_kind kind;
	const char *root;
	const struct hash *blob;	/* NULL: none (a folder) */
	struct scan_stamp stamp;
	int64_t stamped_ns;		/* when the stamp was taken; 0: untrusted */
	const void *seen;		/* the heads it had seen (head_encode_seen) */
	size_t seen_length;
	int restore;
};
/* Whether what is at path in root (Home-relative, no link followed at its
 * end) is still the index row's: a folder the same folder, a file or link
 * the same stamp and, where the stamp is too recent to tell, the same
 * bytes. False for anything else, gone or unreadable included. */
bool scan_entry_unchanged(struct hearth *home, int root, const char *path,
    const struct scan_entry_row *row);

/* Writes the row of entry->node (insert or replace). */
int scan_entry_put(struct hearth *home, const struct scan_entry_row *entry);
int scan_entry_drop(struct hearth *home, struct node_id node);
/* What a node's row has seen, and its restore mark. */
int scan_entry_set_seen(struct hearth *home, struct node_id node, const void *seen,
    size_t length, int restore);
/* Where the index has node: its folder and (name not NULL) its name, NUL
 * ended; on_disk: not a row a restore brings back. False: no such row. */
bool scan_index_place(struct hearth *home, struct node_id node, bool on_disk,
    struct node_id *parent, struct buffer *name);
/* The first folder in parent by name, after the name after (NULL: from the
 * first): true with its node and name (reset, NUL ended). */
bool scan_index_folder_after(struct hearth *home, struct node_id parent, const void *after,
    size_t after_length, struct node_id *node, struct buffer *name);
/* The folders holding files whose stamps are racy (status must read
 * them), appended to *ids (grown with array_grow from *capacity). */
void scan_index_racy_folders(struct hearth *home, struct node_id **ids, size_t *count,
    size_t *capacity);
/* The row under name in folder, a folder first: 1 with its node and
 * kind, 0 none. */
int scan_index_child(struct hearth *home, struct node_id folder, const void *name,
    size_t length, struct node_id *node, enum node_kind *kind);
/* The rows in folder by name after after (at most limit; of the stamp only
 * size, mode and mtime), until visit returns nonzero; -1 when the store
 * fails. */
int scan_index_page(struct hearth *home, struct node_id folder, const char *after,
    size_t limit, int (*visit)(void *context, const struct scan_entry_row *entry),
    void *context);
/* The root the index has node in, into root (reset, NUL ended): false
 * when it has no row of node. */
bool scan_index_root(struct hearth *home, struct node_id node, struct buffer *root);
/* fsck: the rows whose folder the index does not hold (neither the top
 * nor the trash), by node, until visit returns nonzero. */
int scan_index_orphans(struct hearth *home,
    int (*visit)(void *context, struct node_id node), void *context);
/* Whether a row waits for a record to restore it. */
bool scan_index_restores_waiting(struct hearth *home);
/* Every row by node, until visit returns nonzero, which comes back; -1
 * when the store fails. */
int scan_entries_each(struct hearth *home,
    int (*visit)(void *context, const struct scan_entry_row *entry), void *context);
/* Every row's node, parent, name and kind (the rest left zero), in no set
 * order, until visit returns nonzero, which comes back; -1 when the store
 * fails. */
int scan_index_names_each(struct hearth *home,
    int (*visit)(void *context, const struct scan_entry_row *entry), void *context);
/* The node of each row on disk (restore 0), in the order of the ids'
 * bytes, until visit returns nonzero: 0, visit's return, or -1 when the
 * store cannot be read. */
int scan_entry_each_on_disk(struct hearth *home,
    int (*visit)(void *context, const void *node, size_t length), void *context);
/* The files and links the index holds in the root named root (rows a
 * restore brings back left out), counted up to at most (0: all). */
uint64_t scan_entry_files_in_root(struct hearth *home, const char *root, uint64_t at_most);

#endif
