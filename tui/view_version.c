/* The changes of one version, opened from History with Enter: its id,
 * author, time and message, then the paths it added, modified, moved and
 * deleted (hearth_show, on the worker thread: in a long history it takes
 * a while), each coloured by its change. Enter on a file fetches its diff
 * (hearth_diff, on the worker too: it derives the tree before the version)
 * once and shows it under the path. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"
#include "tui/view_rows.h"

struct version_pane {
	struct hearth_version version;	/* author and message point below */
	char *author;
	char *message;
	size_t change_count;
	unsigned request;		/* the build whose changes are awaited */
};

/* hearth_show of one version on the worker; the pane takes the answer only
 * if no later build asked again meanwhile. */
struct version_job {
	struct view *view;
	unsigned request;
	char id[HEARTH_ID_HEX];
	struct hearth_change_list changes;
};

static void
version_open(struct view *view)
{
	view->list = rows_new();
	view->private = memory_alloc(1, sizeof(struct version_pane));
}

static void
version_close(struct view *view)
{
	struct version_pane *pane = view->private;

	list_free(view->list);
	free(pane->author);
	free(pane->message);
	free(pane);
}

void
view_version_show(struct view *view, const struct hearth_version *version)
{
	struct version_pane *pane = view->private;

	free(pane->author);
	free(pane->message);
	pane->version = *version;
	pane->author = memory_strdup(version->author ? version->author : "");
	pane->message = memory_strdup(version->message ? version->message : "");
	pane->version.author = pane->author;
	pane->version.message = pane->message;
	list_clear(view->list);
	view->stale = true;
}

static void
add_header(struct view *view)
{
	struct version_pane *pane = view->private;
	char time[32];

	draw_format_time(pane->version.time, time, sizeof time);
	rows_add(view, NULL, ROW_TEXT, THEME_ID, memory_printf("version  %s", pane->version.id));
	rows_add(view, NULL, ROW_TEXT, THEME_NORMAL, memory_printf("author   %s", pane->author));
	rows_add(view, NULL, ROW_TEXT, THEME_NORMAL, memory_printf("time     %s", time));
	rows_add(view, NULL, ROW_TEXT, THEME_DIM, memory_printf("replica  %s, op %llu",
	    pane->version.replica, (unsigned long long)pane->version.counter));
	rows_add(view, NULL, ROW_TEXT, THEME_NORMAL, memory_strdup(""));
	for (const char *line = pane->message; ; ) {
		size_t length = strcspn(line, "\n");
		char *text = memory_alloc(length + 5, 1);
		snprintf(text, length + 5, "    %.*s", (int)length, line);
		rows_add(view, NULL, ROW_TEXT, THEME_NORMAL, text);
		if (line[length] == '\0')
			break;
		line += length + 1;
	}
	rows_add(view, NULL, ROW_TEXT, THEME_NORMAL, memory_strdup(""));
}

static void
add_changes(struct view *view, const struct hearth_change_list *changes)
{
	struct version_pane *pane = view->private;
	struct list_item *first = NULL;

	pane->change_count = changes->count;
	rows_add(view, NULL, ROW_TEXT, THEME_HEADER, memory_printf("%zu path%s changed%s",
	    changes->count, changes->count == 1 ? "" : "s",
	    changes->count ? " (Enter on a file shows its diff)" : ""));
	for (size_t i = 0; i < changes->count; i++) {
		rows_add_change(view, NULL, &changes->items[i]);
		if (first == NULL)
			first = view->list->root.children[view->list->root.child_count - 1];
	}
	list_refresh(view->list);
	if (first != NULL)
		list_select(view->list, first);
}

static int
version_job_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct version_job *job = context;

	(void)progress;
	return hearth_show(home, job->id, NULL, &job->changes, error);
}

static void
version_job_free(void *context)
{
	struct version_job *job = context;

	hearth_change_list_free(&job->changes);
	free(job);
}

static void
version_job_done(void *context, int code, const struct hearth_error *error)
{
	struct version_job *job = context;
	struct view *view = job->view;
	struct version_pane *pane = view->private;

	if (job->request == pane->request) {
		list_clear(view->list);
		add_header(view);
		if (code == HEARTH_OK) {
			add_changes(view, &job->changes);
		} else {
			rows_add(view, NULL, ROW_TEXT, THEME_ERROR, memory_printf("%s", error->message));
			list_refresh(view->list);
		}
	}
	version_job_free(job);
}

static void
version_build(struct view *view)
{
	struct version_pane *pane = view->private;
	struct version_job *job = memory_alloc(1, sizeof *job);
	struct worker_job work = {
		.title = "reading the version",
		.run = version_job_run,
		.done = version_job_done,
		.discard = version_job_free,
		.context = job,
	};

	list_clear(view->list);
	add_header(view);
	rows_add(view, NULL, ROW_TEXT, THEME_DIM, memory_strdup("reading the changes..."));
	list_refresh(view->list);
	job->view = view;
	job->request = ++pane->request;
	memcpy(job->id, pane->version.id, sizeof job->id);
	app_submit(view->app, &work);
}

static int
fetch_diff(hearth *home, const char *version, const char *path, struct hearth_text *out,
    struct hearth_error *error)
{
	return hearth_diff(home, version, path, ROWS_DIFF_MAX, out, error);
}

static bool
version_handle(struct view *view, enum action action)
{
	struct version_pane *pane = view->private;
	struct list_item *item = list_selected(view->list);

	if (action == ACTION_FILE_HISTORY) {
		const struct pane_row *row = item ? item->data : NULL;
		if (row == NULL || row->kind != ROW_CHANGE)
			app_message(view->app, "No path here: pick a changed path for its history");
		else
			view_file_log_show(view->app, row->path);
		return true;
	}
	if (action != ACTION_TOGGLE_DIFF)
		return false;
	rows_toggle(view, &pane->request, pane->version.id, fetch_diff);
	return true;
}

static void
version_draw_header(struct view *view, int y, int width)
{
	struct version_pane *pane = view->private;
	char *title = memory_printf("Version %s: %.*s", pane->version.short_id,
	    (int)strcspn(pane->message, "\n"), pane->message);

	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, title, 0);
	free(title);
}

const struct view_ops view_version_ops = {
	.name = "Version",
	.scope = SCOPE_VERSION,
	.open = version_open,
	.close = version_close,
	.build = version_build,
	.draw_header = version_draw_header,
	.draw_row = rows_draw,
	.handle = version_handle,
};
