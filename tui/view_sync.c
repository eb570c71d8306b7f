/* The Sync view: the config's peers, then any other peer synced with by
 * URL, with what their last sync did (hearth_peers); s syncs the selected
 * peer and S every configured one, in turn, on the worker (hearth_sync),
 * with a progress panel (phase, ops and bytes each way, rate) that Esc
 * cancels. A sync leaves the working tree alone unless the config sets
 * auto_checkout (whose stop at the guard on emptying is a question here);
 * otherwise checkout brings in what it received. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "tui/app.h"
#include "tui/dialog.h"
#include "tui/memory.h"
#include "tui/progress.h"
#include "tui/view.h"

#define SYNC_NAME_WIDTH 12
#define SYNC_SUCCESS_WIDTH 12
#define SYNC_ATTEMPT_WIDTH 16
#define SYNC_TRAFFIC_WIDTH 13
#define SYNC_AHEAD_WIDTH 11
#define SYNC_ADDRESS_MIN 12
#define SYNC_NAME_MAX 32
#define SYNC_BAR_WIDTH 24
#define SYNC_FAILURES_SHOWN 5

struct peer_row {
	char *name;
	char *url;
	bool configured;
	char replica[33];
	int64_t last_attempt, last_success;
	char *last_error;
	uint64_t ops_sent, ops_received, bytes_sent, bytes_received;
	uint64_t local_ahead, remote_ahead;
};

/* One sync job: its peers in turn. The worker thread writes the live
 * counters; drawing reads them; the results are read once it is done. */
struct sync_job {
	struct view *view;
	char **peers;			/* what hearth_sync is given: names or URLs */
	size_t count;
	const struct hearth_progress *outer;	/* the worker's, to forward to */
	_Atomic size_t current;		/* the peer being synced */
	_Atomic(const char *) phase;	/* the backend's phase names are static */
	_Atomic uint64_t done, total, phase_bytes, phase_bytes_total;
	_Atomic uint64_t ops_in, ops_out, chunks_in, chunks_out, bytes_in, bytes_out;
	_Atomic int64_t started_ms;
	struct progress_clock clock;	/* main thread only: the phase's rate */
	struct hearth_sync_result *results;
	int *codes;
	struct hearth_error *errors;
	size_t finished;		/* peers whose sync ended */
	/* auto_checkout: head brought into the tree once the syncs end. */
	bool auto_checkout;
	bool applied;			/* hearth_apply_head ran */
	int apply_code;
	struct hearth_error apply_error;
	struct hearth_checkout_result apply_result;
};

struct sync_pane {
	struct sync_job *job;		/* queued or running, or NULL */
	int name_width, url_width;	/* the longest peer name and address, for layout */
};

/* ---- time and sizes ---------------------------------------------------------- */

static int64_t
monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* "just now", "42 s ago", "5 min ago", "3 h ago", "2 days ago", "never". */
static void
format_age(int64_t when, char *out, size_t size)
{
	int64_t age = (int64_t)time(NULL) - when;

	if (when == 0)
		snprintf(out, size, "never");
	else if (age < 10)
		snprintf(out, size, "just now");
	else if (age < 60)
		snprintf(out, size, "%lld s ago", (long long)age);
	else if (age < 3600)
		snprintf(out, size, "%lld min ago", (long long)(age / 60));
	else if (age < 86400)
		snprintf(out, size, "%lld h ago", (long long)(age / 3600));
	else
		snprintf(out, size, "%lld day%s ago", (long long)(age / 86400),
		    age < 2 * 86400 ? "" : "s");
}

/* "527B", "1.2KB", "34MB". */
static void
format_bytes(uint64_t bytes, char *out, size_t size)
{
	draw_format_size(bytes, out, size);
	size_t length = strlen(out);
	if (length + 1 < size) {
		out[length] = 'B';
		out[length + 1] = '\0';
	}
}

/* "3 ops 1.2KB" */
static void
format_traffic(uint64_t ops, uint64_t bytes, char *out, size_t size)
{
	char amount[16];

	format_bytes(bytes, amount, sizeof amount);
	snprintf(out, size, "%llu op%s %s", (unsigned long long)ops, ops == 1 ? "" : "s", amount);
}

/* ---- rows ---------------------------------------------------------------------- */

static void
free_row(void *data)
{
	struct peer_row *row = data;

	free(row->name);
	free(row->url);
	free(row->last_error);
	free(row);
}

