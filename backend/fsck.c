/* fsck: proves the store is whole and consistent, and names what is not:
 * ops decode and their counters have no gaps, every version has its COMMIT,
 * every pack is sealed and every chunk's bytes match their hash, every
 * content an op names is held, the head state equals state_derive over all
 * ops (docs/DESIGN.md §4.6), the working-tree index points at real nodes, and the
 * folders' identity markers are whole. Damage is traced from chunks to the
 * contents, paths and versions that need them (fsck_trace), so a report
 * says what was lost, not only where; hearth_fsck_repair (fsck_repair.c)
 * mends it from a healthy replica. */
#include "backend/fsck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/history/blob.h"
#include "backend/store/chunk.h"
#include "backend/store/hash.h"
#include "backend/store/pack_index.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/disk/identity.h"
#include "backend/disk/scan.h"
#include "backend/history/verify.h"
#include "model/array.h"
#include "model/state.h"

/* Lines naming single damaged chunks; the rest are counted. The contents
 * and paths they hit are always listed (up to FSCK_TRACE_LINES). */
#define FSCK_CHUNK_LINES 20
#define FSCK_TRACE_LINES 200
#define FSCK_VERSIONS_SHOWN 12

struct fsck {
	struct hearth *home;
	const struct hearth_progress *progress;
	struct hearth_fsck_report *report;
	size_t capacity;
	struct fsck_damage *damage;
	uint64_t chunk_lines, chunk_lines_left_out;
};

