/* hearth log [-n N] [--oneline] [--grep TEXT]: versions, newest first,
 * paged from the backend so a long history starts printing at once. */
#include <errno.h>
#include <getopt.h>
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

static void
print_version(struct cli *cli, const struct hearth_version *version, bool oneline)
{
	char when[80];

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

int
cli_log(struct cli *cli, int argc, char **argv)
{
	static const struct option options[] = {
		{ "max-count", required_argument, NULL, 'n' },
		{ "oneline", no_argument, NULL, 'o' },
		{ "grep", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	struct hearth_log_query query = { 0 };
	size_t remaining = 0;
	bool oneline = false;
	int option;
	char *end;

	optind = 1;
	opterr = 0;
	while ((option = getopt_long(argc, argv, ":n:", options, NULL)) != -1) {
		switch (option) {
		case 'n':
			/* Digits only: strtoul takes "-1" as a huge number. */
			errno = 0;
			remaining = strtoul(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || remaining == 0 ||
			    errno == ERANGE)
				return cli_usage_error(cli_find("log"), "-n needs a positive number");
			break;
		case 'o':
			oneline = true;
			break;
		case 'g':
			query.grep = optarg;
			break;
		default:
			return cli_option_error(cli_find("log"), option, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error(cli_find("log"), "log takes no arguments");
	int status = cli_open(cli);
	if (status != 0)
		return status;

	char before[HEARTH_ID_HEX] = "";
	/* Ops past the newest version (a Home of an older build): head is
	 * that state, listed first as what `head` names. */
	struct hearth_head head;
	struct hearth_error head_error;
	bool unnamed = query.grep == NULL && hearth_head(cli->home, &head, &head_error) == 0 &&
	    !head.named;
	if (unnamed) {
		struct hearth_version_list state;
		if (hearth_resolve(cli->home, "head", &state, &head_error) == 0) {
			print_version(cli, &state.items[0], oneline);
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
		for (size_t i = 0; i < page.count; i++)
			print_version(cli, &page.items[i], oneline);
		bool more = page.more && page.count > 0;
		if (page.count > 0)
			snprintf(before, sizeof before, "%s", page.items[page.count - 1].id);
		if (remaining) {
			remaining -= page.count;
			more = more && remaining > 0;
		}
		hearth_version_list_free(&page);
		if (!more)
			break;
	}
	if (before[0] == '\0' && query.grep == NULL && !unnamed)
		printf("No versions yet: `hearth record -m MESSAGE` makes the first.\n");
	return 0;
}