static struct peer_row *
row_new(const struct hearth_peer_status *peer)
{
	struct peer_row *row = memory_alloc(1, sizeof *row);

	row->name = memory_strdup(peer->name ? peer->name : "");
	row->url = memory_strdup(peer->url ? peer->url : "");
	row->configured = peer->configured;
	snprintf(row->replica, sizeof row->replica, "%s", peer->replica);
	row->last_attempt = peer->last_attempt;
	row->last_success = peer->last_success;
	row->last_error = memory_strdup(peer->last_error ? peer->last_error : "");
	row->ops_sent = peer->ops_sent;
	row->ops_received = peer->ops_received;
	row->bytes_sent = peer->bytes_sent;
	row->bytes_received = peer->bytes_received;
	row->local_ahead = peer->local_ahead;
	row->remote_ahead = peer->remote_ahead;
	return row;
}

/* What hearth_sync is given for a row: a configured name, else its URL. */
static const char *
row_target(const struct peer_row *row)
{
	return row->configured ? row->name : row->url;
}

static size_t
configured_count(const struct view *view)
{
	size_t count = 0;

	for (size_t i = 0; i < view->list->root.child_count; i++)
		count += ((const struct peer_row *)view->list->root.children[i]->data)->configured;
	return count;
}

/* ---- open, build, close -------------------------------------------------------- */

static void
sync_open(struct view *view)
{
	view->list = list_new(free_row, NULL);
	view->private = memory_alloc(1, sizeof(struct sync_pane));
	view->stale = true;
}

static void
sync_close(struct view *view)
{
	list_free(view->list);
	free(view->private);
}

static void
sync_build(struct view *view)
{
	struct hearth_peer_list peers;
	struct hearth_error error;
	size_t keep = view->list->cursor;

	list_clear(view->list);
	view->list->root.loaded = true;
	if (hearth_peers(app_home(view->app), &peers, &error) != HEARTH_OK) {
		app_error(view->app, "Cannot read the peers", &error);
		return;
	}
	struct sync_pane *pane = view->private;
	pane->name_width = pane->url_width = 0;
	for (size_t i = 0; i < peers.count; i++) {
		struct peer_row *row = row_new(&peers.items[i]);
		int name = draw_width(row->name), url = draw_width(row->url ? row->url : "");
		pane->name_width = name > pane->name_width ? name : pane->name_width;
		pane->url_width = url > pane->url_width ? url : pane->url_width;
		list_append(view->list, NULL, row);
	}
	hearth_peer_list_free(&peers);
	list_refresh(view->list);
	list_move_to(view->list, keep);
}

/* ---- the sync job ------------------------------------------------------------- */

static void
job_summary(struct sync_job *job, char *out, size_t size)
{
	char in[48], out_text[48], rate[16];
	uint64_t bytes_in = atomic_load(&job->bytes_in), bytes_out = atomic_load(&job->bytes_out);
	int64_t elapsed = monotonic_ms() - atomic_load(&job->started_ms);

	format_traffic(atomic_load(&job->ops_in), bytes_in, in, sizeof in);
	format_traffic(atomic_load(&job->ops_out), bytes_out, out_text, sizeof out_text);
	format_bytes(elapsed > 0 ? (bytes_in + bytes_out) * 1000 / (uint64_t)elapsed : 0, rate,
	    sizeof rate);
	snprintf(out, size, "in %s, out %s, %s/s", in, out_text, rate);
}

/* Only the worker thread writes the counters, so load and store suffice. */
static void
raise_to(_Atomic uint64_t *counter, uint64_t value)
{
	if (value > atomic_load(counter))
		atomic_store(counter, value);
}

/* On the worker thread: keeps the counters each way and forwards a report
 * whose text says them. */
static void
job_report(void *context, const struct hearth_progress_report *report)
{
	struct sync_job *job = context;
	const char *phase = report->phase ? report->phase : "";
	char summary[160];

	atomic_store(&job->bytes_in, report->bytes_in);
	atomic_store(&job->bytes_out, report->bytes_out);
	atomic_store(&job->phase_bytes, report->bytes_done);
	atomic_store(&job->phase_bytes_total, report->bytes_total);
	/* Counts come every so many items; integrating names all that came. */
	if (strcmp(phase, "receiving ops") == 0)
		raise_to(&job->ops_in, report->done);
	else if (strcmp(phase, "integrating") == 0)
		raise_to(&job->ops_in, report->total);
	else if (strcmp(phase, "sending ops") == 0)
		raise_to(&job->ops_out, report->done);
	else if (strcmp(phase, "receiving chunks") == 0)
		raise_to(&job->chunks_in, report->done);
	else if (strcmp(phase, "sending chunks") == 0)
		raise_to(&job->chunks_out, report->done);
	atomic_store(&job->phase, phase);
	atomic_store(&job->done, report->done);
	atomic_store(&job->total, report->total);
	if (job->outer == NULL || job->outer->report == NULL)
		return;
	job_summary(job, summary, sizeof summary);
	struct hearth_progress_report forward = *report;
	forward.bytes_done = 0;
	forward.path = summary;
	job->outer->report(job->outer->context, &forward);
}

