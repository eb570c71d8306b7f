/* The line-mode CLI: one table of commands (tmux's cmd_table), one file per
 * command (cli_*.c). Every command calls only the backend's public API, the
 * same calls the full-screen app makes. */
#ifndef HEARTH_TUI_CLI_H
#define HEARTH_TUI_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/hearth.h"
#include "tui/progress.h"

struct cli_command;

struct cli {
	const char *config_path;	/* -c FILE */
	hearth *home;			/* opened on first use */
	bool colour;			/* stdout is a terminal and NO_COLOR unset */
	bool progress;			/* stderr is a terminal */
	const char *program;
	const struct cli_command *command;	/* the one running */
	struct progress_clock clock;	/* the phase on show, for its rate */
	char last_progress[600];	/* the progress line last drawn */
};

/* One option of a command, read by its help, the option parser, the
 * completions and the docs tests alike. */
struct cli_option {
	int key;		/* what cli_next_option returns for it; CLI_GLOBAL: hearth's own */
	const char *flags;	/* "-m, --message", "--yes", "-z" */
	const char *value;	/* "MSG" when it takes a value, else NULL */
	const char *help;
};
#define CLI_GLOBAL (-3)	/* an option of hearth itself (-c), named for its help */

/* A command's entry, defined beside its code in tui/cli_NAME.c (tmux's
 * cmd_entry); cli.c gathers them in one table. */
struct cli_command {
	const char *name;
	const char *usage;		/* after "hearth NAME " */
	const char *summary;		/* one line */
	const struct cli_option *options;	/* ends with { 0 } */
	int (*run)(struct cli *cli, int argc, char **argv);
	bool options_first;		/* options end at the first argument */
};

extern const struct cli_command *const cli_commands[];
extern const struct cli_option cli_no_options[];	/* { { 0 } } */
extern const size_t cli_command_count;

const struct cli_command *cli_find(const char *name);
int cli_run(int argc, char **argv);

/* The next option of the running command's argv, parsed by its table:
 * the option's key (optarg holds its value), -1 after the last, '?' or ':'
 * for a bad one (give it to cli_option_error). Arguments start at optind. */
int cli_next_option(struct cli *cli, int argc, char **argv);

/* Opens the Home for a command; prints the error and returns its exit
 * status on failure. */
int cli_open(struct cli *cli);
/* Prints "hearth: message" on stderr and returns the exit status. */
int cli_fail(const struct hearth_error *error);
/* cli_fail for an error about PEER as typed; an unknown name gets the
 * closest peer of the config ("did you mean the peer laptop?"). */
int cli_fail_peer(struct cli *cli, const struct hearth_error *error, const char *peer);
/* "hearth: message" and the running command's usage; returns 2. */
int cli_usage_error(struct cli *cli, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* A bad option from cli_next_option: "needs a value" or "unknown option"
 * (with the closest option of the command), and the usage; returns 2. */
int cli_option_error(struct cli *cli, int option, char **argv);
/* "--help" handling shared by every command: prints help, returns true. */
bool cli_wants_help(const struct cli_command *command, int argc, char **argv);
void cli_print_help(const struct cli_command *command, FILE *out);
/* "-m, --message MSG" ("(global)" after hearth's own), as help shows it. */
void cli_option_text(const struct cli_option *option, char *out, size_t size);
/* "'x' is not a command", with the closest command; returns 2. */
int cli_not_a_command(const char *typed);

/* The guard on emptying refused (error says what it would delete): on a
 * terminal, asks question on stderr and reads a yes from stdin; true only
 * for a yes. Off a terminal false at once: the error names --yes. */
bool cli_confirm_deletes(const struct hearth_delete_guard *guard, const struct hearth_error *error,
    const char *question);

/* Writes a path escaped for one line (hearth_escape_name), or raw with z. */
void cli_print_path(FILE *out, const char *path, bool raw);
/* ANSI colour when allowed: "added", "deleted"... */
const char *cli_colour(const struct cli *cli, char kind);
const char *cli_colour_reset(const struct cli *cli);

/* A progress reporter for long commands: a line on stderr when it is a
 * terminal, and Ctrl-C as the cancel flag (the first cancels at the next
 * safe point, the second ends the program). */
struct hearth_progress cli_progress(struct cli *cli);
void cli_progress_done(struct cli *cli);

/* " (2 as their bytes arrived)" after a count of files written, for the
 * files of them a sync wrote as it received them; "" for none. */
void cli_format_arrived(uint64_t prefilled, char *out, size_t size);

/* "2026-11-29 19:00:00 +0100": the time where it was recorded, as git does. */
void cli_format_time(int64_t time, int32_t utc_offset, char *out, size_t size);

/* Converts user-typed paths to Home-relative ones (owned by the caller). */
int cli_home_paths(struct cli *cli, int count, char **paths, char ***out);
void cli_free_paths(int count, char **paths);

/* What hearth diff prints (cli_diff.c), shared with status -p, show -p
 * and log -p. */
enum cli_diff_form {
	CLI_DIFF_PATCH,
	CLI_DIFF_STAT,
	CLI_DIFF_NAME_STATUS,
};
/* Compares and prints in form; returns the exit status. */
int cli_print_comparison(struct cli *cli, const struct hearth_compare_options *options,
    enum cli_diff_form form);
/* A diff text (hearth_diff, hearth_comparison_diff), coloured as git does. */
void cli_print_diff(struct cli *cli, const char *text);
/* What a version changed (at or below path, NULL: all), a line a change,
 * each followed by its diff with patch (show, log -p); the exit status. */
int cli_print_version_changes(struct cli *cli, const char *version, const char *path, bool patch);
/* "R old -> new (ssd -> hdd)": one change of a version, coloured. */
void cli_print_change(struct cli *cli, const struct hearth_change *change);

/* Each command's entry, defined in its tui/cli_*.c. */
extern const struct cli_command cli_init_entry;
extern const struct cli_command cli_record_entry;
extern const struct cli_command cli_status_entry;
extern const struct cli_command cli_log_entry;
extern const struct cli_command cli_show_entry;
extern const struct cli_command cli_diff_entry;
extern const struct cli_command cli_ls_entry;
extern const struct cli_command cli_checkout_entry;
extern const struct cli_command cli_export_entry;
extern const struct cli_command cli_fsck_entry;
extern const struct cli_command cli_watch_entry;
extern const struct cli_command cli_reid_entry;
extern const struct cli_command cli_clone_entry;
extern const struct cli_command cli_conflicts_entry;
extern const struct cli_command cli_resolve_entry;
extern const struct cli_command cli_sync_entry;
extern const struct cli_command cli_serve_entry;
extern const struct cli_command cli_peers_entry;
extern const struct cli_command cli_demo_entry;
extern const struct cli_command cli_config_entry;
extern const struct cli_command cli_stats_entry;
extern const struct cli_command cli_gc_entry;
/* What a gc or the upkeep after a command did, on one line (to out). */
void cli_gc_report(FILE *out, const struct hearth_gc_result *result);
extern const struct cli_command cli_version_entry;
extern const struct cli_command cli_help_entry;

#endif
