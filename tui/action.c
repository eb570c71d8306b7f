/* The action table (see action.h) and what is derived from it: key lookup,
 * key names, the hint line and the lines of the help overlay. */
#include "tui/action.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* The defaults of the table below, until action_bind puts a key of the
 * config's keys: in their place; every lookup reads the bindings in force. */
static struct action_info action_table[ACTION_COUNT] = {
	[ACTION_NONE] = { "none", 0, { 0 }, NULL, "Do nothing" },
#define ACTION_ENTRY(id, name_text, scope_bits, key_list, hint_text, text) \
	[ACTION_##id] = { .name = name_text, .scope = scope_bits, .keys = key_list, \
	    .hint = hint_text, .description = text },
	ACTION_TABLE(ACTION_ENTRY)
#undef ACTION_ENTRY
};

/* Each action's own keys, which action_reset_bindings puts back. */
static const int default_keys[ACTION_COUNT][ACTION_KEYS_MAX] = {
#define ACTION_DEFAULT(id, name_text, scope_bits, key_list, hint_text, text) \
	[ACTION_##id] = key_list,
	ACTION_TABLE(ACTION_DEFAULT)
#undef ACTION_DEFAULT
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

enum action
action_by_name(const char *name)
{
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++)
		if (strcmp(action_table[action].name, name) == 0)
			return (enum action)action;
	return ACTION_NONE;
}

/* The key a name of character_key_name stands for, or 0. */
static int
character_key(const char *name)
{
	static const struct {
		const char *name;
		int key;
	} named[] = {
		{ "Enter", '\r' }, { "Tab", '\t' }, { "Space", ' ' }, { "Esc", ACTION_ESCAPE },
		{ "Backspace", 0x7f },
	};
	wchar_t wide[2];
	mbstate_t state;

	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (strcmp(named[i].name, name) == 0)
			return named[i].key;
	if (strncmp(name, "Ctrl-", 5) == 0 && name[5] >= 'a' && name[5] <= 'z' && name[6] == '\0')
		return ACTION_CTRL(name[5]);
	/* One character, as typed: "r", "?", "é". */
	memset(&state, 0, sizeof state);
	size_t length = strlen(name);
	size_t used = mbrtowc(&wide[0], name, length, &state);
	if (length == 0 || used != length || wide[0] < 0x20 || wide[0] == 0x7f)
		return 0;
	return (int)wide[0];
}

int
action_parse_key(const char *name)
{
	for (size_t i = 0; i < sizeof function_key_names / sizeof *function_key_names; i++)
		if (strcmp(function_key_names[i].name, name) == 0 && function_key_names[i].key != KEY_ENTER &&
		    function_key_names[i].key != KEY_BACKSPACE && function_key_names[i].key != KEY_RESIZE)
			return ACTION_FN(function_key_names[i].key);
	if (name[0] == 'F' && name[1] >= '1' && name[1] <= '9') {
		char *end;
		long number = strtol(name + 1, &end, 10);
		if (*end == '\0' && number >= 1 && number <= 63)
			return ACTION_FN(KEY_F((int)number));
	}
	return character_key(name);
}

/* Adds the keys a name stands for to keys: Enter is both of the codes a
 * terminal sends for it, and curses' own; Backspace both of its. */
static size_t
add_key(int key, int *keys, size_t count)
{
	int codes[3] = { key, 0, 0 };

	if (key == '\r') {
		codes[1] = '\n';
		codes[2] = ACTION_FN(KEY_ENTER);
	} else if (key == 0x7f) {
		codes[1] = ACTION_FN(KEY_BACKSPACE);
	}
	for (size_t i = 0; i < 3 && codes[i] != 0 && count < ACTION_KEYS_MAX; i++)
		keys[count++] = codes[i];
	return count;
}

void
action_reset_bindings(void)
{
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++)
		memcpy(action_table[action].keys, default_keys[action], sizeof default_keys[action]);
}

bool
action_bind(enum action action, const int *keys, size_t count)
{
	int bound[ACTION_KEYS_MAX] = { 0 };
	size_t used = 0;

	if (action <= ACTION_NONE || action >= ACTION_COUNT || count == 0)
		return false;
	for (size_t i = 0; i < count; i++) {
		size_t before = used;
		used = add_key(keys[i], bound, used);
		if (used == before)
			return false;	/* more keys than an action holds */
	}
	/* A key taken is taken from every action that shares a view. */
	for (int other = ACTION_NONE + 1; other < ACTION_COUNT; other++) {
		struct action_info *info = &action_table[other];
		if (other == (int)action || (info->scope & action_table[action].scope) == 0)
			continue;
		size_t kept = 0;
		for (size_t i = 0; i < ACTION_KEYS_MAX && info->keys[i] != 0; i++) {
			bool taken = false;
			for (size_t j = 0; j < used && !taken; j++)
				taken = info->keys[i] == bound[j];
			if (!taken)
				info->keys[kept++] = info->keys[i];
		}
		for (size_t i = kept; i < ACTION_KEYS_MAX; i++)
			info->keys[i] = 0;
	}
	memcpy(action_table[action].keys, bound, sizeof bound);
	return true;
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
