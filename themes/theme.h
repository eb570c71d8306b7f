/* Colour themes as semantic roles: views ask for a role (selected, added,
 * conflict...), never a colour. A theme file (YAML, themes/NAME.yaml) maps
 * roles to a foreground, a background and attributes, with an 8-colour
 * fallback; a monochrome terminal or NO_COLOR uses the attributes alone. */
#ifndef HEARTH_THEMES_THEME_H
#define HEARTH_THEMES_THEME_H

#include <stdbool.h>
#include <stddef.h>

#define THEME_ROLES(X) \
	X(NORMAL, "normal", "ordinary text") \
	X(TITLE, "title", "the tab bar and view titles") \
	X(TAB_ACTIVE, "tab-active", "the current view's tab") \
	X(HEADER, "header", "column headings") \
	X(SELECTED, "selected", "the line under the cursor") \
	X(MARKED, "marked", "lines marked with space") \
	X(STATUS_LINE, "status-line", "the status line at the bottom") \
	X(KEY_HINT, "key-hint", "the key-hint line") \
	X(DIM, "dim", "secondary text: times, sizes, ids") \
	X(ID, "id", "version ids") \
	X(ADDED, "added", "added paths and inserted lines") \
	X(MODIFIED, "modified", "modified paths") \
	X(DELETED, "deleted", "deleted paths and removed lines") \
	X(MOVED, "moved", "moved or renamed paths") \
	X(CONFLICT, "conflict", "conflicts") \
	X(DIRECTORY, "directory", "folders in the tree") \
	X(SYMLINK, "symlink", "symbolic links") \
	X(DIFF_HUNK, "diff-hunk", "@@ lines of a diff") \
	X(DIALOG, "dialog", "dialog boxes") \
	X(ERROR, "error", "error messages") \
	X(PROGRESS, "progress", "the filled part of a progress bar")

enum theme_role {
#define THEME_ROLE_ENUM(id, name, text) THEME_##id,
	THEME_ROLES(THEME_ROLE_ENUM)
#undef THEME_ROLE_ENUM
	THEME_ROLE_COUNT
};

enum theme_attribute {
	THEME_BOLD = 1 << 0,
	THEME_UNDERLINE = 1 << 1,
	THEME_REVERSE = 1 << 2,
	THEME_DIM_ATTR = 1 << 3,
	THEME_ITALIC = 1 << 4,
};

/* A colour: -1 is the terminal's default; 0..255 an xterm index. */
struct theme_style {
	short foreground, background;		/* for 256-colour terminals */
	short foreground8, background8;		/* fallback, 0..7 or -1 */
	unsigned attributes;			/* enum theme_attribute bits */
	unsigned mono_attributes;		/* what a monochrome terminal shows */
};

struct theme {
	char *name;
	struct theme_style styles[THEME_ROLE_COUNT];
	bool role_given[THEME_ROLE_COUNT];	/* set by the file, not inherited */
};

/* Loads a theme by path (a value holding '/' or ending in .yaml) or by
 * name: NAME.yaml in $HEARTH_SOURCE_DIR/themes, then in themes/ beside the
 * running executable, then in HEARTH_DATADIR/themes; "default" is built in
 * when none has it. Unknown roles, colours or attributes are errors naming
 * FILE:LINE:COLUMN. Returns NULL on error. */
struct theme *theme_load(const char *name_or_path, char *error, size_t error_size);
struct theme *theme_builtin(void);	/* the default theme, never NULL */
void theme_free(struct theme *theme);

/* Parses the text of a theme file; source names it in messages and gives
 * the theme its name (the file name without folder and ".yaml"). Roles the
 * text leaves out come from the built-in default theme. */
struct theme *theme_parse(const char *text, size_t length, const char *source,
    char *error, size_t error_size);

const char *theme_role_name(enum theme_role role);
const char *theme_role_description(enum theme_role role);

#endif
