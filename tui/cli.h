/* The line-mode CLI: one table of commands (tmux's cmd_table), one file per
 * command (cli_*.c). Every command calls only the backend's public API, the
 * same calls the full-screen app makes. */
#ifndef HEARTH_TUI_CLI_H
#define HEARTH_TUI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/hearth.h"

struct cli {
	const char *config_path;	/* -c FILE */
	hearth *home;			/* opened on first use */
	bool colour;			/* stdout is a terminal and NO_COLOR unset */
	bool progress;			/* stderr is a terminal */
	const char *program;
};

struct cli_option_help {
	const char *option;		/* "-m, --message MSG" */
	const char *description;
};

struct cli_command {
	const char *name;
	const char *usage;		/* after "hearth NAME " */
	const char *summary;		/* one line */
	const struct cli_option_help *options;	/* ends with { NULL, NULL } */
	int (*run)(struct cli *cli, int argc, char **argv);
};

extern const struct cli_command cli_commands[];
extern const size_t cli_command_count;

const struct cli_command *cli_find(const char *name);
int cli_run(int argc, char **argv);

/* Opens the Home for a command; prints the error and returns its exit
 * status on failure. */
int cli_open(struct cli *cli);
/* Prints "hearth: message" on stderr and returns the exit status. */
int cli_fail(const struct hearth_error *error);
int cli_usage_error(const struct cli_command *command, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* A bad option from getopt_long (with ':' leading the option string):
 * "needs a value" or "unknown option", and the usage; returns 2. */
int cli_option_error(const struct cli_command *command, int option, char **argv);
/* "--help" handling shared by every command: prints help, returns true. */
bool cli_wants_help(const struct cli_command *command, int argc, char **argv);
void cli_print_help(const struct cli_command *command, FILE *out);

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

/* A progress reporter for long commands when stderr is a terminal. */
struct hearth_progress cli_progress(struct cli *cli);
void cli_progress_done(struct cli *cli);

/* "2026-11-29 19:00:00 +0100": the time where it was recorded, as git does. */
void cli_format_time(int64_t time, int32_t utc_offset, char *out, size_t size);

/* Converts user-typed paths to Home-relative ones (owned by the caller). */
int cli_home_paths(struct cli *cli, int count, char **paths, char ***out);
void cli_free_paths(int count, char **paths);

/* Each command's entry point. */
int cli_init(struct cli *, int, char **);
int cli_record(struct cli *, int, char **);
int cli_status(struct cli *, int, char **);
int cli_log(struct cli *, int, char **);
int cli_show(struct cli *, int, char **);
int cli_ls(struct cli *, int, char **);
int cli_checkout(struct cli *, int, char **);
int cli_export(struct cli *, int, char **);
int cli_fsck(struct cli *, int, char **);
int cli_watch(struct cli *, int, char **);
int cli_reid(struct cli *, int, char **);
int cli_clone(struct cli *, int, char **);
int cli_conflicts(struct cli *, int, char **);
int cli_resolve(struct cli *, int, char **);
int cli_sync(struct cli *, int, char **);
int cli_serve(struct cli *, int, char **);
int cli_peers(struct cli *, int, char **);
int cli_demo(struct cli *, int, char **);
int cli_config(struct cli *, int, char **);
int cli_stats(struct cli *, int, char **);
int cli_version(struct cli *, int, char **);
int cli_help(struct cli *, int, char **);

#endif
