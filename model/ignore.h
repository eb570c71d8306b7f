/* Ignore patterns (config `ignore:`), gitignore-style: "*.swp", ".cache/",
 * "/build", "docs/**", "!keep.swp". Matching is on Home-relative paths as
 * bytes; the last matching pattern wins, as in git. */
#ifndef HEARTH_MODEL_IGNORE_H
#define HEARTH_MODEL_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

struct ignore_set;

/* Compiles the patterns; NULL with a message naming the pattern on error. */
struct ignore_set *ignore_compile(const char *const *patterns, size_t count,
    char *error, size_t error_size);
void ignore_free(struct ignore_set *set);
/* path is relative ("a/b/c"), without a trailing slash. */
bool ignore_match(const struct ignore_set *set, const char *path, bool is_dir);
/* A single glob, as used by place: rules ("**" crosses folders). */
bool ignore_glob_match(const char *pattern, const char *path);

#endif
