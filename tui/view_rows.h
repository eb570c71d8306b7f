/* The rows of the panes that show changes as text: a version's changes,
 * the working tree's (Changes) and one path's history (File history). One
 * row type, its drawing and search, and a file's diff fetched once on the
 * worker and shown under its row. */
#ifndef HEARTH_TUI_VIEW_ROWS_H
#define HEARTH_TUI_VIEW_ROWS_H

#include "tui/view.h"

#define ROWS_DIFF_MAX (512 * 1024)

enum row_kind {
	ROW_TEXT,		/* a line of a header or a message */
	ROW_CHANGE,		/* a changed path */
	ROW_DIFF,		/* a line of a path's diff */
	ROW_VERSION,		/* a version of a file's history */
};

struct pane_row {
	enum row_kind kind;
	enum theme_role role;
	char *text;
	char mark;			/* ROW_CHANGE: the change kind */
	char *path;			/* ROW_CHANGE: its path (new path of a move);
					 * ROW_VERSION: where the file was then */
	char *version;			/* ROW_VERSION: its id */
	enum hearth_entry_kind entry_kind;
};

/* Makes the diff text of path (in version, or NULL) on the worker. */
typedef int rows_fetch_fn(hearth *home, const char *version, const char *path,
    struct hearth_text *out, struct hearth_error *error);

/* A list of rows (searched with /), for a pane's open. */
struct list *rows_new(void);
/* Appends a row under parent (NULL: the top); takes text. */
struct list_item *rows_add(struct view *view, struct list_item *parent, enum row_kind kind,
    enum theme_role role, char *text);
/* A changed path's row: "old -> new (and modified)", foldable when it has
 * a diff. */
struct list_item *rows_add_change(struct view *view, struct list_item *parent,
    const struct hearth_change *change);
/* A diff's lines under item (or why there are none). */
void rows_add_diff(struct view *view, struct list_item *item, const struct hearth_text *text);
list_draw_fn rows_draw;

/* Enter on a row: a diff line folds its file; a foldable row opens (its
 * diff fetched once by fetch, the answer taken while *request is still
 * what it was) or closes. version is used for rows that name none. */
void rows_toggle(struct view *view, const unsigned *request, const char *version,
    rows_fetch_fn *fetch);

#endif
