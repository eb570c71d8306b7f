/* A prefill: the files of big blobs a sync writes as their bytes arrive
 * (on its receiving thread), so the checkout after it moves each into
 * place instead of reading its pack back and decoding it a second time
 * (docs/DESIGN.md §7, clone). hearth_sync makes it when its caller will
 * check out (checkout_after: sync --checkout, a clone into empty
 * folders); the caller's checkout takes the files, and hearth_apply_head,
 * hearth_clone or hearth_close frees it with what is left. The files wait
 * in the first root's staging folder as BLOBHEX.prefill; what a killed
 * command leaves goes with the next prefill, any other checkout's
 * clearing of staging, or the next lock's garbage collection. */
#ifndef HEARTH_BACKEND_DISK_PREFILL_H
#define HEARTH_BACKEND_DISK_PREFILL_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/id.h"

#define PREFILL_SUFFIX ".prefill"

struct prefill;

/* NULL when the first root's staging folder cannot be made or opened:
 * the clone then checks out as any checkout does. Removes the files a
 * clone killed before its checkout left there. */
struct prefill *prefill_new(struct hearth *home);
/* Removes every file the checkout did not take, and frees it all. */
void prefill_free(struct prefill *prefill);

/* A new, empty file for blob's bytes: its descriptor, which the caller
 * closes, or -1 when there is none to be had (too many files, an error:
 * the blob is then written by the checkout as usual). */
int prefill_start(struct prefill *prefill, const struct hash *blob);
/* After the last byte: whole says every byte was written, the file
 * closed and the blob's hash checked; otherwise the file goes. */
void prefill_finish(struct prefill *prefill, const struct hash *blob, bool whole);
/* Moves blob's finished file to name in folder (never over a name that
 * exists): true when it did, and the file is the caller's from then on. A
 * blob is taken once; a second file with the same content is written. */
bool prefill_take(struct prefill *prefill, const struct hash *blob, uint64_t size, int folder,
    const char *name);
/* Files the checkout took (0 for NULL). */
uint64_t prefill_taken(const struct prefill *prefill);
/* Whether a staging entry's name is a prefill's (a checkout inside the
 * clone spares them; any other removes them as it clears staging). */
bool prefill_is_name(const char *name);

#endif
