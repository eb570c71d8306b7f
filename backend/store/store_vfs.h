/* The SQLite VFS shim: store.db, its WAL and journals are written through
 * the default VFS as ever, but each write, sync, truncation and removal is
 * first counted by the I/O seam (io.h), so fault injection and the
 * power-loss simulator see the database as they see packs and files. */
#ifndef HEARTH_BACKEND_STORE_VFS_H
#define HEARTH_BACKEND_STORE_VFS_H

/* Registers the shim once per process (not as the default VFS) and returns
 * its name for sqlite3_open_v2, or NULL when SQLite has no default VFS. */
const char *store_vfs_name(void);

#endif
