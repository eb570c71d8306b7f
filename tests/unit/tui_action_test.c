/* Unit tests of tui/action: the action table is complete and unambiguous
 * (no key does two things in one view), the keys the app promises are
 * bound, and the names, hints and help lines come out as documented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/tap.h"
#include "tui/action.h"

static const unsigned every_scope[] = {
	SCOPE_HISTORY, SCOPE_VERSION, SCOPE_CONFLICTS, SCOPE_SIDES, SCOPE_HOME, SCOPE_SYNC,
	SCOPE_HELP, SCOPE_WELCOME,
};

static void
test_table_is_complete(void)
{
	bool complete = true;

	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		const struct action_info *info = action_info((enum action)action);
		if (info->name == NULL || info->name[0] == '\0' || info->description == NULL ||
		    info->description[0] == '\0' || info->scope == 0 || info->keys[0] == 0) {
			complete = false;
			tap_diag("action %d lacks a name, description, scope or key", action);
		}
		for (int other = ACTION_NONE + 1; other < action; other++)
			if (strcmp(action_info((enum action)other)->name, info->name) == 0) {
				complete = false;
				tap_diag("two actions are named %s", info->name);
			}
	}
	ok(complete, "every action has a unique name, a description, a scope and a key");
}

static void
test_keys_are_unambiguous(void)
{
	bool unambiguous = true;

	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		const struct action_info *info = action_info((enum action)action);
		for (size_t s = 0; s < sizeof every_scope / sizeof *every_scope; s++) {
			if ((info->scope & every_scope[s]) == 0)
				continue;
			for (size_t k = 0; k < ACTION_KEYS_MAX && info->keys[k] != 0; k++) {
				enum action found = action_for_key(info->keys[k], every_scope[s]);
				if (found != (enum action)action) {
					char name[32];
					unambiguous = false;
					tap_diag("%s in scope %#x goes to %s, not %s",
					    action_key_name(info->keys[k], name, sizeof name), every_scope[s],
					    action_info(found)->name, info->name);
				}
			}
		}
	}
	ok(unambiguous, "in every view each key reaches exactly the action that lists it");
}

static void
check_bound(int key, unsigned scope, enum action want)
{
	char name[32];

	ok(action_for_key(key, (enum action_scope)scope) == want, "%s is %s in scope %#x",
	    action_key_name(key, name, sizeof name), action_info(want)->name, scope);
}

static void
test_promised_keys(void)
{
	for (size_t s = 0; s < sizeof every_scope / sizeof *every_scope; s++) {
		check_bound('q', every_scope[s], ACTION_QUIT);
		check_bound('?', every_scope[s], ACTION_HELP);
		check_bound('j', every_scope[s], ACTION_MOVE_DOWN);
		check_bound(ACTION_FN(KEY_UP), every_scope[s], ACTION_MOVE_UP);
	}
	check_bound('1', SCOPE_HOME, ACTION_VIEW_HISTORY);
	check_bound('4', SCOPE_HISTORY, ACTION_VIEW_SYNC);
	check_bound('\t', SCOPE_SYNC, ACTION_VIEW_NEXT);
	check_bound(ACTION_FN(KEY_BTAB), SCOPE_HISTORY, ACTION_VIEW_PREVIOUS);
	check_bound('g', SCOPE_HISTORY, ACTION_MOVE_FIRST);
	check_bound(ACTION_FN(KEY_END), SCOPE_HOME, ACTION_MOVE_LAST);
	check_bound(ACTION_CTRL('d'), SCOPE_HISTORY, ACTION_MOVE_HALF_DOWN);
	check_bound(ACTION_CTRL('u'), SCOPE_HISTORY, ACTION_MOVE_HALF_UP);
	check_bound(ACTION_FN(KEY_NPAGE), SCOPE_VERSION, ACTION_MOVE_PAGE_DOWN);
	check_bound('\r', SCOPE_HISTORY, ACTION_OPEN_VERSION);
	check_bound('\r', SCOPE_HOME, ACTION_EXPAND);
	check_bound('c', SCOPE_HISTORY, ACTION_CHECKOUT);
	check_bound('/', SCOPE_HISTORY, ACTION_SEARCH);
	check_bound('/', SCOPE_HOME, ACTION_FILTER);
	check_bound(' ', SCOPE_HOME, ACTION_MARK);
	check_bound('r', SCOPE_HOME, ACTION_RECORD);
	check_bound('i', SCOPE_WELCOME, ACTION_INIT);
	check_bound(ACTION_ESCAPE, SCOPE_HISTORY, ACTION_CANCEL);
	check_bound('\r', SCOPE_CONFLICTS, ACTION_OPEN_CONFLICT);
	check_bound(' ', SCOPE_CONFLICTS, ACTION_MARK);
	check_bound('u', SCOPE_CONFLICTS, ACTION_UNMARK_ALL);
	/* Settling works alike in the list and in the Sides pane of one conflict. */
	static const unsigned settle_scopes[] = { SCOPE_CONFLICTS, SCOPE_SIDES };
	for (size_t s = 0; s < sizeof settle_scopes / sizeof *settle_scopes; s++) {
		check_bound('m', settle_scopes[s], ACTION_KEEP_MINE);
		check_bound('t', settle_scopes[s], ACTION_KEEP_THEIRS);
		check_bound('b', settle_scopes[s], ACTION_KEEP_BOTH);
		check_bound('x', settle_scopes[s], ACTION_MERGE_MARKERS);
		check_bound('l', settle_scopes[s], ACTION_DECIDE_LATER);
		check_bound('n', settle_scopes[s], ACTION_DECIDE_LATER);
	}
	check_bound('h', SCOPE_SIDES, ACTION_CLOSE);
	check_bound('2', SCOPE_SIDES, ACTION_VIEW_CONFLICTS);
	check_bound('l', SCOPE_HOME, ACTION_EXPAND);
	check_bound('n', SCOPE_HISTORY, ACTION_SEARCH_NEXT);
	check_bound('s', SCOPE_SYNC, ACTION_SYNC);
	check_bound('S', SCOPE_SYNC, ACTION_SYNC_ALL);
	check_bound(ACTION_ESCAPE, SCOPE_SYNC, ACTION_CANCEL);
	ok(action_for_key('m', SCOPE_HOME) == ACTION_NONE, "m settles nothing in the Home view");
	ok(action_for_key('s', SCOPE_CONFLICTS) == ACTION_NONE, "s syncs only in the Sync view");
	ok(action_for_key('c', SCOPE_HOME) == ACTION_NONE, "c does nothing in the Home view");
	ok(action_for_key('1', SCOPE_WELCOME) == ACTION_NONE, "views cannot be switched outside a Home");
}

