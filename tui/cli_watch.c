/* hearth watch [--once | --check]: keeps the Home's index current with
 * inotify until interrupted, so status and record need no walk; or walks
 * it once (resuming an interrupted walk), or only runs the restart check. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tui/cli.h"

static volatile sig_atomic_t stop_signal;

static void
on_stop(int number)
{
	stop_signal = number;
}

/* Without SA_RESTART, so a signal ends the poll at once. */
static void
catch_stop_signals(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof action);
	action.sa_handler = on_stop;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
}

static int
reconcile_once(struct cli *cli, bool check_only)
{
	struct hearth_reconcile_options options = { .check_only = check_only };
	struct hearth_reconcile_result result;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);

	int status = hearth_reconcile(cli->home, &options, &progress, &result, &error);
	cli_progress_done(cli);
	if (status != 0)
		return cli_fail(&error);
	if (check_only) {
		printf("Checked %llu folder%s: %llu changed since the last walk; %llu marked\n",
		    (unsigned long long)result.folders_checked, result.folders_checked == 1 ? "" : "s",
		    (unsigned long long)result.folders_changed, (unsigned long long)result.differ);
		return 0;
	}
	if (result.resumed) {
		printf("Resumed walk %llu after ", (unsigned long long)result.generation);
		cli_print_path(stdout, result.resumed_after[0] ? result.resumed_after : "(the top)",
		    false);
		putchar('\n');
	}
	printf("Walked %llu folder%s (%llu entries) in %llu page%s; %llu differ from the index\n",
	    (unsigned long long)result.folders_walked, result.folders_walked == 1 ? "" : "s",
	    (unsigned long long)result.entries, (unsigned long long)result.pages,
	    result.pages == 1 ? "" : "s", (unsigned long long)result.differ);
	return 0;
}

static void
print_state(const struct hearth_watch_report *report)
{
	switch (report->state) {
	case HEARTH_WATCH_CHECKING:
		printf("checking: %llu folders watched\n",
		    (unsigned long long)report->folders_watched);
		break;
	case HEARTH_WATCH_WALKING:
		printf("walking: the full walk is under way\n");
		break;
	case HEARTH_WATCH_CURRENT:
		printf("current: the index is current; %s\n", report->detail);
		break;
	default:
		printf("%s: %s\n", report->state_name, report->detail);
		break;
	}
	fflush(stdout);
}

static int
watch_until_stopped(struct cli *cli)
{
	struct hearth_watch *watch;
	struct hearth_watch_report report;
	struct hearth_error error;

	catch_stop_signals();
	if (hearth_watch_start(cli->home, &watch, &error) != 0)
		return cli_fail(&error);
	int status = 0;
	while (stop_signal == 0) {
		if (hearth_watch_run(watch, true, &report, &error) != 0) {
			status = cli_fail(&error);
			break;
		}
		if (report.state_changed)
			print_state(&report);
		struct pollfd poller = { .fd = hearth_watch_fd(watch), .events = POLLIN };
		if (poll(&poller, poller.fd >= 0 ? 1 : 0, hearth_watch_timeout(watch, true)) < 0 &&
		    errno != EINTR) {
			perror("hearth: poll");
			status = 1;
			break;
		}
	}
	hearth_watch_stop(watch);
	return status;
}

static const struct cli_option watch_options[] = {
	{ 'o', "--once", NULL, "walk every folder once (going on from an interrupted walk), then exit" },
	{ 'k', "--check", NULL, "only the restart check: stat the folders, mark those that changed" },
	{ 0 },
};

static int
cli_watch(struct cli *cli, int argc, char **argv)
{
	bool once = false, check = false;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'o')
			once = true;
		else if (option == 'k')
			check = true;
		else
			return cli_option_error(cli, option, argv);
	}
	if (optind < argc)
		return cli_usage_error(cli, "watch takes no arguments");
	if (once && check)
		return cli_usage_error(cli, "--once and --check go alone");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	if (once || check)
		return reconcile_once(cli, check);
	return watch_until_stopped(cli);
}

const struct cli_command cli_watch_entry = {
	.name = "watch",
	.usage = "[--once | --check]",
	.summary = "keep the index current, so status needs no walk",
	.options = watch_options,
	.run = cli_watch,
};
