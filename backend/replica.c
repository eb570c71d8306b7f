/* More replicas of one Home: a fresh replica id for a copied state folder
 * (reid), and clone, which makes a new replica and brings the tree to head
 * without overwriting anything already in the folder. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/history/checkout.h"
#include "backend/disk/prefill.h"
#include "backend/disk/home.h"
#include "backend/disk/setup.h"
#include "backend/sync/sync.h"
#include "model/array.h"

/* ---- a state folder's own identity ------------------------------------------------ */

/* What tells this state folder from a copy of it: its inode and, where
 * the file system keeps one, its birth time. cp -a, a restored backup or
 * a move to another file system makes a folder with other ones; the store
 * inside, copied with it, still names the first. */
struct state_stamp {
	uint64_t inode;
	int64_t birth_seconds;	/* 0: the file system keeps no birth time */
	uint32_t birth_nanoseconds;
};

#define STAMP_BYTES 20

static int
state_stamp_read(struct hearth *home, struct state_stamp *out)
{
	struct statx status;

	memset(out, 0, sizeof *out);
	if (statx(home->state_fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &status) != 0)
		return -1;
	out->inode = status.stx_ino;
	if (status.stx_mask & STATX_BTIME) {
		out->birth_seconds = status.stx_btime.tv_sec;
		out->birth_nanoseconds = status.stx_btime.tv_nsec;
	}
	return 0;
}

static void
state_stamp_encode(const struct state_stamp *stamp, uint8_t out[STAMP_BYTES])
{
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(stamp->inode >> (8 * i));
		out[8 + i] = (uint8_t)((uint64_t)stamp->birth_seconds >> (8 * i));
	}
	for (int i = 0; i < 4; i++)
		out[16 + i] = (uint8_t)(stamp->birth_nanoseconds >> (8 * i));
}

static bool
state_stamp_same(const uint8_t kept[STAMP_BYTES], const uint8_t now[STAMP_BYTES])
{
	static const uint8_t no_birth[12];

	if (memcmp(kept, now, 8) != 0)
		return false;
	/* A birth time only one side knows (another kernel, another file
	 * system driver) proves nothing either way. */
	if (memcmp(kept + 8, no_birth, 12) == 0 || memcmp(now + 8, no_birth, 12) == 0)
		return true;
	return memcmp(kept + 8, now + 8, 12) == 0;
}

#define FORMER_BYTES (ID_BYTES + 8)

static void
former_load(struct hearth *home)
{
	struct buffer kept;

	free(home->former);
	home->former = NULL;
	home->former_count = 0;
	home->former_loaded = true;
	buffer_init(&kept);
	if (store_meta_get_buffer(&home->store, "former_replicas", &kept) == 0 &&
	    kept.length >= FORMER_BYTES) {
		home->former = array_alloc(kept.length / FORMER_BYTES, sizeof *home->former);
		for (size_t at = 0; at + FORMER_BYTES <= kept.length; at += FORMER_BYTES) {
			struct op_id *id = &home->former[home->former_count++];
			memcpy(id->replica.bytes, kept.data + at, ID_BYTES);
			id->counter = 0;
			for (int i = 0; i < 8; i++)
				id->counter |= (uint64_t)kept.data[at + ID_BYTES + i] << (8 * i);
		}
	}
	buffer_free(&kept);
}

bool
home_op_is_mine(struct hearth *home, struct op_id id)
{
	if (replica_id_equal(id.replica, home->replica))
		return true;
	if (!home->former_loaded)
		former_load(home);
	for (size_t i = 0; i < home->former_count; i++)
		if (replica_id_equal(id.replica, home->former[i].replica) &&
		    id.counter <= home->former[i].counter)
			return true;
	return false;
}

/* meta.former_replicas gains the id this replica leaves and the counter
 * it reached under it. */
static int
former_add(struct hearth *home)
{
	struct buffer kept;
	uint8_t entry[FORMER_BYTES];
	uint64_t counter = store_replica_counter(&home->store, home->replica_number);

	memcpy(entry, home->replica.bytes, ID_BYTES);
	for (int i = 0; i < 8; i++)
		entry[ID_BYTES + i] = (uint8_t)(counter >> (8 * i));
	buffer_init(&kept);
	if (store_meta_get_buffer(&home->store, "former_replicas", &kept) != 0)
		buffer_reset(&kept);
	buffer_append(&kept, entry, sizeof entry);
	int status = store_meta_set_blob(&home->store, "former_replicas", kept.data, kept.length);
	buffer_free(&kept);
	home->former_loaded = false;
	return status;
}

/* A fresh replica id and the stamp of the folder holding the store, in
 * one transaction: from here on this replica makes ops under the new id.
 * The old id's ops stay: they are history, and still this replica's own. */
