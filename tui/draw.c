/* Roles to attributes, and UTF-8 to measured wide characters (see draw.h).
 * Every string goes through hearth_escape_name before it reaches curses, so
 * a name with invalid bytes or a newline still takes one line. */
#include "tui/draw.h"

#include <curses.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "backend/hearth.h"
#include "tui/memory.h"

#define DRAW_TAB_STOP 8

static struct {
	attr_t attributes;
	short pair;
} role_look[THEME_ROLE_COUNT];

static const char *mode_name = "monochrome";

static attr_t
curses_attributes(unsigned bits)
{
	attr_t attributes = A_NORMAL;

	if (bits & THEME_BOLD)
		attributes |= A_BOLD;
	if (bits & THEME_UNDERLINE)
		attributes |= A_UNDERLINE;
	if (bits & THEME_REVERSE)
		attributes |= A_REVERSE;
	if (bits & THEME_DIM_ATTR)
		attributes |= A_DIM;
	if (bits & THEME_ITALIC)
		attributes |= A_ITALIC;
	return attributes;
}

static short
usable_colour(short wide, short narrow, bool defaults)
{
	short colour = COLORS >= 256 ? wide : narrow;

	if (colour >= COLORS)
		colour = narrow < COLORS ? narrow : -1;
	if (colour < 0 && !defaults)
		return -1;
	return colour;
}

static void
setup_monochrome(const struct theme *theme)
{
	mode_name = "monochrome";
	for (int role = 0; role < THEME_ROLE_COUNT; role++) {
		role_look[role].attributes = curses_attributes(theme->styles[role].mono_attributes);
		role_look[role].pair = 0;
	}
	/* Without colour the cursor line and the bars must still stand out. */
	if (role_look[THEME_SELECTED].attributes == A_NORMAL)
		role_look[THEME_SELECTED].attributes = A_REVERSE;
	if (role_look[THEME_STATUS_LINE].attributes == A_NORMAL)
		role_look[THEME_STATUS_LINE].attributes = A_REVERSE;
}

void
draw_setup(const struct theme *theme, bool no_colour)
{
	if (no_colour || !has_colors() || start_color() == ERR) {
		setup_monochrome(theme);
		return;
	}
	bool defaults = use_default_colors() == OK;
	mode_name = COLORS >= 256 ? "256 colours" : "8 colours";
	for (int role = 0; role < THEME_ROLE_COUNT; role++) {
		const struct theme_style *style = &theme->styles[role];
		short foreground = usable_colour(style->foreground, style->foreground8, defaults);
		short background = usable_colour(style->background, style->background8, defaults);
		if (!defaults && foreground < 0)
			foreground = COLOR_WHITE;
		if (!defaults && background < 0)
			background = COLOR_BLACK;
		role_look[role].attributes = curses_attributes(style->attributes);
		role_look[role].pair = 0;
		if (role + 1 < COLOR_PAIRS && init_pair((short)(role + 1), foreground, background) == OK)
			role_look[role].pair = (short)(role + 1);
	}
}

const char *
draw_mode_name(void)
{
	return mode_name;
}

bool
draw_unicode(void)
{
	static int answer = -1;

	if (answer < 0)
		answer = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	return answer;
}

void
draw_role(enum theme_role role)
{
	if (role < 0 || role >= THEME_ROLE_COUNT)
		role = THEME_NORMAL;
	attr_set(role_look[role].attributes, role_look[role].pair, NULL);
}

/* hline ignores the current attributes, so blanks carry them. */
static chtype
blank(enum theme_role role)
{
	if (role < 0 || role >= THEME_ROLE_COUNT)
		role = THEME_NORMAL;
	return ' ' | role_look[role].attributes | COLOR_PAIR(role_look[role].pair);
}

void
draw_fill(int y, int x, int width, enum theme_role role)
{
	if (width <= 0)
		return;
	draw_role(role);
	mvhline(y, x, blank(role), width);
}

/* Copies at most limit bytes of text, tabs expanded when asked. */
static char *
prepare(const char *text, size_t limit, unsigned flags)
{
	size_t length = strnlen(text, limit);

	if (!(flags & DRAW_EXPAND_TABS))
		return memory_strndup(text, length);
	char *out = memory_alloc(length * DRAW_TAB_STOP + 1, 1);
	size_t used = 0;
	for (size_t i = 0; i < length; i++) {
		if (text[i] != '\t') {
			out[used++] = text[i];
			continue;
		}
		do
			out[used++] = ' ';
		while (used % DRAW_TAB_STOP != 0);
	}
	return out;
}

/* The escaped text as wide characters with their widths, up to limit bytes
 * of input; *truncated is set when the input went on past the limit. */
static size_t
decode(const char *text, size_t limit, unsigned flags, wchar_t **characters, int **widths,
    bool *truncated)
{
	char *prepared = prepare(text, limit, flags);
	size_t prepared_length = strlen(prepared);
	size_t escaped_size = prepared_length * 4 + 16;
	char *escaped = memory_alloc(escaped_size, 1);
	mbstate_t state;
	size_t count = 0;

	*truncated = strnlen(text, limit + 1) > limit;
	hearth_escape_name(prepared, escaped, escaped_size);
	*characters = memory_alloc(strlen(escaped) + 1, sizeof **characters);
	*widths = memory_alloc(strlen(escaped) + 1, sizeof **widths);
	memset(&state, 0, sizeof state);
	for (const char *cursor = escaped; *cursor != '\0';) {
		wchar_t character;
		size_t used = mbrtowc(&character, cursor, strlen(cursor), &state);
		if (used == (size_t)-1 || used == (size_t)-2 || used == 0) {
			/* Escaping leaves valid UTF-8; a non-UTF-8 locale may not agree. */
			memset(&state, 0, sizeof state);
			character = L'?';
			used = 1;
		}
		int width = wcwidth(character);
		if (width < 0) {
			character = L'?';
			width = 1;
		}
		(*characters)[count] = character;
		(*widths)[count] = width;
		count++;
		cursor += used;
	}
	free(prepared);
	free(escaped);
	return count;
}

