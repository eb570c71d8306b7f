/* Listing a folder: its open descriptor, its names in the order the file
 * system gives them and each one's lstat. The walk (scan.c) reads a folder
 * this way itself, or takes the listing a second thread made ahead of it,
 * so a whole walk's lstats run on the other core while it reads the index
 * (as git's preload-index spreads its lstats over threads). */
#ifndef HEARTH_BACKEND_SCAN_PREFETCH_H
#define HEARTH_BACKEND_SCAN_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "backend/disk/home.h"

/* One name of a listing: its lstat, or the error that lstat gave. */
struct scan_listed {
	size_t name;		/* offset into the listing's names */
	int error;		/* 0: status holds the lstat */
	/* A folder that may hold a Home's state (layout_may_be_home_state);
	 * false for the rest. */
	bool may_be_home_state;
	struct stat status;
};

/* One folder of one root as listed. When it did not open, opened is
 * false and open_error says why. fd is the open folder, or -1 where the
 * thread closed it, nothing in it needing the folder (no identity marker,
 * nothing that may be a Home's state). The listing stops at the first
 * name whose lstat was refused (the folder can be listed but not
 * searched): that name is its last. read_error is set when reading the
 * names failed part way. */
struct scan_listing {
	bool opened;
	int fd;
	int open_error;
	int read_error;
	char *names;		/* each name NUL-terminated, one after another */
	size_t names_length, names_capacity;
	struct scan_listed *entries;
	size_t count, capacity;
};

/* Reads the folder at path below root_fd (scan_open_folder: no link
 * followed) into out, with dirents (SCAN_DIRENT_BUFFER bytes, aligned as
 * a struct dirent64, as malloc's are) as scratch.
 * Never fails as a call: what failed is in out. */
#define SCAN_DIRENT_BUFFER (32 * 1024)
void scan_listing_read(int root_fd, const char *path, uint8_t *dirents, struct scan_listing *out);
/* Closes the folder (when still open) and frees the names. */
void scan_listing_free(struct scan_listing *listing);

/* The second thread and the folders it is asked to list, ahead of the
 * walk, one listing per root of the Home. */
struct scan_prefetch;

/* Starts the thread; NULL where it cannot be started (the walk then lists
 * every folder itself). The Home's root descriptors must stay open and
 * unchanged until scan_prefetch_stop. */
struct scan_prefetch *scan_prefetch_start(const struct hearth *home);
/* Asks for the folders names in folder (a path relative to the roots, ""
 * for their top), to be wanted in this order next: the walk's depth-first
 * order, so they go on top of what was asked before. */
void scan_prefetch_ask(struct scan_prefetch *prefetch, const char *folder,
    const char *const *names, size_t count);
/* The listings of path, one per root, into out (root_count of them; the
 * caller frees each): true when the thread listed it, waiting for it if it
 * is listing it now. False when it was not asked for or not begun: the
 * caller lists it. Folders asked for after path and not taken are given up:
 * a depth-first walk that wants path has left their subtree. */
bool scan_prefetch_take(struct scan_prefetch *prefetch, const char *path,
    struct scan_listing *out);
/* Waits until the thread has listed all it was asked for, within its
 * bounds: a take then finds each listing made (the walk never waits so;
 * its tests do, to take listings made ahead for certain). */
void scan_prefetch_settle(struct scan_prefetch *prefetch);
/* Stops the thread and frees every listing not taken. */
void scan_prefetch_stop(struct scan_prefetch *prefetch);

#endif
