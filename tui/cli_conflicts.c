/* hearth conflicts [--porcelain | -v]: what replicas did at once that needs a
 * person; hearth resolve (--mine|--theirs|--both|--markers|--take VERSION) TARGET...:
 * settle them, recorded at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"

static void
print_side(const struct hearth_conflict *conflict, const struct hearth_conflict_side *side)
{
	char when[80] = "";

	if (side->time != 0)
		cli_format_time(side->time, 0, when, sizeof when);
	printf("    %s %-6s %.8s/%llu %s%s%s", side->shown ? "*" : " ", side->what, side->replica,
	    (unsigned long long)side->counter, side->mine ? "(this replica) " : "",
	    side->author[0] ? side->author : "", when[0] ? ", " : "");
	printf("%s", when);
	if (side->has_content)
		printf(", %llu bytes, %.12s", (unsigned long long)side->size, side->hash);
	if (strcmp(side->what, "move") == 0 || strcmp(side->what, "name") == 0 ||
	    strcmp(side->what, "add") == 0) {
		fputs(" -> ", stdout);
		cli_print_path(stdout, side->path, false);
	}
	if (strcmp(side->what, "name") == 0 && side->shown_path != NULL &&
	    strcmp(side->shown_path, side->path) != 0) {
		fputs(", shown as ", stdout);
		cli_print_path(stdout, side->shown_path, false);
	}
	/* A revived folder's edit is of a file in it. */
	if (strcmp(side->what, "edit") == 0 && strcmp(side->path, conflict->path) != 0) {
		fputs(" of ", stdout);
		cli_print_path(stdout, side->path, false);
	}
	putchar('\n');
}

/* For scripts (hearth(1)): "ID KIND PATH" a conflict, then "  SIDE" lines
 * "REPLICA COUNTER WHAT mine|theirs shown|hidden SIZE HASH PATH". */
static void
print_porcelain(const struct hearth_conflict_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		const struct hearth_conflict *conflict = &list->items[i];
		printf("%s %s ", conflict->id, conflict->kind_name);
		cli_print_path(stdout, conflict->path, false);
		putchar('\n');
		for (size_t j = 0; j < conflict->side_count; j++) {
			const struct hearth_conflict_side *side = &conflict->sides[j];
			printf("  %s %llu %s %s %s %llu %s ", side->replica,
			    (unsigned long long)side->counter, side->what, side->mine ? "mine" : "theirs",
			    side->shown ? "shown" : "hidden", (unsigned long long)side->size,
			    side->hash[0] ? side->hash : "-");
			cli_print_path(stdout, side->path, false);
			putchar('\n');
		}
	}
}

/* Lines of one side of an overlap, each behind a bar. */
static void
print_lines(const char *label, const char *text)
{
	printf("      %s:\n", label);
	if (text[0] == '\0')
		printf("        | (nothing)\n");
	for (const char *line = text; *line != '\0';) {
		const char *end = strchr(line, '\n');
		size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
		printf("        | %.*s\n", (int)length, line);
		line += length + (end != NULL);
	}
}

/* conflicts -v: the three-way view of a content conflict. */
static void
print_merge(struct cli *cli, const struct hearth_conflict *conflict)
{
	struct hearth_conflict_merge merge;
	struct hearth_error error;
	char mine[512], theirs[512];

	if (hearth_conflict_merge(cli->home, conflict->id, &merge, &error) != 0) {
		printf("    (%s)\n", error.message);
		return;
	}
	if (!merge.text) {
		printf("    not merged by line: %s\n", merge.why);
	} else if (merge.overlap_count == 0) {
		printf("    its sides merge by line with no overlap: the next sync merges them\n");
	} else {
		printf("    %zu overlap%s against their base%s:\n", merge.overlap_count,
		    merge.overlap_count == 1 ? "" : "s",
		    merge.sides_folded ? " (the first sides merged into mine)" : "");
		snprintf(mine, sizeof mine, "mine (%s)", merge.mine_label);
		snprintf(theirs, sizeof theirs, "theirs (%s)", merge.theirs_label);
		for (size_t i = 0; i < merge.overlap_count; i++) {
			const struct hearth_overlap *overlap = &merge.overlaps[i];
			if (overlap->base_count == 0)
				printf("    @@ at base line %llu\n", (unsigned long long)overlap->base_line);
			else
				printf("    @@ base lines %llu-%llu\n", (unsigned long long)overlap->base_line,
				    (unsigned long long)(overlap->base_line + overlap->base_count - 1));
			print_lines("base", overlap->base);
			print_lines(mine, overlap->mine);
			print_lines(theirs, overlap->theirs);
		}
	}
	hearth_conflict_merge_free(&merge);
}

static const struct cli_option conflicts_options[] = {
	{ 'p', "--porcelain", NULL, "stable output for scripts: a conflict a line, then its sides" },
	{ 'v', "-v, --verbose", NULL, "a text content conflict's base, mine and theirs, overlap by overlap" },
	{ 0 },
};

