/* hearth clone SOURCE [DIR]: a new replica of SOURCE's Home at DIR (by
 * default named like SOURCE's folder), keeping whatever DIR already holds;
 * with -c FILE, the joined Home FILE describes instead. */
#include <stdio.h>
#include <string.h>

#include "tui/cli.h"

/* "ssh://host/home/me/Home/" and "../Home" both give "Home". */
static void
default_folder(const char *source, char *out, size_t size)
{
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", source);
	size_t length = strlen(copy);
	while (length > 1 && copy[length - 1] == '/')
		copy[--length] = '\0';
	const char *slash = strrchr(copy, '/');
	snprintf(out, size, "%s", slash ? slash + 1 : copy);
}

static const struct cli_option clone_options[] = {
	{ CLI_GLOBAL, "-c", "FILE", "make the replica the joined Home FILE describes; no DIR" },
	{ 0 },
};

static int
cli_clone(struct cli *cli, int argc, char **argv)
{
	struct hearth_clone_result result;
	struct hearth_error error;
	char folder[4096];

	if (argc < 2 || argc > 3 || argv[1][0] == '-')
		return cli_usage_error(cli, "clone needs a SOURCE and at most one DIR");
	if (cli->config_path != NULL && argc == 3)
		return cli_usage_error(cli,
		    "with -c the config names the roots: no DIR");
	if (cli->config_path != NULL)
		snprintf(folder, sizeof folder, "the roots of %s", cli->config_path);
	else if (argc == 3)
		snprintf(folder, sizeof folder, "%s", argv[2]);
	else
		default_folder(argv[1], folder, sizeof folder);
	struct hearth_clone_options options = { .source = argv[1],
		.dir = cli->config_path ? NULL : folder, .config_path = cli->config_path };
	struct hearth_progress progress = cli_progress(cli);
	int status = hearth_clone(&options, &progress, &result, &error);
	cli_progress_done(cli);
	if (status != 0)
		return cli_fail(&error);
	char arrived[64];
	cli_format_arrived(result.prefilled, arrived, sizeof arrived);
	printf("Made replica %.8s of %s at %s: %llu op%s received, %llu file%s written%s, "
	       "%llu already there\n", result.replica, argv[1], folder,
	    (unsigned long long)result.ops, result.ops == 1 ? "" : "s",
	    (unsigned long long)result.written, result.written == 1 ? "" : "s", arrived,
	    (unsigned long long)result.adopted);
	if (result.recorded[0] != '\0')
		printf("What differed was recorded as this replica's own version %.8s\n",
		    result.recorded);
	return 0;
}

const struct cli_command cli_clone_entry = {
	.name = "clone",
	.usage = "SOURCE [DIR]",
	.summary = "make a new replica of SOURCE's Home, keeping what DIR holds",
	.options = clone_options,
	.run = cli_clone,
};
