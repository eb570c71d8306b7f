/* store.db: schema, migrations, cached statements and transactions.
 * Every table a command reads or writes is declared here, so the format of
 * a Home is readable in one place (the SCHEMA text below). */
#include "backend/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/io/fail.h"
#include "backend/io/io.h"
#include "backend/io/space.h"
#include "backend/store/hash.h"
#include "backend/store/store_vfs.h"
#include "model/array.h"

/* Version 1. Blobs of 16 bytes are replica and node ids, of 32 bytes
 * SHA-256 hashes. Op id lists (heads, seen) are varint pairs of (replica
 * number, counter), see store_encode_op_ids. */
static const char SCHEMA[] =
    /* Small named values: home, replica, tree_version, tree_vv, counters. */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
    /* Every replica this store has heard of; number is local to this store. */
    "CREATE TABLE replica("
    "  number INTEGER PRIMARY KEY,"
    "  id BLOB NOT NULL UNIQUE,"
    "  counter INTEGER NOT NULL DEFAULT 0);"
    /* The op log (docs/DESIGN.md §3), in its canonical encoding. status says what
     * placement made of a PLACE or SET: 0 applied, 1 skipped (a folder
     * move into its own subtree), 2 invalid, 3 pending (no parent). */
    "CREATE TABLE op("
    "  replica INTEGER NOT NULL,"
    "  counter INTEGER NOT NULL,"
    "  lamport INTEGER NOT NULL,"
    "  kind INTEGER NOT NULL,"
    "  node BLOB,"
    "  status INTEGER NOT NULL DEFAULT 0,"
    "  body BLOB NOT NULL,"
    "  PRIMARY KEY(replica, counter)) WITHOUT ROWID;"
    "CREATE INDEX op_by_lamport ON op(lamport);"
    "CREATE INDEX op_by_node ON op(node) WHERE node IS NOT NULL;"
    /* The history: one row per COMMIT op. previous is the counter of the
     * same replica's COMMIT before it (0 for its first). */
    "CREATE TABLE version("
    "  id BLOB PRIMARY KEY,"
    "  replica INTEGER NOT NULL,"
    "  counter INTEGER NOT NULL,"
    "  lamport INTEGER NOT NULL,"
    "  replica_id BLOB NOT NULL,"
    "  time INTEGER NOT NULL,"
    "  utc_offset INTEGER NOT NULL,"
    "  author TEXT NOT NULL,"
    "  message TEXT NOT NULL,"
    "  previous INTEGER NOT NULL,"
    "  changes INTEGER NOT NULL,"
    "  UNIQUE(replica, counter)) WITHOUT ROWID;"
    "CREATE INDEX version_order ON version(lamport, replica_id, counter);"
    /* The materialized head state (docs/DESIGN.md §4.6): state(all ops), kept
     * current as ops arrive so no command replays history. Per node: the
     * PLACE in effect after placement (§4.1; parent is the trash for a
     * deleted node), the last applied PLACE outside the trash (where a
     * revive returns it), the heads of both registers, the content shown,
     * and where and under which name it is shown after revives and name
     * clashes (§4.3, §4.4). Places are (lamport, replica number, counter). */
    "CREATE TABLE node("
    "  id BLOB PRIMARY KEY,"
    "  kind INTEGER NOT NULL,"
    "  parent BLOB NOT NULL,"
    "  name BLOB NOT NULL,"
    "  root TEXT NOT NULL,"
    "  place_lamport INTEGER NOT NULL,"
    "  place_replica INTEGER NOT NULL,"
    "  place_counter INTEGER NOT NULL,"
    "  visible_lamport INTEGER,"
    "  visible_replica INTEGER,"
    "  visible_counter INTEGER,"
    "  visible_parent BLOB,"
    "  visible_name BLOB,"
    "  visible_root TEXT,"
    "  place_heads BLOB NOT NULL,"
    "  content_heads BLOB NOT NULL,"
    "  content_replica INTEGER,"
    "  content_counter INTEGER,"
    "  blob BLOB,"
    "  size INTEGER NOT NULL DEFAULT 0,"
    "  mode INTEGER NOT NULL DEFAULT 0,"
    "  mtime INTEGER NOT NULL DEFAULT 0,"
    "  shown_parent BLOB NOT NULL,"
    "  shown BLOB NOT NULL,"
    "  shown_root TEXT NOT NULL,"
    "  live INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX node_children ON node(shown_parent, shown);"
    "CREATE INDEX node_by_parent ON node(parent);"
    /* Conflicts (§4): phase 1 from placement and heads (move, content,
     * skipped cycle, invalid-op), phase 2 from the finishing rules
     * (revived, edit-revived, revive cycle, name). Keyed by the first op. */
    "CREATE TABLE conflict("
    "  kind INTEGER NOT NULL,"
    "  node BLOB NOT NULL,"
    "  op_replica INTEGER NOT NULL,"
    "  op_counter INTEGER NOT NULL,"
    "  phase INTEGER NOT NULL,"
    "  ops BLOB NOT NULL,"
    "  PRIMARY KEY(kind, node, op_replica, op_counter)) WITHOUT ROWID;"
    /* Sync peers and what the last syncs did (docs/DESIGN.md §8). */
    "CREATE TABLE peer("
    "  name TEXT PRIMARY KEY,"
    "  url TEXT NOT NULL,"
    "  replica BLOB,"
    "  last_attempt INTEGER NOT NULL DEFAULT 0,"
    "  last_success INTEGER NOT NULL DEFAULT 0,"
    "  last_error TEXT NOT NULL DEFAULT '',"
    "  ops_sent INTEGER NOT NULL DEFAULT 0,"
    "  ops_received INTEGER NOT NULL DEFAULT 0,"
    "  bytes_sent INTEGER NOT NULL DEFAULT 0,"
    "  bytes_received INTEGER NOT NULL DEFAULT 0,"
    "  local_ahead INTEGER NOT NULL DEFAULT 0,"
    "  remote_ahead INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
    /* The working-tree index: each node as the tree held it when last
     * recorded or checked out, its stat stamp, and the heads the tree had
     * seen (what a record of it supersedes). restore: 1 = the tree holds an
     * older version than head here and a record restores it; 2 = same, but
     * the node is absent from the tree (parent = trash, name = id). */
    "CREATE TABLE entry("
    "  node BLOB PRIMARY KEY,"
    "  parent BLOB NOT NULL,"
    "  name BLOB NOT NULL,"
    "  kind INTEGER NOT NULL,"
    "  root TEXT NOT NULL,"
    "  blob BLOB,"
    "  size INTEGER NOT NULL DEFAULT 0,"
    "  mode INTEGER NOT NULL DEFAULT 0,"
    "  mtime INTEGER NOT NULL DEFAULT 0,"
    "  device INTEGER NOT NULL DEFAULT 0,"
    "  inode INTEGER NOT NULL DEFAULT 0,"
    "  ctime INTEGER NOT NULL DEFAULT 0,"
    "  stamped INTEGER NOT NULL DEFAULT 0,"
    "  seen BLOB NOT NULL,"
    "  restore INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
    "CREATE UNIQUE INDEX entry_path ON entry(parent, name, root);"
    "CREATE INDEX entry_inode ON entry(inode);"
    /* Content: pack files, the chunks in them, and the chunk lists of
     * blobs made of more than one chunk (a one-chunk blob is its chunk). */
    "CREATE TABLE pack("
    "  number INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  size INTEGER NOT NULL DEFAULT 0,"
    "  chunks INTEGER NOT NULL DEFAULT 0,"
    "  sealed INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE chunk("
    "  id BLOB PRIMARY KEY,"
    "  pack INTEGER NOT NULL,"
    "  frame INTEGER NOT NULL,"
    "  offset INTEGER NOT NULL,"
    "  length INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE blob("
    "  id BLOB PRIMARY KEY,"
    "  size INTEGER NOT NULL,"
    "  chunks BLOB NOT NULL) WITHOUT ROWID;";

