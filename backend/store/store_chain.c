/* The op hash chain (schema 4): each stored op keeps chain(R, c) =
 * SHA-256(chain(R, c - 1) || its encoding), chain(R, 0) all zeros, so one
 * hash names a replica's whole history up to a counter. fsck and sync
 * recompute it to find any changed byte of any op, and sync compares it to
 * find two Homes whose copies of one replica went different ways. */
#include "backend/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store/hash.h"
#include "model/array.h"

/* Ops rechained per transaction page while migrating. */
#define CHAIN_MIGRATE_PAGE 8192

static const char SQL_CHAIN_GET[] = "SELECT chain FROM op WHERE replica = ?1 AND counter = ?2";

void
store_chain_next(struct store *store, const struct hash *previous, const void *body,
    size_t length, struct hash *out)
{
	if (store->chain_hasher == NULL)
		store->chain_hasher = hash_begin();
	else
		hash_restart(store->chain_hasher);
	hash_update(store->chain_hasher, previous->bytes, HASH_BYTES);
	hash_update(store->chain_hasher, body, length);
	hash_digest(store->chain_hasher, out);
}

void
store_chain_forget(struct store *store)
{
	store->chain_tip_count = 0;
}

static struct store_chain_tip *
chain_tip(struct store *store, int64_t replica_number)
{
	if (replica_number <= 0)
		return NULL;
	size_t index = (size_t)(replica_number - 1);
	if (index >= store->chain_tip_count) {
		store->chain_tips = array_grow(store->chain_tips, &store->chain_tip_capacity, index + 1,
		    sizeof *store->chain_tips);
		memset(store->chain_tips + store->chain_tip_count, 0,
		    (index + 1 - store->chain_tip_count) * sizeof *store->chain_tips);
		store->chain_tip_count = index + 1;
	}
	return &store->chain_tips[index];
}

