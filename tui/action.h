/* The app's one table of actions, in the manner of tig's REQ_ X-macro and
 * tmux's key tables: each action has a name, the views it works in, its
 * default keys, a short hint label and a one-line description. Key dispatch,
 * the key-hint line, the help overlay and `hearth --dump-actions` (which the
 * tests compare with the overlay) are all generated from it. */
#ifndef HEARTH_TUI_ACTION_H
#define HEARTH_TUI_ACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <curses.h>

/* Where an action applies: one bit per kind of view. */
enum action_scope {
	SCOPE_HISTORY = 1 << 0,
	SCOPE_VERSION = 1 << 1,		/* a version's changes, over History */
	SCOPE_CONFLICTS = 1 << 2,
	SCOPE_HOME = 1 << 3,
	SCOPE_SYNC = 1 << 4,
	SCOPE_HELP = 1 << 5,		/* the help overlay */
	SCOPE_WELCOME = 1 << 6,		/* outside any Home */
	SCOPE_SIDES = 1 << 7,		/* one conflict's sides, over Conflicts */
	SCOPE_CHANGES = 1 << 8,		/* the working tree's changes and diffs, over Home */
	SCOPE_FILE_LOG = 1 << 9,	/* one path's history, over Home or a version */
};
#define SCOPE_TOP_VIEWS (SCOPE_HISTORY | SCOPE_CONFLICTS | SCOPE_HOME | SCOPE_SYNC)
#define SCOPE_IN_HOME (SCOPE_TOP_VIEWS | SCOPE_VERSION | SCOPE_SIDES | SCOPE_HELP | \
    SCOPE_CHANGES | SCOPE_FILE_LOG)
/* Settling conflicts works in the list and in the Sides pane of one. */
#define SCOPE_SETTLE (SCOPE_CONFLICTS | SCOPE_SIDES)
#define SCOPE_ANYWHERE (SCOPE_IN_HOME | SCOPE_WELCOME)
/* / n N: History's messages, and the panes of text. */
#define SCOPE_SEARCH (SCOPE_HISTORY | SCOPE_VERSION | SCOPE_HELP | SCOPE_CHANGES | \
    SCOPE_FILE_LOG)

/* Keys are ints: a character is its code point; a curses function key
 * (KEY_UP...) has ACTION_FUNCTION_KEY added, since curses codes overlap
 * code points from U+0101 up. */
#define ACTION_FUNCTION_KEY 0x40000000
#define ACTION_FN(curses_key) (ACTION_FUNCTION_KEY | (curses_key))
#define ACTION_CTRL(letter) ((letter) & 0x1f)
#define ACTION_ESCAPE 0x1b
#define ACTION_KEYS_MAX 4
#define ACTION_KEYS(...) { __VA_ARGS__ }

/* X(ID, name, scope, keys, hint, description): hint is the label on the
 * key-hint line, or NULL to leave the action off it. */
