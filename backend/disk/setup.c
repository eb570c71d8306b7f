/* Setups that did not finish (setup.h): what a killed init or clone left,
 * told apart from a Home and from what is the user's. */
#include "backend/disk/setup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/disk/home.h"
#include "backend/io/io.h"
#include "backend/store/store.h"

/* PRAGMA application_id and whether any table exists, read through
 * SQLite (in WAL mode a young store's header may say 0 until a
 * checkpoint); -1 when it is no database. */
static int
read_header(const char *path, int64_t *application_id, bool *tables)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *statement = NULL;
	int status = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &statement, NULL) == SQLITE_OK &&
	    sqlite3_step(statement) == SQLITE_ROW) {
		*application_id = sqlite3_column_int64(statement, 0);
		sqlite3_finalize(statement);
		statement = NULL;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &statement,
			NULL) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW) {
			*tables = sqlite3_column_int64(statement, 0) > 0;
			status = 0;
		}
	}
	sqlite3_finalize(statement);
	sqlite3_close(db);
	return status;
}

enum setup_store
setup_probe_store(const char *state_path, uint8_t home_id[ID_BYTES], int64_t *pending)
{
	char path[PATH_MAX + 32];
	struct hearth_error failure;
	struct stat status;
	struct store store;
	int64_t application_id = 0;
	bool tables = false;

	*pending = SETUP_DONE;
	snprintf(path, sizeof path, "%s/store.db", state_path);
	if (lstat(path, &status) != 0)
		return errno == ENOENT ? SETUP_NO_STORE : SETUP_FOREIGN;
	if (!S_ISREG(status.st_mode))
		return SETUP_FOREIGN;
	if (status.st_size == 0)
		return SETUP_HALF_STORE;
	if (read_header(path, &application_id, &tables) != 0)
		return SETUP_FOREIGN;
	if (application_id == 0 && !tables)
		return SETUP_HALF_STORE;	/* made, its schema not yet committed */
	if (application_id != STORE_APPLICATION_ID ||
	    store_open(&store, path, false, DURABILITY_GROUP, &failure) != 0)
		return SETUP_FOREIGN;
	enum setup_store found = SETUP_HALF_STORE;
	if (store_meta_get_blob(&store, "home", home_id, ID_BYTES) == 0) {
		found = SETUP_STORE;
		store_meta_get_int(&store, "setup_pending", pending);
	}
	store_close(&store);
	return found;
}

/* What an init writes into a top's .hearth before its marker. */
static bool
setup_name(const char *name)
{
	static const char *const names[] = {
		"store.db", "store.db-wal", "store.db-shm", "store.db-journal", "packs", "staging",
		"lock", "cookies", "config.yaml",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return strncmp(name, "config.yaml.tmp.", 16) == 0 || strncmp(name, "root.tmp.", 9) == 0;
}

bool
setup_half_made(const char *dir)
{
	uint8_t home_id[ID_BYTES];
	int64_t pending;
	enum setup_store store = setup_probe_store(dir, home_id, &pending);

	if (store == SETUP_FOREIGN || (store == SETUP_STORE && pending == SETUP_DONE))
		return false;
	DIR *listing = opendir(dir);
	struct dirent *entry;
	bool ours = listing != NULL;
	while (ours && (entry = readdir(listing)) != NULL)
		ours = strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
		    setup_name(entry->d_name);
	if (listing != NULL)
		closedir(listing);
	return ours;
}

int
setup_remove_store(const char *state_path)
{
	static const char *const names[] = {
		"store.db-wal", "store.db-shm", "store.db-journal", "store.db",
	};
	int dir_fd = open(state_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int status = dir_fd < 0 ? -1 : 0;

	for (size_t i = 0; status == 0 && i < sizeof names / sizeof names[0]; i++)
		if (io_unlink(dir_fd, names[i]) != 0 && errno != ENOENT)
			status = -1;
	if (dir_fd >= 0)
		close(dir_fd);
	return status;
}

int
setup_finish(const char *state_path, struct hearth_error *error)
{
	char path[PATH_MAX + 32];
	struct hearth_error failure;
	struct store store;

	snprintf(path, sizeof path, "%s/store.db", state_path);
	if (store_open(&store, path, false, DURABILITY_GROUP, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	int status = store_meta_set_int(&store, "setup_pending", SETUP_DONE);
	if (status != 0)
		hearth_fail(error, HEARTH_FAILED, "cannot finish the setup of %s: %s", path,
		    sqlite3_errmsg(store.db));
	store_close(&store);
	return status == 0 ? 0 : error->code;
}

const char *
setup_kind_name(int64_t kind)
{
	return kind == SETUP_CLONE ? "clone" : "init";
}
