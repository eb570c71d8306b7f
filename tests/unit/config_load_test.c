/* Unit tests of config/: the built-in defaults, every key in its valid and
 * invalid forms with the exact FILE:LINE:COLUMN message, suggestions, path
 * resolution, duplicate keys, YAML syntax errors and hostile input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "tests/unit/tap.h"

static char error[2048];

/* Parses text as "test.yaml" in the folder /base/dir. */
static struct config *
parse(const char *text)
{
	error[0] = '\0';
	return config_parse(text, strlen(text), "test.yaml", "/base/dir", error, sizeof error);
}

/* Text must be refused with exactly the message want. */
#define check_refused(text, want) check_refused_at(__FILE__, __LINE__, (text), (want))
static void
check_refused_at(const char *file, int line, const char *text, const char *want)
{
	struct config *config = parse(text);

	tap_str(config == NULL ? error : "(accepted)", want, file, line, want);
	config_free(config);
}

/* Text must be accepted; returns the config for more checks. */
#define accepted(text) accepted_at(__FILE__, __LINE__, (text))
static struct config *
accepted_at(const char *file, int line, const char *text)
{
	struct config *config = parse(text);
	char shown[61];

	/* One line of TAP per check: newlines in the YAML would break it. */
	snprintf(shown, sizeof shown, "%s", text);
	for (char *at = shown; *at != '\0'; at++)
		if (*at == '\n')
			*at = '|';
	if (!tap_ok(config != NULL, file, line, "accepted: %s", shown))
		tap_diag("error: %s", error);
	return config;
}

static char *
print_to_string(const struct config *config)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	config_print(config, out);
	fclose(out);
	return text;
}

static void
write_file(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	if (out == NULL) {
		perror(path);
		exit(2);
	}
	fputs(text, out);
	fclose(out);
}

static void
test_defaults(void)
{
	struct config *config = config_default();

	ok(config != NULL, "config_default gives a config");
	check_uint(config->root_count, 0);
	ok(config->state == NULL, "no state by default");
	ok(config->source_path == NULL, "defaults come from no file");
	check_uint(config->poll_interval_ms, 5000);
	check_int(config->durability, DURABILITY_GROUP);
	check_str(config->theme, "default");
	check_uint(config->peer_count, 0);
	check_uint(config->ignore_count, 3);
	if (config->ignore_count == 3) {
		check_str(config->ignore[0], "*.swp");
		check_str(config->ignore[1], "*~");
		check_str(config->ignore[2], ".cache/");
	}
	check_uint(config->place_count, 0);
	ok(!config->auto_checkout, "auto_checkout is off by default");
	check_uint(config->max_delete_percent, 50);
	check_str(config->ssh_command, "ssh");
	check_str(config->author, "");
	check_str(config_durability_name(DURABILITY_FULL), "full");
	check_str(config_durability_name(DURABILITY_NONE), "none");

	char *want = print_to_string(config);
	static const char *const empty_texts[] = { "", "# only a comment\n", "---\n", "\n\n", "~\n" };
	for (size_t i = 0; i < sizeof empty_texts / sizeof *empty_texts; i++) {
		struct config *empty = accepted(empty_texts[i]);
		char *got = empty ? print_to_string(empty) : NULL;
		ok(got != NULL && strcmp(got, want) == 0, "empty text %zu means all defaults", i);
		free(got);
		config_free(empty);
	}
	free(want);
	config_free(config);
}

static void
test_keys_table(void)
{
	static const char *const names[] = { "roots", "state", "poll_interval", "durability",
		"theme", "peers", "ignore", "never_merge", "always_merge", "place", "auto_checkout",
		"max_delete", "ssh_command",
		"author", "keys" };
	size_t count = 0;
	const struct config_key_info *keys = config_keys(&count);
	struct config *defaults = config_default();
	char *want = print_to_string(defaults);

	check_uint(count, sizeof names / sizeof *names);
	for (size_t i = 0; i < count && i < sizeof names / sizeof *names; i++) {
		check_str(keys[i].name, names[i]);
		ok(keys[i].type[0] != '\0' && keys[i].description[0] != '\0',
		    "key %s has a type and a description", keys[i].name);
		if (strcmp(keys[i].name, "state") == 0)
			continue;
		/* The documented default must be what the defaults file sets. */
		char text[512];
		snprintf(text, sizeof text, "%s: %s\n", keys[i].name, keys[i].default_text);
		struct config *config = parse(text);
		char *got = config ? print_to_string(config) : NULL;
		ok(got != NULL && strcmp(got, want) == 0, "default text of %s is the default",
		    keys[i].name);
		free(got);
		config_free(config);
	}
	free(want);
	config_free(defaults);
}

