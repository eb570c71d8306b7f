/* The one layer every backend write passes through (see io.h). Test modes
 * live here and only here, read from the environment at the first
 * write-class call (a call that writes, syncs, creates, renames or removes;
 * the SQLite VFS shim in store_vfs.c counts its writes, syncs and
 * truncations through io_fault_due):
 *
 *   HEARTH_FAULT=N:KIND   the Nth write-class call fails: KIND EIO or ENOSPC
 *                         (errno), or SHORT (half the bytes land, then
 *                         ENOSPC). N counts from 1 in this process only.
 *   HEARTH_FAULT=count    nothing fails; at exit the process prints
 *                         "hearth: io: N write-class calls" on stderr. A
 *                         fault walk runs a command once so to learn N,
 *                         then once per n in 1..N (tests/lib/fault-lib.sh).
 *   HEARTH_KILL=N         the process is killed (SIGKILL) at the Nth
 *                         write-class call, before making it: the crash
 *                         tests' exact crash points (they also kill at
 *                         random times from outside).
 *   HEARTH_POWERLOSS=N    the machine dies at the Nth write-class call (it
 *                         is not made), or right after the command ends if
 *                         it ends first (=exit: only then): every change no
 *                         flush made durable is undone and the process
 *                         _exits, 99 mid-command or with the command's own
 *                         status at exit. See io_powerloss.c.
 *   HEARTH_FAULT_BATCH=N  the Nth batch of ops an author integrates in this
 *                         process fails as a failed write of it would
 *                         (author.c): the batch boundary a record of many
 *                         files crosses, which no disk call marks.
 *   HEARTH_HOLD=PHASE:BYTES:PATH
 *                         once the progress of phase PHASE ("writing",
 *                         "storing", "receiving chunks"...) has counted
 *                         BYTES bytes, the command reports it, creates
 *                         PATH and waits while PATH exists (ten minutes
 *                         at most): a test then interrupts or kills it
 *                         mid-call, where no race with the call's end can
 *                         reach (meter.c asks io_hold_due; once only).
 *
 * A process that `hearth serve` or clone spawns inherits the environment;
 * the tests give the serving side its own settings through a fake ssh
 * (tests/lib/fake-ssh). */
#include "backend/io/io.h"
#include "backend/io/space.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "backend/io/io_powerloss.h"
#include "model/array.h"

/* Exit status of a process whose machine died mid-command. */
#define IO_POWERLOSS_STATUS 99

static struct io_counters counters;
static atomic_uint_fast64_t call_count;
static uint64_t fault_at;
static enum io_fault_kind fault_kind;
static bool count_at_exit;
static char *call_kinds;		/* one letter per call, for count */
static size_t call_kinds_length;
static uint64_t powerloss_at;		/* UINT64_MAX: only at exit */
static uint64_t kill_at;
static uint64_t batch_fault_at;
static atomic_uint_fast64_t batch_count;
static char hold_phase[64];
static uint64_t hold_bytes;
static char hold_path[4096];
static atomic_bool hold_done;
static pthread_once_t environment_once = PTHREAD_ONCE_INIT;
static bool environment_read;

static void
io_at_exit(int status, void *unused)
{
	(void)unused;
	if (count_at_exit)
		fprintf(stderr, "hearth: io: %llu write-class calls: %s\n",
		    (unsigned long long)atomic_load(&call_count), call_kinds ? call_kinds : "");
	if (powerloss_enabled()) {
		char when[64];
		/* The command has reported what it did: that must reach its
		 * reader, as it would have before the plug was pulled. */
		fflush(NULL);
		snprintf(when, sizeof when, "after the command ended (status %d)", status);
		powerloss_die(when, status);
	}
}

static void
read_fault_specification(const char *spec)
{
	char kind[16] = "";
	unsigned long long nth;

	if (spec == NULL)
		return;
	if (strcmp(spec, "count") == 0) {
		count_at_exit = true;
		return;
	}
	if (sscanf(spec, "%llu:%15s", &nth, kind) < 1)
		return;
	fault_at = nth;
	if (strcmp(kind, "ENOSPC") == 0)
		fault_kind = IO_FAULT_ENOSPC;
	else if (strcmp(kind, "SHORT") == 0)
		fault_kind = IO_FAULT_SHORT;
	else
		fault_kind = IO_FAULT_EIO;
}

