/* The action table (see action.h) and what is derived from it: key lookup,
 * key names, the hint line and the lines of the help overlay. */
#include "tui/action.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

static const struct action_info action_table[ACTION_COUNT] = {
	[ACTION_NONE] = { "none", 0, { 0 }, NULL, "Do nothing" },
#define ACTION_ENTRY(id, name_text, scope_bits, key_list, hint_text, text) \
	[ACTION_##id] = { .name = name_text, .scope = scope_bits, .keys = key_list, \
	    .hint = hint_text, .description = text },
	ACTION_TABLE(ACTION_ENTRY)
#undef ACTION_ENTRY
};

static const struct {
	unsigned scope;
	const char *name;
} scope_names[] = {
	{ SCOPE_HISTORY, "History" },
	{ SCOPE_VERSION, "Version" },
	{ SCOPE_CONFLICTS, "Conflicts" },
	{ SCOPE_SIDES, "Sides" },
	{ SCOPE_CHANGES, "Changes" },
	{ SCOPE_FILE_LOG, "File history" },
	{ SCOPE_HOME, "Home" },
	{ SCOPE_SYNC, "Sync" },
	{ SCOPE_HELP, "Help" },
	{ SCOPE_WELCOME, "Welcome" },
};

static const struct {
	int key;
	const char *name;
} function_key_names[] = {
	{ KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
	{ KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" }, { KEY_END, "End" },
	{ KEY_BTAB, "Shift-Tab" }, { KEY_ENTER, "Enter" }, { KEY_BACKSPACE, "Backspace" },
	{ KEY_DC, "Delete" }, { KEY_IC, "Insert" }, { KEY_RESIZE, "Resize" },
};

const struct action_info *
action_info(enum action action)
{
	if (action <= ACTION_NONE || action >= ACTION_COUNT)
		return &action_table[ACTION_NONE];
	return &action_table[action];
}

enum action
action_for_key(int key, enum action_scope scope)
{
	if (key == 0)
		return ACTION_NONE;
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		const struct action_info *info = &action_table[action];
		if ((info->scope & scope) == 0)
			continue;
		for (size_t i = 0; i < ACTION_KEYS_MAX && info->keys[i] != 0; i++)
			if (info->keys[i] == key)
				return action;
	}
	return ACTION_NONE;
}

static const char *
function_key_name(int code, char *out, size_t size)
{
	for (size_t i = 0; i < sizeof function_key_names / sizeof *function_key_names; i++)
		if (function_key_names[i].key == code)
			return function_key_names[i].name;
	if (code >= KEY_F0 && code <= KEY_F(63)) {
		snprintf(out, size, "F%d", code - KEY_F0);
		return out;
	}
	snprintf(out, size, "key-%d", code);
	return out;
}

static const char *
character_key_name(int key, char *out, size_t size)
{
	switch (key) {
	case '\n':
	case '\r':
		return "Enter";
	case '\t':
		return "Tab";
	case ' ':
		return "Space";
	case ACTION_ESCAPE:
		return "Esc";
	case 0x7f:
		return "Backspace";
	}
	if (key > 0 && key < 0x20) {
		snprintf(out, size, "Ctrl-%c", key + 'a' - 1);
		return out;
	}
	/* A code point written as UTF-8, so help shows what the key types. */
	char bytes[8];
	mbstate_t state;
	memset(&state, 0, sizeof state);
	size_t length = wcrtomb(bytes, (wchar_t)key, &state);
	if (length == (size_t)-1 || key < 0x80) {
		if (key >= 0x20 && key < 0x7f) {
			snprintf(out, size, "%c", key);
			return out;
		}
		snprintf(out, size, "U+%04X", (unsigned)key);
		return out;
	}
	snprintf(out, size, "%.*s", (int)length, bytes);
	return out;
}

const char *
action_key_name(int key, char *out, size_t size)
{
	if (key & ACTION_FUNCTION_KEY)
		return function_key_name(key & ~ACTION_FUNCTION_KEY, out, size);
	return character_key_name(key, out, size);
}

const char *
action_keys_text(enum action action, char *out, size_t size)
{
	const struct action_info *info = action_info(action);
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < ACTION_KEYS_MAX && info->keys[i] != 0; i++) {
		char buffer[32];
		const char *name = action_key_name(info->keys[i], buffer, sizeof buffer);
		bool seen = false;
		/* '\n', '\r' and KEY_ENTER are all "Enter": show it once. */
		for (size_t j = 0; j < i && !seen; j++) {
			char other[32];
			seen = strcmp(action_key_name(info->keys[j], other, sizeof other), name) == 0;
		}
		if (seen)
			continue;
		int written = snprintf(out + used, size - used, "%s%s", used ? " " : "", name);
		if (written < 0 || (size_t)written >= size - used)
			break;
		used += (size_t)written;
	}
	return out;
}

const char *
action_scope_name(unsigned scope, char *out, size_t size)
{
	size_t used = 0;

	if ((scope & SCOPE_ANYWHERE) == SCOPE_ANYWHERE)
		return "Everywhere";
	if ((scope & SCOPE_IN_HOME) == SCOPE_IN_HOME)
		return "In every view of a Home";
	if ((scope & SCOPE_TOP_VIEWS) == SCOPE_TOP_VIEWS && (scope & ~SCOPE_TOP_VIEWS) == 0)
		return "In the four main views";
	out[0] = '\0';
	for (size_t i = 0; i < sizeof scope_names / sizeof *scope_names; i++) {
		if ((scope & scope_names[i].scope) == 0)
			continue;
		int written = snprintf(out + used, size - used, "%s%s", used ? ", " : "",
		    scope_names[i].name);
		if (written < 0 || (size_t)written >= size - used)
			break;
		used += (size_t)written;
	}
	return out;
}

/* Appends the hints of the actions whose scope is (or is not) narrow. */
static size_t
add_hints(enum action_scope scope, bool narrow, char *out, size_t size, size_t used)
{
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		const struct action_info *info = &action_table[action];
		char key[32];
		bool is_narrow = (info->scope & SCOPE_TOP_VIEWS) != SCOPE_TOP_VIEWS;
		if (info->hint == NULL || (info->scope & scope) == 0 || is_narrow != narrow)
			continue;
		/* The first key that this scope really dispatches to the action. */
		const char *name = NULL;
		for (size_t i = 0; i < ACTION_KEYS_MAX && info->keys[i] != 0 && name == NULL; i++)
			if (action_for_key(info->keys[i], scope) == (enum action)action)
				name = action_key_name(info->keys[i], key, sizeof key);
		if (name == NULL)
			continue;
		int written = snprintf(out + used, size - used, "%s%s %s", used ? "  " : "", name,
		    info->hint);
		if (written < 0 || (size_t)written >= size - used)
			break;
		used += (size_t)written;
	}
	return used;
}

void
action_hint_line(enum action_scope scope, char *out, size_t size)
{
	/* What this view does comes first; what every view does, after. */
	out[0] = '\0';
	add_hints(scope, false, out, size, add_hints(scope, true, out, size, 0));
}

void
action_format_line(enum action action, char *out, size_t size)
{
	char keys[96];

	snprintf(out, size, "%-20s %-20s %s", action_keys_text(action, keys, sizeof keys),
	    action_info(action)->name, action_info(action)->description);
}

void
action_dump(FILE *out)
{
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		char line[256];
		action_format_line((enum action)action, line, sizeof line);
		fprintf(out, "%s\n", line);
	}
}
