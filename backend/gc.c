/* hearth gc (hearth_gc) and the light upkeep after a command
 * (hearth_upkeep): small packs consolidated into few large ones, write-once
 * still (docs/DESIGN.md §5 Pack upkeep). New packs are written and made
 * durable, then one transaction points every chunk row at its new copy and
 * forgets the old packs, then the old files go; a crash before the commit
 * leaves new files the store does not list, one after it old files the
 * store does not list, and the next holder of the write lock removes
 * either. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/disk/home.h"
#include "backend/history/blob.h"
#include "backend/store/hash.h"
#include "backend/store/pack_index.h"
#include "model/arena.h"
#include "model/array.h"
#include "model/op.h"

/* The light upkeep starts when a command that made a pack leaves more
 * than this many (git gc --auto's gc.autoPackLimit is 50 too), and merges
 * the packs under GC_LIGHT_PACK_MAX: one record's pack each, mostly. */
#define GC_AUTO_PACKS 50
#define GC_LIGHT_PACK_MAX (64ull * 1024 * 1024)
/* A full gc compresses harder than a record: it runs seldom, the packs it
 * writes stay, and zstd decompresses the higher levels as fast. Measured
 * on the history replay (perf/p0050-history.sh, 400 commits of tig, packs
 * of 1.77 MiB after the records), what each pair of levels saved and the
 * CPU it took: frames and deltas at 9, 197 KiB in 0.8 s; both at 19, 375
 * KiB in 19 s; frames at 19, deltas at 9, 237 KiB in 4.8 s; frames at 9,
 * deltas at 19, 333 KiB in 16 s. The deltas are where the bytes are, and
 * the whole frames are where a big Home's time would go. */
#define GC_LEVEL 9
#define GC_DELTA_LEVEL 19
/* A depth gc does not know (the chunk was written by another node's walk). */
#define GC_DEPTH_UNKNOWN UINT32_MAX

struct gc {
	struct hearth *home;
	bool full;
	enum config_durability mode;	/* the store's, while gc syncs as group */
	struct pack_writer *writer;
	int64_t *packs;			/* the packs rewritten */
	size_t pack_count;
	struct hash *chunks;		/* every chunk of those packs, in pack order */
	size_t chunk_count;
	struct buffer bytes;		/* the chunk being copied */
	struct buffer base;		/* its base's */
	struct buffer stored;		/* its frame's stored bytes */
	struct hearth_gc_result *out;
	struct hearth_error *error;
};

/* One chunk of a node's newer version: the base for the same chunk of the
 * version before it. */
struct gc_link {
	struct hash id;
	uint32_t depth;
};

/* ---- the new packs' rows ------------------------------------------------------------ */

static int
gc_started(void *context, const char *file_name, int64_t *pack_number)
{
	struct gc *gc = context;
	return blob_pack_started(gc->home, file_name, pack_number);
}

/* The chunk's row moves to its new copy. */
static int
gc_stored(void *context, const struct hash *chunk, const struct pack_location *where)
{
	struct gc *gc = context;

	if (where->depth > 0)
		gc->out->delta_chunks++;
	return blob_chunk_moved(gc->home, chunk, where);
}

static int
gc_sealed(void *context, int64_t pack_number, uint64_t size, uint64_t chunk_count)
{
	struct gc *gc = context;
	return blob_pack_sealed(gc->home, pack_number, size, chunk_count);
}

/* ---- what is rewritten -------------------------------------------------------------- */

/* Every sealed pack (full), or those under GC_LIGHT_PACK_MAX; then their
 * chunks, read into memory first, since the rows move as packs seal. */
static void
gc_choose(struct gc *gc)
{
	struct store *store = &gc->home->store;
	size_t capacity = 0;

	pack_index_sealed_below(store, gc->full ? UINT64_MAX : GC_LIGHT_PACK_MAX, &gc->packs,
	    &gc->pack_count);
	for (size_t i = 0; i < gc->pack_count; i++)
		chunk_index_of_pack(store, gc->packs[i], &gc->chunks, &gc->chunk_count, &capacity);
}

static bool
gc_rewrites(const struct gc *gc, int64_t pack)
{
	for (size_t i = 0; i < gc->pack_count; i++)
		if (gc->packs[i] == pack)
			return true;
	return false;
}

/* ---- copying a chunk ---------------------------------------------------------------- */

static int
gc_read(struct gc *gc, const struct hash *chunk, const struct pack_location *where,
    struct buffer *out)
{
	struct hearth_error failure;

