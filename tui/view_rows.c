/* The rows the Version, Changes and File history panes share (see
 * view_rows.h): made from the backend's changes and diff texts, drawn with
 * a change letter and a fold mark, searched by their text; a diff is
 * fetched on the worker the first time its row opens. */
#include "tui/view_rows.h"

#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/memory.h"

static void
free_row(void *data)
{
	struct pane_row *row = data;

	free(row->text);
	free(row->path);
	free(row->version);
	free(row);
}

/* / in the pane: the header, the paths and the diff lines shown. */
static bool
row_matches(const void *data, const char *text)
{
	return view_search_matches(((const struct pane_row *)data)->text, text);
}

struct list *
rows_new(void)
{
	return list_new(free_row, row_matches);
}

struct list_item *
rows_add(struct view *view, struct list_item *parent, enum row_kind kind, enum theme_role role,
    char *text)
{
	struct pane_row *row = memory_alloc(1, sizeof *row);

	row->kind = kind;
	row->role = role;
	row->text = text;
	return list_append(view->list, parent, row);
}

struct list_item *
rows_add_change(struct view *view, struct list_item *parent, const struct hearth_change *change)
{
	char *text;
	bool roots = change->old_root != NULL && change->root != NULL &&
	    strcmp(change->old_root, change->root) != 0;

	if (change->kind == HEARTH_MOVED && change->old_path != NULL)
		text = memory_printf("%s -> %s%s%s%s%s%s", change->old_path, change->path,
		    roots ? " (" : "", roots ? change->old_root : "", roots ? " -> " : "",
		    roots ? change->root : "", roots ? ")" : "");
	else if (change->merged_from != NULL)
		text = memory_printf("%s  (merged: edits from %s)", change->path, change->merged_from);
	else
		text = memory_strdup(change->path);
	if (change->kind == HEARTH_MOVED && change->content_changed) {
		char *modified = memory_printf("%s (and modified)", text);
		free(text);
		text = modified;
	}
	struct list_item *item = rows_add(view, parent, ROW_CHANGE,
	    draw_change_role((char)change->kind), text);
	struct pane_row *row = item->data;
	row->mark = (char)change->kind;
	row->path = memory_strdup(change->path);
	row->entry_kind = change->entry_kind;
	/* Folders have no diff; a moved file has one only if it changed. */
	item->expandable = change->entry_kind != HEARTH_DIR &&
	    (change->kind != HEARTH_MOVED || change->content_changed);
	return item;
}

void
rows_add_diff(struct view *view, struct list_item *item, const struct hearth_text *diff)
{
	if (diff->binary && diff->length == 0)
		rows_add(view, item, ROW_DIFF, THEME_DIM,
		    memory_strdup("(binary or too large to show as text)"));
	else if (diff->length == 0)
		rows_add(view, item, ROW_DIFF, THEME_DIM, memory_strdup("(no text changes)"));
	for (const char *line = diff->text ? diff->text : ""; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		char *text = memory_strndup(line, length);
		rows_add(view, item, ROW_DIFF, draw_diff_role(text), text);
		line += length;
		if (*line == '\n')
			line++;
	}
}

/* ---- a diff on the worker -------------------------------------------------------- */

/* The rows go under item if the pane was not rebuilt meanwhile (a rebuild
 * frees item and moves the request on). */
struct diff_job {
	struct view *view;
	const unsigned *current;
	unsigned request;
	struct list_item *item;
	char *version;
	char *path;
	rows_fetch_fn *fetch;
	struct hearth_text diff;
};

static int
diff_job_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct diff_job *job = context;

	(void)progress;
	return job->fetch(home, job->version, job->path, &job->diff, error);
}

static void
diff_job_free(void *context)
{
	struct diff_job *job = context;

	hearth_text_free(&job->diff);
	free(job->version);
	free(job->path);
	free(job);
}

static void
diff_job_done(void *context, int code, const struct hearth_error *error)
{
	struct diff_job *job = context;

	if (job->request == *job->current) {
		list_remove_children(job->view->list, job->item);
		if (code == HEARTH_OK)
			rows_add_diff(job->view, job->item, &job->diff);
		else
			rows_add(job->view, job->item, ROW_DIFF, THEME_ERROR,
			    memory_strdup(error->message));
		list_refresh(job->view->list);
	}
	diff_job_free(job);
}

static void
load_diff(struct view *view, struct list_item *item, const unsigned *request, const char *version,
    rows_fetch_fn *fetch)
{
	struct pane_row *row = item->data;
	struct diff_job *job = memory_alloc(1, sizeof *job);
	struct worker_job work = {
		.title = "reading a diff",
		.run = diff_job_run,
		.done = diff_job_done,
		.discard = diff_job_free,
		.context = job,
	};

	item->loaded = true;
	rows_add(view, item, ROW_DIFF, THEME_DIM, memory_strdup("reading the diff..."));
	job->view = view;
	job->current = request;
	job->request = *request;
	job->item = item;
	job->version = row->version ? memory_strdup(row->version) :
	    version ? memory_strdup(version) : NULL;
	job->path = memory_strdup(row->path ? row->path : "");
	job->fetch = fetch;
	app_submit(view->app, &work);
}

void
rows_toggle(struct view *view, const unsigned *request, const char *version, rows_fetch_fn *fetch)
{
	struct list_item *item = list_selected(view->list);

	if (item == NULL)
		return;
	/* On a diff line, the toggle folds the file it belongs to. */
	if (((struct pane_row *)item->data)->kind == ROW_DIFF) {
		item = item->parent;
		list_set_expanded(view->list, item, false);
		list_select(view->list, item);
		return;
	}
	if (!item->expandable) {
		app_message(view->app, "No diff here: pick a file that was added, modified or deleted");
		return;
	}
	if (!item->loaded)
		load_diff(view, item, request, version, fetch);
	list_set_expanded(view->list, item, !item->expanded);
}

/* ---- drawing -------------------------------------------------------------------------- */

void
rows_draw(void *context, const struct list_item *item, int y, int x, int width, bool selected)
{
	const struct pane_row *row = item->data;
	enum theme_role role = view_role(selected, row->role);
	bool unicode = draw_unicode();

	(void)context;
	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	if (item->marked)
		draw_text(y, x, 1, view_role(selected, THEME_MARKED), unicode ? "\u25cf" : "*", 0);
	switch (row->kind) {
	case ROW_TEXT:
		draw_text(y, x + 2, width - 2, role, row->text, 0);
		return;
	case ROW_CHANGE:
	case ROW_VERSION: {
		char mark[2] = { row->mark, '\0' };
		const char *fold = !item->expandable ? " " :
		    item->expanded ? (unicode ? "\u25be" : "-") : (unicode ? "\u25b8" : "+");
		draw_text(y, x + 2, 1, role, mark, 0);
		draw_text(y, x + 4, 1, view_role(selected, THEME_DIM), fold, 0);
		draw_text(y, x + 6, width - 6, item->marked ? view_role(selected, THEME_MARKED) : role,
		    row->text, 0);
		return;
	}
	case ROW_DIFF:
		draw_text(y, x + 6, width - 6, role, row->text, DRAW_EXPAND_TABS);
		return;
	}
}
