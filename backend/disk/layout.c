/* Layouts that cannot work (docs/DESIGN.md §6): a state folder inside a root would
 * record its own store, roots that nest would hold one file twice, and a
 * Home inside another would have its store recorded and rolled back by the
 * outer one. Found here before init makes anything, and while scanning. */
#include "backend/disk/layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/disk/home.h"
#include "backend/store/store.h"
#include "model/array.h"

/* An absolute path with its longest existing leading part resolved
 * (symlinks and all) and the rest kept as written: roots may not exist
 * yet when init checks them. */
static void
resolve_path(const char *path, char *out, size_t size)
{
	char prefix[PATH_MAX], resolved[PATH_MAX];

	snprintf(prefix, sizeof prefix, "%s", path);
	for (;;) {
		if (realpath(prefix[0] ? prefix : "/", resolved) != NULL) {
			const char *rest = path + strlen(prefix);
			snprintf(out, size, "%s%s", strcmp(resolved, "/") == 0 && rest[0] == '/' ? "" :
			    resolved, rest);
			return;
		}
		char *slash = strrchr(prefix, '/');
		if (slash == NULL) {
			snprintf(out, size, "%s", path);
			return;
		}
		*slash = '\0';
	}
}

/* Whether path is folder or below it (both resolved). */
static bool
is_within(const char *path, const char *folder)
{
	size_t length = strlen(folder);

	if (strcmp(folder, "/") == 0)
		return true;
	return strncmp(path, folder, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

int
layout_check(const struct config *config, struct hearth_error *error)
{
	const char *file = config->source_path ? config->source_path : "config";
	char (*roots)[PATH_MAX] = array_zeroed(config->root_count, PATH_MAX);
	char state[PATH_MAX];
	int status = 0;

	for (size_t i = 0; i < config->root_count; i++)
		resolve_path(config->roots[i].path, roots[i], PATH_MAX);
	for (size_t i = 0; status == 0 && i < config->root_count; i++)
		for (size_t j = 0; status == 0 && j < config->root_count; j++) {
			const char *a = config->roots[i].name, *b = config->roots[j].name;
			if (j > i && strcmp(roots[i], roots[j]) == 0)
				status = hearth_fail(error, HEARTH_FAILED, "%s: roots '%s' and '%s' are one "
				    "folder (%s); each root must be a folder of its own", file, a, b,
				    roots[i]);
			else if (j != i && strcmp(roots[i], roots[j]) != 0 && is_within(roots[j], roots[i]))
				status = hearth_fail(error, HEARTH_FAILED, "%s: root '%s' (%s) lies inside root "
				    "'%s' (%s); roots cannot nest, or their files would be recorded twice",
				    file, b, roots[j], a, roots[i]);
		}
	if (status == 0 && config->state != NULL && config->state[0] != '\0') {
		resolve_path(config->state, state, sizeof state);
		for (size_t i = 0; status == 0 && i < config->root_count; i++) {
			char own[PATH_MAX + 16];
			snprintf(own, sizeof own, "%s/" HOME_DIR_NAME, strcmp(roots[i], "/") == 0 ? "" :
			    roots[i]);
			/* ROOT/.hearth is never recorded: the one place inside a root
			 * a store may live. */
			if (strcmp(state, roots[i]) == 0)
				status = hearth_fail(error, HEARTH_FAILED, "%s: the state folder %s is root "
				    "'%s'; every record would version the store itself. Put the state "
				    "outside the roots, or in %s", file, state, config->roots[i].name, own);
			else if (is_within(state, roots[i]) && !is_within(state, own))
				status = hearth_fail(error, HEARTH_FAILED, "%s: the state folder %s is inside "
				    "root '%s' (%s); every record would version the store itself. Put it "
				    "outside the roots, or in %s", file, state, config->roots[i].name,
				    roots[i], own);
		}
	}
	free(roots);
	return status;
}

/* Whether fd (a regular file in folder) is hearth's store: a SQLite
 * database with hearth's application_id (the header's bytes 68..71,
 * big-endian), or, before a young store's first checkpoint moves that
 * into the file (WAL mode), one with packs/ beside it. */
static bool
is_hearth_store(int folder, int fd)
{
	unsigned char header[72];
	struct stat packs;

	if (pread(fd, header, sizeof header, 0) != (ssize_t)sizeof header ||
	    memcmp(header, "SQLite format 3", 16) != 0)
		return false;
	uint32_t id = (uint32_t)header[68] << 24 | (uint32_t)header[69] << 16 |
	    (uint32_t)header[70] << 8 | header[71];
	return id == STORE_APPLICATION_ID || (id == 0 &&
	    fstatat(folder, "packs", &packs, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(packs.st_mode));
}

bool
layout_may_be_home_state(int dir_fd, const char *name)
{
	struct stat status;

	/* Every folder of every walk is asked: one lstat of name/store.db
	 * tells most of them "no" (no regular file there, which the open
	 * in layout_is_home_state would refuse too), in place of two opens
	 * and a close. */
	if (strcmp(name, HOME_DIR_NAME) == 0)
		return true;
	char below[NAME_MAX + 16];
	int length = snprintf(below, sizeof below, "%s/store.db", name);
	return length <= 0 || (size_t)length >= sizeof below ||
	    (fstatat(dir_fd, below, &status, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(status.st_mode));
}

bool
layout_is_home_state(int dir_fd, const char *name)
{
	struct stat status;
	bool state = false;

	if (!layout_may_be_home_state(dir_fd, name))
		return false;
	int folder = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (folder < 0)
		return false;
	/* A root marker: .hearth/root, in the folder a Home's root keeps. */
	if (strcmp(name, HOME_DIR_NAME) == 0 &&
	    fstatat(folder, HOME_MARKER_NAME, &status, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(status.st_mode))
		state = true;
	if (!state) {
		int store = openat(folder, "store.db", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (store >= 0 && fstat(store, &status) == 0 && S_ISREG(status.st_mode))
			state = is_hearth_store(folder, store);
		if (store >= 0)
			close(store);
	}
	close(folder);
	return state;
}

/* Depth first below folder (path is its name, relative to the top). */
static bool
find_below(int folder, char *path, size_t size)
{
	int fd = dup(folder);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *dirent;
	bool found = false;
	size_t used = strlen(path);

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (dirent = readdir(dir)) != NULL) {
		const char *name = dirent->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (dirent->d_type != DT_DIR && dirent->d_type != DT_UNKNOWN)
			continue;
		/* The top's own .hearth: the Home being made or finished. */
		if (used == 0 && strcmp(name, HOME_DIR_NAME) == 0)
			continue;
		if ((size_t)snprintf(path + used, size - used, "%s%s", used ? "/" : "", name) >=
		    size - used)
			continue;
		if (layout_is_home_state(dirfd(dir), name)) {
			found = true;
			break;
		}
		int child = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child >= 0) {
			found = find_below(child, path, size);
			close(child);
		}
	}
	if (!found)
		path[used] = '\0';
	closedir(dir);
	return found;
}

bool
layout_find_inner_home(const char *top, char *found, size_t size)
{
	int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return false;
	found[0] = '\0';
	bool any = find_below(fd, found, size);
	close(fd);
	return any;
}
