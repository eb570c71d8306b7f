/* hearth diff [--stat | --name-status] [VERSION [VERSION]] [--] [PATH...]:
 * the working tree against the version it is at, a version against the
 * working tree, or two versions, as git diff prints them (hearth_compare);
 * and the diff printing that status -p, show -p and log -p share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/cli.h"

#define DIFF_MAX_BYTES (1024 * 1024)
#define STAT_BAR_MAX 40

/* git's colours: headings bold, hunk lines cyan, removed red, added green. */
static const char *
line_colour(const struct cli *cli, const char *line, bool in_hunk)
{
	if (!cli->colour)
		return "";
	if (!in_hunk)
		return "\033[1m";
	if (line[0] == '@')
		return "\033[36m";
	if (line[0] == '+')
		return "\033[32m";
	if (line[0] == '-')
		return "\033[31m";
	return "";
}

void
cli_print_diff(struct cli *cli, const char *text)
{
	bool in_hunk = false;

	for (const char *line = text; *line != '\0';) {
		size_t length = strcspn(line, "\n");
		if (strncmp(line, "diff --git ", 11) == 0)
			in_hunk = false;
		else if (line[0] == '@')
			in_hunk = true;
		const char *colour = line_colour(cli, line, in_hunk);
		printf("%s%.*s%s\n", colour, (int)length, line, colour[0] ? cli_colour_reset(cli) : "");
		line += length + (line[length] == '\n');
	}
}

void
cli_print_change(struct cli *cli, const struct hearth_change *change)
{
	printf("%s%c%s ", cli_colour(cli, (char)change->kind), (char)change->kind,
	    cli_colour_reset(cli));
	if (change->old_path) {
		cli_print_path(stdout, change->old_path, false);
		fputs(" -> ", stdout);
	}
	cli_print_path(stdout, change->path, false);
	if (change->old_root != NULL && change->root != NULL &&
	    strcmp(change->old_root, change->root) != 0)
		printf(" (%s -> %s)", change->old_root, change->root);
	if (change->merged_from != NULL)
		printf("  (merged: edits from %s)", change->merged_from);
	putchar('\n');
}

/* ---- the three forms ----------------------------------------------------------------- */

static void
print_name_status(const struct hearth_change_list *changes)
{
	for (size_t i = 0; i < changes->count; i++) {
		const struct hearth_change *change = &changes->items[i];
		printf("%c\t", (char)change->kind);
		if (change->old_path != NULL) {
			cli_print_path(stdout, change->old_path, false);
			putchar('\t');
		}
		cli_print_path(stdout, change->path, false);
		printf("%s\n", change->entry_kind == HEARTH_DIR ? "/" : "");
	}
}

struct stat_row {
	char *name;
	bool binary;
	size_t added, removed;
};

static char *
stat_name(const struct hearth_change *change)
{
	char old_path[8192], path[8192];
	size_t size;

	hearth_escape_name(change->path, path, sizeof path);
	if (change->old_path == NULL || strcmp(change->old_path, change->path) == 0)
		return strdup(path);
	hearth_escape_name(change->old_path, old_path, sizeof old_path);
	size = strlen(old_path) + strlen(path) + 5;
	char *name = malloc(size);
	if (name != NULL)
		snprintf(name, size, "%s => %s", old_path, path);
	return name;
}

static void
print_bar(struct cli *cli, size_t count, size_t scale_max, char sign)
{
	size_t width = scale_max > STAT_BAR_MAX ? (count * STAT_BAR_MAX + scale_max - 1) / scale_max
						: count;
	if (width == 0)
		return;
	fputs(cli->colour ? (sign == '+' ? "\033[32m" : "\033[31m") : "", stdout);
	for (size_t i = 0; i < width; i++)
		putchar(sign);
	fputs(cli_colour_reset(cli), stdout);
}

static void
print_stat(struct cli *cli, struct stat_row *rows, size_t count)
{
	size_t name_width = 0, most = 0, files = 0, added = 0, removed = 0;

	for (size_t i = 0; i < count; i++) {
		size_t length = strlen(rows[i].name);
		name_width = length > name_width ? length : name_width;
		most = rows[i].added + rows[i].removed > most ? rows[i].added + rows[i].removed : most;
	}
	for (size_t i = 0; i < count; i++) {
		const struct stat_row *row = &rows[i];
		printf(" %-*s | ", (int)name_width, row->name);
		if (row->binary) {
			printf("Bin\n");
		} else {
			printf("%zu%s", row->added + row->removed, row->added + row->removed ? " " : "");
			print_bar(cli, row->added, most, '+');
			print_bar(cli, row->removed, most, '-');
			putchar('\n');
		}
		files++;
		added += row->added;
		removed += row->removed;
	}
	if (files > 0)
		printf(" %zu file%s changed, %zu insertion%s(+), %zu deletion%s(-)\n", files,
		    files == 1 ? "" : "s", added, added == 1 ? "" : "s", removed, removed == 1 ? "" : "s");
}

