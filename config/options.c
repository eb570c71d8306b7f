/* The option table (after tmux's options-table.c): every key's name, type,
 * default and description, with the functions that parse it from YAML and
 * print it back. Errors, `hearth config check`, config_print and the man
 * page all come from this one table. */
#include "config/internal.h"

#include <stdlib.h>
#include <string.h>

#define CONFIG_OPTIONS(X) \
	X(roots, "list of {name, path}", "[]", \
	    "The real folders joined into one Home. Each has a name (letters, digits, " \
	    "'-' and '_', at most 64) and a path; names and paths are unique and no " \
	    "root lies inside another.") \
	X(state, "path", "unset", \
	    "Where the store (history, content, index) lives. Unset, a Home made by " \
	    "`hearth init DIR` keeps it in DIR/.hearth.") \
	X(poll_interval, "duration (500ms..1h)", "5s", \
	    "How often to look for changes when inotify cannot watch: a number with " \
	    "ms, s, m or h, or a bare number of seconds.") \
	X(durability, "full, group or none", "group", \
	    "What a crash may cost: full fsyncs every file as it is written; group " \
	    "flushes once per command, before it counts; none never flushes.") \
	X(theme, "theme name or path", "default", \
	    "The colour theme: a name (default, light, high-contrast) or a path to a " \
	    "theme file (a value holding '/' or ending in .yaml).") \
	X(peers, "list of {name, url}", "[]", \
	    "Machines to sync with: a name as for roots and a url, either " \
	    "ssh://[user@]host[:port]/path or a path; an ssh peer may add " \
	    "remote_command (the program to run there, when hearth is not on its " \
	    "PATH) and ssh_command (for it alone).") \
	X(ignore, "list of patterns", "[\"*.swp\", \"*~\", \".cache/\"]", \
	    "Paths never recorded, as gitignore-style patterns. The state folder " \
	    ".hearth/ never is, whatever this says.") \
	X(never_merge, "list of patterns", \
	    "[\"*.lock\", \"package-lock.json\", \"*.min.js\", \"*.min.css\", \"*.map\"]", \
	    "Files whose concurrent edits are never merged by line: each stays a " \
	    "content conflict, as with -merge in .gitattributes. Patterns as for " \
	    "ignore. The defaults are files tools generate, where a line merge " \
	    "can look right and be wrong.") \
	X(always_merge, "list of patterns", "[]", \
	    "Files merged by line even when they hold NUL bytes, as with merge=text " \
	    "in .gitattributes (never_merge wins over it). Every other file merges " \
	    "when it is text: no NUL byte and at most 4 MiB.") \
	X(place, "list of {pattern, root}", "[]", \
	    "Which root new files go to: the first rule whose glob pattern matches " \
	    "wins; otherwise the root of their folder; otherwise the first root.") \
	X(auto_checkout, "boolean", "false", \
	    "Apply what a sync brings to the working tree at once (recording local " \
	    "changes first), unless it would delete more than max_delete.") \
	X(max_delete, "percentage (0%..100%)", "50%", \
	    "The largest share of a root's files a record or checkout deletes unasked " \
	    "(beyond it, or every file of a root, needs --yes).") \
	X(ssh_command, "command", "ssh", \
	    "The command that reaches a peer over SSH, split into words as a shell " \
	    "would (quotes and backslashes); a peer's own ssh_command and " \
	    "HEARTH_SSH override it.") \
	X(author, "string", "\"\"", \
	    "Who records versions; empty means user@host.") \
	X(keys, "map of action: key or list of keys", "{}", \
	    "The app's keys rebound: each action named (as the help and hearth(1) " \
	    "name them) takes these keys instead of its own, written as the help " \
	    "writes them (r, R, Ctrl-r, Enter, Space, Tab, Esc, Up, F5...). A key " \
	    "given to one action is taken from any other in the same views.")

#define CONFIG_OPTION_DECLARE(name, type, default_text, description) \
	static bool config_parse_##name(struct config_load *load, yaml_node_t *value); \
	static void config_print_##name(const struct config *config, FILE *out);
CONFIG_OPTIONS(CONFIG_OPTION_DECLARE)
#undef CONFIG_OPTION_DECLARE

