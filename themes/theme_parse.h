/* What theme.c and the theme reader share and front ends never need: the
 * role names table and parsing over an explicit base theme (the built-in
 * theme itself is parsed over a neutral one). */
#ifndef HEARTH_THEMES_THEME_PARSE_H
#define HEARTH_THEMES_THEME_PARSE_H

#include "themes/theme.h"

/* The role names of THEME_ROLES, indexed by enum theme_role. */
extern const char *const theme_role_names[THEME_ROLE_COUNT];

/* Roles the text leaves out are copied from base, and a role the text gives
 * without `mono` takes base's monochrome attributes for it. */
struct theme *theme_parse_over(const struct theme *base, const char *text, size_t length,
    const char *source, char *error, size_t error_size);

#endif
