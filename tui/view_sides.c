/* The Sides pane: one conflict, opened from the Conflicts view with Enter:
 * what the kind means, each side (mine or theirs, replica, op, author,
 * time, what it does, size and content id, which one head shows),
 * what m, t, b and x would do, and for a content conflict of text its
 * three-way view (each overlap's base, mine and theirs) and a diff between
 * the sides (hearth_diff_blobs). m, t and b settle it through the Conflicts
 * view, x merges it with markers (it stays listed) and l leaves it; all of
 * them then show the next conflict. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"

#define PANE_DIFF_MAX (256 * 1024)

struct pane_row {
	enum theme_role role;
	char *text;
	bool diff;		/* a diff line: tabs expanded */
};

struct conflict_pane {
	char id[40];
	char *title;		/* "content notes.txt", for the header */
	bool listed;		/* the last build found it among the conflicts */
};

/* What a kind means and what each key does to it. */
struct kind_text {
	enum hearth_conflict_kind kind;
	const char *about;
	const char *mine, *theirs, *both;	/* NULL: it cannot be settled here */
};

static const struct kind_text kind_texts[] = {
	{ HEARTH_CONFLICT_CONTENT,
	  "Edited on two replicas at once. Head shows one side; the store keeps the other.",
	  "keeps this replica's edit", "keeps the other replica's edit",
	  "keeps both: the other edit becomes a file beside it, named NAME~HEX" },
	{ HEARTH_CONFLICT_MOVE, "Moved or renamed two ways at once; head shows one of them.",
	  "keeps this replica's move", "keeps the other replica's move",
	  "keeps it where head shows it now" },
	{ HEARTH_CONFLICT_CYCLE,
	  "A folder move was skipped: with the other moves it would have put a folder inside "
	  "itself.",
	  "keeps this replica's move", "keeps the other replica's move",
	  "keeps it where head shows it now" },
	{ HEARTH_CONFLICT_EDIT_REVIVED,
	  "Deleted on one replica while edited on another, so it was kept.",
	  "does what this replica did (deletes it again, or keeps the edit)",
	  "does what the other replica did", "keeps it" },
	{ HEARTH_CONFLICT_REVIVED,
	  "A folder deleted on one replica was kept for what another put inside it.",
	  "does what this replica did (deletes it again, or keeps it)",
	  "does what the other replica did", "keeps it" },
	{ HEARTH_CONFLICT_NAME,
	  "Two files got one name in one folder. Both are kept; the later one shows as NAME~HEX.",
	  "gives the name to this replica's file", "gives the name to the other replica's file",
	  "keeps both names as head shows them now" },
	{ HEARTH_CONFLICT_INVALID_OP,
	  "An op from a peer could not apply: that peer is broken. It cannot be settled here.",
	  NULL, NULL, NULL },
};

/* ---- rows ---------------------------------------------------------------------- */

static void
free_row(void *data)
{
	struct pane_row *row = data;

	free(row->text);
	free(row);
}

static void
add_row(struct view *view, enum theme_role role, char *text)
{
	struct pane_row *row = memory_alloc(1, sizeof *row);

	row->role = role;
	row->text = text;
	list_append(view->list, NULL, row);
}

static void
add_diff_row(struct view *view, enum theme_role role, char *text)
{
	add_row(view, role, text);
	((struct pane_row *)view->list->root.children[view->list->root.child_count - 1]->data)
	    ->diff = true;
}

static const struct kind_text *
kind_text(enum hearth_conflict_kind kind)
{
	for (size_t i = 0; i < sizeof kind_texts / sizeof *kind_texts; i++)
		if (kind_texts[i].kind == kind)
			return &kind_texts[i];
	return &kind_texts[sizeof kind_texts / sizeof *kind_texts - 1];
}

/* ---- open, show, close ---------------------------------------------------------- */

static void
pane_open(struct view *view)
{
	view->list = list_new(free_row, NULL);
	view->private = memory_alloc(1, sizeof(struct conflict_pane));
}

static void
pane_close(struct view *view)
{
	struct conflict_pane *pane = view->private;

	list_free(view->list);
	free(pane->title);
	free(pane);
}

void
view_sides_show(struct view *view, const char *id)
{
	struct conflict_pane *pane = view->private;

	snprintf(pane->id, sizeof pane->id, "%s", id);
	list_clear(view->list);
	view->stale = true;
}