/* Folders have no text: only a moved one is shown (its heading). */
static bool
has_diff(const struct hearth_change *change)
{
	return change->entry_kind != HEARTH_DIR || change->kind == HEARTH_MOVED;
}

int
cli_print_comparison(struct cli *cli, const struct hearth_compare_options *options,
    enum cli_diff_form form)
{
	struct hearth_comparison_result result;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);

	int status = hearth_compare(cli->home, options, &progress, &result, &error);
	cli_progress_done(cli);
	if (status != 0)
		return cli_fail(&error);
	if (form == CLI_DIFF_NAME_STATUS) {
		print_name_status(&result.changes);
		hearth_comparison_free(&result);
		return 0;
	}
	struct stat_row *rows = calloc(result.changes.count + 1, sizeof *rows);
	size_t row_count = 0;
	for (size_t i = 0; i < result.changes.count && status == 0; i++) {
		const struct hearth_change *change = &result.changes.items[i];
		struct hearth_text diff;
		if (!has_diff(change))
			continue;
		if (hearth_comparison_diff(&result, i, DIFF_MAX_BYTES, &diff, &error) != 0) {
			status = cli_fail(&error);
			break;
		}
		if (form == CLI_DIFF_STAT)
			rows[row_count++] = (struct stat_row){ stat_name(change), diff.binary, diff.added,
				diff.removed };
		else
			cli_print_diff(cli, diff.text);
		hearth_text_free(&diff);
	}
	if (status == 0 && form == CLI_DIFF_STAT)
		print_stat(cli, rows, row_count);
	for (size_t i = 0; i < row_count; i++)
		free(rows[i].name);
	free(rows);
	hearth_comparison_free(&result);
	return status;
}

/* ---- arguments ------------------------------------------------------------------------ */

/* Whether arg names a version; an argument that is both a version and a
 * path on disk is refused as ambiguous (-- tells them apart). */
static int
is_version(struct cli *cli, const char *arg, bool *out)
{
	struct hearth_version_list resolved;
	struct hearth_error error;

	*out = hearth_resolve(cli->home, arg, &resolved, &error) == 0;
	if (!*out)
		return 0;
	hearth_version_list_free(&resolved);
	if (access(arg, F_OK) == 0)
		return cli_usage_error(cli, "'%s' is both a version and a path: put -- "
		    "before the paths", arg);
	return 0;
}

struct diff_args {
	const char *versions[2];
	int version_count;
	char **paths;		/* Home-relative, owned */
	int path_count;
};

static int
split_args(struct cli *cli, int count, char **args, int dash, struct diff_args *out)
{
	int first_path = 0;

	while (first_path < count && first_path < 2) {
		bool version = first_path < dash;
		if (dash == count) {
			int status = is_version(cli, args[first_path], &version);
			if (status != 0)
				return status;
		}
		if (!version)
			break;
		out->versions[out->version_count++] = args[first_path++];
	}
	if (first_path < dash && dash < count)
		return cli_usage_error(cli, "diff takes at most two versions before --");
	int from = dash < count ? dash + 1 : first_path;
	out->path_count = count - from;
	return cli_home_paths(cli, out->path_count, args + from, &out->paths);
}

/* The "--" that ends the versions: paths follow it. */
static bool
is_separator(const char *arg)
{
	return strcmp(arg, "--") == 0;
}

static const struct cli_option diff_options[] = {
	{ 's', "--stat", NULL, "a line a file: how many lines it adds and removes" },
	{ 'n', "--name-status", NULL, "a line a change: its kind and path (old and new for a move)" },
	{ 0 },
};

static int
cli_diff(struct cli *cli, int argc, char **argv)
{
	enum cli_diff_form form = CLI_DIFF_PATCH;
	int dash = 1, option;

	/* Options come before "--"; what follows it is paths. */
	while (dash < argc && !is_separator(argv[dash]))
		dash++;
	while ((option = cli_next_option(cli, dash, argv)) != -1) {
		if (option == 's')
			form = CLI_DIFF_STAT;
		else if (option == 'n')
			form = CLI_DIFF_NAME_STATUS;
		else
			return cli_option_error(cli, option, argv);
	}
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct diff_args args = { 0 };
	status = split_args(cli, argc - optind, argv + optind, dash - optind, &args);
	if (status != 0)
		return status;
	struct hearth_compare_options compare = {
		.from = args.version_count > 0 ? args.versions[0] : NULL,
		.to = args.version_count > 1 ? args.versions[1] : NULL,
		.paths = (const char *const *)args.paths,
		.path_count = (size_t)args.path_count,
	};
	status = cli_print_comparison(cli, &compare, form);
	cli_free_paths(args.path_count, args.paths);
	return status;
}

const struct cli_command cli_diff_entry = {
	.name = "diff",
	.usage = "[--stat | --name-status] [VERSION [VERSION]] [--] [PATH...]",
	.summary = "show changes as diffs: the working tree, or a version, against another",
	.options = diff_options,
	.run = cli_diff,
};
