/* What fsck (fsck.c) finds, as the repair (fsck_repair.c) needs it: the
 * damaged or missing chunks, the contents they hold up, the packs that are
 * damaged or gone, and the folders whose identity marker is. The public
 * side is hearth_fsck and hearth_fsck_repair (hearth.h). */
#ifndef HEARTH_BACKEND_FSCK_H
#define HEARTH_BACKEND_FSCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"

/* A set of chunk or content ids: filled by fsck_hashes_add, sorted on the
 * first lookup. */
struct fsck_hashes {
	struct hash *items;
	size_t count, capacity;
	bool sorted;
};

void fsck_hashes_add(struct fsck_hashes *set, const struct hash *id);
/* Sorts the set and drops repeats (fsck_hashes_has does it when needed). */
void fsck_hashes_sort(struct fsck_hashes *set);
bool fsck_hashes_has(struct fsck_hashes *set, const struct hash *id);

/* A folder whose marker is damaged, and what it should say. */
struct fsck_marker {
	struct node_id node;
	const struct home_root *root;
	char *path;		/* Home-relative; owned */
};

struct fsck_damage {
	struct fsck_hashes chunks;	/* unreadable, or needed and not in the store */
	struct fsck_hashes blobs;	/* contents that cannot be read whole */
	int64_t *packs;			/* damaged, unsealed or missing packs */
	size_t pack_count;
	uint64_t missing_packs;
	uint64_t paths_hit, versions_hit;	/* what the damaged contents reach */
	struct fsck_marker *markers;
	size_t marker_count;
	/* Ops whose bytes (or stored chain) do not match their hash chain: a
	 * repair fetches them again (fsck_repair_ops.c). */
	struct op_id *ops;
	size_t op_count, op_capacity;
	/* Op rows or history rows that disagree with their op: mended from it. */
	uint64_t rows_disagreeing;
	/* The index notes that head dropped none of its rows, and some it did. */
	bool dropped_note_wrong;
};

/* fsck --repair's part for ops (fsck_repair_ops.c): the damaged ops
 * fetched again from peer and proved by the chain, then every op row and
 * history row that disagrees with its op written anew from it. Counts go
 * to out. Takes no lock (the caller holds it). */
int fsck_repair_ops(struct hearth *home, struct fsck_damage *damage,
    const struct hearth_repair_options *options, struct hearth_repair_result *out,
    struct hearth_error *error);

/* Runs every check of hearth_fsck, filling out (problems) and damage. */
int fsck_run(struct hearth *home, const struct hearth_progress *progress,
    struct hearth_fsck_report *out, struct fsck_damage *damage);
bool fsck_pack_damaged(const struct fsck_damage *damage, int64_t pack);
void fsck_damage_free(struct fsck_damage *damage);

#endif