/* ---- building ------------------------------------------------------------------- */

/* "edit", "delete", "move to a/b", "named a/b, shown as a/b~1234abcd". */
static char *
side_action(const struct hearth_conflict *conflict, const struct hearth_conflict_side *side)
{
	const char *what = side->what ? side->what : "?";
	const char *path = side->path ? side->path : "";

	if (strcmp(what, "move") == 0)
		return memory_printf("move to %s", path);
	if (strcmp(what, "add") == 0)
		return memory_printf("puts %s in it", path);
	if (strcmp(what, "edit") == 0 && strcmp(path, conflict->path) != 0)
		return memory_printf("edit of %s", path);	/* in a revived folder */
	if (strcmp(what, "name") == 0 && side->shown)
		return memory_printf("named %s (keeps the name)", path);
	if (strcmp(what, "name") == 0)
		return memory_printf("named %s, shown as %s", path,
		    side->shown_path ? side->shown_path : conflict->path);
	return memory_strdup(what);
}

static void
add_side(struct view *view, const struct hearth_conflict *conflict, size_t index)
{
	const struct hearth_conflict_side *side = &conflict->sides[index];
	char when[32] = "time unknown";
	char *action = side_action(conflict, side);
	char *content = side->has_content ? memory_printf(", %llu bytes, content %.12s",
	    (unsigned long long)side->size, side->hash) : memory_strdup("");

	if (side->time != 0)
		draw_format_time(side->time, when, sizeof when);
	add_row(view, side->mine ? THEME_ADDED : THEME_MODIFIED, memory_printf(
	    "%s %-6s replica %.8s%s, op %llu, by %s, %s", side->shown ?
	    (draw_unicode() ? "\u25b6" : ">") : " ", side->mine ? "mine" : "theirs",
	    side->replica, side->mine ? " (this one)" : "", (unsigned long long)side->counter,
	    side->author && side->author[0] ? side->author : "someone unknown", when));
	add_row(view, THEME_NORMAL, memory_printf("         %s%s%s", action, content,
	    side->shown ? "; head shows this side" : ""));
	free(action);
	free(content);
}

static void
add_choices(struct view *view, const struct kind_text *text)
{
	add_row(view, THEME_NORMAL, memory_strdup(""));
	if (text->mine == NULL) {
		add_row(view, THEME_DIM, memory_strdup("l leaves it; h goes back"));
		return;
	}
	add_row(view, THEME_HEADER, memory_strdup("Settle it (recorded as a new version at once)"));
	add_row(view, THEME_NORMAL, memory_printf("  m  %s", text->mine));
	add_row(view, THEME_NORMAL, memory_printf("  t  %s", text->theirs));
	add_row(view, THEME_NORMAL, memory_printf("  b  %s", text->both));
	if (text->kind == HEARTH_CONFLICT_CONTENT)
		add_row(view, THEME_NORMAL, memory_strdup("  x  merges mine and theirs by line, with "
		    "markers around each overlap; listed until recorded without them"));
	add_row(view, THEME_NORMAL, memory_strdup("  l  leaves it for later and shows the next one"));
}

/* The lines of one side of an overlap, behind a bar. */
static void
add_overlap_lines(struct view *view, enum theme_role role, const char *label, const char *text)
{
	add_row(view, THEME_NORMAL, memory_printf("    %s:", label));
	if (text[0] == '\0')
		add_diff_row(view, THEME_DIM, memory_strdup("      | (nothing)"));
	for (const char *line = text; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		add_diff_row(view, role, memory_printf("      | %.*s", (int)length, line));
		line += length;
		if (*line == '\n')
			line++;
	}
}

