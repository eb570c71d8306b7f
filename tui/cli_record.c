/* hearth record [-m MSG] [--yes] [PATH...]: record what changed as a new
 * version; one that would empty a root asks first (or wants --yes). */
#include <stdio.h>
#include <string.h>

#include "tui/cli.h"

static void
print_changes(struct cli *cli, const struct hearth_change_list *changes)
{
	for (size_t i = 0; i < changes->count; i++) {
		const struct hearth_change *change = &changes->items[i];
		printf(" %s%c%s ", cli_colour(cli, (char)change->kind), (char)change->kind,
		    cli_colour_reset(cli));
		if (change->old_path != NULL) {
			cli_print_path(stdout, change->old_path, false);
			fputs(" -> ", stdout);
		}
		cli_print_path(stdout, change->path, false);
		putchar('\n');
	}
}

static const struct cli_option record_options[] = {
	{ 'm', "-m, --message", "MSG", "the version's message" },
	{ 'y', "--yes", NULL, "record even when that deletes more than max_delete allows, or every file of a root" },
	{ 0 },
};

static int
cli_record(struct cli *cli, int argc, char **argv)
{
	const char *message = "";
	bool yes = false;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'm')
			message = optarg;
		else if (option == 'y')
			yes = true;
		else
			return cli_option_error(cli, option, argv);
	}
	int status = cli_open(cli);
	if (status != 0)
		return status;
	char **paths = NULL;
	int path_count = argc - optind;
	if (path_count > 0 && (status = cli_home_paths(cli, path_count, argv + optind, &paths)) != 0)
		return status;

	struct hearth_record_options record = {
		.message = message, .paths = (const char *const *)paths,
		.path_count = (size_t)path_count, .allow_deletes = yes,
	};
	struct hearth_record_result result;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);
	status = hearth_record(cli->home, &record, &progress, &result, &error);
	cli_progress_done(cli);
	if (status == HEARTH_REFUSED &&
	    cli_confirm_deletes(&result.guard, &error, "Record these deletes anyway?")) {
		record.allow_deletes = true;
		status = hearth_record(cli->home, &record, &progress, &result, &error);
		cli_progress_done(cli);
	}
	cli_free_paths(path_count, paths);
	if (status != 0)
		return cli_fail(&error);
	if (result.version[0] == '\0') {
		printf("Nothing to record: the working tree matches its version.\n");
	} else {
		printf("Recorded %s%s%s: %llu change%s, %llu file%s read\n", cli_colour(cli, 'I'),
		    result.short_id, cli_colour_reset(cli), (unsigned long long)result.ops,
		    result.ops == 1 ? "" : "s", (unsigned long long)result.files_stored,
		    result.files_stored == 1 ? "" : "s");
		print_changes(cli, &result.changes);
		if (result.names_followed > 0)
			printf("Moved %llu in the tree to the name%s head gives now (a name clash "
			    "settled or made; see hearth conflicts)\n",
			    (unsigned long long)result.names_followed,
			    result.names_followed == 1 ? "" : "s");
	}
	for (size_t i = 0; i < result.notes.count; i++)
		printf("Note: %s.\n", result.notes.items[i]);
	hearth_record_result_free(&result);
	return 0;
}

const struct cli_command cli_record_entry = {
	.name = "record",
	.usage = "[-m MSG] [--yes] [PATH...]",
	.summary = "record what changed (in PATHs) as a new version",
	.options = record_options,
	.run = cli_record,
};