/* Version 2 adds the observed index (backend/disk/reconcile.c explains it):
 * what the disk holds, kept at folder grain beside the recorded entry
 * table. Paths are Home-relative name bytes joined by '/', "" the top. */
static const char SCHEMA_2[] =
    /* Each folder's stamp in each root as the last walk saw it, for the
     * restart check; checked is when (wall ns), generation which walk. */
    "CREATE TABLE folder("
    "  path BLOB NOT NULL,"
    "  root TEXT NOT NULL,"
    "  device INTEGER NOT NULL,"
    "  inode INTEGER NOT NULL,"
    "  mtime INTEGER NOT NULL,"
    "  ctime INTEGER NOT NULL,"
    "  checked INTEGER NOT NULL,"
    "  generation INTEGER NOT NULL,"
    "  PRIMARY KEY(path, root)) WITHOUT ROWID;"
    /* Folders whose contents differ, or may differ, from the entry rows:
     * the only ones status lists while the index is current. seq orders
     * marks against a record's clearing; verified = a walk found it differs. */
    "CREATE TABLE dirty("
    "  path BLOB PRIMARY KEY,"
    "  seq INTEGER NOT NULL,"
    "  verified INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
    "CREATE INDEX dirty_unverified ON dirty(path) WHERE verified = 0;"
    /* Processes watching the Home (hearth watch, the app): what they claim
     * of the index (state: checking, checked, walking, current, polling,
     * stopped), since when (started, wall ns) and their last sign of life
     * (beat). */
    "CREATE TABLE watch("
    "  host TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  started INTEGER NOT NULL,"
    "  beat INTEGER NOT NULL,"
    "  state TEXT NOT NULL,"
    "  detail TEXT NOT NULL DEFAULT '',"
    "  folders INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY(host, pid)) WITHOUT ROWID;"
    /* Entry rows whose stamp cannot be trusted (racy: stamped within 2 s of
     * the file's mtime) and rows a record would restore, found without a
     * scan of the whole table. */
    "CREATE INDEX entry_untrusted ON entry(parent) WHERE kind != 2 AND mtime >= stamped - 2000000000;"
    "CREATE INDEX entry_restoring ON entry(node) WHERE restore != 0;"
    /* The folders of the index alone, in name order: the walk's path. */
    "CREATE INDEX entry_folders ON entry(parent, name) WHERE kind = 2;";

/* Version 3: a folder's page of the working-tree index (listing.c, the
 * app's Home view) read from one index alone. Through entry_path each row
 * of a page cost a second lookup in the table by node; this index holds
 * every column a listing shows, so a first page of 50 reads a few
 * consecutive index pages (perf/RESULTS.md, p0020: p50 about 80 to 25 us
 * on a 100k-entry index, for a store about a tenth bigger). */
static const char SCHEMA_3[] =
    "CREATE INDEX entry_listing ON entry(parent, name, kind, root, size, mtime, mode, restore);";

/* Version 4: the op hash chain (store_chain.c), filled for the ops held
 * by store_chain_migrate in the same transaction. Every byte of every op
 * stays as it was; the chain is only added beside it. */
static const char SCHEMA_4[] = "ALTER TABLE op ADD COLUMN chain BLOB;";

/* Version 5: history listed newest first by time (history.c, log), page by
 * page from one index rather than a sort of every version per page. */
static const char SCHEMA_5[] =
    "CREATE INDEX version_time ON version(time, lamport, replica_id, counter);";

/* Version 6: a chunk may be stored as a delta against another (pack.h);
 * depth is how many deltas lie between it and a chunk stored whole, 0 for
 * every chunk an older build wrote. Packs of pack version 1 stay as they
 * are: the reader takes both versions. */
static const char SCHEMA_6[] = "ALTER TABLE chunk ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;";

/* Version 7: a version's id commits to the bytes of every op it names
 * (store_version_id); the id older builds gave it (the hash of its COMMIT
 * alone) stays an alias, so any id once shown still names the version.
 * Filled by store_version_ids_migrate in the same transaction. */
static const char SCHEMA_7[] =
    "CREATE TABLE version_alias(old BLOB PRIMARY KEY, id BLOB NOT NULL) WITHOUT ROWID;";

/* Version 8: the listing index also holds the rest of a stat stamp, so a
 * walk reads a folder's rows from it alone (scan.c, load_entries): each
 * row's second B-tree search, in the table by node, is gone from every
 * status and record (perf/RESULTS.md, "The walk from one index"). */
static const char SCHEMA_8[] =
    "DROP INDEX entry_listing;"
    "CREATE INDEX entry_listing ON entry(parent, name, kind, root, size, mtime, mode, restore, "
    "device, inode, ctime, stamped);";

static int load_replicas(struct store *store);