static void
job_reset_counters(struct sync_job *job, size_t index)
{
	atomic_store(&job->ops_in, 0);
	atomic_store(&job->ops_out, 0);
	atomic_store(&job->chunks_in, 0);
	atomic_store(&job->chunks_out, 0);
	atomic_store(&job->bytes_in, 0);
	atomic_store(&job->bytes_out, 0);
	atomic_store(&job->done, 0);
	atomic_store(&job->total, 0);
	atomic_store(&job->phase, "connecting");
	atomic_store(&job->phase_bytes, 0);
	atomic_store(&job->phase_bytes_total, 0);
	atomic_store(&job->started_ms, monotonic_ms());
	atomic_store(&job->current, index);
}

/* Every peer gets its turn even when one fails; a cancel stops them all. */
static int
sync_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct sync_job *job = context;
	struct hearth_progress own = {
		.report = job_report,
		.context = job,
		.cancel = progress != NULL ? progress->cancel : NULL,
	};

	job->outer = progress;
	for (size_t i = 0; i < job->count; i++) {
		/* The screen is the app's: ssh may not ask anything on it. */
		struct hearth_sync_options options = { .peer = job->peers[i], .batch = true,
			.checkout_after = job->auto_checkout };
		job_reset_counters(job, i);
		job->codes[i] = hearth_sync(home, &options, &own, &job->results[i], &job->errors[i]);
		job->finished = i + 1;
		if (job->codes[i] == HEARTH_CANCELLED) {
			*error = job->errors[i];
			return HEARTH_CANCELLED;
		}
	}
	/* As hearth sync does with auto_checkout: never past max_delete. */
	if (job->auto_checkout && job->finished > 0 && job->codes[job->finished - 1] == HEARTH_OK &&
	    job->results[job->finished - 1].head_ahead > 0) {
		job->applied = true;
		job->apply_code = hearth_apply_head(home, false, progress, &job->apply_result,
		    &job->apply_error);
	}
	return HEARTH_OK;
}

static void
job_free(void *context)
{
	struct sync_job *job = context;

	for (size_t i = 0; i < job->count; i++)
		free(job->peers[i]);
	free(job->peers);
	free(job->results);
	free(job->codes);
	free(job->errors);
	if (job->applied)
		hearth_checkout_result_free(&job->apply_result);
	free(job);
}

/* "Synced a: received 3 ops (1 version), sent 0 ops; ..." on the status line. */
static void
report_success(struct view *view, struct sync_job *job, size_t succeeded, const char *lead)
{
	uint64_t received = 0, versions = 0, sent = 0, head_changes = 0;
	const char *only = NULL;

	for (size_t i = 0; i < job->finished; i++) {
		if (job->codes[i] != HEARTH_OK)
			continue;
		received += job->results[i].ops_received;
		versions += job->results[i].versions_received;
		sent += job->results[i].ops_sent;
		head_changes = job->results[i].head_changes;
		only = job->results[i].peer_name;
	}
	char *who = succeeded == 1 ? memory_strdup(only) : memory_printf("%zu peers", succeeded);
	if (received == 0)
		app_message(view->app, "Synced %s: %snothing new came in; sent %llu op%s", who, lead,
		    (unsigned long long)sent, sent == 1 ? "" : "s");
	else
		app_message(view->app, "Synced %s: %sreceived %llu op%s (%llu version%s), sent %llu%s",
		    who, lead, (unsigned long long)received, received == 1 ? "" : "s",
		    (unsigned long long)versions, versions == 1 ? "" : "s", (unsigned long long)sent,
		    head_changes > 0 ? "; checkout brings them into the tree" : "");
	free(who);
}

