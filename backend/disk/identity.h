/* Durable identity on disk (docs/DESIGN.md §6): a file or folder carries its node
 * id in the user.hearth.id extended attribute, so renames and moves are
 * recognised across restarts, devices and roots, not only by inode
 * evidence. Where the file system keeps no user xattrs, a folder gets a
 * .hearth-id marker file instead (hearth(1), FILES); a user's own file,
 * link or folder of that name is theirs, recorded like any other and never
 * touched. A copy carries the id too; the scan gives the copy a fresh one. */
#ifndef HEARTH_BACKEND_IDENTITY_H
#define HEARTH_BACKEND_IDENTITY_H

#include <stdbool.h>

#include "model/id.h"

#define IDENTITY_XATTR "user.hearth.id"
#define IDENTITY_MARKER ".hearth-id"

/* The id a file (not a link) at path below root_fd claims; false if none. */
bool identity_read_file(int root_fd, const char *path, struct node_id *out);
/* Stamps an open file with its id; false when it could not (no xattrs on
 * this file system, or no permission): identity then rests on the index. */
bool identity_write_file(int fd, struct node_id id);

/* The id a folder claims: its xattr, else a marker file of hearth's (an
 * older build's, or one where xattrs are not kept); false if none. */
bool identity_read_folder(int root_fd, const char *path, struct node_id *out);
/* Gives a folder its id: the xattr, and then a marker file of hearth's
 * there is removed; where xattrs are not kept, a marker file, unless the
 * name is a user's (then -1, EEXIST). 0, or -1 with errno (EACCES, EPERM,
 * EROFS: the folder cannot be written; identity rests on its inode). */
int identity_write_folder(int root_fd, const char *path, struct node_id id);

/* Whether a folder's user.hearth.id is there but names no node. */
bool identity_folder_damaged(int root_fd, const char *path);

/* Whether name in the open folder folder_fd is a marker file of hearth's:
 * a regular file holding a node id, nothing else. */
bool identity_is_marker(int folder_fd, const char *name);
/* Removes folder_fd's marker file if it is hearth's; 0, or -1 with errno. */
int identity_remove_marker(int folder_fd);

/* A Home's markers moved into xattrs (docs/DESIGN.md §6, hearth(1)): every folder
 * of the root below root_fd whose marker file is hearth's gets its id as
 * an xattr (one it has already wins) and loses the file; where xattrs are
 * not kept the marker stays. True when no marker is left that xattrs could
 * hold. Never follows links, never enters the root's .hearth. */
bool identity_migrate_root(int root_fd);

#endif