int
store_op_chain(struct store *store, int64_t replica_number, uint64_t counter, struct hash *out)
{
	if (counter == 0) {
		memset(out->bytes, 0, HASH_BYTES);
		return 0;
	}
	struct store_chain_tip *tip = chain_tip(store, replica_number);
	if (tip != NULL && tip->counter == counter) {
		*out = tip->chain;
		return 0;
	}
	sqlite3_stmt *statement = store_statement(store, SQL_CHAIN_GET);
	sqlite3_bind_int64(statement, 1, replica_number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	int status = -1;
	if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_bytes(statement, 0) == HASH_BYTES) {
		memcpy(out->bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
		status = 0;
	}
	sqlite3_reset(statement);
	return status;
}

int
store_chain_extend(struct store *store, int64_t replica_number, uint64_t counter,
    const struct buffer *encoded, struct hash *out)
{
	struct hash previous;

	if (store_op_chain(store, replica_number, counter - 1, &previous) != 0)
		return -1;
	store_chain_next(store, &previous, encoded->data, encoded->length, out);
	struct store_chain_tip *tip = chain_tip(store, replica_number);
	tip->counter = counter;
	tip->chain = *out;
	return 0;
}

/* ---- migration to schema 4 -------------------------------------------------------- */

struct chain_row {
	int64_t replica;
	uint64_t counter;
	struct hash chain;
};

/* One page of ops after (replica, counter), chained on from *previous;
 * returns the rows read. */
static size_t
chain_page(struct store *store, int64_t *replica, uint64_t *counter, struct hash *previous,
    struct chain_row *rows)
{
	sqlite3_stmt *statement;
	size_t count = 0;

	if (sqlite3_prepare_v2(store->db, "SELECT replica, counter, body FROM op "
		"WHERE (replica, counter) > (?1, ?2) ORDER BY replica, counter LIMIT ?3", -1,
		&statement, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(statement, 1, *replica);
	sqlite3_bind_int64(statement, 2, (int64_t)*counter);
	sqlite3_bind_int(statement, 3, CHAIN_MIGRATE_PAGE);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		struct chain_row *row = &rows[count++];
		row->replica = sqlite3_column_int64(statement, 0);
		row->counter = (uint64_t)sqlite3_column_int64(statement, 1);
		if (row->replica != *replica)
			memset(previous->bytes, 0, HASH_BYTES);
		store_chain_next(store, previous, sqlite3_column_blob(statement, 2),
		    (size_t)sqlite3_column_bytes(statement, 2), &row->chain);
		*previous = row->chain;
		*replica = row->replica;
		*counter = row->counter;
	}
	sqlite3_finalize(statement);
	return count;
}

int
store_chain_migrate(struct store *store, struct hearth_error *error)
{
	struct chain_row *rows = array_alloc(CHAIN_MIGRATE_PAGE, sizeof *rows);
	struct hash previous;
	int64_t replica = 0;
	uint64_t counter = 0;
	sqlite3_stmt *update;
	size_t count;
	int status = 0;

	if (sqlite3_prepare_v2(store->db, "UPDATE op SET chain = ?3 WHERE replica = ?1 AND "
		"counter = ?2", -1, &update, NULL) != SQLITE_OK) {
		free(rows);
		return store_fail(store, "cannot chain the ops", error);
	}
	memset(previous.bytes, 0, HASH_BYTES);
	while (status == 0 && (count = chain_page(store, &replica, &counter, &previous, rows)) > 0) {
		for (size_t i = 0; i < count && status == 0; i++) {
			sqlite3_bind_int64(update, 1, rows[i].replica);
			sqlite3_bind_int64(update, 2, (int64_t)rows[i].counter);
			sqlite3_bind_blob(update, 3, rows[i].chain.bytes, HASH_BYTES, SQLITE_STATIC);
			if (sqlite3_step(update) != SQLITE_DONE)
				status = store_fail(store, "cannot chain the ops", error);
			sqlite3_reset(update);
		}
	}
	sqlite3_finalize(update);
	free(rows);
	return status;
}

/* ---- version ids (schema 7) --------------------------------------------------------- */

static const char VERSION_ID_TAG[] = "hearth version id 2";

int
store_version_id(struct store *store, const struct op *commit, struct hash *out)
{
	const struct op_commit *c = &commit->u.commit;
	struct hash chain;
	int64_t number = store_replica_number(store, commit->id.replica, false);

	if (commit->kind != OP_COMMIT || number <= 0 ||
	    store_op_chain(store, number, commit->id.counter, &chain) != 0)
		return -1;
	struct hash_state *hasher = hash_begin();
	hash_update(hasher, VERSION_ID_TAG, sizeof VERSION_ID_TAG);
	hash_update(hasher, chain.bytes, HASH_BYTES);
	int status = 0;
	for (size_t i = 0; status == 0 && i < c->vv_count; i++) {
		int64_t entry = store_replica_number(store, c->vv_entries[i].replica, false);
		if (c->vv_entries[i].counter == 0)
			memset(chain.bytes, 0, HASH_BYTES);
		else if (entry <= 0 || store_op_chain(store, entry, c->vv_entries[i].counter, &chain) != 0)
			status = -1;
		hash_update(hasher, c->vv_entries[i].replica.bytes, ID_BYTES);
		hash_update(hasher, chain.bytes, HASH_BYTES);
	}
	hash_digest(hasher, out);
	hash_free(hasher);
	return status;
}

void
store_version_id_1(const struct buffer *encoded, struct hash *out)
{
	hash_bytes(encoded->data, encoded->length, out);
}

struct version_rename {
	struct hash old, id;
};

/* Every version's new id, from its COMMIT and the chains schema 4 keeps.
 * A version whose ops are not all held keeps its id (fsck names it). */
static int
version_renames(struct store *store, struct version_rename **out, size_t *count)
{
	sqlite3_stmt *rows;
	size_t capacity = 0;
	struct arena arena;
	char reason[128];

	*out = NULL;
	*count = 0;
	if (sqlite3_prepare_v2(store->db, "SELECT v.id, o.body FROM version v JOIN op o ON "
		"o.replica = v.replica AND o.counter = v.counter AND o.kind = 3", -1, &rows,
		NULL) != SQLITE_OK)
		return -1;
	arena_init(&arena, 16 * 1024);
	while (sqlite3_step(rows) == SQLITE_ROW) {
		struct op commit;
		struct version_rename rename;
		if (sqlite3_column_bytes(rows, 0) != HASH_BYTES ||
		    !op_decode(sqlite3_column_blob(rows, 1), (size_t)sqlite3_column_bytes(rows, 1),
			&commit, &arena, reason, sizeof reason) ||
		    store_version_id(store, &commit, &rename.id) != 0)
			continue;
		memcpy(rename.old.bytes, sqlite3_column_blob(rows, 0), HASH_BYTES);
		*out = array_grow(*out, &capacity, *count + 1, sizeof **out);
		(*out)[(*count)++] = rename;
		if (arena.allocated > (1u << 20)) {
			arena_free(&arena);
			arena_init(&arena, 16 * 1024);
		}
	}
	arena_free(&arena);
	return sqlite3_finalize(rows) == SQLITE_OK ? 0 : -1;
}

int
store_version_ids_migrate(struct store *store, struct hearth_error *error)
{
	static const char *const STEPS[] = {
		"UPDATE version SET id = ?2 WHERE id = ?1",
		"INSERT OR IGNORE INTO version_alias(old, id) VALUES(?1, ?2)",
		"UPDATE meta SET value = ?2 WHERE key = 'tree_version' AND value = ?1",
	};
	struct version_rename *renames;
	size_t count;
	int status = version_renames(store, &renames, &count);

	for (size_t s = 0; status == 0 && s < sizeof STEPS / sizeof *STEPS; s++) {
		sqlite3_stmt *statement;
		if (sqlite3_prepare_v2(store->db, STEPS[s], -1, &statement, NULL) != SQLITE_OK) {
			status = -1;
			break;
		}
		for (size_t i = 0; status == 0 && i < count; i++) {
			sqlite3_bind_blob(statement, 1, renames[i].old.bytes, HASH_BYTES, SQLITE_STATIC);
			sqlite3_bind_blob(statement, 2, renames[i].id.bytes, HASH_BYTES, SQLITE_STATIC);
			if (sqlite3_step(statement) != SQLITE_DONE)
				status = -1;
			sqlite3_reset(statement);
		}
		sqlite3_finalize(statement);
	}
	free(renames);
	return status == 0 ? 0 : store_fail(store, "cannot give the versions their new ids", error);
}
