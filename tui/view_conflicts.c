/* The Conflicts view: what replicas did at once that needs a person
 * (hearth_conflicts), one row a conflict with its kind, its sides and its
 * path. Enter opens the Sides pane of one conflict (view_sides.c); m, t and b
 * settle the marked conflicts, or the selected one, on the worker with
 * hearth_resolve_conflicts, which records a version at once; l moves on. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/dialog.h"
#include "tui/memory.h"
#include "tui/view.h"

#define CONFLICTS_KIND_WIDTH 12
#define CONFLICTS_SIDES_WIDTH 5
#define CONFLICTS_WHAT_WIDTH 30
#define CONFLICTS_REFUSED_SHOWN 5

struct conflict_row {
	char id[40];
	char *kind_name;
	char *path;
	char *what;		/* "mine edit, theirs edit": who did what */
	size_t side_count;
};

struct id_set {
	char (*ids)[40];
	size_t count;
};

/* The conflicts a queued or running job is settling, by id: they stay
 * listed until it is done but cannot be settled twice. */
struct conflicts_pane {
	char (*settling)[40];
	size_t settling_count;
	/* The marked conflicts a key would settle, while the question whether
	 * to settle them all is open. */
	struct id_set asked;
	char *asked_path;
	enum hearth_resolution asked_how;
};

struct settle_job {
	struct view *view;
	char **ids;
	size_t count;
	char *first_path;	/* for the message when it is one conflict */
	enum hearth_resolution how;
	struct hearth_resolve_result result;
};

static const char *const conflicts_explanation[] = {
	"No conflicts.",
	"",
	"When two replicas change the same thing before they sync, the sync keeps "
	"both and lists it here: its kind (content, move, name, edit-revived, revived, "
	"cycle, invalid-op), its path and what each side did. Nothing is lost meanwhile: "
	"head (and the tree, once checked out) shows one side and the store keeps the others.",
	"",
	"Enter shows each side with its replica, author, time and size, and a diff of "
	"two texts; m keeps this replica's side, t the other's, b both. Each choice is "
	"recorded as a new version at once.",
};

static const char *const conflicts_hint[] = {
	"Enter shows each side and how they differ. m keeps this replica's side, t the "
	"other's, b both; x merges a text by line with markers around the overlaps; l leaves "
	"one for later. Space marks several to settle with one key. Each choice is recorded "
	"as a new version at once.",
};

/* ---- rows ---------------------------------------------------------------------- */

static void
free_row(void *data)
{
	struct conflict_row *row = data;

	free(row->kind_name);
	free(row->path);
	free(row->what);
	free(row);
}

/* "mine edit, theirs delete": the first word of what each side did. */
static char *
sides_summary(const struct hearth_conflict *conflict)
{
	size_t size = 16 + conflict->side_count * 48;
	char *text = memory_alloc(size, 1);
	size_t used = 0;

	for (size_t i = 0; i < conflict->side_count && used < size; i++) {
		const struct hearth_conflict_side *side = &conflict->sides[i];
		const char *what = side->what ? side->what : "?";
		int written = snprintf(text + used, size - used, "%s%s %.*s", i ? ", " : "",
		    side->mine ? "mine" : "theirs", (int)strcspn(what, " "), what);
		if (written < 0)
			break;
		used += (size_t)written;
	}
	return text;
}

static struct conflict_row *
row_new(const struct hearth_conflict *conflict)
{
	struct conflict_row *row = memory_alloc(1, sizeof *row);

	snprintf(row->id, sizeof row->id, "%s", conflict->id);
	row->kind_name = memory_strdup(conflict->kind_name ? conflict->kind_name : "?");
	row->path = memory_strdup(conflict->path ? conflict->path : "");
	row->what = sides_summary(conflict);
	row->side_count = conflict->side_count;
	return row;
}

static bool
is_settling(const struct conflicts_pane *pane, const char *id)
{
	for (size_t i = 0; i < pane->settling_count; i++)
		if (strcmp(pane->settling[i], id) == 0)
			return true;
	return false;
}

static void
add_settling(struct conflicts_pane *pane, const char *id)
{
	pane->settling = memory_resize(pane->settling, pane->settling_count + 1,
	    sizeof *pane->settling);
	snprintf(pane->settling[pane->settling_count++], sizeof *pane->settling, "%s", id);
}