static void
test_suggestions(void)
{
	check_str(config_suggest_key("durabilty"), "durability");
	check_str(config_suggest_key("thme"), "theme");
	check_str(config_suggest_key("tehme"), "theme");
	check_str(config_suggest_key("Theme"), "theme");
	check_str(config_suggest_key("poll-interval"), "poll_interval");
	check_str(config_suggest_key("poll"), "poll_interval");
	check_str(config_suggest_key("ssh"), "ssh_command");
	check_str(config_suggest_key("peer"), "peers");
	check_str(config_suggest_key("root"), "roots");
	check_str(config_suggest_key("ignores"), "ignore");
	check_str(config_suggest_key("maxdelete"), "max_delete");
	ok(config_suggest_key("xyzzy") == NULL, "no suggestion for xyzzy");
	ok(config_suggest_key("a") == NULL, "no suggestion for a");
	ok(config_suggest_key("") == NULL, "no suggestion for nothing");
	ok(config_suggest_key(NULL) == NULL, "no suggestion for NULL");

	check_refused("theme: default\n\ndurabilty: full\n",
	    "test.yaml:3:1: unknown key 'durabilty'; did you mean 'durability'?");
	check_refused("  xyzzy: 1\n", "test.yaml:1:3: unknown key 'xyzzy'");
	check_refused("\"the\\0me\": x\n", "test.yaml:1:1: unknown key 'the\\x00me'");
	check_refused("\"\\e[31mred\": x\n", "test.yaml:1:1: unknown key '\\x1b[31mred'");
	check_refused("{a: 1}: 2\n", "test.yaml:1:1: a key must be a string, found a map");
}

static void
test_structure_errors(void)
{
	check_refused("- a\n- b\n",
	    "test.yaml:1:1: the top level must be a map of keys (roots:, state:, ...), found a list");
	check_refused("hello\n",
	    "test.yaml:1:1: the top level must be a map of keys (roots:, state:, ...), found a string");
	check_refused("theme: a\nauthor: me\ntheme: b\n",
	    "test.yaml:3:1: duplicate key 'theme' (first given at line 1)");
	check_refused("theme: a\n---\ntheme: b\n",
	    "test.yaml:3:1: a second YAML document begins here; the file must hold one");
	check_refused("theme: [a\n",
	    "test.yaml:2:1: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 8)");
	check_refused("theme: a: b\n",
	    "test.yaml:1:9: mapping values are not allowed in this context");
	check_refused("theme: a\n\tauthor: b\n",
	    "test.yaml:2:1: found a tab character that violates indentation (while scanning a plain scalar at line 1, column 8)");
	check_refused("author: \"caf\xff\"\n", "test.yaml:1:13: invalid leading UTF-8 octet (0xFF)");
	check_refused("author: *nowhere\n", "test.yaml:1:9: found undefined alias");
	check_refused("author: \"unfinished\n",
	    "test.yaml:2:1: found unexpected end of stream (while scanning a quoted scalar at line 1, column 9)");
	ok(config_parse("theme: a\0b\n", 12, "test.yaml", "/", error, sizeof error) == NULL,
	    "a NUL byte in the text is refused");
	check_str(error, "test.yaml:1:9: control characters are not allowed (0x0)");

	/* Hostile shapes: a cycle through an alias, deep nesting, odd keys. */
	check_refused("roots: &loop [*loop]\n",
	    "test.yaml:1:8: expected a {name, path} map, found a list");
	char *deep = malloc(100000 + 16);
	strcpy(deep, "roots: ");
	memset(deep + 7, '[', 100000);
	strcpy(deep + 7 + 100000, "\n");
	struct config *config = parse(deep);
	ok(config == NULL, "deep nesting is refused");
	check_str(error, "test.yaml:1:39: nested deeper than 32 levels");
	config_free(config);
	memset(deep + 7, '{', 100000);
	config = parse(deep);
	ok(config == NULL, "deep nesting of maps is refused");
	check_str(error, "test.yaml:1:39: nested deeper than 32 levels");
	config_free(config);
	free(deep);

	struct config *shared = accepted("author: &who me\nssh_command: *who\n");
	if (shared != NULL) {
		check_str(shared->author, "me");
		check_str(shared->ssh_command, "me");
	}
	config_free(shared);

	ok(config_parse("x: [", 4, "t", "/", NULL, 0) == NULL, "a NULL error buffer is allowed");
	ok(config_parse("x: [", 4, NULL, NULL, error, 1) == NULL && error[0] == '\0',
	    "a one-byte error buffer stays a string");
}

