/* The File history pane, opened with L on a path in Home, a version's
 * changes or the Changes pane: the versions that changed that file or
 * folder, newest first, followed through renames and moves by identity
 * (hearth_log with a path, on the worker). Enter on a version shows what
 * it did to the path, with the diffs, under it; / n N search the lines. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"
#include "tui/view_rows.h"

struct file_log_pane {
	char *path;
	unsigned request;	/* the build whose answer is awaited */
	size_t count;
};

struct file_log_job {
	struct view *view;
	unsigned request;
	char *path;
	struct hearth_version_list versions;
};

static void
file_log_open(struct view *view)
{
	view->list = rows_new();
	view->private = memory_alloc(1, sizeof(struct file_log_pane));
}

static void
file_log_close(struct view *view)
{
	struct file_log_pane *pane = view->private;

	list_free(view->list);
	free(pane->path);
	free(pane);
}

void
view_file_log_show(struct app *app, const char *path)
{
	struct view *view = app_view(app, VIEW_FILE_LOG);
	struct file_log_pane *pane = view->private;

	free(pane->path);
	pane->path = memory_strdup(path);
	list_clear(view->list);
	view->stale = true;
	app_show_view(app, VIEW_FILE_LOG);
}

/* What a version did to the path: its change lines, each file's diff. */
static int
fetch_version(hearth *home, const char *version, const char *path, struct hearth_text *out,
    struct hearth_error *error)
{
	struct hearth_change_list changes;

	memset(out, 0, sizeof *out);
	int status = hearth_show(home, version, path, &changes, error);
	if (status != 0)
		return status;
	char *text = memory_strdup("");
	for (size_t i = 0; i < changes.count && status == 0; i++) {
		const struct hearth_change *change = &changes.items[i];
		struct hearth_text diff = { 0 };
		bool has_diff = change->entry_kind != HEARTH_DIR &&
		    (change->content_changed || change->kind == HEARTH_DELETED);
		if (has_diff)
			status = hearth_diff(home, version, change->path, ROWS_DIFF_MAX, &diff, error);
		char *joined = memory_printf("%s%c %s%s%s\n%s", text, (char)change->kind,
		    change->old_path ? change->old_path : "", change->old_path ? " -> " : "",
		    change->path, diff.text ? diff.text : "");
		free(text);
		text = joined;
		hearth_text_free(&diff);
	}
	hearth_change_list_free(&changes);
	if (status != 0) {
		free(text);
		return status;
	}
	out->text = text;
	out->length = strlen(text);
	return 0;
}

static int
file_log_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct file_log_job *job = context;
	struct hearth_log_query query = { .path = job->path };

	(void)progress;
	return hearth_log(home, &query, &job->versions, error);
}

static void
file_log_free(void *context)
{
	struct file_log_job *job = context;

	hearth_version_list_free(&job->versions);
	free(job->path);
	free(job);
}

static void
add_version(struct view *view, const struct hearth_version *version, const char *path)
{
	char time[32];
	size_t length = strcspn(version->message, "\n");
	bool elsewhere = version->path != NULL && strcmp(version->path, path) != 0;

	draw_format_time(version->time, time, sizeof time);
	char *text = memory_printf("%s  %s  %s  %.*s%s%s%s", version->short_id, time, version->author,
	    (int)length, version->message, elsewhere ? "  (as " : "",
	    elsewhere ? version->path : "", elsewhere ? ")" : "");
	struct list_item *item = rows_add(view, NULL, ROW_VERSION, THEME_NORMAL, text);
	struct pane_row *row = item->data;
	row->mark = ' ';
	row->version = memory_strdup(version->id);
	row->path = memory_strdup(version->path ? version->path : path);
	item->expandable = true;
}

static void
file_log_done(void *context, int code, const struct hearth_error *error)
{
	struct file_log_job *job = context;
	struct view *view = job->view;
	struct file_log_pane *pane = view->private;

	if (job->request == pane->request) {
		list_clear(view->list);
		pane->count = code == HEARTH_OK ? job->versions.count : 0;
		if (code != HEARTH_OK)
			rows_add(view, NULL, ROW_TEXT, THEME_ERROR, memory_strdup(error->message));
		else
			rows_add(view, NULL, ROW_TEXT, THEME_HEADER, memory_printf("%zu version%s changed "
			    "%s (Enter shows what each did to it)", pane->count,
			    pane->count == 1 ? "" : "s", pane->path));
		for (size_t i = 0; code == HEARTH_OK && i < job->versions.count; i++)
			add_version(view, &job->versions.items[i], pane->path);
		list_refresh(view->list);
		if (view->list->root.child_count > 1)
			list_select(view->list, view->list->root.children[1]);
	}
	file_log_free(job);
}

static void
file_log_build(struct view *view)
{
	struct file_log_pane *pane = view->private;
	struct file_log_job *job = memory_alloc(1, sizeof *job);
	struct worker_job work = {
		.title = "reading the history",
		.run = file_log_run,
		.done = file_log_done,
		.discard = file_log_free,
		.context = job,
	};

	list_clear(view->list);
	rows_add(view, NULL, ROW_TEXT, THEME_DIM, memory_strdup("reading the history..."));
	list_refresh(view->list);
	job->view = view;
	job->request = ++pane->request;
	job->path = memory_strdup(pane->path ? pane->path : "");
	app_submit(view->app, &work);
}

static bool
file_log_handle(struct view *view, enum action action)
{
	struct file_log_pane *pane = view->private;

	if (action != ACTION_TOGGLE_DIFF)
		return false;
	rows_toggle(view, &pane->request, NULL, fetch_version);
	return true;
}

static void
file_log_draw_header(struct view *view, int y, int width)
{
	struct file_log_pane *pane = view->private;
	char *title = memory_printf("History of %s, followed through renames and moves",
	    pane->path ? pane->path : "");

	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, title, 0);
	free(title);
}

const struct view_ops view_file_log_ops = {
	.name = "File history",
	.scope = SCOPE_FILE_LOG,
	.open = file_log_open,
	.close = file_log_close,
	.build = file_log_build,
	.draw_header = file_log_draw_header,
	.draw_row = rows_draw,
	.handle = file_log_handle,
};