void
store_bind_mtime(sqlite3_stmt *statement, int index, op_mtime value)
{
	if (value >= INT64_MIN && value <= INT64_MAX) {
		sqlite3_bind_int64(statement, index, (sqlite3_int64)value);
		return;
	}
	uint8_t bytes[16];
	unsigned __int128 bits = (unsigned __int128)value;
	for (int i = 15; i >= 0; i--, bits >>= 8)
		bytes[i] = (uint8_t)bits;
	sqlite3_bind_blob(statement, index, bytes, sizeof bytes, SQLITE_TRANSIENT);
}

op_mtime
store_column_mtime(sqlite3_stmt *statement, int column)
{
	if (sqlite3_column_type(statement, column) != SQLITE_BLOB ||
	    sqlite3_column_bytes(statement, column) != 16)
		return sqlite3_column_int64(statement, column);
	const uint8_t *bytes = sqlite3_column_blob(statement, column);
	unsigned __int128 bits = 0;
	for (int i = 0; i < 16; i++)
		bits = bits << 8 | bytes[i];
	return (op_mtime)bits;
}

/* SQLite's last failure was for space: SQLITE_FULL, or an I/O error whose
 * system errno is ENOSPC (growing the -shm index, say). */
static bool
failed_for_space(sqlite3 *db)
{
	return db != NULL && ((sqlite3_extended_errcode(db) & 0xff) == SQLITE_FULL ||
	    sqlite3_system_errno(db) == ENOSPC);
}

int
store_fail(struct store *store, const char *what, struct hearth_error *error)
{
	if (failed_for_space(store->db)) {
		char reason[8192];
		space_message(store->path, reason, sizeof reason);
		return hearth_error_put(error, "%s: %s", what, reason);
	}
	return hearth_error_put(error, "%s: %s (%s)", what, sqlite3_errmsg(store->db), store->path);
}

int
store_exec(struct store *store, const char *sql, struct hearth_error *error)
{
	char *message = NULL;

	if (sqlite3_exec(store->db, sql, NULL, NULL, &message) == SQLITE_OK)
		return 0;
	if (failed_for_space(store->db)) {
		char reason[HEARTH_ERROR_MAX];
		space_message(store->path, reason, sizeof reason);
		hearth_error_put(error, "%s", reason);
	} else
		hearth_error_put(error, "%s (%s)", message ? message : "SQLite error", store->path);
	sqlite3_free(message);
	return -1;
}

