/* Layouts that cannot work, refused before anything is made (a state
 * folder inside or equal to a root, roots that nest or coincide), and
 * another Home's state folder found inside a Home, never recorded. */
#ifndef HEARTH_BACKEND_LAYOUT_H
#define HEARTH_BACKEND_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/hearth.h"
#include "config/config.h"

/* HEARTH_FAILED naming the config file and what is wrong, else 0. Paths
 * are compared with their existing parts resolved (symlinks too). */
int layout_check(const struct config *config, struct hearth_error *error);

/* Whether the folder name below dir_fd is a Home's state: a .hearth
 * holding a root marker, or a folder holding hearth's store.db. */
bool layout_is_home_state(int dir_fd, const char *name);
/* False when name below dir_fd surely is not (one lstat): what
 * layout_is_home_state asks first. */
bool layout_may_be_home_state(int dir_fd, const char *name);

/* The first Home state folder below top (not top's own .hearth), its path
 * relative to top into found; false when there is none. */
bool layout_find_inner_home(const char *top, char *found, size_t size);

#endif
