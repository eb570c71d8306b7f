/* The pack and chunk tables: the store's list of pack files and the row of
 * each chunk, saying which pack, frame and offset hold it. Every statement
 * on either table is here; the rest of the backend calls these functions. */
#include "backend/store/pack_index.h"

#include <stdio.h>
#include <string.h>

#include "backend/io/fail.h"
#include "backend/store/hash.h"
#include "model/array.h"

/* ---- packs ------------------------------------------------------------------------ */

int
pack_index_add(struct store *store, const char *file_name, int64_t *number)
{
	sqlite3_stmt *statement = store_statement(store, "INSERT INTO pack(name) VALUES(?1)");

	sqlite3_bind_text(statement, 1, file_name, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	*number = sqlite3_last_insert_rowid(store->db);
	return 0;
}

int
pack_index_seal(struct store *store, int64_t number, uint64_t size, uint64_t chunk_count)
{
	sqlite3_stmt *statement = store_statement(store,
	    "UPDATE pack SET size = ?2, chunks = ?3, sealed = 1 WHERE number = ?1");

	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)size);
	sqlite3_bind_int64(statement, 3, (int64_t)chunk_count);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
pack_index_name(struct store *store, int64_t number, char *out, size_t out_size)
{
	sqlite3_stmt *statement = store_statement(store, "SELECT name FROM pack WHERE number = ?1");

	sqlite3_bind_int64(statement, 1, number);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return -1;
	snprintf(out, out_size, "%s", (const char *)sqlite3_column_text(statement, 0));
	sqlite3_reset(statement);
	return 0;
}

int
pack_index_find(struct store *store, const char *file_name, int64_t *number, bool *sealed)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT number, sealed FROM pack WHERE name = ?1");

	sqlite3_bind_text(statement, 1, file_name, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return 0;
	*number = sqlite3_column_int64(statement, 0);
	*sealed = sqlite3_column_int(statement, 1) != 0;
	sqlite3_reset(statement);
	return 1;
}

int
pack_index_each(struct store *store,
    int (*visit)(void *context, int64_t number, const char *file_name, uint64_t chunks),
    void *context)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT p.number, p.name, (SELECT count(*) FROM chunk c WHERE c.pack = p.number) "
	    "FROM pack p");
	int status = 0;

	while (status == 0 && sqlite3_step(statement) == SQLITE_ROW)
		status = visit(context, sqlite3_column_int64(statement, 0),
		    (const char *)sqlite3_column_text(statement, 1),
		    (uint64_t)sqlite3_column_int64(statement, 2));
	sqlite3_reset(statement);
	return status;
}

void
pack_index_sealed_below(struct store *store, uint64_t size_below, int64_t **numbers,
    size_t *count)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT number FROM pack WHERE sealed = 1 AND size < ?1 ORDER BY number");
	size_t capacity = 0;

	sqlite3_bind_int64(statement, 1, size_below > INT64_MAX ? INT64_MAX : (int64_t)size_below);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		*numbers = array_grow(*numbers, &capacity, *count + 1, sizeof **numbers);
		(*numbers)[(*count)++] = sqlite3_column_int64(statement, 0);
	}
	sqlite3_reset(statement);
}

uint64_t
pack_index_count(struct store *store)
{
	return store_scalar(store, "SELECT count(*) FROM pack");
}

uint64_t
pack_index_bytes(struct store *store)
{
	return store_scalar(store, "SELECT sum(size) FROM pack");
}

/* A gc (or its light upkeep) replaces packs with new ones of higher numbers. */
uint64_t
pack_index_generation(struct store *store)
{
	return store_scalar(store, "SELECT coalesce(max(number), 0) * 1000003 + count(*) "
	    "FROM pack");
}

static bool
pack_index_used(struct store *store, int64_t number)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT 1 FROM chunk WHERE pack = ?1 LIMIT 1");

	sqlite3_bind_int64(statement, 1, number);
	bool used = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return used;
}

int
pack_index_forget(struct store *store, int64_t number, char *name_out, size_t name_size,
    struct hearth_error *error)
{

	if (pack_index_used(store, number))
		return 1;
	if (name_out != NULL && pack_index_name(store, number, name_out, name_size) != 0)
		name_out[0] = '\0';
	sqlite3_stmt *statement = store_statement(store, "DELETE FROM pack WHERE number = ?1");
	sqlite3_bind_int64(statement, 1, number);
	if (sqlite3_step(statement) == SQLITE_DONE)
		return 0;
	return store_fail(store, "cannot update the pack list", error);
}

/* ---- chunks ----------------------------------------------------------------------- */

