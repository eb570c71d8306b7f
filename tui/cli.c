/* Dispatch for the line-mode CLI: global options, the command table, help,
 * and what every command shares (opening the Home, errors, paths, colour,
 * progress). */
#include "tui/cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/manual.h"

static const struct cli_option_help no_options[] = { { NULL, NULL } };

static const struct cli_option_help record_options[] = {
	{ "-m, --message MSG", "the version's message" },
	{ "--yes", "record even when that deletes more than max_delete allows, or every file of a root" },
	{ NULL, NULL },
};
static const struct cli_option_help status_options[] = {
	{ "--porcelain", "stable output for scripts: one change a line" },
	{ "-z", "with --porcelain: end entries with NUL, paths unescaped" },
	{ NULL, NULL },
};
static const struct cli_option_help log_options[] = {
	{ "-n, --max-count N", "show at most N versions" },
	{ "--oneline", "one line a version: short id and message" },
	{ "--grep TEXT", "only versions whose message holds TEXT (any case)" },
	{ NULL, NULL },
};
static const struct cli_option_help show_options[] = {
	{ "-p, --patch", "also show a diff of each small text file changed" },
	{ "--cat", "write the bytes of the file at PATH in VERSION to standard output" },
	{ NULL, NULL },
};
static const struct cli_option_help ls_options[] = {
	{ "--tree", "list the working tree as last recorded or checked out" },
	{ "-l, --long", "also show kind, mode, size, time and root" },
	{ "-i, --ids", "show each entry's node id (its identity through renames and moves)" },
	{ "--limit N", "at most N entries (a page)" },
	{ "--after NAME", "start after NAME (the next page)" },
	{ "-z", "end entries with NUL, names unescaped" },
	{ NULL, NULL },
};
static const struct cli_option_help checkout_options[] = {
	{ "-f, --force", "record unrecorded changes as a version first, then check out" },
	{ "--yes", "check out even when that deletes more than max_delete allows, or every file of a root" },
	{ NULL, NULL },
};
static const struct cli_option_help sync_options[] = {
	{ "--all", "sync with every peer in the config, one after the other" },
	{ "--pull", "only take in what the peer has" },
	{ "--push", "only give the peer what it lacks" },
	{ "--porcelain", "stable output for scripts: \"key value\" lines" },
	{ "--checkout", "check out what the sync brought (auto_checkout: true does too)" },
	{ "--no-checkout", "leave the working tree as it is, whatever auto_checkout says" },
	{ "--yes", "record and check out even when that deletes more than max_delete allows" },
	{ NULL, NULL },
};
static const struct cli_option_help peers_options[] = {
	{ "--porcelain", "stable output for scripts: one tab-separated line a peer" },
	{ NULL, NULL },
};
static const struct cli_option_help conflicts_options[] = {
	{ "--porcelain", "stable output for scripts: a conflict a line, then its sides" },
	{ "-v, --verbose", "a text content conflict's base, mine and theirs, overlap by overlap" },
	{ NULL, NULL },
};
static const struct cli_option_help resolve_options[] = {
	{ "--mine", "this replica's side wins" },
	{ "--theirs", "the other replicas' side wins" },
	{ "--both", "keep both: other contents become files beside it (name~hex), names stay as shown" },
	{ "--take VERSION", "a content conflict takes the file as it was in VERSION" },
	{ "--markers", "merge mine and theirs by line, diff3 markers around each overlap; the "
	    "conflict stays listed until the file is recorded without them" },
	{ "-M, --message MSG", "the message of the version the resolution records" },
	{ NULL, NULL },
};
static const struct cli_option_help clone_options[] = {
	{ "-c FILE (global)", "make the replica the joined Home FILE describes; no DIR" },
	{ NULL, NULL },
};
static const struct cli_option_help watch_options[] = {
	{ "--once", "walk every folder once (going on from an interrupted walk), then exit" },
	{ "--check", "only the restart check: stat the folders, mark those that changed" },
	{ NULL, NULL },
};
static const struct cli_option_help fsck_options[] = {
	{ "--repair PEER", "fetch damaged or missing content from PEER, then check again" },
	{ NULL, NULL },
};
static const struct cli_option_help init_options[] = {
	{ "-c FILE (global)", "make the joined Home FILE describes instead" },
	{ NULL, NULL },
};

