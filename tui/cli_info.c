/* The small commands: fsck (and its --repair), config check, stats, version,
 * help. */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "tui/cli.h"
#include "tui/keys.h"

/* Prints a report's problems and its summary line. */
static void
cli_fsck_print(const struct hearth_fsck_report *report)
{
	for (size_t i = 0; i < report->problem_count; i++)
		printf("%s\n", report->problems[i]);
	printf("checked %llu op%s, %llu version%s, %llu chunk%s, %llu pack%s: %s\n",
	    (unsigned long long)report->ops_checked, report->ops_checked == 1 ? "" : "s",
	    (unsigned long long)report->versions_checked, report->versions_checked == 1 ? "" : "s",
	    (unsigned long long)report->chunks_checked, report->chunks_checked == 1 ? "" : "s",
	    (unsigned long long)report->packs_checked, report->packs_checked == 1 ? "" : "s",
	    report->problem_count ? "PROBLEMS FOUND" : "no problems");
}

static int
cli_fsck_check(struct cli *cli, struct hearth_error *error)
{
	struct hearth_fsck_report report;
	struct hearth_progress progress = cli_progress(cli);
	int status = hearth_fsck(cli->home, &progress, &report, error);

	cli_progress_done(cli);
	cli_fsck_print(&report);
	hearth_fsck_report_free(&report);
	return status;
}

/* --repair PEER: check, mend what can be mended, check again. */
static int
cli_fsck_repair(struct cli *cli, const char *peer)
{
	struct hearth_error error;
	struct hearth_repair_result result;
	struct hearth_repair_options options = { .peer = peer };

	if (cli_fsck_check(cli, &error) == 0) {
		printf("nothing to repair\n");
		return 0;
	}
	struct hearth_progress progress = cli_progress(cli);
	int status = hearth_fsck_repair(cli->home, &options, &progress, &result, &error);
	cli_progress_done(cli);
	printf("repair: %llu damaged or missing chunk%s; %llu copied out of damaged packs, "
	    "%llu fetched from %s, %llu lacking; %llu pack%s retired; %llu marker%s rewritten\n",
	    (unsigned long long)result.chunks_damaged, result.chunks_damaged == 1 ? "" : "s",
	    (unsigned long long)result.chunks_copied, (unsigned long long)result.chunks_fetched,
	    result.peer_name[0] ? result.peer_name : peer,
	    (unsigned long long)result.chunks_lacking, (unsigned long long)result.packs_retired,
	    result.packs_retired == 1 ? "" : "s", (unsigned long long)result.markers_rewritten,
	    result.markers_rewritten == 1 ? "" : "s");
	if (result.ops_damaged > 0 || result.rows_mended > 0)
		printf("repair: %llu damaged op%s; %llu fetched and proved by the hash chain, "
		    "%llu lacking; %llu row%s written anew from their op\n",
		    (unsigned long long)result.ops_damaged, result.ops_damaged == 1 ? "" : "s",
		    (unsigned long long)result.ops_fetched, (unsigned long long)result.ops_lacking,
		    (unsigned long long)result.rows_mended, result.rows_mended == 1 ? "" : "s");
	if (result.index_notes_cleared > 0)
		printf("repair: the index's note that head dropped none of its rows taken away\n");
	if (status != 0 && status != HEARTH_DAMAGED)
		return cli_fail_peer(cli, &error, peer);
	if (status != 0)
		fprintf(stderr, "hearth: %s\n", error.message);
	printf("after the repair:\n");
	status = cli_fsck_check(cli, &error);
	return status == 0 ? 0 : cli_fail(&error);
}

static const struct cli_option fsck_options[] = {
	{ 'r', "--repair", "PEER", "fetch damaged or missing content from PEER, then check again" },
	{ 0 },
};

