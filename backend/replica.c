/* More replicas of one Home: a fresh replica id for a copied state folder
 * (reid), and clone, which makes a new replica and brings the tree to head
 * without overwriting anything already in the folder. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/checkout.h"
#include "backend/home.h"
#include "backend/setup.h"
#include "backend/sync.h"

int
hearth_reid(hearth *home, char replica[33], struct hearth_error *error)
{
	struct replica_id fresh;
	char message[512];
	int status;

	hearth_error_clear(error);
	if ((status = home_lock(home, "reid", error)) != 0)
		return status;
	home_random(fresh.bytes, ID_BYTES);
	if (store_begin(&home->store, message, sizeof message) != 0) {
		home_unlock(home);
		return hearth_fail(error, HEARTH_FAILED, "%s", message);
	}
	/* The old id's ops stay: they are history. Only new ops carry the new id. */
	int64_t number = store_replica_number(&home->store, fresh, true);
	if (number <= 0 || store_meta_set_blob(&home->store, "replica", fresh.bytes, ID_BYTES) != 0 ||
	    store_commit(&home->store, message, sizeof message) != 0) {
		store_rollback(&home->store);
		home_unlock(home);
		return hearth_fail(error, HEARTH_FAILED, "cannot give the replica a new id: %s",
		    sqlite3_errmsg(home->store.db));
	}
	home->replica = fresh;
	home->replica_number = number;
	replica_id_hex(fresh, replica);
	home_unlock(home);
	return 0;
}

/* A clone that failed after making its Home takes the Home away again, so
 * that running it again starts afresh (as git clone does); the files it
 * wrote into the folder stay, to be adopted by that next run. */
static int
clone_undo(const char *dir, struct hearth_error *error)
{
	/* A joined replica (-c): its roots and state are the config's, and
	 * stay for the user to look at. */
	if (dir == NULL)
		return error->code;
	if (home_remove_state(dir) != 0) {
		char first[HEARTH_ERROR_MAX];
		snprintf(first, sizeof first, "%s", error->message);
		hearth_fail(error, error->code, "%s; and %s/" HOME_DIR_NAME " could not be removed "
		    "(%s): remove it before trying again", first, dir, strerror(errno));
	}
	return error->code;
}

/* Clone: probe the source for its Home id, make the replica (a fresh
 * replica id, the source's Home id), take in all it has, adopt what the
 * folder already holds, write what is missing, and record the rest as this
 * replica's own changes. */
int
hearth_clone(const struct hearth_clone_options *options, const struct hearth_progress *progress,
    struct hearth_clone_result *out, struct hearth_error *error)
{
	struct sync_identity identity;
	char home_hex[ID_HEX];
	hearth *home = NULL;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (options->source == NULL || (options->dir == NULL && options->config_path == NULL))
		return hearth_fail(error, HEARTH_USAGE, "clone needs a source and a folder or config");
	if ((status = sync_probe(options->source, NULL, NULL, &identity, error)) != 0)
		return status;
	hex_encode(identity.home, ID_BYTES, home_hex);
	/* The peer "origin", absolute so the new Home can move. */
	char origin[PATH_MAX];
	if (strncmp(options->source, "ssh://", 6) == 0 || realpath(options->source, origin) == NULL)
		snprintf(origin, sizeof origin, "%s", options->source);
	/* A joined replica's config is the user's own: its peers stay theirs. */
	struct hearth_init_options init = { .dir = options->dir, .home_id = home_hex,
		.origin = origin, .config_path = options->config_path };
	if ((status = hearth_init(&init, error)) != 0)
		return status;
	struct hearth_open_options open = { .start_dir = options->dir,
		.config_path = options->config_path };
	if ((status = home_open_setup(&home, &open, error)) != 0)
		return clone_undo(options->dir, error);
	replica_id_hex(home->replica, out->replica);

	struct hearth_sync_options sync = { .peer = options->source, .direction = HEARTH_SYNC_PULL };
	struct hearth_sync_result synced;
	status = hearth_sync(home, &sync, progress, &synced, error);
	out->ops = synced.ops_received;
	if (status == 0 && (status = home_lock(home, "clone", error)) == 0) {
		status = checkout_adopt(home, &out->adopted, error);
		home_unlock(home);
	}
	struct hearth_checkout_result written;
	if (status == 0) {
		struct hearth_checkout_options checkout = { 0 };
		status = hearth_checkout(home, &checkout, progress, &written, error);
		out->written = written.written;
		hearth_checkout_result_free(&written);
	}
	if (status == 0) {
		char message[4200];
		struct hearth_record_result recorded;
		struct hearth_record_options record = { .message = message };
		snprintf(message, sizeof message, "What %s held when it became a replica",
		    options->config_path ? home->roots[0].path : options->dir);
		status = hearth_record(home, &record, progress, &recorded, error);
		snprintf(out->recorded, sizeof out->recorded, "%s", recorded.version);
		hearth_record_result_free(&recorded);
	}
	/* Only now is it a replica every command may use. */
	if (status == 0 && store_meta_set_int(&home->store, "setup_pending", SETUP_DONE) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "cannot finish the clone: %s",
		    sqlite3_errmsg(home->store.db));
	hearth_close(home);
	return status == 0 ? 0 : clone_undo(options->dir, error);
}
