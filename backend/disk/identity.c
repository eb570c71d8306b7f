/* Reading and writing the identity a file or folder carries (identity.h).
 * Reads go below the root without following links (the scan's openat2);
 * writes go through the I/O seam. */
#include "backend/disk/identity.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backend/disk/home.h"
#include "backend/io/io.h"
#include "backend/disk/layout.h"
#include "backend/disk/scan.h"

/* A marker holds 32 hex digits and a newline; anything longer is not one. */
#define MARKER_MAX 64

static bool
parse_id(const char *text, size_t length, struct node_id *out)
{
	char hex[ID_HEX];

	while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == ' '))
		length--;
	if (length != ID_BYTES * 2)
		return false;
	memcpy(hex, text, length);
	hex[length] = '\0';
	return hex_decode(hex, out->bytes, ID_BYTES) && !node_id_is_zero(*out);
}

bool
identity_read_file(int root_fd, const char *path, struct node_id *out)
{
	char value[ID_HEX + 8];
	int fd = scan_open_file(root_fd, path);

	if (fd < 0)
		return false;
	ssize_t length = fgetxattr(fd, IDENTITY_XATTR, value, sizeof value);
	close(fd);
	return length > 0 && parse_id(value, (size_t)length, out);
}

bool
identity_write_file(int fd, struct node_id id)
{
	char hex[ID_HEX];

	node_id_hex(id, hex);
	return io_fsetxattr(fd, IDENTITY_XATTR, hex, ID_BYTES * 2) == 0;
}