static int
cli_fsck(struct cli *cli, int argc, char **argv)
{
	const char *repair = NULL;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'r')
			repair = optarg;
		else
			return cli_option_error(cli, option, argv);
	}
	if (optind != argc)
		return cli_usage_error(cli, "fsck takes no arguments but --repair PEER");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	if (repair != NULL)
		return cli_fsck_repair(cli, repair);
	struct hearth_error error;
	status = cli_fsck_check(cli, &error);
	return status == 0 ? 0 : cli_fail(&error);
}

const struct cli_command cli_fsck_entry = {
	.name = "fsck",
	.usage = "[--repair PEER]",
	.summary = "check the store, name anything damaged, mend it from a peer",
	.options = fsck_options,
	.run = cli_fsck,
	.options_first = true,
};

/* A peer whose URL can never work is an error of the config; one whose
 * folder is not there now (a disk not mounted) only a note. */
static int
check_peers(const struct config *config, struct hearth_error *error)
{
	for (size_t i = 0; i < config->peer_count; i++) {
		int status = hearth_check_peer(config, i, error);
		if (status == HEARTH_USAGE)
			return status;
		if (status != 0)
			fprintf(stderr, "Note: %s; a sync with it fails until it is.\n", error->message);
	}
	return 0;
}

static int
cli_config(struct cli *cli, int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "check") != 0)
		return cli_usage_error(cli, "the config command is `config check`");
	struct hearth_open_options options = { .config_path = cli->config_path };
	struct hearth_location location;
	struct hearth_error error;

	if (hearth_locate(&options, &location, &error) != 0)
		return cli_fail(&error);
	char message[4096];
	struct config *config = config_load(location.config_path, message, sizeof message);
	if (config == NULL) {
		fprintf(stderr, "hearth: %s\n", message);
		return 1;
	}
	if (hearth_validate_config(config, &error) != 0 || check_peers(config, &error) != 0) {
		config_free(config);
		return cli_fail(&error);
	}
	/* keys: names the app's actions, which the app checks. */
	if (!keys_apply(config, message, sizeof message)) {
		fprintf(stderr, "hearth: %s\n", message);
		config_free(config);
		return 1;
	}
	printf("# config: %s (found by %s)\n# state: %s\n", location.config_path, location.found_by,
	    location.state_path);
	config_print(config, stdout);
	config_free(config);
	return 0;
}

const struct cli_command cli_config_entry = {
	.name = "config",
	.usage = "check",
	.summary = "print the effective config and where it came from",
	.options = cli_no_options,
	.run = cli_config,
};

static void
print_size(const char *label, unsigned long long bytes)
{
	printf("%-24s %llu (%.1f MiB)\n", label, bytes, bytes / 1048576.0);
}

static int
cli_stats(struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return cli_usage_error(cli, "stats takes no arguments");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct hearth_stats stats;
	struct hearth_error error;
	if (hearth_stats(cli->home, &stats, &error) != 0)
		return cli_fail(&error);
	printf("%-24s %llu\n", "ops", (unsigned long long)stats.ops);
	printf("%-24s %llu\n", "versions", (unsigned long long)stats.versions);
	printf("%-24s %llu\n", "nodes", (unsigned long long)stats.nodes);
	printf("%-24s %llu\n", "index entries", (unsigned long long)stats.entries);
	printf("%-24s %llu\n", "chunks", (unsigned long long)stats.chunks);
	printf("%-24s %llu\n", "packs", (unsigned long long)stats.packs);
	print_size("stored bytes", stats.stored_bytes);
	print_size("pack bytes", stats.pack_bytes);
	printf("%-24s %llu (%.1f%% of stored bytes)\n", "delta chunks",
	    (unsigned long long)stats.delta_chunks, stats.stored_bytes > 0 ?
	    100.0 * (double)stats.delta_bytes / (double)stats.stored_bytes : 0.0);
	printf("%-24s %llu longest, %.1f mean\n", "delta chains",
	    (unsigned long long)stats.depth_max, stats.depth_mean);
	print_size("database bytes", stats.database_bytes);
	print_size("bytes written", stats.bytes_written);
	print_size("content bytes written", stats.content_bytes_written);
	if (stats.content_bytes_written > 0)
		printf("%-24s %.3f\n", "written per stored byte",
		    (double)stats.bytes_written / (double)stats.content_bytes_written);
	printf("%-24s %llu\n", "packs created", (unsigned long long)stats.packs_created);
	printf("%-24s %llu\n", "transactions", (unsigned long long)stats.transactions);
	return 0;
}

