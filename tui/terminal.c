/* Whether the terminal can show the app at all, asked of terminfo before
 * curses starts (apart from app.c: <term.h> defines names such as tab and
 * lines as macros). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

#include "tui/app.h"

bool
app_terminal_can_draw(char *why, size_t size)
{
	const char *name = getenv("TERM");
	int failure = 0;

	if (name == NULL || name[0] == '\0') {
		snprintf(why, size, "TERM is not set, so hearth cannot tell how to draw on this terminal");
		return false;
	}
	if (setupterm(NULL, STDOUT_FILENO, &failure) != OK) {
		snprintf(why, size, "the terminal TERM=%s is not in the terminfo database", name);
		return false;
	}
	/* The app draws by moving the cursor about: a terminal that cannot
	 * (TERM=dumb, an editor's shell buffer) would get only its last line. */
	const char *move = tigetstr("cup");
	bool can = move != NULL && move != (const char *)-1;
	del_curterm(cur_term);
	if (!can)
		snprintf(why, size, "the terminal TERM=%s cannot move the cursor, so the app cannot "
		    "draw on it", name);
	return can;
}
