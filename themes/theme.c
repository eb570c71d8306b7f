/* Finding a theme by name or path, the built-in default theme, and the role
 * names and descriptions the help screen and the man page show. */
#include "themes/theme_parse.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/yaml_tree.h"

#ifndef HEARTH_DATADIR
#define HEARTH_DATADIR "/usr/local/share/hearth"
#endif

/* Generated from themes/default.yaml by tests/lib/embed.sh. */
extern const char theme_default_yaml[];
extern const size_t theme_default_yaml_length;

const char *const theme_role_names[THEME_ROLE_COUNT] = {
#define THEME_ROLE_NAME(id, name, text) name,
	THEME_ROLES(THEME_ROLE_NAME)
#undef THEME_ROLE_NAME
};

static const char *const theme_role_descriptions[] = {
#define THEME_ROLE_DESCRIPTION(id, name, text) text,
	THEME_ROLES(THEME_ROLE_DESCRIPTION)
#undef THEME_ROLE_DESCRIPTION
};

/* The themes shipped in themes/, offered when a name is misspelt. */
static const char *const theme_bundled_names[] = { "default", "light", "high-contrast" };

const char *
theme_role_name(enum theme_role role)
{
	if ((unsigned)role >= THEME_ROLE_COUNT)
		return "unknown";
	return theme_role_names[role];
}

const char *
theme_role_description(enum theme_role role)
{
	if ((unsigned)role >= THEME_ROLE_COUNT)
		return "";
	return theme_role_descriptions[role];
}

void
theme_free(struct theme *theme)
{
	if (theme == NULL)
		return;
	free(theme->name);
	free(theme);
}