static int
replica_renew(struct hearth *home, const uint8_t stamp[STAMP_BYTES], struct hearth_error *error)
{
	struct replica_id fresh;
	struct hearth_error failure;

	home_random(fresh.bytes, ID_BYTES);
	if (store_begin(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	int64_t number = store_replica_number(&home->store, fresh, true);
	if (number <= 0 || former_add(home) != 0 ||
	    store_meta_set_blob(&home->store, "replica", fresh.bytes, ID_BYTES) != 0 ||
	    store_meta_set_blob(&home->store, "state_stamp", stamp, STAMP_BYTES) != 0)
		snprintf(failure.message, sizeof failure.message, "%s", sqlite3_errmsg(home->store.db));
	else if (store_commit(&home->store, &failure) == 0)
		failure.message[0] = '\0';
	if (failure.message[0] != '\0') {
		store_rollback(&home->store);
		return hearth_fail(error, HEARTH_FAILED, "cannot give the replica a new id: %s",
		    failure.message);
	}
	home->replica = fresh;
	home->replica_number = number;
	return 0;
}

int
replica_check_copy(struct hearth *home, struct hearth_error *error)
{
	struct state_stamp stamp;
	uint8_t now[STAMP_BYTES], kept[STAMP_BYTES];
	struct hearth_error failure;
	char old_hex[ID_HEX];
	char new_hex[ID_HEX];

	if (state_stamp_read(home, &stamp) != 0)
		return hearth_fail_errno(error, "cannot read what %s is", home->location.state_path);
	state_stamp_encode(&stamp, now);
	/* A store from before stamps (or a new one) takes this folder's. */
	if (store_meta_get_blob(&home->store, "state_stamp", kept, STAMP_BYTES) != 0) {
		if (store_begin(&home->store, &failure) != 0)
			return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
		if (store_meta_set_blob(&home->store, "state_stamp", now, STAMP_BYTES) != 0)
			snprintf(failure.message, sizeof failure.message, "%s", sqlite3_errmsg(home->store.db));
		else if (store_commit(&home->store, &failure) == 0)
			return 0;
		store_rollback(&home->store);
		return hearth_fail(error, HEARTH_FAILED, "cannot note the state folder: %s", failure.message);
	}
	if (state_stamp_same(kept, now))
		return 0;
	replica_id_hex(home->replica, old_hex);
	if (replica_renew(home, now, error) != 0)
		return error->code;
	replica_id_hex(home->replica, new_hex);
	snprintf(home->notice, sizeof home->notice, "%s is a copy (or was moved to another "
	    "file system): it is now replica %.8s, no longer %.8s, so that it and the Home it was "
	    "copied from never make ops under one id", home->location.state_path, new_hex, old_hex);
	return 0;
}

int
hearth_reid(hearth *home, char replica[33], struct hearth_error *error)
{
	struct state_stamp stamp;
	uint8_t now[STAMP_BYTES];
	int status;

	hearth_error_clear(error);
	if ((status = home_take_lock(home, "reid", error)) != 0)
		return status;
	if (state_stamp_read(home, &stamp) != 0) {
		home_unlock(home);
		return hearth_fail_errno(error, "cannot read what %s is", home->location.state_path);
	}
	state_stamp_encode(&stamp, now);
	status = replica_renew(home, now, error);
	if (status == 0)
		replica_id_hex(home->replica, replica);
	home_unlock(home);
	return status;
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
/* An environment variable's value when set and not empty, else NULL. */
static const char *
clone_setting(const char *name)
{
	const char *value = getenv(name);
	return value != NULL && value[0] != '\0' ? value : NULL;
}

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
	/* What it took to reach an ssh source is kept in the config, so every
	 * later sync, and the app's, reaches it the same way. */
	if (strncmp(options->source, "ssh://", 6) == 0) {
		init.origin_remote_command = clone_setting("HEARTH_REMOTE_COMMAND");
		init.origin_ssh_command = clone_setting("HEARTH_SSH");
	}
	if ((status = hearth_init(&init, error)) != 0)
		return status;
	struct hearth_open_options open = { .start_dir = options->dir,
		.config_path = options->config_path };
	if ((status = home_open_setup(&home, &open, error)) != 0)
		return clone_undo(options->dir, error);
	replica_id_hex(home->replica, out->replica);
	/* Into folders that held nothing, the tree is what the checkout writes:
	 * the record after it, a walk of every file, would find nothing. */
	bool held_nothing = home_roots_hold_nothing(home);

	/* Into empty folders a big file's bytes go to its file as they
	 * arrive, for the checkout below to take (prefill.h). */
	struct hearth_sync_options sync = { .peer = options->source, .direction = HEARTH_SYNC_PULL,
		.checkout_after = held_nothing };
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
		out->prefilled = written.prefilled;
		hearth_checkout_result_free(&written);
	}
	prefill_free(home->prefill);
	home->prefill = NULL;
	if (status == 0 && !held_nothing) {
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

bool
hearth_take_notice(hearth *home, char *out, size_t size)
{
	if (home == NULL || home->notice[0] == '\0')
		return false;
	snprintf(out, size, "%s", home->notice);
	home->notice[0] = '\0';
	return true;
}
