/* Reading and writing the identity a file or folder carries (identity.h).
 * Reads go below the root without following links (the scan's openat2);
 * writes go through the I/O seam. */
#include "backend/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backend/io.h"
#include "backend/scan.h"

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

bool
identity_read_folder(int root_fd, const char *path, struct node_id *out)
{
	char text[ID_HEX + 8];
	int folder = scan_open_folder(root_fd, path);

	if (folder < 0)
		return false;
	/* Non-blocking, and only a regular file: a FIFO of that name must not
	 * hang the walk. */
	int fd = openat(folder, IDENTITY_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat status;
	close(folder);
	if (fd < 0)
		return false;
	if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
		close(fd);
		return false;
	}
	ssize_t length = read(fd, text, sizeof text);
	close(fd);
	return length > 0 && parse_id(text, (size_t)length, out);
}

/* The marker is written in the root's staging folder and renamed into
 * place, so a reader never sees half a marker, and one a crash cut short
 * is left in staging (cleared at the next lock), not in the user's folder. */
int
identity_write_folder(int root_fd, const char *path, struct node_id id)
{
	char hex[ID_HEX + 1], temporary[ID_HEX + 16];
	int folder = scan_open_folder(root_fd, path);

	if (folder < 0)
		return -1;
	if (io_mkdir(root_fd, HOME_DIR_NAME "/" HOME_STAGING_NAME, 0700) != 0 && errno != EEXIST) {
		close(folder);
		return -1;
	}
	int staging = scan_open_folder(root_fd, HOME_DIR_NAME "/" HOME_STAGING_NAME);
	if (staging < 0) {
		close(folder);
		return -1;
	}
	node_id_hex(id, hex);
	snprintf(temporary, sizeof temporary, "%s.id", hex);
	hex[ID_BYTES * 2] = '\n';
	int fd = io_open(staging, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	int status = fd < 0 ? -1 : 0;
	if (status == 0 && io_write_all(fd, hex, ID_BYTES * 2 + 1) != 0)
		status = -1;
	if (fd >= 0 && io_close(fd) != 0)
		status = -1;
	if (status == 0 && io_rename(staging, temporary, folder, IDENTITY_MARKER) != 0)
		status = -1;
	if (status != 0 && fd >= 0) {
		int saved = errno;
		io_unlink(staging, temporary);
		errno = saved;
	}
	close(staging);
	close(folder);
	return status;
}
