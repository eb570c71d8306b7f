/* The SQLite VFS shim (store_vfs.h): a VFS named "hearth" that wraps the
 * default one ("unix"). Its files forward every method to the real file;
 * xWrite, xSync, xTruncate and xDelete first count a write-class call with
 * io_fault_due (so HEARTH_FAULT can fail them) and tell the power-loss
 * simulator what is about to change (io_powerloss.h). */
#include "backend/store/store_vfs.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "backend/io/io.h"
#include "backend/io/io_powerloss.h"

#define STORE_VFS_NAME "hearth"

/* Our part of an open file; the real VFS's part follows it in the same
 * allocation (szOsFile covers both). */
struct store_vfs_file {
	sqlite3_file base;
	sqlite3_file *real;
	const char *path;	/* SQLite keeps it valid until xClose */
	/* In power-loss mode, a descriptor of our own for the simulator; it is
	 * never closed (closing would drop SQLite's POSIX locks on the file). */
	int powerloss_fd;
	/* The unix VFS fsyncs the folder of a journal or WAL it created at
	 * that file's first sync (its DIRSYNC flag); the simulator is told. */
	bool syncs_folder;
};

#define STORE_VFS_REAL_OFFSET \
	((sizeof(struct store_vfs_file) + _Alignof(max_align_t) - 1) & \
	    ~(_Alignof(max_align_t) - 1))

static sqlite3_vfs *real_vfs;
static sqlite3_vfs shim_vfs;
static pthread_once_t register_once = PTHREAD_ONCE_INIT;
static bool registered;

static sqlite3_file *
real_file(sqlite3_file *file)
{
	return ((struct store_vfs_file *)file)->real;
}

/* ---- the file methods ------------------------------------------------------------ */

static int
shim_close(sqlite3_file *file)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xClose(real);
}

static int
shim_read(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xRead(real, data, amount, offset);
}

static int
shim_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset)
{
	struct store_vfs_file *shim = (struct store_vfs_file *)file;
	sqlite3_file *real = shim->real;
	enum io_fault_kind kind;

	if (io_fault_due(IO_CALL_DATABASE_WRITE, &kind)) {
		if (kind == IO_FAULT_EIO)
			return SQLITE_IOERR_WRITE;
		/* A short write: half lands, then the disk is full, which is
		 * how the unix VFS reports a short write itself. */
		if (kind == IO_FAULT_SHORT && amount >= 2) {
			if (shim->powerloss_fd >= 0)
				powerloss_before_write(shim->powerloss_fd, offset, (size_t)amount / 2);
			real->pMethods->xWrite(real, data, amount / 2, offset);
		}
		return SQLITE_FULL;
	}
	if (shim->powerloss_fd >= 0)
		powerloss_before_write(shim->powerloss_fd, offset, (size_t)amount);
	int status = real->pMethods->xWrite(real, data, amount, offset);
	if (status == SQLITE_OK)
		io_count_written((uint64_t)amount);
	return status;
}

static int
shim_truncate(sqlite3_file *file, sqlite3_int64 size)
{
	struct store_vfs_file *shim = (struct store_vfs_file *)file;
	enum io_fault_kind kind;

	if (io_fault_due(IO_CALL_DATABASE_TRUNCATE, &kind))
		return SQLITE_IOERR_TRUNCATE;
	if (shim->powerloss_fd >= 0)
		powerloss_before_truncate(shim->powerloss_fd, size);
	return shim->real->pMethods->xTruncate(shim->real, size);
}

static int
shim_sync(sqlite3_file *file, int flags)
{
	struct store_vfs_file *shim = (struct store_vfs_file *)file;
	enum io_fault_kind kind;

	if (io_fault_due(IO_CALL_DATABASE_SYNC, &kind))
		return SQLITE_IOERR_FSYNC;
	int status = io_flush_simulated() ? SQLITE_OK
					  : shim->real->pMethods->xSync(shim->real, flags);
	if (status != SQLITE_OK || shim->powerloss_fd < 0)
		return status;
	powerloss_flushed(shim->powerloss_fd);
	if (shim->syncs_folder)
		powerloss_flushed_folder_of(AT_FDCWD, shim->path);
	shim->syncs_folder = false;
	return status;
}

