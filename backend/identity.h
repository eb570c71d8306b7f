/* Durable identity on disk (docs/DESIGN.md §6): a file carries its node id in the
 * user.hearth.id extended attribute (where the file system has them), a
 * folder in a .hearth-id marker file, so renames and moves are recognised
 * across restarts, devices and roots, not only by inode evidence. A copy
 * carries the id too; the scan gives the copy a fresh one. */
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

/* The id a folder's marker claims; false if none or malformed. */
bool identity_read_folder(int root_fd, const char *path, struct node_id *out);
/* Writes (or replaces) a folder's marker; 0 or -1 with errno. */
int identity_write_folder(int root_fd, const char *path, struct node_id id);

#endif