const struct cli_command cli_commands[] = {
	{ "init", "[DIR]", "make DIR (default: the current folder) a Home", init_options, cli_init },
	{ "record", "[-m MSG] [--yes] [PATH...]", "record what changed (in PATHs) as a new version",
	    record_options, cli_record },
	{ "status", "[--porcelain [-z]]", "show what changed since the last version",
	    status_options, cli_status },
	{ "log", "[-n N] [--oneline] [--grep TEXT]", "list versions, newest first", log_options,
	    cli_log },
	{ "show", "[-p] VERSION [PATH] | --cat VERSION PATH",
	    "show what a version changed, or a file's bytes in it", show_options, cli_show },
	{ "ls", "[--tree] [-l] [-i] [VERSION] [PATH]", "list a folder of a version (default: head)",
	    ls_options, cli_ls },
	{ "checkout", "[-f] [--yes] [VERSION]", "bring the working tree to VERSION (default: head)",
	    checkout_options, cli_checkout },
	{ "export", "VERSION DIR", "write VERSION's tree into an empty folder outside the Home",
	    no_options, cli_export },
	{ "sync", "[--pull | --push] [--checkout | --no-checkout] [--yes] [--porcelain] PEER | --all",
	    "exchange what each side lacks with another replica", sync_options, cli_sync },
	{ "peers", "[--porcelain]", "list the peers and what their last sync did", peers_options,
	    cli_peers },
	{ "serve", "PATH", "the remote end of a sync: the protocol on stdin and stdout",
	    no_options, cli_serve },
	{ "conflicts", "[--porcelain | -v]", "list what replicas did at once that needs you", conflicts_options,
	    cli_conflicts },
	{ "resolve", "--mine|--theirs|--both|--markers|--take VERSION [-M MSG] ID|PATH|GLOB...",
	    "settle conflicts; the choice is recorded as a version at once", resolve_options,
	    cli_resolve },
	{ "clone", "SOURCE [DIR]", "make a new replica of SOURCE's Home, keeping what DIR holds",
	    clone_options, cli_clone },
	{ "reid", "", "give a copied replica a fresh replica id", no_options, cli_reid },
	{ "watch", "[--once | --check]", "keep the index current, so status needs no walk",
	    watch_options, cli_watch },
	{ "fsck", "[--repair PEER]", "check the store, name anything damaged, mend it from a peer",
	    fsck_options, cli_fsck },
	{ "demo", "", "open the app on a scratch demo Home (made on first use)", no_options,
	    cli_demo },
	{ "config", "check", "print the effective config and where it came from", no_options,
	    cli_config },
	{ "stats", "", "the store's size and cost counters", no_options, cli_stats },
	{ "version", "", "print hearth's version", no_options, cli_version },
	{ "help", "[COMMAND]", "describe hearth's commands, or one of them", no_options, cli_help },
};
const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

const struct cli_command *
cli_find(const char *name)
{
	for (size_t i = 0; i < cli_command_count; i++)
		if (strcmp(cli_commands[i].name, name) == 0)
			return &cli_commands[i];
	return NULL;
}

int
cli_fail(const struct hearth_error *error)
{
	fprintf(stderr, "hearth: %s\n", error->message);
	return hearth_exit_status(error->code);
}

