/* The welcome screen, shown when hearth_open finds no Home from here: it
 * says so and offers to make the current folder a Home (i), to open a demo
 * Home built through the API under $TMPDIR (d), or to quit (q). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/demo.h"
#include "tui/dialog.h"
#include "tui/memory.h"
#include "tui/view.h"

struct welcome {
	char folder[PATH_MAX];
};

static void
welcome_open(struct view *view)
{
	struct welcome *welcome = memory_alloc(1, sizeof *welcome);

	view->list = list_new(NULL, NULL);
	view->private = welcome;
	if (getcwd(welcome->folder, sizeof welcome->folder) == NULL)
		snprintf(welcome->folder, sizeof welcome->folder, ".");
}

static void
welcome_close(struct view *view)
{
	list_free(view->list);
	free(view->private);
}

static void
welcome_draw_header(struct view *view, int y, int width)
{
	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, "No Home here", 0);
}

static void
welcome_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
}

static void
welcome_draw_note(struct view *view, int y, int height, int width)
{
	struct welcome *welcome = view->private;
	char *found = memory_printf("hearth found no Home from %s: no -c FILE, no HEARTH_CONFIG, "
	    "no root marker in it or above it, and no $XDG_CONFIG_HOME/hearth/config.yaml.",
	    welcome->folder);
	const char *choices[] = {
		"  i   make this folder a Home (like `hearth init`); nothing is recorded until you say so",
		"  d   open a demo Home with a few versions, made under $TMPDIR (or /tmp)",
		"  q   quit",
	};
	int line = 1;

	line += draw_wrapped(y + line, 2, height - line, width - 4, THEME_NORMAL, found) + 1;
	for (size_t i = 0; i < sizeof choices / sizeof *choices && line < height; i++)
		draw_text(y + line++, 2, width - 4, THEME_NORMAL, choices[i], 0);
	line++;
	if (line < height)
		draw_wrapped(y + line, 2, height - line, width - 4, THEME_DIM,
		    "From a shell: `hearth init DIR` makes DIR a Home; `hearth -c FILE` opens the "
		    "Home a config file describes.");
	free(found);
}

static void
opened(struct view *view, int code, const struct hearth_error *error, const char *what)
{
	if (code != HEARTH_OK)
		app_error(view->app, what, error);
}

static void
confirm_init(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct welcome *welcome = view->private;
	struct hearth_init_options init = { .dir = welcome->folder };
	struct hearth_open_options options = { .start_dir = welcome->folder };
	struct hearth_error error;

	if (!accepted)
		return;
	if (hearth_init(&init, &error) != HEARTH_OK) {
		app_error(view->app, "Cannot make this folder a Home", &error);
		return;
	}
	opened(view, app_open_home(view->app, &options, &error), &error, "Cannot open the new Home");
}

static void
open_demo(struct view *view)
{
	char dir[PATH_MAX];
	struct hearth_error error;

	if (demo_build(dir, sizeof dir, &error) != HEARTH_OK) {
		app_error(view->app, "Cannot build the demo Home", &error);
		return;
	}
	struct hearth_open_options options = { .start_dir = dir };
	opened(view, app_open_home(view->app, &options, &error), &error, "Cannot open the demo Home");
}

static bool
welcome_handle(struct view *view, enum action action)
{
	struct welcome *welcome = view->private;

	switch (action) {
	case ACTION_INIT: {
		char *question = memory_printf("Make %s a Home?\n\nIts history is kept in %s/.hearth. "
		    "Nothing is recorded until you record in the Home view.", welcome->folder,
		    welcome->folder);
		dialog_confirm(app_dialog(view->app), "Make a Home", question, confirm_init, view);
		free(question);
		return true;
	}
	case ACTION_DEMO:
		open_demo(view);
		return true;
	default:
		return false;
	}
}

const struct view_ops view_welcome_ops = {
	.name = "Welcome",
	.scope = SCOPE_WELCOME,
	.open = welcome_open,
	.close = welcome_close,
	.draw_header = welcome_draw_header,
	.draw_row = welcome_draw_row,
	.draw_note = welcome_draw_note,
	.handle = welcome_handle,
};
