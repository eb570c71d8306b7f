/* hearth status [--porcelain [-z]]: what changed since the last version,
 * and where the tree stands against head. */
#include <stdio.h>
#include <string.h>

#include "tui/cli.h"

static const char *
kind_word(enum hearth_change_kind kind)
{
	switch (kind) {
	case HEARTH_ADDED:
		return "added:   ";
	case HEARTH_DELETED:
		return "deleted: ";
	case HEARTH_MOVED:
		return "moved:   ";
	case HEARTH_CONFLICTED:
		return "conflict:";
	case HEARTH_TYPE_CHANGED:
		return "retyped: ";
	default:
		return "modified:";
	}
}

/* Stable for scripts (hearth(1) documents it): "# key value" lines, then
 * one line per change: kind letter, space, path ("R old -> new" for moves);
 * with -z, NUL-terminated and unescaped, a move as "R new\0old\0". */
static void
print_porcelain(const struct hearth_status_report *report, bool z)
{
	char end = z ? '\0' : '\n';

	printf("# tree %s%c", report->tree_version[0] ? report->tree_version : "none", end);
	printf("# head %s%c", report->head_version[0] ? report->head_version : "none", end);
	printf("# unnamed %llu%c", (unsigned long long)report->head_unnamed_ops, end);
	printf("# ahead %llu%c", (unsigned long long)report->head_ahead, end);
	printf("# changes %llu%c", (unsigned long long)report->head_changes, end);
	printf("# restore %llu%c", (unsigned long long)report->restore_paths, end);
	printf("# conflicts %llu%c", (unsigned long long)report->conflicts, end);
	for (size_t i = 0; i < report->notes.count; i++)
		printf("# note %s%c", report->notes.items[i], end);
	for (size_t i = 0; i < report->changes.count; i++) {
		const struct hearth_change *change = &report->changes.items[i];
		printf("%c ", (char)change->kind);
		if (change->old_path != NULL && z) {
			cli_print_path(stdout, change->path, true);
			putchar('\0');
			cli_print_path(stdout, change->old_path, true);
		} else {
			if (change->old_path != NULL) {
				cli_print_path(stdout, change->old_path, false);
				fputs(" -> ", stdout);
			}
			cli_print_path(stdout, change->path, z);
		}
		putchar(end);
	}
}

/* Where the tree stands, when head is a version (the usual case). */
static void
print_named_head(struct cli *cli, const struct hearth_status_report *report)
{
	const char *on = cli_colour(cli, 'I'), *off = cli_colour_reset(cli);
	bool at_head = strcmp(report->tree_version, report->head_version) == 0;

	if (report->tree_short[0] == '\0')
		printf("No version checked out yet; head is %s%s%s (`hearth checkout` brings it).\n",
		    on, report->head_short, off);
	else if (at_head && report->head_changes > 0)
		/* Recorded while behind head: the version holds what the tree
		 * lacks (a peer's work it never undoes). */
		printf("At version %s%s%s (head), but the working tree lacks %llu of its changes "
		       "(`hearth checkout` brings %s).\n", on, report->tree_short, off,
		    (unsigned long long)report->head_changes, report->head_changes == 1 ? "it" : "them");
	else if (at_head)
		printf("At version %s%s%s (head).\n", on, report->tree_short, off);
	else
		printf("At version %s%s%s; head is %s.\n", on, report->tree_short, off,
		    report->head_short);
	if (report->head_changes > 0 && !at_head)
		printf("Head has %llu change%s the working tree lacks (`hearth checkout` brings "
		       "%s).\n", (unsigned long long)report->head_changes,
		    report->head_changes == 1 ? "" : "s", report->head_changes == 1 ? "it" : "them");
}

/* Where the tree stands when head holds ops no version names (a Home of
 * an older build, or one a peer pushed into): head is that state. */
static void
print_unnamed_head(struct cli *cli, const struct hearth_status_report *report)
{
	const char *on = cli_colour(cli, 'I'), *off = cli_colour_reset(cli);

	printf("Head is the head state: %llu op%s past %s%s%s%s that no version names yet (the "
	       "next sync records a merge version).\n", (unsigned long long)report->head_unnamed_ops,
	    report->head_unnamed_ops == 1 ? "" : "s", report->head_short[0] ? "version " : "",
	    on, report->head_short[0] ? report->head_short : "the empty Home", off);
	if (report->tree_at_head)
		printf("The working tree is at head.\n");
	else if (report->tree_short[0] != '\0')
		printf("The working tree is at version %s%s%s.\n", on, report->tree_short, off);
	else
		printf("No version checked out yet.\n");
	if (report->head_changes > 0)
		printf("Head has %llu change%s the working tree lacks (`hearth checkout` brings "
		       "%s).\n", (unsigned long long)report->head_changes,
		    report->head_changes == 1 ? "" : "s", report->head_changes == 1 ? "it" : "them");
}