static void
test_roots(void)
{
	setenv("HOME", "/home/tester", 1);
	struct config *config = accepted(
	    "roots:\n"
	    "  - name: ssd\n"
	    "    path: ssd\n"
	    "  - name: hdd_2\n"
	    "    path: ../big/./hdd/\n"
	    "  - {name: home-dir, path: ~/h}\n"
	    "  - name: abs\n"
	    "    path: //abs//p/.././q/\n");
	if (config != NULL && config->root_count == 4) {
		check_str(config->roots[0].name, "ssd");
		check_str(config->roots[0].path, "/base/dir/ssd");
		check_str(config->roots[1].name, "hdd_2");
		check_str(config->roots[1].path, "/base/big/hdd");
		check_str(config->roots[2].path, "/home/tester/h");
		check_str(config->roots[3].path, "/abs/q");
	} else {
		ok(false, "four roots");
	}
	config_free(config);

	config = accepted("roots:\n  - name: top\n    path: ~\n");
	if (config != NULL && config->root_count == 1)
		check_str(config->roots[0].path, "/home/tester");
	config_free(config);
	config = accepted("roots:\n  - name: all\n    path: /../..\n");
	if (config != NULL && config->root_count == 1)
		check_str(config->roots[0].path, "/");
	config_free(config);
	config = accepted("roots:\n");
	ok(config != NULL && config->root_count == 0, "an empty roots: means no roots");
	config_free(config);

	check_refused("roots: ssd\n", "test.yaml:1:8: expected a list of {name, path} maps, found a string");
	check_refused("roots: {name: a}\n", "test.yaml:1:8: expected a list of {name, path} maps, found a map");
	check_refused("roots:\n  - ssd\n", "test.yaml:2:5: expected a {name, path} map, found a string");
	check_refused("roots:\n  - name: ssd\n", "test.yaml:2:5: a root needs a 'path'");
	check_refused("roots:\n  - path: /x\n", "test.yaml:2:5: a root needs a 'name'");
	check_refused("roots:\n  - name: ssd\n    nmae: x\n",
	    "test.yaml:3:5: unknown key 'nmae' in a root; did you mean 'name'?");
	check_refused("roots:\n  - name: ssd\n    colour: red\n",
	    "test.yaml:3:5: unknown key 'colour' in a root (expected name, path)");
	check_refused("roots:\n  - name: ssd\n    name: x\n",
	    "test.yaml:3:5: duplicate key 'name' in a root (first given at line 2)");
	check_refused("roots:\n  - name: my ssd\n    path: /x\n",
	    "test.yaml:2:11: root name 'my ssd' must be 1 to 64 letters, digits, '-' or '_'");
	check_refused("roots:\n  - name: ''\n    path: /x\n",
	    "test.yaml:2:11: root name '' must be 1 to 64 letters, digits, '-' or '_'");
	check_refused("roots:\n  - name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n    path: /x\n",
	    "test.yaml:2:11: root name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' must be 1 to 64 letters, digits, '-' or '_'");
	check_refused("roots:\n  - name: [a]\n    path: /x\n",
	    "test.yaml:2:11: expected a name, found a list");
	check_refused("roots:\n  - name: a\n    path: /x\n  - name: a\n    path: /y\n",
	    "test.yaml:4:11: duplicate root name 'a'");
	check_refused("roots:\n  - name: a\n    path: /x\n  - name: b\n    path: /y/../x/\n",
	    "test.yaml:5:11: root 'b' has the same path as root 'a' (/x)");
	check_refused("roots:\n  - name: a\n    path: /x\n  - name: b\n    path: /x/y\n",
	    "test.yaml:5:11: root 'b' (/x/y) lies inside root 'a' (/x)");
	check_refused("roots:\n  - name: a\n    path: /x/y\n  - name: b\n    path: /x\n",
	    "test.yaml:5:11: root 'b' (/x) contains root 'a' (/x/y)");
	check_refused("roots:\n  - name: a\n    path: /\n  - name: b\n    path: /x\n",
	    "test.yaml:5:11: root 'b' (/x) lies inside root 'a' (/)");
	config = accepted("roots:\n  - name: a\n    path: /x\n  - name: b\n    path: /xy\n");
	ok(config != NULL, "a root whose path only begins like another's is not inside it");
	config_free(config);
	check_refused("roots:\n  - name: a\n    path: \"\"\n", "test.yaml:3:11: root path is empty");
	check_refused("roots:\n  - name: a\n    path:\n", "test.yaml:3:10: expected a path, found an empty value");
	check_refused("roots:\n  - name: a\n    path: ~bob/x\n",
	    "test.yaml:3:11: root path '~bob/x' starts with '~USER'; only '~' and '~/' are expanded");
	unsetenv("HOME");
	check_refused("roots:\n  - name: a\n    path: ~/x\n",
	    "test.yaml:3:11: root path '~/x' starts with '~' but HOME is not set");
	setenv("HOME", "relative", 1);
	check_refused("roots:\n  - name: a\n    path: ~/x\n",
	    "test.yaml:3:11: root path '~/x' starts with '~' but HOME is not an absolute path");
	setenv("HOME", "/home/tester", 1);

	char *many = malloc(65 * 40 + 16);
	strcpy(many, "roots:\n");
	for (int i = 0; i < 65; i++)
		sprintf(many + strlen(many), "  - {name: r%d, path: /r%d}\n", i, i);
	check_refused(many, "test.yaml:2:3: at most 64 roots are allowed, found 65");
	free(many);
}