/* Content conflicts of text: base, mine and theirs for each overlap. */
static void
add_three_way(struct view *view, const struct hearth_conflict *conflict)
{
	struct hearth_conflict_merge merge;
	struct hearth_error error;

	if (conflict->kind != HEARTH_CONFLICT_CONTENT)
		return;
	add_row(view, THEME_NORMAL, memory_strdup(""));
	if (hearth_conflict_merge(app_home(view->app), conflict->id, &merge, &error) != HEARTH_OK) {
		add_row(view, THEME_ERROR, memory_strdup(error.message));
		return;
	}
	if (!merge.text) {
		add_row(view, THEME_DIM, memory_printf("Not merged by line: %s", merge.why));
	} else if (merge.overlap_count == 0) {
		add_row(view, THEME_DIM, memory_strdup("Its sides merge by line with no overlap: the "
		    "next sync merges them"));
	} else {
		add_row(view, THEME_HEADER, memory_printf("%zu overlap%s against their base",
		    merge.overlap_count, merge.overlap_count == 1 ? "" : "s"));
		char *mine = memory_printf("mine (%s)", merge.mine_label);
		char *theirs = memory_printf("theirs (%s)", merge.theirs_label);
		for (size_t i = 0; i < merge.overlap_count; i++) {
			const struct hearth_overlap *overlap = &merge.overlaps[i];
			add_row(view, THEME_DIM, memory_printf("  @@ base line %llu, %llu line%s",
			    (unsigned long long)overlap->base_line, (unsigned long long)overlap->base_count,
			    overlap->base_count == 1 ? "" : "s"));
			add_overlap_lines(view, THEME_NORMAL, "base", overlap->base);
			add_overlap_lines(view, THEME_ADDED, mine, overlap->mine);
			add_overlap_lines(view, THEME_MODIFIED, theirs, overlap->theirs);
		}
		free(mine);
		free(theirs);
	}
	hearth_conflict_merge_free(&merge);
}

static void
add_diff_lines(struct view *view, const struct hearth_text *diff)
{
	if (diff->binary) {
		add_diff_row(view, THEME_DIM, memory_strdup("(binary or too large to show as text)"));
		return;
	}
	if (diff->length == 0)
		add_diff_row(view, THEME_DIM, memory_strdup("(the same text)"));
	for (const char *line = diff->text; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		char *text = memory_strndup(line, length);
		add_diff_row(view, draw_diff_role(text), text);
		line += length;
		if (*line == '\n')
			line++;
	}
}

/* The side the others are compared with: this replica's (the greatest of
 * them, as keep mine picks), else the one head shows, else the last. */
static size_t
diff_base(const struct hearth_conflict *conflict)
{
	size_t base = conflict->side_count - 1;
	bool mine = false;

	for (size_t i = 0; i < conflict->side_count; i++) {
		if (conflict->sides[i].mine) {
			base = i;
			mine = true;
		} else if (!mine && conflict->sides[i].shown) {
			base = i;
		}
	}
	return base;
}

static char *
side_label(const struct hearth_conflict_side *side, const char *path)
{
	return side->mine ? memory_printf("mine/%s", path) :
	    memory_printf("theirs-%.8s/%s", side->replica, path);
}

/* Content conflicts: each other side against the base, as a unified diff. */
static void
add_diffs(struct view *view, const struct hearth_conflict *conflict)
{
	if (conflict->kind != HEARTH_CONFLICT_CONTENT || conflict->side_count < 2)
		return;
	size_t base = diff_base(conflict);
	const struct hearth_conflict_side *from = &conflict->sides[base];
	for (size_t i = 0; i < conflict->side_count; i++) {
		const struct hearth_conflict_side *to = &conflict->sides[i];
		if (i == base || !from->has_content || !to->has_content)
			continue;
		add_row(view, THEME_NORMAL, memory_strdup(""));
		add_row(view, THEME_HEADER, memory_printf("Diff from %s to %s %.8s",
		    from->mine ? "mine" : "the tree's side", to->mine ? "mine" : "theirs", to->replica));
		struct hearth_text diff;
		struct hearth_error error;
		char *old_label = side_label(from, conflict->path);
		char *new_label = side_label(to, conflict->path);
		if (hearth_diff_blobs(app_home(view->app), from->hash, to->hash, old_label, new_label,
		    PANE_DIFF_MAX, &diff, &error) != HEARTH_OK) {
			add_diff_row(view, THEME_ERROR, memory_strdup(error.message));
		} else {
			add_diff_lines(view, &diff);
			hearth_text_free(&diff);
		}
		free(old_label);
		free(new_label);
	}
}

