/* hearth ls [--tree] [-l] [VERSION] [PATH]: one folder of a version (or of
 * the working tree as last recorded), a page at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/cli.h"

static void
print_entry(const struct hearth_entry *entry, bool long_form, bool ids, bool z)
{
	if (ids)
		printf("%s ", entry->node);
	if (long_form) {
		static const char kinds[] = "?-dl";
		char when[32];
		time_t seconds = (time_t)(entry->mtime_ns / 1000000000);
		struct tm local;
		localtime_r(&seconds, &local);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &local);
		/* Folders carry no mode or time of their own in a version. */
		if (entry->kind == HEARTH_DIR && entry->mtime_ns == 0)
			printf("d    - %10s %-16s %-8s ", "-", "-", entry->root);
		else
			printf("%c %04o %10llu %s %-8s ", kinds[entry->kind & 3], entry->mode & 07777,
			    (unsigned long long)entry->size, when, entry->root);
	}
	cli_print_path(stdout, entry->name, z);
	if (!z && entry->kind == HEARTH_DIR)
		putchar('/');
	putchar(z ? '\0' : '\n');
}

/* One argument is a VERSION when it names one, else a PATH. */
static bool
names_version(struct cli *cli, const char *argument)
{
	struct hearth_version_list found;
	struct hearth_error error;

	if (hearth_resolve(cli->home, argument, &found, &error) != 0)
		return false;
	hearth_version_list_free(&found);
	return true;
}

static const struct cli_option ls_options[] = {
	{ 't', "--tree", NULL, "list the working tree as last recorded or checked out" },
	{ 'l', "-l, --long", NULL, "also show kind, mode, size, time and root" },
	{ 'i', "-i, --ids", NULL, "show each entry's node id (its identity through renames and moves)" },
	{ 'L', "--limit", "N", "at most N entries (a page)" },
	{ 'a', "--after", "NAME", "start after NAME (the next page)" },
	{ 'z', "-z", NULL, "end entries with NUL, names unescaped" },
	{ 0 },
};

static int
cli_ls(struct cli *cli, int argc, char **argv)
{
	struct hearth_list_query query = { .version = "head" };
	bool long_form = false, z = false, tree = false, ids = false;
	int option;
	char *end, relative[8192];

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		switch (option) {
		case 'i':
			ids = true;
			break;
		case 't':
			tree = true;
			break;
		case 'l':
			long_form = true;
			break;
		case 'z':
			z = true;
			break;
		case 'L':
			query.limit = strtoul(optarg, &end, 10);
			if (*end != '\0' || query.limit == 0)
				return cli_usage_error(cli, "--limit needs a positive number");
			break;
		case 'a':
			query.after = optarg;
			break;
		default:
			return cli_option_error(cli, option, argv);
		}
	}
	int count = argc - optind;
	if (count > 2 || (tree && count > 1))
		return cli_usage_error(cli, "too many arguments");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	const char *path = NULL;
	if (tree)
		query.version = NULL;
	if (count == 2 || (count == 1 && !tree && names_version(cli, argv[optind]))) {
		query.version = argv[optind];
		path = count == 2 ? argv[optind + 1] : NULL;
	} else if (count == 1) {
		path = argv[optind];
	}
	struct hearth_error error;
	if (path != NULL) {
		if (hearth_home_path(cli->home, path, relative, sizeof relative, &error) != 0)
			return cli_fail(&error);
		query.folder = relative;
	} else if (hearth_home_path(cli->home, ".", relative, sizeof relative, &error) == 0) {
		/* No folder named: the one you are in, as ls does; the top when
		 * you are outside the Home (hearth -c FILE ls). */
		query.folder = relative;
	}
	struct hearth_entry_list list;
	if (hearth_list(cli->home, &query, &list, &error) != 0)
		return cli_fail(&error);
	for (size_t i = 0; i < list.count; i++)
		print_entry(&list.items[i], long_form, ids, z);
	if (list.more && !z)
		fprintf(stderr, "hearth: more entries follow: --after %s\n", list.items[list.count - 1].name);
	hearth_entry_list_free(&list);
	return 0;
}

const struct cli_command cli_ls_entry = {
	.name = "ls",
	.usage = "[--tree] [-l] [-i] [VERSION] [PATH]",
	.summary = "list a folder of a version (default: head)",
	.options = ls_options,
	.run = cli_ls,
};