static void
test_state(void)
{
	struct config *config = accepted("state: .hearth/\n");
	if (config != NULL)
		check_str(config->state, "/base/dir/.hearth");
	config_free(config);
	config = accepted("state: ~/.local/state/hearth\n");
	if (config != NULL)
		check_str(config->state, "/home/tester/.local/state/hearth");
	config_free(config);
	config = accepted("state: ~\n");
	if (config != NULL)
		check_str(config->state, "/home/tester");
	config_free(config);
	config = accepted("state: null\n");
	ok(config != NULL && config->state == NULL, "state: null leaves it unset");
	config_free(config);
	config = accepted("state:\n");
	ok(config != NULL && config->state == NULL, "an empty state: leaves it unset");
	config_free(config);
	check_refused("state: [a]\n", "test.yaml:1:8: expected a path, found a list");
	check_refused("state: ''\n", "test.yaml:1:8: state path is empty");
}

static void
check_duration(const char *value, uint32_t want)
{
	char text[128];
	snprintf(text, sizeof text, "poll_interval: %s\n", value);
	struct config *config = parse(text);
	ok(config != NULL && config->poll_interval_ms == want, "poll_interval %s is %u ms", value,
	    want);
	config_free(config);
}

static void
test_poll_interval(void)
{
	check_duration("5s", 5000);
	check_duration("500ms", 500);
	check_duration("2m", 120000);
	check_duration("1h", 3600000);
	check_duration("7", 7000);
	check_duration("\"10s\"", 10000);
	check_duration("3600s", 3600000);
	check_refused("poll_interval: 499ms\n",
	    "test.yaml:1:16: poll_interval must be between 500ms and 1h, found '499ms'");
	check_refused("poll_interval: 0\n",
	    "test.yaml:1:16: poll_interval must be between 500ms and 1h, found '0'");
	check_refused("poll_interval: 61m\n",
	    "test.yaml:1:16: poll_interval must be between 500ms and 1h, found '61m'");
	check_refused("poll_interval: 99999999999999999999999h\n",
	    "test.yaml:1:16: poll_interval must be between 500ms and 1h, found '99999999999999999999999h'");
	check_refused("poll_interval: 5 s\n",
	    "test.yaml:1:16: expected a duration such as 5s, 500ms, 2m or 1h, found '5 s'");
	check_refused("poll_interval: 1.5s\n",
	    "test.yaml:1:16: expected a duration such as 5s, 500ms, 2m or 1h, found '1.5s'");
	check_refused("poll_interval: -5s\n",
	    "test.yaml:1:16: expected a duration such as 5s, 500ms, 2m or 1h, found '-5s'");
	check_refused("poll_interval: 5d\n",
	    "test.yaml:1:16: expected a duration such as 5s, 500ms, 2m or 1h, found '5d'");
	check_refused("poll_interval:\n",
	    "test.yaml:1:15: expected a duration such as 5s, 500ms, 2m or 1h, found an empty value");
	check_refused("poll_interval: {}\n",
	    "test.yaml:1:16: expected a duration such as 5s, 500ms, 2m or 1h, found a map");
}

static void
test_durability(void)
{
	static const char *const names[] = { "full", "group", "none" };
	for (int i = 0; i < 3; i++) {
		char text[64];
		snprintf(text, sizeof text, "durability: %s\n", names[i]);
		struct config *config = parse(text);
		ok(config != NULL && (int)config->durability == i, "durability %s", names[i]);
		config_free(config);
	}
	check_refused("durability: fast\n", "test.yaml:1:13: expected full, group or none, found 'fast'");
	check_refused("durability: grop\n",
	    "test.yaml:1:13: expected full, group or none, found 'grop'; did you mean 'group'?");
	check_refused("durability: FULL\n",
	    "test.yaml:1:13: expected full, group or none, found 'FULL'; did you mean 'full'?");
	check_refused("durability: [full]\n", "test.yaml:1:13: expected full, group or none, found a list");
	check_refused("durability: 3\n", "test.yaml:1:13: expected full, group or none, found '3'");
	check_refused("durability: \"\\e[2J\"\n",
	    "test.yaml:1:13: expected full, group or none, found '\\x1b[2J'");
}

