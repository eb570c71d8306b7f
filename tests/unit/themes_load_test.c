/* Unit tests of themes/: every bundled theme loads and defines every role
 * readably in 256, 8 and no colours; the 8-colour fallback; inheritance
 * from the default theme; errors with FILE:LINE:COLUMN; lookup by name (source
 * tree, beside the executable, built in) and by path. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "themes/theme.h"
#include "tests/unit/tap.h"

static char error[8192];
static char source_dir[PATH_MAX];

static const char *const bundled[] = { "default", "light", "high-contrast" };

static struct theme *
parse(const char *text)
{
	error[0] = '\0';
	return theme_parse(text, strlen(text), "t.yaml", error, sizeof error);
}

#define check_refused(text, want) check_refused_at(__FILE__, __LINE__, (text), (want))
static void
check_refused_at(const char *file, int line, const char *text, const char *want)
{
	struct theme *theme = parse(text);

	tap_str(theme == NULL ? error : "(accepted)", want, file, line, want);
	theme_free(theme);
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

/* The source tree: $HEARTH_SOURCE_DIR as make check sets it, else here. */
static void
find_source_dir(void)
{
	const char *source = getenv("HEARTH_SOURCE_DIR");

	if (source == NULL || source[0] == '\0')
		source = ".";
	if (realpath(source, source_dir) == NULL)
		snprintf(source_dir, sizeof source_dir, "%s", source);
	char probe[PATH_MAX + 32];
	snprintf(probe, sizeof probe, "%s/themes/default.yaml", source_dir);
	if (access(probe, R_OK) != 0) {
		printf("Bail out! no %s: run from the source tree or set HEARTH_SOURCE_DIR\n", probe);
		exit(1);
	}
}

/* Readable in every mode: text and background never share a colour, and
 * the roles that must stand out without colour do. */
static void
check_readable(const struct theme *theme)
{
	for (int role = 0; role < THEME_ROLE_COUNT; role++) {
		const struct theme_style *style = &theme->styles[role];
		const char *name = theme_role_name((enum theme_role)role);
		ok(theme->role_given[role], "%s defines %s", theme->name, name);
		ok(style->foreground >= -1 && style->foreground <= 255 && style->background >= -1 &&
		    style->background <= 255, "%s: %s colours are in range", theme->name, name);
		ok(style->foreground8 >= -1 && style->foreground8 <= 7 && style->background8 >= -1 &&
		    style->background8 <= 7, "%s: %s 8-colour fallback is basic", theme->name, name);
		ok(style->foreground == -1 || style->foreground != style->background,
		    "%s: %s text differs from its background", theme->name, name);
		ok(style->foreground8 == -1 || style->foreground8 != style->background8,
		    "%s: %s text differs from its background in 8 colours", theme->name, name);
	}
	ok(theme->styles[THEME_SELECTED].mono_attributes & THEME_REVERSE,
	    "%s: the cursor line is reversed without colour", theme->name);
	ok(theme->styles[THEME_PROGRESS].mono_attributes & THEME_REVERSE,
	    "%s: a progress bar shows without colour", theme->name);
	ok(theme->styles[THEME_CONFLICT].mono_attributes != 0 &&
	    theme->styles[THEME_TAB_ACTIVE].mono_attributes != 0 &&
	    theme->styles[THEME_TITLE].mono_attributes != 0 &&
	    theme->styles[THEME_STATUS_LINE].mono_attributes != 0 &&
	    theme->styles[THEME_ERROR].mono_attributes != 0,
	    "%s: conflicts, tabs, titles, status and errors stand out without colour", theme->name);
	ok(theme->styles[THEME_TAB_ACTIVE].mono_attributes !=
	    theme->styles[THEME_TITLE].mono_attributes,
	    "%s: the active tab differs from the tab bar without colour", theme->name);
}

