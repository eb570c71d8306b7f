/* The Changes pane, opened from Home with Enter on a changed file: every
 * change of the working tree as the app's last status lists it, each with
 * its diff against the version the tree is at (hearth_compare on the
 * worker, the same diff as `hearth diff`), the chosen one open. Space
 * marks, r records the marked (or every) change as Home's r does, L opens
 * a path's history; / n N search the lines. It follows the status as the
 * watch reruns it. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"
#include "tui/view_rows.h"

struct changes_pane {
	char *focus;		/* the path to put the cursor on, its diff open */
	unsigned request;	/* moves on at each build: older diffs are dropped */
};

static void
changes_open(struct view *view)
{
	view->list = rows_new();
	view->private = memory_alloc(1, sizeof(struct changes_pane));
}

static void
changes_close(struct view *view)
{
	struct changes_pane *pane = view->private;

	list_free(view->list);
	free(pane->focus);
	free(pane);
}

void
view_changes_show(struct app *app, const char *path)
{
	struct view *view = app_view(app, VIEW_CHANGES);
	struct changes_pane *pane = view->private;

	free(pane->focus);
	pane->focus = memory_strdup(path);
	view->stale = true;
	app_show_view(app, VIEW_CHANGES);
}

/* The diff of one path (and what is below it) against the tree's version. */
static int
fetch_change(hearth *home, const char *version, const char *path, struct hearth_text *out,
    struct hearth_error *error)
{
	const char *paths[1] = { path };
	struct hearth_compare_options options = { .paths = paths, .path_count = 1 };
	struct hearth_comparison_result result;

	(void)version;
	memset(out, 0, sizeof *out);
	int status = hearth_compare(home, &options, NULL, &result, error);
	if (status != 0)
		return status;
	struct hearth_text all = { .text = memory_strdup("") };
	for (size_t i = 0; i < result.changes.count && status == 0; i++) {
		struct hearth_text one;
		status = hearth_comparison_diff(&result, i, ROWS_DIFF_MAX, &one, error);
		if (status != 0)
			break;
		char *joined = memory_printf("%s%s", all.text, one.text);
		free(all.text);
		all.text = joined;
		all.length += one.length;
		all.binary = all.binary || one.binary;
		hearth_text_free(&one);
	}
	hearth_comparison_free(&result);
	if (status != 0) {
		free(all.text);
		return status;
	}
	*out = all;
	return 0;
}

static bool
is_focus(const struct hearth_change *change, const char *focus)
{
	return focus != NULL && (strcmp(change->path, focus) == 0 ||
	    (change->old_path != NULL && strcmp(change->old_path, focus) == 0));
}

/* Keeps the marks, the open diffs and the cursor across a rebuild. */
struct kept {
	char **paths;
	bool *marked, *open;
	size_t count;
	char *cursor;
};

static void
keep_state(struct view *view, struct kept *kept)
{
	struct list_item *selected = list_selected(view->list);
	const struct pane_row *row = selected ? selected->data : NULL;

	memset(kept, 0, sizeof *kept);
	kept->cursor = row && row->path ? memory_strdup(row->path) : NULL;
	size_t count = view->list->root.child_count;
	kept->paths = memory_alloc(count + 1, sizeof *kept->paths);
	kept->marked = memory_alloc(count + 1, sizeof *kept->marked);
	kept->open = memory_alloc(count + 1, sizeof *kept->open);
	for (size_t i = 0; i < count; i++) {
		struct list_item *item = view->list->root.children[i];
		const struct pane_row *kept_row = item->data;
		if (kept_row->kind != ROW_CHANGE)
			continue;
		kept->paths[kept->count] = memory_strdup(kept_row->path);
		kept->marked[kept->count] = item->marked;
		kept->open[kept->count++] = item->expanded;
	}
}

static void
free_kept(struct kept *kept)
{
	for (size_t i = 0; i < kept->count; i++)
		free(kept->paths[i]);
	free(kept->paths);
	free(kept->marked);
	free(kept->open);
	free(kept->cursor);
}

static void
restore_state(struct view *view, const struct kept *kept, struct list_item *item)
{
	const struct pane_row *row = item->data;
	struct changes_pane *pane = view->private;

	for (size_t i = 0; i < kept->count; i++) {
		if (strcmp(kept->paths[i], row->path) != 0)
			continue;
		if (kept->marked[i])
			list_toggle_mark(view->list, item);
		if (kept->open[i] && item->expandable) {
			list_select(view->list, item);
			rows_toggle(view, &pane->request, NULL, fetch_change);
		}
	}
}

