/* Ignore patterns (config `ignore:`), gitignore-style: "*.swp", ".cache/",
 * "/build", "docs/" "**", "!keep.swp". Matching is on Home-relative paths as
 * bytes; the last matching pattern wins, as in git. */
#ifndef HEARTH_MODEL_IGNORE_H
#define HEARTH_MODEL_IGNORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pattern syntax, as git's:
 *   *  ?  [abc] [a-z] [!x] [^x] [[:alpha:]]   within one name (never '/')
 *   "**" as a whole folder level            any number of levels; a trailing
 *                                           one needs at least one ("a/" "**"
 *                                           is what is inside a, not a)
 *   leading '/' or a '/' inside             anchored: matches the whole path
 *   no '/'                                  matches a name at any depth
 *   trailing '/'                            folders only
 *   leading '!'                             re-includes
 *   '\' escapes the next byte.
 * Unlike a .gitignore file, '#' and trailing spaces are literal: each
 * pattern is one YAML string. Errors: an empty pattern, "//", an
 * unterminated "[", a '/' inside "[...]", an unknown "[:class:]" and a
 * trailing backslash. */
struct ignore_set;

/* Compiles the patterns; NULL with a message naming the pattern on error. */
struct ignore_set *ignore_compile(const char *const *patterns, size_t count,
    char *error, size_t error_size);
void ignore_free(struct ignore_set *set);
/* path is relative ("a/b/c"), without a trailing slash. It is ignored when
 * it or any parent folder is (a parent's verdict cannot be re-included, as
 * in git). A NULL set ignores nothing; "" (the top) is never ignored. */
bool ignore_match(const struct ignore_set *set, const char *path, bool is_dir);
/* The patterns read as far as one folder, so each name in it is matched
 * by its own bytes alone (a walk asks once a name; ignore_match reads the
 * whole path again for each). ignore_match_in gives ignore_match's verdict
 * for folder_path + "/" + name. A NULL set ignores nothing. */
struct ignore_folder {
	bool ignored;		/* the folder itself, or one above it */
	uint8_t *states;	/* each pattern's states after the folder's names */
	uint8_t *scratch;	/* room for one pattern's next states */
};
void ignore_folder_open(const struct ignore_set *set, const char *folder_path,
    struct ignore_folder *out);
bool ignore_match_in(const struct ignore_set *set, const struct ignore_folder *folder,
    const char *name, size_t length, bool is_dir);
void ignore_folder_close(struct ignore_folder *folder);

/* A single glob, as used by place: rules ("**" crosses folders): the same
 * syntax and meaning as a one-pattern ignore list for a file at path,
 * except that a leading '!' is literal. A malformed glob matches nothing. */
bool ignore_glob_match(const char *pattern, const char *path);

#endif
