/* The power-loss simulator (HEARTH_POWERLOSS, tests only; see io.c for how
 * it is switched on). A machine that loses power keeps what was flushed and
 * may lose anything else; this layer takes the pessimistic reading: at the
 * moment of death, everything the process changed that no flush covers is
 * undone, and the process _exits with no chance to clean up.
 *
 * What counts as flushed, as POSIX has it:
 *   - a file's bytes and size: fsync or fdatasync of that file;
 *   - a name made, removed or renamed in a folder: fsync of that folder
 *     (a rename needs both folders);
 *   - everything on a file system: syncfs.
 * Undoing: bytes written over old ones get their old bytes back (each
 * write first saves what it covers), a file is cut back to its size at its
 * last flush, a new name is removed (a new folder with all inside it, as a
 * crash loses what hangs from an unsaved entry), a rename goes back, and
 * what a rename replaced or an unlink removed comes back: before the call
 * it is hard-linked into a stash folder (HEARTH_POWERLOSS_STASH, else
 * $TMPDIR or /tmp; it must be on the Home's file system).
 *
 * Limits (tests/RELIABILITY.md states them too): the state at the start of
 * the process counts as durable; everything unflushed is lost at once,
 * never a torn subset or a reordering; mode, mtime and xattr changes are
 * never undone; SQLite's shared-memory index (-shm) is not tracked (SQLite
 * rebuilds it after a crash). Single-threaded use, as the CLI makes. */
#include "backend/io/io_powerloss.h"
#include "model/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exit status when the simulation itself cannot go on (a stash on another
 * file system): a harness failure, told apart from a simulated death. */
#define POWERLOSS_CANNOT_SIMULATE 98

/* A folder some change touched, held open (O_PATH) so undoing finds it
 * wherever it was moved since. */
struct powerloss_folder {
	dev_t device;
	ino_t inode;
	int fd;
};

/* Bytes a write or truncation covered, as they were before it. */
struct powerloss_image {
	off_t offset;
	size_t length;
	unsigned char *bytes;
};

/* A file whose content changed since its last flush. Its descriptors stay
 * open to the end: closing any descriptor of a file drops every POSIX lock
 * the process holds on it, and SQLite's locks are POSIX locks. */
struct powerloss_file {
	dev_t device;
	ino_t inode;
	int write_fd;
	int read_fd;		/* -1 until needed: write_fd may be write-only */
	bool dirty;
	off_t durable_size;
	struct powerloss_image *images;
	size_t image_count, image_capacity;
};

enum powerloss_change_kind {
	POWERLOSS_CREATE,	/* a file or link made */
	POWERLOSS_MKDIR,
	POWERLOSS_RENAME,
	POWERLOSS_REMOVE,	/* unlink or rmdir */
};

struct powerloss_change {
	enum powerloss_change_kind kind;
	size_t folder;		/* where the name is made or removed; a rename's source */
	char *name;
	size_t to_folder;	/* a rename's target */
	char *to_name;
	char *stash;		/* what a rename replaced or a removal took, kept aside */
	bool took_folder;	/* it was an (empty) folder: put back by mkdir */
	mode_t folder_mode;
	dev_t folder_device;	/* the folder taken, so what pointed at it points */
	ino_t folder_inode;	/* at the one made in its place */
	bool durable, to_durable;
};

static bool enabled;
static struct powerloss_folder *folders;
static size_t folder_count, folder_capacity;
static struct powerloss_file *files;
static size_t file_count, file_capacity;
static struct powerloss_change **changes;
static size_t change_count, change_capacity;
static int stash_fd = -1;
static unsigned stash_serial;

bool
powerloss_enabled(void)
{
	return enabled;
}

/* Every descriptor is kept, so the soft limit goes up to the hard one. */
void
powerloss_enable(void)
{
	struct rlimit limit;

	enabled = true;
	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &limit);
	}
}