static void
problem(struct fsck *fsck, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void
problem(struct fsck *fsck, const char *format, ...)
{
	char line[2048];
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

/* ---- sets of ids: sorted arrays, sorted once filled ---------------------------------- */

static int
compare_hashes(const void *a, const void *b)
{
	return memcmp(a, b, HASH_BYTES);
}

void
fsck_hashes_add(struct fsck_hashes *set, const struct hash *id)
{
	set->items = array_grow(set->items, &set->capacity, set->count + 1, sizeof *set->items);
	set->items[set->count++] = *id;
	set->sorted = false;
}

void
fsck_hashes_sort(struct fsck_hashes *set)
{
	if (set->sorted)
		return;
	if (set->count > 1)
		qsort(set->items, set->count, sizeof *set->items, compare_hashes);
	size_t kept = 0;
	for (size_t i = 0; i < set->count; i++)
		if (kept == 0 || !hash_equal(&set->items[kept - 1], &set->items[i]))
			set->items[kept++] = set->items[i];
	set->count = kept;
	set->sorted = true;
}

bool
fsck_hashes_has(struct fsck_hashes *set, const struct hash *id)
{
	fsck_hashes_sort(set);
	return set->count > 0 &&
	    bsearch(id, set->items, set->count, sizeof *set->items, compare_hashes) != NULL;
}

static void
fsck_add_pack(struct fsck_damage *damage, int64_t pack)
{
	for (size_t i = 0; i < damage->pack_count; i++)
		if (damage->packs[i] == pack)
			return;
	damage->packs = array_resize(damage->packs, damage->pack_count + 1, sizeof *damage->packs);
	damage->packs[damage->pack_count++] = pack;
}

bool
fsck_pack_damaged(const struct fsck_damage *damage, int64_t pack)
{
	for (size_t i = 0; i < damage->pack_count; i++)
		if (damage->packs[i] == pack)
			return true;
	return false;
}

void
fsck_damage_free(struct fsck_damage *damage)
{
	free(damage->chunks.items);
	free(damage->blobs.items);
	free(damage->packs);
	for (size_t i = 0; i < damage->marker_count; i++)
		free(damage->markers[i].path);
	free(damage->markers);
	free(damage->ops);
	memset(damage, 0, sizeof *damage);
}

/* ---- ops and versions ------------------------------------------------------------------ */

/* Where the chain check of one replica stands: the chain stored for the
 * op before, and the one its bytes give (they differ after a damaged op,
 * and the next op may have been chained on either). */
struct chain_walk {
	int64_t replica;
	uint64_t expected;
	struct hash stored, computed;
};

/* The kind an op's row names, for a report about it (its body may be
 * what is damaged). */
/* The op's bytes against its chain: any byte changed in the body or in
 * the chain itself shows here, whether or not the op still decodes. */
static bool
chain_intact(struct store *store, struct chain_walk *walk, const struct store_op_row *row)
{
	struct hash from_stored, from_computed;

	store_chain_next(store, &walk->stored, row->body, row->body_length, &from_stored);
	store_chain_next(store, &walk->computed, row->body, row->body_length, &from_computed);
	bool intact = row->has_chain && (hash_equal(&from_stored, &row->chain) ||
	    hash_equal(&from_computed, &row->chain));
	walk->computed = from_stored;
	walk->stored = row->has_chain ? row->chain : from_stored;
	return intact;
}

static bool
row_agrees(const struct store_op_row *row, const struct op *op, struct replica_id replica_id)
{
	struct node_id node = op_node(op);
	bool node_agrees = op->kind == OP_COMMIT ? row->node_length == -1 :
	    row->node_length == ID_BYTES && node_id_equal(row->node, node);

	return op->id.counter == row->counter && replica_id_equal(op->id.replica, replica_id) &&
	    op->lamport == row->lamport && op->kind == row->kind && node_agrees;
}

static void
check_op_content(struct fsck *fsck, const struct op *op, const char *hex, uint64_t counter)
{
	char blob_hex[HASH_HEX];

	if (op->kind != OP_SET || op->u.set.size == 0 || blob_is_stored(fsck->home, &op->u.set.blob))
		return;
	hash_hex(&op->u.set.blob, blob_hex);
	problem(fsck, "content %.16s (set by op %.8s/%llu) is not in the store", blob_hex,
	    hex, (unsigned long long)counter);
	fsck_hashes_add(&fsck->damage->blobs, &op->u.set.blob);
	/* A one-chunk blob is its own chunk: a repair can fetch it. */
	if (op->u.set.size <= CHUNK_MIN)
		fsck_hashes_add(&fsck->damage->chunks, &op->u.set.blob);
}

/* Every op's bytes match its hash chain, it decodes, its row agrees with
 * its body, counters have no gaps; every SET's content is held. A
 * damaged op is named by replica, counter and kind. Fills ops (decoded
 * into arena) for the derivation check and the trace. */
static void
check_ops(struct fsck *fsck, struct op **ops, size_t *count, struct arena *arena)
{
	struct hearth *home = fsck->home;
	struct store_ops walk_ops;
	struct store_op_row row;
	size_t capacity = 1024;
	struct chain_walk walk = { .replica = -1 };
	char reason[128], hex[ID_HEX];

	*ops = array_alloc(capacity, sizeof **ops);
	*count = 0;
	store_ops_all(&home->store, &walk_ops);
	walk_ops.raw = true;	/* check_ops is the check, naming every damaged op */
	while (store_ops_next(&walk_ops, &row)) {
		struct replica_id replica_id;
		store_replica_id(&home->store, row.replica_number, &replica_id);
		replica_id_hex(replica_id, hex);
		if (row.replica_number != walk.replica)
			walk = (struct chain_walk){ .replica = row.replica_number, .expected = 1 };
		if (row.counter != walk.expected)
			problem(fsck, "ops of replica %.8s jump from %llu to %llu: %llu missing", hex,
			    (unsigned long long)walk.expected - 1, (unsigned long long)row.counter,
			    (unsigned long long)(row.counter - walk.expected));
		walk.expected = row.counter + 1;
		fsck->report->ops_checked++;
		*ops = array_grow(*ops, &capacity, *count + 1, sizeof **ops);
		struct op *op = &(*ops)[*count];
		bool intact = chain_intact(&home->store, &walk, &row);
		bool decoded = op_decode(row.body, row.body_length, op, arena, reason, sizeof reason);
		if (!intact) {
			/* The kind the row names: its body may be what is damaged. */
			problem(fsck, "op %.8s/%llu (%s) is damaged: its bytes do not match its hash "
			    "chain; `hearth fsck --repair PEER` fetches it from a replica that has it",
			    hex, (unsigned long long)row.counter, op_kind_name(row.kind));
			struct fsck_damage *damage = fsck->damage;
			damage->ops = array_grow(damage->ops, &damage->op_capacity,
			    damage->op_count + 1, sizeof *damage->ops);
			damage->ops[damage->op_count++] = (struct op_id){ replica_id, row.counter };
		}
		if (!decoded) {
			problem(fsck, "op %.8s/%llu does not decode: %s", hex,
			    (unsigned long long)row.counter, reason);
			continue;
		}
		if (!row_agrees(&row, op, replica_id)) {
			problem(fsck, "op %.8s/%llu (%s): its row disagrees with its body", hex,
			    (unsigned long long)row.counter, op_kind_name(op->kind));
			fsck->damage->rows_disagreeing++;
		}
		check_op_content(fsck, op, hex, row.counter);
		(*count)++;
		if (fsck->report->ops_checked % 65536 == 0)
			progress(fsck, "checking ops", fsck->report->ops_checked, 0);
	}
	if (walk_ops.failed)
		problem(fsck, "the op table could not be read to its end: %s",
		    sqlite3_errmsg(home->store.db));
	store_ops_close(&walk_ops);
}

/* A version's row against its COMMIT: what log and show read is what the
 * op says (the op itself is proven by check_ops). */
static bool
version_agrees(struct store *store, const struct history_version_row *row,
    const struct op *commit, uint64_t previous)
{
	const struct op_commit *c = &commit->u.commit;
	struct hash id;

	/* The id from the chains check_ops proves: it commits to every op. */
	return store_version_id(store, commit, &id) == 0 &&
	    row->id_length == HASH_BYTES && memcmp(row->id, id.bytes, HASH_BYTES) == 0 &&
	    row->counter == commit->id.counter && row->lamport == commit->lamport &&
	    row->replica_id_length == ID_BYTES &&
	    memcmp(row->replica_id, commit->id.replica.bytes, ID_BYTES) == 0 &&
	    row->time == c->time && row->utc_offset == c->utc_offset &&
	    row->author != NULL && strcmp(row->author, c->author) == 0 &&
	    row->author_length == strlen(c->author) &&
	    row->message != NULL && strcmp(row->message, c->message) == 0 &&
	    row->message_length == strlen(c->message) &&
	    row->previous == previous && row->changes == commit->id.counter - previous - 1;
}

/* Where check_versions is in its walk: versions come by replica and counter. */
struct version_walk {
	struct fsck *fsck;
	struct arena arena;
	int64_t last_replica;
	uint64_t previous;	/* counter of the replica's version before this one */
};

static int
check_version(void *context, const struct history_version_row *row)
{
	struct version_walk *walk = context;
	struct fsck *fsck = walk->fsck;
	struct op commit;
	char hex[HASH_HEX], reason[128];

	fsck->report->versions_checked++;
	if (row->replica_number != walk->last_replica)
		walk->previous = 0;
	walk->last_replica = row->replica_number;
	hex_encode(row->id, row->id_length < HASH_BYTES ? row->id_length : HASH_BYTES, hex);
	if (row->commit == NULL) {
		problem(fsck, "version %.12s has no COMMIT op", hex);
		return 0;
	}
	if (op_decode(row->commit, row->commit_length, &commit, &walk->arena, reason,
		sizeof reason) && !version_agrees(&fsck->home->store, row, &commit, walk->previous)) {
		char replica_hex[ID_HEX];
		replica_id_hex(commit.id.replica, replica_hex);
		problem(fsck, "version %.12s (commit %.8s/%llu): its row in the history is "
		    "not what its COMMIT says", hex, replica_hex,
		    (unsigned long long)commit.id.counter);
		fsck->damage->rows_disagreeing++;
	}
	walk->previous = row->counter;
	if (walk->arena.allocated > (1u << 20)) {
		arena_free(&walk->arena);
		arena_init(&walk->arena, 16 * 1024);
	}
	return 0;
}

/* Every version has its COMMIT and every column of its row is what that
 * COMMIT says, its id what it and the ops it names give (store_version_id);
 * every COMMIT has its version. */
static void
check_versions(struct fsck *fsck)
{
	struct hearth *home = fsck->home;
	struct version_walk walk = { .fsck = fsck, .last_replica = -1 };
	struct store_ops commits;
	struct store_op_row row;

	arena_init(&walk.arena, 16 * 1024);
	(void)history_version_rows_each(home, false, check_version, &walk);
	arena_free(&walk.arena);
	store_ops_commits(&home->store, &commits);
	commits.raw = true;	/* a damaged COMMIT is check_ops's to name */
	while (store_ops_next(&commits, &row)) {
		if (history_has_version(home, row.replica_number, row.counter))
			continue;
		struct replica_id replica_id;
		char replica_hex[ID_HEX];
		store_replica_id(&home->store, row.replica_number, &replica_id);
		replica_id_hex(replica_id, replica_hex);
		problem(fsck, "commit %.8s/%llu has no version in the history", replica_hex,
		    (unsigned long long)row.counter);
		fsck->damage->rows_disagreeing++;
	}
	store_ops_close(&commits);
}

/* ---- packs and chunks ------------------------------------------------------------------ */

/* A damaged chunk: counted, its pack marked, and named on a line of its
 * own while there are few (a truncated pack can lose thousands). */
static void
chunk_damaged(struct fsck *fsck, const struct hash *chunk, int64_t pack, const char *what)
{
	fsck_hashes_add(&fsck->damage->chunks, chunk);
	fsck_add_pack(fsck->damage, pack);
	if (what == NULL)
		return;
	if (fsck->chunk_lines < FSCK_CHUNK_LINES) {
		fsck->chunk_lines++;
		problem(fsck, "%s", what);
	} else {
		fsck->chunk_lines_left_out++;
	}
}

/* The walk of every chunk row, in pack order: a missing pack is looked up
 * once for all its chunks, and a damaged frame's message said once. */
struct chunk_check {
	struct fsck *fsck;
	struct buffer bytes;
	char last_message[HEARTH_ERROR_MAX];
	int64_t last_pack;
	bool pack_missing;
	uint64_t total;
};

static int
check_chunk(void *context, const struct hash *id, const struct pack_location *where,
    const char *file_name)
{
	struct chunk_check *check = context;
	struct fsck *fsck = check->fsck;
	struct hearth_error failure;
	char message[1024], hex[HASH_HEX];

	fsck->report->chunks_checked++;
	if (file_name == NULL) {
		hash_hex(id, hex);
		snprintf(message, sizeof message, "chunk %.16s points at pack %lld, which the "
		    "store does not list", hex, (long long)where->pack);
		chunk_damaged(fsck, id, where->pack, message);
		return 0;
	}
	/* A missing pack was named once (check_packs); its chunks are
	 * all lost, and are counted without a line each. */
	if (where->pack != check->last_pack) {
		check->last_pack = where->pack;
		check->pack_missing = faccessat(fsck->home->packs_fd, file_name, F_OK, 0) != 0;
	}
	if (check->pack_missing) {
		chunk_damaged(fsck, id, where->pack, NULL);
		return 0;
	}
	buffer_reset(&check->bytes);
	/* The chunks of one damaged frame share its message: one line. */
	if (pack_read(fsck->home->reader, id, where, &check->bytes, &failure) != 0) {
		bool said = strcmp(failure.message, check->last_message) == 0;
		chunk_damaged(fsck, id, where->pack, said ? NULL : failure.message);
		snprintf(check->last_message, sizeof check->last_message, "%s", failure.message);
	}
	if (fsck->report->chunks_checked % 4096 == 0)
		progress(fsck, "checking content", fsck->report->chunks_checked, check->total);
	return 0;
}

static void
check_chunks(struct fsck *fsck)
{
	struct chunk_check check = { .fsck = fsck, .last_pack = -1 };

	check.total = chunk_index_count(&fsck->home->store);
	buffer_init(&check.bytes);
	chunk_index_each(&fsck->home->store, check_chunk, &check);
	buffer_free(&check.bytes);
	if (fsck->chunk_lines_left_out > 0)
		problem(fsck, "... and %llu more damaged chunks",
		    (unsigned long long)fsck->chunk_lines_left_out);
}

static int
count_index_entry(void *context, const struct hash *chunk, uint64_t frame_offset,
    uint32_t offset_in_frame, uint32_t length)
{
	(void)context, (void)chunk, (void)frame_offset, (void)offset_in_frame, (void)length;
	return 0;
}

/* A listed pack whose file is gone: its chunks are lost here. */
static int
check_pack_present(void *context, int64_t number, const char *file_name, uint64_t chunks)
{
	struct fsck *fsck = context;
	struct hearth *home = fsck->home;

	if (faccessat(home->packs_fd, file_name, F_OK, 0) == 0)
		return 0;
	problem(fsck, "pack %s/%s is missing: its %lld chunks are lost here",
	    home->packs_path, file_name, (long long)chunks);
	fsck_add_pack(fsck->damage, number);
	fsck->damage->missing_packs++;
	return 0;
}

static void
check_packs(struct fsck *fsck)
{
	struct hearth *home = fsck->home;
	DIR *dir = opendir(home->packs_path);
	struct dirent *dirent;

	while (dir != NULL && (dirent = readdir(dir)) != NULL) {
		if (dirent->d_name[0] == '.')
			continue;
		int64_t number;
		bool sealed;
		/* A pack the store does not list is a writer's work in progress,
		 * or what an interrupted one left; the next writer removes it. */
		if (pack_index_find(&home->store, dirent->d_name, &number, &sealed) != 1)
			continue;
		fsck->report->packs_checked++;
		if (!sealed) {
			problem(fsck, "%s/%s was never sealed", home->packs_path, dirent->d_name);
			fsck_add_pack(fsck->damage, number);
		}
		/* The pack's own index is what a repair rebuilds from: check it. */
		struct hearth_error failure;
		if (pack_scan_index(home->packs_fd, dirent->d_name, count_index_entry, NULL,
			&failure) != 0) {
			problem(fsck, "%s", failure.message);
			fsck_add_pack(fsck->damage, number);
		}
	}
	if (dir != NULL)
		closedir(dir);
	pack_index_each(&home->store, check_pack_present, fsck);
}

/* ---- tracing damage to contents, paths and versions ------------------------------------ */

/* Multi-chunk contents are damaged when one of their chunks is, or is not
 * in the store at all (then it is wanted too). */
struct blob_trace {
	struct fsck *fsck;
	struct fsck_hashes missing;
};

static int
trace_blob(void *context, const struct hash *blob, const uint8_t *list, size_t count)
{
	struct blob_trace *trace = context;
	struct fsck *fsck = trace->fsck;
	struct fsck_damage *damage = fsck->damage;
	char hex[HASH_HEX], chunk_hex[HASH_HEX];
	bool damaged = false;

	for (size_t i = 0; i < count; i++) {
		struct hash chunk;
		struct pack_location where;
		memcpy(chunk.bytes, list + i * HASH_BYTES, HASH_BYTES);
		if (fsck_hashes_has(&damage->chunks, &chunk)) {
			damaged = true;
		} else if (blob_chunk_find(fsck->home, &chunk, &where) != 1) {
			hash_hex(blob, hex);
			hash_hex(&chunk, chunk_hex);
			problem(fsck, "chunk %.16s of content %.16s is not in the store", chunk_hex,
			    hex);
			fsck_hashes_add(&trace->missing, &chunk);
			damaged = true;
		}
	}
	if (damaged)
		fsck_hashes_add(&damage->blobs, blob);
	return 0;
}

static void
trace_blobs(struct fsck *fsck)
{
	struct fsck_damage *damage = fsck->damage;
	struct blob_trace trace = { .fsck = fsck };

	fsck_hashes_sort(&damage->chunks);
	blob_each(fsck->home, trace_blob, &trace);
	struct fsck_hashes missing = trace.missing;
	for (size_t i = 0; i < missing.count; i++)
		fsck_hashes_add(&damage->chunks, &missing.items[i]);
	free(missing.items);
	/* A one-chunk content is its chunk. */
	for (size_t i = 0; i < damage->chunks.count; i++)
		fsck_hashes_add(&damage->blobs, &damage->chunks.items[i]);
	fsck_hashes_sort(&damage->chunks);
	fsck_hashes_sort(&damage->blobs);
}

/* A version as the trace needs it: its id and what it includes. */
struct trace_version {
	char id[HASH_HEX];
	struct vv vv;		/* a view into the arena's decoded COMMIT */
	bool hit;		/* holds a damaged content */
};

/* load_versions's list as it grows. */
struct version_list {
	struct trace_version *versions;
	size_t count, capacity;
	struct arena *arena;
};

static int
load_version(void *context, const struct history_version_row *row)
{
	struct version_list *list = context;
	struct op commit;
	char reason[128];

	if (row->commit == NULL || row->id_length != HASH_BYTES ||
	    !op_decode(row->commit, row->commit_length, &commit, list->arena, reason,
		sizeof reason) || commit.kind != OP_COMMIT)
		return 0;	/* check_ops and check_versions name it */
	list->versions = array_grow(list->versions, &list->capacity, list->count + 1,
	    sizeof *list->versions);
	struct trace_version *version = &list->versions[list->count++];
	hex_encode(row->id, HASH_BYTES, version->id);
	version->vv = (struct vv){ .entries = (struct vv_entry *)commit.u.commit.vv_entries,
		.count = commit.u.commit.vv_count };
	version->hit = false;
	return 0;
}

/* Every version whose COMMIT decodes, newest first in the total order. */
static size_t
load_versions(struct hearth *home, struct trace_version **out, struct arena *arena)
{
	struct version_list list = { .arena = arena };

	(void)history_version_rows_each(home, true, load_version, &list);
	*out = list.versions;
	return list.count;
}

/* The ops that supersede set: what ends its content in the versions that
 * include one of them. */
static size_t
superseders_of(const struct op *set, const struct op *ops, size_t count, struct op_id **out)
{
	size_t found = 0;

	*out = NULL;
	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; j < ops[i].supersedes_count; j++)
			if (op_id_equal(ops[i].supersedes[j], set->id)) {
				*out = array_resize(*out, found + 1, sizeof **out);
				(*out)[found++] = ops[i].id;
				break;
			}
	return found;
}

/* Lists the versions whose tree holds the content set gave: those that
 * include set and none of the ops that superseded it. */
static void
versions_holding(struct fsck *fsck, const struct op *set, const struct op *ops, size_t count,
    struct trace_version *versions, size_t version_count, struct buffer *out, uint64_t *held)
{
	struct op_id *ended;
	size_t ended_count = superseders_of(set, ops, count, &ended);
	char short_id[HASH_HEX];
	uint64_t shown = 0;

	*held = 0;
	buffer_reset(out);
	for (size_t v = 0; v < version_count; v++) {
		if (!vv_includes(&versions[v].vv, set->id))
			continue;
		bool superseded = false;
		for (size_t e = 0; e < ended_count && !superseded; e++)
			superseded = vv_includes(&versions[v].vv, ended[e]);
		if (superseded)
			continue;
		(*held)++;
		versions[v].hit = true;
		if (shown == FSCK_VERSIONS_SHOWN)
			continue;
		history_short_id(fsck->home, versions[v].id, short_id);
		buffer_printf(out, "%s%s%s", shown ? ", " : "", short_id, v == 0 ? " (head)" : "");
		shown++;
	}
	if (*held > shown)
		buffer_printf(out, " and %llu more", (unsigned long long)(*held - shown));
	buffer_string(out);
	free(ended);
}

/* One line per op whose content is damaged: the path it is at now, the
 * content, the op, and the versions that hold it. */
static void
trace_paths(struct fsck *fsck, const struct op *ops, size_t count)
{
	struct fsck_damage *damage = fsck->damage;
	struct trace_version *versions;
	struct arena arena;
	struct buffer path, held_in;
	char escaped[4096 * 4 + 16], blob_hex[HASH_HEX], replica_hex[ID_HEX];
	uint64_t lines = 0, left_out = 0, paths = 0;

	if (damage->blobs.count == 0)
		return;
	arena_init(&arena, 64 * 1024);
	buffer_init(&path);
	buffer_init(&held_in);
	size_t version_count = load_versions(fsck->home, &versions, &arena);
	for (size_t i = 0; i < count; i++) {
		const struct op *op = &ops[i];
		if (op->kind != OP_SET || !fsck_hashes_has(&damage->blobs, &op->u.set.blob))
			continue;
		paths++;
		uint64_t held;
		versions_holding(fsck, op, ops, count, versions, version_count, &held_in, &held);
		if (lines == FSCK_TRACE_LINES) {
			left_out++;
			continue;
		}
		lines++;
		buffer_reset(&path);
		if (head_path(fsck->home, op->u.set.node, &path) != 0 || path.length == 0)
			buffer_printf(&path, "(a node not placed)");
		hearth_escape_name(buffer_string(&path), escaped, sizeof escaped);
		hash_hex(&op->u.set.blob, blob_hex);
		replica_id_hex(op->id.replica, replica_hex);
		problem(fsck, "damaged: %s (content %.16s, set by op %.8s/%llu): %s%s", escaped,
		    blob_hex, replica_hex, (unsigned long long)op->id.counter,
		    held > 0 ? "held by version " : "no version holds it any more",
		    (const char *)held_in.data ? (const char *)held_in.data : "");
	}
	if (left_out > 0)
		problem(fsck, "... and %llu more damaged paths", (unsigned long long)left_out);
	damage->paths_hit = paths;
	for (size_t v = 0; v < version_count; v++)
		damage->versions_hit += versions[v].hit;
	free(versions);
	buffer_free(&path);
	buffer_free(&held_in);
	arena_free(&arena);
}

/* ---- the head state and the index -------------------------------------------------------- */

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

static int
orphan_found(void *context, struct node_id node)
{
	char hex[ID_HEX];

	node_id_hex(node, hex);
	problem(context, "the working-tree index has node %s under a folder it does not hold", hex);
	return 0;
}

/* The note that head dropped none of the index's rows lets status and
 * record skip looking for them (head.h); a wrong one would hide from them
 * the files whose node a sync took away from head. */
static void
check_dropped_note(struct fsck *fsck)
{
	struct head_dropped *rows;
	struct arena arena;
	size_t count;

	if (!head_dropped_known_none(fsck->home))
		return;
	arena_init(&arena, 16 * 1024);
	if (head_dropped_rows(fsck->home, &arena, &rows, &count) != 0)
		problem(fsck, "%s/store.db: the working-tree index cannot be read",
		    fsck->home->location.state_path);
	else if (count > 0) {
		problem(fsck, "the working-tree index notes that head dropped none of its rows, but "
		    "%zu row%s name%s a node head does not hold (`hearth fsck --repair PEER` takes "
		    "the note away)", count, count == 1 ? "" : "s", count == 1 ? "s" : "");
		fsck->damage->dropped_note_wrong = true;
	}
	free(rows);
	arena_free(&arena);
}

static void
check_index(struct fsck *fsck)
{
	scan_index_orphans(fsck->home, orphan_found, fsck);
	check_dropped_note(fsck);
}

/* ---- the folders' identity markers ---------------------------------------------------- */

/* A folder of the working-tree index, with what its path is built from. */
struct index_folder {
	struct node_id node, parent;
	char *name;
	char *root;
	char *path;		/* built on demand */
	bool on_disk;		/* restore is not 2 */
};

static int
compare_folders(const void *a, const void *b)
{
	return node_id_compare(((const struct index_folder *)a)->node,
	    ((const struct index_folder *)b)->node);
}

static const char *
folder_path(struct index_folder *folders, size_t count, struct index_folder *folder,
    struct arena *arena, int depth)
{
	if (folder->path != NULL)
		return folder->path;
	const char *parent_path = "";
	if (!node_id_equal(folder->parent, NODE_ROOT)) {
		struct index_folder key = { .node = folder->parent };
		struct index_folder *parent = bsearch(&key, folders, count, sizeof key,
		    compare_folders);
		/* check_index names a folder whose parent is gone. */
		if (parent == NULL || depth > 100000)
			return NULL;
		parent_path = folder_path(folders, count, parent, arena, depth + 1);
		if (parent_path == NULL)
			return NULL;
	}
	size_t length = strlen(parent_path) + strlen(folder->name) + 2;
	folder->path = arena_alloc(arena, length);
	snprintf(folder->path, length, "%s%s%s", parent_path, parent_path[0] ? "/" : "",
	    folder->name);
	return folder->path;
}

struct folder_load {
	struct index_folder *folders;
	size_t count, capacity;
	struct arena *arena;
};

static int
load_folder(void *context, const struct scan_entry_row *entry)
{
	struct folder_load *load = context;
	if (entry->kind != NODE_DIR)
		return 0;
	load->folders = array_grow(load->folders, &load->capacity, load->count + 1,
	    sizeof *load->folders);
	struct index_folder *folder = &load->folders[load->count++];
	memset(folder, 0, sizeof *folder);
	folder->node = entry->node;
	folder->parent = entry->parent;
	folder->name = arena_strndup(load->arena, entry->name, entry->name_length);
	folder->root = arena_strdup(load->arena, entry->root != NULL ? entry->root : "");
	folder->on_disk = entry->restore != 2;
	return 0;
}

/* The index's folders, by node. */
static size_t
load_folders(struct hearth *home, struct index_folder **out, struct arena *arena)
{
	struct folder_load load = { .arena = arena };

	scan_entries_each(home, load_folder, &load);
	*out = load.folders;
	return load.count;
}

static void
marker_damaged(struct fsck *fsck, const struct index_folder *folder, const char *path,
    const char *what)
{
	struct fsck_damage *damage = fsck->damage;
	char escaped[4096 * 4 + 16];

	hearth_escape_name(path, escaped, sizeof escaped);
	problem(fsck, "folder %s: its id (" IDENTITY_XATTR ") %s", escaped, what);
	damage->markers = array_resize(damage->markers, damage->marker_count + 1,
	    sizeof *damage->markers);
	damage->markers[damage->marker_count++] = (struct fsck_marker){
		.node = folder->node, .root = home_root_named(fsck->home, folder->root),
		.path = array_strdup(path),
	};
}

/* A folder the index holds that carries an id must carry a node's: a
 * damaged one costs the folder its identity the next time it moves (it
 * would be seen as deleted and made anew). A missing id is not damage:
 * identity then rests on the index (a folder hearth may not write, a file
 * system without xattrs whose marker name a user's file holds). An id
 * naming another node is a folder moved or copied since the last record,
 * which status shows. A .hearth-id that holds no id is a user's file. */
static void
check_markers(struct fsck *fsck)
{
	struct hearth *home = fsck->home;
	struct hearth_error ignored;
	struct index_folder *folders;
	struct arena arena;

	if (home->root_count == 0 || home_require_roots(home, &ignored) != 0)
		return;	/* hearth_summary says why the tree cannot be read */
	arena_init(&arena, 64 * 1024);
	size_t count = load_folders(home, &folders, &arena);
	for (size_t i = 0; i < count; i++) {
		struct index_folder *folder = &folders[i];
		const char *path = folder->on_disk ? folder_path(folders, count, folder, &arena, 0)
						   : NULL;
		if (path == NULL)
			continue;
		const struct home_root *root = home_root_named(home, folder->root);
		if (identity_folder_damaged(root->fd, path))
			marker_damaged(fsck, folder, path, "is damaged: it names no node");
	}
	free(folders);
	arena_free(&arena);
}

/* ---- the whole check -------------------------------------------------------------------- */

static void
check_database(struct fsck *fsck)
{
	sqlite3_stmt *statement = store_statement(&fsck->home->store, "PRAGMA quick_check");
	int step;

	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(statement, 0);
		if (line != NULL && strcmp(line, "ok") != 0)
			problem(fsck, "%s/store.db: %s", fsck->home->location.state_path, line);
	}
	if (step != SQLITE_DONE)
		problem(fsck, "%s/store.db: %s", fsck->home->location.state_path,
		    sqlite3_errmsg(fsck->home->store.db));
	sqlite3_reset(statement);
}

