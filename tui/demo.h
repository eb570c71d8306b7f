/* The demo Home the welcome screen offers: built through the public API
 * (init, then a few records), so an installed binary needs no script. */
#ifndef HEARTH_TUI_DEMO_H
#define HEARTH_TUI_DEMO_H

#include <stddef.h>

#include "backend/hearth.h"

/* Makes (or finds, if made before) the demo Home at
 * ${TMPDIR:-/tmp}/hearth-demo-UID/home, with five versions, a second
 * replica beside it (…/laptop) synced into three conflicts, and a few
 * unrecorded changes, and writes its path to home_dir. */
int demo_build(char *home_dir, size_t size, struct hearth_error *error);

#endif
