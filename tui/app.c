/* The app's loop, view switching, and the tab, status and key-hint lines.
 * One thread owns curses: it polls stdin, the worker's pipe, a signal pipe
 * and the Home's watch (inotify), builds the current view when stale,
 * draws, and dispatches keys through the action table; endwin runs on
 * every way out. The watch's background walk gets the loop's idle moments
 * only: never while a key was just typed or a job runs. */
#include "tui/app.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "themes/theme.h"
#include "tui/action.h"
#include "tui/dialog.h"
#include "tui/draw.h"
#include "tui/keys.h"
#include "tui/memory.h"
#include "tui/progress.h"

#define APP_PAGES_PER_ROUND 8		/* then keys get a turn */
#define APP_PROGRESS_INTERVAL_MS 50	/* progress repaints at most this often */
#define APP_ESCAPE_DELAY_MS 25
#define APP_TIMED_KEYS 64
#define APP_IDLE_MS 500			/* after a key, the watch's walk waits this long */

struct app {
	hearth *home;			/* NULL on the welcome screen */
	char *config_path, *start_dir;	/* the options the Home was opened with */
	struct hearth_summary summary;
	struct hearth_status_report *status;	/* the last finished status, owned */
	bool status_queued, status_again;
	struct worker *worker;
	struct hearth_watch *watch;	/* keeps the index current; NULL when it cannot */
	bool watch_wanted;		/* started once the screen shows the Home */
	double last_key_ms;
	struct view views[VIEW_COUNT];
	enum view_id current;
	struct dialog dialog;
	char message[512];
	bool quit;
	int exit_status;
	bool more_pending;		/* pages still wanted after a round's share */
	bool follow_end;		/* G: keep going to the last row as pages come */
	double last_draw_ms;
	bool progress_dirty;
	struct progress_clock progress_clock;	/* the job's phase on show, for its rate */
	struct theme *theme;
	FILE *timings;
	bool first_screen_done;
	double start_ms;
	struct {
		char name[32];
		double start_ms;
	} timed_keys[APP_TIMED_KEYS];
	size_t timed_key_count;
};

static const struct view_ops *const view_table[VIEW_COUNT] = {
	[VIEW_HISTORY] = &view_history_ops,
	[VIEW_CONFLICTS] = &view_conflicts_ops,
	[VIEW_HOME] = &view_home_ops,
	[VIEW_SYNC] = &view_sync_ops,
	[VIEW_VERSION] = &view_version_ops,
	[VIEW_SIDES] = &view_sides_ops,
	[VIEW_CHANGES] = &view_changes_ops,
	[VIEW_FILE_LOG] = &view_file_log_ops,
	[VIEW_HELP] = &view_help_ops,
	[VIEW_WELCOME] = &view_welcome_ops,
};

static bool curses_active;
static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t caught_signal;

/* ---- the terminal, signals and time ----------------------------------------------- */

static void
restore_terminal(void)
{
	if (curses_active && !isendwin())
		endwin();
	curses_active = false;
}

static void
on_signal(int number)
{
	int saved = errno;

	caught_signal = number;
	if (signal_pipe[1] >= 0 && write(signal_pipe[1], "s", 1) < 0)
		caught_signal = number;	/* the flag alone still ends the loop */
	errno = saved;
}

static void
catch_signals(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
}

static double
now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1e6;
}