/* The failed peers in one dialog, a few by name. */
static void
report_failures(struct view *view, struct sync_job *job, size_t failed)
{
	size_t size = 512 + SYNC_FAILURES_SHOWN * (HEARTH_ERROR_MAX + 64), used = 0, shown = 0;
	char *text = memory_alloc(size, 1);

	for (size_t i = 0; i < job->finished && used < size; i++) {
		if (job->codes[i] == HEARTH_OK)
			continue;
		if (shown++ == SYNC_FAILURES_SHOWN) {
			used += (size_t)snprintf(text + used, size - used, "and more (see the list)\n");
			break;
		}
		used += (size_t)snprintf(text + used, size - used, "%s%s: %s\n", shown > 1 ? "\n" : "",
		    job->peers[i], job->errors[i].message[0] ? job->errors[i].message : "failed");
	}
	if (used < size)
		snprintf(text + used, size - used, "\nBoth sides are as they were before, or hold a "
		    "complete first half; syncing again completes it.");
	dialog_message(app_dialog(view->app), failed == 1 ? "Sync failed" : "Syncs failed", text);
	free(text);
}

/* "Synced and checked out ...", or after a confirm "Checked out ...";
 * lead goes first after the colon (what the sync brought to settle). */
static void
report_applied(struct view *view, const char *what, const char *lead,
    const struct hearth_checkout_result *result)
{
	app_message(view->app, "%s %.8s: %s%llu written, %llu removed, %llu moved", what,
	    result->version, lead, (unsigned long long)result->written,
	    (unsigned long long)result->removed, (unsigned long long)result->moved);
}

/* Head brought into the tree past the guard on emptying, once confirmed. */
struct apply_job {
	struct view *view;
	struct hearth_checkout_result result;
};

static int
apply_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct apply_job *job = context;

	return hearth_apply_head(home, true, progress, &job->result, error);
}

static void
apply_free(void *context)
{
	struct apply_job *job = context;

	hearth_checkout_result_free(&job->result);
	free(job);
}

static void
apply_done(void *context, int code, const struct hearth_error *error)
{
	struct apply_job *job = context;

	if (code == HEARTH_OK)
		report_applied(job->view, "Checked out", "", &job->result);
	else
		app_error(job->view->app, "Checkout failed", error);
	app_home_changed(job->view->app);
	apply_free(job);
}

static void
confirm_apply(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct apply_job *job;

	(void)text;
	if (!accepted) {
		app_message(view->app, "Not checked out; the tree is as it was. Check out head "
		    "from History (1, then c) when you mean it");
		return;
	}
	job = memory_alloc(1, sizeof *job);
	job->view = view;
	struct worker_job work = {
		.title = "recording, then checking out",
		.run = apply_run,
		.done = apply_done,
		.discard = apply_free,
		.context = job,
		.changes_home = true,
	};
	app_submit(view->app, &work);
}

/* auto_checkout stopped at the guard on emptying: the app cannot be given
 * --yes, so it asks. */
static void
ask_apply(struct view *view, const struct hearth_delete_guard *guard)
{
	char *question = view_guard_question(view, guard, guard->recording ?
	    "The sync is done. Record your changes and bring in what it brought anyway?" :
	    "The sync is done. Bring what it brought into the tree anyway?");

	dialog_confirm(app_dialog(view->app), "Delete many files?", question, confirm_apply, view);
	free(question);
}

static void
sync_done(void *context, int code, const struct hearth_error *error)
{
	struct sync_job *job = context;
	struct view *view = job->view;
	struct sync_pane *pane = view->private;
	size_t succeeded = 0, failed = 0;
	bool guarded = false;

	pane->job = NULL;
	uint64_t conflicts = 0, by_kind[HEARTH_CONFLICT_KINDS] = { 0 };
	for (size_t i = 0; i < job->finished; i++) {
		if (job->codes[i] == HEARTH_OK)
			succeeded++;
		else if (job->codes[i] != HEARTH_CANCELLED)
			failed++;
		/* A failed sync may have taken in its first half, and with it
		 * conflicts. */
		conflicts += job->results[i].conflicts_new;
		for (int kind = 0; kind < HEARTH_CONFLICT_KINDS; kind++)
			by_kind[kind] += job->results[i].conflicts_new_by_kind[kind];
	}
	/* What came in to settle ends the line: it is what the user has to
	 * act on (2 shows the Conflicts view). */
	char brought[256], lead[300] = "";
	progress_new_conflicts(conflicts, by_kind, brought, sizeof brought);
	if (brought[0] != '\0')
		snprintf(lead, sizeof lead, "%s, 2 opens them; ", brought);
	if (code == HEARTH_CANCELLED)
		app_message(view->app, "Sync cancelled: %sboth sides are valid; s again completes it",
		    lead);
	else if (code != HEARTH_OK)
		app_error(view->app, "Sync failed", error);
	else if (job->applied && job->apply_code == HEARTH_REFUSED && job->apply_result.guard.refused)
		guarded = true;
	else if (job->applied && job->apply_code != HEARTH_OK)
		app_error(view->app, "Synced, but the checkout stopped", &job->apply_error);
	else if (job->applied)
		report_applied(view, "Synced and checked out", lead, &job->apply_result);
	else if (succeeded > 0)
		report_success(view, job, succeeded, lead);
	if (failed > 0)
		report_failures(view, job, failed);
	/* Asked last: a dialog of failures would hide the question. */
	if (guarded && failed == 0)
		ask_apply(view, &job->apply_result.guard);
	else if (guarded)
		app_message(view->app, "Synced, but the checkout would delete %llu files: check out "
		    "head from History (1, then c) to confirm",
		    (unsigned long long)job->apply_result.guard.deleting);
	app_home_changed(view->app);
	job_free(job);
}