/* "1.5 MiB", "12.0 KiB" or "300 bytes". */
static const char *
size_text(char *out, size_t out_size, uint64_t bytes)
{
	if (bytes >= 1024 * 1024)
		snprintf(out, out_size, "%.1f MiB", bytes / 1048576.0);
	else if (bytes >= 1024)
		snprintf(out, out_size, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(out, out_size, "%llu bytes", (unsigned long long)bytes);
	return out;
}

void
cli_gc_report(FILE *out, const struct hearth_gc_result *result)
{
	char before[32], after[32], change[32];
	bool saved = result->bytes_after <= result->bytes_before;
	uint64_t difference = saved ? result->bytes_before - result->bytes_after
				    : result->bytes_after - result->bytes_before;

	fprintf(out, "Packed %llu pack%s (%s) into %llu (%s): %llu chunks copied, %llu as "
	    "deltas; %s %s.\n", (unsigned long long)result->packs_before,
	    result->packs_before == 1 ? "" : "s", size_text(before, sizeof before,
		result->bytes_before), (unsigned long long)result->packs_after,
	    size_text(after, sizeof after, result->bytes_after),
	    (unsigned long long)result->chunks, (unsigned long long)result->delta_chunks,
	    saved ? "saved" : "grew by", size_text(change, sizeof change, difference));
}

static int
cli_gc(struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return cli_usage_error(cli, "gc takes no arguments");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct hearth_gc_result result;
	struct hearth_error error;
	if (hearth_gc(cli->home, &result, &error) != 0)
		return cli_fail(&error);
	if (!result.ran)
		printf("Nothing to pack: the Home holds no pack.\n");
	else
		cli_gc_report(stdout, &result);
	return 0;
}

const struct cli_command cli_gc_entry = {
	.name = "gc",
	.usage = "",
	.summary = "consolidate the packs into few large ones, with deltas across the history",
	.options = cli_no_options,
	.run = cli_gc,
};

const struct cli_command cli_stats_entry = {
	.name = "stats",
	.usage = "",
	.summary = "the store's size and cost counters",
	.options = cli_no_options,
	.run = cli_stats,
};

static int
cli_version(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argv;
	if (argc > 1)
		return cli_usage_error(cli, "version takes no arguments");
	printf("hearth %s\n", hearth_version_string());
	return 0;
}

const struct cli_command cli_version_entry = {
	.name = "version",
	.usage = "",
	.summary = "print hearth's version",
	.options = cli_no_options,
	.run = cli_version,
};

static int
cli_help(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	if (argc >= 2) {
		const struct cli_command *command = cli_find(argv[1]);
		if (command == NULL)
			return cli_not_a_command(argv[1]);
		cli_print_help(command, stdout);
		return 0;
	}
	printf("usage: hearth [-c FILE] [COMMAND [ARG...]]\n\n"
	       "With no command, hearth opens the full-screen app.\n\ncommands:\n");
	for (size_t i = 0; i < cli_command_count; i++)
		printf("  %-9s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
	printf("\n`hearth help COMMAND` or `hearth COMMAND --help` tells more; hearth(1) tells all.\n");
	return 0;
}

const struct cli_command cli_help_entry = {
	.name = "help",
	.usage = "[COMMAND]",
	.summary = "describe hearth's commands, or one of them",
	.options = cli_no_options,
	.run = cli_help,
};
