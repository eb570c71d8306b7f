/* fsck: proves the store is whole and consistent, and names what is not:
 * ops decode and their counters have no gaps, every version has its COMMIT,
 * every pack is sealed and every chunk's bytes match their hash, every
 * content an op names is held, the head state equals state_derive over all
 * ops (DESIGN §4.6), and the working-tree index points at real nodes. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/blob.h"
#include "backend/head.h"
#include "backend/verify.h"
#include "model/state.h"

struct fsck {
	struct hearth *home;
	const struct hearth_progress *progress;
	struct hearth_fsck_report *report;
	size_t capacity;
};

static void
problem(struct fsck *fsck, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void
problem(struct fsck *fsck, const char *format, ...)
{
	char line[1024];
	va_list args;

	va_start(args, format);
	vsnprintf(line, sizeof line, format, args);
	va_end(args);
	if (fsck->report->problem_count == fsck->capacity) {
		fsck->capacity = fsck->capacity ? fsck->capacity * 2 : 16;
		const char **grown = storage_alloc(fsck->report->storage,
		    fsck->capacity * sizeof *grown);
		if (fsck->report->problem_count > 0)
			memcpy(grown, fsck->report->problems,
			    fsck->report->problem_count * sizeof *grown);
		fsck->report->problems = grown;
	}
	fsck->report->problems[fsck->report->problem_count++] =
	    storage_strdup(fsck->report->storage, line);
}

static void
progress(struct fsck *fsck, const char *phase, uint64_t done, uint64_t total)
{
	if (fsck->progress == NULL || fsck->progress->report == NULL)
		return;
	struct hearth_progress_report report = { .phase = phase, .done = done, .total = total };
	fsck->progress->report(fsck->progress->context, &report);
}

/* Every op decodes, its row agrees with its body, counters have no gaps;
 * every SET's content is held. Fills ops (decoded into arena) for the
 * derivation check. */
static void
check_ops(struct fsck *fsck, struct op **ops, size_t *count, struct arena *arena)
{
	struct hearth *home = fsck->home;
	sqlite3_stmt *statement = store_statement(&home->store,
	    "SELECT replica, counter, lamport, kind, body FROM op ORDER BY replica, counter");
	size_t capacity = 1024;
	int64_t last_replica = -1;
	uint64_t expected = 1;
	char reason[128], hex[ID_HEX], blob_hex[HASH_HEX];

	*ops = malloc(capacity * sizeof **ops);
	*count = 0;
	while (sqlite3_step(statement) == SQLITE_ROW) {
		int64_t replica = sqlite3_column_int64(statement, 0);
		uint64_t counter = (uint64_t)sqlite3_column_int64(statement, 1);
		struct replica_id replica_id;
		store_replica_id(&home->store, replica, &replica_id);
		replica_id_hex(replica_id, hex);
		if (replica != last_replica) {
			last_replica = replica;
			expected = 1;
		}
		if (counter != expected)
			problem(fsck, "ops of replica %.8s jump from %llu to %llu: %llu missing", hex,
			    (unsigned long long)expected - 1, (unsigned long long)counter,
			    (unsigned long long)(counter - expected));
		expected = counter + 1;
		fsck->report->ops_checked++;
		if (*count == capacity) {
			capacity *= 2;
			*ops = realloc(*ops, capacity * sizeof **ops);
		}
		struct op *op = &(*ops)[*count];
		if (!op_decode(sqlite3_column_blob(statement, 4),
			(size_t)sqlite3_column_bytes(statement, 4), op, arena, reason, sizeof reason)) {
			problem(fsck, "op %.8s/%llu does not decode: %s", hex,
			    (unsigned long long)counter, reason);
			continue;
		}
		if (op->id.counter != counter || !replica_id_equal(op->id.replica, replica_id) ||
		    op->lamport != (uint64_t)sqlite3_column_int64(statement, 2) ||
		    (int)op->kind != sqlite3_column_int(statement, 3))
			problem(fsck, "op %.8s/%llu: its row disagrees with its body", hex,
			    (unsigned long long)counter);
		if (op->kind == OP_SET && op->u.set.size > 0 && !blob_is_stored(home, &op->u.set.blob)) {
			hash_hex(&op->u.set.blob, blob_hex);
			problem(fsck, "content %.16s (set by op %.8s/%llu) is not in the store", blob_hex,
			    hex, (unsigned long long)counter);
		}
		(*count)++;
		if (fsck->report->ops_checked % 65536 == 0)
			progress(fsck, "checking ops", fsck->report->ops_checked, 0);
	}
	sqlite3_reset(statement);
}