static void
add_conflict(struct view *view, const struct hearth_conflict *conflict)
{
	const struct kind_text *text = kind_text(conflict->kind);

	add_row(view, THEME_CONFLICT, memory_printf("%s conflict at %s", conflict->kind_name,
	    conflict->path));
	add_row(view, THEME_NORMAL, memory_strdup(text->about));
	add_row(view, THEME_DIM, memory_printf("id %s; %zu sides, in the order they happened",
	    conflict->id, conflict->side_count));
	add_row(view, THEME_NORMAL, memory_strdup(""));
	for (size_t i = 0; i < conflict->side_count; i++)
		add_side(view, conflict, i);
	add_choices(view, text);
	add_diffs(view, conflict);
	add_three_way(view, conflict);
}

static void
pane_build(struct view *view)
{
	struct conflict_pane *pane = view->private;
	struct hearth_conflict_list conflicts;
	struct hearth_error error;
	const struct hearth_conflict *found = NULL;

	list_clear(view->list);
	free(pane->title);
	pane->title = memory_strdup(pane->id);
	pane->listed = false;
	if (hearth_conflicts(app_home(view->app), &conflicts, &error) != HEARTH_OK) {
		add_row(view, THEME_ERROR, memory_strdup(error.message));
		list_refresh(view->list);
		return;
	}
	for (size_t i = 0; i < conflicts.count && found == NULL; i++)
		if (strcmp(conflicts.items[i].id, pane->id) == 0)
			found = &conflicts.items[i];
	pane->listed = found != NULL;
	if (found != NULL) {
		free(pane->title);
		pane->title = memory_printf("%s %s", found->kind_name, found->path);
		add_conflict(view, found);
	} else {
		add_row(view, THEME_DIM, memory_strdup("This conflict is settled: it is no longer "
		    "listed. h goes back to the list."));
	}
	hearth_conflict_list_free(&conflicts);
	list_refresh(view->list);
}

/* ---- drawing -------------------------------------------------------------------- */

static void
pane_draw_header(struct view *view, int y, int width)
{
	struct conflict_pane *pane = view->private;
	char *title = memory_printf("Conflict: %s", pane->title ? pane->title : pane->id);

	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, title, 0);
	free(title);
}

static void
pane_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	const struct pane_row *row = item->data;

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	draw_text(y, x + 2, width - 2, view_role(selected, row->role), row->text,
	    row->diff ? DRAW_EXPAND_TABS : 0);
}

/* ---- keys ---------------------------------------------------------------------- */

/* Shows the conflict after this one, or goes back to the list after the last. */
static void
show_next(struct view *view, bool settled)
{
	struct conflict_pane *pane = view->private;
	const char *next = view_conflicts_next(app_view(view->app, VIEW_CONFLICTS), pane->id);

	if (next != NULL) {
		view_sides_show(view, next);
		return;
	}
	app_close_view(view->app);
	if (!settled)
		app_message(view->app, "That was the last conflict");
}

static bool
pane_handle(struct view *view, enum action action)
{
	struct conflict_pane *pane = view->private;
	struct view *conflicts = app_view(view->app, VIEW_CONFLICTS);
	bool settling = action == ACTION_KEEP_MINE || action == ACTION_KEEP_THEIRS ||
	    action == ACTION_KEEP_BOTH || action == ACTION_MERGE_MARKERS;

	if (settling && !pane->listed) {
		app_message(view->app, "Nothing to settle here: this conflict is no longer listed");
		return true;
	}
	switch (action) {
	case ACTION_KEEP_MINE:
		view_conflicts_settle(conflicts, pane->id, HEARTH_KEEP_MINE);
		show_next(view, true);
		return true;
	case ACTION_KEEP_THEIRS:
		view_conflicts_settle(conflicts, pane->id, HEARTH_KEEP_THEIRS);
		show_next(view, true);
		return true;
	case ACTION_KEEP_BOTH:
		view_conflicts_settle(conflicts, pane->id, HEARTH_KEEP_BOTH);
		show_next(view, true);
		return true;
	case ACTION_MERGE_MARKERS:
		view_conflicts_settle(conflicts, pane->id, HEARTH_KEEP_MARKERS);
		show_next(view, true);
		return true;
	case ACTION_DECIDE_LATER:
		show_next(view, false);
		return true;
	default:
		return false;
	}
}

const struct view_ops view_sides_ops = {
	.name = "Sides",
	.scope = SCOPE_SIDES,
	.open = pane_open,
	.close = pane_close,
	.build = pane_build,
	.draw_header = pane_draw_header,
	.draw_row = pane_draw_row,
	.handle = pane_handle,
};
