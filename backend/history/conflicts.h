/* The conflict table's owner (conflicts.c): what the rest of the backend
 * asks of the conflicts the head holds. */
#ifndef HEARTH_BACKEND_HISTORY_CONFLICTS_H
#define HEARTH_BACKEND_HISTORY_CONFLICTS_H

#include <stdint.h>

#include "backend/disk/home.h"

/* The conflicts the head holds, settled or not by the tree. */
uint64_t conflicts_count(struct hearth *home);

#endif