static void
print_human(struct cli *cli, const struct hearth_status_report *report)
{
	if (report->tree_short[0] == '\0' && report->head_short[0] == '\0' && report->head_named)
		printf("No versions yet.\n");
	else if (report->head_named)
		print_named_head(cli, report);
	else
		print_unnamed_head(cli, report);
	if (report->restore_paths > 0)
		printf("Recording will restore this version's content for %llu path%s.\n",
		    (unsigned long long)report->restore_paths, report->restore_paths == 1 ? "" : "s");
	if (report->conflicts > 0)
		printf("%llu conflict%s listed.\n", (unsigned long long)report->conflicts,
		    report->conflicts == 1 ? "" : "s");
	for (size_t i = 0; i < report->notes.count; i++)
		printf("Note: %s.\n", report->notes.items[i]);
	/* A running watch keeps the index current: nothing was walked. */
	if (report->from_index)
		printf("From the watched index: %llu folder%s listed, no walk.\n",
		    (unsigned long long)report->folders_listed, report->folders_listed == 1 ? "" : "s");
	if (report->changes.count == 0) {
		printf("Nothing changed since then.\n");
		return;
	}
	printf("Changes not recorded:\n");
	for (size_t i = 0; i < report->changes.count; i++) {
		const struct hearth_change *change = &report->changes.items[i];
		printf("  %s%s ", cli_colour(cli, (char)change->kind), kind_word(change->kind));
		if (change->old_path != NULL) {
			cli_print_path(stdout, change->old_path, false);
			fputs(" -> ", stdout);
		}
		cli_print_path(stdout, change->path, false);
		if (change->entry_kind == HEARTH_DIR)
			putchar('/');
		/* Between roots (from the HDD folder to the SSD one, say); a
		 * deleted file's roots say nothing of a move. */
		if (change->kind == HEARTH_MOVED && change->old_root != NULL && change->root != NULL &&
		    strcmp(change->old_root, change->root) != 0)
			printf(" (%s -> %s)", change->old_root, change->root);
		printf("%s\n", cli_colour_reset(cli));
	}
}

static const struct cli_option status_options[] = {
	{ 'P', "--porcelain", NULL, "stable output for scripts: one change a line" },
	{ 'z', "-z", NULL, "with --porcelain: end entries with NUL, paths unescaped" },
	{ 'v', "-v, --verbose", NULL, "also print the diff of every change below the list" },
	{ 'p', "-p, --patch", NULL, "the same as -v" },
	{ 0 },
};

static int
cli_status(struct cli *cli, int argc, char **argv)
{
	bool porcelain = false, z = false, patch = false;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'P')
			porcelain = true;
		else if (option == 'z')
			z = true;
		else if (option == 'v' || option == 'p')
			patch = true;
		else
			return cli_option_error(cli, option, argv);
	}
	if (optind < argc)
		return cli_usage_error(cli, "status takes no paths");
	if (z && !porcelain)
		return cli_usage_error(cli, "-z goes with --porcelain");
	if (patch && porcelain)
		return cli_usage_error(cli, "-p does not go with --porcelain");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct hearth_status_report report;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);
	status = hearth_status(cli->home, &progress, &report, &error);
	cli_progress_done(cli);
	if (status != 0)
		return cli_fail(&error);
	if (porcelain)
		print_porcelain(&report, z);
	else
		print_human(cli, &report);
	bool changed = report.changes.count > 0;
	hearth_status_report_free(&report);
	if (!patch || !changed)
		return 0;
	/* The same diffs as `hearth diff`, below the list. */
	putchar('\n');
	struct hearth_compare_options compare = { 0 };
	return cli_print_comparison(cli, &compare, CLI_DIFF_PATCH);
}

const struct cli_command cli_status_entry = {
	.name = "status",
	.usage = "[--porcelain [-z] | -p]",
	.summary = "show what changed since the last version",
	.options = status_options,
	.run = cli_status,
};