static int
shim_file_size(sqlite3_file *file, sqlite3_int64 *size)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xFileSize(real, size);
}

static int
shim_lock(sqlite3_file *file, int level)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xLock(real, level);
}

static int
shim_unlock(sqlite3_file *file, int level)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xUnlock(real, level);
}

static int
shim_check_reserved_lock(sqlite3_file *file, int *out)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xCheckReservedLock(real, out);
}

static int
shim_file_control(sqlite3_file *file, int operation, void *argument)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xFileControl(real, operation, argument);
}

static int
shim_sector_size(sqlite3_file *file)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xSectorSize(real);
}

static int
shim_device_characteristics(sqlite3_file *file)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xDeviceCharacteristics(real);
}

/* The WAL index lives in shared memory the real file maps; SQLite rebuilds
 * it after a crash, so it is forwarded untouched (and not simulated). */
static int
shim_shm_map(sqlite3_file *file, int page, int page_size, int extend, void volatile **out)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xShmMap(real, page, page_size, extend, out);
}

static int
shim_shm_lock(sqlite3_file *file, int offset, int count, int flags)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xShmLock(real, offset, count, flags);
}

static void
shim_shm_barrier(sqlite3_file *file)
{
	sqlite3_file *real = real_file(file);
	real->pMethods->xShmBarrier(real);
}

static int
shim_shm_unmap(sqlite3_file *file, int delete_flag)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xShmUnmap(real, delete_flag);
}

static int
shim_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xFetch(real, offset, amount, out);
}

static int
shim_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *page)
{
	sqlite3_file *real = real_file(file);
	return real->pMethods->xUnfetch(real, offset, page);
}

static const sqlite3_io_methods shim_methods = {
	.iVersion = 3,
	.xClose = shim_close,
	.xRead = shim_read,
	.xWrite = shim_write,
	.xTruncate = shim_truncate,
	.xSync = shim_sync,
	.xFileSize = shim_file_size,
	.xLock = shim_lock,
	.xUnlock = shim_unlock,
	.xCheckReservedLock = shim_check_reserved_lock,
	.xFileControl = shim_file_control,
	.xSectorSize = shim_sector_size,
	.xDeviceCharacteristics = shim_device_characteristics,
	.xShmMap = shim_shm_map,
	.xShmLock = shim_shm_lock,
	.xShmBarrier = shim_shm_barrier,
	.xShmUnmap = shim_shm_unmap,
	.xFetch = shim_fetch,
	.xUnfetch = shim_unfetch,
};

/* ---- the VFS methods ---------------------------------------------------------------- */

static int
shim_open(sqlite3_vfs *vfs, const char *path, sqlite3_file *file, int flags, int *out_flags)
{
	struct store_vfs_file *shim = (struct store_vfs_file *)file;
	bool creates = path != NULL && (flags & SQLITE_OPEN_CREATE);

	/* Reads HEARTH_POWERLOSS, if no write has yet: the store opens first,
	 * and the simulator must follow its files from their opening. */
	(void)io_flush_simulated();
	shim->real = (sqlite3_file *)((char *)file + STORE_VFS_REAL_OFFSET);
	shim->path = path;
	shim->powerloss_fd = -1;
	shim->syncs_folder = creates &&
	    (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL));
	struct powerloss_change *change = creates ? powerloss_before_create(AT_FDCWD, path) : NULL;
	int status = real_vfs->xOpen(real_vfs, path, shim->real, flags, out_flags);
	powerloss_finish(change, status == SQLITE_OK);
	if (status != SQLITE_OK) {
		/* SQLite calls xClose only when pMethods is set. */
		file->pMethods = NULL;
		return status;
	}
	file->pMethods = &shim_methods;
	if (powerloss_enabled() && path != NULL && !(flags & SQLITE_OPEN_DELETEONCLOSE))
		shim->powerloss_fd = open(path, O_RDWR | O_CLOEXEC);
	return status;
}

