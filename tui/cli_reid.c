/* hearth reid: a fresh replica id for a Home whose state folder was copied
 * from another replica (two replicas must never share one id). */
#include <stdio.h>

#include "tui/cli.h"

static int
cli_reid(struct cli *cli, int argc, char **argv)
{
	struct hearth_error error;
	char replica[33];

	(void)argv;
	if (argc > 1)
		return cli_usage_error(cli, "reid takes no arguments");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	if (hearth_reid(cli->home, replica, &error) != 0)
		return cli_fail(&error);
	printf("This replica is now %s\n", replica);
	return 0;
}

const struct cli_command cli_reid_entry = {
	.name = "reid",
	.usage = "",
	.summary = "give a copied replica a fresh replica id",
	.options = cli_no_options,
	.run = cli_reid,
};
