/* The full-screen app: app_run is what `hearth` with no command runs.
 * The rest of this header is what the views may ask of the app: the Home's
 * handle, the last status, dialogs, messages and background jobs. */
#ifndef HEARTH_TUI_APP_H
#define HEARTH_TUI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "backend/hearth.h"
#include "tui/view.h"
#include "tui/worker.h"

/* Runs the app on the Home options find (or the welcome screen outside any
 * Home) until the user quits; returns the process exit status. */
int app_run(const struct hearth_open_options *options);

/* Whether the terminal on standard output can show the app (it must move
 * the cursor); if not, why, in a sentence. */
bool app_terminal_can_draw(char *why, size_t size);

/* `hearth --dump-actions`: prints the help overlay's binding lines, one per
 * action, with the keys: of the config of the Home options find (when they
 * find one), so tests can check the overlay lists every binding in force.
 * Returns the exit status. */
int app_dump_actions(const struct hearth_open_options *options, FILE *out);

/* ---- for the views ---------------------------------------------------------- */

struct app;
struct dialog;

/* The main thread's handle; NULL on the welcome screen. */
hearth *app_home(struct app *app);
const struct hearth_summary *app_summary(struct app *app);
/* The last finished status, or NULL before the first one. */
const struct hearth_status_report *app_status(struct app *app);
struct view *app_view(struct app *app, enum view_id id);
struct dialog *app_dialog(struct app *app);

/* A one-line message on the status line until the next key. */
void app_message(struct app *app, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* An error in a dialog: what failed, then the backend's message. */
void app_error(struct app *app, const char *what, const struct hearth_error *error);

/* Runs a job on the worker (queued behind the running one). */
void app_submit(struct app *app, const struct worker_job *job);
/* The Home changed (record, checkout): every view rebuilds, status reruns. */
void app_home_changed(struct app *app);
/* Shows a view: a tab, or a pane over the current view. */
void app_show_view(struct app *app, enum view_id id);
/* Closes the pane on top and returns to the view under it. */
void app_close_view(struct app *app);
/* Opens the Home options find and leaves the welcome screen. */
int app_open_home(struct app *app, const struct hearth_open_options *options,
    struct hearth_error *error);

#endif
