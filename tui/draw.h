/* Themed text on the screen: views ask for a role, never a colour. This is
 * where roles become colour pairs (256 or 8 colours) or, on a monochrome
 * terminal or under NO_COLOR, attributes alone; where UTF-8 becomes wide
 * characters measured with wcwidth, truncated to a width, with invalid bytes
 * and control characters shown escaped. */
#ifndef HEARTH_TUI_DRAW_H
#define HEARTH_TUI_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "themes/theme.h"

enum draw_flags {
	DRAW_PAD = 1 << 0,		/* fill the rest of the width with spaces */
	DRAW_EXPAND_TABS = 1 << 1,	/* tabs to spaces (diff lines), not "\t" */
	DRAW_ALIGN_RIGHT = 1 << 2,	/* text ends at the right edge of the width */
};

/* Sets up colour pairs or monochrome attributes from theme; call after
 * initscr. no_colour forces attributes alone (NO_COLOR). */
void draw_setup(const struct theme *theme, bool no_colour);
/* "256 colours", "8 colours" or "monochrome", for the help overlay. */
const char *draw_mode_name(void);
/* Whether the locale is UTF-8, so box and arrow glyphs can be used. */
bool draw_unicode(void);

/* Switches the current attributes to those of role. */
void draw_role(enum theme_role role);
/* Draws text at (y, x) within width cells; returns the cells used. */
int draw_text(int y, int x, int width, enum theme_role role, const char *text, unsigned flags);
/* Spaces in role's attributes. */
void draw_fill(int y, int x, int width, enum theme_role role);
/* The cells text takes on screen once escaped. */
int draw_width(const char *text);

/* The role of a change mark (A, M, D, R, T, C); NORMAL for others. */
enum theme_role draw_change_role(char mark);

/* The role of a line of a unified diff: headers, added, deleted, hunks. */
enum theme_role draw_diff_role(const char *line);

/* How many bytes of text's first line fit in width cells, cut at a space
 * when the line goes on (for wrapping messages). */
size_t draw_wrap(const char *text, int width);

/* Draws text wrapped at spaces to width, at most height lines; returns
 * the lines used. */
int draw_wrapped(int y, int x, int height, int width, enum theme_role role, const char *text);

/* "2026-11-29 19:38" in local time. */
void draw_format_time(int64_t seconds, char *out, size_t size);
/* "0", "512", "1.5K", "23M", "4.0G". */
void draw_format_size(uint64_t bytes, char *out, size_t size);

#endif