static const struct config_key_info config_key_table[] = {
#define CONFIG_OPTION_INFO(name, type, default_text, description) \
	{ #name, type, default_text, description },
	CONFIG_OPTIONS(CONFIG_OPTION_INFO)
#undef CONFIG_OPTION_INFO
};

const char *const config_option_names[] = {
#define CONFIG_OPTION_NAME(name, type, default_text, description) #name,
	CONFIG_OPTIONS(CONFIG_OPTION_NAME)
#undef CONFIG_OPTION_NAME
};

const size_t config_option_count = sizeof config_option_names / sizeof *config_option_names;

static bool (*const config_option_parsers[])(struct config_load *, yaml_node_t *) = {
#define CONFIG_OPTION_PARSER(name, type, default_text, description) config_parse_##name,
	CONFIG_OPTIONS(CONFIG_OPTION_PARSER)
#undef CONFIG_OPTION_PARSER
};

static void (*const config_option_printers[])(const struct config *, FILE *) = {
#define CONFIG_OPTION_PRINTER(name, type, default_text, description) config_print_##name,
	CONFIG_OPTIONS(CONFIG_OPTION_PRINTER)
#undef CONFIG_OPTION_PRINTER
};

const struct config_key_info *
config_keys(size_t *count)
{
	if (count != NULL)
		*count = config_option_count;
	return config_key_table;
}

const char *
config_suggest_key(const char *unknown)
{
	if (unknown == NULL)
		return NULL;
	return config_nearest_word(unknown, config_option_names, config_option_count);
}

bool
config_option_apply(struct config_load *load, size_t option, yaml_node_t *value)
{
	return config_option_parsers[option](load, value);
}

void
config_option_print(const struct config *config, size_t option, FILE *out)
{
	config_option_printers[option](config, out);
}

/* ---- scalar values ---------------------------------------------------------- */

#define config_fail(load, node, ...) config_yaml_fail(&(load)->yaml, (node), __VA_ARGS__)

static void
config_quote_node(const yaml_node_t *node, char *out, size_t out_size)
{
	config_yaml_quote((const char *)node->data.scalar.value, node->data.scalar.length, out,
	    out_size);
}

/* A scalar's text for a value described as expected ("a duration such as
 * 5s"); anything else is an error saying what was found. */
static const char *
config_scalar(struct config_load *load, yaml_node_t *node, const char *expected)
{
	if (node->type != YAML_SCALAR_NODE || config_yaml_is_null(node)) {
		config_fail(load, node, "expected %s, found %s", expected, config_yaml_kind(node));
		return NULL;
	}
	const char *text = config_yaml_text(node);
	if (text == NULL)
		config_fail(load, node, "expected %s, found a string holding a NUL character",
		    expected);
	return text;
}

static bool
config_copy_string(struct config_load *load, yaml_node_t *node, const char *expected,
    bool may_be_empty, char **out)
{
	const char *text = config_scalar(load, node, expected);

	if (text == NULL)
		return false;
	if (!may_be_empty && text[0] == '\0')
		return config_fail(load, node, "expected %s, found an empty string", expected);
	*out = strdup(text);
	if (*out == NULL)
		return config_fail(load, node, "out of memory");
	return true;
}

/* YAML reads a plain ~ as null, but in a config about a Home directory
 * `path: ~` can only mean $HOME, so path values take it that way. */
static bool
config_is_bare_tilde(const yaml_node_t *node)
{
	return config_yaml_is_plain(node) && strcmp((const char *)node->data.scalar.value, "~") == 0;
}

static bool
config_copy_path(struct config_load *load, yaml_node_t *node, const char *what, char **out)
{
	const char *problem = NULL;
	const char *text = config_is_bare_tilde(node) ? "~" : config_scalar(load, node, "a path");

	if (text == NULL)
		return false;
	*out = config_path_resolve(text, load->base_dir, &problem);
	if (*out != NULL)
		return true;
	if (text[0] == '\0')
		return config_fail(load, node, "%s %s", what, problem);
	char quoted[256];
	config_quote_node(node, quoted, sizeof quoted);
	return config_fail(load, node, "%s '%s' %s", what, quoted, problem);
}

/* Digits only, returning what follows them. Saturates near 10^12 instead of
 * overflowing, so "99999999999999999999s" is out of range rather than
 * wrapped into range, and even 10^12 hours still fits in 64 bits. */
static const char *
config_read_number(const char *text, uint64_t *value)
{
	static const uint64_t ceiling = 1000000000000u;

	*value = 0;
	if (*text < '0' || *text > '9')
		return NULL;
	for (; *text >= '0' && *text <= '9'; text++)
		*value = *value > ceiling / 10 ? ceiling : *value * 10 + (uint64_t)(*text - '0');
	return text;
}

static bool
config_name_is_valid(const char *name)
{
	size_t length = strlen(name);

	if (length == 0 || length > 64)
		return false;
	for (; *name != '\0'; name++) {
		char c = *name;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_'))
			return false;
	}
	return true;
}

static bool
config_copy_name(struct config_load *load, yaml_node_t *node, const char *what, char **out)
{
	const char *text = config_scalar(load, node, "a name");

	if (text == NULL)
		return false;
	if (!config_name_is_valid(text)) {
		char quoted[256];
		config_quote_node(node, quoted, sizeof quoted);
		return config_fail(load, node,
		    "%s name '%s' must be 1 to 64 letters, digits, '-' or '_'", what, quoted);
	}
	*out = strdup(text);
	if (*out == NULL)
		return config_fail(load, node, "out of memory");
	return true;
}

/* ---- lists --------------------------------------------------------------------- */

/* A list value: null means empty, anything but a list is an error, and a
 * list longer than limit is refused (checks between entries are
 * quadratic, and no Home needs more). */
static bool
config_list(struct config_load *load, yaml_node_t *value, const char *expected, size_t limit,
    const char *plural, size_t *count)
{
	*count = 0;
	if (config_yaml_is_null(value))
		return true;
	if (value->type != YAML_SEQUENCE_NODE)
		return config_fail(load, value, "expected %s, found %s", expected,
		    config_yaml_kind(value));
	*count = (size_t)(value->data.sequence.items.top - value->data.sequence.items.start);
	if (*count > limit)
		return config_fail(load, value, "at most %zu %s are allowed, found %zu", limit,
		    plural, *count);
	return true;
}

static yaml_node_t *
config_list_item(struct config_load *load, yaml_node_t *list, size_t i)
{
	return config_yaml_node(&load->yaml, list->data.sequence.items.start[i]);
}

/* calloc that never returns NULL for a count of 0, so NULL always means
 * out of memory. */
static void *
config_allocate(size_t count, size_t size)
{
	return calloc(count > 0 ? count : 1, size);
}

/* An entry of a list of maps: a map of the fields alone, the first
 * required of them present (the others NULL in values when left out). */
static bool
config_entry_some(struct config_load *load, yaml_node_t *item,
    const struct config_yaml_fields *fields, size_t required, const char *shape,
    const char *entry, yaml_node_t **values)
{
	if (item == NULL)
		return config_fail(load, NULL, "a list item is missing");
	if (item->type != YAML_MAPPING_NODE)
		return config_fail(load, item, "expected a %s map, found %s", shape,
		    config_yaml_kind(item));
	if (!config_yaml_collect(&load->yaml, item, fields, values))
		return false;
	for (size_t i = 0; i < required; i++)
		if (values[i] == NULL)
			return config_fail(load, item, "%s needs a '%s'", entry, fields->names[i]);
	return true;
}

/* An entry of a list of maps: a map with exactly the fields, all present. */
static bool
config_entry(struct config_load *load, yaml_node_t *item,
    const struct config_yaml_fields *fields, const char *shape, const char *entry,
    yaml_node_t **values)
{
	return config_entry_some(load, item, fields, fields->count, shape, entry, values);
}

void
config_free_strings(char **strings, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(strings[i]);
	free(strings);
}

void
config_free_roots(struct config_root *roots, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(roots[i].name);
		free(roots[i].path);
	}
	free(roots);
}