	buffer_reset(out);
	if (pack_read(gc->home->reader, chunk, where, out, &failure) != 0)
		return hearth_fail(gc->error, HEARTH_DAMAGED, "%s; nothing was changed (run hearth "
		    "fsck)", failure.message);
	return 0;
}

/* A chunk alone in its frame, as that frame is stored (compressed or
 * raw): the light upkeep moves it so, instead of compressing it again at
 * a record's level, and a full gc keeps it where its own level makes a
 * bigger frame (on very repetitive text level 9 does). 1 with *stored
 * set, 0 when the chunk shares its frame or is a delta, -1 when the
 * frame does not read. Its bytes were read and hashed already (gc_read). */
static int
gc_stored_frame(struct gc *gc, const struct pack_location *where, struct pack_stored *stored)
{
	struct hearth_error failure;
	bool compressed = false;

	buffer_reset(&gc->stored);
	int found = pack_read_stored(gc->home->reader, where, &gc->stored, &compressed, &failure);
	if (found < 0) {
		hearth_fail(gc->error, HEARTH_DAMAGED, "%s; nothing was changed (run hearth fsck)",
		    failure.message);
		return -1;
	}
	*stored = (struct pack_stored){ .bytes = compressed ? gc->stored.data : NULL,
		.length = gc->stored.length };
	return found;
}

/* Copies a chunk into the new packs, as a delta against base when base is
 * given and not too deep; *depth is then the most it can be (the writer
 * may store it whole). A chunk already copied, or in a pack this gc keeps,
 * is left; its depth is what gc knows of it. */
static int
gc_copy(struct gc *gc, const struct hash *chunk, const struct gc_link *base, uint32_t *depth)
{
	struct pack_location where, base_where;
	struct hearth_error failure;

	*depth = GC_DEPTH_UNKNOWN;
	if (pack_writer_holds(gc->writer, chunk) ||
	    store_chunk_find(&gc->home->store, chunk, &where) != 1)
		return 0;
	if (!gc_rewrites(gc, where.pack)) {
		*depth = where.depth;
		return 0;
	}
	int status = gc_read(gc, chunk, &where, &gc->bytes);
	struct pack_base offered = { 0 };
	bool based = status == 0 && base != NULL && base->depth < PACK_DELTA_DEPTH_MAX &&
	    store_chunk_find(&gc->home->store, &base->id, &base_where) == 1;
	if (based && (status = gc_read(gc, &base->id, &base_where, &gc->base)) == 0)
		offered = (struct pack_base){ .id = base->id, .data = gc->base.data,
			.length = gc->base.length, .depth = base->depth };
	if (status != 0)
		return status;
	struct pack_stored stored;
	int found = based ? 0 : gc_stored_frame(gc, &where, &stored);
	if (found < 0)
		return gc->error->code;
	if ((found == 0 ? pack_writer_add_delta(gc->writer, chunk, gc->bytes.data,
			      gc->bytes.length, based ? &offered : NULL, &failure)
		: gc->full ? pack_writer_add_rival(gc->writer, chunk, gc->bytes.data,
			     gc->bytes.length, &stored, &failure)
			   : pack_writer_add_stored(gc->writer, chunk, gc->bytes.data,
			     gc->bytes.length, &stored, &failure)) != 0)
		return hearth_fail(gc->error, HEARTH_FAILED, "%s", failure.message);
	gc->out->chunks++;
	*depth = based ? base->depth + 1 : 0;
	return 0;
}

/* ---- the whole history: each node's versions, newest first -------------------------- */

/* A version's chunks (its list, or the blob itself when it is one chunk). */
static size_t
gc_blob_chunks(struct gc *gc, const struct hash *blob, struct buffer *list)
{
	uint64_t size;
	struct pack_location where;

	buffer_reset(list);
	if (blob_chunk_list(gc->home, blob, &size, list) == 1)
		return list->length / HASH_BYTES;
	if (store_chunk_find(&gc->home->store, blob, &where) != 1)
		return 0;
	buffer_append(list, blob->bytes, HASH_BYTES);
	return 1;
}

/* Copies one version of a node, each chunk against the same chunk of the
 * node's next newer version (links, which it then replaces). */
static int
gc_copy_version(struct gc *gc, const struct hash *blob, struct buffer *links,
    struct buffer *list)
{
	size_t count = gc_blob_chunks(gc, blob, list);
	const struct hash *chunks = (const struct hash *)list->data;
	size_t newer = links->length / sizeof(struct gc_link);
	struct buffer made;
	int status = 0;

