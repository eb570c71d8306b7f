/* The I/O seam: every write the backend makes to the store or the working
 * tree goes through these wrappers (the database through the VFS shim of
 * store_vfs.c), so a test can make the Nth one fail or lose power there
 * (HEARTH_FAULT, HEARTH_POWERLOSS: see io.c) and prove a command ends
 * cleanly at every step. `make lint-io` keeps writes from going around it.
 * Reads use the system calls directly. All return 0 or -1 with errno set. */
#ifndef HEARTH_BACKEND_IO_H
#define HEARTH_BACKEND_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int io_open(int dir_fd, const char *path, int flags, mode_t mode);	/* returns fd */
int io_write_all(int fd, const void *data, size_t length);
int io_pwrite_all(int fd, const void *data, size_t length, off_t offset);
int io_fsync(int fd);
/* Starts writeback of a range early (no durability promise of its own). */
int io_start_writeback(int fd, off_t offset, off_t length);
int io_fdatasync(int fd);
int io_syncfs(int fd);
int io_close(int fd);
int io_rename(int from_dir, const char *from, int to_dir, const char *to);
/* rename that fails with EEXIST instead of replacing (renameat2 NOREPLACE) */
int io_rename_noreplace(int from_dir, const char *from, int to_dir, const char *to);
int io_mkdir(int dir_fd, const char *path, mode_t mode);
int io_unlink(int dir_fd, const char *path);
int io_rmdir(int dir_fd, const char *path);
int io_symlink(const char *target, int dir_fd, const char *path);
int io_fchmod(int fd, mode_t mode);
int io_chmod(int dir_fd, const char *path, mode_t mode);	/* never follows links */
int io_utimens(int dir_fd, const char *path, __int128 mtime_ns);	/* never follows links */
int io_futimens(int fd, __int128 mtime_ns);
int io_ftruncate(int fd, off_t length);
int io_fsetxattr(int fd, const char *name, const void *value, size_t size);

/* Counters every write bumps, for `hearth stats` and the write-amplification
 * figures (bytes written per stored byte). */
struct io_counters {
	uint64_t writes;
	uint64_t bytes_written;
	uint64_t syncs;
	uint64_t files_created;
};
const struct io_counters *io_counters(void);
/* Counts bytes a library wrote through its own calls: SQLite's, which
 * reach the disk through the VFS shim (store_vfs.c), not through here. */
void io_count_written(uint64_t bytes);

/* Tests: fail the Nth write-class call from now with error (EIO, ENOSPC) or
 * make it a short write. 0 turns injection off. Also read from HEARTH_FAULT
 * ("N:EIO", "N:ENOSPC", "N:SHORT", "count") at the first call. */
enum io_fault_kind { IO_FAULT_EIO, IO_FAULT_ENOSPC, IO_FAULT_SHORT };
void io_fault_arm(uint64_t nth, enum io_fault_kind kind);
uint64_t io_call_count(void);	/* write-class calls so far */

/* What a write-class call does: its letter in the list HEARTH_FAULT=count
 * prints at exit, one per call in order. */
enum io_call {
	IO_CALL_OPEN = 'o',		/* open for writing or creating */
	IO_CALL_WRITE = 'w',
	IO_CALL_SYNC = 's',		/* fsync, fdatasync, syncfs */
	IO_CALL_HINT = 'h',		/* start writeback */
	IO_CALL_TRUNCATE = 't',
	IO_CALL_RENAME = 'r',
	IO_CALL_MKDIR = 'm',
	IO_CALL_REMOVE = 'u',		/* unlink, rmdir */
	IO_CALL_LINK = 'l',		/* symlink */
	IO_CALL_ATTRIBUTE = 'a',	/* mode, times, xattr */
	IO_CALL_DATABASE_WRITE = 'W',	/* the VFS shim's */
	IO_CALL_DATABASE_SYNC = 'S',
	IO_CALL_DATABASE_TRUNCATE = 'T',
	IO_CALL_DATABASE_REMOVE = 'U',
};

/* For writers that cannot call the wrappers (SQLite's VFS, store_vfs.c):
 * counts one write-class call; true when it must fail, with errno set and
 * *kind saying how (a SHORT write lands half its bytes, then fails). */
bool io_fault_due(enum io_call call, enum io_fault_kind *kind);

/* Tests (HEARTH_HOLD, io.c): true once, when a meter's count of phase's
 * bytes first reaches the hold's; io_hold then waits until the test lets
 * the command go on. */
bool io_hold_due(const char *phase, uint64_t bytes_counted);
void io_hold(void);

/* For the author's batches (author.c): counts one batch about to be
 * integrated; true, with errno EIO, for the one HEARTH_FAULT_BATCH names. */
bool io_batch_fault_due(void);

/* True under HEARTH_FAULT, HEARTH_KILL or HEARTH_POWERLOSS: flushes are
 * counted, can fail and (for the power-loss simulator) decide what
 * survives, but are not made for real, so a walk of hundreds of runs is
 * not bound by the disk (a killed process loses nothing a flush would
 * have kept: the kernel still holds it). Real runs always flush. */
bool io_flush_simulated(void);

#endif