static void
remove_settling(struct conflicts_pane *pane, const char *id)
{
	for (size_t i = 0; i < pane->settling_count; i++) {
		if (strcmp(pane->settling[i], id) != 0)
			continue;
		memmove(pane->settling[i], pane->settling[i + 1],
		    (pane->settling_count - i - 1) * sizeof *pane->settling);
		pane->settling_count--;
		return;
	}
}

static size_t
row_index(const struct view *view, const char *id)
{
	for (size_t i = 0; i < view->list->row_count; i++)
		if (strcmp(((const struct conflict_row *)view->list->rows[i]->data)->id, id) == 0)
			return i;
	return (size_t)-1;
}

/* ---- open, build, close -------------------------------------------------------- */

static void
conflicts_open(struct view *view)
{
	view->list = list_new(free_row, NULL);
	view->private = memory_alloc(1, sizeof(struct conflicts_pane));
	view->stale = true;
}

static void
conflicts_close(struct view *view)
{
	struct conflicts_pane *pane = view->private;

	list_free(view->list);
	free(pane->settling);
	free(pane->asked.ids);
	free(pane->asked_path);
	free(pane);
}

static void
add_id(struct id_set *set, const char *id)
{
	set->ids = memory_resize(set->ids, set->count + 1, sizeof *set->ids);
	snprintf(set->ids[set->count++], sizeof *set->ids, "%s", id);
}

static void
collect_marked(void *context, struct list_item *item)
{
	add_id(context, ((const struct conflict_row *)item->data)->id);
}

/* Reloads the list, keeping marks and the cursor's conflict (or its row
 * when that one is gone, so the cursor lands on the one after it). */
static void
conflicts_build(struct view *view)
{
	struct hearth_conflict_list conflicts;
	struct hearth_error error;
	struct id_set marked = { 0 };
	const struct list_item *selected = list_selected(view->list);
	char keep[40] = "";
	size_t keep_row = view->list->cursor;

	if (selected != NULL)
		snprintf(keep, sizeof keep, "%s", ((const struct conflict_row *)selected->data)->id);
	list_for_each_marked(view->list, collect_marked, &marked);
	list_clear(view->list);
	view->list->root.loaded = true;
	if (hearth_conflicts(app_home(view->app), &conflicts, &error) != HEARTH_OK) {
		app_error(view->app, "Cannot list the conflicts", &error);
		free(marked.ids);
		return;
	}
	for (size_t i = 0; i < conflicts.count; i++) {
		struct list_item *item = list_append(view->list, NULL, row_new(&conflicts.items[i]));
		for (size_t j = 0; j < marked.count; j++)
			if (strcmp(marked.ids[j], conflicts.items[i].id) == 0)
				list_toggle_mark(view->list, item);
	}
	hearth_conflict_list_free(&conflicts);
	free(marked.ids);
	list_refresh(view->list);
	size_t again = keep[0] ? row_index(view, keep) : (size_t)-1;
	list_move_to(view->list, again != (size_t)-1 ? again : keep_row);
}

/* ---- drawing -------------------------------------------------------------------- */

static int
what_width(int width)
{
	return width >= 70 ? CONFLICTS_WHAT_WIDTH : 0;
}

static void
conflicts_draw_header(struct view *view, int y, int width)
{
	int x = 2, what = what_width(width);

	draw_fill(y, 0, width, THEME_HEADER);
	x += draw_text(y, x, CONFLICTS_KIND_WIDTH, THEME_HEADER, "Kind", DRAW_PAD) + 1;
	x += draw_text(y, x, CONFLICTS_SIDES_WIDTH, THEME_HEADER, "Sides", DRAW_PAD) + 1;
	draw_text(y, x, width - x - what - 1, THEME_HEADER, "Path", 0);
	if (what > 0)
		draw_text(y, width - what - 1, what, THEME_HEADER, "What each side did", 0);
}

