/* The History view: versions newest first, fetched a page at a time with
 * hearth_log's keyset (before = the oldest loaded id) as the cursor nears
 * the end; Enter opens a version's changes, c checks one out after asking,
 * / searches messages as you type and n/N go to the next or previous match. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/dialog.h"
#include "tui/memory.h"
#include "tui/view.h"

#define HISTORY_PAGE 100
#define HISTORY_AUTHOR_WIDTH 16
#define HISTORY_TIME_WIDTH 16
#define HISTORY_AUTHOR_MIN 8
#define HISTORY_MESSAGE_MIN 16

struct history_row {
	struct hearth_version version;	/* author and message point into the row */
	char *author;
	char *message;
	char *first_line;
};

struct history {
	char *search;			/* the last search text, or NULL */
	size_t search_origin;		/* the cursor's row when the search began */
	struct hearth_version pending;	/* the version a confirm or job is about */
	bool pending_force;		/* and whether it was to record first */
	int id_width;
};

struct checkout_job {
	struct view *view;
	struct hearth_version version;
	bool force;
	bool allow_deletes;	/* confirmed past the guard on emptying */
	struct hearth_checkout_result result;
};

static void
free_row(void *data)
{
	struct history_row *row = data;

	free(row->author);
	free(row->message);
	free(row->first_line);
	free(row);
}

static bool
row_matches(const void *data, const char *text)
{
	const struct history_row *row = data;

	return strcasestr(row->message, text) != NULL;
}

static void
history_open(struct view *view)
{
	view->list = list_new(free_row, row_matches);
	view->private = memory_alloc(1, sizeof(struct history));
	view->stale = true;
}

static void
history_close(struct view *view)
{
	struct history *history = view->private;

	list_free(view->list);
	free(history->search);
	free(history);
}

static struct history_row *
row_new(const struct hearth_version *version)
{
	struct history_row *row = memory_alloc(1, sizeof *row);
	const char *message = version->message ? version->message : "";

	row->version = *version;
	row->author = memory_strdup(version->author ? version->author : "");
	row->message = memory_strdup(message);
	row->first_line = memory_strndup(message, strcspn(message, "\n"));
	row->version.author = row->author;
	row->version.message = row->message;
	return row;
}

static const struct history_row *
last_row(const struct view *view)
{
	const struct list_item *root = &view->list->root;

	return root->child_count ? root->children[root->child_count - 1]->data : NULL;
}

/* Appends the next page of older versions; returns how many came. */
static size_t
load_page(struct view *view)
{
	struct history *history = view->private;
	const struct history_row *last = last_row(view);
	/* The unnamed head state's row has no place in the keyset. */
	struct hearth_log_query query = {
		.before = last && !last->version.unnamed ? last->version.id : NULL,
		.limit = HISTORY_PAGE,
	};
	struct hearth_version_list versions;
	struct hearth_error error;

	view->list->root.loaded = true;
	view->list->root.more = false;
	if (hearth_log(app_home(view->app), &query, &versions, &error) != HEARTH_OK) {
		app_error(view->app, "Cannot read the history", &error);
		return 0;
	}
	for (size_t i = 0; i < versions.count; i++) {
		int width = (int)strlen(versions.items[i].short_id);
		if (width > history->id_width)
			history->id_width = width;
		list_append(view->list, NULL, row_new(&versions.items[i]));
	}
	view->list->root.more = versions.more && versions.count > 0;
	size_t count = versions.count;
	hearth_version_list_free(&versions);
	list_refresh(view->list);
	return count;
}

/* Ops past the newest version (a Home of an older build, or one a peer
 * pushed into): head is that state, the first row, as `hearth log` lists it. */
static void
add_unnamed_head(struct view *view)
{
	struct hearth_head head;
	struct hearth_version_list state;
	struct hearth_error error;

	if (hearth_head(app_home(view->app), &head, &error) != HEARTH_OK || head.named)
		return;
	if (hearth_resolve(app_home(view->app), "head", &state, &error) != HEARTH_OK)
		return;
	list_append(view->list, NULL, row_new(&state.items[0]));
	hearth_version_list_free(&state);
}

static void
history_build(struct view *view)
{
	struct history *history = view->private;
	const struct list_item *selected = list_selected(view->list);
	char keep[HEARTH_ID_HEX] = "";

	if (selected != NULL)
		snprintf(keep, sizeof keep, "%s", ((const struct history_row *)selected->data)->version.id);
	list_clear(view->list);
	history->id_width = 8;
	add_unnamed_head(view);
	load_page(view);
	/* Stay on the version the cursor was on when it is on the first page. */
	for (size_t i = 0; keep[0] != '\0' && i < view->list->row_count; i++) {
		const struct history_row *row = view->list->rows[i]->data;
		if (strcmp(row->version.id, keep) == 0) {
			list_move_to(view->list, i);
			break;
		}
	}
}