static int
chunk_row(struct store *store, const char *sql, const struct hash *chunk,
    const struct pack_location *where)
{
	sqlite3_stmt *statement = store_statement(store, sql);

	sqlite3_bind_blob(statement, 1, chunk->bytes, HASH_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int64(statement, 2, where->pack);
	sqlite3_bind_int64(statement, 3, (int64_t)where->frame_offset);
	sqlite3_bind_int64(statement, 4, where->offset_in_frame);
	sqlite3_bind_int64(statement, 5, where->length);
	sqlite3_bind_int64(statement, 6, where->depth);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
chunk_index_add(struct store *store, const struct hash *chunk, const struct pack_location *where)
{
	return chunk_row(store, "INSERT OR IGNORE INTO chunk(id, pack, frame, offset, length, "
	    "depth) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", chunk, where);
}

int
chunk_index_move(struct store *store, const struct hash *chunk,
    const struct pack_location *where)
{
	return chunk_row(store, "INSERT OR REPLACE INTO chunk(id, pack, frame, offset, length, "
	    "depth) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", chunk, where);
}

bool
chunk_index_holds(struct store *store, const struct hash *chunk)
{
	sqlite3_stmt *statement = store_statement(store, "SELECT 1 FROM chunk WHERE id = ?1");

	sqlite3_bind_blob(statement, 1, chunk->bytes, HASH_BYTES, SQLITE_STATIC);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return found;
}

/* The columns pack, frame, offset, length from first on. */
static void
chunk_location(sqlite3_stmt *statement, int first, struct pack_location *out)
{
	out->pack = sqlite3_column_int64(statement, first);
	out->frame_offset = (uint64_t)sqlite3_column_int64(statement, first + 1);
	out->offset_in_frame = (uint32_t)sqlite3_column_int64(statement, first + 2);
	out->length = (uint32_t)sqlite3_column_int64(statement, first + 3);
}

int
store_chunk_find(struct store *store, const struct hash *chunk, struct pack_location *out)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT pack, frame, offset, length, depth FROM chunk WHERE id = ?1");

	sqlite3_bind_blob(statement, 1, chunk->bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW) {
		sqlite3_reset(statement);
		return 0;
	}
	chunk_location(statement, 0, out);
	out->depth = (uint32_t)sqlite3_column_int64(statement, 4);
	sqlite3_reset(statement);
	return 1;
}

uint64_t
chunk_index_count(struct store *store)
{
	return store_scalar(store, "SELECT count(*) FROM chunk");
}

int
chunk_index_each(struct store *store,
    int (*visit)(void *context, const struct hash *chunk, const struct pack_location *where,
	const char *file_name),
    void *context)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT c.id, c.pack, c.frame, c.offset, c.length, c.depth, p.name FROM chunk c "
	    "LEFT JOIN pack p ON p.number = c.pack ORDER BY c.pack, c.frame, c.offset");
	int status = 0;

	while (status == 0 && sqlite3_step(statement) == SQLITE_ROW) {
		struct hash id;
		struct pack_location where;
		memcpy(id.bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
		chunk_location(statement, 1, &where);
		where.depth = (uint32_t)sqlite3_column_int64(statement, 5);
		status = visit(context, &id, &where, (const char *)sqlite3_column_text(statement, 6));
	}
	sqlite3_reset(statement);
	return status;
}

void
chunk_index_of_pack(struct store *store, int64_t number, struct hash **chunks, size_t *count,
    size_t *capacity)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT id FROM chunk WHERE pack = ?1 ORDER BY frame, offset");

	sqlite3_bind_int64(statement, 1, number);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		*chunks = array_grow(*chunks, capacity, *count + 1, sizeof **chunks);
		memcpy((*chunks)[(*count)++].bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
	}
	sqlite3_reset(statement);
}

void
pack_index_figures(struct store *store, struct pack_index_figures *out)
{
	out->chunks = chunk_index_count(store);
	out->packs = pack_index_count(store);
	out->stored_bytes = store_scalar(store, "SELECT sum(length) FROM chunk");
	out->pack_bytes = pack_index_bytes(store);
	out->delta_chunks = store_scalar(store, "SELECT count(*) FROM chunk WHERE depth > 0");
	out->delta_bytes = store_scalar(store, "SELECT sum(length) FROM chunk WHERE depth > 0");
	out->depth_max = store_scalar(store, "SELECT max(depth) FROM chunk");
	out->depth_sum = out->delta_chunks == 0 ? 0 : store_scalar(store,
	    "SELECT sum(depth) FROM chunk");
}