static void
conflicts_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	struct view *view = context;
	const struct conflict_row *row = item->data;
	bool settling = is_settling(view->private, row->id);
	enum theme_role role = view_role(selected, settling ? THEME_DIM :
	    item->marked ? THEME_MARKED : THEME_CONFLICT);
	int what = what_width(width);
	char sides[16];

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	if (item->marked)
		draw_text(y, x, 1, view_role(selected, THEME_MARKED),
		    draw_unicode() ? "\u25cf" : "*", 0);
	int column = x + 2;
	column += draw_text(y, column, CONFLICTS_KIND_WIDTH, role, row->kind_name, DRAW_PAD) + 1;
	snprintf(sides, sizeof sides, "%zu", row->side_count);
	column += draw_text(y, column, CONFLICTS_SIDES_WIDTH, view_role(selected, THEME_DIM), sides,
	    DRAW_PAD) + 1;
	draw_text(y, column, x + width - column - what - 1, role, row->path, 0);
	if (what > 0)
		draw_text(y, x + width - what - 1, what, view_role(selected, THEME_DIM),
		    settling ? "(being settled)" : row->what, 0);
}

/* Paragraphs wrapped to the width, from line y on; with a title, the
 * first paragraph is it. */
static void
draw_paragraphs(const char *const *paragraphs, size_t count, bool title, int y, int height,
    int width)
{
	int line = 0;

	for (size_t i = 0; i < count && line < height; i++) {
		if (paragraphs[i][0] == '\0')
			line++;
		else
			line += draw_wrapped(y + line, 2, height - line, width - 4,
			    title && i == 0 ? THEME_TITLE : THEME_DIM, paragraphs[i]);
	}
}

static void
conflicts_draw_note(struct view *view, int y, int height, int width)
{
	if (view->list->row_count > 0) {
		draw_paragraphs(conflicts_hint, sizeof conflicts_hint / sizeof *conflicts_hint, false,
		    y + 1, height - 1, width);
		return;
	}
	draw_paragraphs(conflicts_explanation,
	    sizeof conflicts_explanation / sizeof *conflicts_explanation, true, y + 1, height - 1,
	    width);
}

/* ---- settling ----------------------------------------------------------------- */

static const char *
resolution_name(enum hearth_resolution how)
{
	switch (how) {
	case HEARTH_KEEP_MINE:
		return "mine";
	case HEARTH_KEEP_THEIRS:
		return "theirs";
	case HEARTH_KEEP_BOTH:
		return "both";
	case HEARTH_KEEP_MARKERS:
		return "both, merged with markers";
	default:
		return "a version";
	}
}

static int
settle_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct settle_job *job = context;
	struct hearth_resolve_options options = {
		.targets = (const char *const *)job->ids,
		.target_count = job->count,
		.resolution = job->how,
	};

	return hearth_resolve_conflicts(home, &options, progress, &job->result, error);
}

static void
settle_free(void *context)
{
	struct settle_job *job = context;

	for (size_t i = 0; i < job->count; i++)
		free(job->ids[i]);
	free(job->ids);
	free(job->first_path);
	hearth_resolve_result_free(&job->result);
	free(job);
}

/* The paths holding unrecorded changes, a few by name. */
static void
explain_refusal(struct settle_job *job)
{
	const struct hearth_change_list *blocked = &job->result.changes;
	size_t shown = blocked->count < CONFLICTS_REFUSED_SHOWN ? blocked->count :
	    CONFLICTS_REFUSED_SHOWN;
	size_t size = 512 + shown * 256;
	char *text = memory_alloc(size, 1);
	size_t used = (size_t)snprintf(text, size,
	    "Nothing was settled: %zu path%s it would write hold%s changes that are not "
	    "recorded:\n", blocked->count, blocked->count == 1 ? "" : "s",
	    blocked->count == 1 ? "s" : "");

	for (size_t i = 0; i < shown && used < size; i++)
		used += (size_t)snprintf(text + used, size - used, "  %c %s\n",
		    (char)blocked->items[i].kind, blocked->items[i].path);
	if (blocked->count > shown && used < size)
		used += (size_t)snprintf(text + used, size - used, "  and %zu more\n",
		    blocked->count - shown);
	if (used < size)
		snprintf(text + used, size - used,
		    "Record them first (3, then r), then settle again.");
	dialog_message(app_dialog(job->view->app), "Unrecorded changes", text);
	free(text);
}

