/* What the checkout_*.c files share, and only they: reaching a path of the
 * tree without following links, writing one node there, the target of a
 * checkout, and the resolve's pending set inside a checkout's transaction. */
#ifndef HEARTH_BACKEND_CHECKOUT_PARTS_H
#define HEARTH_BACKEND_CHECKOUT_PARTS_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "backend/disk/home.h"
#include "backend/history/blob.h"
#include "backend/history/history.h"
#include "backend/history/tree.h"
#include "backend/store/hash.h"

/* Every change checkout makes to the tree is made relative to the folder
 * that holds it (checkout_write.c). */
struct checkout_parent {
	int folder;		/* the folder holding name; the caller closes it */
	const char *name;	/* the last component, pointing into the path */
};

/* Opens the folder holding path below dir_fd, component by component and
 * following no link; -1 with errno when it cannot. */
int checkout_open_parent(int dir_fd, const char *path, struct checkout_parent *out);
/* The error for a path whose folder could not be reached. */
int checkout_unreachable(struct hearth_error *error, const char *what, const char *path);
/* lstat of a path below dir_fd, reached the same way. */
int checkout_stat(int dir_fd, const char *path, struct stat *out);
/* How checkout_write_content writes a node: place is where its blob
 * starts in the packs (NULL: looked up); sync is durability full's fsync;
 * stamp marks the file with the node's id, which only a file of the Home
 * carries (an export is not a Home). */
struct checkout_write_how {
	const struct blob_place *place;
	bool sync;
	bool writeback;		/* the command flushes at its end: big files start early */
	bool stamp;
	struct checkout_folder_cache *folders;	/* NULL: each folder opened anew */
	/* The process's umask (checkout_process_umask), when known: a file
	 * it leaves with its mode needs no fchmod. */
	bool umask_known;
	mode_t umask;
	/* Counts each chunk's bytes as written, and stops between chunks
	 * when the caller cancels (HEARTH_CANCELLED); may be NULL. */
	struct meter *meter;
	/* A clone's files written as they arrived (prefill.h), or NULL. */
	struct prefill *prefill;
};

/* The folder the last file was written in, kept open for the next: a
 * tree written in pack order writes a folder's files one after another
 * (export), and opening it again for each is two calls a file. */
struct checkout_folder_cache {
	char path[PATH_MAX];
	int fd;			/* -1: none yet */
};

void checkout_folder_cache_init(struct checkout_folder_cache *cache);
void checkout_folder_cache_close(struct checkout_folder_cache *cache);
/* The folder holding path below dir_fd: dir_fd itself for a name with no
 * folder, else the cache's when it is that folder (cache may be NULL).
 * *owned says the caller releases it (checkout_release_parent). */
int checkout_reach_parent(int dir_fd, const char *path, struct checkout_folder_cache *cache,
    struct checkout_parent *out, bool *owned);
/* Closes an owned folder, keeping errno. */
void checkout_release_parent(struct checkout_parent *parent, bool owned);

/* Sets how's umask where it can be read without setting it. */
void checkout_process_umask(struct checkout_write_how *how);

/* Writes a node's content at name below dir_fd as a new file (or link). */
int checkout_write_content(struct hearth *home, int dir_fd, const char *name,
    const struct tree_node *node, const struct checkout_write_how *how,
    struct hearth_error *error);

/* A node to write and where its content starts in the packs: writing in
 * pack order reads and decompresses each frame once (in tree order the
 * reader's few cached frames thrash). */
struct checkout_placed {
	struct tree_node *node;
	void *owner;		/* the caller's own item for it (checkout's step) */
	struct blob_place place;
};

/* Finds each node's place and sorts them into pack order. */
void checkout_place_and_sort(struct hearth *home, struct checkout_placed *nodes, size_t count);
/* Folders in a path, counting the last component. */
int checkout_depth(const char *path);
/* qsort order of struct tree_node pointers, shallowest first (paths set). */
int checkout_compare_nodes_by_depth(const void *a, const void *b);

/* Resolves what to check out: a version, or (NULL) the head state. */
int checkout_target(struct hearth *home, const char *spec, struct vv *vv, char id_hex[HASH_HEX],
    struct hearth_error *error);

/* Clears a resolve's pending set inside the caller's transaction
 * (checkout_pending.c). */
int checkout_clear_pending(struct hearth *home, struct hearth_error *error);

#endif