static void
test_names(void)
{
	char buffer[32];

	check_str(action_key_name('j', buffer, sizeof buffer), "j");
	check_str(action_key_name(ACTION_FN(KEY_UP), buffer, sizeof buffer), "Up");
	check_str(action_key_name(ACTION_CTRL('d'), buffer, sizeof buffer), "Ctrl-d");
	check_str(action_key_name('\r', buffer, sizeof buffer), "Enter");
	check_str(action_key_name(ACTION_FN(KEY_BTAB), buffer, sizeof buffer), "Shift-Tab");
	check_str(action_key_name(ACTION_ESCAPE, buffer, sizeof buffer), "Esc");
	check_str(action_key_name(ACTION_FN(KEY_F(5)), buffer, sizeof buffer), "F5");
	char keys[96];
	check_str(action_keys_text(ACTION_OPEN_VERSION, keys, sizeof keys), "Enter");
	check_str(action_keys_text(ACTION_MOVE_DOWN, keys, sizeof keys), "j Down");
	check_str(action_scope_name(SCOPE_ANYWHERE, keys, sizeof keys), "Everywhere");
	check_str(action_scope_name(SCOPE_VERSION | SCOPE_HELP, keys, sizeof keys), "Version, Help");
	check_str(action_scope_name(SCOPE_SETTLE, keys, sizeof keys), "Conflicts, Sides");
}