static void
theme_error(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void
theme_error(char *error, size_t error_size, const char *format, ...)
{
	va_list args;

	if (error == NULL || error_size == 0)
		return;
	va_start(args, format);
	vsnprintf(error, error_size, format, args);
	va_end(args);
}

static struct theme *
theme_parse_builtin(char *error, size_t error_size)
{
	struct theme neutral;

	memset(&neutral, 0, sizeof neutral);
	for (size_t role = 0; role < THEME_ROLE_COUNT; role++) {
		struct theme_style *style = &neutral.styles[role];
		style->foreground = style->background = -1;
		style->foreground8 = style->background8 = -1;
	}
	return theme_parse_over(&neutral, theme_default_yaml, theme_default_yaml_length,
	    "themes/default.yaml", error, error_size);
}

struct theme *
theme_builtin(void)
{
	char error[1024];
	struct theme *theme = theme_parse_builtin(error, sizeof error);

	/* The built-in theme is compiled in and tested; failing here is a
	 * broken build or no memory at all, and the contract is never NULL. */
	if (theme == NULL) {
		fprintf(stderr, "hearth: built-in theme: %s\n", error);
		abort();
	}
	return theme;
}

struct theme *
theme_parse(const char *text, size_t length, const char *source, char *error,
    size_t error_size)
{
	if (source == NULL)
		source = "(theme)";
	struct theme *base = theme_parse_builtin(error, error_size);
	if (base == NULL)
		return NULL;
	struct theme *theme = theme_parse_over(base, text ? text : "", text ? length : 0, source,
	    error, error_size);
	theme_free(base);
	return theme;
}

static struct theme *
theme_load_file(const char *path, char *error, size_t error_size)
{
	char *text;
	size_t length;

	if (!config_yaml_read_file(path, &text, &length, error, error_size))
		return NULL;
	struct theme *theme = theme_parse(text, length, path, error, error_size);
	free(text);
	return theme;
}

/* The same rule the config applies to its theme key. */
static bool
theme_is_path(const char *value)
{
	size_t length = strlen(value);

	return strchr(value, '/') != NULL ||
	    (length >= 5 && strcmp(value + length - 5, ".yaml") == 0);
}

static bool
theme_name_is_valid(const char *name)
{
	if (name[0] == '.' || strlen(name) > 64)
		return false;
	for (; *name != '\0'; name++) {
		char c = *name;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

/* A built tree keeps ./hearth next to themes/, so a hearth run from where
 * it was built finds its themes without installing. */
static bool
theme_executable_folder(char *folder, size_t folder_size)
{
	ssize_t length = readlink("/proc/self/exe", folder, folder_size - 1);

	if (length <= 0 || (size_t)length >= folder_size - 1)
		return false;
	folder[length] = '\0';
	char *slash = strrchr(folder, '/');
	if (slash == NULL)
		return false;
	*slash = '\0';
	return true;
}

#define THEME_FOLDERS 4

/* The folders searched for NAME.yaml, in order; returns how many. */
static size_t
theme_search_folders(char folders[THEME_FOLDERS][PATH_MAX])
{
	size_t count = 0;
	const char *source = getenv("HEARTH_SOURCE_DIR");

	if (source != NULL && source[0] != '\0' &&
	    (size_t)snprintf(folders[count], PATH_MAX, "%s/themes", source) < PATH_MAX)
		count++;
	char executable[PATH_MAX];
	if (theme_executable_folder(executable, sizeof executable)) {
		if ((size_t)snprintf(folders[count], PATH_MAX, "%s/themes", executable) < PATH_MAX)
			count++;
		/* Installed under another PREFIX than the build was told: BIN is
		 * PREFIX/bin, the themes PREFIX/share/hearth/themes. */
		if ((size_t)snprintf(folders[count], PATH_MAX, "%s/../share/hearth/themes",
			executable) < PATH_MAX)
			count++;
	}
	snprintf(folders[count], PATH_MAX, "%s", HEARTH_DATADIR "/themes");
	count++;
	return count;
}

static struct theme *
theme_not_found(const char *name, char folders[THEME_FOLDERS][PATH_MAX], size_t count,
    char *error, size_t error_size)
{
	char looked[THEME_FOLDERS * PATH_MAX + 16] = "";
	size_t bundled = sizeof theme_bundled_names / sizeof *theme_bundled_names;
	const char *nearest = config_nearest_word(name, theme_bundled_names, bundled);

	for (size_t i = 0; i < count; i++) {
		size_t used = strlen(looked);
		snprintf(looked + used, sizeof looked - used, "%s%s", i ? ", " : "", folders[i]);
	}
	if (nearest != NULL)
		theme_error(error, error_size, "no theme named '%s' in %s; did you mean '%s'?", name,
		    looked, nearest);
	else
		theme_error(error, error_size, "no theme named '%s' in %s", name, looked);
	return NULL;
}

struct theme *
theme_load(const char *name_or_path, char *error, size_t error_size)
{
	char folders[THEME_FOLDERS][PATH_MAX];
	char path[PATH_MAX + 80];

	if (name_or_path == NULL || name_or_path[0] == '\0') {
		theme_error(error, error_size, "no theme named: the theme name is empty");
		return NULL;
	}
	if (theme_is_path(name_or_path))
		return theme_load_file(name_or_path, error, error_size);
	if (!theme_name_is_valid(name_or_path)) {
		char quoted[256];
		config_yaml_quote(name_or_path, strlen(name_or_path), quoted, sizeof quoted);
		theme_error(error, error_size,
		    "theme name '%s' must be letters, digits, '-', '_' or '.' (or a path)", quoted);
		return NULL;
	}
	size_t count = theme_search_folders(folders);
	for (size_t i = 0; i < count; i++) {
		int length = snprintf(path, sizeof path, "%s/%s.yaml", folders[i], name_or_path);
		if (length > 0 && (size_t)length < sizeof path && access(path, F_OK) == 0)
			return theme_load_file(path, error, error_size);
	}
	if (strcmp(name_or_path, "default") == 0)
		return theme_builtin();
	return theme_not_found(name_or_path, folders, count, error, error_size);
}
