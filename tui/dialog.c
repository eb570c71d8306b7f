/* Dialogs (see dialog.h): an input line edited as wide characters, so
 * left/right and backspace move by character, not byte; a question answered
 * with y or n; a message any key dismisses. */
#include "tui/dialog.h"

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "tui/action.h"
#include "tui/draw.h"
#include "tui/memory.h"

#define DIALOG_MIN_WIDTH 40
#define DIALOG_MAX_WIDTH 76

static void
reset(struct dialog *dialog)
{
	free(dialog->title);
	free(dialog->body);
	free(dialog->text);
	memset(dialog, 0, sizeof *dialog);
}

void
dialog_close(struct dialog *dialog)
{
	reset(dialog);
}

bool
dialog_active(const struct dialog *dialog)
{
	return dialog->kind != DIALOG_NONE;
}

static void
insert(struct dialog *dialog, wchar_t character)
{
	if (dialog->length + 1 >= dialog->capacity) {
		dialog->capacity = dialog->capacity ? dialog->capacity * 2 : 64;
		dialog->text = memory_resize(dialog->text, dialog->capacity, sizeof *dialog->text);
	}
	wmemmove(dialog->text + dialog->cursor + 1, dialog->text + dialog->cursor,
	    dialog->length - dialog->cursor);
	dialog->text[dialog->cursor++] = character;
	dialog->length++;
	dialog->text[dialog->length] = L'\0';
}

static void
erase_range(struct dialog *dialog, size_t from, size_t to)
{
	if (from >= to || to > dialog->length)
		return;
	wmemmove(dialog->text + from, dialog->text + to, dialog->length - to);
	dialog->length -= to - from;
	dialog->text[dialog->length] = L'\0';
	if (dialog->cursor > to)
		dialog->cursor -= to - from;
	else if (dialog->cursor > from)
		dialog->cursor = from;
}

void
dialog_input(struct dialog *dialog, const char *title, const char *prompt,
    const char *initial, dialog_done_fn *done, dialog_change_fn *change, void *context)
{
	reset(dialog);
	dialog->kind = DIALOG_INPUT;
	dialog->title = memory_strdup(title);
	dialog->body = memory_strdup(prompt ? prompt : "");
	dialog->done = done;
	dialog->change = change;
	dialog->context = context;
	dialog->capacity = 64;
	dialog->text = memory_alloc(dialog->capacity, sizeof *dialog->text);
	mbstate_t state;
	memset(&state, 0, sizeof state);
	for (const char *cursor = initial ? initial : ""; *cursor != '\0';) {
		wchar_t character;
		size_t used = mbrtowc(&character, cursor, strlen(cursor), &state);
		if (used == (size_t)-1 || used == (size_t)-2 || used == 0)
			break;
		insert(dialog, character);
		cursor += used;
	}
}

void
dialog_confirm(struct dialog *dialog, const char *title, const char *question,
    dialog_done_fn *done, void *context)
{
	reset(dialog);
	dialog->kind = DIALOG_CONFIRM;
	dialog->title = memory_strdup(title);
	dialog->body = memory_strdup(question);
	dialog->done = done;
	dialog->context = context;
}

void
dialog_message(struct dialog *dialog, const char *title, const char *text)
{
	reset(dialog);
	dialog->kind = DIALOG_MESSAGE;
	dialog->title = memory_strdup(title);
	dialog->body = memory_strdup(text);
}

char *
dialog_text(const struct dialog *dialog)
{
	if (dialog->text == NULL)
		return memory_strdup("");
	size_t size = dialog->length * MB_LEN_MAX + 1;
	char *out = memory_alloc(size, 1);
	mbstate_t state;
	size_t used = 0;

	memset(&state, 0, sizeof state);
	for (size_t i = 0; i < dialog->length; i++) {
		size_t written = wcrtomb(out + used, dialog->text[i], &state);
		if (written == (size_t)-1) {
			out[used++] = '?';
			memset(&state, 0, sizeof state);
			continue;
		}
		used += written;
	}
	out[used] = '\0';
	return out;
}

/* Closes the dialog first, so the callback may open the next one. */
static void
finish(struct dialog *dialog, bool accepted)
{
	dialog_done_fn *done = dialog->done;
	void *context = dialog->context;
	char *text = dialog->kind == DIALOG_INPUT ? dialog_text(dialog) : NULL;

	reset(dialog);
	if (done != NULL)
		done(context, accepted, text);
	free(text);
}