static void
history_load_more(struct view *view, struct list_item *parent)
{
	load_page(view);
}

/* How wide Time and Author are drawn (0: left out). The message is what a
 * version is known by: on a narrow screen the author narrows, then goes,
 * then the time, so it keeps HISTORY_MESSAGE_MIN columns. */
struct history_columns {
	int time, author;
};

static struct history_columns
history_columns(const struct history *history, int width)
{
	struct history_columns columns = { HISTORY_TIME_WIDTH, HISTORY_AUTHOR_WIDTH };
	int fixed = 2 + history->id_width + 1;

	if (width - fixed - (columns.time + 1) - (columns.author + 1) >= HISTORY_MESSAGE_MIN)
		return columns;
	columns.author = width - fixed - (columns.time + 1) - 1 - HISTORY_MESSAGE_MIN;
	if (columns.author >= HISTORY_AUTHOR_MIN)
		return columns;
	columns.author = 0;
	if (width - fixed - (columns.time + 1) < HISTORY_MESSAGE_MIN)
		columns.time = 0;
	return columns;
}

/* Draws text in a column of width (and the space after it); returns where
 * the next column starts. */
static int
draw_column(int y, int x, int width, enum theme_role role, const char *text)
{
	if (width <= 0)
		return x;
	return x + draw_text(y, x, width, role, text, DRAW_PAD) + 1;
}

static void
history_draw_header(struct view *view, int y, int width)
{
	struct history *history = view->private;
	struct history_columns columns = history_columns(history, width);
	int x = 2;

	draw_fill(y, 0, width, THEME_HEADER);
	x = draw_column(y, x, history->id_width, THEME_HEADER, "Version");
	x = draw_column(y, x, columns.time, THEME_HEADER, "Time");
	x = draw_column(y, x, columns.author, THEME_HEADER, "Author");
	draw_text(y, x, width - x, THEME_HEADER, "Message", 0);
}

static void
history_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	struct view *view = context;
	struct history *history = view->private;
	const struct history_row *row = item->data;
	const struct hearth_status_report *status = app_status(view->app);
	/* The tree holds the unnamed head state: that row, not the newest
	 * version's, is where it is. */
	bool at_unnamed = status != NULL && !status->head_named && status->tree_at_head;
	bool tree_here = status != NULL && (row->version.unnamed ? at_unnamed
	    : !at_unnamed && strcmp(status->tree_version, row->version.id) == 0);
	char time[32];

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	/* The version the working tree is at. */
	if (tree_here)
		draw_text(y, x, 1, view_role(selected, THEME_ID), draw_unicode() ? "\u25b6" : ">", 0);
	/* A version another replica made: it came in by a sync. */
	if (row->version.synced)
		draw_text(y, x + 1, 1, view_role(selected, THEME_DIM), draw_unicode() ? "\u2193" : "v",
		    0);
	struct history_columns columns = history_columns(history, x + width);
	int column = draw_column(y, x + 2, history->id_width, view_role(selected, THEME_ID),
	    row->version.short_id);
	draw_format_time(row->version.time, time, sizeof time);
	column = draw_column(y, column, columns.time, view_role(selected, THEME_DIM), time);
	column = draw_column(y, column, columns.author, view_role(selected, THEME_NORMAL),
	    row->author);
	if (column < x + width)
		draw_text(y, column, x + width - column, view_role(selected, THEME_NORMAL),
		    row->first_line, 0);
}

static void
history_draw_note(struct view *view, int y, int height, int width)
{
	if (view->list->row_count > 0)
		return;
	draw_text(y + 1, 2, width - 4, THEME_DIM,
	    "No versions yet. Record one from the Home view (3, then r) or with `hearth record`.", 0);
}

/* ---- checkout --------------------------------------------------------------- */

static void submit_checkout(struct view *view, const struct hearth_version *version, bool force,
    bool allow_deletes);

static int
checkout_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct checkout_job *job = context;
	struct hearth_checkout_options options = {
		.version = job->version.id,
		.force = job->force,
		.allow_deletes = job->allow_deletes,
	};

	return hearth_checkout(home, &options, progress, &job->result, error);
}

static void
checkout_free(void *context)
{
	struct checkout_job *job = context;

	hearth_checkout_result_free(&job->result);
	free(job);
}

