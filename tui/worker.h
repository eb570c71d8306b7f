/* Background jobs: record, checkout and status on big trees run on one
 * worker thread with its own hearth handle (a handle belongs to one thread),
 * so the screen keeps repainting and taking keys. The worker reports
 * progress and finished jobs through a pipe the app polls with stdin; the
 * jobs' done callbacks run on the main thread, which alone touches curses. */
#ifndef HEARTH_TUI_WORKER_H
#define HEARTH_TUI_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/hearth.h"

/* Runs on the worker thread with the worker's handle. */
typedef int worker_run_fn(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error);
/* Runs on the main thread once the job ended; owns context from then on. */
typedef void worker_done_fn(void *context, int code, const struct hearth_error *error);

struct worker_job {
	const char *title;		/* "recording", copied */
	worker_run_fn *run;
	worker_done_fn *done;
	void (*discard)(void *context);	/* frees context of a job dropped at exit; NULL: free() */
	void *context;
	bool changes_home;		/* record, checkout: quitting asks first */
};

/* What the running job last reported, copied for the main thread. */
struct worker_progress {
	char title[64];
	char phase[64];
	char path[512];
	uint64_t done, total, bytes_done, bytes_total;
	size_t queued;		/* jobs waiting behind it */
	bool cancelling;
	bool changes_home;	/* it or a queued job would change the Home */
};

/* Starts the thread; the options are copied. Returns NULL when the thread
 * or its pipe cannot be made (with a message in error). */
struct worker *worker_new(const struct hearth_open_options *options, struct hearth_error *error);
/* Cancels the running job, waits for it, drops the queued ones. */
void worker_free(struct worker *worker);

/* Readable when a job reported progress or ended: poll it with stdin. */
int worker_wake_fd(const struct worker *worker);
/* Queues a job behind the running one. */
void worker_submit(struct worker *worker, const struct worker_job *job);
/* Asks the running job to stop at its next safe point; returns whether one runs. */
bool worker_cancel(struct worker *worker);
/* Whether a job runs (and a snapshot of its progress). */
bool worker_progress(struct worker *worker, struct worker_progress *out);
/* On the main thread when the wake fd is readable: clears it and runs the
 * done callbacks of jobs that ended. Returns whether anything happened. */
bool worker_dispatch(struct worker *worker);

#endif