static size_t
word_start(const struct dialog *dialog)
{
	size_t at = dialog->cursor;

	while (at > 0 && iswspace((wint_t)dialog->text[at - 1]))
		at--;
	while (at > 0 && !iswspace((wint_t)dialog->text[at - 1]))
		at--;
	return at;
}

/* Returns whether the text changed. */
static bool
edit(struct dialog *dialog, int key)
{
	switch (key) {
	case ACTION_FN(KEY_LEFT):
	case ACTION_CTRL('b'):
		if (dialog->cursor > 0)
			dialog->cursor--;
		return false;
	case ACTION_FN(KEY_RIGHT):
	case ACTION_CTRL('f'):
		if (dialog->cursor < dialog->length)
			dialog->cursor++;
		return false;
	case ACTION_FN(KEY_HOME):
	case ACTION_CTRL('a'):
		dialog->cursor = 0;
		return false;
	case ACTION_FN(KEY_END):
	case ACTION_CTRL('e'):
		dialog->cursor = dialog->length;
		return false;
	case ACTION_FN(KEY_BACKSPACE):
	case 0x7f:
	case ACTION_CTRL('h'):
		if (dialog->cursor == 0)
			return false;
		erase_range(dialog, dialog->cursor - 1, dialog->cursor);
		return true;
	case ACTION_FN(KEY_DC):
	case ACTION_CTRL('d'):
		erase_range(dialog, dialog->cursor, dialog->cursor + 1);
		return true;
	case ACTION_CTRL('u'):
		erase_range(dialog, 0, dialog->cursor);
		return true;
	case ACTION_CTRL('k'):
		erase_range(dialog, dialog->cursor, dialog->length);
		return true;
	case ACTION_CTRL('w'):
		erase_range(dialog, word_start(dialog), dialog->cursor);
		return true;
	}
	if ((key & ACTION_FUNCTION_KEY) || key < 0x20 || key == 0x7f || !iswprint((wint_t)key))
		return false;
	insert(dialog, (wchar_t)key);
	return true;
}

static void
handle_input_key(struct dialog *dialog, int key)
{
	if (key == '\n' || key == '\r' || key == ACTION_FN(KEY_ENTER)) {
		finish(dialog, true);
		return;
	}
	if (key == ACTION_ESCAPE) {
		finish(dialog, false);
		return;
	}
	if (!edit(dialog, key) || dialog->change == NULL)
		return;
	char *text = dialog_text(dialog);
	dialog->change(dialog->context, text);
	free(text);
}

void
dialog_handle_key(struct dialog *dialog, int key)
{
	switch (dialog->kind) {
	case DIALOG_NONE:
		return;
	case DIALOG_INPUT:
		handle_input_key(dialog, key);
		return;
	case DIALOG_CONFIRM:
		if (key == 'y' || key == 'Y')
			finish(dialog, true);
		else if (key == 'n' || key == 'N' || key == 'q' || key == ACTION_ESCAPE)
			finish(dialog, false);
		return;
	case DIALOG_MESSAGE:
		if (key != ACTION_FN(KEY_RESIZE))
			finish(dialog, true);
		return;
	}
}

/* The body as wrapped lines: each entry is (start, length) into body. */
static size_t
wrap_body(const char *body, int width, size_t *starts, size_t *lengths, size_t max_lines)
{
	size_t count = 0;
	const char *cursor = body;

	while (*cursor != '\0' && count < max_lines) {
		size_t length = draw_wrap(cursor, width);
		starts[count] = (size_t)(cursor - body);
		lengths[count] = length;
		count++;
		cursor += length;
		while (*cursor == ' ')
			cursor++;
		if (*cursor == '\n')
			cursor++;
	}
	return count;
}

enum frame_piece { FRAME_HORIZONTAL, FRAME_VERTICAL, FRAME_TOP_LEFT, FRAME_TOP_RIGHT,
	FRAME_BOTTOM_LEFT, FRAME_BOTTOM_RIGHT };

/* One piece of a box, as UTF-8 where the locale allows: some terminals
 * (and tmux's captures) show the ACS alternate set as letters. */
static void
put_piece(int y, int x, enum frame_piece piece)
{
	static const wchar_t glyphs[] = L"\u2500\u2502\u250c\u2510\u2514\u2518";
	const chtype ascii[] = { ACS_HLINE, ACS_VLINE, ACS_ULCORNER, ACS_URCORNER, ACS_LLCORNER,
		ACS_LRCORNER };

	if (!draw_unicode()) {
		mvaddch(y, x, ascii[piece]);
		return;
	}
	wchar_t glyph[2] = { glyphs[piece], L'\0' };
	attr_t attributes;
	short pair;
	cchar_t cell;
	attr_get(&attributes, &pair, NULL);
	setcchar(&cell, glyph, attributes, pair, NULL);
	mvadd_wch(y, x, &cell);
}

