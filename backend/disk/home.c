/* Finding, making and opening a Home (docs/DESIGN.md §6 and §10): where its config
 * and state are, the marker in every root, the checks that fail closed when
 * a root is missing or foreign, and the write lock. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/disk/home.h"
#include "backend/disk/identity.h"
#include "backend/disk/prefill.h"
#include "backend/io/io.h"
#include "backend/io/space.h"
#include "backend/store/pack_index.h"
#include "backend/disk/layout.h"
#include "backend/disk/scan.h"
#include "backend/disk/setup.h"
#include "model/array.h"

#define LOCK_WAIT_MS 3000
/* The store's "folder_ids" meta: 2 once every folder's id is in its xattr
 * (or in a marker file only where xattrs are not kept). */
#define FOLDER_IDS_IN_XATTRS 2

/* ---- small helpers -------------------------------------------------------------- */

void
home_random(void *out, size_t length)
{
	uint8_t *bytes = out;

	while (length > 0) {
		ssize_t got = getrandom(bytes, length, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			perror("hearth: getrandom");
			abort();
		}
		bytes += got;
		length -= (size_t)got;
	}
}

struct node_id
home_new_node_id(void)
{
	struct timespec now;
	uint8_t random[10];

	clock_gettime(CLOCK_REALTIME, &now);
	home_random(random, sizeof random);
	return node_id_from_parts((uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000,
	    random);
}

/* What passed through the I/O seam and the database's VFS shim: the
 * kernel's wchar (/proc/self/io) would also count the pipes of a sync and,
 * once it is waited for, the whole of the `hearth serve` a local sync
 * runs, which wrote the other store. */
uint64_t
home_bytes_written(void)
{
	return io_counters()->bytes_written;
}

int
home_count_writes(struct hearth *home, uint64_t content_bytes)
{
	struct hearth_error failure;

	/* After the command's commit, so its database writes count too. The
	 * counters are statistics: a crash may lose them, so they cost no
	 * flush of their own. */
	if (store_sync_relax(&home->store, &failure) != 0)
		return -1;
	uint64_t written = home_bytes_written() - home->write_bytes_at_start;
	home->write_bytes_at_start += written;
	int status = 0;
	if (store_meta_add_int(&home->store, "bytes_written", (int64_t)written) != 0 ||
	    store_meta_add_int(&home->store, "content_bytes_written", (int64_t)content_bytes) != 0)
		status = -1;
	if (store_sync_restore(&home->store, &failure) != 0)
		status = -1;
	return status;
}

const struct home_root *
home_root_named(const struct hearth *home, const char *name)
{
	for (size_t i = 0; i < home->root_count; i++)
		if (name != NULL && strcmp(home->roots[i].name, name) == 0)
			return &home->roots[i];
	return &home->roots[0];
}

static bool
is_directory(const char *path)
{
	struct stat status;
	return stat(path, &status) == 0 && S_ISDIR(status.st_mode);
}

static bool
is_file(const char *path)
{
	struct stat status;
	return stat(path, &status) == 0 && S_ISREG(status.st_mode);
}

/* Joins dir and a path relative to it (or keeps an absolute one). */
static void
join_path(char *out, size_t size, const char *dir, const char *path)
{
	if (path[0] == '/')
		snprintf(out, size, "%s", path);
	else if (strcmp(dir, "/") == 0)
		snprintf(out, size, "/%s", path);
	else
		snprintf(out, size, "%s/%s", dir, path);
}

/* ---- root markers --------------------------------------------------------------- */

/* A root's marker, .hearth/root: "key: value" lines naming the Home and
 * the root, and where config and state are (relative to the root for a
 * Home made by `hearth init DIR`, so the folder can move). */
struct marker {
	char home[ID_HEX];
	char root[128];
	char config[4096];
	char state[4096];
};

FILE *
home_fopen_regular(const char *path, const char **why)
{
	struct stat status;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return NULL;
	}
	FILE *file = fdopen(fd, "r");
	if (file == NULL) {
		*why = strerror(errno);
		close(fd);
	}
	return file;
}

static int
marker_read(const char *root_path, struct marker *out, struct hearth_error *error)
{
	char path[PATH_MAX + 32], line[4200];
	FILE *file;
	int line_number = 0;

	memset(out, 0, sizeof *out);
	snprintf(path, sizeof path, "%s/" HOME_DIR_NAME "/" HOME_MARKER_NAME, root_path);
	const char *why;
	file = home_fopen_regular(path, &why);
	if (file == NULL) {
		hearth_error_put(error, "%s: %s", path, why);
		return -1;
	}
	while (fgets(line, sizeof line, file) != NULL) {
		char *value = strchr(line, ':');
		line_number++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (value == NULL) {
			hearth_error_put(error, "%s:%d: expected \"key: value\"", path, line_number);
			fclose(file);
			return -1;
		}
		*value++ = '\0';
		value += strspn(value, " ");
		value[strcspn(value, "\n")] = '\0';
		if (strcmp(line, "home") == 0)
			snprintf(out->home, sizeof out->home, "%s", value);
		else if (strcmp(line, "root") == 0)
			snprintf(out->root, sizeof out->root, "%s", value);
		else if (strcmp(line, "config") == 0)
			snprintf(out->config, sizeof out->config, "%s", value);
		else if (strcmp(line, "state") == 0)
			snprintf(out->state, sizeof out->state, "%s", value);
	}
	fclose(file);
	uint8_t id[ID_BYTES];
	if (!hex_decode(out->home, id, ID_BYTES) || out->root[0] == '\0') {
		hearth_error_put(error, "%s: damaged marker (no valid home id or root name)", path);
		return -1;
	}
	return 0;
}

/* Setup's files (a root's marker, the config) are flushed whatever the
 * durability mode: they are written once, and a Home whose marker a crash
 * lost is not found. */
static int
write_file_atomically(int dir_fd, const char *name, const char *text,
    struct hearth_error *error, const char *shown_path)
{
	char temporary[300];

