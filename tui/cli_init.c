/* hearth init [DIR]: make a working single-root Home (state in DIR/.hearth),
 * or with -c FILE the joined Home that config describes. */
#include <stdio.h>
#include <string.h>

#include "tui/cli.h"

static const struct cli_option init_options[] = {
	{ CLI_GLOBAL, "-c", "FILE", "make the joined Home FILE describes instead" },
	{ 0 },
};

static int
cli_init(struct cli *cli, int argc, char **argv)
{
	struct hearth_init_options options = { .dir = ".", .config_path = cli->config_path };
	struct hearth_error error;

	if (argc == 2 && argv[1][0] == '-')
		return cli_usage_error(cli, "unknown option %s", argv[1]);
	if (argc > 2)
		return cli_usage_error(cli, "init takes at most one folder");
	if (argc == 2 && cli->config_path != NULL)
		return cli_usage_error(cli,
		    "with -c, the config names the roots: give no folder");
	if (argc == 2)
		options.dir = argv[1];
	if (hearth_init(&options, &error) != 0)
		return cli_fail(&error);
	if (cli->config_path != NULL)
		printf("Made the Home described by %s\n", cli->config_path);
	else
		printf("Made a Home at %s (its store is in %s/.hearth)\n", options.dir, options.dir);
	return 0;
}

const struct cli_command cli_init_entry = {
	.name = "init",
	.usage = "[DIR]",
	.summary = "make DIR (default: the current folder) a Home",
	.options = init_options,
	.run = cli_init,
};
