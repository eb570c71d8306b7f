/* hearth demo: builds (or finds) a scratch demo Home and opens the app in
 * it, so a first look needs no Home of one's own. Nothing else is touched. */
#include <stdio.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/cli.h"
#include "tui/demo.h"

static int
cli_demo(struct cli *cli, int argc, char **argv)
{
	struct hearth_error error;
	char dir[4096];

	(void)cli;
	(void)argv;
	if (argc > 1)
		return cli_usage_error(cli, "demo takes no arguments");
	if (demo_build(dir, sizeof dir, &error) != 0)
		return cli_fail(&error);
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		printf("The demo Home is at %s; run hearth there in a terminal.\n", dir);
		return 0;
	}
	struct hearth_open_options options = { .start_dir = dir };
	return app_run(&options);
}

const struct cli_command cli_demo_entry = {
	.name = "demo",
	.usage = "",
	.summary = "open the app on a scratch demo Home (made on first use)",
	.options = cli_no_options,
	.run = cli_demo,
};