void
config_free_peers(struct config_peer *peers, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(peers[i].name);
		free(peers[i].url);
		free(peers[i].remote_command);
		free(peers[i].ssh_command);
	}
	free(peers);
}

void
config_free_place(struct config_place_rule *place, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(place[i].pattern);
		free(place[i].root);
	}
	free(place);
}

static void
config_print_list_empty(const char *key, FILE *out)
{
	fprintf(out, "%s: []\n", key);
}

/* ---- roots --------------------------------------------------------------------- */

static const char *const config_root_field_names[] = { "name", "path" };
static const struct config_yaml_fields config_root_fields = {
	config_root_field_names, 2, "key", " in a root",
};

/* Whether inner lies inside outer (both normalised, absolute). */
static bool
config_path_is_inside(const char *inner, const char *outer)
{
	size_t length = strlen(outer);

	if (strcmp(outer, "/") == 0)
		return strcmp(inner, "/") != 0;
	return strncmp(inner, outer, length) == 0 && inner[length] == '/';
}

/* The new root (the last of roots) against those before it. */
static bool
config_root_check(struct config_load *load, const struct config_root *roots, size_t count,
    yaml_node_t **values)
{
	const struct config_root *root = &roots[count - 1];

	for (size_t i = 0; i + 1 < count; i++) {
		const struct config_root *other = &roots[i];
		if (strcmp(other->name, root->name) == 0)
			return config_fail(load, values[0], "duplicate root name '%s'", root->name);
		if (strcmp(other->path, root->path) == 0)
			return config_fail(load, values[1], "root '%s' has the same path as root '%s' (%s)",
			    root->name, other->name, root->path);
		if (config_path_is_inside(root->path, other->path))
			return config_fail(load, values[1], "root '%s' (%s) lies inside root '%s' (%s)",
			    root->name, root->path, other->name, other->path);
		if (config_path_is_inside(other->path, root->path))
			return config_fail(load, values[1], "root '%s' (%s) contains root '%s' (%s)",
			    root->name, root->path, other->name, other->path);
	}
	return true;
}

