/* The peer table: each sync's outcome saved by hearth_sync, and
 * hearth_peers, which lists the configured peers (then any other peer
 * synced with by URL) with what their last sync did. */
#include "backend/sync/peer.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char SQL_PEER_SUCCESS[] =
    "INSERT OR REPLACE INTO peer(name, url, replica, last_attempt, last_success, last_error,"
    "  ops_sent, ops_received, bytes_sent, bytes_received, local_ahead, remote_ahead)"
    " VALUES(?1, ?2, ?3, ?4, ?4, '', ?5, ?6, ?7, ?8, ?9, ?10)";
static const char SQL_PEER_FAILURE[] =
    "INSERT INTO peer(name, url, replica, last_attempt, last_error) VALUES(?1, ?2, ?3, ?4, ?5)"
    " ON CONFLICT(name) DO UPDATE SET url = excluded.url,"
    "  replica = coalesce(excluded.replica, replica),"
    "  last_attempt = excluded.last_attempt, last_error = excluded.last_error";
static const char SQL_PEER_AHEAD[] =
    "UPDATE peer SET local_ahead = ?2, remote_ahead = ?3 WHERE name = ?1";
static const char SQL_PEER_GET[] =
    "SELECT name, url, replica, last_attempt, last_success, last_error, ops_sent, ops_received,"
    "  bytes_sent, bytes_received, local_ahead, remote_ahead FROM peer WHERE name = ?1";
static const char SQL_PEER_ALL[] =
    "SELECT name, url, replica, last_attempt, last_success, last_error, ops_sent, ops_received,"
    "  bytes_sent, bytes_received, local_ahead, remote_ahead FROM peer ORDER BY name";
static const char SQL_PEER_COUNT[] = "SELECT count(*) FROM peer";

