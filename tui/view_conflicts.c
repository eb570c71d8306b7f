/* The Conflicts view. A Home with a single replica cannot have conflicts,
 * so it says so and what it will list; filling it means a build from the
 * backend's conflict list, a draw_row and the resolve actions. */
#include <stdlib.h>

#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"

static const char *const conflicts_explanation[] = {
	"No conflicts.",
	"",
	"This Home has a single replica: nothing has been synced into it from "
	"another machine, so no two edits can disagree.",
	"",
	"Once it syncs, each conflict is listed here: its kind (content, move, name, "
	"edit-revived, revived, cycle, invalid-op), its path and each side with size, "
	"time and replica. You settle one with keep mine, keep theirs or keep both, "
	"and the choice is recorded at once.",
};

static void
conflicts_open(struct view *view)
{
	view->list = list_new(NULL, NULL);
}

static void
conflicts_close(struct view *view)
{
	list_free(view->list);
}

static void
conflicts_draw_header(struct view *view, int y, int width)
{
	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, width - 2, THEME_HEADER, "Conflicts", 0);
}

static void
conflicts_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
}

/* Paragraphs wrapped to the width, from line y on; the first is a title. */
static void
draw_paragraphs(const char *const *paragraphs, size_t count, int y, int height, int width)
{
	int line = 0;

	for (size_t i = 0; i < count && line < height; i++) {
		if (paragraphs[i][0] == '\0')
			line++;
		else
			line += draw_wrapped(y + line, 2, height - line, width - 4,
			    i == 0 ? THEME_TITLE : THEME_NORMAL, paragraphs[i]);
	}
}

static void
conflicts_draw_note(struct view *view, int y, int height, int width)
{
	const struct hearth_status_report *status = app_status(view->app);

	if (status != NULL && status->conflicts > 0) {
		char *text = memory_printf("The status counts %llu conflict%s; this version of hearth "
		    "cannot list them yet (`hearth status` names the paths, marked C).",
		    (unsigned long long)status->conflicts, status->conflicts == 1 ? "" : "s");
		const char *paragraphs[] = { "Conflicts", "", text };
		draw_paragraphs(paragraphs, 3, y + 1, height - 1, width);
		free(text);
		return;
	}
	draw_paragraphs(conflicts_explanation,
	    sizeof conflicts_explanation / sizeof *conflicts_explanation, y + 1, height - 1, width);
}

const struct view_ops view_conflicts_ops = {
	.name = "Conflicts",
	.scope = SCOPE_CONFLICTS,
	.open = conflicts_open,
	.close = conflicts_close,
	.draw_header = conflicts_draw_header,
	.draw_row = conflicts_draw_row,
	.draw_note = conflicts_draw_note,
};