#define ACTION_TABLE(X) \
	X(MOVE_UP, "move-up", SCOPE_ANYWHERE, ACTION_KEYS('k', ACTION_FN(KEY_UP)), NULL, \
	    "Move the cursor up one line") \
	X(MOVE_DOWN, "move-down", SCOPE_ANYWHERE, ACTION_KEYS('j', ACTION_FN(KEY_DOWN)), NULL, \
	    "Move the cursor down one line") \
	X(MOVE_HALF_UP, "move-half-page-up", SCOPE_ANYWHERE, ACTION_KEYS(ACTION_CTRL('u')), NULL, \
	    "Move up half a screen") \
	X(MOVE_HALF_DOWN, "move-half-page-down", SCOPE_ANYWHERE, ACTION_KEYS(ACTION_CTRL('d')), \
	    NULL, "Move down half a screen") \
	X(MOVE_PAGE_UP, "move-page-up", SCOPE_ANYWHERE, \
	    ACTION_KEYS(ACTION_FN(KEY_PPAGE), ACTION_CTRL('b')), NULL, "Move up one screen") \
	X(MOVE_PAGE_DOWN, "move-page-down", SCOPE_ANYWHERE, \
	    ACTION_KEYS(ACTION_FN(KEY_NPAGE), ACTION_CTRL('f')), NULL, "Move down one screen") \
	X(MOVE_FIRST, "move-first", SCOPE_ANYWHERE, ACTION_KEYS('g', ACTION_FN(KEY_HOME)), NULL, \
	    "Move to the first line") \
	X(MOVE_LAST, "move-last", SCOPE_ANYWHERE, ACTION_KEYS('G', ACTION_FN(KEY_END)), NULL, \
	    "Move to the last line (loads everything)") \
	X(VIEW_HISTORY, "view-history", SCOPE_IN_HOME, ACTION_KEYS('1'), NULL, \
	    "Show the History view: versions, newest first") \
	X(VIEW_CONFLICTS, "view-conflicts", SCOPE_IN_HOME, ACTION_KEYS('2'), NULL, \
	    "Show the Conflicts view") \
	X(VIEW_HOME, "view-home", SCOPE_IN_HOME, ACTION_KEYS('3'), NULL, \
	    "Show the Home view: the working tree") \
	X(VIEW_SYNC, "view-sync", SCOPE_IN_HOME, ACTION_KEYS('4'), NULL, "Show the Sync view") \
	X(VIEW_NEXT, "view-next", SCOPE_IN_HOME, ACTION_KEYS('\t'), "next view", \
	    "Show the next view") \
	X(VIEW_PREVIOUS, "view-previous", SCOPE_IN_HOME, ACTION_KEYS(ACTION_FN(KEY_BTAB)), NULL, \
	    "Show the previous view") \
	X(HELP, "help", SCOPE_ANYWHERE, ACTION_KEYS('?'), "help", \
	    "Show or hide every key binding") \
	X(REFRESH, "refresh", SCOPE_TOP_VIEWS, ACTION_KEYS('R', ACTION_FN(KEY_F(5))), NULL, \
	    "Reload the view, the status and the config from the Home") \
	X(REDRAW, "redraw", SCOPE_ANYWHERE, ACTION_KEYS(ACTION_CTRL('l')), NULL, \
	    "Redraw the screen") \
	X(CANCEL, "cancel", SCOPE_ANYWHERE, ACTION_KEYS(ACTION_ESCAPE), NULL, \
	    "Cancel the running job, clear the filter, or close the pane on top") \
	X(QUIT, "quit", SCOPE_ANYWHERE, ACTION_KEYS('q'), "quit", \
	    "Close the pane on top, or quit hearth") \
	X(QUIT_NOW, "quit-now", SCOPE_ANYWHERE, ACTION_KEYS('Q'), NULL, "Quit hearth at once") \
	X(OPEN_VERSION, "open-version", SCOPE_HISTORY, \
	    ACTION_KEYS('\n', '\r', ACTION_FN(KEY_ENTER)), "changes", \
	    "Show what the selected version changed") \
	X(CHECKOUT, "checkout", SCOPE_HISTORY, ACTION_KEYS('c'), "checkout", \
	    "Check out the selected version (asks first)") \
	X(SEARCH, "search", SCOPE_SEARCH, ACTION_KEYS('/'), "search", \
	    "Search as you type: version messages, or the lines of the pane") \
	X(SEARCH_NEXT, "search-next", SCOPE_SEARCH, ACTION_KEYS('n'), NULL, \
	    "Go to the next match of the search, round the end") \
	X(SEARCH_PREVIOUS, "search-previous", SCOPE_SEARCH, ACTION_KEYS('N'), NULL, \
	    "Go to the previous match of the search, round the end") \
	X(TOGGLE_DIFF, "toggle-diff", SCOPE_VERSION | SCOPE_FILE_LOG, \
	    ACTION_KEYS('\n', '\r', ACTION_FN(KEY_ENTER), ' '), "diff", \
	    "Show or hide the diff of the selected file or version") \
	X(TOGGLE_CHANGE_DIFF, "toggle-change-diff", SCOPE_CHANGES, \
	    ACTION_KEYS('\n', '\r', ACTION_FN(KEY_ENTER)), "diff", \
	    "Show or hide the diff of the selected change (space marks it)") \
	X(CLOSE, "close", SCOPE_VERSION | SCOPE_SIDES | SCOPE_HELP | SCOPE_CHANGES | SCOPE_FILE_LOG, \
	    ACTION_KEYS('h', ACTION_FN(KEY_LEFT), ACTION_FN(KEY_BACKSPACE), 0x7f), "back", \
	    "Close this pane and go back") \
	X(OPEN_CONFLICT, "open-conflict", SCOPE_CONFLICTS, \
	    ACTION_KEYS('\n', '\r', ACTION_FN(KEY_ENTER)), "sides", \
	    "Show the sides of the selected conflict, with a diff") \
	X(KEEP_MINE, "keep-mine", SCOPE_SETTLE, ACTION_KEYS('m'), "mine", \
	    "Settle the selected (or marked) conflicts: keep mine") \
	X(KEEP_THEIRS, "keep-theirs", SCOPE_SETTLE, ACTION_KEYS('t'), "theirs", \
	    "Settle the selected (or marked) conflicts: keep theirs") \
	X(KEEP_BOTH, "keep-both", SCOPE_SETTLE, ACTION_KEYS('b'), "both", \
	    "Settle the selected (or marked) conflicts: keep both") \
	X(MERGE_MARKERS, "merge-markers", SCOPE_SETTLE, ACTION_KEYS('x'), "markers", \
	    "Merge the selected (or marked) content conflicts by line, markers around overlaps") \
	X(DECIDE_LATER, "decide-later", SCOPE_SETTLE, ACTION_KEYS('l', 'n'), "later", \
	    "Leave this conflict for later; go to the next one") \
	X(EXPAND, "expand", SCOPE_HOME, ACTION_KEYS('\n', '\r', ACTION_FN(KEY_ENTER), 'l'), \
	    "open", "Open or close the selected folder; on a changed file, show its diff") \
	X(EXPAND_RIGHT, "expand-only", SCOPE_HOME, ACTION_KEYS(ACTION_FN(KEY_RIGHT)), NULL, \
	    "Open the selected folder") \
	X(COLLAPSE, "collapse", SCOPE_HOME, ACTION_KEYS('h', ACTION_FN(KEY_LEFT)), NULL, \
	    "Close the folder, or go to the folder holding it") \
	X(MARK, "mark", SCOPE_CONFLICTS | SCOPE_HOME | SCOPE_CHANGES, ACTION_KEYS(' '), "mark", \
	    "Mark or unmark the selected path, then move down") \
	X(UNMARK_ALL, "unmark-all", SCOPE_CONFLICTS | SCOPE_HOME | SCOPE_CHANGES, ACTION_KEYS('u'), \
	    NULL, \
	    "Unmark every path") \
	X(RECORD, "record", SCOPE_HOME | SCOPE_CHANGES, ACTION_KEYS('r'), "record", \
	    "Record the marked paths (all changes if none) with a message") \
	X(FILE_HISTORY, "file-history", SCOPE_HOME | SCOPE_VERSION | SCOPE_CHANGES, \
	    ACTION_KEYS('L'), "history", \
	    "Show the versions that changed the selected path, followed through moves") \
	X(FILTER, "filter", SCOPE_HOME, ACTION_KEYS('f', '/'), "filter", \
	    "Show only names containing a text (empty: show all)") \
	X(SYNC, "sync", SCOPE_SYNC, ACTION_KEYS('s'), "sync", \
	    "Sync with the selected peer, both ways (Esc cancels)") \
	X(SYNC_ALL, "sync-all", SCOPE_SYNC, ACTION_KEYS('S'), "sync all", \
	    "Sync with every peer of the config, in turn") \
	X(INIT, "init", SCOPE_WELCOME, ACTION_KEYS('i'), "make a Home here", \
	    "Make the current folder a Home") \
	X(DEMO, "demo", SCOPE_WELCOME, ACTION_KEYS('d'), "demo", \
	    "Open a demo Home with a few versions (made under $TMPDIR)")