/* The id in folder_fd's marker file, if name is one of hearth's. */
static bool
read_marker(int folder_fd, const char *name, struct node_id *out)
{
	char text[MARKER_MAX + 1];
	struct stat status;
	int fd = openat(folder_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	bool marker = fstat(fd, &status) == 0 && S_ISREG(status.st_mode) &&
	    status.st_size <= MARKER_MAX;
	ssize_t length = marker ? read(fd, text, sizeof text) : -1;
	close(fd);
	return length > 0 && length <= MARKER_MAX && parse_id(text, (size_t)length, out);
}

bool
identity_is_marker(int folder_fd, const char *name)
{
	struct node_id ignored;

	return strcmp(name, IDENTITY_MARKER) == 0 && read_marker(folder_fd, name, &ignored);
}

static bool
read_xattr(int folder_fd, struct node_id *out)
{
	char value[ID_HEX + 8];
	ssize_t length = fgetxattr(folder_fd, IDENTITY_XATTR, value, sizeof value);

	return length > 0 && parse_id(value, (size_t)length, out);
}

bool
identity_read_folder(int root_fd, const char *path, struct node_id *out)
{
	int folder = scan_open_folder(root_fd, path);

	if (folder < 0)
		return false;
	bool found = read_xattr(folder, out) || read_marker(folder, IDENTITY_MARKER, out);
	close(folder);
	return found;
}

bool
identity_folder_damaged(int root_fd, const char *path)
{
	char value[ID_HEX + 8];
	struct node_id ignored;
	int folder = scan_open_folder(root_fd, path);

	if (folder < 0)
		return false;
	ssize_t length = fgetxattr(folder, IDENTITY_XATTR, value, sizeof value);
	bool damaged = (length >= 0 || errno == ERANGE) &&
	    (length <= 0 || !parse_id(value, (size_t)length, &ignored));
	close(folder);
	return damaged;
}

int
identity_remove_marker(int folder_fd)
{
	if (!identity_is_marker(folder_fd, IDENTITY_MARKER))
		return 0;
	return io_unlink(folder_fd, IDENTITY_MARKER) == 0 || errno == ENOENT ? 0 : -1;
}

/* Where xattrs are not kept: the marker is written in the root's staging
 * folder and renamed into place, so a reader never sees half a marker, and
 * one a crash cut short is left in staging (cleared at the next lock), not
 * in the user's folder. A name the user holds is never replaced. */
static int
write_marker(int root_fd, int folder, struct node_id id)
{
	char hex[ID_HEX + 1], temporary[ID_HEX + 16];
	struct stat status;
	bool replace = false;

	if (fstatat(folder, IDENTITY_MARKER, &status, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!identity_is_marker(folder, IDENTITY_MARKER)) {
			errno = EEXIST;
			return -1;
		}
		replace = true;
	}
	if (io_mkdir(root_fd, HOME_DIR_NAME "/" HOME_STAGING_NAME, 0700) != 0 && errno != EEXIST)
		return -1;
	int staging = scan_open_folder(root_fd, HOME_DIR_NAME "/" HOME_STAGING_NAME);
	if (staging < 0)
		return -1;
	node_id_hex(id, hex);
	snprintf(temporary, sizeof temporary, "%s.id", hex);
	hex[ID_BYTES * 2] = '\n';
	int fd = io_open(staging, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	int status_code = fd < 0 ? -1 : 0;
	if (status_code == 0 && io_write_all(fd, hex, ID_BYTES * 2 + 1) != 0)
		status_code = -1;
	if (fd >= 0 && io_close(fd) != 0)
		status_code = -1;
	if (status_code == 0 && (replace ? io_rename(staging, temporary, folder, IDENTITY_MARKER)
					 : io_rename_noreplace(staging, temporary, folder,
					       IDENTITY_MARKER)) != 0)
		status_code = -1;
	if (status_code != 0 && fd >= 0) {
		int saved = errno;
		io_unlink(staging, temporary);
		errno = saved;
	}
	close(staging);
	return status_code;
}

int
identity_write_folder(int root_fd, const char *path, struct node_id id)
{
	char hex[ID_HEX];
	int folder = scan_open_folder(root_fd, path);

	if (folder < 0)
		return -1;
	node_id_hex(id, hex);
	int status = io_fsetxattr(folder, IDENTITY_XATTR, hex, ID_BYTES * 2);
	if (status == 0) {
		/* An older build's marker: the xattr says it now. */
		identity_remove_marker(folder);
	} else if (errno == ENOTSUP || errno == EOPNOTSUPP) {
		status = write_marker(root_fd, folder, id);
	}
	int saved = errno;
	close(folder);
	errno = saved;
	return status;
}

/* ---- moving markers into xattrs ------------------------------------------------- */

/* A failure that another try may get past (a full disk, an I/O error),
 * unlike a file system without xattrs or a folder hearth may not write. */
static bool
lasting(int error)
{
	return error == ENOTSUP || error == EOPNOTSUPP || error == EACCES || error == EPERM ||
	    error == EROFS || error == ENOENT;
}

/* One folder's marker into its xattr; false when one is left that another
 * try could move. */
static bool
migrate_folder(int folder)
{
	struct node_id id, held;
	char hex[ID_HEX];

	if (!read_marker(folder, IDENTITY_MARKER, &id))
		return true;
	if (!read_xattr(folder, &held)) {
		node_id_hex(id, hex);
		if (io_fsetxattr(folder, IDENTITY_XATTR, hex, ID_BYTES * 2) != 0)
			return lasting(errno);
	}
	return io_unlink(folder, IDENTITY_MARKER) == 0 || lasting(errno);
}

static bool
migrate_below(int folder, bool top)
{
	bool done = migrate_folder(folder);
	int fd = dup(folder);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *dirent;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while ((dirent = readdir(dir)) != NULL) {
		const char *name = dirent->d_name;
		struct stat status;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    (top && strcmp(name, HOME_DIR_NAME) == 0))
			continue;
		if (dirent->d_type != DT_DIR && (dirent->d_type != DT_UNKNOWN ||
			fstatat(dirfd(dir), name, &status, AT_SYMLINK_NOFOLLOW) != 0 ||
			!S_ISDIR(status.st_mode)))
			continue;
		if (layout_is_home_state(dirfd(dir), name))
			continue;
		int child = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0) {
			done &= lasting(errno);	/* a folder hearth cannot read keeps what it has */
			continue;
		}
		done &= migrate_below(child, false);
		close(child);
	}
	closedir(dir);
	return done;
}

bool
identity_migrate_root(int root_fd)
{
	return migrate_below(root_fd, true);
}