static void
submit_sync(struct view *view, const char *const *peers, size_t count)
{
	struct sync_pane *pane = view->private;
	struct sync_job *job = memory_alloc(1, sizeof *job);
	char *title = count == 1 ? memory_printf("syncing %s", peers[0]) :
	    memory_printf("syncing %zu peers", count);
	struct worker_job work = {
		.title = title,
		.run = sync_run,
		.done = sync_done,
		.discard = job_free,
		.context = job,
	};

	job->view = view;
	job->count = count;
	job->auto_checkout = hearth_config(app_home(view->app))->auto_checkout;
	job->peers = memory_alloc(count, sizeof *job->peers);
	for (size_t i = 0; i < count; i++)
		job->peers[i] = memory_strdup(peers[i]);
	job->results = memory_alloc(count, sizeof *job->results);
	job->codes = memory_alloc(count, sizeof *job->codes);
	job->errors = memory_alloc(count, sizeof *job->errors);
	atomic_init(&job->current, 0);
	atomic_init(&job->phase, "waiting");
	atomic_init(&job->started_ms, monotonic_ms());
	pane->job = job;
	app_submit(view->app, &work);
	free(title);
}

static bool
sync_busy(struct view *view)
{
	struct sync_pane *pane = view->private;

	if (pane->job == NULL)
		return false;
	app_message(view->app, "A sync is running; Esc cancels it");
	return true;
}

static void
sync_selected(struct view *view)
{
	const struct list_item *item = list_selected(view->list);

	if (item == NULL) {
		app_message(view->app, "No peer to sync with: add one under peers: in the config");
		return;
	}
	if (sync_busy(view))
		return;
	const char *target = row_target(item->data);
	submit_sync(view, &target, 1);
}

static void
sync_all(struct view *view)
{
	const struct list_item *root = &view->list->root;
	const char **targets;
	size_t count = 0;

	if (configured_count(view) == 0) {
		app_message(view->app, "No peers in the config to sync with");
		return;
	}
	if (sync_busy(view))
		return;
	targets = memory_alloc(root->child_count, sizeof *targets);
	for (size_t i = 0; i < root->child_count; i++) {
		const struct peer_row *row = root->children[i]->data;
		if (row->configured)
			targets[count++] = row->name;
	}
	submit_sync(view, targets, count);
	free(targets);
}

static bool
sync_handle(struct view *view, enum action action)
{
	switch (action) {
	case ACTION_SYNC:
		sync_selected(view);
		return true;
	case ACTION_SYNC_ALL:
		sync_all(view);
		return true;
	default:
		return false;
	}
}

/* ---- drawing -------------------------------------------------------------------- */

struct sync_columns {
	int name, success, attempt, traffic, ahead, address;	/* 0 hides a column */
};

/* Peer and Address as wide as the longest name and address (the peer is
 * told by them): the traffic gives way to them (the panel under the rows
 * shows it), and on a narrow screen the attempt too. */