static int
pragma_int(struct store *store, const char *pragma, int64_t *out)
{
	sqlite3_stmt *statement;
	int status = -1;

	if (sqlite3_prepare_v2(store->db, pragma, -1, &statement, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(statement) == SQLITE_ROW) {
		*out = sqlite3_column_int64(statement, 0);
		status = 0;
	}
	sqlite3_finalize(statement);
	return status;
}

static int
create_schema(struct store *store, struct hearth_error *error)
{
	char pragmas[128];

	if (store_exec(store, "BEGIN IMMEDIATE", error) != 0)
		return -1;
	snprintf(pragmas, sizeof pragmas, "PRAGMA application_id=%d; PRAGMA user_version=%d;",
	    STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
	if (store_exec(store, SCHEMA, error) != 0 ||
	    store_exec(store, SCHEMA_2, error) != 0 ||
	    store_exec(store, SCHEMA_3, error) != 0 ||
	    store_exec(store, SCHEMA_4, error) != 0 ||
	    store_exec(store, SCHEMA_5, error) != 0 ||
	    store_exec(store, SCHEMA_6, error) != 0 ||
	    store_exec(store, SCHEMA_7, error) != 0 ||
	    store_exec(store, SCHEMA_8, error) != 0 ||
	    store_exec(store, pragmas, error) != 0) {
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return store_exec(store, "COMMIT", error);
}

/* One step up to version `to`: what it adds (the observed index's tables
 * for 2, the listing index for 3) and the new number in one transaction,
 * so a crash leaves the old version or the new one. */
static int
migrate_step(struct store *store, const char *schema, int to, struct hearth_error *error)
{
	char pragma[64];

	if (store_exec(store, "BEGIN IMMEDIATE", error) != 0)
		return -1;
	snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", to);
	if (store_exec(store, schema, error) != 0 ||
	    (to == 4 && store_chain_migrate(store, error) != 0) ||
	    (to == 7 && store_version_ids_migrate(store, error) != 0) ||
	    store_exec(store, pragma, error) != 0) {
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return store_exec(store, "COMMIT", error);
}

/* Brings an older schema up to date, one version at a time. */
static int
migrate(struct store *store, int64_t from, struct hearth_error *error)
{
	if (from > STORE_SCHEMA_VERSION)
		return hearth_error_put(error,
		    "%s: store format %lld is newer than this hearth understands (%d); "
		    "upgrade hearth", store->path, (long long)from, STORE_SCHEMA_VERSION);
	if (from < 1)
		return hearth_error_put(error, "%s: store format %lld is not one hearth ever wrote",
		    store->path, (long long)from);
	if (from < 2 && migrate_step(store, SCHEMA_2, 2, error) != 0)
		return -1;
	if (from < 3 && migrate_step(store, SCHEMA_3, 3, error) != 0)
		return -1;
	if (from < 4 && migrate_step(store, SCHEMA_4, 4, error) != 0)
		return -1;
	if (from < 5 && migrate_step(store, SCHEMA_5, 5, error) != 0)
		return -1;
	if (from < 6 && migrate_step(store, SCHEMA_6, 6, error) != 0)
		return -1;
	if (from < 7 && migrate_step(store, SCHEMA_7, 7, error) != 0)
		return -1;
	if (from < 8 && migrate_step(store, SCHEMA_8, 8, error) != 0)
		return -1;
	return 0;
}

static int
check_format(struct store *store, bool created, struct hearth_error *error)
{
	int64_t application_id = 0, user_version = 0;

	if (pragma_int(store, "PRAGMA application_id", &application_id) != 0 ||
	    pragma_int(store, "PRAGMA user_version", &user_version) != 0)
		return store_fail(store, "cannot read the store's header", error);
	if (application_id == 0 && user_version == 0 && created)
		return create_schema(store, error);
	if (application_id != STORE_APPLICATION_ID)
		return hearth_error_put(error, "%s: not a hearth store (application id %#llx)",
		    store->path, (unsigned long long)application_id);
	return migrate(store, user_version, error);
}

static int
set_sync(struct store *store, bool synced, struct hearth_error *error)
{
	if (store_exec(store, synced ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF", error) != 0)
		return -1;
	store->synced = synced;
	return 0;
}

static bool
wants_sync(const struct store *store)
{
	return !store->sync_relaxed && config_durability_rules(store->durability).sync_database;
}

/* Sets the connection's flush on commit to what the mode asks, unless
 * relaxed; a no-op when it is set so already. */
static int
apply_sync(struct store *store, struct hearth_error *error)
{
	return store->synced == wants_sync(store) ? 0
	    : set_sync(store, wants_sync(store), error);
}

int
store_sync_relax(struct store *store, struct hearth_error *error)
{
	store->sync_relaxed = true;
	if (apply_sync(store, error) == 0)
		return 0;
	store->sync_relaxed = false;
	return -1;
}

int
store_sync_restore(struct store *store, struct hearth_error *error)
{
	store->sync_relaxed = false;
	return apply_sync(store, error);
}

/* A statement run that stepped through a whole table or index, noted as
 * "STEPS<TAB>SQL" (HEARTH_SQL_SCANS, hearth(1)): a query meant for an index
 * that reads every row instead costs nothing in a small test Home and a
 * second in a big one, so the tests look for it here (t0450). */
static int
note_scan(unsigned type, void *context, void *statement, void *unused)
{
	struct store *store = context;
	int steps = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);

	(void)type;
	(void)unused;
	if (steps == 0)
		return 0;
	/* A note that cannot be written is lost: it is no part of the work. */
	char *line = sqlite3_mprintf("%d\t%s\n", steps, sqlite3_sql(statement));
	if (line != NULL)
		(void)io_write_all(store->scan_notes, line, strlen(line));
	sqlite3_free(line);
	return 0;
}

static void
open_scan_notes(struct store *store)
{
	const char *path = getenv("HEARTH_SQL_SCANS");

	if (path == NULL || path[0] == '\0' || store->noting_scans)
		return;
	store->scan_notes = io_open(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	store->noting_scans = store->scan_notes >= 0;
	if (store->noting_scans)
		sqlite3_trace_v2(store->db, SQLITE_TRACE_PROFILE, note_scan, store);
}

/* One connection: opened, configured, checked. With no_space the WAL
 * index lives in this process's memory (locking_mode=EXCLUSIVE before the
 * first read), so nothing needs to grow on disk to read. */
static int
store_connect(struct store *store, bool create, bool no_space, struct hearth_error *error)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);

	/* Through the VFS shim, so the database's writes pass the I/O seam. */
	const char *vfs = store_vfs_name();
	if (vfs == NULL)
		return hearth_error_put(error, "cannot open %s: SQLite has no file system layer",
		    store->path);
	if (sqlite3_open_v2(store->path, &store->db, flags, vfs) != SQLITE_OK)
		return hearth_error_put(error, "cannot open %s: %s", store->path,
		    store->db ? sqlite3_errmsg(store->db) : "out of memory");
	sqlite3_extended_result_codes(store->db, 1);
	sqlite3_busy_timeout(store->db, STORE_BUSY_TIMEOUT_MS);
	open_scan_notes(store);
	store->no_space = no_space;
	if ((no_space && store_exec(store, "PRAGMA locking_mode=EXCLUSIVE", error) != 0) ||
	    store_exec(store, "PRAGMA journal_mode=WAL", error) != 0 ||
	    set_sync(store, wants_sync(store), error) != 0 ||
	    store_exec(store, "PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY;"
		"PRAGMA cache_size=-8192; PRAGMA wal_autocheckpoint=4000", error) != 0 ||
	    check_format(store, create, error) != 0 ||
	    load_replicas(store) != 0)
		return -1;
	return 0;
}

int
store_open(struct store *store, const char *path, bool create,
    enum config_durability durability, struct hearth_error *error)
{
	memset(store, 0, sizeof *store);
	snprintf(store->path, sizeof store->path, "%s", path);
	store->durability = durability;
	if (store_connect(store, create, false, error) == 0)
		return 0;
	/* A full disk must not stop reading what is stored (log, ls, fsck,
	 * status): again with the index in memory; writes are refused. */
	bool for_space = !create && failed_for_space(store->db);
	store_close(store);
	if (!for_space)
		return -1;
	struct hearth_error first = *error;
	if (store_connect(store, false, true, error) == 0)
		return 0;
	store_close(store);
	*error = first;
	return -1;
}

void
store_close(struct store *store)
{
	for (size_t i = 0; i < store->statement_count; i++)
		sqlite3_finalize(store->statements[i].statement);
	free(store->statements);
	store->statements = NULL;
	free(store->replicas);
	store->replicas = NULL;
	store->replica_count = 0;
	free(store->chain_tips);
	store->chain_tips = NULL;
	hash_free(store->chain_hasher);
	store->chain_hasher = NULL;
	store->chain_tip_count = store->chain_tip_capacity = 0;
	store->statement_count = store->statement_capacity = 0;
	if (store->db != NULL)
		sqlite3_close(store->db);
	store->db = NULL;
	if (store->noting_scans)
		io_close(store->scan_notes);
	store->noting_scans = false;
}

sqlite3_stmt *
store_statement(struct store *store, const char *sql)
{
	for (size_t i = 0; i < store->statement_count; i++) {
		if (store->statements[i].sql == sql) {
			sqlite3_stmt *statement = store->statements[i].statement;
			sqlite3_reset(statement);
			sqlite3_clear_bindings(statement);
			return statement;
		}
	}
	store->statements = array_grow(store->statements, &store->statement_capacity,
	    store->statement_count + 1, sizeof *store->statements);
	sqlite3_stmt *statement;
	if (sqlite3_prepare_v3(store->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement,
		NULL) != SQLITE_OK) {
		fprintf(stderr, "hearth: bug: cannot prepare \"%s\": %s\n", sql,
		    sqlite3_errmsg(store->db));
		abort();
	}
	store->statements[store->statement_count].sql = sql;
	store->statements[store->statement_count].statement = statement;
	store->statement_count++;
	return statement;
}

/* The replica numbers this process knows, read again: another process (a
 * serve, a record, a watch) may have added replicas since they were read,
 * and a number unknown here must not fail a read nor make a second row for
 * a known id (t0630, replicas syncing at once). */
static void
refresh_replicas(struct store *store)
{
	store->replica_count = 0;
	(void)load_replicas(store);
}

/* A read walks each page about once (a status of 100k files reads the
 * index once), so the connection starts with an 8 MiB page cache; a big
 * write transaction (a first record, a sync of a million ops) rewrites its
 * pages many times and would spill them to the WAL and read them back, so
 * the first write raises the cache to 64 MiB for the rest of the run. */
static void
store_widen_cache(struct store *store)
{
	if (store->wide_cache)
		return;
	store->wide_cache = sqlite3_exec(store->db, "PRAGMA cache_size=-65536", NULL, NULL,
	    NULL) == SQLITE_OK;
}

static int
begin(struct store *store, bool widen, struct hearth_error *error)
{
	if (store->no_space) {
		char reason[8192];
		space_message(store->path, reason, sizeof reason);
		return hearth_error_put(error, "%s; nothing was changed", reason);
	}
	if (apply_sync(store, error) != 0 ||
	    store_exec(store, "BEGIN IMMEDIATE", error) != 0)
		return -1;
	store->in_transaction = true;
	if (widen)
		store_widen_cache(store);
	/* Under the write lock nobody else adds one until the commit. */
	refresh_replicas(store);
	store_chain_forget(store);
	return 0;
}

int
store_begin(struct store *store, struct hearth_error *error)
{
	return begin(store, true, error);
}

/* A transaction that writes a few pages gains nothing from the wide
 * cache and pays for it: every page it reads (a query over the whole
 * index) is a new allocation and fresh memory, 0.2 s of a 1 s record of
 * one edit in a Home of 100k files; the narrow cache reuses its pages. */
int
store_begin_small(struct store *store, struct hearth_error *error)
{
	return begin(store, false, error);
}

int
store_try_begin(struct store *store)
{
	if (apply_sync(store, NULL) != 0)
		return -1;
	sqlite3_busy_timeout(store->db, 0);
	int status = sqlite3_exec(store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	sqlite3_busy_timeout(store->db, STORE_BUSY_TIMEOUT_MS);
	if (status != SQLITE_OK)
		return -1;
	store->in_transaction = true;
	store_widen_cache(store);
	refresh_replicas(store);
	store_chain_forget(store);
	return 0;
}

int
store_begin_read(struct store *store)
{
	if (store->in_transaction)
		return 0;
	return sqlite3_exec(store->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

void
store_end_read(struct store *store)
{
	if (!store->in_transaction)
		sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL);
}

int
store_commit(struct store *store, struct hearth_error *error)
{
	if (store_count_transaction(store) != 0 ||
	    store_exec(store, "COMMIT", error) != 0) {
		store_rollback(store);
		return -1;
	}
	store->in_transaction = false;
	return 0;
}

void
store_rollback(struct store *store)
{
	if (!store->in_transaction)
		return;
	sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	store->in_transaction = false;
	/* Replicas and chains added in the rolled-back transaction are gone again. */
	store_chain_forget(store);
	store->replica_count = 0;
	load_replicas(store);
}

/* ---- meta ---------------------------------------------------------------- */

static const char SQL_META_GET[] = "SELECT value FROM meta WHERE key = ?1";
static const char SQL_META_SET[] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)";
static const char SQL_META_DELETE[] = "DELETE FROM meta WHERE key = ?1";

int
store_meta_get_blob(struct store *store, const char *key, void *out, size_t size)
{
	sqlite3_stmt *statement = store_statement(store, SQL_META_GET);

	sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW ||
	    (size_t)sqlite3_column_bytes(statement, 0) != size)
		return -1;
	memcpy(out, sqlite3_column_blob(statement, 0), size);
	sqlite3_reset(statement);
	return 0;
}

int
store_meta_get_buffer(struct store *store, const char *key, struct buffer *out)
{
	sqlite3_stmt *statement = store_statement(store, SQL_META_GET);

	buffer_reset(out);
	sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return -1;
	buffer_append(out, sqlite3_column_blob(statement, 0),
	    (size_t)sqlite3_column_bytes(statement, 0));
	sqlite3_reset(statement);
	return 0;
}

int
store_meta_get_int(struct store *store, const char *key, int64_t *out)
{
	sqlite3_stmt *statement = store_statement(store, SQL_META_GET);

	sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW) {
		*out = 0;
		return -1;
	}
	*out = sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);
	return 0;
}

int
store_meta_set_blob(struct store *store, const char *key, const void *data, size_t size)
{
	sqlite3_stmt *statement = store_statement(store, SQL_META_SET);

	sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, size ? data : "", (int)size, SQLITE_STATIC);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
store_meta_set_int(struct store *store, const char *key, int64_t value)
{
	sqlite3_stmt *statement = store_statement(store, SQL_META_SET);

	sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, value);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
store_meta_delete(struct store *store, const char *key)
{
	sqlite3_stmt *statement = store_statement(store, SQL_META_DELETE);

	sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
	int status = sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(statement);
	return status;
}

int
store_meta_add_int(struct store *store, const char *key, int64_t delta)
{
	int64_t value = 0;

	store_meta_get_int(store, key, &value);
	return store_meta_set_int(store, key, value + delta);
}

uint64_t
store_scalar(struct store *store, const char *sql)
{
	sqlite3_stmt *statement = store_statement(store, sql);
	uint64_t value = 0;

	if (sqlite3_step(statement) == SQLITE_ROW)
		value = (uint64_t)sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);
	return value;
}

uint64_t
store_data_version(struct store *store)
{
	return store_scalar(store, "PRAGMA data_version");
}

void
store_replicas_held(struct store *store, struct store_replica_held **out, size_t *count)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT number, id, counter FROM replica WHERE counter > 0");
	size_t capacity = 0;

	*out = NULL;
	*count = 0;
	while (sqlite3_step(statement) == SQLITE_ROW) {
		if (sqlite3_column_bytes(statement, 1) != ID_BYTES)
			continue;
		*out = array_grow(*out, &capacity, *count + 1, sizeof **out);
		struct store_replica_held *row = &(*out)[(*count)++];
		row->number = sqlite3_column_int64(statement, 0);
		memcpy(row->id.bytes, sqlite3_column_blob(statement, 1), ID_BYTES);
		row->counter = (uint64_t)sqlite3_column_int64(statement, 2);
	}
	sqlite3_reset(statement);
}

