/* The one layer every backend write passes through (see io.h). Fault
 * injection lives here and only here: HEARTH_FAULT="N:KIND" makes the Nth
 * write-class call fail, which is how the fault tests walk N over a command. */
#include "backend/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static struct io_counters counters;
static uint64_t call_count;
static uint64_t fault_at;
static enum io_fault_kind fault_kind;
static bool environment_read;

static void
read_fault_environment(void)
{
	const char *spec = getenv("HEARTH_FAULT");
	char kind[16] = "";
	unsigned long long nth;

	environment_read = true;
	if (spec == NULL || sscanf(spec, "%llu:%15s", &nth, kind) < 1)
		return;
	fault_at = nth;
	if (strcmp(kind, "ENOSPC") == 0)
		fault_kind = IO_FAULT_ENOSPC;
	else if (strcmp(kind, "SHORT") == 0)
		fault_kind = IO_FAULT_SHORT;
	else
		fault_kind = IO_FAULT_EIO;
}

void
io_fault_arm(uint64_t nth, enum io_fault_kind kind)
{
	environment_read = true;
	fault_at = nth ? call_count + nth : 0;
	fault_kind = kind;
}

uint64_t
io_call_count(void)
{
	return call_count;
}

const struct io_counters *
io_counters(void)
{
	return &counters;
}

/* Counts a write-class call; true when this one must fail. */
static bool
injected_fault(void)
{
	if (!environment_read)
		read_fault_environment();
	call_count++;
	if (fault_at == 0 || call_count != fault_at)
		return false;
	errno = fault_kind == IO_FAULT_ENOSPC ? ENOSPC : EIO;
	return true;
}

int
io_open(int dir_fd, const char *path, int flags, mode_t mode)
{
	if ((flags & (O_WRONLY | O_RDWR | O_CREAT)) && injected_fault())
		return -1;
	int fd = openat(dir_fd, path, flags | O_CLOEXEC, mode);
	if (fd >= 0 && (flags & O_CREAT))
		counters.files_created++;
	return fd;
}

static int
write_some(int fd, const uint8_t *data, size_t length, off_t offset, bool positioned)
{
	size_t done = 0;

	if (injected_fault()) {
		if (fault_kind != IO_FAULT_SHORT || length < 2)
			return -1;
		/* A short write: half the bytes land, then the disk is full. */
		length /= 2;
		ssize_t n = positioned ? pwrite(fd, data, length, offset) : write(fd, data, length);
		if (n > 0)
			counters.bytes_written += (uint64_t)n;
		errno = ENOSPC;
		return -1;
	}
	while (done < length) {
		ssize_t n = positioned ? pwrite(fd, data + done, length - done, offset + (off_t)done)
				       : write(fd, data + done, length - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	counters.writes++;
	counters.bytes_written += length;
	return 0;
}

int
io_write_all(int fd, const void *data, size_t length)
{
	return write_some(fd, data, length, 0, false);
}

int
io_pwrite_all(int fd, const void *data, size_t length, off_t offset)
{
	return write_some(fd, data, length, offset, true);
}

int
io_fsync(int fd)
{
	if (injected_fault())
		return -1;
	counters.syncs++;
	return fsync(fd);
}

int
io_start_writeback(int fd, off_t offset, off_t length)
{
	if (injected_fault())
		return -1;
	return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int
io_fdatasync(int fd)
{
	if (injected_fault())
		return -1;
	counters.syncs++;
	return fdatasync(fd);
}

int
io_syncfs(int fd)
{
	if (injected_fault())
		return -1;
	counters.syncs++;
	return syncfs(fd);
}

int
io_close(int fd)
{
	/* close is not a write, but a failed close of a written file can be
	 * the first report of a lost write (NFS), so it is checked, not faulted. */
	return close(fd);
}

int
io_rename(int from_dir, const char *from, int to_dir, const char *to)
{
	if (injected_fault())
		return -1;
	return renameat(from_dir, from, to_dir, to);
}

int
io_rename_noreplace(int from_dir, const char *from, int to_dir, const char *to)
{
	if (injected_fault())
		return -1;
	return renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE);
}

int
io_mkdir(int dir_fd, const char *path, mode_t mode)
{
	if (injected_fault())
		return -1;
	return mkdirat(dir_fd, path, mode);
}

int
io_unlink(int dir_fd, const char *path)
{
	if (injected_fault())
		return -1;
	return unlinkat(dir_fd, path, 0);
}

int
io_rmdir(int dir_fd, const char *path)
{
	if (injected_fault())
		return -1;
	return unlinkat(dir_fd, path, AT_REMOVEDIR);
}

int
io_symlink(const char *target, int dir_fd, const char *path)
{
	if (injected_fault())
		return -1;
	return symlinkat(target, dir_fd, path);
}

int
io_fchmod(int fd, mode_t mode)
{
	if (injected_fault())
		return -1;
	return fchmod(fd, mode);
}

int
io_chmod(int dir_fd, const char *path, mode_t mode)
{
	if (injected_fault())
		return -1;
	/* Links have no mode of their own on Linux; AT_SYMLINK_NOFOLLOW is
	 * refused there, so the caller never asks for a link. */
	return fchmodat(dir_fd, path, mode, 0);
}

int
io_utimens(int dir_fd, const char *path, int64_t mtime_ns)
{
	struct timespec times[2] = {
		{ .tv_sec = 0, .tv_nsec = UTIME_OMIT },
		{ .tv_sec = mtime_ns / 1000000000, .tv_nsec = mtime_ns % 1000000000 },
	};

	if (times[1].tv_nsec < 0) {
		times[1].tv_sec -= 1;
		times[1].tv_nsec += 1000000000;
	}
	if (injected_fault())
		return -1;
	return utimensat(dir_fd, path, times, AT_SYMLINK_NOFOLLOW);
}

int
io_futimens(int fd, int64_t mtime_ns)
{
	struct timespec times[2] = {
		{ .tv_sec = 0, .tv_nsec = UTIME_OMIT },
		{ .tv_sec = mtime_ns / 1000000000, .tv_nsec = mtime_ns % 1000000000 },
	};

	if (times[1].tv_nsec < 0) {
		times[1].tv_sec -= 1;
		times[1].tv_nsec += 1000000000;
	}
	if (injected_fault())
		return -1;
	return futimens(fd, times);
}

int
io_ftruncate(int fd, off_t length)
{
	if (injected_fault())
		return -1;
	return ftruncate(fd, length);
}

int
io_fsetxattr(int fd, const char *name, const void *value, size_t size)
{
	if (injected_fault())
		return -1;
	return fsetxattr(fd, name, value, size, 0);
}