static bool
start_curses(struct hearth_error *error)
{
	/* newterm, not initscr: an unknown TERM is an error to report, not exit(1). */
	if (newterm(NULL, stdout, stdin) == NULL) {
		error->code = HEARTH_FAILED;
		snprintf(error->message, sizeof error->message,
		    "cannot use the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
		return false;
	}
	curses_active = true;
	memory_set_die_hook(restore_terminal);
	hearth_set_out_of_memory_hook(restore_terminal);
	atexit(restore_terminal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(APP_ESCAPE_DELAY_MS);
	curs_set(0);
	return true;
}

static void
load_theme(struct app *app)
{
	const struct config *config = app->home ? hearth_config(app->home) : NULL;
	const char *name = config && config->theme && config->theme[0] ? config->theme : "default";
	char error[512] = "";
	const char *no_colour = getenv("NO_COLOR");

	app->theme = theme_load(name, error, sizeof error);
	if (app->theme == NULL) {
		app->theme = theme_builtin();
		app_message(app, "Theme %s: %s (using the built-in one)", name, error);
	}
	draw_setup(app->theme, no_colour != NULL && no_colour[0] != '\0');
}

/* ---- services for the views ------------------------------------------------------- */

hearth *
app_home(struct app *app)
{
	return app->home;
}

const struct hearth_summary *
app_summary(struct app *app)
{
	return &app->summary;
}

const struct hearth_status_report *
app_status(struct app *app)
{
	return app->status;
}

struct view *
app_view(struct app *app, enum view_id id)
{
	return &app->views[id];
}

struct dialog *
app_dialog(struct app *app)
{
	return &app->dialog;
}

void
app_message(struct app *app, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(app->message, sizeof app->message, format, args);
	va_end(args);
}

void
app_error(struct app *app, const char *what, const struct hearth_error *error)
{
	dialog_message(&app->dialog, what, error->message[0] ? error->message : "unknown error");
}

void
app_submit(struct app *app, const struct worker_job *job)
{
	if (app->worker == NULL) {
		struct hearth_error error = { .code = HEARTH_FAILED };
		snprintf(error.message, sizeof error.message, "no worker: this is not a Home");
		job->done(job->context, HEARTH_FAILED, &error);
		return;
	}
	worker_submit(app->worker, job);
}

static bool
is_tab(enum view_id id)
{
	return id < VIEW_TAB_COUNT;
}

void
app_show_view(struct app *app, enum view_id id)
{
	if (app->home == NULL && id != VIEW_HELP && id != VIEW_WELCOME)
		return;
	if (!is_tab(id) && id != app->current)
		app->views[id].back = app->current;
	app->current = id;
}

void
app_close_view(struct app *app)
{
	struct view *view = &app->views[app->current];

	if (!is_tab(app->current) && app->current != VIEW_WELCOME)
		app->current = view->back;
}

/* ---- status ---------------------------------------------------------------------- */

struct status_job {
	struct app *app;
	struct hearth_status_report report;
};

static void start_status(struct app *app);

static int
status_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct status_job *job = context;

	return hearth_status(home, progress, &job->report, error);
}

static void
status_discard(void *context)
{
	struct status_job *job = context;

	if (job->report.changes.storage != NULL || job->report.changes.items != NULL)
		hearth_status_report_free(&job->report);
	free(job);
}

/* Views drop what they indexed from the old report before it is freed. */
static void
replace_status(struct app *app, struct hearth_status_report *report)
{
	struct hearth_status_report *old = app->status;

	app->status = report;
	for (int id = 0; id < VIEW_COUNT; id++)
		if (app->views[id].ops != NULL && app->views[id].ops->status_changed != NULL)
			app->views[id].ops->status_changed(&app->views[id]);
	if (old != NULL) {
		hearth_status_report_free(old);
		free(old);
	}
}

static void
status_done(void *context, int code, const struct hearth_error *error)
{
	struct status_job *job = context;
	struct app *app = job->app;

	app->status_queued = false;
	if (code == HEARTH_OK) {
		struct hearth_status_report *report = memory_alloc(1, sizeof *report);
		*report = job->report;
		replace_status(app, report);
		free(job);
	} else {
		if (code == HEARTH_CANCELLED)
			app_message(app, "Status cancelled: the marks may be out of date (R reloads)");
		else
			app_message(app, "Status failed: %s", error->message);
		status_discard(job);
	}
	if (app->status_again) {
		app->status_again = false;
		start_status(app);
	}
}

static void
start_status(struct app *app)
{
	if (app->worker == NULL)
		return;
	if (app->status_queued) {
		app->status_again = true;
		return;
	}
	struct status_job *job = memory_alloc(1, sizeof *job);
	job->app = app;
	struct worker_job work = {
		.title = "checking the Home",
		.run = status_run,
		.done = status_done,
		.discard = status_discard,
		.context = job,
	};
	app->status_queued = true;
	worker_submit(app->worker, &work);
}

static void
read_summary(struct app *app)
{
	struct hearth_error error;

	if (hearth_summary(app->home, &app->summary, &error) != HEARTH_OK) {
		memset(&app->summary, 0, sizeof app->summary);
		app_message(app, "Cannot read the Home's summary: %s", error.message);
	}
}

void
app_home_changed(struct app *app)
{
	for (int id = 0; id < VIEW_COUNT; id++)
		app->views[id].stale = true;
	read_summary(app);
	start_status(app);
}

/* ---- opening and closing a Home -------------------------------------------------- */

static void
open_views(struct app *app)
{
	for (int id = 0; id < VIEW_COUNT; id++) {
		struct view *view = &app->views[id];
		memset(view, 0, sizeof *view);
		view->ops = view_table[id];
		view->id = (enum view_id)id;
		view->app = app;
		view->back = VIEW_HISTORY;
		view->ops->open(view);
	}
}

static void
close_views(struct app *app)
{
	for (int id = 0; id < VIEW_COUNT; id++)
		if (app->views[id].ops != NULL)
			app->views[id].ops->close(&app->views[id]);
	view_search_free();
}

static void
stop_watch(struct app *app)
{
	hearth_watch_stop(app->watch);
	app->watch = NULL;
	app->watch_wanted = false;
}

/* Watching is a help, not a need: without it status walks the tree. */
static void
start_watch(struct app *app)
{
	struct hearth_error error;

	if (app->watch != NULL || app->home == NULL)
		return;
	if (hearth_watch_start(app->home, &app->watch, &error) != HEARTH_OK)
		app->watch = NULL;
}

static void
close_home(struct app *app)
{
	stop_watch(app);
	worker_free(app->worker);
	app->worker = NULL;
	replace_status(app, NULL);
	app->status_queued = app->status_again = false;
	if (app->home != NULL)
		hearth_close(app->home);
	app->home = NULL;
	free(app->config_path);
	free(app->start_dir);
	app->config_path = app->start_dir = NULL;
}

/* A Home that did not open leaves the keys of the one still open (R on a
 * config made wrong keeps the bindings in force). */
static void
restore_keys(struct app *app)
{
	char ignored[256];

	if (app->home == NULL || !keys_apply(hearth_config(app->home), ignored, sizeof ignored))
		action_reset_bindings();
}

int
app_open_home(struct app *app, const struct hearth_open_options *options,
    struct hearth_error *error)
{
	hearth *home;

	int code = hearth_open(&home, options, error);
	if (code != HEARTH_OK)
		return code;
	/* The config's keys: before the first screen, so help and hints show
	 * them; a wrong one is the config's error, as config check says. */
	if (!keys_apply(hearth_config(home), error->message, sizeof error->message)) {
		hearth_close(home);
		restore_keys(app);
		error->code = HEARTH_FAILED;
		return error->code;
	}
	struct worker *worker = worker_new(options, error);
	if (worker == NULL) {
		hearth_close(home);
		restore_keys(app);
		return error->code;
	}
	close_home(app);
	app->home = home;
	app->worker = worker;
	app->config_path = options->config_path ? memory_strdup(options->config_path) : NULL;
	app->start_dir = options->start_dir ? memory_strdup(options->start_dir) : NULL;
	app->current = VIEW_HISTORY;
	/* Putting a watch on every folder reads every folder: the first
	 * screen does not wait for it (run_loop starts it after a draw). */
	app->watch_wanted = true;
	app_home_changed(app);
	if (app->theme != NULL && curses_active) {
		theme_free(app->theme);
		load_theme(app);
	}
	return HEARTH_OK;
}

/* ---- drawing --------------------------------------------------------------------- */

static void
draw_tabs(struct app *app)
{
	enum view_id tab = is_tab(app->current) ? app->current : app->views[app->current].back;
	int x = 0;

	draw_fill(0, 0, COLS, THEME_TITLE);
	if (app->home == NULL) {
		draw_text(0, 1, COLS - 1, THEME_TITLE, "hearth", 0);
		return;
	}
	for (int id = 0; id < VIEW_TAB_COUNT && x < COLS; id++) {
		char label[64];
		snprintf(label, sizeof label, " %d %s ", id + 1, view_table[id]->name);
		x += draw_text(0, x, COLS - x, id == (int)tab ? THEME_TAB_ACTIVE : THEME_TITLE, label,
		    0) + 1;
	}
	if (!is_tab(app->current) && x < COLS) {
		char label[64];
		snprintf(label, sizeof label, "> %s", view_table[app->current]->name);
		x += draw_text(0, x, COLS - x, THEME_TITLE, label, 0) + 1;
	}
	char version[64];
	snprintf(version, sizeof version, "hearth %s ", hearth_version_string());
	int width = (int)strlen(version);
	if (x + width < COLS)
		draw_text(0, COLS - width, width, THEME_TITLE, version, 0);
}

/* The Home's top with $HOME written as ~. */
static void
short_home_path(const char *path, char *out, size_t size)
{
	const char *home = getenv("HOME");
	size_t length = home ? strlen(home) : 0;

	if (length > 1 && strncmp(path, home, length) == 0 && (path[length] == '/' || !path[length]))
		snprintf(out, size, "~%s", path + length);
	else
		snprintf(out, size, "%s", path);
}

static void
draw_progress(struct app *app, const struct worker_progress *progress, int y)
{
	enum { BAR = 20 };
	char text[1024];
	int x = 0;

	draw_fill(y, 0, COLS, THEME_STATUS_LINE);
	snprintf(text, sizeof text, " %s%s ", progress->title,
	    progress->cancelling ? " (cancelling)" : "");
	x += draw_text(y, x, COLS - x, THEME_STATUS_LINE, text, 0);
	struct hearth_progress_report report = {
		.phase = progress->phase, .done = progress->done, .total = progress->total,
		.bytes_done = progress->bytes_done, .bytes_total = progress->bytes_total,
	};
	/* By bytes when they are known: a 2 GB file is not one step of many. */
	double fraction = progress_fraction(&report);
	if (fraction >= 0 && x + BAR + 8 < COLS) {
		int filled = (int)(BAR * fraction);
		bool unicode = draw_unicode();
		for (int cell = 0; cell < BAR; cell++)
			draw_text(y, x + cell, 1, cell < filled ? THEME_PROGRESS : THEME_STATUS_LINE,
			    cell < filled ? (unicode ? "\u2588" : "#") : (unicode ? "\u2591" : "-"), 0);
		x += BAR + 1;
	}
	progress_line(&app->progress_clock, &report, text, sizeof text);
	char tail[sizeof text + sizeof progress->path + 64];
	snprintf(tail, sizeof tail, "%s %s%s", text, progress->path,
	    progress->queued ? " (more queued)" : "");
	x += draw_text(y, x, COLS - x, THEME_STATUS_LINE, tail, 0);
	if (COLS - x > 12)
		draw_text(y, COLS - 12, 12, THEME_STATUS_LINE, "Esc cancels ", DRAW_ALIGN_RIGHT);
}

/* "~/home | head a1b2c3d4 | 3 changed, 2 conflicts, 4 to check out | group" */
static void
status_info(struct app *app, char *out, size_t size)
{
	char path[4200], changes[256] = "checking...", head[128];
	const struct hearth_status_report *status = app->status;

	if (app->home == NULL) {
		snprintf(out, size, "not in a Home");
		return;
	}
	short_home_path(app->summary.top, path, sizeof path);
	const char *head_short = status && status->head_short[0] ? status->head_short :
	    app->summary.head_short;
	if (status != NULL && !status->head_named)
		snprintf(head, sizeof head, "head: %llu ops past %s", (unsigned long long)
		    status->head_unnamed_ops, head_short[0] ? head_short : "the empty Home");
	else
		snprintf(head, sizeof head, "head %s", head_short[0] ? head_short : "(no versions)");
	if (status != NULL) {
		size_t used = (size_t)snprintf(changes, sizeof changes, "%zu changed",
		    status->changes.count);
		if (status->conflicts > 0)
			used += (size_t)snprintf(changes + used, sizeof changes - used, ", %llu conflict%s",
			    (unsigned long long)status->conflicts, status->conflicts == 1 ? "" : "s");
		/* A sync adds to head, never to the tree: say checkout brings it. */
		if (status->head_changes > 0)
			snprintf(changes + used, sizeof changes - used, ", %llu to check out",
			    (unsigned long long)status->head_changes);
		else if (status->tree_version[0] && !status->tree_at_head &&
		    strcmp(status->tree_version, status->head_version) != 0)
			snprintf(changes + used, sizeof changes - used, ", tree at %s",
			    status->tree_short);
	}
	/* A missing root is what the user must act on: it comes first. */
	if (app->summary.problem_root[0] != '\0') {
		char where[4200];
		short_home_path(app->summary.problem_root_path, where, sizeof where);
		snprintf(out, size, "Root '%s' at %s is missing: mount it, then press R | %s",
		    app->summary.problem_root, where, head);
		return;
	}
	snprintf(out, size, "%s | %s | %s | %s%s", path, head, changes,
	    app->summary.durability ? app->summary.durability : "",
	    app->watch == NULL ? "" : " | watched");
}

/* A message (until the next key) or a job's progress on the left; what
 * the Home looks like after it, or alone when there is room. */
static void
draw_status(struct app *app, int y)
{
	struct worker_progress progress;
	char info[8192];

	status_info(app, info, sizeof info);
	if (app->worker != NULL && app->message[0] == '\0' &&
	    worker_progress(app->worker, &progress)) {
		draw_progress(app, &progress, y);
		return;
	}
	/* The next job's rate starts from its own beginning. */
	memset(&app->progress_clock, 0, sizeof app->progress_clock);
	draw_fill(y, 0, COLS, THEME_STATUS_LINE);
	if (app->message[0] == '\0') {
		draw_text(y, 1, COLS - 1, app->summary.root_problem[0] ? THEME_ERROR : THEME_STATUS_LINE,
		    info, 0);
		return;
	}
	int used = draw_text(y, 1, COLS - 1, THEME_STATUS_LINE, app->message, 0);
	int room = COLS - used - 4;
	if (room >= draw_width(info))
		draw_text(y, COLS - room - 1, room, THEME_STATUS_LINE, info, DRAW_ALIGN_RIGHT);
}

static void
draw_hints(struct app *app, int y)
{
	char hints[1024];

	action_hint_line(app->views[app->current].ops->scope, hints, sizeof hints);
	draw_fill(y, 0, COLS, THEME_KEY_HINT);
	draw_text(y, 1, COLS - 1, THEME_KEY_HINT, hints, 0);
}

static void
draw_screen(struct app *app)
{
	struct view *view = &app->views[app->current];

	erase();
	if (LINES < 6 || COLS < 20) {
		draw_text(0, 0, COLS, THEME_NORMAL, "hearth: the terminal is too small", 0);
		refresh();
		return;
	}
	draw_tabs(app);
	if (view->ops->draw_header != NULL)
		view->ops->draw_header(view, 1, COLS);
	int height = LINES - 4;
	list_draw(view->list, 2, 0, height, COLS, view->ops->draw_row, view);
	int used = (int)(view->list->row_count - view->list->top);
	if (used < height && view->ops->draw_note != NULL)
		view->ops->draw_note(view, 2 + used, height - used, COLS);
	draw_status(app, LINES - 2);
	draw_hints(app, LINES - 1);
	bool cursor = dialog_draw(&app->dialog);
	curs_set(cursor ? 1 : 0);
	refresh();
}

/* ---- timings (HEARTH_APP_TIMINGS) ------------------------------------------------ */

static void
note_key(struct app *app, int key, double start)
{
	if (app->timings == NULL || app->timed_key_count == APP_TIMED_KEYS)
		return;
	char buffer[32];
	snprintf(app->timed_keys[app->timed_key_count].name, sizeof app->timed_keys[0].name, "%s",
	    action_key_name(key, buffer, sizeof buffer));
	app->timed_keys[app->timed_key_count++].start_ms = start;
}

static void
write_timings(struct app *app)
{
	double now = now_ms();

	if (app->timings == NULL)
		return;
	if (!app->first_screen_done) {
		fprintf(app->timings, "first-screen %.3f\n", now - app->start_ms);
		app->first_screen_done = true;
	}
	for (size_t i = 0; i < app->timed_key_count; i++)
		fprintf(app->timings, "key %s %.3f\n", app->timed_keys[i].name,
		    now - app->timed_keys[i].start_ms);
	app->timed_key_count = 0;
	fflush(app->timings);
}

/* ---- keys ------------------------------------------------------------------------- */

static void
switch_tab(struct app *app, int step)
{
	int tab = is_tab(app->current) ? (int)app->current : (int)app->views[app->current].back;

	if (app->home == NULL)
		return;
	tab = (tab + step + VIEW_TAB_COUNT) % VIEW_TAB_COUNT;
	app_show_view(app, (enum view_id)tab);
}

/* R reads the config again (a peer added, a key rebound): the Home is
 * opened anew, on the view it was on, when no job holds the old handle. */
static bool
reopen_home(struct app *app)
{
	struct worker_progress progress;
	struct hearth_error error = { 0 };

	if (app->worker != NULL && worker_progress(app->worker, &progress))
		return false;
	char *config_path = app->config_path ? memory_strdup(app->config_path) : NULL;
	char *start_dir = app->start_dir ? memory_strdup(app->start_dir) : NULL;
	struct hearth_open_options options = { .config_path = config_path, .start_dir = start_dir };
	enum view_id current = app->current;
	int code = app_open_home(app, &options, &error);
	free(config_path);
	free(start_dir);
	if (code != HEARTH_OK) {
		app_error(app, "Cannot read the config again", &error);
		/* The line under the dialog says what came of R, not that it runs. */
		app_message(app, "Reload failed: the Home and its config are kept as they were");
		return true;
	}
	app->current = current;
	return true;
}

static void
reload(struct app *app)
{
	if (!reopen_home(app)) {
		app_home_changed(app);
		app_message(app, "Reloading from the Home; the config is read again once the "
		    "running job ends (R again then)");
		return;
	}
	/* A root that came back is watched again. */
	if (app->summary.root_problem[0] == '\0')
		start_watch(app);
	if (app->message[0] == '\0')
		app_message(app, "Reloading from the Home and its config");
}

static void
confirm_quit(void *context, bool accepted, const char *text)
{
	struct app *app = context;

	app->quit = accepted;
}

/* Quitting cancels jobs cleanly, but one that writes the tree is worth a question. */
static void
ask_quit(struct app *app)
{
	struct worker_progress progress;

	if (app->worker == NULL || !worker_progress(app->worker, &progress) ||
	    !progress.changes_home) {
		app->quit = true;
		return;
	}
	char *question = memory_printf("A record, checkout or settling of conflicts is running or "
	    "waiting (now: %s). Quitting cancels it and leaves the Home as it was before it. Quit?",
	    progress.title);
	dialog_confirm(&app->dialog, "Quit", question, confirm_quit, app);
	free(question);
}

/* Actions the app itself owns; returns whether action was one. */
static bool
app_handle(struct app *app, enum action action)
{
	switch (action) {
	case ACTION_QUIT:
		if (is_tab(app->current) || app->current == VIEW_WELCOME)
			ask_quit(app);
		else
			app_close_view(app);
		return true;
	case ACTION_QUIT_NOW:
		app->quit = true;
		return true;
	case ACTION_HELP:
		if (app->current == VIEW_HELP)
			app_close_view(app);
		else
			app_show_view(app, VIEW_HELP);
		return true;
	case ACTION_CANCEL:
		if (app->worker != NULL && worker_cancel(app->worker)) {
			app_message(app, "Cancelling...");
		} else if (app->views[app->current].list != NULL &&
		    app->views[app->current].list->filter != NULL) {
			/* Esc takes a filter away before it closes anything. */
			list_set_filter(app->views[app->current].list, NULL);
			app_message(app, "Filter cleared: every loaded name shows");
		} else {
			app_close_view(app);
		}
		return true;
	case ACTION_CLOSE:
		app_close_view(app);
		return true;
	case ACTION_VIEW_HISTORY:
	case ACTION_VIEW_CONFLICTS:
	case ACTION_VIEW_HOME:
	case ACTION_VIEW_SYNC:
		app_show_view(app, (enum view_id)(VIEW_HISTORY + (action - ACTION_VIEW_HISTORY)));
		return true;
	case ACTION_VIEW_NEXT:
		switch_tab(app, 1);
		return true;
	case ACTION_VIEW_PREVIOUS:
		switch_tab(app, -1);
		return true;
	case ACTION_REDRAW:
		clearok(curscr, TRUE);
		return true;
	case ACTION_REFRESH:
		if (app->home != NULL)
			reload(app);
		return true;
	default:
		return false;
	}
}

static void
handle_key(struct app *app, int key)
{
	if (key == ACTION_FN(KEY_RESIZE)) {
		clearok(curscr, TRUE);
		return;
	}
	app->message[0] = '\0';
	app->follow_end = false;
	if (dialog_active(&app->dialog)) {
		dialog_handle_key(&app->dialog, key);
		return;
	}
	struct view *view = &app->views[app->current];
	enum action action = action_for_key(key, view->ops->scope);
	if (action == ACTION_NONE) {
		char name[32];
		app_message(app, "%s does nothing here; ? lists the keys",
		    action_key_name(key, name, sizeof name));
		return;
	}
	app->follow_end = action == ACTION_MOVE_LAST;
	if (app_handle(app, action) || list_handle_action(view->list, action))
		return;
	if (view->ops->handle != NULL && view->ops->handle(view, action))
		return;
	if (view_search_handle(view, action))
		return;
	app_message(app, "%s does nothing here", action_info(action)->name);
}

static void prepare(struct app *app);

static void
read_keys(struct app *app)
{
	wint_t character;
	int kind;

	while ((kind = get_wch(&character)) != ERR) {
		int key = kind == KEY_CODE_YES ? ACTION_FN((int)character) : (int)character;
		app->last_key_ms = now_ms();
		note_key(app, key, app->last_key_ms);
		/* A key typed ahead acts on the view as it will be drawn. */
		prepare(app);
		handle_key(app, key);
		if (app->quit)
			return;
	}
}

/* ---- the loop --------------------------------------------------------------------- */

/* Builds a stale view and fetches the pages its list wants, a bounded
 * number per round so keys are never starved by a long folder. */
static void
prepare(struct app *app)
{
	struct view *view = &app->views[app->current];

	if (view->stale && view->ops->build != NULL && (app->home != NULL || !is_tab(view->id))) {
		view->stale = false;
		view->ops->build(view);
	}
	app->more_pending = false;
	if (view->ops->load_more == NULL || app->home == NULL)
		return;
	for (int page = 0; page < APP_PAGES_PER_ROUND; page++) {
		struct list_item *item = list_wanting_more(view->list);
		if (item == NULL)
			break;
		view->ops->load_more(view, item);
		if (app->follow_end)
			list_move_to(view->list, view->list->row_count ? view->list->row_count - 1 : 0);
	}
	app->more_pending = list_wanting_more(view->list) != NULL;
	if (!app->more_pending)
		app->follow_end = false;
}

/* The user asks for nothing just now: no key for a moment, no job. */
static bool
idle(struct app *app)
{
	struct worker_progress progress;

	if (now_ms() - app->last_key_ms < APP_IDLE_MS || app->more_pending)
		return false;
	return app->worker == NULL || !worker_progress(app->worker, &progress);
}

static int
sooner(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* When the watch wants the loop back: at once for its events and
 * requests; for its background walk only once the user is idle. */
static int
watch_timeout(struct app *app)
{
	if (app->watch == NULL)
		return -1;
	bool may_walk = idle(app);
	int timeout = hearth_watch_timeout(app->watch, may_walk);
	if (!may_walk && hearth_watch_timeout(app->watch, true) >= 0) {
		int until_idle = (int)(app->last_key_ms + APP_IDLE_MS - now_ms()) + 1;
		timeout = sooner(timeout, until_idle > 0 ? until_idle : APP_IDLE_MS);
	}
	return timeout;
}

static int
wait_timeout(struct app *app)
{
	if (app->more_pending)
		return 0;
	int timeout = watch_timeout(app);
	if (app->progress_dirty) {
		double left = APP_PROGRESS_INTERVAL_MS - (now_ms() - app->last_draw_ms);
		timeout = sooner(timeout, left > 0 ? (int)left + 1 : 0);
	}
	return timeout;
}

/* Files changed on disk: the marks follow (status answers from the index
 * the watch keeps). A root that went away stops the watch and says so on
 * the status line. */
static void
run_watch(struct app *app)
{
	struct hearth_watch_report report;
	struct hearth_error error;

	if (app->watch == NULL)
		return;
	if (hearth_watch_run(app->watch, idle(app), &report, &error) != HEARTH_OK) {
		stop_watch(app);
		read_summary(app);
		for (int id = 0; id < VIEW_COUNT; id++)
			app->views[id].stale = true;
		return;
	}
	if (report.index_changed)
		start_status(app);
}

static void
wait_for_events(struct app *app)
{
	struct pollfd fds[4] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = signal_pipe[0], .events = POLLIN },
		{ .fd = app->worker ? worker_wake_fd(app->worker) : -1, .events = POLLIN },
		{ .fd = app->watch ? hearth_watch_fd(app->watch) : -1, .events = POLLIN },
	};

	int ready = poll(fds, 4, wait_timeout(app));
	if (caught_signal != 0) {
		app->quit = true;
		app->exit_status = 128 + caught_signal;
		return;
	}
	/* A resize interrupts poll; get_wch then returns KEY_RESIZE. */
	if (ready < 0 && errno != EINTR)
		return;
	if (app->worker != NULL && fds[2].revents & POLLIN) {
		worker_dispatch(app->worker);
		app->progress_dirty = true;
	}
	run_watch(app);
	read_keys(app);
}