bool
store_replica_has_change_after(struct store *store, int64_t number, uint64_t counter)
{
	sqlite3_stmt *statement = store_statement(store,
	    "SELECT 1 FROM op WHERE replica = ?1 AND counter > ?2 AND kind != ?3 LIMIT 1");

	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	sqlite3_bind_int(statement, 3, OP_COMMIT);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return found;
}

uint64_t
store_op_count(struct store *store)
{
	return store_scalar(store, "SELECT sum(counter) FROM replica");
}

int
store_count_transaction(struct store *store)
{
	return store_meta_add_int(store, "transactions", 1);
}

/* ---- replicas and ops --------------------------------------------------------- */

static const char SQL_REPLICA_ADD[] = "INSERT INTO replica(id) VALUES(?1)";
static const char SQL_REPLICA_COUNTER[] = "SELECT counter FROM replica WHERE number = ?1";
static const char SQL_REPLICA_RAISE[] =
    "UPDATE replica SET counter = ?2 WHERE number = ?1 AND counter < ?2";
static const char SQL_REPLICA_ALL[] = "SELECT id, counter FROM replica WHERE counter > 0";
static const char SQL_MAX_LAMPORT[] = "SELECT max(lamport) FROM op";
static const char SQL_OP_PUT[] =
    "INSERT INTO op(replica, counter, lamport, kind, node, body, chain) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char SQL_OP_GET[] =
    "SELECT body, chain, kind FROM op WHERE replica = ?1 AND counter = ?2";