static bool
config_parse_roots(struct config_load *load, yaml_node_t *value)
{
	static const char expected[] = "a list of {name, path} maps";
	yaml_node_t *values[2];
	size_t count, done = 0;

	if (!config_list(load, value, expected, CONFIG_MAX_ROOTS, "roots", &count))
		return false;
	struct config_root *roots = config_allocate(count, sizeof *roots);
	if (roots == NULL)
		return config_fail(load, value, "out of memory");
	for (; done < count; done++) {
		struct config_root *root = &roots[done];
		if (!config_entry(load, config_list_item(load, value, done), &config_root_fields,
		    "{name, path}", "a root", values) ||
		    !config_copy_name(load, values[0], "root", &root->name) ||
		    !config_copy_path(load, values[1], "root path", &root->path) ||
		    !config_root_check(load, roots, done + 1, values)) {
			config_free_roots(roots, done + 1);
			return false;
		}
	}
	config_free_roots(load->config->roots, load->config->root_count);
	load->config->roots = roots;
	load->config->root_count = count;
	return true;
}

static void
config_print_roots(const struct config *config, FILE *out)
{
	if (config->root_count == 0) {
		config_print_list_empty("roots", out);
		return;
	}
	fprintf(out, "roots:\n");
	for (size_t i = 0; i < config->root_count; i++) {
		fprintf(out, "  - name: ");
		config_print_quoted(out, config->roots[i].name);
		fprintf(out, "\n    path: ");
		config_print_quoted(out, config->roots[i].path);
		fprintf(out, "\n");
	}
}

/* ---- state ---------------------------------------------------------------------- */

static bool
config_parse_state(struct config_load *load, yaml_node_t *value)
{
	char *state = NULL;

	bool unset = config_yaml_is_null(value) && !config_is_bare_tilde(value);
	if (!unset && !config_copy_path(load, value, "state path", &state))
		return false;
	free(load->config->state);
	load->config->state = state;
	return true;
}

static void
config_print_state(const struct config *config, FILE *out)
{
	if (config->state == NULL) {
		fprintf(out, "# state: unset\n");
		return;
	}
	fprintf(out, "state: ");
	config_print_quoted(out, config->state);
	fprintf(out, "\n");
}

/* ---- poll_interval ---------------------------------------------------------------- */

#define CONFIG_POLL_MIN_MS 500
#define CONFIG_POLL_MAX_MS (60 * 60 * 1000)

/* "5s", "500ms", "2m", "1h" or "5" (seconds) in milliseconds. */
static bool
config_read_duration(const char *text, uint64_t *milliseconds)
{
	static const struct { const char *suffix; uint64_t scale; } units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60 * 1000 }, { "h", 60 * 60 * 1000 },
	};
	uint64_t number;
	const char *suffix = config_read_number(text, &number);

	if (suffix == NULL)
		return false;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(suffix, units[i].suffix) != 0)
			continue;
		*milliseconds = number * units[i].scale;
		return true;
	}
	return false;
}

static bool
config_parse_poll_interval(struct config_load *load, yaml_node_t *value)
{
	static const char expected[] = "a duration such as 5s, 500ms, 2m or 1h";
	uint64_t milliseconds;
	char quoted[256];
	const char *text = config_scalar(load, value, expected);

	if (text == NULL)
		return false;
	config_quote_node(value, quoted, sizeof quoted);
	if (!config_read_duration(text, &milliseconds))
		return config_fail(load, value, "expected %s, found '%s'", expected, quoted);
	if (milliseconds < CONFIG_POLL_MIN_MS || milliseconds > CONFIG_POLL_MAX_MS)
		return config_fail(load, value,
		    "poll_interval must be between 500ms and 1h, found '%s'", quoted);
	load->config->poll_interval_ms = (uint32_t)milliseconds;
	return true;
}

static void
config_print_poll_interval(const struct config *config, FILE *out)
{
	uint32_t ms = config->poll_interval_ms;

	if (ms != 0 && ms % (60 * 60 * 1000) == 0)
		fprintf(out, "poll_interval: %uh\n", ms / (60 * 60 * 1000));
	else if (ms != 0 && ms % (60 * 1000) == 0)
		fprintf(out, "poll_interval: %um\n", ms / (60 * 1000));
	else if (ms % 1000 == 0)
		fprintf(out, "poll_interval: %us\n", ms / 1000);
	else
		fprintf(out, "poll_interval: %ums\n", ms);
}

/* ---- durability ---------------------------------------------------------------- */

static const char *const config_durability_names[] = { "full", "group", "none" };

const char *
config_durability_name(enum config_durability durability)
{
	if ((size_t)durability >= sizeof config_durability_names / sizeof *config_durability_names)
		return "unknown";
	return config_durability_names[durability];
}

/* full flushes each file as it is written; group saves those flushes for
 * one per command (a file system's syncfs, the pack's fsync) before the
 * one database commit that makes the command count, so the two make the
 * same promise; none flushes nothing. A mode not named here (none is)
 * gets full's rules: the safe side. */
