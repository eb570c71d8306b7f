/* hearth checkout [-f] [--yes] [VERSION]: bring the working tree to a
 * version, never overwriting what is not recorded, and asking (or wanting
 * --yes) before one that would empty a root; hearth export VERSION DIR: write a
 * version's tree into an empty folder elsewhere. */
#include <stdio.h>
#include <string.h>

#include "tui/cli.h"

/* The short form of a full id, as every listing shows it. */
static const char *
short_id(struct cli *cli, const char *id)
{
	static char shown[HEARTH_ID_HEX];
	struct hearth_version_list found;
	struct hearth_error error;

	snprintf(shown, sizeof shown, "%.8s", id);
	if (hearth_resolve(cli->home, id, &found, &error) == 0) {
		snprintf(shown, sizeof shown, "%s", found.items[0].short_id);
		hearth_version_list_free(&found);
	}
	return shown;
}

static void
print_blocked(const struct hearth_change_list *blocked)
{
	fprintf(stderr, "hearth: these paths have changes that are not recorded:\n");
	for (size_t i = 0; i < blocked->count; i++) {
		fprintf(stderr, "  %c ", (char)blocked->items[i].kind);
		cli_print_path(stderr, blocked->items[i].path, false);
		fputc('\n', stderr);
	}
}

static const struct cli_option checkout_options[] = {
	{ 'f', "-f, --force", NULL, "record unrecorded changes as a version first, then check out" },
	{ 'y', "--yes", NULL, "check out even when that deletes more than max_delete allows, or every file of a root" },
	{ 0 },
};

static int
cli_checkout(struct cli *cli, int argc, char **argv)
{
	struct hearth_checkout_options checkout = { 0 };
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'f')
			checkout.force = true;
		else if (option == 'y')
			checkout.allow_deletes = true;
		else
			return cli_option_error(cli, option, argv);
	}
	if (argc - optind > 1)
		return cli_usage_error(cli, "checkout takes one VERSION");
	if (optind < argc)
		checkout.version = argv[optind];
	int status = cli_open(cli);
	if (status != 0)
		return status;

	struct hearth_checkout_result result;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);
	status = hearth_checkout(cli->home, &checkout, &progress, &result, &error);
	cli_progress_done(cli);
	if (status == HEARTH_REFUSED &&
	    cli_confirm_deletes(&result.guard, &error, "Delete them anyway?")) {
		hearth_checkout_result_free(&result);
		checkout.allow_deletes = true;
		status = hearth_checkout(cli->home, &checkout, &progress, &result, &error);
		cli_progress_done(cli);
	}
	if (status == HEARTH_REFUSED && !result.guard.refused)
		print_blocked(&result.blocked);
	if (status != 0) {
		hearth_checkout_result_free(&result);
		return cli_fail(&error);
	}
	if (result.recorded[0] != '\0')
		printf("Recorded the unrecorded changes first as %s\n", short_id(cli, result.recorded));
	/* The unnamed head state (a Home of an older build): say it is more
	 * than the newest version holds. */
	struct hearth_head head;
	bool unnamed = hearth_head(cli->home, &head, &error) == 0 && !head.named &&
	    head.tree_at_head;
	if (unnamed)
		printf("At head, %llu op%s past version %s that no version names yet: %llu written, "
		       "%llu removed, %llu moved\n", (unsigned long long)head.unnamed_ops,
		    head.unnamed_ops == 1 ? "" : "s", head.short_id[0] ? head.short_id : "(none)",
		    (unsigned long long)result.written, (unsigned long long)result.removed,
		    (unsigned long long)result.moved);
	else if (result.version[0] == '\0')
		printf("Nothing to check out: no versions yet\n");
	else
		printf("At version %s: %llu written, %llu removed, %llu moved\n",
		    short_id(cli, result.version),
		    (unsigned long long)result.written, (unsigned long long)result.removed,
		    (unsigned long long)result.moved);
	hearth_checkout_result_free(&result);
	return 0;
}

const struct cli_command cli_checkout_entry = {
	.name = "checkout",
	.usage = "[-f] [--yes] [VERSION]",
	.summary = "bring the working tree to VERSION (default: head)",
	.options = checkout_options,
	.run = cli_checkout,
};

static int
cli_export(struct cli *cli, int argc, char **argv)
{
	if (argc != 3)
		return cli_usage_error(cli, "export needs VERSION and DIR");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);
	status = hearth_export(cli->home, argv[1], argv[2], &progress, &error);
	cli_progress_done(cli);
	if (status != 0)
		return cli_fail(&error);
	return 0;
}

const struct cli_command cli_export_entry = {
	.name = "export",
	.usage = "VERSION DIR",
	.summary = "write VERSION's tree into an empty folder outside the Home",
	.options = cli_no_options,
	.run = cli_export,
};