static void
draw_frame(int top, int left, int height, int width, const char *title)
{
	int bottom = top + height - 1, right = left + width - 1;

	for (int line = 0; line < height; line++)
		draw_fill(top + line, left, width, THEME_DIALOG);
	draw_role(THEME_DIALOG);
	for (int x = left + 1; x < right; x++) {
		put_piece(top, x, FRAME_HORIZONTAL);
		put_piece(bottom, x, FRAME_HORIZONTAL);
	}
	for (int y = top + 1; y < bottom; y++) {
		put_piece(y, left, FRAME_VERTICAL);
		put_piece(y, right, FRAME_VERTICAL);
	}
	put_piece(top, left, FRAME_TOP_LEFT);
	put_piece(top, right, FRAME_TOP_RIGHT);
	put_piece(bottom, left, FRAME_BOTTOM_LEFT);
	put_piece(bottom, right, FRAME_BOTTOM_RIGHT);
	char label[256];
	snprintf(label, sizeof label, " %s ", title);
	draw_text(top, left + 2, width - 4, THEME_TITLE, label, 0);
}

/* Draws the input field; returns the screen column of the cursor. */
static int
draw_field(const struct dialog *dialog, int y, int x, int width)
{
	size_t first = 0;
	int before = 0;

	for (size_t i = 0; i < dialog->cursor; i++)
		before += wcwidth(dialog->text[i]) > 0 ? wcwidth(dialog->text[i]) : 1;
	/* Scroll so the cursor stays in the field. */
	while (before >= width && first < dialog->cursor) {
		before -= wcwidth(dialog->text[first]) > 0 ? wcwidth(dialog->text[first]) : 1;
		first++;
	}
	draw_fill(y, x, width, THEME_SELECTED);
	int used = 0;
	size_t count = 0;
	while (first + count < dialog->length) {
		int cells = wcwidth(dialog->text[first + count]);
		if (used + (cells > 0 ? cells : 1) > width)
			break;
		used += cells > 0 ? cells : 1;
		count++;
	}
	draw_role(THEME_SELECTED);
	if (count > 0)
		mvaddnwstr(y, x, dialog->text + first, (int)count);
	return x + before;
}

bool
dialog_draw(const struct dialog *dialog)
{
	enum { MAX_LINES = 64 };
	size_t starts[MAX_LINES], lengths[MAX_LINES];

	if (dialog->kind == DIALOG_NONE || LINES < 5 || COLS < 10)
		return false;
	int width = COLS - 4 < DIALOG_MAX_WIDTH ? COLS - 4 : DIALOG_MAX_WIDTH;
	if (width < DIALOG_MIN_WIDTH && COLS >= DIALOG_MIN_WIDTH)
		width = DIALOG_MIN_WIDTH;
	int inner = width - 4;
	int room = LINES - 6 > 1 ? LINES - 6 : 1;
	size_t lines = wrap_body(dialog->body, inner, starts, lengths,
	    (size_t)room < MAX_LINES ? (size_t)room : MAX_LINES);
	int height = (int)lines + 4 + (dialog->kind == DIALOG_INPUT ? 1 : 0);
	int top = (LINES - height) / 2, left = (COLS - width) / 2;
	draw_frame(top, left, height, width, dialog->title);
	for (size_t i = 0; i < lines; i++) {
		char *line = memory_strndup(dialog->body + starts[i], lengths[i]);
		draw_text(top + 1 + (int)i, left + 2, inner, THEME_DIALOG, line, 0);
		free(line);
	}
	int last = top + height - 2;
	switch (dialog->kind) {
	case DIALOG_INPUT: {
		int column = draw_field(dialog, last - 1, left + 2, inner);
		draw_text(last, left + 2, inner, THEME_DIALOG,
		    "Enter accept  Esc cancel  Ctrl-u erase", DRAW_ALIGN_RIGHT);
		move(last - 1, column);
		return true;
	}
	case DIALOG_CONFIRM:
		draw_text(last, left + 2, inner, THEME_DIALOG, "y yes  n no", DRAW_ALIGN_RIGHT);
		return false;
	default:
		draw_text(last, left + 2, inner, THEME_DIALOG, "any key closes", DRAW_ALIGN_RIGHT);
		return false;
	}
}
