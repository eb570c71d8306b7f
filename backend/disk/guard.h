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

/* 0 when every root is within the limit; else HEARTH_REFUSED, naming the
 * first root over it, with out filled. command is "record" or "checkout";
 * roots has one count per root of home. */
int guard_check(const struct hearth *home, const char *command, const struct guard_count *roots,
    struct hearth_delete_guard *out, struct hearth_error *error);

#endif
