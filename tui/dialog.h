/* Modal dialogs drawn over the views: a one-line input with editing, a
 * yes/no question and a message. They are state, not loops: the app keeps
 * running (repainting, taking progress from the worker) and hands keys to
 * the open dialog, which calls back when it is answered. */
#ifndef HEARTH_TUI_DIALOG_H
#define HEARTH_TUI_DIALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

enum dialog_kind {
	DIALOG_NONE,
	DIALOG_INPUT,
	DIALOG_CONFIRM,
	DIALOG_MESSAGE,
};

/* accepted is false for Esc or "no"; text is the input (UTF-8), or NULL.
 * The callback may open another dialog. */
typedef void dialog_done_fn(void *context, bool accepted, const char *text);
/* Called after every edit of an input, for search and filter as you type. */
typedef void dialog_change_fn(void *context, const char *text);

struct dialog {
	enum dialog_kind kind;
	char *title;
	char *body;		/* the question or message, may hold newlines */
	wchar_t *text;		/* the input being edited */
	size_t length, capacity, cursor;
	dialog_done_fn *done;
	dialog_change_fn *change;
	void *context;		/* not owned: the view or the app that asked */
};

void dialog_input(struct dialog *dialog, const char *title, const char *prompt,
    const char *initial, dialog_done_fn *done, dialog_change_fn *change, void *context);
void dialog_confirm(struct dialog *dialog, const char *title, const char *question,
    dialog_done_fn *done, void *context);
void dialog_message(struct dialog *dialog, const char *title, const char *text);
/* Closes without calling back. */
void dialog_close(struct dialog *dialog);
bool dialog_active(const struct dialog *dialog);

void dialog_handle_key(struct dialog *dialog, int key);
/* Draws the dialog centred on the screen; an input leaves the terminal
 * cursor at the insertion point and returns true. */
bool dialog_draw(const struct dialog *dialog);

/* The input as UTF-8; the caller frees it. */
char *dialog_text(const struct dialog *dialog);

#endif