bool
cli_confirm_deletes(const struct hearth_delete_guard *guard, const struct hearth_error *error,
    const char *question)
{
	char answer[64];

	if (!guard->refused || !isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return false;
	fprintf(stderr, "hearth: %s\n%s [y/N] ", error->message, question);
	fflush(stderr);
	if (fgets(answer, sizeof answer, stdin) == NULL)
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

int
cli_usage_error(const struct cli_command *command, const char *format, ...)
{
	va_list args;

	fputs("hearth: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	if (!manual_print_usage(command->name, stderr))
		fprintf(stderr, "usage: hearth %s %s\n", command->name, command->usage);
	return 2;
}

int
cli_option_error(const struct cli_command *command, int option, char **argv)
{
	const char *given = argv[optind - 1];

	if (option == ':')
		return cli_usage_error(command, "%s needs a value", given);
	if (optopt != 0 && strncmp(given, "--", 2) != 0)
		return cli_usage_error(command, "unknown option -%c", optopt);
	return cli_usage_error(command, "unknown option %s", given);
}

void
cli_print_help(const struct cli_command *command, FILE *out)
{
	/* The command's entry of hearth(1), so help and page are one text. */
	if (manual_print_command(command->name, out))
		return;
	fprintf(out, "usage: hearth %s %s\n\n%s.\n", command->name, command->usage,
	    command->summary);
	if (command->options[0].option != NULL)
		fputs("\noptions:\n", out);
	for (const struct cli_option_help *option = command->options; option->option; option++)
		fprintf(out, "  %-22s %s\n", option->option, option->description);
	fprintf(out, "\nSee hearth(1) for more.\n");
}

bool
cli_wants_help(const struct cli_command *command, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_print_help(command, stdout);
			return true;
		}
	}
	return false;
}

int
cli_open(struct cli *cli)
{
	struct hearth_open_options options = { .config_path = cli->config_path };
	struct hearth_error error;

	if (cli->home != NULL)
		return 0;
	if (hearth_open(&cli->home, &options, &error) != 0)
		return cli_fail(&error);
	return 0;
}

void
cli_print_path(FILE *out, const char *path, bool raw)
{
	char escaped[16384];

	if (raw) {
		fputs(path, out);
		return;
	}
	hearth_escape_name(path, escaped, sizeof escaped);
	fputs(escaped, out);
}

const char *
cli_colour(const struct cli *cli, char kind)
{
	if (!cli->colour)
		return "";
	switch (kind) {
	case 'A':
		return "\033[32m";
	case 'D':
		return "\033[31m";
	case 'M':
	case 'T':
		return "\033[33m";
	case 'R':
		return "\033[36m";
	case 'C':
		return "\033[1;31m";
	case 'I':
		return "\033[33m";	/* ids */
	default:
		return "";
	}
}

const char *
cli_colour_reset(const struct cli *cli)
{
	return cli->colour ? "\033[m" : "";
}

static void
show_progress(void *context, const struct hearth_progress_report *report)
{
	(void)context;
	if (report->total > 0)
		fprintf(stderr, "\r%s: %llu/%llu\033[K", report->phase,
		    (unsigned long long)report->done, (unsigned long long)report->total);
	else
		fprintf(stderr, "\r%s: %llu\033[K", report->phase, (unsigned long long)report->done);
}

struct hearth_progress
cli_progress(struct cli *cli)
{
	struct hearth_progress progress = { 0 };
	if (cli->progress)
		progress.report = show_progress;
	return progress;
}

void
cli_progress_done(struct cli *cli)
{
	if (cli->progress)
		fputs("\r\033[K", stderr);
}

int
cli_home_paths(struct cli *cli, int count, char **paths, char ***out)
{
	struct hearth_error error;
	char path[8192];

	*out = calloc((size_t)count + 1, sizeof **out);
	for (int i = 0; i < count; i++) {
		if (hearth_home_path(cli->home, paths[i], path, sizeof path, &error) != 0) {
			cli_free_paths(i, *out);
			*out = NULL;
			return cli_fail(&error);
		}
		(*out)[i] = strdup(path);
	}
	return 0;
}

void
cli_free_paths(int count, char **paths)
{
	for (int i = 0; paths != NULL && i < count; i++)
		free(paths[i]);
	free(paths);
}

static int
global_usage(void)
{
	fputs("usage: hearth [-c FILE] [COMMAND [ARG...]]\n"
	      "With no command, hearth opens the full-screen app. `hearth help` lists the "
	      "commands.\n", stderr);
	return 2;
}

int
cli_run(int argc, char **argv)
{
	struct cli cli = { .program = argv[0] };
	int first = 1;

	/* NO_COLOR counts when set and not empty (no-color.org). */
	const char *no_colour = getenv("NO_COLOR");
	cli.colour = isatty(STDOUT_FILENO) && (no_colour == NULL || no_colour[0] == '\0');
	cli.progress = isatty(STDERR_FILENO);
	while (first < argc && argv[first][0] == '-') {
		if ((strcmp(argv[first], "-c") == 0 || strcmp(argv[first], "--config") == 0) &&
		    first + 1 < argc) {
			cli.config_path = argv[first + 1];
			first += 2;
		} else if (strcmp(argv[first], "-c") == 0 || strcmp(argv[first], "--config") == 0) {
			fprintf(stderr, "hearth: %s needs a config file\n", argv[first]);
			return global_usage();
		} else if (strncmp(argv[first], "-c", 2) == 0) {
			cli.config_path = argv[first] + 2;
			first++;
		} else if (strncmp(argv[first], "--config=", 9) == 0) {
			cli.config_path = argv[first] + 9;
			first++;
		} else if (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0) {
			return cli_help(&cli, 1, argv);
		} else if (strcmp(argv[first], "--version") == 0) {
			return cli_version(&cli, 1, argv);
		} else if (strcmp(argv[first], "--dump-actions") == 0) {
			/* Hidden: the app's key bindings, one a line, for the tests
			 * that keep help, man page and keymap in step. */
			return app_dump_actions(stdout);
		} else if (strcmp(argv[first], "--dump-docs") == 0) {
			/* Hidden: commands, options, config keys, theme roles and
			 * bindings, for the docs tests and the shell completions. */
			return manual_dump_docs(stdout);
		} else {
			fprintf(stderr, "hearth: unknown option %s\n", argv[first]);
			return global_usage();
		}
	}
	if (first == argc) {
		struct hearth_open_options options = { .config_path = cli.config_path };
		return app_run(&options);
	}
	const struct cli_command *command = cli_find(argv[first]);
	if (command == NULL) {
		fprintf(stderr, "hearth: '%s' is not a command. See `hearth help`.\n", argv[first]);
		return 2;
	}
	int status;
	if (cli_wants_help(command, argc - first, argv + first))
		status = 0;
	else
		status = command->run(&cli, argc - first, argv + first);
	char notice[HEARTH_ERROR_MAX];
	if (hearth_take_notice(cli.home, notice, sizeof notice))
		fprintf(stderr, "hearth: %s\n", notice);
	hearth_close(cli.home);
	if (fflush(stdout) != 0 && status == 0) {
		perror("hearth: standard output");
		status = 1;
	}
	return status;
}