static void
remember_replica(struct store *store, int64_t number, struct replica_id id)
{
	if ((size_t)number > store->replica_count) {
		struct replica_id *grown = array_resize(store->replicas, (size_t)number,
		    sizeof *grown);
		memset(grown + store->replica_count, 0,
		    ((size_t)number - store->replica_count) * sizeof *grown);
		store->replicas = grown;
		store->replica_count = (size_t)number;
	}
	store->replicas[number - 1] = id;
}

static int
load_replicas(struct store *store)
{
	sqlite3_stmt *statement;
	int step;

	if (sqlite3_prepare_v2(store->db, "SELECT number, id FROM replica", -1, &statement,
		NULL) != SQLITE_OK)
		return -1;
	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct replica_id id;
		if (sqlite3_column_bytes(statement, 1) != ID_BYTES)
			continue;
		memcpy(id.bytes, sqlite3_column_blob(statement, 1), ID_BYTES);
		remember_replica(store, sqlite3_column_int64(statement, 0), id);
	}
	sqlite3_finalize(statement);
	return step == SQLITE_DONE ? 0 : -1;
}

static int64_t
known_replica_number(const struct store *store, struct replica_id id)
{
	for (size_t i = 0; i < store->replica_count; i++)
		if (replica_id_equal(store->replicas[i], id))
			return (int64_t)i + 1;
	return 0;
}

int64_t
store_replica_number(struct store *store, struct replica_id id, bool create)
{
	int64_t known = known_replica_number(store, id);
	if (known == 0) {
		refresh_replicas(store);	/* another process may have added it */
		known = known_replica_number(store, id);
	}
	if (known != 0)
		return known;
	if (!create)
		return 0;
	sqlite3_stmt *statement = store_statement(store, SQL_REPLICA_ADD);
	sqlite3_bind_blob(statement, 1, id.bytes, ID_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	int64_t number = sqlite3_last_insert_rowid(store->db);
	remember_replica(store, number, id);
	return number;
}

int
store_replica_id(struct store *store, int64_t number, struct replica_id *out)
{
	if (number >= 1 && (size_t)number > store->replica_count)
		refresh_replicas(store);	/* added by another process since */
	if (number < 1 || (size_t)number > store->replica_count)
		return -1;
	*out = store->replicas[number - 1];
	return 0;
}

uint64_t
store_replica_counter(struct store *store, int64_t number)
{
	sqlite3_stmt *statement = store_statement(store, SQL_REPLICA_COUNTER);
	uint64_t counter = 0;

	sqlite3_bind_int64(statement, 1, number);
	if (sqlite3_step(statement) == SQLITE_ROW)
		counter = (uint64_t)sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);
	return counter;
}

uint64_t
store_max_lamport(struct store *store)
{
	return store_scalar(store, SQL_MAX_LAMPORT);
}

int
store_head_vv(struct store *store, struct vv *out)
{
	sqlite3_stmt *statement = store_statement(store, SQL_REPLICA_ALL);
	int step;

	out->count = 0;
	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		struct replica_id id;
		if (sqlite3_column_bytes(statement, 0) != ID_BYTES)
			continue;
		memcpy(id.bytes, sqlite3_column_blob(statement, 0), ID_BYTES);
		vv_set(out, id, (uint64_t)sqlite3_column_int64(statement, 1));
	}
	return step == SQLITE_DONE ? 0 : -1;
}