static void
confirm_force(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct history *history = view->private;

	if (!accepted) {
		app_message(view->app, "Checkout not done; the Home is as it was");
		return;
	}
	submit_checkout(view, &history->pending, true, false);
}

/* The paths a refused checkout would clobber, a few by name. */
static void
ask_force(struct checkout_job *job)
{
	struct view *view = job->view;
	const struct hearth_change_list *blocked = &job->result.blocked;
	size_t shown = blocked->count < 5 ? blocked->count : 5;
	size_t size = 512 + shown * 256;
	char *question = memory_alloc(size, 1);
	size_t used = (size_t)snprintf(question, size,
	    "%zu unrecorded change%s would be overwritten:\n", blocked->count,
	    blocked->count == 1 ? "" : "s");

	for (size_t i = 0; i < shown && used < size; i++)
		used += (size_t)snprintf(question + used, size - used, "  %c %s\n",
		    (char)blocked->items[i].kind, blocked->items[i].path);
	if (blocked->count > shown && used < size)
		used += (size_t)snprintf(question + used, size - used, "  and %zu more\n",
		    blocked->count - shown);
	if (used < size)
		snprintf(question + used, size - used,
		    "Record them first as a new version, then check out %s?",
		    job->version.short_id);
	dialog_confirm(app_dialog(view->app), "Unrecorded changes", question, confirm_force, view);
	free(question);
}

static void
confirm_deletes(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct history *history = view->private;

	(void)text;
	if (!accepted) {
		app_message(view->app, "Checkout not done; the Home is as it was");
		return;
	}
	submit_checkout(view, &history->pending, history->pending_force, true);
}

/* The guard on emptying stopped it: ask before deleting that much. */
static void
ask_deletes(struct checkout_job *job)
{
	struct view *view = job->view;
	struct history *history = view->private;
	char *ask = memory_printf("Check out %s anyway?", job->version.short_id);
	char *question = view_guard_question(view, &job->result.guard, ask);

	free(ask);
	history->pending = job->version;
	history->pending_force = job->force;
	dialog_confirm(app_dialog(view->app), "Delete many files?", question, confirm_deletes, view);
	free(question);
}

static void
checkout_done(void *context, int code, const struct hearth_error *error)
{
	struct checkout_job *job = context;
	struct view *view = job->view;

	switch (code) {
	case HEARTH_OK:
		app_message(view->app, "Checked out %s: %llu written, %llu removed, %llu moved%s%.8s",
		    job->version.short_id, (unsigned long long)job->result.written,
		    (unsigned long long)job->result.removed, (unsigned long long)job->result.moved,
		    job->result.recorded[0] ? "; recorded your changes first as " : "",
		    job->result.recorded[0] ? job->result.recorded : "");
		app_home_changed(view->app);
		break;
	case HEARTH_REFUSED:
		if (job->result.guard.refused)
			ask_deletes(job);
		else
			ask_force(job);
		break;
	case HEARTH_CANCELLED:
		app_message(view->app, "Checkout cancelled; the Home is as it was");
		break;
	default:
		app_error(view->app, "Checkout failed", error);
		app_home_changed(view->app);
		break;
	}
	checkout_free(job);
}

static void
submit_checkout(struct view *view, const struct hearth_version *version, bool force,
    bool allow_deletes)
{
	struct checkout_job *job = memory_alloc(1, sizeof *job);
	struct worker_job work = {
		.title = force ? "recording, then checking out" : "checking out",
		.run = checkout_run,
		.done = checkout_done,
		.discard = checkout_free,
		.context = job,
		.changes_home = true,
	};

	job->view = view;
	job->version = *version;
	job->version.author = job->version.message = NULL;
	job->force = force;
	job->allow_deletes = allow_deletes;
	app_submit(view->app, &work);
}

static void
confirm_checkout(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct history *history = view->private;

	if (accepted)
		submit_checkout(view, &history->pending, false, false);
}

static void
ask_checkout(struct view *view)
{
	struct history *history = view->private;
	const struct list_item *item = list_selected(view->list);

	if (item == NULL)
		return;
	const struct history_row *row = item->data;
	history->pending = row->version;
	history->pending.author = history->pending.message = NULL;
	char *question = memory_printf("Check out version %s (\"%s\")?\n\n"
	    "The Home's files become that version's. Unrecorded changes are never "
	    "lost: if any would be overwritten you are asked first.",
	    row->version.short_id, row->first_line);
	dialog_confirm(app_dialog(view->app), "Check out", question, confirm_checkout, view);
	free(question);
}

/* ---- search ----------------------------------------------------------------- */