static void
settle_done(void *context, int code, const struct hearth_error *error)
{
	struct settle_job *job = context;
	struct view *view = job->view;

	for (size_t i = 0; i < job->count; i++)
		remove_settling(view->private, job->ids[i]);
	switch (code) {
	case HEARTH_OK:
		if (job->how == HEARTH_KEEP_MARKERS)
			app_message(view->app, "Merged %s with markers (listed until recorded without "
			    "them): version %.8s", job->first_path != NULL && job->result.resolved == 1 ?
			    job->first_path : "the conflicts", job->result.version);
		else if (job->result.resolved == 1 && job->first_path != NULL)
			app_message(view->app, "Settled %s keeping %s: recorded as version %.8s",
			    job->first_path, resolution_name(job->how), job->result.version);
		else
			app_message(view->app, "Settled %zu conflicts keeping %s: recorded as version %.8s",
			    job->result.resolved, resolution_name(job->how), job->result.version);
		break;
	case HEARTH_REFUSED:
		explain_refusal(job);
		break;
	case HEARTH_CANCELLED:
		app_message(view->app, "Settling cancelled; nothing was recorded");
		break;
	default:
		app_error(view->app, "Settling failed", error);
		break;
	}
	app_home_changed(view->app);
	settle_free(job);
}

static void
submit_settle(struct view *view, struct id_set *targets, const char *first_path,
    enum hearth_resolution how)
{
	struct settle_job *job = memory_alloc(1, sizeof *job);
	char *title = targets->count == 1 ?
	    memory_printf("settling %s (keeping %s)", first_path, resolution_name(how)) :
	    memory_printf("settling %zu conflicts (keeping %s)", targets->count, resolution_name(how));
	struct worker_job work = {
		.title = title,
		.run = settle_run,
		.done = settle_done,
		.discard = settle_free,
		.context = job,
		.changes_home = true,
	};

	job->view = view;
	job->how = how;
	job->count = targets->count;
	job->ids = memory_alloc(targets->count, sizeof *job->ids);
	for (size_t i = 0; i < targets->count; i++) {
		job->ids[i] = memory_strdup(targets->ids[i]);
		add_settling(view->private, targets->ids[i]);
	}
	job->first_path = memory_strdup(first_path);
	app_submit(view->app, &work);
	free(title);
}

/* The first row from row on that is not being settled, or -1. */
static long
open_row_from(const struct view *view, size_t row)
{
	for (size_t at = row; at < view->list->row_count; at++)
		if (!is_settling(view->private,
		    ((const struct conflict_row *)view->list->rows[at]->data)->id))
			return (long)at;
	return -1;
}

static void
confirm_marked(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct conflicts_pane *pane = view->private;

	(void)text;
	if (accepted) {
		submit_settle(view, &pane->asked, pane->asked_path, pane->asked_how);
		list_clear_marks(view->list);
	} else {
		app_message(view->app, "Nothing settled; the marks stay");
	}
	free(pane->asked.ids);
	free(pane->asked_path);
	pane->asked = (struct id_set) { 0 };
	pane->asked_path = NULL;
}

/* One key on marked conflicts settles them all: that is asked first, naming
 * how many and the choice (targets are taken over). */
static void
ask_settle_marked(struct view *view, struct id_set *targets, const char *first_path,
    enum hearth_resolution how)
{
	struct conflicts_pane *pane = view->private;

	free(pane->asked.ids);
	free(pane->asked_path);
	pane->asked = *targets;
	*targets = (struct id_set) { 0 };
	pane->asked_path = memory_strdup(first_path);
	pane->asked_how = how;
	char *question = pane->asked.count == 1 ?
	    memory_printf("Settle the marked conflict %s keeping %s? It is recorded as a version at "
		"once.", first_path, resolution_name(how)) :
	    memory_printf("Settle the %zu marked conflicts (%s, ...) keeping %s? They are recorded "
		"as one version at once.", pane->asked.count, first_path, resolution_name(how));
	dialog_confirm(app_dialog(view->app), "Settle marked", question, confirm_marked, view);
	free(question);
}

/* Settles the marked conflicts (after asking), or the selected one, and
 * moves on. */