static void
read_powerloss_specification(const char *spec)
{
	unsigned long long nth;

	if (spec == NULL || spec[0] == '\0')
		return;
	if (strcmp(spec, "exit") == 0)
		powerloss_at = UINT64_MAX;
	else if (sscanf(spec, "%llu", &nth) == 1 && nth > 0)
		powerloss_at = nth;
	else
		return;
	powerloss_enable();
}

static void
read_hold_specification(const char *spec)
{
	const char *colon = spec != NULL ? strchr(spec, ':') : NULL;
	unsigned long long bytes;
	int path_at = 0;

	if (colon == NULL || (size_t)(colon - spec) >= sizeof hold_phase)
		return;
	if (sscanf(colon + 1, "%llu:%n", &bytes, &path_at) < 1 || path_at == 0 ||
	    strlen(colon + 1 + path_at) >= sizeof hold_path)
		return;
	memcpy(hold_phase, spec, (size_t)(colon - spec));
	hold_phase[colon - spec] = '\0';
	hold_bytes = bytes;
	strcpy(hold_path, colon + 1 + path_at);
}

static void
read_environment(void)
{
	const char *kill_spec = getenv("HEARTH_KILL");
	unsigned long long nth;

	if (!environment_read) {
		read_fault_specification(getenv("HEARTH_FAULT"));
		read_powerloss_specification(getenv("HEARTH_POWERLOSS"));
		if (kill_spec != NULL && sscanf(kill_spec, "%llu", &nth) == 1)
			kill_at = nth;
		const char *batch_spec = getenv("HEARTH_FAULT_BATCH");
		if (batch_spec != NULL && sscanf(batch_spec, "%llu", &nth) == 1)
			batch_fault_at = nth;
		read_hold_specification(getenv("HEARTH_HOLD"));
	}
	environment_read = true;
	if (count_at_exit || powerloss_enabled())
		on_exit(io_at_exit, NULL);
}

void
io_fault_arm(uint64_t nth, enum io_fault_kind kind)
{
	/* Armed by a unit test: the environment no longer decides. */
	environment_read = true;
	pthread_once(&environment_once, read_environment);
	fault_at = nth ? atomic_load(&call_count) + nth : 0;
	fault_kind = kind;
}

uint64_t
io_call_count(void)
{
	return atomic_load(&call_count);
}

const struct io_counters *
io_counters(void)
{
	return &counters;
}

void
io_count_written(uint64_t bytes)
{
	counters.bytes_written += bytes;
}

/* HEARTH_FAULT=count lists every call's kind (enum io_call), so a walk can
 * say what it failed and try short writes only where there is a write. */
static void
remember_call(enum io_call call)
{
	static size_t capacity;

	if (!count_at_exit)
		return;
	call_kinds = array_grow(call_kinds, &capacity, call_kinds_length + 2, 1);
	call_kinds[call_kinds_length++] = (char)call;
	call_kinds[call_kinds_length] = '\0';
}

/* Counts a write-class call; true when this one must fail (errno set). */
static bool
injected_fault(enum io_call call)
{
	pthread_once(&environment_once, read_environment);
	uint64_t count = atomic_fetch_add(&call_count, 1) + 1;
	remember_call(call);
	if (count == kill_at)
		raise(SIGKILL);
	if (count == powerloss_at) {
		char when[64];
		snprintf(when, sizeof when, "at write-class call %llu", (unsigned long long)count);
		powerloss_die(when, IO_POWERLOSS_STATUS);
	}
	if (fault_at == 0 || count != fault_at)
		return false;
	errno = fault_kind == IO_FAULT_ENOSPC ? ENOSPC : EIO;
	return true;
}

bool
io_batch_fault_due(void)
{
	pthread_once(&environment_once, read_environment);
	uint64_t count = atomic_fetch_add(&batch_count, 1) + 1;
	if (batch_fault_at == 0 || count != batch_fault_at)
		return false;
	errno = EIO;
	return true;
}

bool
io_hold_due(const char *phase, uint64_t bytes_counted)
{
	pthread_once(&environment_once, read_environment);
	if (hold_path[0] == '\0' || phase == NULL || bytes_counted < hold_bytes ||
	    strcmp(phase, hold_phase) != 0)
		return false;
	return !atomic_exchange(&hold_done, true);
}