enum action {
	ACTION_NONE,
#define ACTION_ENUM(id, name, scope, keys, hint, text) ACTION_##id,
	ACTION_TABLE(ACTION_ENUM)
#undef ACTION_ENUM
	ACTION_COUNT
};

struct action_info {
	const char *name;
	unsigned scope;		/* enum action_scope bits */
	int keys[ACTION_KEYS_MAX];	/* 0 ends the list early */
	const char *hint;
	const char *description;
};

const struct action_info *action_info(enum action action);

/* The action key is bound to in a view of scope, or ACTION_NONE. */
enum action action_for_key(int key, enum action_scope scope);

/* The action named name ("record"), or ACTION_NONE. */
enum action action_by_name(const char *name);
/* The key a name written as the help writes keys stands for ("r",
 * "Ctrl-d", "Enter", "Space", "PgUp", "F5"), or 0 for none. */
int action_parse_key(const char *name);
/* Binds action to keys (action_parse_key's) in place of its own, taking
 * each of them from any other action of a view it shares; false when the
 * keys do not fit. Help, hints and --dump-actions show what is bound. */
bool action_bind(enum action action, const int *keys, size_t count);
/* Every action back to its own keys, before a config's keys: are applied
 * again (R reloads them). */
void action_reset_bindings(void);

/* How a key is written in help and hints: "j", "Up", "Ctrl-d", "Enter". */
const char *action_key_name(int key, char *out, size_t size);
/* All of an action's keys, "j Down", without duplicates by name. */
const char *action_keys_text(enum action action, char *out, size_t size);

/* Names of the views in a scope: "everywhere", "History", "Version, Help". */
const char *action_scope_name(unsigned scope, char *out, size_t size);

/* The key-hint line for a scope: "Enter changes  c checkout  ? help". */
void action_hint_line(enum action_scope scope, char *out, size_t size);

/* One line per binding, as the help overlay shows it (see help.c):
 * "KEYS  NAME  DESCRIPTION" with fixed columns. */
void action_format_line(enum action action, char *out, size_t size);

/* Prints every action as the help overlay lists it, for tests and docs. */
void action_dump(FILE *out);

#endif