static void
test_builtin(void)
{
	struct theme *theme = theme_builtin();

	ok(theme != NULL, "the built-in theme loads");
	check_str(theme->name, "default");
	check_readable(theme);
	check_int(theme->styles[THEME_SELECTED].foreground, 0);
	check_int(theme->styles[THEME_SELECTED].background, 6);
	check_uint(theme->styles[THEME_SELECTED].mono_attributes, THEME_REVERSE);
	check_int(theme->styles[THEME_STATUS_LINE].foreground8, 7);
	check_int(theme->styles[THEME_STATUS_LINE].background8, 4);
	check_int(theme->styles[THEME_NORMAL].foreground, -1);

	/* The compiled-in copy is the file. */
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/themes/default.yaml", source_dir);
	struct theme *file = theme_load(path, error, sizeof error);
	ok(file != NULL && memcmp(file->styles, theme->styles, sizeof theme->styles) == 0,
	    "the built-in theme is themes/default.yaml");
	theme_free(file);
	theme_free(theme);
}

static void
test_bundled(void)
{
	char path[PATH_MAX + 64];

	setenv("HEARTH_SOURCE_DIR", source_dir, 1);
	for (size_t i = 0; i < sizeof bundled / sizeof *bundled; i++) {
		snprintf(path, sizeof path, "%s/themes/%s.yaml", source_dir, bundled[i]);
		struct theme *by_path = theme_load(path, error, sizeof error);
		if (!ok(by_path != NULL, "%s loads by path", bundled[i])) {
			tap_diag("%s", error);
			continue;
		}
		check_str(by_path->name, bundled[i]);
		check_readable(by_path);
		struct theme *by_name = theme_load(bundled[i], error, sizeof error);
		ok(by_name != NULL && strcmp(by_name->name, bundled[i]) == 0 &&
		    memcmp(by_name->styles, by_path->styles, sizeof by_path->styles) == 0,
		    "%s loads by name from the source tree", bundled[i]);
		theme_free(by_name);
		theme_free(by_path);
	}
}

static short
fallback_of(const char *colour)
{
	char text[128];

	snprintf(text, sizeof text, "roles:\n  normal: {fg: %s}\n", colour);
	struct theme *theme = parse(text);
	short fallback = theme ? theme->styles[THEME_NORMAL].foreground8 : -99;
	theme_free(theme);
	return fallback;
}

static void
test_fallbacks(void)
{
	check_int(fallback_of("default"), -1);
	check_int(fallback_of("red"), 1);
	check_int(fallback_of("bright-red"), 1);
	check_int(fallback_of("15"), 7);
	check_int(fallback_of("196"), 1);
	check_int(fallback_of("46"), 2);
	check_int(fallback_of("226"), 3);
	check_int(fallback_of("21"), 4);
	check_int(fallback_of("201"), 5);
	check_int(fallback_of("51"), 6);
	check_int(fallback_of("232"), 0);
	check_int(fallback_of("255"), 7);
	check_int(fallback_of("\"208\""), 3);

	struct theme *theme = parse("roles:\n  normal: {fg: 196, fg8: blue, bg: 21, bg8: 0}\n");
	ok(theme != NULL && theme->styles[THEME_NORMAL].foreground8 == 4 &&
	    theme->styles[THEME_NORMAL].background8 == 0, "fg8 and bg8 given win");
	theme_free(theme);
	theme = parse("roles:\n  normal: {fg: 236, bg: 234}\n  dim: {fg: 250, bg: 255}\n"
	    "  id: {fg: 236, bg: 234, fg8: black}\n");
	ok(theme != NULL && theme->styles[THEME_NORMAL].foreground8 == 7 &&
	    theme->styles[THEME_NORMAL].background8 == 0,
	    "dark grey on black stays readable in 8 colours (white on black)");
	ok(theme != NULL && theme->styles[THEME_DIM].foreground8 == 0 &&
	    theme->styles[THEME_DIM].background8 == 7,
	    "light grey on white stays readable in 8 colours (black on white)");
	ok(theme != NULL && theme->styles[THEME_ID].foreground8 == 0,
	    "a given fg8 is kept even when it matches the background");
	theme_free(theme);
}