struct config_durability_rules
config_durability_rules(enum config_durability durability)
{
	struct config_durability_rules rules = { .sync_each_file = true, .sync_folders = true,
		.sync_packs = true, .sync_database = true };

	if (durability == DURABILITY_GROUP)
		rules.sync_each_file = false;
	else if (durability == DURABILITY_NONE)
		rules = (struct config_durability_rules){ 0 };
	return rules;
}

static bool
config_parse_durability(struct config_load *load, yaml_node_t *value)
{
	static const char expected[] = "full, group or none";
	const char *text = config_scalar(load, value, expected);

	if (text == NULL)
		return false;
	for (size_t i = 0; i < 3; i++) {
		if (strcmp(text, config_durability_names[i]) == 0) {
			load->config->durability = (enum config_durability)i;
			return true;
		}
	}
	char quoted[256];
	config_quote_node(value, quoted, sizeof quoted);
	const char *nearest = config_nearest_word(text, config_durability_names, 3);
	if (nearest != NULL)
		return config_fail(load, value, "expected %s, found '%s'; did you mean '%s'?",
		    expected, quoted, nearest);
	return config_fail(load, value, "expected %s, found '%s'", expected, quoted);
}

static void
config_print_durability(const struct config *config, FILE *out)
{
	fprintf(out, "durability: %s\n", config_durability_name(config->durability));
}

/* ---- theme ---------------------------------------------------------------------- */

/* The same test theme_load makes: a value holding '/' or ending in .yaml
 * names a file, which is resolved against the config's folder here. */
static bool
config_theme_is_path(const char *theme)
{
	size_t length = strlen(theme);

	return strchr(theme, '/') != NULL ||
	    (length >= 5 && strcmp(theme + length - 5, ".yaml") == 0);
}

static bool
config_parse_theme(struct config_load *load, yaml_node_t *value)
{
	char *theme = NULL;

	if (!config_copy_string(load, value, "a theme name or path", false, &theme))
		return false;
	if (config_theme_is_path(theme)) {
		char *path = NULL;
		bool resolved = config_copy_path(load, value, "theme path", &path);
		free(theme);
		if (!resolved)
			return false;
		theme = path;
	}
	free(load->config->theme);
	load->config->theme = theme;
	return true;
}

static void
config_print_theme(const struct config *config, FILE *out)
{
	fprintf(out, "theme: ");
	config_print_quoted(out, config->theme ? config->theme : "default");
	fprintf(out, "\n");
}

/* ---- peers ------------------------------------------------------------------ */

/* name and url, then what an ssh peer may add. */
static const char *const config_peer_field_names[] = {
	"name", "url", "remote_command", "ssh_command",
};
static const struct config_yaml_fields config_peer_fields = {
	config_peer_field_names, 4, "key", " in a peer",
};

/* A url with a scheme is kept as written, and so is scp's host:path (a ':'
 * before any '/', as git reads it), which the sync refuses naming the
 * ssh:// URL meant; anything else is a path, which must mean the same
 * wherever the command runs from. */
static bool
config_copy_url(struct config_load *load, yaml_node_t *node, char **out)
{
	const char *text = config_is_bare_tilde(node) ? "~" : config_scalar(load, node, "a url or a path");

	if (text == NULL)
		return false;
	size_t head = strcspn(text, "/:");
	bool scp_like = head > 0 && text[head] == ':' && text[0] != '~' && text[0] != '.';
	if (strstr(text, "://") == NULL && !scp_like)
		return config_copy_path(load, node, "peer url", out);
	*out = strdup(text);
	if (*out == NULL)
		return config_fail(load, node, "out of memory");
	return true;
}

/* A peer's remote_command or ssh_command, when its map has one. */
static bool
config_copy_peer_command(struct config_load *load, yaml_node_t *node, char **out)
{
	return node == NULL || config_copy_string(load, node, "a command", false, out);
}

static bool
config_parse_peers(struct config_load *load, yaml_node_t *value)
{
	static const char expected[] = "a list of {name, url} maps";
	yaml_node_t *values[4];
	size_t count, done = 0;

	if (!config_list(load, value, expected, CONFIG_MAX_PEERS, "peers", &count))
		return false;
	struct config_peer *peers = config_allocate(count, sizeof *peers);
	if (peers == NULL)
		return config_fail(load, value, "out of memory");
	for (; done < count; done++) {
		struct config_peer *peer = &peers[done];
		bool ok = config_entry_some(load, config_list_item(load, value, done),
		    &config_peer_fields, 2, "{name, url}", "a peer", values) &&
		    config_copy_name(load, values[0], "peer", &peer->name) &&
		    config_copy_url(load, values[1], &peer->url) &&
		    config_copy_peer_command(load, values[2], &peer->remote_command) &&
		    config_copy_peer_command(load, values[3], &peer->ssh_command);
		for (size_t i = 0; ok && i < done; i++)
			if (strcmp(peers[i].name, peer->name) == 0)
				ok = config_fail(load, values[0], "duplicate peer name '%s'",
				    peer->name);
		if (!ok) {
			config_free_peers(peers, done + 1);
			return false;
		}
	}
	config_free_peers(load->config->peers, load->config->peer_count);
	load->config->peers = peers;
	load->config->peer_count = count;
	return true;
}