static int
cli_conflicts(struct cli *cli, int argc, char **argv)
{
	bool porcelain = false, verbose = false;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'p')
			porcelain = true;
		else if (option == 'v')
			verbose = true;
		else
			return cli_option_error(cli, option, argv);
	}
	if (optind < argc || (porcelain && verbose))
		return cli_usage_error(cli, "conflicts takes --porcelain or -v");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct hearth_conflict_list list;
	struct hearth_error error;
	if (hearth_conflicts(cli->home, &list, &error) != 0)
		return cli_fail(&error);
	if (porcelain) {
		print_porcelain(&list);
	} else if (list.count == 0) {
		printf("No conflicts.\n");
	} else {
		for (size_t i = 0; i < list.count; i++) {
			const struct hearth_conflict *conflict = &list.items[i];
			printf("%s%s%s %s%s%s ", cli_colour(cli, 'C'), conflict->kind_name,
			    cli_colour_reset(cli), cli_colour(cli, 'I'), conflict->id, cli_colour_reset(cli));
			cli_print_path(stdout, conflict->path, false);
			putchar('\n');
			for (size_t j = 0; j < conflict->side_count; j++)
				print_side(conflict, &conflict->sides[j]);
			if (verbose && conflict->kind == HEARTH_CONFLICT_CONTENT)
				print_merge(cli, conflict);
		}
		printf("\n`hearth resolve --mine|--theirs|--both|--markers ID|PATH` settles one; * marks "
		       "the side head shows.\n");
	}
	hearth_conflict_list_free(&list);
	return 0;
}

const struct cli_command cli_conflicts_entry = {
	.name = "conflicts",
	.usage = "[--porcelain | -v]",
	.summary = "list what replicas did at once that needs you",
	.options = conflicts_options,
	.run = cli_conflicts,
};

static const struct cli_option resolve_options[] = {
	{ 'm', "--mine", NULL, "this replica's side wins" },
	{ 't', "--theirs", NULL, "the other replicas' side wins" },
	{ 'b', "--both", NULL, "keep both: other contents become files beside it (name~hex), names stay as shown" },
	{ 'v', "--take", "VERSION", "a content conflict takes the file as it was in VERSION" },
	{ 'k', "--markers", NULL, "merge mine and theirs by line, diff3 markers around each overlap; the "
	    "conflict stays listed until the file is recorded without them" },
	{ 'M', "-M, --message", "MSG", "the message of the version the resolution records" },
	{ 0 },
};

static int
cli_resolve(struct cli *cli, int argc, char **argv)
{
	struct hearth_resolve_options resolve = { 0 };
	int option, choices = 0;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		switch (option) {
		case 'm':
			resolve.resolution = HEARTH_KEEP_MINE;
			choices++;
			break;
		case 't':
			resolve.resolution = HEARTH_KEEP_THEIRS;
			choices++;
			break;
		case 'b':
			resolve.resolution = HEARTH_KEEP_BOTH;
			choices++;
			break;
		case 'k':
			resolve.resolution = HEARTH_KEEP_MARKERS;
			choices++;
			break;
		case 'v':
			resolve.resolution = HEARTH_KEEP_VERSION;
			resolve.version = optarg;
			choices++;
			break;
		case 'M':
			resolve.message = optarg;
			break;
		default:
			return cli_option_error(cli, option, argv);
		}
	}
	if (choices != 1)
		return cli_usage_error(cli,
		    "say how: one of --mine, --theirs, --both, --markers, --take VERSION");
	if (optind == argc)
		return cli_usage_error(cli, "name the conflicts (ids, paths or globs)");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	/* Paths as typed become Home-relative; ids and globs pass as they are. */
	char **targets = NULL;
	int count = argc - optind;
	char **converted = calloc((size_t)count + 1, sizeof *converted);
	for (int i = 0; i < count; i++) {
		char path[8192];
		struct hearth_error ignored;
		const char *target = argv[optind + i];
		if (strpbrk(target, "*?[") == NULL &&
		    hearth_home_path(cli->home, target, path, sizeof path, &ignored) == 0)
			converted[i] = strdup(path);
		else
			converted[i] = strdup(target);
	}
	targets = converted;
	resolve.targets = (const char *const *)targets;
	resolve.target_count = (size_t)count;

	struct hearth_resolve_result result;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);
	status = hearth_resolve_conflicts(cli->home, &resolve, &progress, &result, &error);
	cli_progress_done(cli);
	cli_free_paths(count, targets);
	if (status == HEARTH_REFUSED) {
		fprintf(stderr, "hearth: these paths have changes that are not recorded:\n");
		for (size_t i = 0; i < result.changes.count; i++) {
			fputs("  ", stderr);
			cli_print_path(stderr, result.changes.items[i].path, false);
			fputc('\n', stderr);
		}
	}
	if (status != 0) {
		hearth_resolve_result_free(&result);
		return cli_fail(&error);
	}
	printf("Resolved %zu conflict%s as version %.12s\n", result.resolved,
	    result.resolved == 1 ? "" : "s", result.version);
	hearth_resolve_result_free(&result);
	return 0;
}

const struct cli_command cli_resolve_entry = {
	.name = "resolve",
	.usage = "--mine|--theirs|--both|--markers|--take VERSION [-M MSG] ID|PATH|GLOB...",
	.summary = "settle conflicts; the choice is recorded as a version at once",
	.options = resolve_options,
	.run = cli_resolve,
};