static void
test_theme(void)
{
	struct config *config = accepted("theme: light\n");
	if (config != NULL)
		check_str(config->theme, "light");
	config_free(config);
	config = accepted("theme: themes/mine.yaml\n");
	if (config != NULL)
		check_str(config->theme, "/base/dir/themes/mine.yaml");
	config_free(config);
	config = accepted("theme: mine.yaml\n");
	if (config != NULL)
		check_str(config->theme, "/base/dir/mine.yaml");
	config_free(config);
	config = accepted("theme: ~/t/dark.yaml\n");
	if (config != NULL)
		check_str(config->theme, "/home/tester/t/dark.yaml");
	config_free(config);
	check_refused("theme: \"\"\n", "test.yaml:1:8: expected a theme name or path, found an empty string");
	check_refused("theme:\n", "test.yaml:1:7: expected a theme name or path, found an empty value");
	check_refused("theme: [dark]\n", "test.yaml:1:8: expected a theme name or path, found a list");
	check_refused("theme: \"a\\0b\"\n",
	    "test.yaml:1:8: expected a theme name or path, found a string holding a NUL character");
}

static void
test_peers(void)
{
	struct config *config = accepted(
	    "peers:\n"
	    "  - name: laptop\n"
	    "    url: ssh://me@laptop:2222/home/me/.hearth\n"
	    "  - name: usb\n"
	    "    url: ../backup\n"
	    "  - name: home\n"
	    "    url: ~/other\n");
	if (config != NULL && config->peer_count == 3) {
		check_str(config->peers[0].name, "laptop");
		check_str(config->peers[0].url, "ssh://me@laptop:2222/home/me/.hearth");
		check_str(config->peers[1].url, "/base/backup");
		check_str(config->peers[2].url, "/home/tester/other");
	} else {
		ok(false, "three peers");
	}
	config_free(config);
	check_refused("peers: laptop\n", "test.yaml:1:8: expected a list of {name, url} maps, found a string");
	check_refused("peers:\n  - name: a\n    url: /x\n  - name: a\n    url: /y\n",
	    "test.yaml:4:11: duplicate peer name 'a'");
	check_refused("peers:\n  - name: a\n    url: \"\"\n", "test.yaml:3:10: peer url is empty");
	check_refused("peers:\n  - name: a\n    uri: /x\n",
	    "test.yaml:3:5: unknown key 'uri' in a peer; did you mean 'url'?");
	check_refused("peers:\n  - name: a\n", "test.yaml:2:5: a peer needs a 'url'");
	check_refused("peers:\n  - name: a/b\n    url: /x\n",
	    "test.yaml:2:11: peer name 'a/b' must be 1 to 64 letters, digits, '-' or '_'");
}

static void
test_ignore(void)
{
	struct config *config = accepted("ignore:\n  - \"*.o\"\n  - build/\n");
	if (config != NULL && config->ignore_count == 2) {
		check_str(config->ignore[0], "*.o");
		check_str(config->ignore[1], "build/");
	} else {
		ok(false, "two ignore patterns");
	}
	config_free(config);
	config = accepted("ignore: []\n");
	ok(config != NULL && config->ignore_count == 0, "ignore: [] clears the default patterns");
	config_free(config);
	config = accepted("ignore:\n");
	ok(config != NULL && config->ignore_count == 0, "an empty ignore: clears them too");
	config_free(config);
	check_refused("ignore: \"*.o\"\n", "test.yaml:1:9: expected a list of patterns, found a string");
	check_refused("ignore:\n  - a\n  - \"\"\n", "test.yaml:3:5: expected a pattern, found an empty string");
	check_refused("ignore:\n  - a\n  -\n", "test.yaml:3:4: expected a pattern, found an empty value");
	check_refused("ignore: [a, [b]]\n", "test.yaml:1:13: expected a pattern, found a list");
}