static int
peer_write(struct hearth *home, const struct peer_outcome *outcome)
{
	bool success = outcome->error == NULL;
	sqlite3_stmt *statement = store_statement(&home->store,
	    success ? SQL_PEER_SUCCESS : SQL_PEER_FAILURE);

	sqlite3_bind_text(statement, 1, outcome->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(statement, 2, outcome->url, -1, SQLITE_STATIC);
	if (outcome->replica != NULL)
		sqlite3_bind_blob(statement, 3, outcome->replica->bytes, ID_BYTES, SQLITE_STATIC);
	else
		sqlite3_bind_null(statement, 3);
	sqlite3_bind_int64(statement, 4, (int64_t)time(NULL));
	if (success) {
		sqlite3_bind_int64(statement, 5, (int64_t)outcome->ops_sent);
		sqlite3_bind_int64(statement, 6, (int64_t)outcome->ops_received);
		sqlite3_bind_int64(statement, 7, (int64_t)outcome->bytes_sent);
		sqlite3_bind_int64(statement, 8, (int64_t)outcome->bytes_received);
		sqlite3_bind_int64(statement, 9, (int64_t)outcome->local_ahead);
		sqlite3_bind_int64(statement, 10, (int64_t)outcome->remote_ahead);
		return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_bind_text(statement, 5, outcome->error, -1, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	if (!outcome->ahead_known)
		return 0;
	statement = store_statement(&home->store, SQL_PEER_AHEAD);
	sqlite3_bind_text(statement, 1, outcome->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, (int64_t)outcome->local_ahead);
	sqlite3_bind_int64(statement, 3, (int64_t)outcome->remote_ahead);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
peer_record(struct hearth *home, const struct peer_outcome *outcome, struct hearth_error *error)
{
	struct hearth_error failure;
	int status = 0;

	/* A status line for `hearth peers`, like the cost counters: a crash
	 * may lose it, so it costs no flush (a no-op sync stays cheap). */
	if (store_sync_relax(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot save the sync status: %s", failure.message);
	if (store_begin(&home->store, &failure) != 0) {
		status = hearth_fail(error, HEARTH_FAILED, "cannot save the sync status: %s", failure.message);
	} else if (peer_write(home, outcome) != 0) {
		status = hearth_fail(error, HEARTH_FAILED, "cannot save the sync status: %s",
		    sqlite3_errmsg(home->store.db));
		store_rollback(&home->store);
	} else if (store_commit(&home->store, &failure) != 0) {
		status = hearth_fail(error, HEARTH_FAILED, "cannot save the sync status: %s", failure.message);
	}
	if (store_sync_restore(&home->store, &failure) != 0 && status == 0)
		status = hearth_fail(error, HEARTH_FAILED,
		    "saved the sync status, but cannot turn the database's flushes back on: %s",
		    failure.message);
	return status;
}

/* ---- listing ------------------------------------------------------------------------ */

static const char *
peer_text(struct hearth_storage *storage, sqlite3_stmt *statement, int column)
{
	const unsigned char *text = sqlite3_column_text(statement, column);
	return storage_strdup(storage, text != NULL ? (const char *)text : "");
}

static void
peer_fill(struct hearth_storage *storage, sqlite3_stmt *statement,
    struct hearth_peer_status *out)
{
	out->url = peer_text(storage, statement, 1);
	if (sqlite3_column_bytes(statement, 2) == ID_BYTES)
		hex_encode(sqlite3_column_blob(statement, 2), ID_BYTES, out->replica);
	out->last_attempt = sqlite3_column_int64(statement, 3);
	out->last_success = sqlite3_column_int64(statement, 4);
	out->last_error = peer_text(storage, statement, 5);
	out->ops_sent = (uint64_t)sqlite3_column_int64(statement, 6);
	out->ops_received = (uint64_t)sqlite3_column_int64(statement, 7);
	out->bytes_sent = (uint64_t)sqlite3_column_int64(statement, 8);
	out->bytes_received = (uint64_t)sqlite3_column_int64(statement, 9);
	out->local_ahead = (uint64_t)sqlite3_column_int64(statement, 10);
	out->remote_ahead = (uint64_t)sqlite3_column_int64(statement, 11);
}

static bool
peer_configured(const struct config *config, const char *name)
{
	for (size_t i = 0; i < config->peer_count; i++)
		if (strcmp(config->peers[i].name, name) == 0)
			return true;
	return false;
}

/* A peer synced with by URL that is a configured one too (the same
 * replica, or the URL the config gives): one row, the configured one, with
 * the newer of the two syncs. Returns whether item was folded in. */
static bool
peer_fold(struct hearth_peer_status *configured, size_t count,
    const struct hearth_peer_status *item)
{
	for (size_t i = 0; i < count; i++) {
		struct hearth_peer_status *same = &configured[i];
		bool same_replica = item->replica[0] != '\0' && strcmp(item->replica, same->replica) == 0;
		bool same_url = item->url != NULL && same->url != NULL && strcmp(item->url, same->url) == 0;
		if (!same_replica && !same_url)
			continue;
		if (item->last_attempt > same->last_attempt) {
			const char *name = same->name, *url = same->url;
			*same = *item;
			same->name = name;
			same->url = url;
			same->configured = true;
		}
		return true;
	}
	return false;
}

int
hearth_peers(hearth *home, struct hearth_peer_list *out, struct hearth_error *error)
{
	const struct config *config = home->config;
	int64_t rows = 0;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	out->storage = storage_new();
	store_begin_read(&home->store);
	sqlite3_stmt *statement = store_statement(&home->store, SQL_PEER_COUNT);
	if (sqlite3_step(statement) == SQLITE_ROW)
		rows = sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);
	out->items = storage_alloc(out->storage,
	    (config->peer_count + (size_t)rows + 1) * sizeof *out->items);

	for (size_t i = 0; i < config->peer_count; i++) {
		struct hearth_peer_status *item = &out->items[out->count++];
		memset(item, 0, sizeof *item);
		item->name = storage_strdup(out->storage, config->peers[i].name);
		item->configured = true;
		statement = store_statement(&home->store, SQL_PEER_GET);
		sqlite3_bind_text(statement, 1, config->peers[i].name, -1, SQLITE_STATIC);
		if (sqlite3_step(statement) == SQLITE_ROW)
			peer_fill(out->storage, statement, item);
		sqlite3_reset(statement);
		/* The config says where the peer is now, whatever the last sync used. */
		item->url = storage_strdup(out->storage, config->peers[i].url);
		if (item->last_error == NULL)
			item->last_error = "";
	}
	statement = store_statement(&home->store, SQL_PEER_ALL);
	int step;
	while ((step = sqlite3_step(statement)) == SQLITE_ROW &&
	    out->count < config->peer_count + (size_t)rows) {
		const char *name = (const char *)sqlite3_column_text(statement, 0);
		if (name == NULL || peer_configured(config, name))
			continue;
		struct hearth_peer_status *item = &out->items[out->count++];
		memset(item, 0, sizeof *item);
		item->name = storage_strdup(out->storage, name);
		peer_fill(out->storage, statement, item);
		if (peer_fold(out->items, config->peer_count, item))
			out->count--;
	}
	sqlite3_reset(statement);
	store_end_read(&home->store);
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		hearth_peer_list_free(out);
		return hearth_fail(error, HEARTH_FAILED, "cannot read the peer table: %s",
		    sqlite3_errmsg(home->store.db));
	}
	return 0;
}

void
hearth_peer_list_free(struct hearth_peer_list *list)
{
	storage_free(list->storage);
	memset(list, 0, sizeof *list);
}
