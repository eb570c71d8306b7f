/* hearth show [-p] VERSION [PATH]: what a version changed (with diffs of
 * small text files under -p); hearth show --cat VERSION PATH: a file's bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/cli.h"

#define DIFF_MAX_BYTES (1024 * 1024)

static int
show_cat(struct cli *cli, const char *version, const char *path)
{
	struct hearth_error error;
	char relative[8192];

	if (hearth_home_path(cli->home, path, relative, sizeof relative, &error) != 0)
		return cli_fail(&error);
	fflush(stdout);
	if (hearth_cat(cli->home, version, relative, STDOUT_FILENO, &error) != 0)
		return cli_fail(&error);
	return 0;
}

static void
show_header(struct cli *cli, const struct hearth_version *version)
{
	char when[80];

	if (version->unnamed) {
		printf("%shead%s (no version names it yet)\n\n    %s.\n\n", cli_colour(cli, 'I'),
		    cli_colour_reset(cli), version->message);
		return;
	}
	cli_format_time(version->time, version->utc_offset, when, sizeof when);
	printf("%sversion %s%s\nAuthor: %s\nDate:   %s\n\n", cli_colour(cli, 'I'), version->id,
	    cli_colour_reset(cli), version->author, when);
	const char *line = version->message;
	while (*line != '\0') {
		size_t length = strcspn(line, "\n");
		printf("    %.*s\n", (int)length, line);
		line += length + (line[length] == '\n');
	}
	putchar('\n');
}

static void
show_patch(struct cli *cli, const char *version, const struct hearth_change *change)
{
	struct hearth_text diff;
	struct hearth_error error;

	if (change->entry_kind == HEARTH_DIR || (!change->content_changed && change->kind != HEARTH_DELETED))
		return;
	if (hearth_diff(cli->home, version, change->path, DIFF_MAX_BYTES, &diff, &error) != 0) {
		fprintf(stderr, "hearth: %s\n", error.message);
		return;
	}
	cli_print_diff(cli, diff.text);
	hearth_text_free(&diff);
}

int
cli_print_version_changes(struct cli *cli, const char *version, const char *path, bool patch)
{
	struct hearth_change_list changes;
	struct hearth_error error;

	if (hearth_show(cli->home, version, path, &changes, &error) != 0)
		return cli_fail(&error);
	for (size_t i = 0; i < changes.count; i++) {
		cli_print_change(cli, &changes.items[i]);
		if (patch)
			show_patch(cli, version, &changes.items[i]);
	}
	if (changes.count == 0)
		printf("(no changes)\n");
	hearth_change_list_free(&changes);
	return 0;
}

static const struct cli_option show_options[] = {
	{ 'p', "-p, --patch", NULL, "also show a diff of each small text file changed" },
	{ 'c', "--cat", NULL, "write the bytes of the file at PATH in VERSION to standard output" },
	{ 0 },
};

static int
cli_show(struct cli *cli, int argc, char **argv)
{
	bool patch = false, cat = false;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'p')
			patch = true;
		else if (option == 'c')
			cat = true;
		else
			return cli_option_error(cli, option, argv);
	}
	int count = argc - optind;
	if (count < 1 || count > 2 || (cat && count != 2))
		return cli_usage_error(cli, cat ? "--cat needs VERSION and PATH"
							     : "show needs a VERSION");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	const char *version = argv[optind];
	if (cat)
		return show_cat(cli, version, argv[optind + 1]);

	struct hearth_version_list resolved;
	struct hearth_error error;
	char relative[8192];
	const char *path = NULL;
	if (count == 2) {
		if (hearth_home_path(cli->home, argv[optind + 1], relative, sizeof relative, &error) != 0)
			return cli_fail(&error);
		path = relative;
	}
	if (hearth_resolve(cli->home, version, &resolved, &error) != 0)
		return cli_fail(&error);
	show_header(cli, &resolved.items[0]);
	status = cli_print_version_changes(cli, resolved.items[0].id, path, patch);
	hearth_version_list_free(&resolved);
	return status;
}

const struct cli_command cli_show_entry = {
	.name = "show",
	.usage = "[-p] VERSION [PATH] | --cat VERSION PATH",
	.summary = "show what a version changed, or a file's bytes in it",
	.options = show_options,
	.run = cli_show,
};
