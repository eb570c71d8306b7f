/* Dispatch for the line-mode CLI: global options, the command table, help,
 * and what every command shares (opening the Home, errors, paths, colour,
 * progress). */
#include "tui/cli.h"

#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/yaml_tree.h"
#include "tui/app.h"
#include "tui/manual.h"
#include "tui/progress.h"

const struct cli_option cli_no_options[] = { { 0 } };

/* In the order `hearth help` lists them. */
const struct cli_command *const cli_commands[] = {
	&cli_init_entry, &cli_record_entry, &cli_status_entry, &cli_log_entry, &cli_show_entry,
	&cli_diff_entry, &cli_ls_entry, &cli_checkout_entry, &cli_export_entry, &cli_sync_entry, &cli_peers_entry,
	&cli_serve_entry, &cli_conflicts_entry, &cli_resolve_entry, &cli_clone_entry,
	&cli_reid_entry, &cli_watch_entry, &cli_fsck_entry, &cli_demo_entry, &cli_config_entry,
	&cli_stats_entry, &cli_gc_entry, &cli_version_entry, &cli_help_entry,
};
const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

const struct cli_command *
cli_find(const char *name)
{
	for (size_t i = 0; i < cli_command_count; i++)
		if (strcmp(cli_commands[i]->name, name) == 0)
			return cli_commands[i];
	return NULL;
}

/* The closest command to a mistyped one, or NULL. */
static const char *
suggest_command(const char *typed)
{
	const char *names[sizeof cli_commands / sizeof cli_commands[0]];

	for (size_t i = 0; i < cli_command_count; i++)
		names[i] = cli_commands[i]->name;
	return config_nearest_word(typed, names, cli_command_count);
}

#define CLI_OPTIONS_MAX 16

/* getopt_long's two tables, built from the running command's options. */
static struct {
	const struct cli_command *command;
	struct option longs[CLI_OPTIONS_MAX + 1];
	char letters[3 * CLI_OPTIONS_MAX + 3];
} parser;

/* "-m, --message": the letter (or 0) and the long name (or NULL, with its
 * length) of an option's flags. */
static void
option_flags(const char *flags, char *letter, const char **name, size_t *length)
{
	*letter = 0;
	*name = NULL;
	*length = 0;
	for (const char *at = flags; *at != '\0'; at += strspn(at, ", ")) {
		size_t word = strcspn(at, ", ");
		if (strncmp(at, "--", 2) == 0) {
			*name = at + 2;
			*length = word - 2;
		} else if (at[0] == '-' && word == 2) {
			*letter = at[1];
		}
		at += word;
	}
}

static void
parser_build(const struct cli_command *command)
{
	size_t longs = 0, letters = 0;
	static char names[CLI_OPTIONS_MAX][32];

	memset(&parser, 0, sizeof parser);
	parser.command = command;
	parser.letters[letters++] = command->options_first ? '+' : ':';
	if (command->options_first)
		parser.letters[letters++] = ':';
	for (const struct cli_option *option = command->options; option->flags != NULL; option++) {
		char letter;
		const char *name;
		size_t length;
		if (option->key == CLI_GLOBAL || longs == CLI_OPTIONS_MAX)
			continue;
		option_flags(option->flags, &letter, &name, &length);
		if (letter != 0) {
			parser.letters[letters++] = letter;
			if (option->value != NULL)
				parser.letters[letters++] = ':';
		}
		if (name == NULL || length >= sizeof names[0])
			continue;
		memcpy(names[longs], name, length);
		names[longs][length] = '\0';
		parser.longs[longs] = (struct option) {
			names[longs], option->value != NULL ? required_argument : no_argument, NULL,
			option->key,
		};
		longs++;
	}
}

int
cli_next_option(struct cli *cli, int argc, char **argv)
{
	if (parser.command != cli->command)
		parser_build(cli->command);
	return getopt_long(argc, argv, parser.letters, parser.longs, NULL);
}

int
cli_fail(const struct hearth_error *error)
{
	fprintf(stderr, "hearth: %s\n", error->message);
	return hearth_exit_status(error->code);
}