int
store_put_op(struct store *store, const struct op *op, const struct buffer *encoded,
    int64_t replica_number)
{
	struct node_id node = op_node(op);
	struct hash chain;

	if (store_chain_extend(store, replica_number, op->id.counter, encoded, &chain) != 0)
		return -1;
	sqlite3_stmt *statement = store_statement(store, SQL_OP_PUT);

	sqlite3_bind_int64(statement, 1, replica_number);
	sqlite3_bind_int64(statement, 2, (int64_t)op->id.counter);
	sqlite3_bind_int64(statement, 3, (int64_t)op->lamport);
	sqlite3_bind_int(statement, 4, (int)op->kind);
	if (op->kind == OP_COMMIT)
		sqlite3_bind_null(statement, 5);
	else
		sqlite3_bind_blob(statement, 5, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_blob(statement, 6, encoded->data, (int)encoded->length, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 7, chain.bytes, HASH_BYTES, SQLITE_STATIC);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
store_replica_raise(struct store *store, int64_t replica_number, uint64_t counter)
{
	sqlite3_stmt *statement = store_statement(store, SQL_REPLICA_RAISE);

	sqlite3_bind_int64(statement, 1, replica_number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

/* Whether op (number, counter)'s bytes match the chain stored with them
 * (chain NULL: none is), chained on the op before's: previous, or (NULL)
 * read from the store. An op whose predecessor is not held cannot be
 * checked: a gap in the counters, which fsck names. */
static bool
op_bytes_intact(struct store *store, int64_t number, uint64_t counter,
    const struct hash *previous, const void *body, size_t length, const struct hash *chain)
{
	struct hash held, computed;

	if (chain == NULL)
		return false;
	if (previous == NULL) {
		if (store_op_chain(store, number, counter - 1, &held) != 0)
			return true;
		previous = &held;
	}
	store_chain_next(store, previous, body, length, &computed);
	return hash_equal(&computed, chain);
}

/* The error for a damaged op: which one, and what finds and mends it. The
 * chain before it may be what changed: fsck tells which. */
static int
op_damaged(struct store *store, int64_t number, uint64_t counter, int kind,
    struct hearth_error *error)
{
	struct replica_id replica;
	char hex[ID_HEX] = "?";

	if (store_replica_id(store, number, &replica) == 0)
		replica_id_hex(replica, hex);
	hearth_error_put(error, "%s: op %.8s/%llu (%s) is damaged: its bytes do not match its "
	    "hash chain; `hearth fsck` names the damage and `hearth fsck --repair PEER` mends it",
	    store->path, hex, (unsigned long long)counter, op_kind_name((enum op_kind)kind));
	if (error != NULL)
		error->code = HEARTH_DAMAGED;
	return -1;
}

int
store_get_op(struct store *store, struct op_id id, struct op *out, struct arena *arena,
    struct hearth_error *error)
{
	int64_t number = store_replica_number(store, id.replica, false);
	char reason[128];

	if (number <= 0)
		return 0;
	sqlite3_stmt *statement = store_statement(store, SQL_OP_GET);
	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)id.counter);
	if (sqlite3_step(statement) != SQLITE_ROW)
		return 0;
	const void *body = sqlite3_column_blob(statement, 0);
	size_t length = (size_t)sqlite3_column_bytes(statement, 0);
	struct hash chain;
	bool has_chain = sqlite3_column_bytes(statement, 1) == HASH_BYTES;
	if (has_chain)
		memcpy(chain.bytes, sqlite3_column_blob(statement, 1), HASH_BYTES);
	if (!op_bytes_intact(store, number, id.counter, NULL, body, length,
		has_chain ? &chain : NULL)) {
		int kind = sqlite3_column_int(statement, 2);
		sqlite3_reset(statement);
		return op_damaged(store, number, id.counter, kind, error);
	}
	if (!op_decode(body, length, out, arena, reason, sizeof reason)) {
		char hex[ID_HEX];
		replica_id_hex(id.replica, hex);
		sqlite3_reset(statement);
		return hearth_error_put(error, "%s: op %.8s/%llu does not decode: %s", store->path,
		    hex, (unsigned long long)id.counter, reason);
	}
	sqlite3_reset(statement);
	return 1;
}

void
store_encode_op_ids(struct store *store, const struct op_id *ids, size_t count,
    struct buffer *out)
{
	buffer_reset(out);
	for (size_t i = 0; i < count; i++) {
		int64_t number = store_replica_number(store, ids[i].replica, true);
		buffer_append_varint(out, (uint64_t)number);
		buffer_append_varint(out, ids[i].counter);
	}
}

int
store_decode_op_ids(struct store *store, const void *data, size_t length, struct op_id **ids,
    size_t *count, struct arena *arena)
{
	struct reader reader;
	size_t capacity = length / 2 + 1, found = 0;
	struct op_id *result = arena_alloc(arena, capacity * sizeof *result);

	reader_init(&reader, data, length);
	while (!reader_at_end(&reader)) {
		uint64_t number, counter;
		if (!reader_varint(&reader, &number) || !reader_varint(&reader, &counter) ||
		    found == capacity)
			return -1;
		if (store_replica_id(store, (int64_t)number, &result[found].replica) != 0)
			return -1;
		result[found].counter = counter;
		found++;
	}
	*ids = result;
	*count = found;
	return 0;
}

/* ---- walks over the op table -------------------------------------------------------- */

#define OP_ROW_COLUMNS "replica, counter, lamport, kind, node, status, body, chain"

static const char SQL_OPS_OF_NODE[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE node = ?1 AND kind = ?2";
static const char SQL_OPS_APPLIED_OF_NODE[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE node = ?1 AND kind = ?2 AND status = 0";
static const char SQL_OPS_BY_NODE_NEWEST[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE kind = ?1 ORDER BY node, lamport DESC, counter DESC";
static const char SQL_OPS_OF_KIND_SINCE[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE kind = ?1 AND lamport >= ?2";
static const char SQL_OPS_ALL[] = "SELECT " OP_ROW_COLUMNS " FROM op ORDER BY replica, counter";
static const char SQL_OPS_COMMITS[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE kind = 3 ORDER BY replica, counter";
static const char SQL_OPS_OF_KIND[] = "SELECT " OP_ROW_COLUMNS " FROM op WHERE kind = ?1";
static const char SQL_OPS_CHANGES[] = "SELECT " OP_ROW_COLUMNS " FROM op WHERE kind != 3";
static const char SQL_OPS_CHANGES_UPTO[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE replica = ?1 AND counter <= ?2 AND kind != 3";
static const char SQL_OPS_AFTER[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE replica = ?1 AND counter > ?2 ORDER BY counter";
static const char SQL_OP_ROW_GET[] =
    "SELECT replica, counter, lamport, kind, node, status, NULL, chain FROM op "
    "WHERE replica = ?1 AND counter = ?2";
static const char SQL_OP_ROW_READ[] =
    "SELECT " OP_ROW_COLUMNS " FROM op WHERE replica = ?1 AND counter = ?2";
static const char SQL_OP_SET_BODY[] =
    "UPDATE op SET body = ?3, chain = ?4 WHERE replica = ?1 AND counter = ?2";
static const char SQL_OP_SET_FACTS[] =
    "UPDATE op SET lamport = ?3, kind = ?4, node = ?5 WHERE replica = ?1 AND counter = ?2 "
    "AND (lamport IS NOT ?3 OR kind IS NOT ?4 OR node IS NOT ?5)";
static const char SQL_OP_SET_STATUS[] =
    "UPDATE op SET status = ?3 WHERE replica = ?1 AND counter = ?2";

static void
ops_open(struct store *store, const char *sql, struct store_ops *out)
{
	*out = (struct store_ops){ .statement = store_statement(store, sql), .store = store };
}

void
store_ops_of_node(struct store *store, struct node_id node, enum op_kind kind,
    bool applied_only, struct store_ops *out)
{
	ops_open(store, applied_only ? SQL_OPS_APPLIED_OF_NODE : SQL_OPS_OF_NODE, out);
	sqlite3_bind_blob(out->statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int(out->statement, 2, (int)kind);
}

void
store_ops_by_node_newest(struct store *store, enum op_kind kind, struct store_ops *out)
{
	ops_open(store, SQL_OPS_BY_NODE_NEWEST, out);
	sqlite3_bind_int(out->statement, 1, (int)kind);
}

void
store_ops_of_kind_since(struct store *store, enum op_kind kind, uint64_t lamport,
    struct store_ops *out)
{
	ops_open(store, SQL_OPS_OF_KIND_SINCE, out);
	sqlite3_bind_int(out->statement, 1, (int)kind);
	sqlite3_bind_int64(out->statement, 2, (int64_t)lamport);
}

void
store_ops_all(struct store *store, struct store_ops *out)
{
	ops_open(store, SQL_OPS_ALL, out);
}

void
store_ops_commits(struct store *store, struct store_ops *out)
{
	ops_open(store, SQL_OPS_COMMITS, out);
}

void
store_ops_of_kind(struct store *store, enum op_kind kind, struct store_ops *out)
{
	ops_open(store, SQL_OPS_OF_KIND, out);
	sqlite3_bind_int(out->statement, 1, (int)kind);
}

void
store_ops_changes(struct store *store, struct store_ops *out)
{
	ops_open(store, SQL_OPS_CHANGES, out);
}

void
store_ops_changes_upto(struct store *store, int64_t number, uint64_t counter,
    struct store_ops *out)
{
	ops_open(store, SQL_OPS_CHANGES_UPTO, out);
	sqlite3_bind_int64(out->statement, 1, number);
	sqlite3_bind_int64(out->statement, 2, (int64_t)counter);
}

int
store_ops_after(struct store *store, int64_t number, uint64_t counter, struct store_ops *out)
{
	*out = (struct store_ops){ .owned = true, .store = store };
	if (sqlite3_prepare_v3(store->db, SQL_OPS_AFTER, -1, 0, &out->statement, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_int64(out->statement, 1, number);
	sqlite3_bind_int64(out->statement, 2, (int64_t)counter);
	return 0;
}

static void
read_op_row(sqlite3_stmt *statement, struct store_op_row *row)
{
	row->replica_number = sqlite3_column_int64(statement, 0);
	row->counter = (uint64_t)sqlite3_column_int64(statement, 1);
	row->lamport = (uint64_t)sqlite3_column_int64(statement, 2);
	row->kind = (enum op_kind)sqlite3_column_int(statement, 3);
	memset(row->node.bytes, 0, ID_BYTES);
	row->node_length = sqlite3_column_type(statement, 4) == SQLITE_NULL ? -1 :
	    sqlite3_column_bytes(statement, 4);
	if (row->node_length == ID_BYTES)
		memcpy(row->node.bytes, sqlite3_column_blob(statement, 4), ID_BYTES);
	row->status = sqlite3_column_int(statement, 5);
	row->body = sqlite3_column_blob(statement, 6);
	row->body_length = (size_t)sqlite3_column_bytes(statement, 6);
	row->has_chain = sqlite3_column_bytes(statement, 7) == HASH_BYTES;
	memset(row->chain.bytes, 0, HASH_BYTES);
	if (row->has_chain)
		memcpy(row->chain.bytes, sqlite3_column_blob(statement, 7), HASH_BYTES);
}

bool
store_ops_next(struct store_ops *ops, struct store_op_row *row)
{
	int step = sqlite3_step(ops->statement);
	if (step != SQLITE_ROW) {
		ops->failed = step != SQLITE_DONE;
		return false;
	}
	read_op_row(ops->statement, row);
	if (ops->raw)
		return true;
	/* A walk in counter order chains each row on the one before it; any
	 * other reads the chain before a row from the store. */
	bool follows = ops->carried_counter != 0 && ops->carried_replica == row->replica_number &&
	    ops->carried_counter + 1 == row->counter;
	bool intact = op_bytes_intact(ops->store, row->replica_number, row->counter,
	    follows ? &ops->carried_chain : NULL, row->body, row->body_length,
	    row->has_chain ? &row->chain : NULL);
	ops->carried_replica = row->replica_number;
	ops->carried_counter = row->counter;
	ops->carried_chain = row->chain;
	if (!intact) {
		ops->failed = true;
		ops->damaged_replica = row->replica_number;
		ops->damaged_counter = row->counter;
		ops->damaged_kind = row->kind;
		return false;
	}
	return true;
}

int
store_ops_status(const struct store_ops *ops, struct hearth_error *error)
{
	if (!ops->failed)
		return 0;
	if (ops->damaged_counter != 0)
		return op_damaged(ops->store, ops->damaged_replica, ops->damaged_counter,
		    (int)ops->damaged_kind, error);
	return hearth_error_put(error, "%s: reading the op log: %s", ops->store->path,
	    sqlite3_errmsg(ops->store->db));
}

void
store_ops_close(struct store_ops *ops)
{
	if (ops->owned)
		sqlite3_finalize(ops->statement);
	else if (ops->statement != NULL)
		sqlite3_reset(ops->statement);
	ops->statement = NULL;
}

int
store_ops_end(struct store_ops *ops, int status, struct hearth_error *error)
{
	if (status == 0 && store_ops_status(ops, error) != 0)
		status = error->code;
	store_ops_close(ops);
	return status;
}

int
store_op_row_get(struct store *store, int64_t number, uint64_t counter, bool with_body,
    struct store_op_row *row)
{
	sqlite3_stmt *statement = store_statement(store, with_body ? SQL_OP_ROW_READ
	    : SQL_OP_ROW_GET);
	int found = 0;

	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	if (sqlite3_step(statement) == SQLITE_ROW) {
		read_op_row(statement, row);
		found = 1;
	}
	sqlite3_reset(statement);
	return found;
}

int
store_op_set_status(struct store *store, int64_t number, uint64_t counter, int status)
{
	sqlite3_stmt *statement = store_statement(store, SQL_OP_SET_STATUS);

	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	sqlite3_bind_int(statement, 3, status);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
store_op_set_body(struct store *store, int64_t number, uint64_t counter, const void *body,
    size_t length, const struct hash *chain)
{
	sqlite3_stmt *statement = store_statement(store, SQL_OP_SET_BODY);

	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	sqlite3_bind_blob(statement, 3, body, (int)length, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 4, chain->bytes, HASH_BYTES, SQLITE_STATIC);
	return sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
}

int
store_op_set_facts(struct store *store, int64_t number, uint64_t counter, uint64_t lamport,
    enum op_kind kind, const struct node_id *node, bool *changed)
{
	sqlite3_stmt *statement = store_statement(store, SQL_OP_SET_FACTS);

	sqlite3_bind_int64(statement, 1, number);
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	sqlite3_bind_int64(statement, 3, (int64_t)lamport);
	sqlite3_bind_int(statement, 4, (int)kind);
	if (node == NULL)
		sqlite3_bind_null(statement, 5);
	else
		sqlite3_bind_blob(statement, 5, node->bytes, ID_BYTES, SQLITE_TRANSIENT);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return -1;
	*changed = sqlite3_changes(store->db) > 0;
	return 0;
}