int
draw_width(const char *text)
{
	wchar_t *characters;
	int *widths;
	bool truncated;
	size_t count = decode(text, strlen(text), 0, &characters, &widths, &truncated);
	int total = 0;

	for (size_t i = 0; i < count; i++)
		total += widths[i];
	free(characters);
	free(widths);
	return total;
}

int
draw_text(int y, int x, int width, enum theme_role role, const char *text, unsigned flags)
{
	wchar_t *characters;
	int *widths;
	bool truncated;

	if (width <= 0)
		return 0;
	/* Nothing past 4 bytes a cell can show, so long lines cost their width. */
	size_t count = decode(text ? text : "", (size_t)width * 4 + 8, flags, &characters, &widths,
	    &truncated);
	int total = 0;
	for (size_t i = 0; i < count; i++)
		total += widths[i];
	size_t shown = count;
	int used = total;
	bool marker = truncated || total > width;
	if (marker) {
		used = 0;
		shown = 0;
		while (shown < count && used + widths[shown] <= width - 1) {
			used += widths[shown];
			shown++;
		}
	}
	int start = x;
	if ((flags & DRAW_ALIGN_RIGHT) && used + (marker ? 1 : 0) < width)
		start = x + width - used - (marker ? 1 : 0);
	draw_role(role);
	if (start > x)
		mvhline(y, x, blank(role), start - x);
	if (shown > 0)
		mvaddnwstr(y, start, characters, (int)shown);
	if (marker) {
		mvaddwstr(y, start + used, draw_unicode() ? L"\u2026" : L"~");
		used++;
	}
	int end = start + used;
	if ((flags & DRAW_PAD) && end < x + width)
		mvhline(y, end, blank(role), x + width - end);
	free(characters);
	free(widths);
	return (flags & DRAW_PAD) ? width : end - x;
}

enum theme_role
draw_change_role(char mark)
{
	switch (mark) {
	case HEARTH_ADDED:
		return THEME_ADDED;
	case HEARTH_MODIFIED:
	case HEARTH_TYPE_CHANGED:
		return THEME_MODIFIED;
	case HEARTH_DELETED:
		return THEME_DELETED;
	case HEARTH_MOVED:
		return THEME_MOVED;
	case HEARTH_CONFLICTED:
		return THEME_CONFLICT;
	default:
		return THEME_NORMAL;
	}
}

enum theme_role
draw_diff_role(const char *line)
{
	if (strncmp(line, "+++", 3) == 0 || strncmp(line, "---", 3) == 0)
		return THEME_HEADER;
	switch (line[0]) {
	case '+':
		return THEME_ADDED;
	case '-':
		return THEME_DELETED;
	case '@':
		return THEME_DIFF_HUNK;
	default:
		return THEME_NORMAL;
	}
}

size_t
draw_wrap(const char *text, int width)
{
	mbstate_t state;
	size_t end = 0, last_space = 0;
	int used = 0;

	memset(&state, 0, sizeof state);
	while (text[end] != '\0' && text[end] != '\n') {
		wchar_t character;
		size_t length = mbrtowc(&character, text + end, strlen(text + end), &state);
		int cells = 1;
		if (length == (size_t)-1 || length == (size_t)-2 || length == 0) {
			memset(&state, 0, sizeof state);
			length = 1;
			cells = 4;	/* shown as \xNN */
		} else if (wcwidth(character) >= 0) {
			cells = wcwidth(character);
		}
		if (used + cells > width)
			return last_space > 0 ? last_space : (end > 0 ? end : length);
		if (character == L' ')
			last_space = end + 1;
		used += cells;
		end += length;
	}
	return end;
}

int
draw_wrapped(int y, int x, int height, int width, enum theme_role role, const char *text)
{
	int line = 0;

	while (*text != '\0' && line < height) {
		size_t length = draw_wrap(text, width);
		char *part = memory_strndup(text, length);
		draw_text(y + line++, x, width, role, part, 0);
		free(part);
		text += length;
		while (*text == ' ')
			text++;
		if (*text == '\n')
			text++;
	}
	return line;
}

void
draw_format_time(int64_t seconds, char *out, size_t size)
{
	time_t when = (time_t)seconds;
	struct tm local;

	if (localtime_r(&when, &local) == NULL || strftime(out, size, "%Y-%m-%d %H:%M", &local) == 0)
		snprintf(out, size, "%lld", (long long)seconds);
}

void
draw_format_size(uint64_t bytes, char *out, size_t size)
{
	static const char units[] = "KMGTPE";
	double value = (double)bytes;
	int unit = -1;

	if (bytes < 1024) {
		snprintf(out, size, "%llu", (unsigned long long)bytes);
		return;
	}
	while (value >= 1024 && unit < (int)sizeof units - 2) {
		value /= 1024;
		unit++;
	}
	snprintf(out, size, value < 10 ? "%.1f%c" : "%.0f%c", value, units[unit]);
}
