/* hearth log [-n N] [--oneline | --porcelain [-z]] [--grep TEXT] [-p] [PATH]:
 * versions, newest first, paged from the backend so a long history starts
 * printing at once; with PATH only those that changed it, followed by its
 * identity through renames and moves. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/cli.h"

void
cli_format_time(int64_t time, int32_t utc_offset, char *out, size_t size)
{
	time_t shifted = (time_t)(time + utc_offset);
	struct tm when;
	char stamp[64];
	int32_t minutes = (utc_offset < 0 ? -utc_offset : utc_offset) / 60;

	gmtime_r(&shifted, &when);
	strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &when);
	snprintf(out, size, "%s %c%02d%02d", stamp, utc_offset < 0 ? '-' : '+', minutes / 60,
	    minutes % 60);
}

/* Stable for scripts (hearth(1) documents it): a version a line, its id,
 * time, UTC offset, replica, changes, author and message apart by tabs,
 * author and message escaped; with -z each field ends with NUL instead,
 * nothing escaped. */
static void
print_porcelain(const struct hearth_version *version, bool z)
{
	char end = z ? '\0' : '\t';

	printf("%s%c%lld%c%d%c%s%c%llu%c", version->unnamed ? "head" : version->id, end,
	    (long long)version->time, end, (int)version->utc_offset, end, version->replica, end,
	    (unsigned long long)version->changes, end);
	cli_print_path(stdout, version->author != NULL ? version->author : "", z);
	putchar(end);
	cli_print_path(stdout, version->message != NULL ? version->message : "", z);
	putchar(z ? '\0' : '\n');
}

enum log_form { LOG_FULL, LOG_ONELINE, LOG_PORCELAIN, LOG_PORCELAIN_Z };

static void
print_version(struct cli *cli, const struct hearth_version *version, enum log_form form)
{
	char when[80];
	bool oneline = form == LOG_ONELINE;

	if (form == LOG_PORCELAIN || form == LOG_PORCELAIN_Z) {
		print_porcelain(version, form == LOG_PORCELAIN_Z);
		return;
	}
	if (oneline) {
		size_t length = strcspn(version->message, "\n");
		printf("%s%s%s %.*s\n", cli_colour(cli, 'I'), version->short_id, cli_colour_reset(cli),
		    (int)length, version->message);
		return;
	}
	if (version->unnamed) {
		printf("%shead%s (no version names it yet)\n\n    %s.\n    The next sync records a "
		       "merge version for it; until then head~1 is the newest version.\n\n",
		    cli_colour(cli, 'I'), cli_colour_reset(cli), version->message);
		return;
	}
	cli_format_time(version->time, version->utc_offset, when, sizeof when);
	printf("%sversion %s%s\n", cli_colour(cli, 'I'), version->id, cli_colour_reset(cli));
	printf("Author: %s\nDate:   %s\nReplica: %.8s%s  Changes: %llu\n\n", version->author, when,
	    version->replica, version->synced ? " (arrived by sync)" : "",
	    (unsigned long long)version->changes);
	const char *line = version->message;
	if (*line == '\0')
		printf("    (no message)\n");
	while (*line != '\0') {
		size_t length = strcspn(line, "\n");
		printf("    %.*s\n", (int)length, line);
		line += length + (line[length] == '\n');
	}
	putchar('\n');
}

/* Under a version: what it changed (of the path, where the path was in it). */
static int
print_changes(struct cli *cli, const struct hearth_version *version, bool patch)
{
	int status = cli_print_version_changes(cli, version->id, version->path, patch);

	putchar('\n');
	return status;
}

static const struct cli_option log_options[] = {
	{ 'n', "-n, --max-count", "N", "show at most N versions" },
	{ 'o', "--oneline", NULL, "one line a version: short id and message" },
	{ 'g', "--grep", "TEXT", "only versions whose message holds TEXT (any case)" },
	{ 'P', "--porcelain", NULL, "stable output for scripts: a version a line, fields apart by tabs" },
	{ 'p', "-p, --patch", NULL, "under each version, its changes (of PATH) with their diffs" },
	{ 'z', "-z", NULL, "with --porcelain: end each field with NUL, nothing escaped" },
	{ 0 },
};

