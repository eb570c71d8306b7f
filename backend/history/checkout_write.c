/* Writing one path of the working tree, for checkout and export: the
 * folder that holds it reached without following links, and a node's
 * content written there from the store. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/history/blob.h"
#include "backend/history/checkout_parts.h"
#include "backend/disk/prefill.h"
#include "backend/disk/identity.h"
#include "backend/disk/scan.h"
#include "backend/io/io.h"

int
checkout_depth(const char *path)
{
	int depth = 1;
	for (; *path; path++)
		depth += *path == '/';
	return depth;
}

/* ---- reaching a path without following links -------------------------------------- */

/* Every change checkout makes to the tree is made relative to the folder
 * that holds it, opened component by component without following any
 * symlink (scan_open_folder), never through a path string resolved by the
 * kernel at the moment of the write: a folder swapped for a link after the
 * plan was made is refused, not written through. */
int
checkout_open_parent(int dir_fd, const char *path, struct checkout_parent *out)
{
	out->folder = scan_open_parent(dir_fd, path, &out->name);
	return out->folder < 0 ? -1 : 0;
}

/* The error for a path whose folder could not be reached, saying so
 * plainly when a link stood in the way. */
int
checkout_unreachable(struct hearth_error *error, const char *what, const char *path)
{
	if (errno == ELOOP || errno == EXDEV || errno == ENOTDIR)
		return hearth_fail(error, HEARTH_FAILED, "cannot %s %s: a folder on its way is not a "
		    "folder but a link or a file now (changed while checking out?); nothing was "
		    "written through it", what, path);
	return hearth_fail_errno(error, "cannot %s %s", what, path);
}

/* lstat of a path below dir_fd, reached the same way. */
int
checkout_stat(int dir_fd, const char *path, struct stat *out)
{
	struct checkout_parent parent;

	if (checkout_open_parent(dir_fd, path, &parent) != 0)
		return -1;
	int status = fstatat(parent.folder, parent.name, out, AT_SYMLINK_NOFOLLOW);
	int saved = errno;
	close(parent.folder);
	errno = saved;
	return status;
}

void
checkout_folder_cache_init(struct checkout_folder_cache *cache)
{
	cache->path[0] = '\0';
	cache->fd = -1;
}

void
checkout_folder_cache_close(struct checkout_folder_cache *cache)
{
	if (cache->fd >= 0)
		close(cache->fd);
	checkout_folder_cache_init(cache);
}

/* The folder holding name, from the cache when it is the last one; *owned
 * says the caller closes it. */
int
checkout_reach_parent(int dir_fd, const char *name, struct checkout_folder_cache *cache,
    struct checkout_parent *out, bool *owned)
{
	const char *slash = strrchr(name, '/');
	/* A name with no folder above it is in dir_fd itself, already open
	 * (staging's files, an export's top level): nothing to reach. */
	if (slash == NULL) {
		*owned = false;
		out->folder = dir_fd;
		out->name = name;
		return 0;
	}
	*owned = cache == NULL;
	if (cache == NULL)
		return checkout_open_parent(dir_fd, name, out);
	size_t length = (size_t)(slash - name);
	out->name = slash + 1;
	if (cache->fd >= 0 && strlen(cache->path) == length &&
	    memcmp(cache->path, name, length) == 0) {
		out->folder = cache->fd;
		return 0;
	}
	if (checkout_open_parent(dir_fd, name, out) != 0)
		return -1;
	checkout_folder_cache_close(cache);
	memcpy(cache->path, name, length);	/* shorter than PATH_MAX: it opened */
	cache->path[length] = '\0';
	cache->fd = out->folder;
	return 0;
}

void
checkout_release_parent(struct checkout_parent *parent, bool owned)
{
	int saved = errno;
	if (owned)
		close(parent->folder);
	errno = saved;
}

/* Writes a node's content into staging as a file (or link) ready to be
 * renamed into place, or for export where it stays. */
