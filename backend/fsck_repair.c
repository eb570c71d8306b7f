/* fsck --repair (hearth_fsck_repair): the chunks fsck finds damaged or
 * missing come back, from the damaged pack itself while a chunk still reads
 * whole there, or else from a peer (sync_fetch), into one new pack. The
 * chunk index is pointed at the new copies in one transaction once the pack
 * is durable; a damaged pack nothing points at any more leaves packs/ for
 * STATE/damaged/, kept for whoever wants to look at it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/fsck.h"
#include "backend/history/blob.h"
#include "backend/history/head.h"
#include "backend/store/hash.h"
#include "backend/store/pack_index.h"
#include "backend/disk/identity.h"
#include "backend/io/io.h"
#include "backend/sync/sync.h"
#include "model/array.h"

#define REPAIR_DAMAGED_DIR "damaged"

struct repair {
	struct hearth *home;
	struct fsck_damage damage;
	struct pack_writer *writer;
	struct hearth_repair_result *out;
	struct fsck_hashes wants;	/* chunks to fetch */
	struct fsck_hashes lacking;	/* the peer could not give */
	struct hearth_error *error;
};

/* ---- the new pack's index rows ------------------------------------------------------- */

static int
repair_started(void *context, const char *file_name, int64_t *pack_number)
{
	struct repair *repair = context;
	return blob_pack_started(repair->home, file_name, pack_number);
}

/* The chunk's row moves to its new copy (the old one points into a
 * damaged pack, or there is none). */
static int
repair_stored(void *context, const struct hash *chunk, const struct pack_location *where)
{
	struct repair *repair = context;
	return blob_chunk_moved(repair->home, chunk, where);
}

static int
repair_sealed(void *context, int64_t pack_number, uint64_t size, uint64_t chunk_count)
{
	struct repair *repair = context;
	return blob_pack_sealed(repair->home, pack_number, size, chunk_count);
}

static int
repair_add(struct repair *repair, const struct hash *chunk, const uint8_t *data, size_t length,
    struct hearth_error *error)
{
	struct hearth_error failure;