static void
test_inheritance(void)
{
	struct theme *builtin = theme_builtin();
	struct theme *theme = parse("roles:\n  selected: {fg: white, bg: red}\n  added:\n"
	    "  deleted: {fg: red, attrs: bold, mono: []}\n");

	ok(theme != NULL, "a partial theme loads");
	if (theme == NULL) {
		tap_diag("%s", error);
		theme_free(builtin);
		return;
	}
	check_str(theme->name, "t");
	for (int role = 0; role < THEME_ROLE_COUNT; role++) {
		bool given = role == THEME_SELECTED || role == THEME_ADDED || role == THEME_DELETED;
		ok(theme->role_given[role] == given, "%s is %s", theme_role_name((enum theme_role)role),
		    given ? "given" : "inherited");
		if (!given)
			ok(memcmp(&theme->styles[role], &builtin->styles[role], sizeof *theme->styles) == 0,
			    "%s equals the default theme's", theme_role_name((enum theme_role)role));
	}
	const struct theme_style *selected = &theme->styles[THEME_SELECTED];
	ok(selected->foreground == 7 && selected->background == 1 && selected->attributes == 0,
	    "a given role takes only what it says");
	check_uint(selected->mono_attributes, THEME_REVERSE);
	const struct theme_style *added = &theme->styles[THEME_ADDED];
	ok(added->foreground == -1 && added->background == -1 && added->foreground8 == -1,
	    "an empty role means the terminal's colours");
	check_uint(theme->styles[THEME_DELETED].attributes, THEME_BOLD);
	check_uint(theme->styles[THEME_DELETED].mono_attributes, 0);
	theme_free(theme);

	theme = parse("");
	ok(theme != NULL && memcmp(theme->styles, builtin->styles, sizeof builtin->styles) == 0,
	    "an empty theme file is the default theme");
	theme_free(theme);
	theme = parse("roles:\n  dim: {attrs: [bold, underline, reverse, dim, italic]}\n");
	ok(theme != NULL && theme->styles[THEME_DIM].attributes ==
	    (THEME_BOLD | THEME_UNDERLINE | THEME_REVERSE | THEME_DIM_ATTR | THEME_ITALIC),
	    "every attribute is read");
	theme_free(theme);
	theme = theme_parse("roles: {}\n", 10, "/some/where/solar.dark.yaml", error, sizeof error);
	ok(theme != NULL && strcmp(theme->name, "solar.dark") == 0, "the name comes from the file");
	theme_free(theme);
	theme_free(builtin);
}