static int
cli_log(struct cli *cli, int argc, char **argv)
{
	struct hearth_log_query query = { 0 };
	size_t remaining = 0;
	bool oneline = false, porcelain = false, z = false, patch = false;
	int option;
	char *end;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		switch (option) {
		case 'n':
			/* Digits only: strtoul takes "-1" as a huge number. */
			errno = 0;
			remaining = strtoul(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || remaining == 0 ||
			    errno == ERANGE)
				return cli_usage_error(cli, "-n needs a positive number");
			break;
		case 'o':
			oneline = true;
			break;
		case 'g':
			query.grep = optarg;
			break;
		case 'P':
			porcelain = true;
			break;
		case 'p':
			patch = true;
			break;
		case 'z':
			z = true;
			break;
		default:
			return cli_option_error(cli, option, argv);
		}
	}
	if (optind + 1 < argc)
		return cli_usage_error(cli, "log takes one PATH at most");
	if (z && !porcelain)
		return cli_usage_error(cli, "-z goes with --porcelain");
	if (oneline && porcelain)
		return cli_usage_error(cli, "--oneline and --porcelain go alone");
	if (patch && (oneline || porcelain))
		return cli_usage_error(cli, "-p goes with the full form only");
	enum log_form form = porcelain ? (z ? LOG_PORCELAIN_Z : LOG_PORCELAIN)
	    : oneline ? LOG_ONELINE : LOG_FULL;
	int status = cli_open(cli);
	if (status != 0)
		return status;
	char path[8192];
	struct hearth_error path_error;
	if (optind < argc) {
		if (hearth_home_path(cli->home, argv[optind], path, sizeof path, &path_error) != 0)
			return cli_fail(&path_error);
		query.path = path;
	}

	char before[HEARTH_ID_HEX] = "";
	/* Ops past the newest version (a Home of an older build): head is
	 * that state, listed first as what `head` names. */
	struct hearth_head head;
	struct hearth_error head_error;
	bool unnamed = query.grep == NULL && query.path == NULL &&
	    hearth_head(cli->home, &head, &head_error) == 0 && !head.named;
	if (unnamed) {
		struct hearth_version_list state;
		if (hearth_resolve(cli->home, "head", &state, &head_error) == 0) {
			print_version(cli, &state.items[0], form);
			hearth_version_list_free(&state);
			if (remaining == 1)
				return 0;
			if (remaining)
				remaining--;
		}
	}
	for (;;) {
		struct hearth_version_list page;
		struct hearth_error error;
		query.limit = remaining && remaining < 256 ? remaining : 256;
		query.before = before[0] ? before : NULL;
		if (hearth_log(cli->home, &query, &page, &error) != 0)
			return cli_fail(&error);
		for (size_t i = 0; i < page.count && status == 0; i++) {
			print_version(cli, &page.items[i], form);
			if (form == LOG_FULL && (patch || query.path != NULL))
				status = print_changes(cli, &page.items[i], patch);
		}
		bool more = page.more && page.count > 0;
		if (page.count > 0)
			snprintf(before, sizeof before, "%s", page.items[page.count - 1].id);
		if (remaining) {
			remaining -= page.count;
			more = more && remaining > 0;
		}
		hearth_version_list_free(&page);
		if (!more || status != 0)
			break;
	}
	if (status != 0)
		return status;
	if (before[0] == '\0' && query.grep == NULL && query.path == NULL && !unnamed && !porcelain)
		printf("No versions yet: `hearth record -m MESSAGE` makes the first.\n");
	return 0;
}

const struct cli_command cli_log_entry = {
	.name = "log",
	.usage = "[-n N] [--oneline | --porcelain [-z]] [--grep TEXT] [-p] [PATH]",
	.summary = "list versions, newest first (those that changed PATH)",
	.options = log_options,
	.run = cli_log,
};