static void
test_place(void)
{
	static const char roots[] =
	    "roots:\n"
	    "  - name: ssd\n"
	    "    path: /ssd\n"
	    "  - name: hdd\n"
	    "    path: /hdd\n";
	char text[1024];

	snprintf(text, sizeof text, "%splace:\n  - pattern: \"Videos/**\"\n    root: hdd\n", roots);
	struct config *config = accepted(text);
	if (config != NULL && config->place_count == 1) {
		check_str(config->place[0].pattern, "Videos/**");
		check_str(config->place[0].root, "hdd");
	} else {
		ok(false, "one place rule");
	}
	config_free(config);

	snprintf(text, sizeof text, "%splace:\n  - pattern: a\n    root: ssd\n  - pattern: b\n    root: hd\n",
	    roots);
	check_refused(text, "test.yaml:10:11: no root is named 'hd'; did you mean 'hdd'?");
	snprintf(text, sizeof text, "place:\n  - pattern: a\n    root: music\n%s", roots);
	check_refused(text, "test.yaml:3:11: no root is named 'music'");
	config = accepted("place:\n  - pattern: a\n    root: anywhere\n");
	ok(config != NULL, "without roots, place rules are not checked against them");
	config_free(config);
	check_refused("place:\n  - patern: a\n    root: ssd\n",
	    "test.yaml:2:5: unknown key 'patern' in a place rule; did you mean 'pattern'?");
	check_refused("place:\n  - pattern: \"\"\n    root: ssd\n",
	    "test.yaml:2:14: expected a pattern, found an empty string");
	check_refused("place:\n  - pattern: a\n", "test.yaml:2:5: a place rule needs a 'root'");
	check_refused("place: [a]\n", "test.yaml:1:9: expected a {pattern, root} map, found a string");
}

static void
test_auto_checkout_and_max_delete(void)
{
	struct config *config = accepted("auto_checkout: true\nmax_delete: 10%\n");
	ok(config != NULL && config->auto_checkout && config->max_delete_percent == 10,
	    "auto_checkout true, max_delete 10%%");
	config_free(config);
	config = accepted("auto_checkout: False\nmax_delete: 100\n");
	ok(config != NULL && !config->auto_checkout && config->max_delete_percent == 100,
	    "auto_checkout False, max_delete 100");
	config_free(config);
	config = accepted("max_delete: \"0%\"\n");
	ok(config != NULL && config->max_delete_percent == 0, "max_delete 0%%");
	config_free(config);
	check_refused("auto_checkout: yes\n", "test.yaml:1:16: expected true or false, found 'yes'");
	check_refused("auto_checkout: 1\n", "test.yaml:1:16: expected true or false, found '1'");
	check_refused("auto_checkout: \"true\"\n",
	    "test.yaml:1:16: expected true or false without quotes, found 'true' in quotes");
	check_refused("auto_checkout:\n", "test.yaml:1:15: expected true or false, found an empty value");
	check_refused("max_delete: 101%\n", "test.yaml:1:13: max_delete must be between 0% and 100%, found '101%'");
	check_refused("max_delete: 50 %\n", "test.yaml:1:13: expected a percentage such as 50%, found '50 %'");
	check_refused("max_delete: -1\n", "test.yaml:1:13: expected a percentage such as 50%, found '-1'");
	check_refused("max_delete: half\n", "test.yaml:1:13: expected a percentage such as 50%, found 'half'");
	check_refused("max_delete: 50%%\n", "test.yaml:1:13: expected a percentage such as 50%, found '50%%'");
}

static void
test_ssh_command_and_author(void)
{
	struct config *config = accepted("ssh_command: ssh -p 2222\nauthor: Ann <ann@example.org>\n");
	if (config != NULL) {
		check_str(config->ssh_command, "ssh -p 2222");
		check_str(config->author, "Ann <ann@example.org>");
	}
	config_free(config);
	config = accepted("author:\n");
	if (config != NULL)
		check_str(config->author, "");
	config_free(config);
	config = accepted("author: 42\n");
	if (config != NULL)
		check_str(config->author, "42");
	config_free(config);
	check_refused("ssh_command: \"\"\n", "test.yaml:1:14: expected a command, found an empty string");
	check_refused("ssh_command:\n", "test.yaml:1:13: expected a command, found an empty value");
	check_refused("author: [a]\n", "test.yaml:1:9: expected a name, found a list");
}

