/* What the rest of the backend asks of watching (watch.c; the API is in
 * hearth.h): whether a running watch keeps the index current, so status
 * and record may list only the folders it marked. */
#ifndef HEARTH_BACKEND_WATCH_H
#define HEARTH_BACKEND_WATCH_H

#include <stdbool.h>

#include "backend/disk/home.h"

/* The state folder's subfolder where a status drops cookies for the
 * watches to answer (as watchman syncs to now). */
#define WATCH_COOKIE_FOLDER "cookies"
/* How long a status waits for a watch to answer before it walks instead. */
#define WATCH_COOKIE_WAIT_MS 2000

/* Whether the index is current right now: a live watch (in this process
 * or another) says so, and has answered a cookie dropped now, which
 * proves every change made before this call is in the store. */
bool watch_index_current(struct hearth *home);

#endif