static struct sync_columns
layout(const struct view *view, int width)
{
	const struct sync_pane *pane = view->private;
	int name = pane->name_width > SYNC_NAME_WIDTH ? pane->name_width : SYNC_NAME_WIDTH;
	struct sync_columns columns = {
		.name = name < SYNC_NAME_MAX ? name : SYNC_NAME_MAX, .success = SYNC_SUCCESS_WIDTH,
		.attempt = SYNC_ATTEMPT_WIDTH, .traffic = SYNC_TRAFFIC_WIDTH, .ahead = SYNC_AHEAD_WIDTH,
	};
	int address = pane->url_width > SYNC_ADDRESS_MIN ? pane->url_width : SYNC_ADDRESS_MIN;
	int used = 2 + columns.name + columns.success + columns.attempt + 2 * columns.traffic +
	    columns.ahead + 6;

	if (used + address + 1 > width) {
		used -= 2 * columns.traffic + 2;
		columns.traffic = 0;
	}
	if (used > width) {
		used -= columns.attempt + 1;
		columns.attempt = 0;
	}
	if (used > width && columns.name > SYNC_NAME_WIDTH) {
		used -= columns.name - SYNC_NAME_WIDTH;
		columns.name = SYNC_NAME_WIDTH;
	}
	int room = width - used - 1;
	columns.address = room >= SYNC_ADDRESS_MIN ? (room < address ? room : address) : 0;
	return columns;
}

/* Draws the cells of a row (or the header) left to right. */
static void
draw_cells(int y, int x, const struct sync_columns *columns, const char *const cells[6],
    const enum theme_role roles[6])
{
	const int widths[6] = { columns->name, columns->success, columns->attempt,
		columns->traffic, columns->traffic, columns->ahead };

	for (int i = 0; i < 6; i++) {
		if (widths[i] == 0)
			continue;
		draw_text(y, x, widths[i], roles[i], cells[i], DRAW_PAD);
		x += widths[i] + 1;
	}
}

static void
sync_draw_header(struct view *view, int y, int width)
{
	struct sync_columns columns = layout(view, width);
	const char *const cells[6] = { "Peer", "Last sync", "Last attempt", "Received", "Sent",
		"Ahead" };
	const enum theme_role roles[6] = { THEME_HEADER, THEME_HEADER, THEME_HEADER, THEME_HEADER,
		THEME_HEADER, THEME_HEADER };

	draw_fill(y, 0, width, THEME_HEADER);
	draw_cells(y, 2, &columns, cells, roles);
	if (columns.address > 0)
		draw_text(y, width - columns.address - 1, columns.address, THEME_HEADER, "Address", 0);
}

/* "syncing...", "waiting" or NULL: this row's part in the running job. */
static const char *
row_job_state(const struct view *view, const struct peer_row *row)
{
	const struct sync_job *job = ((const struct sync_pane *)view->private)->job;

	if (job == NULL)
		return NULL;
	size_t current = atomic_load(&job->current);
	for (size_t i = current; i < job->count; i++)
		if (strcmp(job->peers[i], row_target(row)) == 0)
			return i == current ? "syncing..." : "waiting";
	return NULL;
}

/* "ok 5 min ago", "failed just now", "never", or the job's state. */
static void
format_attempt(const struct peer_row *row, const char *state, char *out, size_t size)
{
	char age[32];

	format_age(row->last_attempt, age, sizeof age);
	if (state != NULL)
		snprintf(out, size, "%s", state);
	else if (row->last_attempt == 0)
		snprintf(out, size, "%s", age);
	else
		snprintf(out, size, "%s %s", row->last_error[0] ? "failed" : "ok", age);
}

/* "in step", "2 / 3" (ops here the peer lacks / there this one lacks). */
static void
format_ahead(const struct peer_row *row, char *out, size_t size)
{
	if (row->last_attempt == 0)
		snprintf(out, size, "-");
	else if (row->local_ahead == 0 && row->remote_ahead == 0)
		snprintf(out, size, "in step");
	else
		snprintf(out, size, "%llu / %llu", (unsigned long long)row->local_ahead,
		    (unsigned long long)row->remote_ahead);
}

static void
sync_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	struct view *view = context;
	const struct peer_row *row = item->data;
	struct sync_columns columns = layout(view, width);
	char success[32], attempt[48], received[32], sent[32], ahead[32];
	const char *state = row_job_state(view, row);

	format_age(row->last_success, success, sizeof success);
	format_attempt(row, state, attempt, sizeof attempt);
	format_traffic(row->ops_received, row->bytes_received, received, sizeof received);
	format_traffic(row->ops_sent, row->bytes_sent, sent, sizeof sent);
	format_ahead(row, ahead, sizeof ahead);
	const char *cells[6] = { row->name, success, attempt, row->last_success ? received : "",
		row->last_success ? sent : "", ahead };
	enum theme_role roles[6] = { THEME_NORMAL, THEME_DIM, state != NULL ? THEME_PROGRESS :
		row->last_error[0] ? THEME_ERROR : THEME_DIM, THEME_NORMAL, THEME_NORMAL, THEME_DIM };
	for (int i = 0; i < 6; i++)
		roles[i] = view_role(selected, roles[i]);
	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	draw_cells(y, x + 2, &columns, cells, roles);
	if (columns.address > 0)
		draw_text(y, x + width - columns.address - 1, columns.address,
		    view_role(selected, THEME_DIM), row->url, 0);
}