int
checkout_write_content(struct hearth *home, int dir_fd, const char *name,
    const struct tree_node *node, const struct checkout_write_how *how,
    struct hearth_error *error)
{
	struct checkout_parent parent;
	bool owned;
	if (checkout_reach_parent(dir_fd, name, how->folders, &parent, &owned) != 0)
		return checkout_unreachable(error, "create", name);
	if (node->kind == NODE_SYMLINK) {
		struct buffer target;
		bool truncated;
		buffer_init(&target);
		int status = blob_read(home, &node->blob, 4096, &target, &truncated, error);
		if (status == 0 && io_symlink(buffer_string(&target), parent.folder, parent.name) != 0)
			status = hearth_fail_errno(error, "cannot make link %s", name);
		buffer_free(&target);
		checkout_release_parent(&parent, owned);
		return status;
	}
	/* Made with its permission bits where they let its owner read and
	 * write it (the id's xattr needs write permission, for its owner as
	 * for anyone): where the umask leaves them as they are, no fchmod
	 * follows, one call a file fewer. Any other mode is set at the end. A
	 * clone's prefilled file (prefill.h) comes whole, made with 0600. */
	mode_t mode = node->mode & 07777;
	bool content = node->has_content && node->size > 0;
	bool prefilled = how->prefill != NULL && content &&
	    prefill_take(how->prefill, &node->blob, node->size, parent.folder, parent.name);
	bool mode_kept = prefilled ? mode == 0600
				   : how->umask_known && mode <= 0777 && (mode & 0600) == 0600 &&
	    (mode & ~how->umask) == mode;
	int fd = prefilled ? io_open(parent.folder, parent.name, O_WRONLY | O_NOFOLLOW, 0)
			   : io_open(parent.folder, parent.name,
				 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode_kept ? mode : 0600);
	if (fd < 0) {
		int saved = errno;
		if (prefilled)
			io_unlink(parent.folder, parent.name);
		checkout_release_parent(&parent, owned);
		errno = saved;
		return hearth_fail_errno(error, "cannot create %s", name);
	}
	int status = 0;
	if (!prefilled && content)
		status = blob_write_sparse_placed(home, &node->blob, how->place, fd, how->meter,
		    how->writeback, error);
	else if (prefilled && how->meter != NULL)
		meter_add(how->meter, 0, node->size, NULL);
	/* The id travels with the file through the rename into place. */
	if (how->stamp)
		identity_write_file(fd, node->id);
	if (status == 0 && ((!mode_kept && io_fchmod(fd, mode) != 0) ||
			       io_futimens(fd, node->mtime_ns) != 0 || (how->sync && io_fsync(fd) != 0)))
		status = hearth_fail_errno(error, "cannot finish %s", name);
	if (io_close(fd) != 0 && status == 0)
		status = hearth_fail_errno(error, "cannot write %s", name);
	/* A file that could not be written whole (damaged content, a full
	 * disk) is not left behind under its name. */
	if (status != 0)
		io_unlink(parent.folder, parent.name);
	checkout_release_parent(&parent, owned);
	return status;
}

/* The process's umask, read without changing it (umask(2) can only set
 * it, which another thread's file creation could see); unknown where the
 * kernel does not say (before Linux 4.7). */
void
checkout_process_umask(struct checkout_write_how *how)
{
	FILE *status = fopen("/proc/self/status", "re");
	char line[256];

	how->umask_known = false;
	if (status == NULL)
		return;
	while (!how->umask_known && fgets(line, sizeof line, status) != NULL) {
		unsigned int value;
		if (sscanf(line, "Umask: %o", &value) == 1 && value <= 0777) {
			how->umask = (mode_t)value;
			how->umask_known = true;
		}
	}
	fclose(status);
}

static int
compare_placed(const void *a, const void *b)
{
	const struct checkout_placed *x = a, *y = b;
	return blob_place_compare(&x->place, &y->place);
}

void
checkout_place_and_sort(struct hearth *home, struct checkout_placed *nodes, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (nodes[i].node->has_content && nodes[i].node->size > 0)
			blob_locate(home, &nodes[i].node->blob, &nodes[i].place);
		else
			memset(&nodes[i].place, 0, sizeof nodes[i].place);
	}
	qsort(nodes, count, sizeof *nodes, compare_placed);
}