void
io_hold(void)
{
	/* Plain calls, not the wrappers: the hold is no write of the
	 * command's, and must not move a fault walk's count. */
	int fd = open(hold_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	dprintf(fd, "%ld\n", (long)getpid());
	close(fd);
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
	time_t deadline = time(NULL) + 600;
	while (access(hold_path, F_OK) == 0 && time(NULL) < deadline)
		nanosleep(&pause, NULL);
}

bool
io_fault_due(enum io_call call, enum io_fault_kind *kind)
{
	bool due = injected_fault(call);
	*kind = fault_kind;
	return due;
}

bool
io_flush_simulated(void)
{
	pthread_once(&environment_once, read_environment);
	return fault_at != 0 || count_at_exit || kill_at != 0 || powerloss_enabled();
}

/* A flush, unless a test mode only pretends (io_flush_simulated). */
static int
flush(int (*real)(int), int fd)
{
	return io_flush_simulated() ? 0 : real(fd);
}

/* A failure for space notes where (space.h), so the message can name the
 * device; errno is kept. */
static int
noted(int status, int fd)
{
	if (status < 0 && errno == ENOSPC) {
		space_note_fd(fd);
		errno = ENOSPC;
	}
	return status;
}

int
io_open(int dir_fd, const char *path, int flags, mode_t mode)
{
	if ((flags & (O_WRONLY | O_RDWR | O_CREAT)) && injected_fault(IO_CALL_OPEN))
		return noted(-1, dir_fd);
	if (!powerloss_enabled()) {
		int fd = openat(dir_fd, path, flags | O_CLOEXEC, mode);
		if (fd >= 0 && (flags & O_CREAT))
			counters.files_created++;
		return noted(fd, dir_fd);
	}
	/* The simulator must see a truncation before it happens, so it is
	 * made here, after the open, instead of by O_TRUNC. */
	struct powerloss_change *change = flags & O_CREAT ? powerloss_before_create(dir_fd, path)
							   : NULL;
	int fd = openat(dir_fd, path, (flags & ~O_TRUNC) | O_CLOEXEC, mode);
	powerloss_finish(change, fd >= 0);
	if (fd >= 0 && (flags & O_CREAT))
		counters.files_created++;
	if (fd >= 0 && (flags & O_TRUNC) && (flags & (O_WRONLY | O_RDWR))) {
		powerloss_before_truncate(fd, 0);
		if (ftruncate(fd, 0) != 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
	}
	return fd;
}

static ssize_t
write_once(int fd, const uint8_t *data, size_t length, off_t offset, bool positioned)
{
	if (powerloss_enabled())
		powerloss_before_write(fd, positioned ? offset : lseek(fd, 0, SEEK_CUR), length);
	return positioned ? pwrite(fd, data, length, offset) : write(fd, data, length);
}

static int
write_some(int fd, const uint8_t *data, size_t length, off_t offset, bool positioned)
{
	size_t done = 0;

	if (injected_fault(IO_CALL_WRITE)) {
		if (fault_kind != IO_FAULT_SHORT || length < 2)
			return noted(-1, fd);
		/* A short write: half the bytes land, then the disk is full. */
		ssize_t n = write_once(fd, data, length / 2, offset, positioned);
		if (n > 0)
			counters.bytes_written += (uint64_t)n;
		errno = ENOSPC;
		return noted(-1, fd);
	}
	while (done < length) {
		ssize_t n = write_once(fd, data + done, length - done, offset + (off_t)done,
		    positioned);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return noted(-1, fd);
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
	if (injected_fault(IO_CALL_SYNC))
		return noted(-1, fd);
	counters.syncs++;
	if (flush(fsync, fd) != 0)
		return noted(-1, fd);
	powerloss_flushed(fd);
	return 0;
}

int
io_start_writeback(int fd, off_t offset, off_t length)
{
	/* Only starts writeback: nothing is durable after it, so the
	 * power-loss simulator has nothing to note. */
	if (injected_fault(IO_CALL_HINT))
		return -1;
	return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int
io_fdatasync(int fd)
{
	if (injected_fault(IO_CALL_SYNC))
		return -1;
	counters.syncs++;
	if (flush(fdatasync, fd) != 0)
		return -1;
	powerloss_flushed(fd);
	return 0;
}

int
io_syncfs(int fd)
{
	if (injected_fault(IO_CALL_SYNC))
		return -1;
	counters.syncs++;
	if (flush(syncfs, fd) != 0)
		return -1;
	powerloss_flushed_file_system(fd);
	return 0;
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
	if (injected_fault(IO_CALL_RENAME))
		return noted(-1, to_dir);
	struct powerloss_change *change = powerloss_before_rename(from_dir, from, to_dir, to);
	int status = renameat(from_dir, from, to_dir, to);
	powerloss_finish(change, status == 0);
	return noted(status, to_dir);
}

int
io_rename_noreplace(int from_dir, const char *from, int to_dir, const char *to)
{
	if (injected_fault(IO_CALL_RENAME))
		return noted(-1, to_dir);
	struct powerloss_change *change = powerloss_before_rename(from_dir, from, to_dir, to);
	int status = renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE);
	powerloss_finish(change, status == 0);
	return noted(status, to_dir);
}

int
io_mkdir(int dir_fd, const char *path, mode_t mode)
{
	if (injected_fault(IO_CALL_MKDIR))
		return noted(-1, dir_fd);
	struct powerloss_change *change = powerloss_before_mkdir(dir_fd, path);
	int status = mkdirat(dir_fd, path, mode);
	powerloss_finish(change, status == 0);
	return noted(status, dir_fd);
}

int
io_unlink(int dir_fd, const char *path)
{
	if (injected_fault(IO_CALL_REMOVE))
		return -1;
	struct powerloss_change *change = powerloss_before_remove(dir_fd, path);
	int status = unlinkat(dir_fd, path, 0);
	powerloss_finish(change, status == 0);
	return status;
}

int
io_rmdir(int dir_fd, const char *path)
{
	if (injected_fault(IO_CALL_REMOVE))
		return -1;
	struct powerloss_change *change = powerloss_before_remove(dir_fd, path);
	int status = unlinkat(dir_fd, path, AT_REMOVEDIR);
	powerloss_finish(change, status == 0);
	return status;
}

int
io_symlink(const char *target, int dir_fd, const char *path)
{
	if (injected_fault(IO_CALL_LINK))
		return noted(-1, dir_fd);
	struct powerloss_change *change = powerloss_before_create(dir_fd, path);
	int status = symlinkat(target, dir_fd, path);
	powerloss_finish(change, status == 0);
	return noted(status, dir_fd);
}

/* Mode, times and xattrs below are counted and faulted, but the power-loss
 * simulator never undoes them (a stated limit, io_powerloss.c). */

int
io_fchmod(int fd, mode_t mode)
{
	if (injected_fault(IO_CALL_ATTRIBUTE))
		return -1;
	return fchmod(fd, mode);
}

int
io_chmod(int dir_fd, const char *path, mode_t mode)
{
	if (injected_fault(IO_CALL_ATTRIBUTE))
		return -1;
	/* Links have no mode of their own on Linux; AT_SYMLINK_NOFOLLOW is
	 * refused there, so the caller never asks for a link. */
	return fchmodat(dir_fd, path, mode, 0);
}

static struct timespec
io_timespec(__int128 nanoseconds)
{
	struct timespec time = { .tv_sec = (time_t)(nanoseconds / 1000000000),
				 .tv_nsec = (long)(nanoseconds % 1000000000) };
	if (time.tv_nsec < 0) {
		time.tv_sec -= 1;
		time.tv_nsec += 1000000000;
	}
	return time;
}

int
io_utimens(int dir_fd, const char *path, __int128 mtime_ns)
{
	struct timespec times[2] = { { .tv_sec = 0, .tv_nsec = UTIME_OMIT }, io_timespec(mtime_ns) };

	if (injected_fault(IO_CALL_ATTRIBUTE))
		return -1;
	return utimensat(dir_fd, path, times, AT_SYMLINK_NOFOLLOW);
}

int
io_futimens(int fd, __int128 mtime_ns)
{
	struct timespec times[2] = { { .tv_sec = 0, .tv_nsec = UTIME_OMIT }, io_timespec(mtime_ns) };

	if (injected_fault(IO_CALL_ATTRIBUTE))
		return -1;
	return futimens(fd, times);
}

int
io_ftruncate(int fd, off_t length)
{
	if (injected_fault(IO_CALL_TRUNCATE))
		return noted(-1, fd);
	powerloss_before_truncate(fd, length);
	return noted(ftruncate(fd, length), fd);
}

int
io_fsetxattr(int fd, const char *name, const void *value, size_t size)
{
	if (injected_fault(IO_CALL_ATTRIBUTE))
		return -1;
	return fsetxattr(fd, name, value, size, 0);
}