static void
settle_chosen(struct view *view, enum hearth_resolution how)
{
	const struct list_item *root = &view->list->root, *selected = list_selected(view->list);
	struct id_set targets = { 0 };
	const char *first_path = NULL;
	bool any_marked = false;

	for (size_t i = 0; i < root->child_count; i++) {
		const struct conflict_row *row = root->children[i]->data;
		if (!root->children[i]->marked)
			continue;
		any_marked = true;
		if (is_settling(view->private, row->id))
			continue;
		add_id(&targets, row->id);
		if (first_path == NULL)
			first_path = row->path;
	}
	if (!any_marked && selected != NULL) {
		const struct conflict_row *row = selected->data;
		if (is_settling(view->private, row->id))
			app_message(view->app, "%s is being settled already", row->path);
		else
			add_id(&targets, row->id);
		first_path = row->path;
	}
	if (targets.count > 0 && any_marked) {
		ask_settle_marked(view, &targets, first_path, how);
	} else if (targets.count > 0) {
		submit_settle(view, &targets, first_path, how);
		list_clear_marks(view->list);
		long next = open_row_from(view, view->list->cursor + 1);
		if (next >= 0 && !any_marked)
			list_move_to(view->list, (size_t)next);
	} else if (any_marked) {
		app_message(view->app, "The marked conflicts are being settled already");
	} else if (selected == NULL) {
		app_message(view->app, "No conflict to settle");
	}
	free(targets.ids);
}

/* ---- for the Sides pane ------------------------------------------------------- */

void
view_conflicts_settle(struct view *view, const char *id, enum hearth_resolution how)
{
	size_t row = row_index(view, id);
	struct id_set targets = { 0 };

	if (is_settling(view->private, id)) {
		app_message(view->app, "This conflict is being settled already");
		return;
	}
	add_id(&targets, id);
	submit_settle(view, &targets, row != (size_t)-1 ?
	    ((const struct conflict_row *)view->list->rows[row]->data)->path : id, how);
	free(targets.ids);
}

const char *
view_conflicts_next(struct view *view, const char *id)
{
	/* A list older than the last change might offer a settled conflict. */
	if (view->stale) {
		view->stale = false;
		conflicts_build(view);
	}
	size_t row = row_index(view, id);
	long next = open_row_from(view, row == (size_t)-1 ? 0 : row + 1);
	if (next < 0)
		return NULL;
	list_move_to(view->list, (size_t)next);
	return ((const struct conflict_row *)view->list->rows[next]->data)->id;
}

/* ---- keys ---------------------------------------------------------------------- */

static bool
conflicts_handle(struct view *view, enum action action)
{
	struct list_item *item = list_selected(view->list);

	switch (action) {
	case ACTION_OPEN_CONFLICT:
		if (item == NULL)
			return true;
		view_sides_show(app_view(view->app, VIEW_SIDES),
		    ((const struct conflict_row *)item->data)->id);
		app_show_view(view->app, VIEW_SIDES);
		return true;
	case ACTION_KEEP_MINE:
		settle_chosen(view, HEARTH_KEEP_MINE);
		return true;
	case ACTION_KEEP_THEIRS:
		settle_chosen(view, HEARTH_KEEP_THEIRS);
		return true;
	case ACTION_KEEP_BOTH:
		settle_chosen(view, HEARTH_KEEP_BOTH);
		return true;
	case ACTION_MERGE_MARKERS:
		settle_chosen(view, HEARTH_KEEP_MARKERS);
		return true;
	case ACTION_DECIDE_LATER:
		if (view->list->row_count > 0 && view->list->cursor + 1 >= view->list->row_count)
			app_message(view->app, "That was the last conflict");
		list_move(view->list, 1);
		return true;
	case ACTION_MARK:
		list_toggle_mark(view->list, item);
		list_move(view->list, 1);
		return true;
	case ACTION_UNMARK_ALL:
		list_clear_marks(view->list);
		return true;
	default:
		return false;
	}
}

const struct view_ops view_conflicts_ops = {
	.name = "Conflicts",
	.scope = SCOPE_CONFLICTS,
	.open = conflicts_open,
	.close = conflicts_close,
	.build = conflicts_build,
	.draw_header = conflicts_draw_header,
	.draw_row = conflicts_draw_row,
	.draw_note = conflicts_draw_note,
	.handle = conflicts_handle,
};