/* The last line of a damaged store's report: what it adds up to, and the
 * way back. */
static void
summarize_damage(struct fsck *fsck)
{
	const struct fsck_damage *damage = fsck->damage;

	if (damage->chunks.count == 0 && damage->blobs.count == 0)
		return;
	problem(fsck, "%zu chunk%s damaged or missing: %llu path%s, in %llu version%s, lost "
	    "here; `hearth fsck --repair PEER` fetches them from a replica that has them",
	    damage->chunks.count, damage->chunks.count == 1 ? "" : "s",
	    (unsigned long long)damage->paths_hit, damage->paths_hit == 1 ? "" : "s",
	    (unsigned long long)damage->versions_hit, damage->versions_hit == 1 ? "" : "s");
}

int
fsck_run(struct hearth *home, const struct hearth_progress *progress_to,
    struct hearth_fsck_report *out, struct fsck_damage *damage)
{
	struct fsck fsck = { .home = home, .progress = progress_to, .report = out,
		.damage = damage };
	struct arena arena;
	struct op *ops;
	size_t count;

	memset(out, 0, sizeof *out);
	memset(damage, 0, sizeof *damage);
	out->storage = storage_new();
	store_begin_read(&home->store);
	check_database(&fsck);
	arena_init(&arena, 1024 * 1024);
	check_ops(&fsck, &ops, &count, &arena);
	check_versions(&fsck);
	check_packs(&fsck);
	check_chunks(&fsck);
	trace_blobs(&fsck);
	trace_paths(&fsck, ops, count);
	check_head(&fsck, ops, count);
	check_index(&fsck);
	check_markers(&fsck);
	summarize_damage(&fsck);
	free(ops);
	arena_free(&arena);
	store_end_read(&home->store);
	return 0;
}

/* fsck takes no lock, so a gc that runs beside it may remove the packs its
 * snapshot lists: those show as missing, though nothing is lost. When the
 * packs changed while it ran, the check runs again on the new ones (a few
 * times at most: a store damaged for real stays damaged). */
#define FSCK_GC_RETRIES 3

int
hearth_fsck(hearth *home, const struct hearth_progress *progress_to,
    struct hearth_fsck_report *out, struct hearth_error *error)
{
	struct fsck_damage damage;

	hearth_error_clear(error);
	for (int attempt = 0;; attempt++) {
		uint64_t before = pack_index_generation(&home->store);
		fsck_run(home, progress_to, out, &damage);
		fsck_damage_free(&damage);
		if (out->problem_count == 0 || attempt == FSCK_GC_RETRIES ||
		    pack_index_generation(&home->store) == before)
			break;
		hearth_fsck_report_free(out);
	}
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