/* ---- the panel under the list -------------------------------------------------- */

/* Lines of the panel, drawn from the top and wrapped; stops at the bottom. */
struct panel {
	int y, height, width, line;
};

static void
panel_text(struct panel *panel, int indent, enum theme_role role, const char *text)
{
	if (panel->line >= panel->height)
		return;
	if (text[0] == '\0') {
		panel->line++;
		return;
	}
	panel->line += draw_wrapped(panel->y + panel->line, 2 + indent, panel->height - panel->line,
	    panel->width - 4 - indent, role, text);
}

static void
panel_bar(struct panel *panel, uint64_t done, uint64_t total)
{
	bool unicode = draw_unicode();
	int y = panel->y + panel->line;
	char count[64];

	if (panel->line >= panel->height)
		return;
	if (total == 0) {
		snprintf(count, sizeof count, "%llu so far", (unsigned long long)done);
		panel_text(panel, 2, THEME_DIM, count);
		return;
	}
	int filled = done >= total ? SYNC_BAR_WIDTH : (int)(SYNC_BAR_WIDTH * done / total);
	for (int cell = 0; cell < SYNC_BAR_WIDTH; cell++)
		draw_text(y, 4 + cell, 1, cell < filled ? THEME_PROGRESS : THEME_DIM,
		    cell < filled ? (unicode ? "\u2588" : "#") : (unicode ? "\u2591" : "-"), 0);
	snprintf(count, sizeof count, "%3d%%", (int)(done >= total ? 100 : 100 * done / total));
	draw_text(y, 5 + SYNC_BAR_WIDTH, panel->width - 7 - SYNC_BAR_WIDTH, THEME_NORMAL, count, 0);
	panel->line++;
}

static void
draw_progress_panel(struct panel *panel, struct sync_job *job)
{
	size_t current = atomic_load(&job->current);
	const char *phase = atomic_load(&job->phase);
	uint64_t bytes_in = atomic_load(&job->bytes_in), bytes_out = atomic_load(&job->bytes_out);
	int64_t elapsed = monotonic_ms() - atomic_load(&job->started_ms);
	char in[48], out[48], rate[16];

	char *title = job->count == 1 ? memory_printf("Syncing %s: %s", job->peers[current], phase) :
	    memory_printf("Syncing %s (%zu of %zu): %s", job->peers[current], current + 1, job->count,
	    phase);
	panel_text(panel, 0, THEME_TITLE, title);
	free(title);
	struct hearth_progress_report report = {
		.phase = phase, .done = atomic_load(&job->done), .total = atomic_load(&job->total),
		.bytes_done = atomic_load(&job->phase_bytes),
		.bytes_total = atomic_load(&job->phase_bytes_total),
	};
	double fraction = progress_fraction(&report);
	/* By bytes when the phase knows how many it moves: a chunk of 4 MiB
	 * and one of 4 KiB are not the same step. */
	if (fraction >= 0)
		panel_bar(panel, (uint64_t)(fraction * 1000), 1000);
	else
		panel_bar(panel, report.done, 0);
	char now[256];
	progress_line(&job->clock, &report, now, sizeof now);
	panel_text(panel, 2, THEME_NORMAL, now);
	format_bytes(bytes_in, in, sizeof in);
	format_bytes(bytes_out, out, sizeof out);
	char *line = memory_printf("received  %llu ops, %llu chunks, %s",
	    (unsigned long long)atomic_load(&job->ops_in),
	    (unsigned long long)atomic_load(&job->chunks_in), in);
	panel_text(panel, 2, THEME_NORMAL, line);
	free(line);
	line = memory_printf("sent      %llu ops, %llu chunks, %s",
	    (unsigned long long)atomic_load(&job->ops_out),
	    (unsigned long long)atomic_load(&job->chunks_out), out);
	panel_text(panel, 2, THEME_NORMAL, line);
	free(line);
	format_bytes(elapsed > 0 ? (bytes_in + bytes_out) * 1000 / (uint64_t)elapsed : 0, rate,
	    sizeof rate);
	line = memory_printf("%s/s. Esc cancels it: both sides stay valid, and syncing again "
	    "completes it.", rate);
	panel_text(panel, 2, THEME_DIM, line);
	free(line);
}