static void
test_errors(void)
{
	check_refused("roles:\n  selcted: {fg: red}\n",
	    "t.yaml:2:3: unknown role 'selcted'; did you mean 'selected'?");
	check_refused("roles:\n  status_line: {fg: red}\n",
	    "t.yaml:2:3: unknown role 'status_line'; did you mean 'status-line'?");
	check_refused("roles:\n  sidebar: {fg: red}\n", "t.yaml:2:3: unknown role 'sidebar'");
	check_refused("roles:\n  selected: {fg: red}\n  normal: {}\n  selected: {}\n",
	    "t.yaml:4:3: duplicate role 'selected' (first given at line 2)");
	check_refused("roles:\n  selected: {fg: grean}\n",
	    "t.yaml:2:18: unknown colour 'grean'; did you mean 'green'?");
	check_refused("roles:\n  selected: {fg: brightred}\n",
	    "t.yaml:2:18: unknown colour 'brightred'; did you mean 'bright-red'?");
	check_refused("roles:\n  selected: {fg: chartreuse}\n",
	    "t.yaml:2:18: unknown colour 'chartreuse' (expected default, black, red, green, "
	    "yellow, blue, magenta, cyan, white, bright-NAME or 0..255)");
	check_refused("roles:\n  selected: {fg: 256}\n",
	    "t.yaml:2:18: colour '256' is not a colour name or a number from 0 to 255");
	check_refused("roles:\n  selected: {fg: -1}\n",
	    "t.yaml:2:18: unknown colour '-1' (expected default, black, red, green, "
	    "yellow, blue, magenta, cyan, white, bright-NAME or 0..255)");
	check_refused("roles:\n  selected: {fg: [red]}\n", "t.yaml:2:18: fg must be a colour, found a list");
	check_refused("roles:\n  selected: {bg: ~}\n", "t.yaml:2:18: bg must be a colour, found an empty value");
	check_refused("roles:\n  selected:\n    fg8: bright-red\n",
	    "t.yaml:3:10: fg8 takes default, one of the 8 basic colours or 0..7, found 'bright-red'");
	check_refused("roles:\n  selected:\n    bg8: 8\n",
	    "t.yaml:3:10: bg8 takes default, one of the 8 basic colours or 0..7, found '8'");
	check_refused("roles:\n  selected: {attrs: [bold, blod]}\n",
	    "t.yaml:2:28: unknown attribute 'blod'; did you mean 'bold'?");
	check_refused("roles:\n  selected: {mono: sparkle}\n",
	    "t.yaml:2:20: unknown attribute 'sparkle' (expected bold, underline, reverse, dim or italic)");
	check_refused("roles:\n  selected: {mono: [[bold]]}\n",
	    "t.yaml:2:21: expected an attribute, found a list");
	check_refused("roles:\n  selected: {colour: red}\n",
	    "t.yaml:2:14: unknown key 'colour' in a role (expected fg, bg, fg8, bg8, attrs, mono)");
	check_refused("roles:\n  selected: {fgg: red}\n",
	    "t.yaml:2:14: unknown key 'fgg' in a role; did you mean 'fg'?");
	check_refused("roles:\n  selected: {fg: red, fg: blue}\n",
	    "t.yaml:2:23: duplicate key 'fg' in a role (first given at line 2)");
	check_refused("roles:\n  selected: red\n",
	    "t.yaml:2:13: expected a map such as {fg: black, bg: cyan}, found a string");
	check_refused("rolse:\n  selected: {}\n", "t.yaml:1:1: unknown key 'rolse'; did you mean 'roles'?");
	check_refused("colours: {}\n", "t.yaml:1:1: unknown key 'colours' (expected roles)");
	check_refused("roles: [selected]\n", "t.yaml:1:8: expected a map of roles, found a list");
	check_refused("- roles\n", "t.yaml:1:1: the top level must be a map holding roles:, found a list");
	check_refused("roles:\n  selected: {fg: red\n",
	    "t.yaml:3:1: did not find expected ',' or '}' (while parsing a flow mapping at line 2, column 13)");
	/* An alias back to the roles map is read as a role, not followed around. */
	check_refused("roles: &r\n  selected: *r\n",
	    "t.yaml:2:3: unknown key 'selected' in a role (expected fg, bg, fg8, bg8, attrs, mono)");
}

static void
test_lookup(void)
{
	char folder[PATH_MAX], path[PATH_MAX + 64], want[PATH_MAX * 4];
	const char *scratch = tap_scratch_dir();

	snprintf(folder, sizeof folder, "%s/src", scratch);
	mkdir(folder, 0755);
	snprintf(folder, sizeof folder, "%s/src/themes", scratch);
	mkdir(folder, 0755);
	snprintf(path, sizeof path, "%s/mine.yaml", folder);
	write_file(path, "roles:\n  selected: {fg: red}\n");
	snprintf(path, sizeof path, "%s/broken.yaml", folder);
	write_file(path, "roles:\n  selected: {fg: rde}\n");

	snprintf(folder, sizeof folder, "%s/src", scratch);
	setenv("HEARTH_SOURCE_DIR", folder, 1);
	struct theme *theme = theme_load("mine", error, sizeof error);
	ok(theme != NULL && strcmp(theme->name, "mine") == 0 &&
	    theme->styles[THEME_SELECTED].foreground == 1, "a theme is found by name in the source tree");
	theme_free(theme);

	ok(theme_load("broken", error, sizeof error) == NULL, "a broken theme found by name is an error");
	snprintf(want, sizeof want, "%s/src/themes/broken.yaml:2:18: unknown colour 'rde'; did you mean 'red'?",
	    scratch);
	check_str(error, want);

	theme = theme_load("default", error, sizeof error);
	ok(theme != NULL && strcmp(theme->name, "default") == 0,
	    "default is built in when no folder has it");
	theme_free(theme);

	ok(theme_load("ligth", error, sizeof error) == NULL, "an unknown name is an error");
	snprintf(want, sizeof want, "no theme named 'ligth' in %s/src/themes, ", scratch);
	ok(strncmp(error, want, strlen(want)) == 0, "the error names where it looked: %s", error);
	ok(strstr(error, HEARTH_DATADIR "/themes; did you mean 'light'?") != NULL,
	    "and the data folder, and suggests a bundled theme: %s", error);
	ok(theme_load("a b", error, sizeof error) == NULL, "a name with a space is refused");
	check_str(error, "theme name 'a b' must be letters, digits, '-', '_' or '.' (or a path)");
	ok(theme_load("", error, sizeof error) == NULL, "an empty name is refused");
	ok(theme_load(NULL, error, sizeof error) == NULL, "no name is refused");

	/* By path: absolute, relative to here, or a bare NAME.yaml. */
	snprintf(path, sizeof path, "%s/src/themes/mine.yaml", scratch);
	theme = theme_load(path, error, sizeof error);
	ok(theme != NULL && strcmp(theme->name, "mine") == 0, "a theme loads by absolute path");
	theme_free(theme);
	char *previous = getcwd(NULL, 0);
	if (chdir(folder) == 0) {
		theme = theme_load("themes/mine.yaml", error, sizeof error);
		ok(theme != NULL, "a theme loads by relative path");
		theme_free(theme);
		if (chdir("themes") == 0) {
			theme = theme_load("mine.yaml", error, sizeof error);
			ok(theme != NULL, "NAME.yaml is a path, not a name");
			theme_free(theme);
		}
		if (chdir(previous) != 0)
			perror("chdir");
	}
	free(previous);
	snprintf(path, sizeof path, "%s/nowhere.yaml", scratch);
	ok(theme_load(path, error, sizeof error) == NULL, "a missing theme file is an error");
	snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
	check_str(error, want);
	unsetenv("HEARTH_SOURCE_DIR");
}

