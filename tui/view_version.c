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

#define VERSION_DIFF_MAX (512 * 1024)

enum version_row_kind {
	ROW_TEXT,		/* a line of the header or the message */
	ROW_CHANGE,		/* a changed path */
	ROW_DIFF,		/* a line of a path's diff */
};

struct version_row {
	enum version_row_kind kind;
	enum theme_role role;
	char *text;
	char mark;			/* ROW_CHANGE: the change kind */
	char *path;			/* ROW_CHANGE: the path (new path of a move) */
	enum hearth_entry_kind entry_kind;
};

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

/* hearth_diff of one path on the worker; the rows go under item if the
 * list was not rebuilt meanwhile (a rebuild frees item). */
struct diff_job {
	struct view *view;
	unsigned request;
	struct list_item *item;
	char id[HEARTH_ID_HEX];
	char *path;
	struct hearth_text diff;
};

static void
free_row(void *data)
{
	struct version_row *row = data;

	free(row->text);
	free(row->path);
	free(row);
}

/* / in the pane: the header, the paths and the diff lines shown. */
static bool
row_matches(const void *data, const char *text)
{
	return view_search_matches(((const struct version_row *)data)->text, text);
}

static void
version_open(struct view *view)
{
	view->list = list_new(free_row, row_matches);
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

static struct list_item *
add_row(struct view *view, struct list_item *parent, enum version_row_kind kind,
    enum theme_role role, char *text)
{
	struct version_row *row = memory_alloc(1, sizeof *row);

	row->kind = kind;
	row->role = role;
	row->text = text;
	return list_append(view->list, parent, row);
}

static void
add_header(struct view *view)
{
	struct version_pane *pane = view->private;
	char time[32];

	draw_format_time(pane->version.time, time, sizeof time);
	add_row(view, NULL, ROW_TEXT, THEME_ID, memory_printf("version  %s", pane->version.id));
	add_row(view, NULL, ROW_TEXT, THEME_NORMAL, memory_printf("author   %s", pane->author));
	add_row(view, NULL, ROW_TEXT, THEME_NORMAL, memory_printf("time     %s", time));
	add_row(view, NULL, ROW_TEXT, THEME_DIM, memory_printf("replica  %s, op %llu",
	    pane->version.replica, (unsigned long long)pane->version.counter));
	add_row(view, NULL, ROW_TEXT, THEME_NORMAL, memory_strdup(""));
	for (const char *line = pane->message; ; ) {
		size_t length = strcspn(line, "\n");
		char *text = memory_alloc(length + 5, 1);
		snprintf(text, length + 5, "    %.*s", (int)length, line);
		add_row(view, NULL, ROW_TEXT, THEME_NORMAL, text);
		if (line[length] == '\0')
			break;
		line += length + 1;
	}
	add_row(view, NULL, ROW_TEXT, THEME_NORMAL, memory_strdup(""));
}

static void
add_change(struct view *view, const struct hearth_change *change)
{
	char *text;

	if (change->kind == HEARTH_MOVED && change->old_path != NULL)
		text = memory_printf("%s -> %s%s", change->old_path, change->path,
		    change->content_changed ? " (and modified)" : "");
	else if (change->merged_from != NULL)
		text = memory_printf("%s  (merged: edits from %s)", change->path, change->merged_from);
	else
		text = memory_strdup(change->path);
	struct list_item *item = add_row(view, NULL, ROW_CHANGE, draw_change_role((char)change->kind),
	    text);
	struct version_row *row = item->data;
	row->mark = (char)change->kind;
	row->path = memory_strdup(change->path);
	row->entry_kind = change->entry_kind;
	/* Folders have no diff; a moved file has one only if it changed. */
	item->expandable = change->entry_kind != HEARTH_DIR &&
	    (change->kind != HEARTH_MOVED || change->content_changed);
}

static void
add_changes(struct view *view, const struct hearth_change_list *changes)
{
	struct version_pane *pane = view->private;
	struct list_item *first = NULL;

	pane->change_count = changes->count;
	add_row(view, NULL, ROW_TEXT, THEME_HEADER, memory_printf("%zu path%s changed%s",
	    changes->count, changes->count == 1 ? "" : "s",
	    changes->count ? " (Enter on a file shows its diff)" : ""));
	for (size_t i = 0; i < changes->count; i++) {
		add_change(view, &changes->items[i]);
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
			add_row(view, NULL, ROW_TEXT, THEME_ERROR, memory_printf("%s", error->message));
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
	add_row(view, NULL, ROW_TEXT, THEME_DIM, memory_strdup("reading the changes..."));
	list_refresh(view->list);
	job->view = view;
	job->request = ++pane->request;
	memcpy(job->id, pane->version.id, sizeof job->id);
	app_submit(view->app, &work);
}

static void
add_diff_rows(struct view *view, struct list_item *item, const struct hearth_text *diff)
{
	if (diff->binary) {
		add_row(view, item, ROW_DIFF, THEME_DIM,
		    memory_strdup("(binary or too large to show as text)"));
	} else if (diff->length == 0) {
		add_row(view, item, ROW_DIFF, THEME_DIM, memory_strdup("(no text changes)"));
	}
	for (const char *line = diff->binary ? "" : diff->text; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		char *text = memory_strndup(line, length);
		add_row(view, item, ROW_DIFF, draw_diff_role(text), text);
		line += length;
		if (*line == '\n')
			line++;
	}
}

static int
diff_job_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct diff_job *job = context;

	(void)progress;
	return hearth_diff(home, job->id, job->path, VERSION_DIFF_MAX, &job->diff, error);
}

static void
diff_job_free(void *context)
{
	struct diff_job *job = context;

	hearth_text_free(&job->diff);
	free(job->path);
	free(job);
}

static void
diff_job_done(void *context, int code, const struct hearth_error *error)
{
	struct diff_job *job = context;
	struct version_pane *pane = job->view->private;

	if (job->request == pane->request) {
		list_remove_children(job->view->list, job->item);
		if (code == HEARTH_OK)
			add_diff_rows(job->view, job->item, &job->diff);
		else
			add_row(job->view, job->item, ROW_DIFF, THEME_ERROR,
			    memory_strdup(error->message));
		list_refresh(job->view->list);
	}
	diff_job_free(job);
}

static void
load_diff(struct view *view, struct list_item *item)
{
	struct version_pane *pane = view->private;
	struct version_row *row = item->data;
	struct diff_job *job = memory_alloc(1, sizeof *job);
	struct worker_job work = {
		.title = "reading a diff",
		.run = diff_job_run,
		.done = diff_job_done,
		.discard = diff_job_free,
		.context = job,
	};

	item->loaded = true;
	add_row(view, item, ROW_DIFF, THEME_DIM, memory_strdup("reading the diff..."));
	job->view = view;
	job->request = pane->request;
	job->item = item;
	memcpy(job->id, pane->version.id, sizeof job->id);
	job->path = memory_strdup(row->path);
	app_submit(view->app, &work);
}

static bool
version_handle(struct view *view, enum action action)
{
	struct list_item *item = list_selected(view->list);

	if (action != ACTION_TOGGLE_DIFF || item == NULL)
		return false;
	/* On a diff line, the toggle folds the file it belongs to. */
	if (((struct version_row *)item->data)->kind == ROW_DIFF) {
		item = item->parent;
		list_set_expanded(view->list, item, false);
		list_select(view->list, item);
		return true;
	}
	if (!item->expandable) {
		app_message(view->app, "No diff here: pick a file that was added, modified or deleted");
		return true;
	}
	if (!item->loaded)
		load_diff(view, item);
	list_set_expanded(view->list, item, !item->expanded);
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

static void
version_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	const struct version_row *row = item->data;
	enum theme_role role = view_role(selected, row->role);

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	switch (row->kind) {
	case ROW_TEXT:
		draw_text(y, x + 2, width - 2, role, row->text, 0);
		return;
	case ROW_CHANGE: {
		char mark[2] = { row->mark, '\0' };
		const char *fold = !item->expandable ? " " :
		    item->expanded ? (draw_unicode() ? "\u25be" : "-") : (draw_unicode() ? "\u25b8" : "+");
		draw_text(y, x + 2, 1, role, mark, 0);
		draw_text(y, x + 4, 1, view_role(selected, THEME_DIM), fold, 0);
		draw_text(y, x + 6, width - 6, role, row->text, 0);
		return;
	}
	case ROW_DIFF:
		draw_text(y, x + 6, width - 6, role, row->text, DRAW_EXPAND_TABS);
		return;
	}
}

const struct view_ops view_version_ops = {
	.name = "Version",
	.scope = SCOPE_VERSION,
	.open = version_open,
	.close = version_close,
	.build = version_build,
	.draw_header = version_draw_header,
	.draw_row = version_draw_row,
	.handle = version_handle,
};
