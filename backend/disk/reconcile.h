/* The observed index: what the disk holds now, kept at folder grain beside
 * the recorded index (the entry table), so that status and record list
 * only the folders that changed. reconcile.c opens with the design; the
 * restart check, the paged walk and its settling live there, and status
 * and record ask it which folders to list. */
#ifndef HEARTH_BACKEND_RECONCILE_H
#define HEARTH_BACKEND_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "backend/disk/scan.h"
#include "model/arena.h"

/* Items a page lists before it commits; HEARTH_RECONCILE_PAGE overrides
 * (tests make pages small). */
#define RECONCILE_PAGE_ENTRIES 256

/* What one page of a walk or a settling did. */
struct reconcile_page {
	bool busy;		/* another writer held the store: nothing done, try later */
	bool finished;		/* no walk under way any more (or nothing left to settle) */
	bool resumed;		/* it went on with a walk begun earlier */
	int64_t walk_started;	/* wall ns the walk it belongs to began */
	uint64_t generation;	/* of that walk */
	uint64_t folders, entries;
	uint64_t differ;	/* folders it found differing from the index */
	char cursor[4096];	/* the last folder done ("" the top) */
	char resumed_after[4096];	/* resumed: the last folder done before it */
};

/* Marks folders (Home-relative paths) as maybe differing from the index,
 * in one transaction: what a watch saw change. Without wait, returns with
 * *busy set and nothing done when another writer holds the store. */
int reconcile_mark(struct hearth *home, char *const *paths, size_t count, bool wait, bool *busy,
    struct hearth_error *error);

/* The restart check: stats every folder the last walk stamped and marks
 * those whose stamp moved, or is racy (changed within 2 s of when it was
 * taken), and those holding files whose stamp cannot be trusted. Lists
 * nothing. */
int reconcile_check(struct hearth *home, bool wait, bool *busy, uint64_t *checked,
    uint64_t *changed, struct hearth_error *error);

/* One page of the walk of every folder of the index, in one transaction:
 * each folder is listed in every root and compared with its entry rows;
 * its stamps are kept and its mark set or cleared. The walk's generation
 * and cursor are in the store, so a page goes on wherever the last one
 * stopped, in this process or another. With start, a new walk begins when
 * none is under way; without, a finished walk stays finished. */
int reconcile_walk_page(struct hearth *home, bool start, bool wait, struct reconcile_page *out,
    struct hearth_error *error);

/* One page of settling: folders marked by a watch are listed again and
 * unmarked when they agree with the index, kept as differing otherwise. */
int reconcile_settle_page(struct hearth *home, bool wait, struct reconcile_page *out,
    struct hearth_error *error);

/* The folders status and record list while a watch keeps the index
 * current: the marked ones, each moved up to the nearest folder the index
 * holds that is on disk, without repeats. */
struct reconcile_scope {
	bool usable;		/* false: restores are waiting (a checkout of an
				 * older version), which only a walk finds */
	struct scan_folder *folders;
	size_t count;
	int64_t seq;		/* the last mark it holds */
	int64_t pages;		/* pages committed by then (see reconcile_recorded) */
	struct arena arena;	/* owns the paths */
};

/* Reads inside the caller's read transaction. */
int reconcile_scope(struct hearth *home, struct reconcile_scope *out, struct hearth_error *error);
void reconcile_scope_free(struct reconcile_scope *scope);

/* How reconcile_scan_tree found the changes. */
struct reconcile_scan {
	bool from_index;	/* only marked folders were listed */
	uint64_t folders_listed;
	int64_t seq, pages;	/* for reconcile_recorded */
};

/* The changes of the whole tree, for status and record: from the index
 * when a watch keeps it current (watch_index_current), else by walking
 * the tree; either way what scan_tree would find. In a read snapshot of
 * its own: the caller must not be in a transaction. */
int reconcile_scan_tree(struct hearth *home, const struct hearth_progress *progress,
    struct scan_result *out, struct reconcile_scan *info, struct hearth_error *error);

/* The last mark and page count, for a record that walks the tree. */
void reconcile_snapshot(struct hearth *home, int64_t *seq, int64_t *pages);

/* Inside a record's transaction, after its index rows are written: a
 * record of the whole tree forgets the marks it saw (up to seq); and when
 * a walk page committed meanwhile (its verdicts were against the old
 * rows), the folders the record changed are marked for settling. */
int reconcile_recorded(struct hearth *home, int64_t seq, int64_t pages, bool whole_tree,
    const struct scan_result *scan, struct hearth_error *error);

/* Marked folders now (for reports). */
uint64_t reconcile_dirty_count(struct hearth *home);

#endif
