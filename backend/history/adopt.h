/* What a stopped checkout placed (docs/DESIGN.md §7, "What a stopped
 * checkout left"): while the tree is behind head, what of a change the
 * walk found is head's already (an item's place, its bytes) is not the
 * user's change. Record makes no op of it and writes head's heads into
 * the item's index row; status does not list it, nor diff against the
 * index show it. */
#ifndef HEARTH_BACKEND_ADOPT_H
#define HEARTH_BACKEND_ADOPT_H

#include "backend/disk/scan.h"

/* Rewrites the changes (sorted by path, as a walk leaves them) by what of
 * them is head's, register by register:
 *   - an item at its node's place in head keeps it with no move, and its
 *     row's seen place is head's; an added item there is that node when
 *     it carries the node's id, or (without one) has head's bytes too,
 *     and what an added folder holds is under head's node;
 *   - a file or link with head's bytes and mode (read aside where the
 *     stamp cannot tell) makes no SET, and its seen content is head's;
 *   - both: a stamp refresh (SCAN_STAMP);
 *   - a delete of a node head deleted, and a restore (a row the tree
 *     lacked) of a node an added item became, are marked adopted: record
 *     drops the first's row and skips the second, with no op.
 * Only for a tree behind head: else nothing is head's but not the
 * index's. */
/* Returns how many of the changes it adopted the walk had found
 * differing from the index (not a stamp refresh): only those can have
 * brought the tree to head. */
size_t adopt_places(struct hearth *home, struct scan_result *scan);

#endif