static void
run_loop(struct app *app)
{
	while (!app->quit) {
		prepare(app);
		bool keys_waiting = app->timed_key_count > 0 || !app->first_screen_done;
		if (!app->progress_dirty || keys_waiting ||
		    now_ms() - app->last_draw_ms >= APP_PROGRESS_INTERVAL_MS) {
			draw_screen(app);
			app->last_draw_ms = now_ms();
			app->progress_dirty = false;
			write_timings(app);
			if (app->watch_wanted) {
				app->watch_wanted = false;
				start_watch(app);
			}
		}
		wait_for_events(app);
	}
}

/* ---- entry points ----------------------------------------------------------------- */

static void
open_timings(struct app *app)
{
	const char *path = getenv("HEARTH_APP_TIMINGS");

	if (path != NULL && path[0] != '\0')
		app->timings = fopen(path, "a");
}

static void
shut_down(struct app *app)
{
	close_home(app);
	dialog_close(&app->dialog);
	close_views(app);
	restore_terminal();
	if (app->theme != NULL)
		theme_free(app->theme);
	if (app->timings != NULL)
		fclose(app->timings);
	for (int i = 0; i < 2; i++)
		if (signal_pipe[i] >= 0)
			close(signal_pipe[i]);
	signal_pipe[0] = signal_pipe[1] = -1;
}