	buffer_init(&made);
	for (size_t i = 0; i < count && status == 0; i++) {
		const struct gc_link *base = NULL;
		if (newer > 0)
			base = &((const struct gc_link *)links->data)[i < newer ? i : newer - 1];
		if (base != NULL && base->depth == GC_DEPTH_UNKNOWN)
			base = NULL;
		struct gc_link link = { .id = chunks[i] };
		status = gc_copy(gc, &chunks[i], base, &link.depth);
		buffer_append(&made, &link, sizeof link);
	}
	buffer_reset(links);
	buffer_append(links, made.data, made.length);
	buffer_free(&made);
	return status;
}

/* The node's content heads, newest first: every SET's content, so the
 * newest version is stored whole and read in one step, and each older one
 * as a delta against the one after it. */
static int
gc_copy_history(struct gc *gc)
{
	struct store_ops sets;
	struct store_op_row row;
	struct buffer links, list;
	struct node_id node = { 0 };
	struct hash previous = { 0 };
	struct arena arena;
	int status = 0;

	buffer_init(&links);
	buffer_init(&list);
	arena_init(&arena, 4096);
	store_ops_by_node_newest(&gc->home->store, OP_SET, &sets);
	while (status == 0 && store_ops_next(&sets, &row)) {
		struct op op;
		char message[256];
		if (node_id_is_zero(row.node) ||
		    !op_decode(row.body, row.body_length, &op, &arena, message, sizeof message))
			continue;	/* fsck names an op that does not decode */
		if (!node_id_equal(row.node, node)) {
			node = row.node;
			buffer_reset(&links);
			memset(&previous, 0, sizeof previous);
		}
		if (!hash_equal(&op.u.set.blob, &previous))
			status = gc_copy_version(gc, &op.u.set.blob, &links, &list);
		previous = op.u.set.blob;
	}
	/* A damaged op stops gc before it rewrites a pack: fsck --repair first. */
	status = store_ops_end(&sets, status, gc->error);
	arena_free(&arena);
	buffer_free(&links);
	buffer_free(&list);
	return status;
}

/* ---- the light upkeep: chunks as they are, deltas kept on the same base ----------------- */

static int
gc_copy_as_is(struct gc *gc, const struct hash *chunk)
{
	struct pack_location where;
	struct gc_link base;
	struct hearth_error failure;
	uint32_t depth;

	if (store_chunk_find(&gc->home->store, chunk, &where) != 1)
		return 0;
	if (where.depth == 0)
		return gc_copy(gc, chunk, NULL, &depth);
	int found = pack_delta_base(gc->home->reader, &where, &base.id, &failure);
	if (found < 0)
		return hearth_fail(gc->error, HEARTH_DAMAGED, "%s; nothing was changed (run hearth "
		    "fsck)", failure.message);
	struct pack_location base_where;
	if (found == 0 || store_chunk_find(&gc->home->store, &base.id, &base_where) != 1)
		return gc_copy(gc, chunk, NULL, &depth);
	base.depth = base_where.depth;
	return gc_copy(gc, chunk, &base, &depth);
}

/* ---- the switch ------------------------------------------------------------------- */

/* The old packs leave the list once no row points into them. */
static int
gc_forget(struct gc *gc)
{
	struct hearth *home = gc->home;

	for (size_t i = 0; i < gc->pack_count; i++) {
		int used = pack_index_forget(&home->store, gc->packs[i], NULL, 0, gc->error);
		if (used < 0)
			return HEARTH_FAILED;
		if (used > 0)
			return hearth_fail(gc->error, HEARTH_FAILED, "pack %lld still holds a chunk "
			    "gc did not copy; nothing was changed", (long long)gc->packs[i]);
	}
	return 0;
}

static int
gc_write(struct gc *gc)
{
	int status = gc->full ? gc_copy_history(gc) : 0;
	uint32_t depth;

	for (size_t i = 0; i < gc->chunk_count && status == 0; i++)
		status = gc->full ? gc_copy(gc, &gc->chunks[i], NULL, &depth)
				  : gc_copy_as_is(gc, &gc->chunks[i]);
	return status;
}

/* Old packs are removed for good, so even with durability none the new
 * ones and the commit that points at them are flushed first: gc's one
 * transaction syncs as group does, and the mode is put back after it. */
static int
gc_begin(struct gc *gc)
{
	struct store *store = &gc->home->store;
	struct hearth_error failure;

	gc->mode = store->durability;
	store->durability = DURABILITY_GROUP;
	if (store_begin(store, &failure) == 0)
		return 0;
	store->durability = gc->mode;
	store_sync_restore(store, &failure);
	return hearth_fail(gc->error, HEARTH_FAILED, "%s", failure.message);
}