int
cli_fail_peer(struct cli *cli, const struct hearth_error *error, const char *peer)
{
	int status = cli_fail(error);
	const struct config *config = cli->home != NULL ? hearth_config(cli->home) : NULL;

	if (error->code != HEARTH_USAGE || config == NULL || config->peer_count == 0)
		return status;
	const char **names = calloc(config->peer_count, sizeof *names);
	if (names == NULL)
		return status;
	for (size_t i = 0; i < config->peer_count; i++)
		names[i] = config->peers[i].name;
	const char *near = config_nearest_word(peer, names, config->peer_count);
	if (near != NULL)
		fprintf(stderr, "hearth: did you mean the peer %s?\n", near);
	free(names);
	return status;
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
cli_usage_error(struct cli *cli, const char *format, ...)
{
	const struct cli_command *command = cli->command;
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

/* The command's flag closest to a mistyped one ("--mesage"), or NULL. */
static const char *
suggest_option(const struct cli_command *command, const char *given)
{
	static char flags[CLI_OPTIONS_MAX][40];
	const char *names[CLI_OPTIONS_MAX];
	size_t count = 0;
	char typed[40];

	/* "--mesage=hi" is compared without its value. */
	snprintf(typed, sizeof typed, "%.*s", (int)strcspn(given, "="), given);
	for (const struct cli_option *option = command->options;
	     option->flags != NULL && count < CLI_OPTIONS_MAX; option++) {
		char letter;
		const char *name;
		size_t length;
		if (option->key == CLI_GLOBAL)
			continue;
		option_flags(option->flags, &letter, &name, &length);
		if (name != NULL)
			snprintf(flags[count], sizeof flags[count], "--%.*s", (int)length, name);
		else
			snprintf(flags[count], sizeof flags[count], "-%c", letter);
		names[count] = flags[count];
		count++;
	}
	return config_nearest_word(typed, names, count);
}

int
cli_option_error(struct cli *cli, int option, char **argv)
{
	const char *given = argv[optind - 1];

	if (option == ':')
		return cli_usage_error(cli, "%s needs a value", given);
	if (optopt != 0 && strncmp(given, "--", 2) != 0)
		return cli_usage_error(cli, "unknown option -%c", optopt);
	const char *near = suggest_option(cli->command, given);
	if (near != NULL)
		return cli_usage_error(cli, "unknown option %s; did you mean %s?", given, near);
	return cli_usage_error(cli, "unknown option %s", given);
}

/* "-m, --message MSG" as help and --dump-docs show an option. */
void
cli_option_text(const struct cli_option *option, char *out, size_t size)
{
	snprintf(out, size, "%s%s%s%s", option->flags, option->value ? " " : "",
	    option->value ? option->value : "", option->key == CLI_GLOBAL ? " (global)" : "");
}

void
cli_print_help(const struct cli_command *command, FILE *out)
{
	/* The command's entry of hearth(1), so help and page are one text. */
	if (manual_print_command(command->name, out))
		return;
	fprintf(out, "usage: hearth %s %s\n\n%s.\n", command->name, command->usage,
	    command->summary);
	if (command->options[0].flags != NULL)
		fputs("\noptions:\n", out);
	for (const struct cli_option *option = command->options; option->flags; option++) {
		char text[128];
		cli_option_text(option, text, sizeof text);
		fprintf(out, "  %-22s %s\n", text, option->help);
	}
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
	size_t length = hearth_escape_name(path, escaped, sizeof escaped);
	if (length < sizeof escaped) {
		fputs(escaped, out);
		return;
	}
	/* Longer than a path gets (a version's message): escaped whole. */
	char *whole = malloc(length + 1);
	if (whole == NULL) {
		fputs(escaped, out);
		return;
	}
	hearth_escape_name(path, whole, length + 1);
	fputs(whole, out);
	free(whole);
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

/* Set by the first Ctrl-C: long commands stop at their next safe point. */
static atomic_int cli_cancel;

static void
cli_interrupted(int signal_number)
{
	static const char text[] = "\nhearth: cancelling at the next safe point "
	    "(Ctrl-C again stops at once)\n";

	if (atomic_exchange(&cli_cancel, 1) != 0) {
		struct sigaction action = { .sa_handler = SIG_DFL };
		sigaction(signal_number, &action, NULL);
		raise(signal_number);
		return;
	}
	ssize_t ignored = write(STDERR_FILENO, text, sizeof text - 1);
	(void)ignored;
}

/* The first Ctrl-C cancels (hearth(1): the store stays as it was), the
 * second ends the program as usual. */
static void
catch_interrupt(void)
{
	static bool caught;
	struct sigaction action = { .sa_handler = cli_interrupted };

	if (caught)
		return;
	caught = true;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
}

/* "[######......] storing 41% 12/30, 103.2 MiB of 250.0 MiB, 12.3 MiB/s,
 * 12 s left" on one line of stderr, redrawn as reports come (the backend
 * sends about ten a second). */
static void
show_progress(void *context, const struct hearth_progress_report *report)
{
	enum { BAR = 20 };
	struct cli *cli = context;
	char line[512], bar[BAR + 3] = "";
	double fraction = progress_fraction(report);

	/* Until the peer's first answer the terminal may be ssh's: a line
	 * drawn now lands over its host-key or password question. */
	if (strcmp(report->phase, "connecting") == 0)
		return;

	progress_line(&cli->clock, report, line, sizeof line);
	if (fraction >= 0) {
		int filled = (int)(fraction * BAR);
		bar[0] = '[';
		for (int i = 0; i < BAR; i++)
			bar[i + 1] = i < filled ? '#' : '.';
		bar[BAR + 1] = ']';
		bar[BAR + 2] = '\0';
	}
	char drawn[sizeof line + sizeof bar + 2];
	snprintf(drawn, sizeof drawn, "%s%s%s", bar, bar[0] ? " " : "", line);
	/* The same line again is not drawn: while ssh asks for a password
	 * or a host key on this terminal, nothing moves and nothing is
	 * written over its question. */
	if (strcmp(drawn, cli->last_progress) == 0)
		return;
	snprintf(cli->last_progress, sizeof cli->last_progress, "%s", drawn);
	fprintf(stderr, "\r%s\033[K", drawn);
	fflush(stderr);
}

struct hearth_progress
cli_progress(struct cli *cli)
{
	struct hearth_progress progress = { .context = cli, .cancel = &cli_cancel };

	catch_interrupt();
	if (cli->progress)
		progress.report = show_progress;
	return progress;
}

void
cli_progress_done(struct cli *cli)
{
	if (cli->progress)
		fputs("\r\033[K", stderr);
	memset(&cli->clock, 0, sizeof cli->clock);
	cli->last_progress[0] = '\0';
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

int
cli_not_a_command(const char *typed)
{
	const char *near = suggest_command(typed);

	if (near != NULL)
		fprintf(stderr, "hearth: '%s' is not a command; did you mean `hearth %s`?\n", typed,
		    near);
	else
		fprintf(stderr, "hearth: '%s' is not a command. See `hearth help`.\n", typed);
	return 2;
}

static int
global_usage(void)
{
	fputs("usage: hearth [-c FILE] [COMMAND [ARG...]]\n"
	      "With no command, hearth opens the full-screen app. `hearth help` lists the "
	      "commands.\n", stderr);
	return 2;
}

/* Runs one command of the table as if typed, for the line mode below. */
static int
run_as_typed(struct cli *cli, int argc, char **argv)
{
	cli->command = cli_find(argv[0]);
	optind = 1;
	return cli->command->run(cli, argc, argv);
}

/* `hearth` on a terminal the app cannot draw on: what the app would open
 * on, as the line CLI prints it (status, then the newest versions). */
static int
line_mode(struct cli *cli, const char *why)
{
	char status_word[] = "status", log_word[] = "log", oneline[] = "--oneline", count[] = "-n",
	     ten[] = "10";
	char *status_argv[] = { status_word, NULL };
	char *log_argv[] = { log_word, oneline, count, ten, NULL };

	/* Such a terminal shows escapes as they are: no colour, no progress. */
	cli->colour = cli->progress = false;
	fprintf(stderr, "hearth: %s; here are `hearth status` and `hearth log --oneline -n 10` "
	    "instead (in a terminal such as xterm, hearth opens the app).\n", why);
	int status = run_as_typed(cli, 1, status_argv);
	if (status == 0) {
		fputs("\nNewest versions:\n", stdout);
		status = run_as_typed(cli, 4, log_argv);
	}
	hearth_close(cli->home);
	return status;
}

/* The light upkeep after a command that made packs (hearth_upkeep): its
 * failure is said but fails nothing, since the command's work is done. */
static void
cli_upkeep(struct cli *cli)
{
	struct hearth_gc_result result;
	struct hearth_error error;

	if (hearth_upkeep(cli->home, &result, &error) != 0)
		fprintf(stderr, "hearth: the upkeep after this command failed: %s\n", error.message);
	else if (result.ran)
		cli_gc_report(stderr, &result);
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
			cli.command = &cli_help_entry;
			return cli_help_entry.run(&cli, 1, argv);
		} else if (strcmp(argv[first], "--version") == 0) {
			cli.command = &cli_version_entry;
			return cli_version_entry.run(&cli, 1, argv);
		} else if (strcmp(argv[first], "--dump-actions") == 0) {
			/* Hidden: the app's key bindings, one a line, for the tests
			 * that keep help, man page and keymap in step. */
			struct hearth_open_options options = { .config_path = cli.config_path };
			return app_dump_actions(&options, stdout);
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
		char why[256];
		if (isatty(STDOUT_FILENO) && !app_terminal_can_draw(why, sizeof why))
			return line_mode(&cli, why);
		return app_run(&options);
	}
	const struct cli_command *command = cli_find(argv[first]);
	if (command == NULL)
		return cli_not_a_command(argv[first]);
	int status;
	cli.command = command;
	optind = 1;
	opterr = 0;
	if (cli_wants_help(command, argc - first, argv + first))
		status = 0;
	else
		status = command->run(&cli, argc - first, argv + first);
	if (status == 0 && cli.home != NULL)
		cli_upkeep(&cli);
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

void
cli_format_arrived(uint64_t prefilled, char *out, size_t size)
{
	if (prefilled == 0 && size > 0)
		out[0] = '\0';
	else if (prefilled > 0)
		snprintf(out, size, " (%llu as %s bytes arrived)", (unsigned long long)prefilled,
		    prefilled == 1 ? "its" : "their");
}
