/* The Sync view. Sync is not in this version, so it lists the config's
 * peers and says what the view will do; a later build fills the rows from
 * the backend's sync status and adds the sync actions to handle. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tui/app.h"
#include "tui/memory.h"
#include "tui/view.h"

#define SYNC_NAME_WIDTH 16

struct sync_row {
	char *name;
	char *url;
};

static const char *const sync_explanation[] = {
	"This Home has a single replica.",
	"",
	"Syncing with another machine arrives in a later version of hearth. This view "
	"will then list the peers of the config (peers:) with their last attempt, last "
	"success, ops and bytes each way and how far each side is ahead, and sync one "
	"or all of them with a progress bar (ops, bytes, rate) that Esc cancels cleanly.",
};

static void
free_row(void *data)
{
	struct sync_row *row = data;

	free(row->name);
	free(row->url);
	free(row);
}

static void
sync_open(struct view *view)
{
	view->list = list_new(free_row, NULL);
	view->stale = true;
}

static void
sync_close(struct view *view)
{
	list_free(view->list);
}

static void
sync_build(struct view *view)
{
	const struct config *config = hearth_config(app_home(view->app));

	list_clear(view->list);
	for (size_t i = 0; config != NULL && i < config->peer_count; i++) {
		struct sync_row *row = memory_alloc(1, sizeof *row);
		row->name = memory_strdup(config->peers[i].name);
		row->url = memory_strdup(config->peers[i].url);
		list_append(view->list, NULL, row);
	}
	list_refresh(view->list);
}

static void
sync_draw_header(struct view *view, int y, int width)
{
	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, SYNC_NAME_WIDTH, THEME_HEADER, "Peer", DRAW_PAD);
	draw_text(y, 3 + SYNC_NAME_WIDTH, width - 3 - SYNC_NAME_WIDTH, THEME_HEADER,
	    "Address  (from the config; never synced)", 0);
}

static void
sync_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	const struct sync_row *row = item->data;

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	draw_text(y, x + 2, SYNC_NAME_WIDTH, view_role(selected, THEME_NORMAL), row->name, DRAW_PAD);
	draw_text(y, x + 3 + SYNC_NAME_WIDTH, width - 3 - SYNC_NAME_WIDTH,
	    view_role(selected, THEME_DIM), row->url, 0);
}

static void
sync_draw_note(struct view *view, int y, int height, int width)
{
	int line = 1;

	if (view->list->row_count == 0 && height > 2) {
		draw_text(y + line, 2, width - 4, THEME_TITLE, "No peers configured.", 0);
		line += 2;
	}
	for (size_t i = 0; i < sizeof sync_explanation / sizeof *sync_explanation; i++) {
		if (sync_explanation[i][0] == '\0')
			line++;
		else if (line < height)
			line += draw_wrapped(y + line, 2, height - line, width - 4, THEME_NORMAL,
			    sync_explanation[i]);
	}
}

const struct view_ops view_sync_ops = {
	.name = "Sync",
	.scope = SCOPE_SYNC,
	.open = sync_open,
	.close = sync_close,
	.build = sync_build,
	.draw_header = sync_draw_header,
	.draw_row = sync_draw_row,
	.draw_note = sync_draw_note,
};