	if (pack_writer_holds(repair->writer, chunk))
		return 0;
	if (pack_writer_add(repair->writer, chunk, data, length, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	return 0;
}

/* ---- from the damaged packs ------------------------------------------------------------ */

/* Every chunk the index keeps in a damaged pack: copied while it reads
 * whole (pack_read checks its hash), wanted from the peer otherwise. */
struct repair_copy {
	struct repair *repair;
	struct buffer bytes;
};

static int
repair_copy_chunk(void *context, const struct hash *id, const struct pack_location *where,
    const char *file_name)
{
	struct repair_copy *copy = context;
	struct repair *repair = copy->repair;
	struct hearth_error failure;

	(void)file_name;
	if (!fsck_pack_damaged(&repair->damage, where->pack))
		return 0;
	buffer_reset(&copy->bytes);
	if (!fsck_hashes_has(&repair->damage.chunks, id) &&
	    pack_read(repair->home->reader, id, where, &copy->bytes, &failure) == 0) {
		repair->out->chunks_copied++;
		return repair_add(repair, id, copy->bytes.data, copy->bytes.length, repair->error);
	}
	fsck_hashes_add(&repair->wants, id);
	return 0;
}

static int
repair_copy_readable(struct repair *repair)
{
	struct repair_copy copy = { .repair = repair };

	buffer_init(&copy.bytes);
	int status = chunk_index_each(&repair->home->store, repair_copy_chunk, &copy);
	buffer_free(&copy.bytes);
	/* And what the index lacks altogether. */
	for (size_t i = 0; i < repair->damage.chunks.count; i++)
		fsck_hashes_add(&repair->wants, &repair->damage.chunks.items[i]);
	return status;
}

/* ---- from the peer --------------------------------------------------------------------- */

static int
repair_take(void *context, const struct hash *chunk, const uint8_t *data, size_t length,
    struct hearth_error *error)
{
	struct repair *repair = context;

	repair->out->chunks_fetched++;
	return repair_add(repair, chunk, data, length, error);
}

static void
repair_lacked(void *context, const struct hash *chunk, const char *why)
{
	struct repair *repair = context;
	char hex[HASH_HEX];

	fsck_hashes_add(&repair->lacking, chunk);
	if (repair->out->chunks_lacking++ == 0) {
		hash_hex(chunk, hex);
		snprintf(repair->out->lacking, sizeof repair->out->lacking, "chunk %.16s: %s", hex,
		    why);
	}
}

static int
repair_fetch(struct repair *repair, const struct hearth_repair_options *options,
    const struct hearth_progress *progress)
{
	struct sync_fetch_sink sink = { .take = repair_take, .lacked = repair_lacked,
		.context = repair };

	fsck_hashes_sort(&repair->wants);
	return sync_fetch(repair->home, options->peer, options->program, repair->wants.items,
	    repair->wants.count, &sink, progress, repair->out->peer_name, repair->error);
}

/* ---- retiring the damaged packs -------------------------------------------------------- */

/* A damaged pack no chunk row points into leaves the store's list; its
 * name goes to names (for moving the file aside after the commit). */
static int
repair_forget_packs(struct repair *repair, char ***names, size_t *count)
{
	struct hearth *home = repair->home;

	*names = array_zeroed(repair->damage.pack_count + 1, sizeof **names);
	*count = 0;
	for (size_t i = 0; i < repair->damage.pack_count; i++) {
		char name[PATH_MAX];
		int used = pack_index_forget(&home->store, repair->damage.packs[i], name, sizeof name,
		    repair->error);
		if (used < 0)
			return HEARTH_FAILED;
		if (used > 0)
			continue;	/* a chunk nobody could give is still read from it */
		if (name[0] != '\0')
			(*names)[(*count)++] = array_strdup(name);
		repair->out->packs_retired++;
	}
	return 0;
}

/* After the commit: the retired files move to STATE/damaged/ (the next
 * writer would delete a pack file the store does not list). Best effort:
 * the store no longer needs them either way. */
static void
repair_move_aside(struct hearth *home, char **names, size_t count)
{
	if (count == 0)
		return;
	if (io_mkdir(home->state_fd, REPAIR_DAMAGED_DIR, 0700) != 0 && errno != EEXIST)
		return;
	int damaged = openat(home->state_fd, REPAIR_DAMAGED_DIR,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (damaged < 0)
		return;
	for (size_t i = 0; i < count; i++)
		if (faccessat(home->packs_fd, names[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			io_rename(home->packs_fd, names[i], damaged, names[i]);
	close(damaged);
}

/* ---- markers ---------------------------------------------------------------------------- */

static void
repair_markers(struct repair *repair)
{
	for (size_t i = 0; i < repair->damage.marker_count; i++) {
		const struct fsck_marker *marker = &repair->damage.markers[i];
		if (identity_write_folder(marker->root->fd, marker->path, marker->node) == 0)
			repair->out->markers_rewritten++;
	}
}

/* The index's note that head dropped none of its rows, where fsck found
 * rows it dropped: status and record look for them again. */
static int
repair_dropped_note(struct repair *repair)
{
	struct hearth *home = repair->home;
	struct hearth_error failure;

	if (!repair->damage.dropped_note_wrong)
		return 0;
	if (store_begin(&home->store, &failure) != 0)
		return hearth_fail(repair->error, HEARTH_FAILED, "%s", failure.message);
	if (head_dropped_unknown(home) != 0 || store_commit(&home->store, &failure) != 0) {
		store_rollback(&home->store);
		return hearth_fail(repair->error, HEARTH_FAILED, "%s/store.db: the index's note of "
		    "dropped rows cannot be taken away", home->location.state_path);
	}
	repair->out->index_notes_cleared++;
	return 0;
}

/* ---- the whole repair --------------------------------------------------------------------- */

/* The content half, in one transaction: copies, fetches, the new pack
 * sealed, rows moved, damaged packs forgotten. */
static int
repair_content(struct repair *repair, const struct hearth_repair_options *options,
    const struct hearth_progress *progress, char ***retired, size_t *retired_count)
{
	struct hearth *home = repair->home;
	struct hearth_error failure;
	struct pack_sink sink = { .started = repair_started, .stored = repair_stored,
		.sealed = repair_sealed, .context = repair };

	if (store_begin(&home->store, &failure) != 0)
		return hearth_fail(repair->error, HEARTH_FAILED, "%s", failure.message);
	repair->writer = pack_writer_new(home->packs_fd, home->packs_path,
	    config_durability_rules(home->config->durability).sync_packs, &sink);
	int status = repair_copy_readable(repair);
	if (status == 0 && repair->wants.count > 0)
		status = repair_fetch(repair, options, progress);
	if (status == 0 && pack_writer_finish(repair->writer, &failure) != 0)
		status = hearth_fail(repair->error, HEARTH_FAILED, "%s", failure.message);
	if (status == 0)
		status = repair_forget_packs(repair, retired, retired_count);
	if (status == 0 && store_commit(&home->store, &failure) != 0)
		status = hearth_fail(repair->error, HEARTH_FAILED, "%s", failure.message);
	if (status != 0) {
		store_rollback(&home->store);
		if (repair->writer != NULL)
			pack_writer_abort(repair->writer);
	}
	if (repair->writer != NULL)
		pack_writer_free(repair->writer);
	repair->writer = NULL;
	if (status == 0)
		home_count_writes(home, 0);
	return status;
}

int
hearth_fsck_repair(hearth *home, const struct hearth_repair_options *options,
    const struct hearth_progress *progress, struct hearth_repair_result *out,
    struct hearth_error *error)
{
	struct repair repair = { .home = home, .out = out, .error = error };
	struct hearth_fsck_report report;
	char **retired = NULL;
	size_t retired_count = 0;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	int status = home_lock(home, "fsck --repair", error);
	if (status != 0)
		return status;
	fsck_run(home, progress, &report, &repair.damage);
	hearth_fsck_report_free(&report);
	/* Ops first: a damaged SET names content that never was, which no
	 * peer could give; once the ops are whole, what content lacks is
	 * looked for again. */
	if (repair.damage.op_count > 0 || repair.damage.rows_disagreeing > 0) {
		status = fsck_repair_ops(home, &repair.damage, options, out, error);
		fsck_damage_free(&repair.damage);
		fsck_run(home, progress, &report, &repair.damage);
		hearth_fsck_report_free(&report);
	}
	out->chunks_damaged = repair.damage.chunks.count;
	repair_markers(&repair);
	if (status == 0)
		status = repair_dropped_note(&repair);
	if (status == 0 && (repair.damage.pack_count > 0 || repair.damage.chunks.count > 0))
		status = repair_content(&repair, options, progress, &retired, &retired_count);
	if (status == 0)
		repair_move_aside(home, retired, retired_count);
	home_unlock(home);
	for (size_t i = 0; i < retired_count; i++)
		free(retired[i]);
	free(retired);
	fsck_damage_free(&repair.damage);
	free(repair.wants.items);
	free(repair.lacking.items);
	if (status == 0 && out->ops_lacking > 0)
		status = hearth_fail(error, HEARTH_DAMAGED, "%s; they stay damaged here",
		    out->lacking);
	else if (status == 0 && out->chunks_lacking > 0)
		status = hearth_fail(error, HEARTH_DAMAGED, "%llu chunk%s could not be had from %s "
		    "(%s); they stay damaged here", (unsigned long long)out->chunks_lacking,
		    out->chunks_lacking == 1 ? "" : "s", out->peer_name, out->lacking);
	return status;
}