static _Noreturn void
powerloss_give_up(const char *what, const char *detail)
{
	fprintf(stderr, "hearth: io: the power-loss simulation cannot go on: %s: %s\n", what,
	    detail);
	_exit(POWERLOSS_CANNOT_SIMULATE);
}

/* ---- folders and files ------------------------------------------------------- */

/* The folder fd is open on, by identity; takes ownership of fd. */
static size_t
powerloss_folder_adopt(int fd)
{
	struct stat status;

	if (fstat(fd, &status) != 0)
		powerloss_give_up("fstat of a folder", strerror(errno));
	for (size_t i = 0; i < folder_count; i++) {
		if (folders[i].device == status.st_dev && folders[i].inode == status.st_ino) {
			close(fd);
			return i;
		}
	}
	folders = array_grow(folders, &folder_capacity, folder_count + 1, sizeof *folders);
	folders[folder_count] = (struct powerloss_folder){ status.st_dev, status.st_ino, fd };
	return folder_count++;
}

/* The folder that holds path (relative to dir_fd), and path's last name.
 * False when that folder does not exist: the call will fail anyway. */
static bool
powerloss_locate(int dir_fd, const char *path, size_t *folder, char **name)
{
	const char *slash = strrchr(path, '/');
	int fd;

	if (slash == NULL) {
		fd = openat(dir_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		*name = array_strdup(path);
	} else {
		char *prefix = array_strdup(path);
		prefix[slash - path] = '\0';
		fd = openat(dir_fd, slash == path ? "/" : prefix, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(prefix);
		*name = array_strdup(slash + 1);
	}
	if (fd < 0) {
		free(*name);
		*name = NULL;
		return false;
	}
	*folder = powerloss_folder_adopt(fd);
	return true;
}

static struct powerloss_file *
powerloss_file_of(int fd, struct stat *status)
{
	if (fstat(fd, status) != 0)
		powerloss_give_up("fstat of a file being written", strerror(errno));
	for (size_t i = 0; i < file_count; i++)
		if (files[i].device == status->st_dev && files[i].inode == status->st_ino)
			return &files[i];
	int kept = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (kept < 0)
		powerloss_give_up("keeping a written file open", strerror(errno));
	files = array_grow(files, &file_capacity, file_count + 1, sizeof *files);
	files[file_count] = (struct powerloss_file){
		.device = status->st_dev, .inode = status->st_ino, .write_fd = kept, .read_fd = -1,
	};
	return &files[file_count++];
}

static int
powerloss_readable(struct powerloss_file *file)
{
	char path[64];

	if (file->read_fd >= 0)
		return file->read_fd;
	int mode = fcntl(file->write_fd, F_GETFL);
	if (mode >= 0 && (mode & O_ACCMODE) == O_RDWR)
		return file->read_fd = file->write_fd;
	snprintf(path, sizeof path, "/proc/self/fd/%d", file->write_fd);
	file->read_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (file->read_fd < 0)
		powerloss_give_up("reading back a written file", strerror(errno));
	return file->read_fd;
}

/* Saves the durable bytes of [offset, offset + length) before they change. */
static void
powerloss_save_image(struct powerloss_file *file, off_t current_size, off_t offset,
    off_t length)
{
	off_t end = offset + length;
	off_t limit = file->durable_size < current_size ? file->durable_size : current_size;

	if (end > limit)
		end = limit;
	if (offset >= end)
		return;
	size_t count = (size_t)(end - offset);
	unsigned char *bytes = array_alloc(count, 1);
	if (pread(powerloss_readable(file), bytes, count, offset) != (ssize_t)count)
		powerloss_give_up("reading the bytes a write covers", strerror(errno ? errno : EIO));
	file->images = array_grow(file->images, &file->image_capacity, file->image_count + 1,
	    sizeof *file->images);
	file->images[file->image_count++] = (struct powerloss_image){ offset, count, bytes };
}

static struct powerloss_file *
powerloss_touch(int fd, off_t *current_size)
{
	struct stat status;
	struct powerloss_file *file = powerloss_file_of(fd, &status);

	if (!file->dirty) {
		file->dirty = true;
		file->durable_size = status.st_size;
	}
	*current_size = status.st_size;
	return file;
}

void
powerloss_before_write(int fd, off_t offset, size_t length)
{
	off_t size;

	if (!enabled)
		return;
	struct powerloss_file *file = powerloss_touch(fd, &size);
	powerloss_save_image(file, size, offset, (off_t)length);
}

void
powerloss_before_truncate(int fd, off_t length)
{
	off_t size;

	if (!enabled)
		return;
	struct powerloss_file *file = powerloss_touch(fd, &size);
	if (length < size)
		powerloss_save_image(file, size, length, size - length);
}

/* ---- flushes ------------------------------------------------------------------ */

static void
powerloss_file_clean(struct powerloss_file *file)
{
	for (size_t i = 0; i < file->image_count; i++)
		free(file->images[i].bytes);
	file->image_count = 0;
	file->dirty = false;
}

static void
powerloss_folder_flushed(dev_t device, ino_t inode)
{
	for (size_t i = 0; i < change_count; i++) {
		struct powerloss_change *change = changes[i];
		if (folders[change->folder].device == device && folders[change->folder].inode == inode)
			change->durable = true;
		if (change->kind == POWERLOSS_RENAME && folders[change->to_folder].device == device &&
		    folders[change->to_folder].inode == inode)
			change->to_durable = true;
	}
}

void
powerloss_flushed(int fd)
{
	struct stat status;

	if (!enabled || fstat(fd, &status) != 0)
		return;
	if (S_ISDIR(status.st_mode)) {
		powerloss_folder_flushed(status.st_dev, status.st_ino);
		return;
	}
	for (size_t i = 0; i < file_count; i++)
		if (files[i].device == status.st_dev && files[i].inode == status.st_ino)
			powerloss_file_clean(&files[i]);
}

void
powerloss_flushed_file_system(int fd)
{
	struct stat status;

	if (!enabled || fstat(fd, &status) != 0)
		return;
	for (size_t i = 0; i < change_count; i++) {
		struct powerloss_change *change = changes[i];
		if (folders[change->folder].device == status.st_dev)
			change->durable = true;
		if (change->kind == POWERLOSS_RENAME &&
		    folders[change->to_folder].device == status.st_dev)
			change->to_durable = true;
	}
	for (size_t i = 0; i < file_count; i++)
		if (files[i].device == status.st_dev)
			powerloss_file_clean(&files[i]);
}

void
powerloss_flushed_folder_of(int dir_fd, const char *path)
{
	size_t folder;
	char *name;

	if (!enabled || !powerloss_locate(dir_fd, path, &folder, &name))
		return;
	free(name);
	powerloss_folder_flushed(folders[folder].device, folders[folder].inode);
}

/* ---- names ------------------------------------------------------------------- */

static int
powerloss_stash_folder(void)
{
	char path[4096];
	const char *base = getenv("HEARTH_POWERLOSS_STASH");

	if (stash_fd >= 0)
		return stash_fd;
	if (base == NULL || base[0] == '\0')
		base = getenv("TMPDIR");
	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	/* A folder of its own, never one an earlier process left: process
	 * ids come round again in a long test run (pid_max is 32768), and a
	 * dead process's stash keeps the names this one would make. */
	snprintf(path, sizeof path, "%s/hearth-powerloss.%ld.XXXXXX", base, (long)getpid());
	if (mkdtemp(path) == NULL)
		powerloss_give_up(path, strerror(errno));
	stash_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (stash_fd < 0)
		powerloss_give_up(path, strerror(errno));
	return stash_fd;
}

/* Keeps what (folder, name) holds now so it can be put back: a file or
 * link by a hard link in the stash, an empty folder by its mode. False
 * when nothing is there. */
static bool
powerloss_keep(struct powerloss_change *change, size_t folder, const char *name)
{
	char stash[32];
	struct stat status;

	if (fstatat(folders[folder].fd, name, &status, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	if (S_ISDIR(status.st_mode)) {
		change->took_folder = true;
		change->folder_mode = status.st_mode & 07777;
		change->folder_device = status.st_dev;
		change->folder_inode = status.st_ino;
		return true;
	}
	snprintf(stash, sizeof stash, "%u", stash_serial++);
	if (linkat(folders[folder].fd, name, powerloss_stash_folder(), stash, 0) != 0)
		powerloss_give_up("keeping a replaced file in the stash (HEARTH_POWERLOSS_STASH "
		    "must be on the Home's file system)", strerror(errno));
	change->stash = array_strdup(stash);
	return true;
}

static struct powerloss_change *
powerloss_change_new(enum powerloss_change_kind kind, size_t folder, char *name)
{
	struct powerloss_change *change = array_zeroed(1, sizeof *change);

	change->kind = kind;
	change->folder = folder;
	change->name = name;
	return change;
}

static void
powerloss_change_free(struct powerloss_change *change)
{
	free(change->name);
	free(change->to_name);
	free(change->stash);
	free(change);
}

/* A name about to be made: nothing to undo when it is there already. */
static struct powerloss_change *
powerloss_before_new_name(enum powerloss_change_kind kind, int dir_fd, const char *path)
{
	struct stat status;
	size_t folder;
	char *name;

	if (!enabled || !powerloss_locate(dir_fd, path, &folder, &name))
		return NULL;
	if (fstatat(folders[folder].fd, name, &status, AT_SYMLINK_NOFOLLOW) == 0) {
		free(name);
		return NULL;
	}
	return powerloss_change_new(kind, folder, name);
}

struct powerloss_change *
powerloss_before_create(int dir_fd, const char *path)
{
	return powerloss_before_new_name(POWERLOSS_CREATE, dir_fd, path);
}

struct powerloss_change *
powerloss_before_mkdir(int dir_fd, const char *path)
{
	return powerloss_before_new_name(POWERLOSS_MKDIR, dir_fd, path);
}

struct powerloss_change *
powerloss_before_rename(int from_dir, const char *from, int to_dir, const char *to)
{
	size_t folder, to_folder;
	char *name, *to_name;

	if (!enabled || !powerloss_locate(from_dir, from, &folder, &name))
		return NULL;
	if (!powerloss_locate(to_dir, to, &to_folder, &to_name)) {
		free(name);
		return NULL;
	}
	struct powerloss_change *change = powerloss_change_new(POWERLOSS_RENAME, folder, name);
	change->to_folder = to_folder;
	change->to_name = to_name;
	powerloss_keep(change, to_folder, to_name);
	return change;
}

struct powerloss_change *
powerloss_before_remove(int dir_fd, const char *path)
{
	size_t folder;
	char *name;

	if (!enabled || !powerloss_locate(dir_fd, path, &folder, &name))
		return NULL;
	struct powerloss_change *change = powerloss_change_new(POWERLOSS_REMOVE, folder, name);
	if (!powerloss_keep(change, folder, name)) {
		powerloss_change_free(change);
		return NULL;
	}
	return change;
}

void
powerloss_finish(struct powerloss_change *change, bool succeeded)
{
	if (change == NULL)
		return;
	if (!succeeded) {
		if (change->stash != NULL)
			unlinkat(stash_fd, change->stash, 0);
		powerloss_change_free(change);
		return;
	}
	changes = array_grow(changes, &change_capacity, change_count + 1, sizeof *changes);
	changes[change_count++] = change;
}

/* ---- the moment of death ---------------------------------------------------------- */

static int
powerloss_remove_tree(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *entry;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return unlinkat(parent, name, 0);
	}
	while ((entry = readdir(dir)) != NULL) {
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(dir), entry->d_name, 0) != 0 &&
		    (errno == EISDIR || errno == EPERM))
			powerloss_remove_tree(dirfd(dir), entry->d_name);
	}
	closedir(dir);
	return unlinkat(parent, name, AT_REMOVEDIR);
}

/* A removed folder made again is a new inode. The changes made inside the
 * old one before its removal are undone after this (in reverse order), and
 * must find the new one. */
static int
powerloss_remake_folder(const struct powerloss_change *change, size_t folder, const char *name)
{
	if (mkdirat(folders[folder].fd, name, change->folder_mode) != 0)
		return -1;
	int made = openat(folders[folder].fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (made < 0)
		return -1;
	struct stat status;
	if (fstat(made, &status) != 0) {
		close(made);
		return -1;
	}
	for (size_t i = 0; i < folder_count; i++) {
		if (folders[i].device != change->folder_device ||
		    folders[i].inode != change->folder_inode)
			continue;
		int fd = dup(made);
		if (fd < 0)
			continue;
		close(folders[i].fd);
		folders[i].fd = fd;
		folders[i].device = status.st_dev;
		folders[i].inode = status.st_ino;
	}
	close(made);
	return 0;
}

/* Puts back what change took from (folder, name). */
static int
powerloss_put_back(const struct powerloss_change *change, size_t folder, const char *name)
{
	if (change->took_folder)
		return powerloss_remake_folder(change, folder, name);
	if (change->stash != NULL)
		return renameat(stash_fd, change->stash, folders[folder].fd, name);
	return 0;
}

static int
powerloss_undo(const struct powerloss_change *change)
{
	int parent = folders[change->folder].fd;

	switch (change->kind) {
	case POWERLOSS_CREATE:
		return unlinkat(parent, change->name, 0);
	case POWERLOSS_MKDIR:
		return powerloss_remove_tree(parent, change->name);
	case POWERLOSS_RENAME:
		if (renameat(folders[change->to_folder].fd, change->to_name, parent, change->name) != 0)
			return -1;
		return powerloss_put_back(change, change->to_folder, change->to_name);
	case POWERLOSS_REMOVE:
		return powerloss_put_back(change, change->folder, change->name);
	}
	return 0;
}

static bool
powerloss_durable(const struct powerloss_change *change)
{
	return change->durable && (change->kind != POWERLOSS_RENAME || change->to_durable);
}

static size_t
powerloss_undo_names(void)
{
	static const char *const kinds[] = { "creation of", "folder", "rename of", "removal of" };
	size_t undone = 0;

	for (size_t i = change_count; i-- > 0;) {
		const struct powerloss_change *change = changes[i];
		if (powerloss_durable(change))
			continue;
		if (powerloss_undo(change) != 0)
			fprintf(stderr, "hearth: io: power loss: cannot undo the %s %s: %s\n",
			    kinds[change->kind], change->name, strerror(errno));
		undone++;
	}
	return undone;
}

static size_t
powerloss_undo_contents(void)
{
	size_t undone = 0;

	for (size_t i = 0; i < file_count; i++) {
		struct powerloss_file *file = &files[i];
		if (!file->dirty)
			continue;
		for (size_t j = file->image_count; j-- > 0;) {
			const struct powerloss_image *image = &file->images[j];
			if (pwrite(file->write_fd, image->bytes, image->length, image->offset) !=
			    (ssize_t)image->length)
				fprintf(stderr, "hearth: io: power loss: cannot restore bytes: %s\n",
				    strerror(errno));
		}
		if (ftruncate(file->write_fd, file->durable_size) != 0)
			fprintf(stderr, "hearth: io: power loss: cannot cut a file back: %s\n",
			    strerror(errno));
		undone++;
	}
	return undone;
}

_Noreturn void
powerloss_die(const char *when, int status)
{
	size_t names = powerloss_undo_names();
	size_t contents = powerloss_undo_contents();

	fprintf(stderr, "hearth: io: power lost %s; undone: %zu unflushed name changes, "
	    "unflushed bytes of %zu files\n", when, names, contents);
	_exit(status);
}