static void
check_versions(struct fsck *fsck)
{
	struct hearth *home = fsck->home;
	sqlite3_stmt *statement = store_statement(&home->store,
	    "SELECT v.id, o.kind FROM version v LEFT JOIN op o "
	    "ON o.replica = v.replica AND o.counter = v.counter");
	char hex[HASH_HEX];

	while (sqlite3_step(statement) == SQLITE_ROW) {
		fsck->report->versions_checked++;
		if (sqlite3_column_type(statement, 1) == SQLITE_NULL ||
		    sqlite3_column_int(statement, 1) != OP_COMMIT) {
			hex_encode(sqlite3_column_blob(statement, 0), HASH_BYTES, hex);
			problem(fsck, "version %.12s has no COMMIT op", hex);
		}
	}
	sqlite3_reset(statement);
}

static void
check_chunks(struct fsck *fsck)
{
	struct hearth *home = fsck->home;
	sqlite3_stmt *statement = store_statement(&home->store,
	    "SELECT c.id, c.pack, c.frame, c.offset, c.length, p.name FROM chunk c "
	    "LEFT JOIN pack p ON p.number = c.pack ORDER BY c.pack, c.frame, c.offset");
	struct buffer bytes;
	char message[1024], hex[HASH_HEX];
	uint64_t total = 0;

	sqlite3_stmt *count = store_statement(&home->store, "SELECT count(*) FROM chunk");
	if (sqlite3_step(count) == SQLITE_ROW)
		total = (uint64_t)sqlite3_column_int64(count, 0);
	sqlite3_reset(count);
	buffer_init(&bytes);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		struct hash id;
		struct pack_location where;
		memcpy(id.bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
		where.pack = sqlite3_column_int64(statement, 1);
		where.frame_offset = (uint64_t)sqlite3_column_int64(statement, 2);
		where.offset_in_frame = (uint32_t)sqlite3_column_int64(statement, 3);
		where.length = (uint32_t)sqlite3_column_int64(statement, 4);
		fsck->report->chunks_checked++;
		if (sqlite3_column_type(statement, 5) == SQLITE_NULL) {
			hash_hex(&id, hex);
			problem(fsck, "chunk %.16s points at pack %lld, which the store does not list", hex,
			    (long long)where.pack);
			continue;
		}
		buffer_reset(&bytes);
		if (pack_read(home->reader, &id, &where, &bytes, message, sizeof message) != 0)
			problem(fsck, "%s", message);
		if (fsck->report->chunks_checked % 4096 == 0)
			progress(fsck, "checking content", fsck->report->chunks_checked, total);
	}
	sqlite3_reset(statement);
	buffer_free(&bytes);
}

static int
count_index_entry(void *context, const struct hash *chunk, uint64_t frame_offset,
    uint32_t offset_in_frame, uint32_t length)
{
	(void)context, (void)chunk, (void)frame_offset, (void)offset_in_frame, (void)length;
	return 0;
}

