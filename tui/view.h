/* A view is one screen of the app: the four main views (History, Conflicts,
 * Home, Sync), the changes of one version over History, the sides of one
 * conflict over Conflicts, the help overlay and the welcome screen outside
 * any Home. Each is a struct view_ops with
 * designated initializers (tig's view_ops, tmux's window_mode); the app
 * owns the struct view, the view's ops own its private state.
 *
 * The rule of the house: build, then draw. build and load_more ask the
 * backend and copy what they show into list items; draw_* only read those
 * items, so no backend call ever happens while drawing. */
#ifndef HEARTH_TUI_VIEW_H
#define HEARTH_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/hearth.h"
#include "tui/action.h"
#include "tui/draw.h"
#include "tui/list.h"

struct app;

enum view_id {
	VIEW_HISTORY,
	VIEW_CONFLICTS,
	VIEW_HOME,
	VIEW_SYNC,
	VIEW_VERSION,
	VIEW_SIDES,
	VIEW_CHANGES,
	VIEW_FILE_LOG,
	VIEW_HELP,
	VIEW_WELCOME,
	VIEW_COUNT
};
#define VIEW_TAB_COUNT 4	/* the first four are the tabs, keys 1-4 */

struct view;

struct view_ops {
	const char *name;		/* the tab label */
	enum action_scope scope;	/* which bindings apply */
	/* Makes view->list and view->private; the list's item data are the
	 * view's snapshot rows. */
	void (*open)(struct view *view);
	void (*close)(struct view *view);
	/* Fetches the snapshot from the backend; runs before a draw whenever
	 * view->stale is set. */
	void (*build)(struct view *view);
	/* Fetches the next page of parent's children (parent is the list's root
	 * for the list itself) when the list says it is wanted. */
	void (*load_more)(struct view *view, struct list_item *parent);
	/* The heading line above the rows: column names or a title. */
	void (*draw_header)(struct view *view, int y, int width);
	list_draw_fn *draw_row;		/* context is the view */
	/* Text under the rows, where they leave room (explanations). */
	void (*draw_note)(struct view *view, int y, int height, int width);
	/* A bound action the generic code did not handle; returns whether the
	 * view did. Movement actions reach the list first. */
	bool (*handle)(struct view *view, enum action action);
	/* The app's status report changed (marks, conflicts, tree version). */
	void (*status_changed)(struct view *view);
};

struct view {
	const struct view_ops *ops;
	enum view_id id;
	struct app *app;
	struct list *list;
	void *private;
	bool stale;		/* build before the next draw */
	enum view_id back;	/* where closing this pane returns */
};

extern const struct view_ops view_history_ops;
extern const struct view_ops view_conflicts_ops;
extern const struct view_ops view_home_ops;
extern const struct view_ops view_sync_ops;
extern const struct view_ops view_version_ops;
extern const struct view_ops view_sides_ops;
extern const struct view_ops view_changes_ops;
extern const struct view_ops view_file_log_ops;
extern const struct view_ops view_help_ops;
extern const struct view_ops view_welcome_ops;

/* Points the version pane at one version (copied) and marks it stale. */
void view_version_show(struct view *view, const struct hearth_version *version);

/* Opens the Changes pane over the current view: every change of the
 * working tree (the app's status), the cursor on path with its diff open. */
void view_changes_show(struct app *app, const char *path);
/* Opens the File history pane over the current view: the versions that
 * changed path (hearth_log with a path), fetched on the worker. */
void view_file_log_show(struct app *app, const char *path);
/* What Home's r does, for the given paths (none: every change): asks for
 * the message, records on the worker, refreshes. home is the Home view. */
void view_home_record(struct view *home, char **paths, size_t count);

/* Points the Sides pane at one conflict by its id (copied) and marks it
 * stale; the pane fetches the conflict when it builds. */
void view_sides_show(struct view *view, const char *id);
/* What the Conflicts view (view) does for its pane: settles one conflict on
 * the worker, recorded at once, and tells which conflict comes after id
 * among those not being settled, putting the list's cursor on it (NULL
 * when none does). */
void view_conflicts_settle(struct view *view, const char *id, enum hearth_resolution how);
const char *view_conflicts_next(struct view *view, const char *id);

/* / n N in a pane whose list has a match function (tui/search.c): returns
 * whether action was one of them. */
bool view_search_handle(struct view *view, enum action action);
/* Whether line holds text, in any case: the match of the panes of text. */
bool view_search_matches(const char *line, const char *text);
/* Forgets the last search text (the app's end). */
void view_search_free(void);

/* The question a view asks when the guard on emptying stopped a record or
 * a checkout: what it would delete, where and why it stopped, then ask (the
 * app cannot be given --yes, so it asks instead). The caller frees it. */
char *view_guard_question(struct view *view, const struct hearth_delete_guard *guard,
    const char *ask);

/* The role a row's text takes: the cursor's row wins over its own role. */
static inline enum theme_role
view_role(bool selected, enum theme_role role)
{
	return selected ? THEME_SELECTED : role;
}

#endif