static void
config_print_peers(const struct config *config, FILE *out)
{
	if (config->peer_count == 0) {
		config_print_list_empty("peers", out);
		return;
	}
	fprintf(out, "peers:\n");
	for (size_t i = 0; i < config->peer_count; i++) {
		fprintf(out, "  - name: ");
		config_print_quoted(out, config->peers[i].name);
		fprintf(out, "\n    url: ");
		config_print_quoted(out, config->peers[i].url);
		fprintf(out, "\n");
		if (config->peers[i].remote_command != NULL) {
			fprintf(out, "    remote_command: ");
			config_print_quoted(out, config->peers[i].remote_command);
			fprintf(out, "\n");
		}
		if (config->peers[i].ssh_command != NULL) {
			fprintf(out, "    ssh_command: ");
			config_print_quoted(out, config->peers[i].ssh_command);
			fprintf(out, "\n");
		}
	}
}

/* ---- ignore -------------------------------------------------------------------- */

/* ignore, never_merge and always_merge: lists of gitignore-style patterns
 * (compiled and checked by the backend, which knows the syntax). */
static bool
config_parse_patterns(struct config_load *load, yaml_node_t *value, char ***list,
    size_t *list_count)
{
	static const char expected[] = "a list of patterns";
	size_t count, done = 0;

	if (!config_list(load, value, expected, CONFIG_MAX_IGNORE, "patterns", &count))
		return false;
	char **patterns = config_allocate(count, sizeof *patterns);
	if (patterns == NULL)
		return config_fail(load, value, "out of memory");
	for (; done < count; done++) {
		yaml_node_t *item = config_list_item(load, value, done);
		bool ok = item != NULL ?
		    config_copy_string(load, item, "a pattern", false, &patterns[done]) :
		    config_fail(load, value, "a list item is missing");
		if (!ok) {
			config_free_strings(patterns, done);
			return false;
		}
	}
	config_free_strings(*list, *list_count);
	*list = patterns;
	*list_count = count;
	return true;
}

static void
config_print_patterns(const char *key, char *const *list, size_t count, FILE *out)
{
	if (count == 0) {
		config_print_list_empty(key, out);
		return;
	}
	fprintf(out, "%s:\n", key);
	for (size_t i = 0; i < count; i++) {
		fprintf(out, "  - ");
		config_print_quoted(out, list[i]);
		fprintf(out, "\n");
	}
}

static bool
config_parse_ignore(struct config_load *load, yaml_node_t *value)
{
	return config_parse_patterns(load, value, &load->config->ignore, &load->config->ignore_count);
}

static void
config_print_ignore(const struct config *config, FILE *out)
{
	config_print_patterns("ignore", config->ignore, config->ignore_count, out);
}

/* ---- never_merge, always_merge ----------------------------------------------------- */

static bool
config_parse_never_merge(struct config_load *load, yaml_node_t *value)
{
	return config_parse_patterns(load, value, &load->config->never_merge,
	    &load->config->never_merge_count);
}

static void
config_print_never_merge(const struct config *config, FILE *out)
{
	config_print_patterns("never_merge", config->never_merge, config->never_merge_count, out);
}

static bool
config_parse_always_merge(struct config_load *load, yaml_node_t *value)
{
	return config_parse_patterns(load, value, &load->config->always_merge,
	    &load->config->always_merge_count);
}

static void
config_print_always_merge(const struct config *config, FILE *out)
{
	config_print_patterns("always_merge", config->always_merge, config->always_merge_count,
	    out);
}

/* ---- place ------------------------------------------------------------------- */

static const char *const config_place_field_names[] = { "pattern", "root" };
static const struct config_yaml_fields config_place_fields = {
	config_place_field_names, 2, "key", " in a place rule",
};

static bool
config_parse_place(struct config_load *load, yaml_node_t *value)
{
	static const char expected[] = "a list of {pattern, root} maps";
	yaml_node_t *values[2];
	size_t count, done = 0;

	if (!config_list(load, value, expected, CONFIG_MAX_PLACE, "place rules", &count))
		return false;
	struct config_place_rule *place = config_allocate(count, sizeof *place);
	if (place == NULL)
		return config_fail(load, value, "out of memory");
	for (; done < count; done++) {
		struct config_place_rule *rule = &place[done];
		if (!config_entry(load, config_list_item(load, value, done), &config_place_fields,
		    "{pattern, root}", "a place rule", values) ||
		    !config_copy_string(load, values[0], "a pattern", false, &rule->pattern) ||
		    !config_copy_name(load, values[1], "root", &rule->root)) {
			config_free_place(place, done + 1);
			return false;
		}
	}
	config_free_place(load->config->place, load->config->place_count);
	load->config->place = place;
	load->config->place_count = count;
	load->place_node = count > 0 ? value : NULL;
	return true;
}

