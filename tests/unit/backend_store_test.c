/* Unit tests of backend/store: the database's flush on commit follows what
 * the durability mode means (config_durability_rules), a change of it is
 * checked, and a restore that failed is made good by the next transaction,
 * so nothing commits unflushed under a mode that asks for flushes. */
#include <stdio.h>
#include <string.h>

#include "backend/store/store.h"
#include "tests/unit/tap.h"

/* The connection's PRAGMA synchronous: 0 OFF, 2 FULL; -1 unreadable. */
static int
synchronous_now(struct store *store)
{
	sqlite3_stmt *statement;
	int value = -1;

	if (sqlite3_prepare_v2(store->db, "PRAGMA synchronous", -1, &statement, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(statement) == SQLITE_ROW)
		value = sqlite3_column_int(statement, 0);
	sqlite3_finalize(statement);
	return value;
}

static void
test_rules(void)
{
	struct config_durability_rules full = config_durability_rules(DURABILITY_FULL);
	struct config_durability_rules group = config_durability_rules(DURABILITY_GROUP);
	struct config_durability_rules none = config_durability_rules(DURABILITY_NONE);

	ok(full.sync_each_file && full.sync_folders && full.sync_packs && full.sync_database,
	    "full flushes every file, folder, pack and commit");
	ok(!group.sync_each_file && group.sync_folders && group.sync_packs && group.sync_database,
	    "group flushes folders, packs and commits once per command, not each file");
	ok(!none.sync_each_file && !none.sync_folders && !none.sync_packs && !none.sync_database,
	    "none flushes nothing");
	struct config_durability_rules unknown = config_durability_rules((enum config_durability)7);
	ok(unknown.sync_each_file && unknown.sync_database,
	    "a mode out of range gets full's rules");
}

static int
open_store(struct store *store, const char *name, enum config_durability durability)
{
	char path[4096];
	struct hearth_error failure;

	snprintf(path, sizeof path, "%s/%s", tap_scratch_dir(), name);
	if (store_open(store, path, true, durability, &failure) == 0)
		return 0;
	tap_diag("cannot open %s: %s", path, failure.message);
	return -1;
}

static void
test_relax_and_restore(void)
{
	struct store store;
	struct hearth_error failure;

	if (!ok(open_store(&store, "full.db", DURABILITY_FULL) == 0, "a store opens under full"))
		return;
	check_int(synchronous_now(&store), 2);
	check_int(store_sync_relax(&store, &failure), 0);
	check_int(synchronous_now(&store), 0);
	/* Inside a transaction SQLite refuses the change: the restore says
	 * so instead of leaving the connection unflushed in silence. */
	check_int(store_begin(&store, &failure), 0);
	check_int(synchronous_now(&store), 0);
	failure.message[0] = '\0';
	check_int(store_sync_restore(&store, &failure), -1);
	ok(strstr(failure.message, "transaction") != NULL, "the failed restore names why: %s",
	    failure.message);
	check_int(store_commit(&store, &failure), 0);
	/* The next transaction restores first: it commits flushed. */
	check_int(store_begin(&store, &failure), 0);
	check_int(synchronous_now(&store), 2);
	check_int(store_commit(&store, &failure), 0);
	/* A relax refused inside a transaction leaves the mode's setting. */
	check_int(store_begin(&store, &failure), 0);
	check_int(store_sync_relax(&store, &failure), -1);
	check_int(store_commit(&store, &failure), 0);
	check_int(store_begin(&store, &failure), 0);
	check_int(synchronous_now(&store), 2);
	check_int(store_commit(&store, &failure), 0);
	store_close(&store);
}

static void
test_none_never_flushes(void)
{
	struct store store;
	struct hearth_error failure;

	if (!ok(open_store(&store, "none.db", DURABILITY_NONE) == 0, "a store opens under none"))
		return;
	check_int(synchronous_now(&store), 0);
	check_int(store_sync_relax(&store, &failure), 0);
	check_int(store_sync_restore(&store, &failure), 0);
	check_int(synchronous_now(&store), 0);
	check_int(store_begin(&store, &failure), 0);
	check_int(synchronous_now(&store), 0);
	check_int(store_commit(&store, &failure), 0);
	store_close(&store);
}

int
main(void)
{
	test_rules();
	test_relax_and_restore();
	test_none_never_flushes();
	return tap_done();
}