int
app_run(const struct hearth_open_options *options)
{
	static const struct hearth_open_options no_options;
	struct app *app = memory_alloc(1, sizeof *app);
	struct hearth_error error = { 0 };

	setlocale(LC_ALL, "");
	app->start_ms = now_ms();
	open_timings(app);
	open_views(app);
	int code = app_open_home(app, options ? options : &no_options, &error);
	if (code != HEARTH_OK && code != HEARTH_NOT_A_HOME) {
		fprintf(stderr, "hearth: %s\n", error.message);
		shut_down(app);
		free(app);
		return hearth_exit_status((enum hearth_code)code);
	}
	if (code == HEARTH_NOT_A_HOME)
		app->current = VIEW_WELCOME;
	if (pipe2(signal_pipe, O_NONBLOCK | O_CLOEXEC) != 0 || !start_curses(&error)) {
		if (error.message[0] == '\0')
			snprintf(error.message, sizeof error.message, "cannot make a pipe: %s",
			    strerror(errno));
		fprintf(stderr, "hearth: %s\n", error.message);
		shut_down(app);
		free(app);
		return 1;
	}
	catch_signals();
	load_theme(app);
	run_loop(app);
	int status = app->exit_status;
	shut_down(app);
	free(app);
	return status;
}

int
app_dump_actions(const struct hearth_open_options *options, FILE *out)
{
	hearth *home;
	struct hearth_error error;

	/* Inside a Home, the bindings in force there: its config's keys. */
	if (hearth_open(&home, options, &error) == HEARTH_OK) {
		char message[HEARTH_ERROR_MAX];
		bool applied = keys_apply(hearth_config(home), message, sizeof message);
		hearth_close(home);
		if (!applied) {
			fprintf(stderr, "hearth: %s\n", message);
			return 2;
		}
	}
	action_dump(out);
	return 0;
}