static void
config_print_place(const struct config *config, FILE *out)
{
	if (config->place_count == 0) {
		config_print_list_empty("place", out);
		return;
	}
	fprintf(out, "place:\n");
	for (size_t i = 0; i < config->place_count; i++) {
		fprintf(out, "  - pattern: ");
		config_print_quoted(out, config->place[i].pattern);
		fprintf(out, "\n    root: ");
		config_print_quoted(out, config->place[i].root);
		fprintf(out, "\n");
	}
}

/* Runs once the whole file is read, since roots may follow place. */
bool
config_options_check(struct config_load *load)
{
	const struct config *config = load->config;
	const char *root_names[CONFIG_MAX_ROOTS];
	yaml_node_t *values[2];

	if (load->place_node == NULL || config->root_count == 0)
		return true;
	for (size_t i = 0; i < config->root_count; i++)
		root_names[i] = config->roots[i].name;
	for (size_t rule = 0; rule < config->place_count; rule++) {
		const char *root = config->place[rule].root;
		bool known = false;
		for (size_t i = 0; i < config->root_count; i++)
			known = known || strcmp(root_names[i], root) == 0;
		if (known)
			continue;
		yaml_node_t *item = config_list_item(load, load->place_node, rule);
		if (item == NULL || !config_yaml_collect(&load->yaml, item, &config_place_fields, values))
			return config_fail(load, load->place_node, "place rule %zu names no root", rule + 1);
		const char *nearest = config_nearest_word(root, root_names, config->root_count);
		if (nearest != NULL)
			return config_fail(load, values[1], "no root is named '%s'; did you mean '%s'?",
			    root, nearest);
		return config_fail(load, values[1], "no root is named '%s'", root);
	}
	return true;
}

/* ---- auto_checkout ------------------------------------------------------------- */

static bool
config_parse_auto_checkout(struct config_load *load, yaml_node_t *value)
{
	static const char *const truths[] = { "true", "True", "TRUE" };
	static const char *const lies[] = { "false", "False", "FALSE" };
	const char *text = config_scalar(load, value, "true or false");

	if (text == NULL)
		return false;
	for (size_t i = 0; config_yaml_is_plain(value) && i < 3; i++) {
		if (strcmp(text, truths[i]) == 0 || strcmp(text, lies[i]) == 0) {
			load->config->auto_checkout = strcmp(text, truths[i]) == 0;
			return true;
		}
	}
	char quoted[256];
	config_quote_node(value, quoted, sizeof quoted);
	if (!config_yaml_is_plain(value))
		return config_fail(load, value, "expected true or false without quotes, found '%s' in quotes",
		    quoted);
	return config_fail(load, value, "expected true or false, found '%s'", quoted);
}

static void
config_print_auto_checkout(const struct config *config, FILE *out)
{
	fprintf(out, "auto_checkout: %s\n", config->auto_checkout ? "true" : "false");
}

/* ---- max_delete ------------------------------------------------------------------ */

static bool
config_parse_max_delete(struct config_load *load, yaml_node_t *value)
{
	static const char expected[] = "a percentage such as 50%";
	uint64_t percent;
	char quoted[256];
	const char *text = config_scalar(load, value, expected);

	if (text == NULL)
		return false;
	config_quote_node(value, quoted, sizeof quoted);
	const char *rest = config_read_number(text, &percent);
	if (rest == NULL || (strcmp(rest, "%") != 0 && strcmp(rest, "") != 0))
		return config_fail(load, value, "expected %s, found '%s'", expected, quoted);
	if (percent > 100)
		return config_fail(load, value, "max_delete must be between 0%% and 100%%, found '%s'",
		    quoted);
	load->config->max_delete_percent = (uint32_t)percent;
	return true;
}

static void
config_print_max_delete(const struct config *config, FILE *out)
{
	fprintf(out, "max_delete: %u%%\n", config->max_delete_percent);
}

/* ---- ssh_command, author ------------------------------------------------------- */

static bool
config_parse_ssh_command(struct config_load *load, yaml_node_t *value)
{
	char *command = NULL;

	if (!config_copy_string(load, value, "a command", false, &command))
		return false;
	free(load->config->ssh_command);
	load->config->ssh_command = command;
	return true;
}

static void
config_print_ssh_command(const struct config *config, FILE *out)
{
	fprintf(out, "ssh_command: ");
	config_print_quoted(out, config->ssh_command ? config->ssh_command : "ssh");
	fprintf(out, "\n");
}