static void
test_hints_and_help_lines(void)
{
	char hints[512];

	action_hint_line(SCOPE_HISTORY, hints, sizeof hints);
	ok(strncmp(hints, "Enter changes", 13) == 0, "History's hints start with its own keys: %s",
	    hints);
	ok(strstr(hints, "? help") != NULL && strstr(hints, "q quit") != NULL,
	    "the hints end with help and quit");
	action_hint_line(SCOPE_HOME, hints, sizeof hints);
	ok(strstr(hints, "r record") != NULL && strstr(hints, "c checkout") == NULL,
	    "Home's hints offer record, not checkout");
	action_hint_line(SCOPE_CONFLICTS, hints, sizeof hints);
	ok(strncmp(hints, "Enter sides  m mine  t theirs  b both  x markers  l later  Space mark", 68) == 0,
	    "Conflicts' hints offer the sides, the three ways to settle and markers: %s", hints);
	action_hint_line(SCOPE_SIDES, hints, sizeof hints);
	ok(strncmp(hints, "h back  m mine  t theirs  b both  x markers  l later", 52) == 0,
	    "a conflict's pane offers going back and settling: %s", hints);
	action_hint_line(SCOPE_SYNC, hints, sizeof hints);
	ok(strncmp(hints, "s sync  S sync all", 18) == 0, "Sync's hints start with syncing: %s",
	    hints);

	char line[256];
	action_format_line(ACTION_MOVE_DOWN, line, sizeof line);
	check_str(line, "j Down               move-down            Move the cursor down one line");

	char *dump = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&dump, &size);
	action_dump(out);
	fclose(out);
	size_t lines = 0;
	for (const char *at = dump; *at != '\0'; at++)
		lines += *at == '\n';
	check_uint(lines, ACTION_COUNT - 1);
	ok(strstr(dump, line) != NULL, "the dump holds the help line of move-down");
	free(dump);
}

static void
test_rebinding(void)
{
	char name[32];
	int keys[2];

	check_int(action_parse_key("r"), 'r');
	check_int(action_parse_key("Ctrl-x"), ACTION_CTRL('x'));
	check_int(action_parse_key("F5"), ACTION_FN(KEY_F(5)));
	check_int(action_parse_key("PgDn"), ACTION_FN(KEY_NPAGE));
	check_int(action_parse_key("Space"), ' ');
	check_int(action_parse_key("Ctlr-x"), 0);
	check_int(action_parse_key(""), 0);
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		const struct action_info *info = action_info((enum action)action);
		for (size_t i = 0; i < ACTION_KEYS_MAX && info->keys[i] != 0; i++) {
			const char *text = action_key_name(info->keys[i], name, sizeof name);
			int back = action_parse_key(text);
			if (action_for_key(back, info->scope) != action_for_key(info->keys[i], info->scope))
				tap_diag("the key named %s does not read back", text);
		}
	}
	check_int(action_by_name("record"), ACTION_RECORD);
	check_int(action_by_name("recrod"), ACTION_NONE);
	keys[0] = 'R';
	ok(action_bind(ACTION_RECORD, keys, 1), "record takes R");
	check_int(action_for_key('R', SCOPE_HOME), ACTION_RECORD);
	check_int(action_for_key('r', SCOPE_HOME), ACTION_NONE);
	check_int(action_for_key('R', SCOPE_HISTORY), ACTION_NONE);
	check_int(action_for_key(ACTION_FN(KEY_F(5)), SCOPE_HOME), ACTION_REFRESH);
	keys[0] = action_parse_key("Enter");
	ok(action_bind(ACTION_SYNC, keys, 1), "Enter stands for its three codes");
	check_int(action_for_key('\n', SCOPE_SYNC), ACTION_SYNC);
	check_int(action_for_key(ACTION_FN(KEY_ENTER), SCOPE_SYNC), ACTION_SYNC);
}

int
main(void)
{
	test_table_is_complete();
	test_keys_are_unambiguous();
	test_promised_keys();
	test_names();
	test_hints_and_help_lines();
	test_rebinding();
	return tap_done();
}