/* The row of the next loaded match from row start going by step, or -1. */
static long
find_loaded(struct view *view, const char *text, long start, long step)
{
	for (long row = start; row >= 0 && (size_t)row < view->list->row_count; row += step)
		if (row_matches(view->list->rows[row]->data, text))
			return row;
	return -1;
}

/* Loads older pages until one holds a match: the backend's grep says which
 * version that is, so a history without one is not read page by page. */
static long
find_older(struct view *view, const char *text)
{
	while (view->list->root.more) {
		const struct history_row *last = last_row(view);
		struct hearth_log_query query = {
			.before = last->version.unnamed ? NULL : last->version.id, .limit = 1, .grep = text,
		};
		struct hearth_version_list found;
		struct hearth_error error;
		if (hearth_log(app_home(view->app), &query, &found, &error) != HEARTH_OK) {
			app_error(view->app, "Cannot search the history", &error);
			return -1;
		}
		char target[HEARTH_ID_HEX] = "";
		if (found.count > 0)
			snprintf(target, sizeof target, "%s", found.items[0].id);
		hearth_version_list_free(&found);
		if (target[0] == '\0')
			return -1;
		size_t before = view->list->row_count;
		while (load_page(view) > 0) {
			for (size_t row = before; row < view->list->row_count; row++) {
				const struct history_row *candidate = view->list->rows[row]->data;
				if (strcmp(candidate->version.id, target) == 0)
					return (long)row;
			}
			before = view->list->row_count;
		}
	}
	return -1;
}

static bool
search_from(struct view *view, const char *text, long start, long step, bool load)
{
	long row = find_loaded(view, text, start, step);

	if (row < 0 && step > 0 && load)
		row = find_older(view, text);
	if (row < 0)
		return false;
	list_move_to(view->list, (size_t)row);
	return true;
}

static void
search_changed(void *context, const char *text)
{
	struct view *view = context;
	struct history *history = view->private;

	if (text[0] == '\0' || !search_from(view, text, (long)history->search_origin, 1, false))
		list_move_to(view->list, history->search_origin);
}

static void
search_done(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct history *history = view->private;

	if (!accepted || text == NULL || text[0] == '\0') {
		list_move_to(view->list, history->search_origin);
		return;
	}
	free(history->search);
	history->search = memory_strdup(text);
	if (!search_from(view, text, (long)history->search_origin, 1, true)) {
		list_move_to(view->list, history->search_origin);
		app_message(view->app, "No version's message contains \"%s\"", text);
	}
}

static void
search_again(struct view *view, long step)
{
	struct history *history = view->private;

	if (history->search == NULL) {
		app_message(view->app, "No search yet: / searches messages");
		return;
	}
	if (search_from(view, history->search, (long)view->list->cursor + step, step, true))
		return;
	/* Round the end, as less and vim do: from the newest on, or (N) from
	 * the oldest up, which loads the whole history first, as G does. */
	if (step < 0)
		while (load_page(view) > 0)
			;
	long restart = step > 0 ? 0 : (long)view->list->row_count - 1;
	if (search_from(view, history->search, restart, step, false))
		app_message(view->app, "Search went on from the %s", step > 0 ? "newest version"
		    : "oldest version");
	else
		app_message(view->app, "No version's message contains \"%s\"", history->search);
}

static bool
history_handle(struct view *view, enum action action)
{
	struct history *history = view->private;
	const struct list_item *item = list_selected(view->list);

	switch (action) {
	case ACTION_OPEN_VERSION:
		if (item == NULL)
			return true;
		view_version_show(app_view(view->app, VIEW_VERSION),
		    &((const struct history_row *)item->data)->version);
		app_show_view(view->app, VIEW_VERSION);
		return true;
	case ACTION_CHECKOUT:
		ask_checkout(view);
		return true;
	case ACTION_SEARCH:
		history->search_origin = view->list->cursor;
		/* A new search starts empty; n and N keep the last one. */
		dialog_input(app_dialog(view->app), "Search", "Versions whose message contains:",
		    NULL, search_done, search_changed, view);
		return true;
	case ACTION_SEARCH_NEXT:
		search_again(view, 1);
		return true;
	case ACTION_SEARCH_PREVIOUS:
		search_again(view, -1);
		return true;
	default:
		return false;
	}
}

const struct view_ops view_history_ops = {
	.name = "History",
	.scope = SCOPE_HISTORY,
	.open = history_open,
	.close = history_close,
	.build = history_build,
	.load_more = history_load_more,
	.draw_header = history_draw_header,
	.draw_row = history_draw_row,
	.draw_note = history_draw_note,
	.handle = history_handle,
};
