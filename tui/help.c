/* The help overlay: every action of the action table with its keys and
 * description, grouped by the views it works in, so the help can never
 * disagree with what the keys do. It is a view over the current one; the
 * same lines come out of `hearth --dump-actions` for the tests. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"

struct help_row {
	char *text;
	enum theme_role role;
};

static void
free_row(void *data)
{
	struct help_row *row = data;

	free(row->text);
	free(row);
}

static void
add_line(struct view *view, enum theme_role role, char *text)
{
	struct help_row *row = memory_alloc(1, sizeof *row);

	row->text = text;
	row->role = role;
	list_append(view->list, NULL, row);
}

static bool
row_matches(const void *data, const char *text)
{
	return view_search_matches(((const struct help_row *)data)->text, text);
}

static void
help_open(struct view *view)
{
	view->list = list_new(free_row, row_matches);
	view->stale = true;
}

static void
help_close(struct view *view)
{
	list_free(view->list);
}

static bool
scope_seen_before(int action)
{
	for (int earlier = ACTION_NONE + 1; earlier < action; earlier++)
		if (action_info((enum action)earlier)->scope == action_info((enum action)action)->scope)
			return true;
	return false;
}

/* One section per distinct scope, in the table's order. */
static void
add_section(struct view *view, unsigned scope)
{
	char name[128];

	add_line(view, THEME_TITLE, memory_strdup(action_scope_name(scope, name, sizeof name)));
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		char line[256];
		if (action_info((enum action)action)->scope != scope)
			continue;
		action_format_line((enum action)action, line, sizeof line);
		add_line(view, THEME_NORMAL, memory_printf("  %s", line));
	}
	add_line(view, THEME_NORMAL, memory_strdup(""));
}

static void
help_build(struct view *view)
{
	list_clear(view->list);
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++)
		if (!scope_seen_before(action))
			add_section(view, action_info((enum action)action)->scope);
	add_line(view, THEME_TITLE, memory_strdup("In a dialog"));
	add_line(view, THEME_NORMAL, memory_strdup("  Enter accepts, Esc cancels; y or n answers "
	    "a question."));
	add_line(view, THEME_NORMAL, memory_strdup("  Left, Right, Home, End move; Backspace and "
	    "Delete erase;"));
	add_line(view, THEME_NORMAL, memory_strdup("  Ctrl-u erases to the start, Ctrl-k to the "
	    "end, Ctrl-w a word."));
	add_line(view, THEME_NORMAL, memory_strdup(""));
	add_line(view, THEME_DIM, memory_printf("hearth %s, %s; q, Esc or ? closes this help.",
	    hearth_version_string(), draw_mode_name()));
	list_refresh(view->list);
}

static void
help_draw_header(struct view *view, int y, int width)
{
	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, "Help: every key binding", 0);
}

static void
help_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	const struct help_row *row = item->data;

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	draw_text(y, x + 1, width - 1, view_role(selected, row->role), row->text, 0);
}

const struct view_ops view_help_ops = {
	.name = "Help",
	.scope = SCOPE_HELP,
	.open = help_open,
	.close = help_close,
	.build = help_build,
	.draw_header = help_draw_header,
	.draw_row = help_draw_row,
};