static bool
config_parse_author(struct config_load *load, yaml_node_t *value)
{
	char *author = NULL;

	/* "author:" with nothing after it reads as the empty default. */
	if (config_yaml_is_null(value))
		author = strdup("");
	else if (!config_copy_string(load, value, "a name", true, &author))
		return false;
	if (author == NULL)
		return config_fail(load, value, "out of memory");
	/* A version's author holds at most 256 bytes (the op format's
	 * OP_AUTHOR_MAX): a longer one could be recorded by no replica. */
	if (strlen(author) > 256) {
		size_t length = strlen(author);
		free(author);
		return config_fail(load, value, "author is %zu bytes; it may hold at most 256",
		    length);
	}
	free(load->config->author);
	load->config->author = author;
	return true;
}

static void
config_print_author(const struct config *config, FILE *out)
{
	fprintf(out, "author: ");
	config_print_quoted(out, config->author ? config->author : "");
	fprintf(out, "\n");
}

/* ---- keys ------------------------------------------------------------------------ */

void
config_free_bindings(struct config_binding *bindings, size_t count)
{
	for (size_t i = 0; bindings != NULL && i < count; i++) {
		free(bindings[i].action);
		config_free_strings(bindings[i].keys, bindings[i].key_count);
	}
	free(bindings);
}

/* One action's keys: a key name, or a list of them. */
static bool
config_parse_binding_keys(struct config_load *load, yaml_node_t *value,
    struct config_binding *binding)
{
	size_t count = 1;

	if (value->type == YAML_SEQUENCE_NODE &&
	    !config_list(load, value, "a key or a list of keys", CONFIG_MAX_BINDING_KEYS, "keys",
	    &count))
		return false;
	if (count == 0)
		return config_fail(load, value, "give '%s' at least one key", binding->action);
	binding->keys = config_allocate(count, sizeof *binding->keys);
	if (binding->keys == NULL)
		return config_fail(load, value, "out of memory");
	for (size_t i = 0; i < count; i++) {
		yaml_node_t *item = value->type == YAML_SEQUENCE_NODE ?
		    config_list_item(load, value, i) : value;
		if (item == NULL || !config_copy_string(load, item, "a key", false, &binding->keys[i]))
			return false;
		binding->key_count++;
	}
	return true;
}

static bool
config_parse_keys(struct config_load *load, yaml_node_t *value)
{
	size_t count = 0;

	if (!config_yaml_is_null(value) && value->type != YAML_MAPPING_NODE)
		return config_fail(load, value, "expected a map of action: keys, found %s",
		    config_yaml_kind(value));
	if (value->type == YAML_MAPPING_NODE)
		count = (size_t)(value->data.mapping.pairs.top - value->data.mapping.pairs.start);
	if (count > CONFIG_MAX_BINDINGS)
		return config_fail(load, value, "at most %d actions may be rebound, found %zu",
		    CONFIG_MAX_BINDINGS, count);
	struct config_binding *bindings = config_allocate(count, sizeof *bindings);
	if (bindings == NULL)
		return config_fail(load, value, "out of memory");
	for (size_t done = 0; done < count; done++) {
		yaml_node_pair_t *pair = &value->data.mapping.pairs.start[done];
		yaml_node_t *name = config_yaml_node(&load->yaml, pair->key);
		yaml_node_t *keys = config_yaml_node(&load->yaml, pair->value);
		struct config_binding *binding = &bindings[done];
		bool ok = name != NULL && keys != NULL &&
		    config_copy_string(load, name, "an action name", false, &binding->action);
		for (size_t i = 0; ok && i < done; i++)
			if (strcmp(bindings[i].action, binding->action) == 0)
				ok = config_fail(load, name, "action '%s' is rebound twice (first at line "
				    "%u)", binding->action, bindings[i].line);
		if (ok) {
			binding->line = (unsigned)name->start_mark.line + 1;
			binding->column = (unsigned)name->start_mark.column + 1;
			ok = config_parse_binding_keys(load, keys, binding);
		}
		if (!ok) {
			if (name == NULL || keys == NULL)
				config_fail(load, value, "a map entry has no key or value");
			config_free_bindings(bindings, done + 1);
			return false;
		}
	}
	config_free_bindings(load->config->bindings, load->config->binding_count);
	load->config->bindings = bindings;
	load->config->binding_count = count;
	return true;
}

static void
config_print_keys(const struct config *config, FILE *out)
{
	if (config->binding_count == 0) {
		fprintf(out, "keys: {}\n");
		return;
	}
	fprintf(out, "keys:\n");
	for (size_t i = 0; i < config->binding_count; i++) {
		const struct config_binding *binding = &config->bindings[i];
		fprintf(out, "  ");
		config_print_quoted(out, binding->action);
		fprintf(out, ": [");
		for (size_t j = 0; j < binding->key_count; j++) {
			fprintf(out, "%s", j ? ", " : "");
			config_print_quoted(out, binding->keys[j]);
		}
		fprintf(out, "]\n");
	}
}