static void
draw_peer_panel(struct panel *panel, const struct peer_row *row)
{
	char when[32], age[32], received[32], sent[32];

	char *line = memory_printf("%s  %s%s", row->name, row->url,
	    row->configured ? "" : "  (synced by address; not in the config)");
	panel_text(panel, 0, THEME_TITLE, line);
	free(line);
	if (row->last_attempt == 0) {
		panel_text(panel, 2, THEME_DIM, "Never synced: s syncs with it now.");
		return;
	}
	draw_format_time(row->last_success, when, sizeof when);
	format_age(row->last_success, age, sizeof age);
	line = row->last_success == 0 ? memory_strdup("last sync: never succeeded") :
	    memory_printf("last sync: %s (%s), replica %.8s", when, age, row->replica);
	panel_text(panel, 2, THEME_NORMAL, line);
	free(line);
	if (row->last_success != 0) {
		format_traffic(row->ops_received, row->bytes_received, received, sizeof received);
		format_traffic(row->ops_sent, row->bytes_sent, sent, sizeof sent);
		line = memory_printf("that sync received %s and sent %s", received, sent);
		panel_text(panel, 2, THEME_NORMAL, line);
		free(line);
	}
	line = row->local_ahead == 0 && row->remote_ahead == 0 ?
	    memory_strdup("in step as of the last attempt") :
	    memory_printf("as of the last attempt, this replica had %llu op%s the peer lacks, and the "
	    "peer %llu this one lacks", (unsigned long long)row->local_ahead,
	    row->local_ahead == 1 ? "" : "s", (unsigned long long)row->remote_ahead);
	panel_text(panel, 2, THEME_NORMAL, line);
	free(line);
	if (row->last_error[0] != '\0') {
		format_age(row->last_attempt, age, sizeof age);
		line = memory_printf("the last attempt (%s) failed: %s", age, row->last_error);
		panel_text(panel, 2, THEME_ERROR, line);
		free(line);
	}
}

/* How to add a peer, naming the config file to edit. */
static void
draw_how_to_add(struct view *view, struct panel *panel)
{
	const struct config *config = hearth_config(app_home(view->app));
	char *path = config != NULL && config->source_path != NULL ?
	    memory_strdup(config->source_path) :
	    memory_printf("%s/config.yaml", app_summary(view->app)->state);

	panel_text(panel, 0, THEME_NORMAL, "A Home syncs with other replicas of itself: a folder on "
	    "this machine, or one on another machine over ssh. Name them under peers: in the "
	    "config file");
	panel_text(panel, 4, THEME_ID, path);
	panel_text(panel, 0, THEME_NORMAL, "for example:");
	panel_text(panel, 4, THEME_ID, "peers:");
	panel_text(panel, 4, THEME_ID, "  - name: laptop");
	panel_text(panel, 4, THEME_ID, "    url: ssh://me@laptop/home/me");
	panel_text(panel, 4, THEME_ID, "  - name: usb");
	panel_text(panel, 4, THEME_ID, "    url: /media/usb/home");
	panel_text(panel, 0, THEME_NORMAL, "");
	panel_text(panel, 0, THEME_NORMAL, "then start hearth again. `hearth sync PATH|URL` syncs "
	    "once without naming the peer in the config.");
	free(path);
}

static void
sync_draw_note(struct view *view, int y, int height, int width)
{
	struct sync_pane *pane = view->private;
	const struct list_item *item = list_selected(view->list);
	struct panel panel = { .y = y + 1, .height = height - 1, .width = width };

	if (pane->job != NULL) {
		draw_progress_panel(&panel, pane->job);
		return;
	}
	if (item != NULL) {
		draw_peer_panel(&panel, item->data);
		panel_text(&panel, 0, THEME_NORMAL, "");
	}
	if (configured_count(view) == 0) {
		panel_text(&panel, 0, THEME_TITLE, "No peers in the config.");
		panel_text(&panel, 0, THEME_NORMAL, "");
		draw_how_to_add(view, &panel);
		return;
	}
	panel_text(&panel, 0, THEME_DIM, "s syncs with the selected peer, S with every peer of the "
	    "config in turn. A sync changes the store, and the working tree only with "
	    "auto_checkout: true in the config; otherwise checkout (1, then c) brings in what "
	    "came.");
}

const struct view_ops view_sync_ops = {
	.name = "Sync",
	.scope = SCOPE_SYNC,
	.open = sync_open,
	.close = sync_close,
	.build = sync_build,
	.draw_header = sync_draw_header,
	.draw_row = sync_draw_row,
	.draw_note = sync_draw_note,
	.handle = sync_handle,
};