	snprintf(temporary, sizeof temporary, "%s.tmp.%d", name, (int)getpid());
	int fd = io_open(dir_fd, temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return hearth_fail_errno(error, "cannot write %s", shown_path);
	if (io_write_all(fd, text, strlen(text)) != 0 || io_fsync(fd) != 0) {
		int status = hearth_fail_errno(error, "cannot write %s", shown_path);
		io_close(fd);
		io_unlink(dir_fd, temporary);
		return status;
	}
	io_close(fd);
	if (io_rename(dir_fd, temporary, dir_fd, name) != 0) {
		int status = hearth_fail_errno(error, "cannot write %s", shown_path);
		io_unlink(dir_fd, temporary);
		return status;
	}
	return 0;
}

static int
marker_write(const char *root_path, const char *home_hex, const char *root_name,
    const char *config, const char *state, struct hearth_error *error)
{
	char path[PATH_MAX + 32], text[9000];

	snprintf(path, sizeof path, "%s/" HOME_DIR_NAME, root_path);
	if (io_mkdir(AT_FDCWD, path, 0755) != 0 && errno != EEXIST)
		return hearth_fail_errno(error, "cannot make %s", path);
	int dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return hearth_fail_errno(error, "cannot open %s", path);
	snprintf(text, sizeof text,
	    "# hearth root marker: this folder is root '%s' of a Home. Do not copy it\n"
	    "# into another folder; `hearth init` makes new ones.\n"
	    "home: %s\nroot: %s\nconfig: %s\nstate: %s\n",
	    root_name, home_hex, root_name, config, state);
	snprintf(path + strlen(path), sizeof path - strlen(path), "/" HOME_MARKER_NAME);
	int status = write_file_atomically(dir_fd, HOME_MARKER_NAME, text, error, path);
	if (status == 0 && io_fsync(dir_fd) != 0)
		status = hearth_fail_errno(error, "%s: written, but its folder could not be synced",
		    path);
	close(dir_fd);
	return status;
}

/* ---- locating a Home ----------------------------------------------------------- */

static int
locate_by_config(const char *config_path, const char *found_by, struct hearth_location *out,
    struct hearth_error *error)
{
	char message[4096];
	struct config *config = config_load(config_path, message, sizeof message);

	if (config == NULL)
		return hearth_fail(error, HEARTH_FAILED, "%s", message);
	if (config->state == NULL || config->state[0] == '\0') {
		config_free(config);
		return hearth_fail(error, HEARTH_FAILED,
		    "%s: no 'state:' key; a Home's config names where its store lives", config_path);
	}
	snprintf(out->config_path, sizeof out->config_path, "%s", config_path);
	snprintf(out->state_path, sizeof out->state_path, "%s", config->state);
	snprintf(out->found_by, sizeof out->found_by, "%s", found_by);
	config_free(config);
	return 0;
}

static int
locate_by_marker(const char *start, struct hearth_location *out, struct hearth_error *error)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];

	if (realpath(start, dir) == NULL)
		return hearth_fail_errno(error, "cannot resolve %s", start);
	for (;;) {
		snprintf(probe, sizeof probe, "%s/" HOME_DIR_NAME "/" HOME_MARKER_NAME,
		    strcmp(dir, "/") == 0 ? "" : dir);
		if (is_file(probe)) {
			struct marker marker;
			struct hearth_error failure;
			if (marker_read(dir, &marker, &failure) != 0)
				return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
			join_path(out->config_path, sizeof out->config_path, dir, marker.config);
			join_path(out->state_path, sizeof out->state_path, dir, marker.state);
			snprintf(out->found_by, sizeof out->found_by, "marker");
			return 0;
		}
		if (strcmp(dir, "/") == 0)
			return -1;	/* no marker anywhere above */
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
}

int
hearth_locate(const struct hearth_open_options *options, struct hearth_location *out,
    struct hearth_error *error)
{
	const char *environment = getenv("HEARTH_CONFIG");
	char xdg_path[PATH_MAX];

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (options != NULL && options->config_path != NULL)
		return locate_by_config(options->config_path, "-c", out, error);
	if (environment != NULL && environment[0] != '\0')
		return locate_by_config(environment, "HEARTH_CONFIG", out, error);

	const char *start = options != NULL && options->start_dir != NULL ? options->start_dir : ".";
	int found = locate_by_marker(start, out, error);
	if (found != -1)
		return found;

	const char *xdg = getenv("XDG_CONFIG_HOME"), *home_dir = getenv("HOME");
	if (xdg != NULL && xdg[0] == '/')
		snprintf(xdg_path, sizeof xdg_path, "%s/hearth/config.yaml", xdg);
	else
		snprintf(xdg_path, sizeof xdg_path, "%s/.config/hearth/config.yaml",
		    home_dir ? home_dir : "");
	if (is_file(xdg_path))
		return locate_by_config(xdg_path, "XDG", out, error);
	char here[PATH_MAX];
	if (realpath(start, here) == NULL)
		snprintf(here, sizeof here, "%s", start);
	return hearth_fail(error, HEARTH_NOT_A_HOME,
	    "not in a Home: no " HOME_DIR_NAME "/ in %s or any folder above it, no HEARTH_CONFIG, "
	    "no %s (`hearth init DIR` makes a Home)", here, xdg_path);
}

/* ---- making a Home --------------------------------------------------------------- */

/* The store of a new Home, marked as a setup (init or clone) that has not
 * finished until setup_finish. */
static int
make_state(const char *state_path, const uint8_t home_id[ID_BYTES],
    enum config_durability durability, enum setup_kind kind, struct hearth_error *error)
{
	char path[PATH_MAX + 32];
	struct hearth_error failure;
	struct store store;
	struct replica_id replica;
	int64_t now = (int64_t)time(NULL);

