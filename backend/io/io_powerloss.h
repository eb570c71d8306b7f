/* The power-loss simulator behind the I/O seam (tests only): io.c and the
 * SQLite VFS shim (store_vfs.c) report every change they are about to make,
 * and at the chosen moment everything no flush made durable is undone
 * before the process dies. How and with what limits: io_powerloss.c. */
#ifndef HEARTH_BACKEND_IO_POWERLOSS_H
#define HEARTH_BACKEND_IO_POWERLOSS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whether HEARTH_POWERLOSS switched the simulator on (io.c decides). */
bool powerloss_enabled(void);
void powerloss_enable(void);

/* Undoes every change not yet durable, says so on stderr, and _exits with
 * status. when says at what moment, for the message. */
_Noreturn void powerloss_die(const char *when, int status);

/* Content. Called before the write or truncation, with the fd that will
 * make it (any access mode: the simulator keeps its own duplicate). */
void powerloss_before_write(int fd, off_t offset, size_t length);
void powerloss_before_truncate(int fd, off_t length);

/* Flushes. fsync or fdatasync of fd: a file's bytes, or a folder's
 * entries, are durable from now. syncfs: everything on fd's file system. */
void powerloss_flushed(int fd);
void powerloss_flushed_file_system(int fd);
/* The folder that holds path (relative to dir_fd) was fsynced by someone
 * the seam cannot see (SQLite's unix VFS syncs a new journal's folder). */
void powerloss_flushed_folder_of(int dir_fd, const char *path);

/* Names. Each change is prepared before the call (what it replaces or
 * removes is kept aside so it can be put back) and then finished with
 * whether the call succeeded; a failed call leaves nothing to undo. */
struct powerloss_change;
struct powerloss_change *powerloss_before_create(int dir_fd, const char *path);
struct powerloss_change *powerloss_before_mkdir(int dir_fd, const char *path);
struct powerloss_change *powerloss_before_rename(int from_dir, const char *from, int to_dir,
    const char *to);
struct powerloss_change *powerloss_before_remove(int dir_fd, const char *path);
void powerloss_finish(struct powerloss_change *change, bool succeeded);

#endif