static void
test_round_trip(void)
{
	static const char text[] =
	    "roots:\n"
	    "  - name: ssd\n"
	    "    path: \"/data/caf\\u00e9 \\\"quoted\\\" \\\\ back\"\n"
	    "  - name: hdd\n"
	    "    path: \"/mnt/tab\\there/line\\nbreak/#hash: colon\"\n"
	    "state: \"/state/\\u2028sep\\x01ctl\\x85nel\\u0080c1\"\n"
	    "poll_interval: 90s\n"
	    "durability: none\n"
	    "theme: ' leading space'\n"
	    "peers:\n"
	    "  - name: laptop\n"
	    "    url: \"ssh://me@laptop/~/x\"\n"
	    "ignore: ['*.o', \"null\", \"~\", \"true\", \"- dash\", \"\\U0001F600\"]\n"
	    "place:\n"
	    "  - pattern: \"Videos/**\"\n"
	    "    root: hdd\n"
	    "auto_checkout: true\n"
	    "max_delete: 7%\n"
	    "ssh_command: \"ssh -o 'A=b'\"\n"
	    "author: \"\\uFEFFbom \\u2029 para\"\n";
	struct config *first = accepted(text);
	if (first == NULL)
		return;
	char *printed = print_to_string(first);
	struct config *second = parse(printed);
	ok(second != NULL, "config_print output parses back");
	if (second == NULL) {
		tap_diag("error: %s", error);
		tap_diag("printed:\n%s", printed);
		free(printed);
		config_free(first);
		return;
	}
	char *again = print_to_string(second);
	check_str(again, printed);
	check_str(second->roots[0].path, "/data/caf\xc3\xa9 \"quoted\" \\ back");
	check_str(second->roots[1].path, "/mnt/tab\there/line\nbreak/#hash: colon");
	check_str(second->state, "/state/\xe2\x80\xa8sep\x01""ctl\xc2\x85nel\xc2\x80""c1");
	check_uint(second->poll_interval_ms, 90000);
	check_int(second->durability, DURABILITY_NONE);
	check_str(second->theme, " leading space");
	check_str(second->peers[0].url, "ssh://me@laptop/~/x");
	check_uint(second->ignore_count, 6);
	check_str(second->ignore[1], "null");
	check_str(second->ignore[2], "~");
	check_str(second->ignore[5], "\xf0\x9f\x98\x80");
	check_str(second->place[0].root, "hdd");
	ok(second->auto_checkout, "auto_checkout survives");
	check_uint(second->max_delete_percent, 7);
	check_str(second->ssh_command, "ssh -o 'A=b'");
	check_str(second->author, "\xef\xbb\xbf""bom \xe2\x80\xa9 para");
	free(again);
	free(printed);
	config_free(second);
	config_free(first);

	struct config *defaults = config_default();
	printed = print_to_string(defaults);
	second = parse(printed);
	again = second ? print_to_string(second) : NULL;
	ok(again != NULL && strcmp(again, printed) == 0, "the defaults round-trip");
	free(again);
	free(printed);
	config_free(second);
	config_free(defaults);

	static const uint32_t intervals[] = { 500, 1500, 60000, 3600000, 7200 };
	for (size_t i = 0; i < sizeof intervals / sizeof *intervals; i++) {
		defaults = config_default();
		defaults->poll_interval_ms = intervals[i];
		printed = print_to_string(defaults);
		second = parse(printed);
		ok(second != NULL && second->poll_interval_ms == intervals[i],
		    "poll_interval %u ms round-trips", intervals[i]);
		free(printed);
		config_free(second);
		config_free(defaults);
	}
}

