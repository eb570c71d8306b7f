/* / and n/N in the panes that show text (a version's changes and diffs, the
 * help), as less does: the input starts empty, the cursor follows the first
 * match as you type, n and N go on to the next and previous match and wrap
 * round the ends, saying so. A view takes part by giving its list a match
 * function; History keeps its own search, which also reads older pages. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/dialog.h"
#include "tui/memory.h"
#include "tui/view.h"

/* One search at a time, as the app has one dialog: the text n and N look
 * for in every pane, and where the cursor was when / began. */
static struct {
	char *text;
	size_t origin;
} search;

/* Moves view's cursor to the next match of text from row start; false when
 * no row matches. */
static bool
search_move(struct view *view, const char *text, size_t start, long step, bool quiet)
{
	bool wrapped;
	long row = list_find(view->list, text, start, step, &wrapped);

	if (row < 0)
		return false;
	list_move_to(view->list, (size_t)row);
	if (wrapped && !quiet)
		app_message(view->app, "Search went on from the %s", step > 0 ? "top" : "bottom");
	return true;
}

static void
search_changed(void *context, const char *text)
{
	struct view *view = context;

	if (text[0] == '\0' || !search_move(view, text, search.origin, 1, true))
		list_move_to(view->list, search.origin);
}

static void
search_done(void *context, bool accepted, const char *text)
{
	struct view *view = context;

	if (!accepted || text == NULL || text[0] == '\0') {
		list_move_to(view->list, search.origin);
		return;
	}
	free(search.text);
	search.text = memory_strdup(text);
	if (!search_move(view, text, search.origin, 1, false)) {
		list_move_to(view->list, search.origin);
		app_message(view->app, "No line holds \"%s\"", text);
	}
}

bool
view_search_handle(struct view *view, enum action action)
{
	if (view->list == NULL || view->list->match == NULL)
		return false;
	switch (action) {
	case ACTION_SEARCH:
		search.origin = view->list->cursor;
		dialog_input(app_dialog(view->app), "Search", "Lines holding:", NULL, search_done,
		    search_changed, view);
		return true;
	case ACTION_SEARCH_NEXT:
	case ACTION_SEARCH_PREVIOUS:
		if (search.text == NULL) {
			app_message(view->app, "No search yet: / searches");
			return true;
		}
		long step = action == ACTION_SEARCH_NEXT ? 1 : -1;
		size_t start = step > 0 ? view->list->cursor + 1
		    : view->list->cursor == 0 ? view->list->row_count : view->list->cursor - 1;
		if (!search_move(view, search.text, start, step, false))
			app_message(view->app, "No line holds \"%s\"", search.text);
		return true;
	default:
		return false;
	}
}

bool
view_search_matches(const char *line, const char *text)
{
	return line != NULL && strcasestr(line, text) != NULL;
}

void
view_search_free(void)
{
	free(search.text);
	search.text = NULL;
}