/* Run as a copy of this binary beside a themes/ folder: the theme there is
 * found through /proc/self/exe. */
static int
exe_lookup_child(void)
{
	struct theme *theme = theme_load("only-here", error, sizeof error);
	int status = theme != NULL && theme->styles[THEME_NORMAL].foreground == 2 ? 0 : 1;

	if (status != 0)
		fprintf(stderr, "%s\n", error);
	theme_free(theme);
	return status;
}

static void
test_lookup_beside_executable(void)
{
	char bin[PATH_MAX], copy[PATH_MAX + 64], command[4 * PATH_MAX];
	const char *scratch = tap_scratch_dir();

	snprintf(bin, sizeof bin, "%s/bin", scratch);
	mkdir(bin, 0755);
	snprintf(copy, sizeof copy, "%s/themes", bin);
	mkdir(copy, 0755);
	snprintf(copy, sizeof copy, "%s/themes/only-here.yaml", bin);
	write_file(copy, "roles:\n  normal: {fg: green}\n");
	snprintf(copy, sizeof copy, "%s/themes_load_test", bin);
	/* readlink, not cp /proc/PID/exe: under valgrind only the former names
	 * this program rather than valgrind's own. */
	char self[PATH_MAX];
	ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
	if (!ok(length > 0, "this test finds its own executable"))
		return;
	self[length] = '\0';
	snprintf(command, sizeof command, "cp '%s' '%s' && env -u HEARTH_SOURCE_DIR '%s' --exe-lookup",
	    self, copy, copy);
	int status = system(command);
	ok(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a theme in themes/ beside the executable is found by name");
}

static void
test_role_names(void)
{
	static const char *const names[] = { "normal", "title", "tab-active", "header", "selected",
		"marked", "status-line", "key-hint", "dim", "id", "added", "modified", "deleted",
		"moved", "conflict", "directory", "symlink", "diff-hunk", "dialog", "error",
		"progress" };

	check_int(THEME_ROLE_COUNT, (int)(sizeof names / sizeof *names));
	for (int role = 0; role < THEME_ROLE_COUNT; role++) {
		check_str(theme_role_name((enum theme_role)role), names[role]);
		ok(theme_role_description((enum theme_role)role)[0] != '\0', "%s has a description",
		    names[role]);
	}
	check_str(theme_role_name(THEME_ROLE_COUNT), "unknown");
	check_str(theme_role_description(THEME_ROLE_COUNT), "");
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--exe-lookup") == 0)
		return exe_lookup_child();
	find_source_dir();
	test_builtin();
	test_bundled();
	test_fallbacks();
	test_inheritance();
	test_errors();
	test_lookup();
	test_lookup_beside_executable();
	test_role_names();
	return tap_done();
}
