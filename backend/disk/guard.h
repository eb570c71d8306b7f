/* The guard on emptying (struct hearth_delete_guard in hearth.h): record
 * and checkout count, per root, the files the index holds and those they
 * would delete; past max_delete, or every file of a root, they stop and
 * the message names --yes. */
#ifndef HEARTH_BACKEND_GUARD_H
#define HEARTH_BACKEND_GUARD_H

#include <stdint.h>

#include "backend/disk/home.h"

struct guard_count {
	uint64_t files;		/* files and links the root holds now */
	uint64_t deleting;	/* of those, what the command would delete */
};

/* How many files a root must hold for deleting of them to be within the
 * limit (0 when no count is: max_delete 0). A count stopped there decides
 * as well as a whole one, so the index is not counted to its end. */
uint64_t guard_files_enough(const struct hearth *home, uint64_t deleting);

/* 0 when every root is within the limit; else HEARTH_REFUSED, naming the
 * first root over it, with out filled. command is "record" or "checkout";
 * roots has one count per root of home. */
int guard_check(const struct hearth *home, const char *command, const struct guard_count *roots,
    struct hearth_delete_guard *out, struct hearth_error *error);

#endif
