/* What a killed or failed init or clone leaves (docs/DESIGN.md §6, hearth(1)): the
 * store remembers a setup that has not finished ("setup_pending"), so the
 * same command run again finishes it, every other command says so, and a
 * top's .hearth that holds nothing but a setup's first steps is taken away
 * and made afresh. */
#ifndef HEARTH_BACKEND_SETUP_H
#define HEARTH_BACKEND_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/hearth.h"
#include "model/id.h"

enum setup_kind { SETUP_DONE = 0, SETUP_INIT = 1, SETUP_CLONE = 2 };

enum setup_store {
	SETUP_NO_STORE,		/* no store.db */
	SETUP_HALF_STORE,	/* one a killed init was making: empty, or no Home id yet */
	SETUP_STORE,		/* a store: home_id and pending filled */
	SETUP_FOREIGN,		/* a file that is no hearth store */
};

enum setup_store setup_probe_store(const char *state_path, uint8_t home_id[ID_BYTES],
    int64_t *pending);

/* Whether dir (a top's .hearth) holds only what an init makes before its
 * marker, and no finished store: nothing of the user's, safe to remove. */
bool setup_half_made(const char *dir);

/* Removes state_path's store.db with its WAL and journal files. */
int setup_remove_store(const char *state_path);

/* The setup is done: clears the store's setup_pending. */
int setup_finish(const char *state_path, struct hearth_error *error);

const char *setup_kind_name(int64_t kind);

#endif