static void
changes_build(struct view *view)
{
	struct changes_pane *pane = view->private;
	const struct hearth_status_report *status = app_status(view->app);
	struct list_item *focus = NULL, *cursor = NULL;
	struct kept kept;

	keep_state(view, &kept);
	pane->request++;
	list_clear(view->list);
	size_t count = status ? status->changes.count : 0;
	rows_add(view, NULL, ROW_TEXT, THEME_HEADER, memory_printf("%zu change%s not recorded%s",
	    count, count == 1 ? "" : "s", count ? " (Enter: diff, space: mark, r: record)" : ""));
	for (size_t i = 0; i < count; i++) {
		const struct hearth_change *change = &status->changes.items[i];
		struct list_item *item = rows_add_change(view, NULL, change);
		if (is_focus(change, pane->focus) && focus == NULL)
			focus = item;
		if (kept.cursor != NULL && strcmp(change->path, kept.cursor) == 0)
			cursor = item;
	}
	if (count == 0)
		rows_add(view, NULL, ROW_TEXT, THEME_DIM,
		    memory_strdup("Nothing changed since the version the tree is at."));
	list_refresh(view->list);
	for (size_t i = 0; i < view->list->root.child_count; i++)
		if (((const struct pane_row *)view->list->root.children[i]->data)->kind == ROW_CHANGE)
			restore_state(view, &kept, view->list->root.children[i]);
	/* Opened on a path: its diff shows at once. */
	if (focus != NULL) {
		list_select(view->list, focus);
		if (focus->expandable && !focus->expanded)
			rows_toggle(view, &pane->request, NULL, fetch_change);
		free(pane->focus);
		pane->focus = NULL;
	} else if (cursor != NULL) {
		list_select(view->list, cursor);
	}
	list_refresh(view->list);
	free_kept(&kept);
}

static void
collect_marked(void *context, struct list_item *item)
{
	struct kept *marked = context;
	const struct pane_row *row = item->data;

	marked->paths = memory_resize(marked->paths, marked->count + 1, sizeof *marked->paths);
	marked->paths[marked->count++] = row->path;
}

static bool
changes_handle(struct view *view, enum action action)
{
	struct changes_pane *pane = view->private;
	struct list_item *item = list_selected(view->list);
	const struct pane_row *row = item ? item->data : NULL;

	switch (action) {
	case ACTION_TOGGLE_CHANGE_DIFF:
		rows_toggle(view, &pane->request, NULL, fetch_change);
		return true;
	case ACTION_MARK:
		if (row != NULL && row->kind == ROW_DIFF)
			item = item->parent;
		if (item != NULL && ((const struct pane_row *)item->data)->kind == ROW_CHANGE)
			list_toggle_mark(view->list, item);
		list_move(view->list, 1);
		return true;
	case ACTION_UNMARK_ALL:
		list_clear_marks(view->list);
		return true;
	case ACTION_RECORD: {
		struct kept marked = { 0 };
		list_for_each_marked(view->list, collect_marked, &marked);
		view_home_record(app_view(view->app, VIEW_HOME), marked.paths, marked.count);
		free(marked.paths);
		return true;
	}
	case ACTION_FILE_HISTORY:
		if (row != NULL && row->kind == ROW_DIFF)
			row = item->parent->data;
		if (row == NULL || row->kind != ROW_CHANGE)
			app_message(view->app, "No path here: pick a change for its history");
		else
			view_file_log_show(view->app, row->path);
		return true;
	default:
		return false;
	}
}

/* A record or the watch changed the status: the list follows it. */
static void
changes_status_changed(struct view *view)
{
	view->stale = true;
}

static void
changes_draw_header(struct view *view, int y, int width)
{
	const struct hearth_status_report *status = app_status(view->app);
	char *title = memory_printf("Changes: the working tree against version %s",
	    status && status->tree_short[0] ? status->tree_short : "(none)");

	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, title, 0);
	free(title);
}

const struct view_ops view_changes_ops = {
	.name = "Changes",
	.scope = SCOPE_CHANGES,
	.open = changes_open,
	.close = changes_close,
	.build = changes_build,
	.draw_header = changes_draw_header,
	.draw_row = rows_draw,
	.handle = changes_handle,
	.status_changed = changes_status_changed,
};