static int
shim_delete(sqlite3_vfs *vfs, const char *path, int sync_folder)
{
	enum io_fault_kind kind;

	if (io_fault_due(IO_CALL_DATABASE_REMOVE, &kind))
		return SQLITE_IOERR_DELETE;
	struct powerloss_change *change = powerloss_before_remove(AT_FDCWD, path);
	int status = real_vfs->xDelete(real_vfs, path, sync_folder);
	powerloss_finish(change, status == SQLITE_OK);
	if (status == SQLITE_OK && sync_folder)
		powerloss_flushed_folder_of(AT_FDCWD, path);
	return status;
}

static int
shim_access(sqlite3_vfs *vfs, const char *path, int flags, int *out)
{
	return real_vfs->xAccess(real_vfs, path, flags, out);
}

static int
shim_full_pathname(sqlite3_vfs *vfs, const char *path, int size, char *out)
{
	return real_vfs->xFullPathname(real_vfs, path, size, out);
}

static void *
shim_dl_open(sqlite3_vfs *vfs, const char *path)
{
	return real_vfs->xDlOpen(real_vfs, path);
}

static void
shim_dl_error(sqlite3_vfs *vfs, int size, char *out)
{
	real_vfs->xDlError(real_vfs, size, out);
}

static void (*shim_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void)
{
	return real_vfs->xDlSym(real_vfs, library, symbol);
}

static void
shim_dl_close(sqlite3_vfs *vfs, void *library)
{
	real_vfs->xDlClose(real_vfs, library);
}

static int
shim_randomness(sqlite3_vfs *vfs, int size, char *out)
{
	return real_vfs->xRandomness(real_vfs, size, out);
}

static int
shim_sleep(sqlite3_vfs *vfs, int microseconds)
{
	return real_vfs->xSleep(real_vfs, microseconds);
}

static int
shim_current_time(sqlite3_vfs *vfs, double *out)
{
	return real_vfs->xCurrentTime(real_vfs, out);
}

static int
shim_get_last_error(sqlite3_vfs *vfs, int size, char *out)
{
	return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, out) : 0;
}

static int
shim_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
	if (real_vfs->iVersion >= 2 && real_vfs->xCurrentTimeInt64 != NULL)
		return real_vfs->xCurrentTimeInt64(real_vfs, out);
	double days;
	int status = real_vfs->xCurrentTime(real_vfs, &days);
	*out = (sqlite3_int64)(days * 86400000.0);
	return status;
}

static void
store_vfs_register(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	if (real_vfs == NULL)
		return;
	shim_vfs = (sqlite3_vfs){
		.iVersion = 2,
		.szOsFile = (int)STORE_VFS_REAL_OFFSET + real_vfs->szOsFile,
		.mxPathname = real_vfs->mxPathname,
		.zName = STORE_VFS_NAME,
		.xOpen = shim_open,
		.xDelete = shim_delete,
		.xAccess = shim_access,
		.xFullPathname = shim_full_pathname,
		.xDlOpen = shim_dl_open,
		.xDlError = shim_dl_error,
		.xDlSym = shim_dl_sym,
		.xDlClose = shim_dl_close,
		.xRandomness = shim_randomness,
		.xSleep = shim_sleep,
		.xCurrentTime = shim_current_time,
		.xGetLastError = shim_get_last_error,
		.xCurrentTimeInt64 = shim_current_time_int64,
	};
	registered = sqlite3_vfs_register(&shim_vfs, 0) == SQLITE_OK;
}

const char *
store_vfs_name(void)
{
	pthread_once(&register_once, store_vfs_register);
	return registered ? STORE_VFS_NAME : NULL;
}
