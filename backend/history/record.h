/* The part of record other backend modules use: a record that hands its
 * walk on, so that the checkout hearth_apply_head runs after it looks only
 * at what it changes instead of walking the tree a second time. */
#ifndef HEARTH_BACKEND_RECORD_H
#define HEARTH_BACKEND_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "backend/disk/scan.h"

/* What a record of the whole tree walked. When usable, the index it left
 * agrees with the disk everywhere but where restores wait (it walked every
 * folder, not the watch's marked ones, and moved nothing after its walk);
 * the scan's left_out is what that walk kept out of. */
struct record_walk {
	bool usable;
	/* PRAGMA data_version as the record ended: another value later means
	 * another process wrote the store since, and the walk tells nothing. */
	uint64_t data_version;
	struct scan_result scan;
};

/* hearth_record, handing its walk to *walk (free with record_walk_free,
 * whatever it returns). */
int record_keeping_walk(struct hearth *home, const struct hearth_record_options *options,
    const struct hearth_progress *progress, struct hearth_record_result *out,
    struct record_walk *walk, struct hearth_error *error);
void record_walk_free(struct record_walk *walk);

#endif
