/* The pack and chunk tables of store.db: which pack files the store lists
 * and where in them each chunk lies. This is the one file that holds their
 * SQL (tests/lib/lint-sql.pl); the pack files themselves are pack.h's. */
#ifndef HEARTH_BACKEND_PACK_INDEX_H
#define HEARTH_BACKEND_PACK_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/io/fail.h"
#include "backend/store/pack.h"
#include "backend/store/store.h"
#include "model/id.h"

/* ---- packs ------------------------------------------------------------------------ */

/* A new pack file listed under file_name, not yet sealed: its number. */
int pack_index_add(struct store *store, const char *file_name, int64_t *number);
int pack_index_seal(struct store *store, int64_t number, uint64_t size, uint64_t chunk_count);
/* The file name of pack number: 0, or -1 when the store lists none. */
int pack_index_name(struct store *store, int64_t number, char *out, size_t out_size);
/* The pack listed under file_name: 1 with its number and whether it was
 * sealed, 0 when the store lists no such pack. */
int pack_index_find(struct store *store, const char *file_name, int64_t *number, bool *sealed);
/* Every listed pack with its file name and how many chunk rows point into
 * it, until visit returns nonzero, which comes back. */
int pack_index_each(struct store *store,
    int (*visit)(void *context, int64_t number, const char *file_name, uint64_t chunks),
    void *context);
/* The sealed packs smaller than size_below, by number (*numbers grown
 * with array_grow, the caller's to free). */
void pack_index_sealed_below(struct store *store, uint64_t size_below, int64_t **numbers,
    size_t *count);
uint64_t pack_index_count(struct store *store);
uint64_t pack_index_bytes(struct store *store);
/* Changes whenever a pack is listed or leaves the list. */
uint64_t pack_index_generation(struct store *store);
/* Pack number leaves the list unless a chunk row still points into it:
 * 0 gone (its name in name_out, when not NULL), 1 still used, -1 the
 * store failed (said in error). */
int pack_index_forget(struct store *store, int64_t number, char *name_out, size_t name_size,
    struct hearth_error *error);

/* ---- chunks ----------------------------------------------------------------------- */

/* A new chunk's row (kept as it is when the chunk is already listed). */
int chunk_index_add(struct store *store, const struct hash *chunk,
    const struct pack_location *where);
/* A chunk's row moved to its new copy (replacing the row it had). */
int chunk_index_move(struct store *store, const struct hash *chunk,
    const struct pack_location *where);
bool chunk_index_holds(struct store *store, const struct hash *chunk);
/* Where the store keeps a chunk (the chunk table's row): 1 found, 0 not. */
int store_chunk_find(struct store *store, const struct hash *chunk, struct pack_location *out);
uint64_t chunk_index_count(struct store *store);
/* Every chunk row in the order the packs hold them (pack, frame, offset)
 * with its pack's file name (NULL when the store lists no such pack),
 * until visit returns nonzero, which comes back. */
int chunk_index_each(struct store *store,
    int (*visit)(void *context, const struct hash *chunk, const struct pack_location *where,
	const char *file_name),
    void *context);
/* The chunks pack number holds, in its order, appended to *chunks (grown
 * with array_grow from *capacity). */
void chunk_index_of_pack(struct store *store, int64_t number, struct hash **chunks,
    size_t *count, size_t *capacity);

/* The figures of the chunk and pack tables for hearth_stats. */
struct pack_index_figures {
	uint64_t chunks, packs;
	uint64_t stored_bytes;		/* the chunks' lengths */
	uint64_t pack_bytes;		/* the packs' sizes */
	uint64_t delta_chunks, delta_bytes;
	uint64_t depth_max, depth_sum;
};
void pack_index_figures(struct store *store, struct pack_index_figures *out);

#endif