	if (io_mkdir(AT_FDCWD, state_path, 0700) != 0 && errno != EEXIST)
		return hearth_fail_errno(error, "cannot make %s", state_path);
	snprintf(path, sizeof path, "%s/packs", state_path);
	if (io_mkdir(AT_FDCWD, path, 0700) != 0 && errno != EEXIST)
		return hearth_fail_errno(error, "cannot make %s", path);
	snprintf(path, sizeof path, "%s/store.db", state_path);
	if (access(path, F_OK) == 0)
		return hearth_fail(error, HEARTH_FAILED, "%s already exists: this is a Home already",
		    path);
	if (store_open(&store, path, true, durability, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	home_random(replica.bytes, ID_BYTES);
	if (store_begin(&store, &failure) != 0 ||
	    store_meta_set_blob(&store, "home", home_id, ID_BYTES) != 0 ||
	    store_meta_set_blob(&store, "replica", replica.bytes, ID_BYTES) != 0 ||
	    store_replica_number(&store, replica, true) != 1 ||
	    store_meta_set_int(&store, "created", now) != 0 ||
	    store_meta_set_int(&store, "folder_ids", FOLDER_IDS_IN_XATTRS) != 0 ||
	    store_meta_set_int(&store, "setup_pending", kind) != 0 ||
	    store_commit(&store, &failure) != 0) {
		store_rollback(&store);
		store_close(&store);
		return hearth_fail(error, HEARTH_FAILED, "cannot set up %s: %s", path, failure.message);
	}
	store_close(&store);
	return 0;
}

/* Removes name below dir_fd: a file or link, or a folder with all inside. */
static int
remove_tree(int dir_fd, const char *name)
{
	struct stat status;

	if (fstatat(dir_fd, name, &status, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(status.st_mode))
		return io_unlink(dir_fd, name);
	int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *dirent;
	int result = 0;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((dirent = readdir(dir)) != NULL)
		if (strcmp(dirent->d_name, ".") != 0 && strcmp(dirent->d_name, "..") != 0 &&
		    remove_tree(dirfd(dir), dirent->d_name) != 0)
			result = -1;
	closedir(dir);
	return result == 0 ? io_rmdir(dir_fd, name) : -1;
}

int
home_remove_state(const char *top)
{
	int dir_fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir_fd < 0)
		return -1;
	int status = remove_tree(dir_fd, HOME_DIR_NAME);
	int saved = errno;
	close(dir_fd);
	errno = saved;
	return status;
}

/* The Home that contains dir, if any: a Home inside a Home would record
 * itself. */
static bool
inside_a_home(const char *dir, char *found, size_t size)
{
	struct hearth_location location;
	struct hearth_error error;

	if (locate_by_marker(dir, &location, &error) != 0)
		return false;
	snprintf(found, size, "%s", location.config_path);
	return true;
}

/* A Home above another would record the other's store and roll it back. */
static int
refuse_above_home(struct hearth_error *error, const char *top, const char *inner)
{
	return hearth_fail(error, HEARTH_FAILED, "%s holds another Home (its state is %s/%s); "
	    "a Home cannot hold another: move it out first, or make a Home beside it", top, top,
	    inner);
}

/* A new Home's id, or the one clone was given. */
static int
choose_home_id(const char *given, uint8_t out[ID_BYTES], struct hearth_error *error)
{
	if (given == NULL) {
		home_random(out, ID_BYTES);
		return 0;
	}
	if (!hex_decode(given, out, ID_BYTES))
		return hearth_fail(error, HEARTH_USAGE, "'%s' is not a Home id", given);
	return 0;
}

/* The config of a single-root Home, at path (top/.hearth/config.yaml),
 * through the I/O seam like every other write of init. */
static int
write_single_root_config(const char *path, const struct config_peer *origin,
    struct hearth_error *error)
{
	char message[4096], folder[PATH_MAX + 64];
	size_t length;
	char *text = config_format_single_root(path, "..", ".", origin, &length, message,
	    sizeof message);

	if (text == NULL)
		return hearth_fail(error, HEARTH_FAILED, "%s", message);
	snprintf(folder, sizeof folder, "%s", path);
	*strrchr(folder, '/') = '\0';
	int dir_fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int status = dir_fd < 0 ? hearth_fail_errno(error, "cannot open %s", folder)
				: write_file_atomically(dir_fd, "config.yaml", text, error, path);
	/* So the rename itself survives a crash. */
	if (status == 0 && io_fsync(dir_fd) != 0)
		status = hearth_fail_errno(error, "%s: written, but its folder could not be synced",
		    path);
	if (dir_fd >= 0)
		close(dir_fd);
	free(text);
	return status;
}

/* A top's .hearth already there: the Home a setup that did not finish
 * left, which this one finishes (*resume), or takes away when it holds
 * nothing but that setup's first steps; else a Home, refused. */
static int
single_root_before(const char *top, const char *path, enum setup_kind kind,
    const char *given_id, bool *resume, struct hearth_error *error)
{
	char marker[PATH_MAX + 128];
	uint8_t home_id[ID_BYTES], given[ID_BYTES];
	int64_t pending;

	*resume = false;
	snprintf(marker, sizeof marker, "%.*s/" HOME_MARKER_NAME, PATH_MAX + 64, path);
	if (access(path, F_OK) != 0)
		return 0;
	if (access(marker, F_OK) != 0) {
		if (setup_half_made(path) && home_remove_state(top) == 0)
			return 0;
		return hearth_fail(error, HEARTH_FAILED, "%s is a Home already, or was made by "
		    "something else (%s exists, without a root marker); nothing was changed", top,
		    path);
	}
	if (setup_probe_store(path, home_id, &pending) == SETUP_STORE && pending == kind &&
	    (given_id == NULL || (hex_decode(given_id, given, ID_BYTES) &&
		memcmp(given, home_id, ID_BYTES) == 0))) {
		*resume = true;
		return 0;
	}
	if (pending != SETUP_DONE)
		return hearth_fail(error, HEARTH_FAILED, "%s: the %s that made this Home did not "
		    "finish; run that %s again to finish it", top, setup_kind_name(pending),
		    setup_kind_name(pending));
	return hearth_fail(error, HEARTH_FAILED, "%s is a Home already (%s exists)", top, path);
}

static int
init_single_root(const char *dir, const char *given_id, const struct config_peer *origin,
    struct hearth_error *error)
{
	char top[PATH_MAX], path[PATH_MAX + 64], found[4096];
	uint8_t home_id[ID_BYTES];
	char home_hex[ID_HEX];
	enum setup_kind kind = given_id != NULL ? SETUP_CLONE : SETUP_INIT;
	bool resume;

	if (io_mkdir(AT_FDCWD, dir, 0755) != 0 && errno != EEXIST)
		return hearth_fail_errno(error, "cannot make %s", dir);
	if (realpath(dir, top) == NULL || !is_directory(top))
		return hearth_fail(error, HEARTH_FAILED, "%s is not a folder", dir);
	snprintf(path, sizeof path, "%s/" HOME_DIR_NAME, top);
	if (single_root_before(top, path, kind, given_id, &resume, error) != 0)
		return error->code;
	/* The marker was the last step: only the store's mark is left. */
	if (resume)
		return kind == SETUP_INIT ? setup_finish(path, error) : 0;
	if (inside_a_home(top, found, sizeof found))
		return hearth_fail(error, HEARTH_FAILED,
		    "%s is inside the Home whose config is %s; a Home cannot hold another", top, found);
	if (layout_find_inner_home(top, found, sizeof found))
		return refuse_above_home(error, top, found);

	if (choose_home_id(given_id, home_id, error) != 0)
		return error->code;
	hex_encode(home_id, ID_BYTES, home_hex);
	/* Relative to the config's own folder (top/.hearth), so the Home can
	 * be moved or renamed as a whole. The marker last: until it exists,
	 * nothing takes this folder for a Home, and a killed init leaves
	 * what the next one takes away (single_root_before). */
	char config[PATH_MAX + 64];
	snprintf(config, sizeof config, "%s/" HOME_DIR_NAME "/config.yaml", top);
	if (make_state(path, home_id, DURABILITY_GROUP, kind, error) == 0 &&
	    write_single_root_config(config, origin, error) == 0 &&
	    marker_write(top, home_hex, "main", HOME_DIR_NAME "/config.yaml", HOME_DIR_NAME,
		error) == 0 &&
	    (kind == SETUP_CLONE || setup_finish(path, error) == 0))
		return 0;
	/* .hearth was not there before: all of it is this init's, and a
	 * half-made Home would only make the next try refuse. */
	if (home_remove_state(top) != 0) {
		char first[HEARTH_ERROR_MAX];
		snprintf(first, sizeof first, "%s", error->message);
		hearth_fail(error, error->code, "%s; and %s could not be removed (%s): remove it "
		    "before trying again", first, path, strerror(errno));
	}
	return error->code;
}

/* A joined Home's state folder already holding a store: a setup of the
 * same kind (and Home) that did not finish is finished (*resume, with its
 * Home id); one a kill cut short before it had an id is made afresh; any
 * other store is a Home, refused. */
static int
joined_state_before(const struct config *config, enum setup_kind kind, const char *given_id,
    uint8_t home_id[ID_BYTES], bool *resume, struct hearth_error *error)
{
	uint8_t given[ID_BYTES];
	int64_t pending;

	*resume = false;
	switch (setup_probe_store(config->state, home_id, &pending)) {
	case SETUP_NO_STORE:
		return 0;
	case SETUP_HALF_STORE:
		return setup_remove_store(config->state) == 0 ? 0
		    : hearth_fail_errno(error, "cannot remove the store a stopped init left in %s",
			config->state);
	case SETUP_STORE:
		if (pending == kind && (given_id == NULL || (hex_decode(given_id, given, ID_BYTES) &&
			memcmp(given, home_id, ID_BYTES) == 0))) {
			*resume = true;
			return 0;
		}
		if (pending != SETUP_DONE)
			return hearth_fail(error, HEARTH_FAILED, "%s: the %s that made this Home did not "
			    "finish; run that %s again to finish it", config->state,
			    setup_kind_name(pending), setup_kind_name(pending));
		break;
	case SETUP_FOREIGN:
		break;
	}
	return hearth_fail(error, HEARTH_FAILED, "%s/store.db already exists: this is a Home "
	    "already", config->state);
}

/* A root that may take this Home's marker: none yet, or (finishing a
 * setup) this Home's own for this root. */
static int
joined_root_before(const struct config_root *root, bool resume, const char *home_hex,
    struct hearth_error *error)
{
	char marker_path[PATH_MAX + 32];
	struct hearth_error failure;
	char inner[PATH_MAX];
	struct marker marker;

	snprintf(marker_path, sizeof marker_path, "%s/" HOME_DIR_NAME "/" HOME_MARKER_NAME,
	    root->path);
	if (access(marker_path, F_OK) == 0 && !(resume &&
		marker_read(root->path, &marker, &failure) == 0 &&
		strcmp(marker.home, home_hex) == 0 && strcmp(marker.root, root->name) == 0))
		return hearth_fail(error, HEARTH_FAILED,
		    "root '%s' (%s) already belongs to a Home (%s exists)", root->name, root->path,
		    marker_path);
	if (layout_find_inner_home(root->path, inner, sizeof inner))
		return refuse_above_home(error, root->path, inner);
	return 0;
}

static int
init_joined(const char *config_path, const char *given_id, struct hearth_error *error)
{
	char message[4096], absolute[PATH_MAX];
	struct config *config = config_load(config_path, message, sizeof message);
	uint8_t home_id[ID_BYTES];
	char home_hex[ID_HEX];
	enum setup_kind kind = given_id != NULL ? SETUP_CLONE : SETUP_INIT;
	bool resume = false;
	int status = 0;

	if (config == NULL)
		return hearth_fail(error, HEARTH_FAILED, "%s", message);
	if (realpath(config_path, absolute) == NULL)
		snprintf(absolute, sizeof absolute, "%s", config_path);
	if (config->root_count == 0 || config->state == NULL || config->state[0] == '\0') {
		status = hearth_fail(error, HEARTH_FAILED,
		    "%s: a joined Home needs 'roots:' and 'state:'", config_path);
		goto done;
	}
	if ((status = hearth_validate_config(config, error)) != 0 ||
	    (status = joined_state_before(config, kind, given_id, home_id, &resume, error)) != 0)
		goto done;
	if (!resume && (status = choose_home_id(given_id, home_id, error)) != 0)
		goto done;
	hex_encode(home_id, ID_BYTES, home_hex);
	for (size_t i = 0; i < config->root_count && status == 0; i++)
		status = joined_root_before(&config->roots[i], resume, home_hex, error);
	if (status != 0)
		goto done;
	/* The store first, marked unfinished: a kill or a failure from here
	 * on leaves what the same init finishes (joined_state_before). */
	if (!resume && (status = make_state(config->state, home_id, config->durability, kind,
			    error)) != 0)
		goto done;
	for (size_t i = 0; i < config->root_count && status == 0; i++) {
		if (io_mkdir(AT_FDCWD, config->roots[i].path, 0755) != 0 && errno != EEXIST) {
			status = hearth_fail_errno(error, "cannot make root '%s' at %s",
			    config->roots[i].name, config->roots[i].path);
			break;
		}
		status = marker_write(config->roots[i].path, home_hex, config->roots[i].name,
		    absolute, config->state, error);
	}
	if (status == 0 && kind == SETUP_INIT)
		status = setup_finish(config->state, error);
	if (status != 0) {
		char first[HEARTH_ERROR_MAX];
		snprintf(first, sizeof first, "%s", error->message);
		hearth_fail(error, error->code, "%s; the Home is not made yet: once that is mended, "
		    "the same %s run again finishes it", first, setup_kind_name(kind));
	}
done:
	config_free(config);
	return status;
}

int
hearth_init(const struct hearth_init_options *options, struct hearth_error *error)
{
	hearth_error_clear(error);
	if (options->config_path != NULL)
		return init_joined(options->config_path, options->home_id, error);
	if (options->dir == NULL || options->dir[0] == '\0')
		return hearth_fail(error, HEARTH_USAGE, "init needs a folder");
	struct config_peer origin = {
		.name = (char *)"origin", .url = (char *)options->origin,
		.remote_command = (char *)options->origin_remote_command,
		.ssh_command = (char *)options->origin_ssh_command,
	};
	return init_single_root(options->dir, options->home_id,
	    options->origin != NULL ? &origin : NULL, error);
}

/* ---- opening a Home --------------------------------------------------------------- */

/* A missing, unmounted or foreign root: remembered, so every command that
 * touches the tree fails closed (docs/DESIGN.md §6) while history stays readable. */
static int
check_root(struct hearth *home, struct home_root *root, const char *home_hex,
    struct hearth_error *error)
{
	struct marker marker;
	struct hearth_error failure;

	if (!is_directory(root->path))
		return hearth_fail(error, HEARTH_FAILED,
		    "root '%s' is missing: %s is not there (unmounted or moved?); "
		    "nothing was changed. Mount it again, then retry", root->name, root->path);
	if (marker_read(root->path, &marker, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED,
		    "root '%s' at %s has no valid marker (%s); nothing was changed. "
		    "Is the right disk mounted there?", root->name, root->path, failure.message);
	if (strcmp(marker.home, home_hex) != 0 || strcmp(marker.root, root->name) != 0)
		return hearth_fail(error, HEARTH_FAILED,
		    "root '%s' at %s belongs to another Home or root (its marker names "
		    "home %.8s, root '%s'); nothing was changed", root->name, root->path,
		    marker.home, marker.root);
	root->fd = open(root->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root->fd < 0)
		return hearth_fail_errno(error, "cannot open root '%s' at %s", root->name, root->path);
	(void)home;
	return 0;
}

static int
check_roots(struct hearth *home, struct hearth_error *error)
{
	char home_hex[ID_HEX];

	hex_encode(home->home_id, ID_BYTES, home_hex);
	home->root_count = home->config->root_count;
	home->roots = array_zeroed(home->root_count, sizeof *home->roots);
	hearth_error_clear(&home->root_problem);
	for (size_t i = 0; i < home->root_count; i++) {
		struct home_root *root = &home->roots[i];
		struct hearth_error problem;
		root->name = home->config->roots[i].name;
		root->path = home->config->roots[i].path;
		root->fd = -1;
		if (check_root(home, root, home_hex, &problem) != 0 &&
		    home->root_problem.code == HEARTH_OK)
			home->root_problem = problem;
	}
	return 0;
}

/* Whether a root is still what was opened: the same folder at its path. */
static bool
root_unchanged(const struct home_root *root)
{
	struct stat at_path, held;

	return root->fd >= 0 && stat(root->path, &at_path) == 0 && fstat(root->fd, &held) == 0 &&
	    at_path.st_dev == held.st_dev && at_path.st_ino == held.st_ino;
}

/* Looked at again on every call, not only at open: the app and a watch
 * live long, and a disk may be unplugged (or come back) meanwhile. A root
 * renamed away keeps its open descriptor valid, so the path is what
 * counts. */
int
home_require_roots(struct hearth *home, struct hearth_error *error)
{
	char home_hex[ID_HEX];

	hex_encode(home->home_id, ID_BYTES, home_hex);
	hearth_error_clear(&home->root_problem);
	for (size_t i = 0; i < home->root_count; i++) {
		struct home_root *root = &home->roots[i];
		struct hearth_error problem;
		if (root_unchanged(root))
			continue;
		if (root->fd >= 0)
			close(root->fd);
		root->fd = -1;
		if (check_root(home, root, home_hex, &problem) != 0 &&
		    home->root_problem.code == HEARTH_OK)
			home->root_problem = problem;
	}
	if (home->root_problem.code == HEARTH_OK)
		return 0;
	*error = home->root_problem;
	return error->code;
}

bool
home_roots_hold_nothing(const struct hearth *home)
{
	for (size_t i = 0; i < home->root_count; i++) {
		int fd = home->roots[i].fd < 0 ? -1
		    : openat(home->roots[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *folder = fd >= 0 ? fdopendir(fd) : NULL;
		if (folder == NULL) {
			if (fd >= 0)
				close(fd);
			return false;
		}
		bool nothing = true;
		for (struct dirent *entry; nothing && (entry = readdir(folder)) != NULL;)
			nothing = strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
			    strcmp(entry->d_name, HOME_DIR_NAME) == 0;
		closedir(folder);
		if (!nothing)
			return false;
	}
	return true;
}

static void
fill_author(struct hearth *home)
{
	const char *user = getenv("USER");
	char host[256] = "localhost";

	if (home->config->author != NULL && home->config->author[0] != '\0') {
		snprintf(home->author, sizeof home->author, "%s", home->config->author);
		return;
	}
	gethostname(host, sizeof host - 1);
	host[sizeof host - 1] = '\0';
	snprintf(home->author, sizeof home->author, "%.100s@%.100s", user && *user ? user : "someone",
	    host);
}

static int
pack_file_name(void *context, int64_t pack, char *out, size_t out_size)
{
	struct hearth *home = context;
	return pack_index_name(&home->store, pack, out, out_size);
}

/* A delta's base, for the pack reader. */
static int
pack_locate(void *context, const struct hash *chunk, struct pack_location *out)
{
	struct hearth *home = context;
	return store_chunk_find(&home->store, chunk, out) == 1 ? 0 : -1;
}

static int
open_state(struct hearth *home, bool setup, struct hearth_error *error)
{
	char path[PATH_MAX + 32];
	struct hearth_error failure;

	snprintf(path, sizeof path, "%s/store.db", home->location.state_path);
	/* Where a write that fails for space is said to fail, until one names
	 * its own file (space.h). */
	space_note_path(home->location.state_path);
	if (!is_file(path))
		return hearth_fail(error, HEARTH_FAILED,
		    "no store at %s: the state folder is missing or was moved; nothing was changed",
		    path);
	if (store_open(&home->store, path, false, home->config->durability, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	if (store_meta_get_blob(&home->store, "home", home->home_id, ID_BYTES) != 0 ||
	    store_meta_get_blob(&home->store, "replica", home->replica.bytes, ID_BYTES) != 0)
		return hearth_fail(error, HEARTH_DAMAGED, "%s: no home or replica id in the store",
		    path);
	home->replica_number = store_replica_number(&home->store, home->replica, false);
	if (home->replica_number <= 0)
		return hearth_fail(error, HEARTH_DAMAGED, "%s: this replica is not in its own store",
		    path);
	int64_t pending = SETUP_DONE;
	store_meta_get_int(&home->store, "setup_pending", &pending);
	if (pending != SETUP_DONE && !setup)
		return hearth_fail(error, HEARTH_FAILED, "the %s that made this Home did not finish "
		    "(%s); run the same %s again to finish it", setup_kind_name(pending), path,
		    setup_kind_name(pending));
	home->state_fd = open(home->location.state_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(home->packs_path, sizeof home->packs_path, "%s/packs", home->location.state_path);
	home->packs_fd = open(home->packs_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (home->state_fd < 0 || home->packs_fd < 0)
		return hearth_fail_errno(error, "cannot open %s", home->packs_path);
	home->reader = pack_reader_new(home->packs_fd, home->packs_path, pack_file_name, home);
	if (home->reader != NULL)
		pack_reader_set_locate(home->reader, pack_locate);
	return 0;
}

/* Each entry of a list of patterns compiles alone (so an error names it). */
static int
check_pattern_list(const char *file, const char *key, char *const *list, size_t count,
    struct hearth_error *error)
{
	char message[1024];

	for (size_t i = 0; i < count; i++) {
		const char *one = list[i];
		struct ignore_set *single = ignore_compile(&one, 1, message, sizeof message);
		if (single == NULL)
			return hearth_fail(error, HEARTH_FAILED, "%s: %s: entry %zu (\"%s\"): %s", file,
			    key, i + 1, list[i], message);
		ignore_free(single);
	}
	return 0;
}

static struct ignore_set *
compile_patterns(const struct config *config, struct hearth_error *error)
{
	const char *file = config->source_path ? config->source_path : "config";
	char message[1024];

	if (check_pattern_list(file, "never_merge", config->never_merge, config->never_merge_count,
		error) != 0 ||
	    check_pattern_list(file, "always_merge", config->always_merge,
		config->always_merge_count, error) != 0)
		return NULL;

	/* One at a time first, so the error can say which entry is wrong. */
	for (size_t i = 0; i < config->ignore_count; i++) {
		const char *one = config->ignore[i];
		struct ignore_set *single = ignore_compile(&one, 1, message, sizeof message);
		if (single == NULL) {
			hearth_fail(error, HEARTH_FAILED, "%s: ignore: entry %zu (\"%s\"): %s", file, i + 1,
			    config->ignore[i], message);
			return NULL;
		}
		ignore_free(single);
	}
	for (size_t i = 0; i < config->place_count; i++) {
		const char *one = config->place[i].pattern;
		struct ignore_set *single = ignore_compile(&one, 1, message, sizeof message);
		if (single == NULL) {
			hearth_fail(error, HEARTH_FAILED, "%s: place: entry %zu (\"%s\"): %s", file, i + 1,
			    config->place[i].pattern, message);
			return NULL;
		}
		ignore_free(single);
	}
	struct ignore_set *set = ignore_compile((const char *const *)config->ignore,
	    config->ignore_count, message, sizeof message);
	if (set == NULL)
		hearth_fail(error, HEARTH_FAILED, "%s: ignore: %s", file, message);
	return set;
}

int
hearth_validate_config(const struct config *config, struct hearth_error *error)
{
	hearth_error_clear(error);
	struct ignore_set *set = compile_patterns(config, error);
	if (set == NULL)
		return error->code;
	ignore_free(set);
	return layout_check(config, error);
}

static int
compile_ignore(struct hearth *home, struct hearth_error *error)
{
	home->ignore = compile_patterns(home->config, error);
	if (home->ignore == NULL)
		return error->code;
	/* Each place: rule alone, so the first that matches can be told. */
	size_t count = home->config->place_count;
	home->place = array_zeroed(count, sizeof *home->place);
	for (size_t i = 0; i < count; i++) {
		const char *pattern = home->config->place[i].pattern;
		char message[256];
		home->place[i] = ignore_compile(&pattern, 1, message, sizeof message);
		if (home->place[i] == NULL)
			return hearth_fail(error, HEARTH_FAILED, "place: entry %zu: %s", i + 1, message);
	}
	return 0;
}

static int
root_index(const struct hearth *home, const char *name)
{
	for (size_t i = 0; name != NULL && i < home->root_count; i++)
		if (strcmp(home->roots[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
home_place_root(const struct hearth *home, const char *root_name, const char *path, bool is_dir)
{
	int named = root_index(home, root_name);

	if (named >= 0)
		return named;
	for (size_t i = 0; i < home->config->place_count; i++) {
		if (home->place[i] == NULL || !ignore_match(home->place[i], path, is_dir))
			continue;
		int chosen = root_index(home, home->config->place[i].root);
		if (chosen >= 0)
			return chosen;
	}
	return 0;
}

/* Homes made before folder ids moved into xattrs carry a .hearth-id file in
 * every folder: moved into the folders' xattrs once, by the first command
 * that opens the Home (ids kept, so a rename before or after is a move).
 * Best effort under the write lock: what cannot be done now (another
 * writer busy, a full disk) is tried again at the next open, and the
 * markers read as ids meanwhile. */
static void
migrate_markers(struct hearth *home)
{
	struct hearth_error ignored;
	int64_t done = 0;
	bool all = true;

	if ((store_meta_get_int(&home->store, "folder_ids", &done) == 0 &&
		done >= FOLDER_IDS_IN_XATTRS) ||
	    home->root_problem.code != HEARTH_OK || home_lock(home, "upgrade", &ignored) != 0)
		return;
	for (size_t i = 0; i < home->root_count; i++)
		all &= identity_migrate_root(home->roots[i].fd);
	if (all)
		(void)store_meta_set_int(&home->store, "folder_ids", FOLDER_IDS_IN_XATTRS);
	home_unlock(home);
}

static int
open_home(hearth **out, const struct hearth_open_options *options, bool setup,
    struct hearth_error *error)
{
	struct hearth *home = array_zeroed(1, sizeof *home);
	char message[4096];

	*out = NULL;
	home->state_fd = home->packs_fd = home->lock_fd = -1;
	if (hearth_locate(options, &home->location, error) != 0)
		goto failed;
	home->config = config_load(home->location.config_path, message, sizeof message);
	if (home->config == NULL) {
		hearth_fail(error, HEARTH_FAILED, "%s", message);
		goto failed;
	}
	if (home->config->root_count == 0) {
		hearth_fail(error, HEARTH_FAILED, "%s: no 'roots:'; a Home needs at least one",
		    home->location.config_path);
		goto failed;
	}
	if (open_state(home, setup, error) != 0 || check_roots(home, error) != 0 ||
	    compile_ignore(home, error) != 0)
		goto failed;
	migrate_markers(home);
	fill_author(home);
	home->write_bytes_at_start = home_bytes_written();
	*out = home;
	return 0;
failed:
	hearth_close(home);
	return error->code;
}

int
hearth_open(hearth **out, const struct hearth_open_options *options, struct hearth_error *error)
{
	return open_home(out, options, false, error);
}

int
home_open_setup(hearth **out, const struct hearth_open_options *options,
    struct hearth_error *error)
{
	return open_home(out, options, true, error);
}

void
hearth_close(hearth *home)
{
	if (home == NULL)
		return;
	prefill_free(home->prefill);
	home_unlock(home);
	if (home->reader != NULL)
		pack_reader_free(home->reader);
	store_close(&home->store);
	for (size_t i = 0; home->roots != NULL && i < home->root_count; i++)
		if (home->roots[i].fd >= 0)
			close(home->roots[i].fd);
	free(home->roots);
	free(home->former);
	free(home->stopped_live);
	if (home->state_fd >= 0)
		close(home->state_fd);
	if (home->packs_fd >= 0)
		close(home->packs_fd);
	if (home->ignore != NULL)
		ignore_free(home->ignore);
	for (size_t i = 0; home->place != NULL && i < home->config->place_count; i++)
		if (home->place[i] != NULL)
			ignore_free(home->place[i]);
	free(home->place);
	config_free(home->config);
	free(home);
}

const struct config *
hearth_config(const hearth *home)
{
	return home->config;
}

/* ---- the write lock -------------------------------------------------------------- */

static void
describe_holder(int fd, char *out, size_t size)
{
	char text[256] = "";
	ssize_t got = pread(fd, text, sizeof text - 1, 0);

	if (got > 0) {
		text[got] = '\0';
		text[strcspn(text, "\n")] = '\0';
	}
	snprintf(out, size, "%s", text[0] ? text : "a process that did not say");
}

int
home_lock(struct hearth *home, const char *command, struct hearth_error *error)
{
	bool held = home->lock_fd >= 0;
	int status = home_take_lock(home, command, error);

	if (status != 0 || held)
		return status;
	if ((status = replica_check_copy(home, error)) != 0)
		home_unlock(home);
	return status;
}

int
home_take_lock(struct hearth *home, const char *command, struct hearth_error *error)
{
	const char *wait_text = getenv("HEARTH_LOCK_WAIT_MS");
	long wait_ms = wait_text ? strtol(wait_text, NULL, 10) : LOCK_WAIT_MS;
	char holder[256], text[256];

	if (home->lock_fd >= 0)
		return 0;
	int fd = io_open(home->state_fd, "lock", O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return hearth_fail_errno(error, "cannot open %s/lock", home->location.state_path);
	for (long waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 50) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			close(fd);
			return hearth_fail_errno(error, "cannot lock %s/lock", home->location.state_path);
		}
		if (waited >= wait_ms) {
			describe_holder(fd, holder, sizeof holder);
			close(fd);
			return hearth_fail(error, HEARTH_LOCKED,
			    "another hearth is writing to this Home (%s); waited %.1f s. "
			    "Try again when it is done", holder, wait_ms / 1000.0);
		}
		struct timespec pause = { 0, 50 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	/* A holder that died left its name in the file: clear up after it. */
	char previous[256];
	ssize_t got = pread(fd, previous, sizeof previous, 0);
	home->lock_fd = fd;
	if (got > 0)
		home_collect_garbage(home);
	snprintf(text, sizeof text, "pid %d, hearth %s\n", (int)getpid(), command);
	/* Who holds it is a courtesy for the next process's message; the lock
	 * itself is the flock, so a failed write here changes nothing. */
	if (io_ftruncate(fd, 0) == 0)
		(void)io_pwrite_all(fd, text, strlen(text), 0);
	return 0;
}

void
home_unlock(struct hearth *home)
{
	if (home->lock_fd < 0)
		return;
	/* Empty means "left cleanly"; see home_lock. */
	(void)io_ftruncate(home->lock_fd, 0);
	/* Unlocked by name: a close releases the flock only with the last
	 * descriptor of its open file, and the power-loss simulator keeps a
	 * duplicate of every file written (io_powerloss.c), this one too. */
	flock(home->lock_fd, LOCK_UN);
	close(home->lock_fd);
	home->lock_fd = -1;
}

/* An entry of staging named NODE.moved is a file or folder of the tree that
 * a checkout killed mid-way had moved aside: never garbage. It goes back
 * where the index (as that checkout found it: its commit never happened)
 * has it, the folders above made again with their identity if the
 * checkout had removed them. True when name is such an entry; if it cannot
 * go back it stays, rather than be lost. */
static bool
put_back_moved(struct hearth *home, size_t root, int staging_fd, const char *name)
{
	struct node_id chain[256];
	char hex[ID_HEX], path[PATH_MAX], suffix[16];
	size_t depth = 0;
	struct buffer part = { 0 };

	if (sscanf(name, "%32[0-9a-f]%15s", hex, suffix) != 2 || strcmp(suffix, ".moved") != 0 ||
	    !hex_decode(hex, chain[0].bytes, ID_BYTES))
		return false;
	/* The node and its folders, up to the top (chain[depth - 1]). */
	for (depth = 1; depth < 256 && !node_id_equal(chain[depth - 1], NODE_ROOT); depth++)
		if (!scan_index_place(home, chain[depth - 1], true, &chain[depth], NULL))
			break;
	if (depth == 256 || !node_id_equal(chain[depth - 1], NODE_ROOT))
		return true;
	/* Top down: each folder's path, made again if it is gone. */
	path[0] = '\0';
	for (size_t level = depth - 1; level-- > 0;) {
		struct node_id parent;
		if (!scan_index_place(home, chain[level], true, &parent, &part))
			break;
		size_t used = strlen(path);
		snprintf(path + used, sizeof path - used, "%s%s", used ? "/" : "", (const char *)part.data);
		if (level == 0) {
			io_rename_noreplace(staging_fd, name, home->roots[root].fd, path);
			break;
		}
		if (io_mkdir(home->roots[root].fd, path, 0755) == 0)
			identity_write_folder(home->roots[root].fd, path, chain[level]);
	}
	buffer_free(&part);
	return true;
}

/* Removes what an interrupted writer left: pack files the store does not
 * list (its transaction never committed, so nothing refers to them) and
 * staged checkout files; puts back what it had moved aside
 * (put_back_moved). Runs only under the write lock. */
void
home_collect_garbage(struct hearth *home)
{
	int listing = dup(home->packs_fd);
	DIR *dir = listing >= 0 ? fdopendir(listing) : NULL;
	struct dirent *dirent;

	/* A dup shares the folder's read position with packs_fd: from the top. */
	if (dir != NULL)
		rewinddir(dir);

	while (dir != NULL && (dirent = readdir(dir)) != NULL) {
		if (dirent->d_name[0] == '.')
			continue;
		int64_t number;
		bool sealed;
		if (pack_index_find(&home->store, dirent->d_name, &number, &sealed) != 1)
			io_unlink(home->packs_fd, dirent->d_name);
	}
	if (dir != NULL)
		closedir(dir);
	for (size_t i = 0; i < home->root_count; i++) {
		int staging = openat(home->roots[i].fd, HOME_DIR_NAME "/" HOME_STAGING_NAME,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		dir = staging >= 0 ? fdopendir(staging) : NULL;
		while (dir != NULL && (dirent = readdir(dir)) != NULL)
			if (dirent->d_name[0] != '.' && !put_back_moved(home, i, dirfd(dir), dirent->d_name))
				io_unlink(dirfd(dir), dirent->d_name);
		if (dir != NULL)
			closedir(dir);
	}
}

/* ---- paths as users type them ------------------------------------------------------ */

static bool
path_below(const char *path, const char *folder, const char **rest)
{
	size_t length = strlen(folder);

	if (strcmp(folder, "/") == 0) {
		*rest = path + 1;
		return true;
	}
	if (strncmp(path, folder, length) != 0 || (path[length] != '/' && path[length] != '\0'))
		return false;
	*rest = path[length] == '/' ? path + length + 1 : path + length;
	return true;
}

/* Resolves the longest leading part of absolute that exists (symlinks and
 * all) and appends the rest as typed: a deleted file or folder can still be
 * named, and its last component is never followed. */
static int
resolve_existing_prefix(const char *absolute, char *out, size_t size)
{
	char prefix[PATH_MAX * 2], resolved[PATH_MAX];

	snprintf(prefix, sizeof prefix, "%s", absolute);
	for (;;) {
		char *slash = strrchr(prefix, '/');
		if (slash == NULL)
			return -1;
		const char *rest = absolute + (slash - prefix);
		*slash = '\0';
		if (realpath(prefix[0] ? prefix : "/", resolved) != NULL) {
			/* What does not exist cannot be resolved: refuse to guess. */
			for (const char *part = rest; *part == '/'; part += strcspn(part + 1, "/") + 1)
				if (strncmp(part, "/..", 3) == 0 && (part[3] == '/' || part[3] == '\0'))
					return -1;
			if ((size_t)snprintf(out, size, "%s%s", strcmp(resolved, "/") == 0 ? "" : resolved,
				rest) >= size)
				return -1;
			return 0;
		}
	}
}

int
hearth_home_path(hearth *home, const char *user_path, char *out, size_t out_size,
    struct hearth_error *error)
{
	char absolute[PATH_MAX * 2], resolved[PATH_MAX * 3];
	const char *rest;

	if (user_path[0] == '/') {
		snprintf(absolute, sizeof absolute, "%s", user_path);
	} else {
		char here[PATH_MAX];
		if (getcwd(here, sizeof here) == NULL)
			return hearth_fail_errno(error, "cannot tell the current folder");
		snprintf(absolute, sizeof absolute, "%s/%s", here, user_path);
	}
	size_t length = strlen(absolute);
	while (length > 1 && absolute[length - 1] == '/')
		absolute[--length] = '\0';
	/* "." and ".." at the end name folders: resolve them whole. */
	const char *last = strrchr(absolute, '/') + 1;
	if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
		char whole[PATH_MAX];
		if (realpath(absolute, whole) == NULL)
			return hearth_fail_errno(error, "cannot resolve %s", user_path);
		snprintf(resolved, sizeof resolved, "%s", whole);
	} else if (resolve_existing_prefix(absolute, resolved, sizeof resolved) != 0) {
		return hearth_fail(error, HEARTH_USAGE, "cannot make sense of the path %s", user_path);
	}
	for (size_t i = 0; i < home->root_count; i++) {
		if (!path_below(resolved, home->roots[i].path, &rest))
			continue;
		snprintf(out, out_size, "%s", rest);
		if (strncmp(out, HOME_DIR_NAME, strlen(HOME_DIR_NAME)) == 0 &&
		    (out[strlen(HOME_DIR_NAME)] == '\0' || out[strlen(HOME_DIR_NAME)] == '/'))
			return hearth_fail(error, HEARTH_USAGE, "%s is hearth's own folder, never recorded",
			    user_path);
		return 0;
	}
	/* Typed from outside every root, a relative path means the Home's. */
	if (user_path[0] != '/' && strstr(user_path, "..") == NULL) {
		const char *relative = user_path;
		while (strncmp(relative, "./", 2) == 0)
			relative += 2;
		snprintf(out, out_size, "%s", strcmp(relative, ".") == 0 ? "" : relative);
		size_t end = strlen(out);
		while (end > 0 && out[end - 1] == '/')
			out[--end] = '\0';
		return 0;
	}
	return hearth_fail(error, HEARTH_USAGE, "%s is outside the Home (%s)", user_path,
	    home->roots[0].path);
}