static void
test_files(void)
{
	char folder[4096], path[4200], text[8192];
	const char *scratch = tap_scratch_dir();

	snprintf(folder, sizeof folder, "%s/conf", scratch);
	mkdir(folder, 0755);
	snprintf(path, sizeof path, "%s/hearth.yaml", folder);
	write_file(path, "roots:\n  - name: main\n    path: ../home\nstate: state\n");
	struct config *config = config_load(path, error, sizeof error);
	ok(config != NULL, "config_load reads a file");
	if (config != NULL) {
		snprintf(text, sizeof text, "%s/home", scratch);
		check_str(config->roots[0].path, text);
		snprintf(text, sizeof text, "%s/state", folder);
		check_str(config->state, text);
		check_str(config->source_path, path);
	}
	config_free(config);

	write_file(path, "theme: a\nthme: b\n");
	config = config_load(path, error, sizeof error);
	snprintf(text, sizeof text, "%s:2:1: unknown key 'thme'; did you mean 'theme'?", path);
	ok(config == NULL, "a bad file is refused");
	check_str(error, text);

	/* A relative config path is resolved against the current folder. */
	char *previous = getcwd(NULL, 0);
	if (chdir(scratch) == 0) {
		write_file("conf/relative.yaml", "state: s\nroots: [{name: r, path: .}]\n");
		config = config_load("conf/relative.yaml", error, sizeof error);
		ok(config != NULL, "a relative config path loads");
		if (config != NULL) {
			snprintf(text, sizeof text, "%s/s", folder);
			check_str(config->state, text);
			check_str(config->roots[0].path, folder);
			snprintf(text, sizeof text, "%s/conf/relative.yaml", scratch);
			check_str(config->source_path, text);
		}
		config_free(config);
		write_file("conf/bad.yaml", "durability: sometimes\n");
		config = config_load("conf/bad.yaml", error, sizeof error);
		ok(config == NULL, "a bad relative file is refused");
		check_str(error, "conf/bad.yaml:1:13: expected full, group or none, found 'sometimes'");
		if (chdir(previous) != 0)
			perror("chdir");
	}
	free(previous);

	write_file(path, "");
	config = config_load(path, error, sizeof error);
	ok(config != NULL && config->poll_interval_ms == 5000, "an empty file means all defaults");
	config_free(config);

	snprintf(path, sizeof path, "%s/missing.yaml", folder);
	ok(config_load(path, error, sizeof error) == NULL, "a missing file is refused");
	snprintf(text, sizeof text, "%s: cannot open: No such file or directory", path);
	check_str(error, text);
	ok(config_load(folder, error, sizeof error) == NULL, "a folder is refused");
	snprintf(text, sizeof text, "%s: a folder, not a regular file", folder);
	check_str(error, text);
	/* A FIFO no one writes: opened without blocking, then refused. */
	snprintf(path, sizeof path, "%s/fifo.yaml", folder);
	tap_hang_bound(300, "loading a FIFO as the config");
	ok(mkfifo(path, 0600) == 0 && config_load(path, error, sizeof error) == NULL,
	    "a FIFO is refused, at once");
	tap_hang_bound(0, NULL);
	snprintf(text, sizeof text, "%s: a FIFO, not a regular file", path);
	check_str(error, text);
	ok(config_load("", error, sizeof error) == NULL, "an empty path is refused");
	ok(config_load(NULL, error, sizeof error) == NULL, "a NULL path is refused");

	snprintf(path, sizeof path, "%s/huge.yaml", folder);
	FILE *out = fopen(path, "w");
	for (int i = 0; i < 70000; i++)
		fputs("# padding padding\n", out);
	fclose(out);
	ok(config_load(path, error, sizeof error) == NULL && strstr(error, "too large") != NULL,
	    "a file over 1 MiB is refused: %s", error);
}

static void
test_write_single_root(void)
{
	char folder[4096], path[4200], top[4200], state[4200];
	const char *scratch = tap_scratch_dir();

	snprintf(folder, sizeof folder, "%s/single", scratch);
	mkdir(folder, 0755);
	snprintf(path, sizeof path, "%s/hearth.yaml", folder);
	snprintf(top, sizeof top, "%s/my \"home\"/", scratch);
	snprintf(state, sizeof state, "%s/my \"home\"/.hearth", scratch);
	int result = config_write_single_root(path, top, state, NULL, error, sizeof error);
	check_int(result, 0);
	struct config *config = config_load(path, error, sizeof error);
	ok(config != NULL, "the written config loads");
	if (config != NULL && config->root_count == 1) {
		check_str(config->roots[0].name, "main");
		top[strlen(top) - 1] = '\0';
		check_str(config->roots[0].path, top);
		check_str(config->state, state);
	} else {
		ok(false, "one root");
	}
	config_free(config);

	/* Written again over the old one, with paths relative to the config's
	 * folder, which is how they are read back (so a Home can move). */
	check_int(config_write_single_root(path, "..", ".", NULL, error, sizeof error), 0);
	config = config_load(path, error, sizeof error);
	ok(config != NULL && strcmp(config->roots[0].path, scratch) == 0 &&
	    strcmp(config->state, folder) == 0, "relative paths are taken from the config's folder");
	config_free(config);

	FILE *in = fopen(path, "r");
	char line[256];
	ok(in != NULL && fgets(line, sizeof line, in) != NULL && line[0] == '#',
	    "the written config opens with a comment");
	if (in != NULL)
		fclose(in);

	snprintf(path, sizeof path, "%s/no-such-folder/hearth.yaml", scratch);
	check_int(config_write_single_root(path, "/h", "/h/.hearth", NULL, error, sizeof error), -1);
	char want[4400];
	snprintf(want, sizeof want, "%s: cannot write: No such file or directory", path);
	check_str(error, want);
	check_int(config_write_single_root(path, "/h\xff", "/s", NULL, error, sizeof error), -1);
	check_int(config_write_single_root(path, "", "/s", NULL, error, sizeof error), -1);
}

int
main(void)
{
	setenv("HOME", "/home/tester", 1);
	test_defaults();
	test_keys_table();
	test_suggestions();
	test_structure_errors();
	test_roots();
	test_state();
	test_poll_interval();
	test_durability();
	test_theme();
	test_peers();
	test_ignore();
	test_place();
	test_auto_checkout_and_max_delete();
	test_ssh_command_and_author();
	test_round_trip();
	test_files();
	test_write_single_root();
	return tap_done();
}