static void
check_packs(struct fsck *fsck)
{
	struct hearth *home = fsck->home;
	sqlite3_stmt *statement = store_statement(&home->store,
	    "SELECT name, sealed FROM pack WHERE name = ?1");
	DIR *dir = opendir(home->packs_path);
	struct dirent *dirent;

	while (dir != NULL && (dirent = readdir(dir)) != NULL) {
		if (dirent->d_name[0] == '.')
			continue;
		sqlite3_reset(statement);
		sqlite3_bind_text(statement, 1, dirent->d_name, -1, SQLITE_TRANSIENT);
		/* A pack the store does not list is a writer's work in progress,
		 * or what an interrupted one left; the next writer removes it. */
		if (sqlite3_step(statement) != SQLITE_ROW)
			continue;
		fsck->report->packs_checked++;
		if (sqlite3_column_int(statement, 1) == 0)
			problem(fsck, "%s/%s was never sealed", home->packs_path, dirent->d_name);
		/* The pack's own index is what a repair rebuilds from: check it. */
		char message[1024];
		if (pack_scan_index(home->packs_fd, dirent->d_name, count_index_entry, NULL, message,
			sizeof message) != 0)
			problem(fsck, "%s", message);
	}
	if (dir != NULL)
		closedir(dir);
	sqlite3_reset(statement);
	statement = store_statement(&home->store, "SELECT name FROM pack");
	while (sqlite3_step(statement) == SQLITE_ROW) {
		char path[8192];
		const char *name = (const char *)sqlite3_column_text(statement, 0);
		snprintf(path, sizeof path, "%s/%s", home->packs_path, name);
		FILE *file = fopen(path, "rb");
		if (file == NULL)
			problem(fsck, "pack %s is missing: every version using its content is damaged",
			    path);
		else
			fclose(file);
	}
	sqlite3_reset(statement);
}

static void
report_difference(void *context, const char *line)
{
	problem(context, "%s", line);
}

/* The materialized head state must equal the pure derivation (§4.6). */
static void
check_head(struct fsck *fsck, const struct op *ops, size_t count)
{
	struct state state;

	memset(&state, 0, sizeof state);
	state_derive(ops, count, &state);
	verify_head_state(fsck->home, &state, report_difference, fsck);
	state_free(&state);
}

static void
check_index(struct fsck *fsck)
{
	sqlite3_stmt *statement = store_statement(&fsck->home->store,
	    "SELECT e.node, e.parent FROM entry e WHERE e.parent NOT IN (SELECT node FROM entry) "
	    "AND e.parent != ?1 AND e.parent != ?2");
	char hex[ID_HEX];

	sqlite3_bind_blob(statement, 1, NODE_ROOT.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, NODE_TRASH.bytes, ID_BYTES, SQLITE_STATIC);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		hex_encode(sqlite3_column_blob(statement, 0), ID_BYTES, hex);
		problem(fsck, "the working-tree index has node %s under a folder it does not hold", hex);
	}
	sqlite3_reset(statement);
}

int
hearth_fsck(hearth *home, const struct hearth_progress *progress_to,
    struct hearth_fsck_report *out, struct hearth_error *error)
{
	struct fsck fsck = { .home = home, .progress = progress_to, .report = out };
	struct arena arena;
	struct op *ops;
	size_t count;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	out->storage = storage_new();
	store_begin_read(&home->store);
	sqlite3_stmt *statement = store_statement(&home->store, "PRAGMA quick_check");
	while (sqlite3_step(statement) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(statement, 0);
		if (line != NULL && strcmp(line, "ok") != 0)
			problem(&fsck, "store.db: %s", line);
	}
	sqlite3_reset(statement);
	arena_init(&arena, 1024 * 1024);
	check_ops(&fsck, &ops, &count, &arena);
	check_versions(&fsck);
	check_packs(&fsck);
	check_chunks(&fsck);
	check_head(&fsck, ops, count);
	check_index(&fsck);
	free(ops);
	arena_free(&arena);
	store_end_read(&home->store);
	if (out->problem_count > 0)
		return hearth_fail(error, HEARTH_DAMAGED, "%zu problem%s found", out->problem_count,
		    out->problem_count == 1 ? "" : "s");
	return 0;
}

void
hearth_fsck_report_free(struct hearth_fsck_report *report)
{
	storage_free(report->storage);
	memset(report, 0, sizeof *report);
}
