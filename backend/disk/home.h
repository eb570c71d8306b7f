/* An open Home: its config, store, roots and identity (struct hearth behind
 * the public handle), with the helpers every backend module shares for
 * errors, roots and the write lock. */
#ifndef HEARTH_BACKEND_HOME_H
#define HEARTH_BACKEND_HOME_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/hearth.h"
#include "backend/io/fail.h"
#include "backend/store/pack.h"
#include "backend/store/store.h"
#include "config/config.h"
#include "model/id.h"
#include "model/ignore.h"

/* Every root holds this folder; it is never recorded. It holds the root's
 * marker and, for a Home made by `hearth init DIR`, the state too. */
#define HOME_DIR_NAME ".hearth"
#define HOME_MARKER_NAME "root"
#define HOME_STAGING_NAME "staging"

struct home_root {
	const char *name;	/* owned by the config */
	const char *path;
	int fd;			/* O_PATH|O_DIRECTORY, held while open */
};

struct prefill;

struct hearth {
	struct config *config;
	struct hearth_location location;
	struct store store;
	int state_fd;
	int packs_fd;
	char packs_path[4096 + 16];
	struct home_root *roots;
	size_t root_count;
	uint8_t home_id[ID_BYTES];
	struct replica_id replica;
	int64_t replica_number;
	struct ignore_set *ignore;
	struct ignore_set **place;	/* each place: rule's pattern, in order */
	struct pack_reader *reader;
	int lock_fd;		/* >= 0 while this handle holds the write lock */
	uint64_t packs_made;	/* pack files this handle started (hearth_upkeep) */
	/* Why the tree cannot be touched (a root missing or foreign), or "":
	 * history stays readable, the tree is refused (home_require_roots). */
	struct hearth_error root_problem;
	char author[OP_AUTHOR_MAX + 1];
	uint64_t write_bytes_at_start;	/* home_bytes_written at open, for the counters */
	/* The ids this replica had before it was renewed, each with the last
	 * counter it made under it (meta.former_replicas), loaded on first use:
	 * those ops are still this replica's own (home_op_is_mine). */
	struct op_id *former;
	size_t former_count;
	bool former_loaded;
	/* What the user should hear about this handle's Home that is no
	 * error (hearth_take_notice), or "". */
	char notice[HEARTH_ERROR_MAX];
	/* The watch this handle runs (hearth_watch_start), or NULL. */
	struct hearth_watch *watch;
	/* Files a sync wrote as their bytes arrived, for the checkout its
	 * caller runs next to take (prefill.h); NULL otherwise. */
	struct prefill *prefill;
	/* Nodes that stopped being live in head while a record at head
	 * watched (head_track_dropped): the only rows it can find dropped. */
	struct node_id *stopped_live;
	size_t stopped_live_count, stopped_live_capacity;
	bool tracking_stopped_live;
};


/* Takes the Home's write lock for command, waiting a little if another
 * process holds it; HEARTH_LOCKED names that process. */
int home_lock(struct hearth *home, const char *command, struct hearth_error *error);
/* home_lock without replica_check_copy: for reid, which renews the id anyway. */
int home_take_lock(struct hearth *home, const char *command, struct hearth_error *error);
/* Under the lock, before any op is made: a state folder that is not the one
 * its store was made in (a copy, a restored backup) gets a fresh replica id
 * at once, and home->notice says so. replica.c. */
int replica_check_copy(struct hearth *home, struct hearth_error *error);
/* Whether this replica made op id: under its id, or under an id it had
 * before a reid, up to the counter it had reached then. */
bool home_op_is_mine(struct hearth *home, struct op_id id);
void home_unlock(struct hearth *home);
void home_collect_garbage(struct hearth *home);

/* hearth_open for the clone that made the Home and is finishing it: a
 * Home whose setup has not finished opens (setup.h). */
int home_open_setup(hearth **out, const struct hearth_open_options *options,
    struct hearth_error *error);

/* Removes top/.hearth with all inside, through the I/O seam: what a failed
 * `hearth init DIR` or clone made, so that running it again starts afresh.
 * Never touches anything else in top. Returns 0, or -1 with errno set. */
int home_remove_state(const char *top);

/* Fails closed before anything reads or writes the tree: every root must
 * be there, the folder that was opened, with its marker. Checked again at
 * each call (a root that came back is opened again). */
int home_require_roots(struct hearth *home, struct hearth_error *error);

/* Whether every root holds nothing but hearth's own folder (false where
 * one cannot be read): a clone into such a Home has nothing of the
 * user's to record once its checkout is done. */
bool home_roots_hold_nothing(const struct hearth *home);

/* The root a new node belongs to when nothing else says: the first. */
const struct home_root *home_root_named(const struct hearth *home, const char *name);

/* Which root (an index into roots) a file or folder of a version lives in
 * on this machine (docs/DESIGN.md §6): the root its node names, when this Home has
 * a root of that name; else the root of the first place: rule whose
 * pattern matches path; else the first root. */
int home_place_root(const struct hearth *home, const char *root_name, const char *path,
    bool is_dir);

/* Random bytes from the kernel; aborts if none can be had (a replica or
 * node id made from predictable bytes would be worse than stopping). */
void home_random(void *out, size_t length);
struct node_id home_new_node_id(void);

/* Bytes this process has written so far (packs, database, tree). */
uint64_t home_bytes_written(void);
/* Adds this command's writes to the store's counters; call after the
 * command's transaction has committed. */
int home_count_writes(struct hearth *home, uint64_t content_bytes);

/* Storage behind the public result lists. */
struct hearth_storage *storage_new(void);
void *storage_alloc(struct hearth_storage *storage, size_t size);
char *storage_strdup(struct hearth_storage *storage, const char *text);

/* Opens a small file of hearth's (a marker) for reading without ever
 * blocking: O_NONBLOCK, and only a regular file (a FIFO of that name
 * would wait for a writer forever). NULL with *why saying what is wrong. */
FILE *home_fopen_regular(const char *path, const char **why);
char *storage_strndup(struct hearth_storage *storage, const char *text, size_t length);
void storage_free(struct hearth_storage *storage);

#endif