static void
gc_end(struct gc *gc, int status)
{
	struct store *store = &gc->home->store;
	struct hearth_error failure;

	if (status != 0) {
		store_rollback(store);
		if (gc->writer != NULL)
			pack_writer_abort(gc->writer);
		gc->out->chunks = gc->out->delta_chunks = 0;
	}
	pack_writer_free(gc->writer);
	gc->writer = NULL;
	store->durability = gc->mode;
	store_sync_restore(store, &failure);
}

/* The copies, the new packs sealed and durable, the rows moved, the old
 * packs forgotten, committed. */
static int
gc_switch(struct gc *gc)
{
	struct hearth *home = gc->home;
	struct hearth_error failure;
	struct pack_sink sink = { .started = gc_started, .stored = gc_stored, .sealed = gc_sealed,
		.context = gc };

	gc->writer = pack_writer_new(home->packs_fd, home->packs_path, true, &sink);
	if (gc->full) {
		pack_writer_set_level(gc->writer, GC_LEVEL);
		pack_writer_set_delta_level(gc->writer, GC_DELTA_LEVEL);
	}
	int status = gc_write(gc);
	if (status == 0 && pack_writer_finish(gc->writer, &failure) != 0)
		status = hearth_fail(gc->error, HEARTH_FAILED, "%s", failure.message);
	if (status == 0)
		status = gc_forget(gc);
	gc->out->packs_after = pack_index_count(&home->store);
	gc->out->bytes_after = pack_index_bytes(&home->store);
	if (status == 0 && store_commit(&home->store, &failure) != 0)
		status = hearth_fail(gc->error, HEARTH_FAILED, "%s", failure.message);
	return status;
}

static int
gc_run(struct gc *gc)
{
	struct hearth *home = gc->home;

	int status = gc_begin(gc);
	if (status != 0)
		return status;
	gc->out->packs_before = pack_index_count(&home->store);
	gc->out->bytes_before = pack_index_bytes(&home->store);
	gc_choose(gc);
	if (gc->pack_count < (gc->full ? 1u : 2u)) {
		gc->out->packs_after = gc->out->packs_before;
		gc->out->bytes_after = gc->out->bytes_before;
		gc_end(gc, -1);
		return 0;
	}
	status = gc_switch(gc);
	gc_end(gc, status);
	if (status != 0)
		return status;
	gc->out->ran = true;
	home_count_writes(home, 0);
	/* The old files, now listed nowhere; a crash before this is cleared by
	 * the next holder of the lock the same way. The light upkeep leaves
	 * them to the next gc or upkeep: it runs beside whatever the user does,
	 * and a reader (a sync served from this Home, the app, fsck) whose
	 * snapshot predates the switch still opens them by name. */
	if (gc->full)
		home_collect_garbage(home);
	return 0;
}

static int
gc_locked(struct hearth *home, bool full, const char *command, struct hearth_gc_result *out,
    struct hearth_error *error)
{
	struct gc gc = { .home = home, .full = full, .out = out, .error = error };

	int status = home_lock(home, command, error);
	if (status != 0)
		return status;
	/* Under the lock, a pack file the store does not list is a leftover
	 * (of a gc that lost power before its old files' removal held). */
	home_collect_garbage(home);
	buffer_init(&gc.bytes);
	buffer_init(&gc.base);
	buffer_init(&gc.stored);
	status = gc_run(&gc);
	home_unlock(home);
	buffer_free(&gc.bytes);
	buffer_free(&gc.base);
	buffer_free(&gc.stored);
	free(gc.packs);
	free(gc.chunks);
	return status;
}

int
hearth_gc(hearth *home, struct hearth_gc_result *out, struct hearth_error *error)
{
	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	return gc_locked(home, true, "gc", out, error);
}

/* HEARTH_GC_AUTO_PACKS (tests) sets the threshold; 0 turns the upkeep off. */
static uint64_t
gc_auto_packs(void)
{
	const char *text = getenv("HEARTH_GC_AUTO_PACKS");
	return text != NULL && *text != '\0' ? strtoull(text, NULL, 10) : GC_AUTO_PACKS;
}

int
hearth_upkeep(hearth *home, struct hearth_gc_result *out, struct hearth_error *error)
{
	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	uint64_t limit = gc_auto_packs();
	if (home == NULL || home->packs_made == 0 || limit == 0 ||
	    pack_index_count(&home->store) <= limit)
		return 0;
	return gc_locked(home, false, "gc (after a command)", out, error);
}
