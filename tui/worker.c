/* The worker thread (see worker.h). Jobs wait in a queue under one mutex;
 * the thread opens its own handle at its first job and keeps it. Progress
 * reports copy into a snapshot and wake the main thread at most once until
 * it has looked, so a chatty job cannot flood the pipe. */
#include "tui/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/memory.h"

struct worker_entry {
	struct worker_entry *next;
	struct worker_job job;
	int code;
	struct hearth_error error;
};

struct worker {
	pthread_t thread;
	pthread_mutex_t mutex;
	pthread_cond_t wake_thread;
	int pipe[2];
	atomic_int cancel;
	atomic_bool wake_pending;
	bool stopping;
	char *config_path, *start_dir;
	struct worker_entry *queue;		/* waiting, oldest first */
	struct worker_entry *running;
	struct worker_entry *finished;	/* ended, oldest first */
	struct worker_progress progress;
};

static void
append(struct worker_entry **list, struct worker_entry *entry)
{
	entry->next = NULL;
	while (*list != NULL)
		list = &(*list)->next;
	*list = entry;
}

static void
wake_main(struct worker *worker)
{
	if (atomic_exchange(&worker->wake_pending, true))
		return;
	ssize_t written;
	do
		written = write(worker->pipe[1], "w", 1);
	while (written < 0 && errno == EINTR);
}

static void
report(void *context, const struct hearth_progress_report *update)
{
	struct worker *worker = context;

	pthread_mutex_lock(&worker->mutex);
	snprintf(worker->progress.phase, sizeof worker->progress.phase, "%s",
	    update->phase ? update->phase : "");
	snprintf(worker->progress.path, sizeof worker->progress.path, "%s",
	    update->path ? update->path : "");
	worker->progress.done = update->done;
	worker->progress.total = update->total;
	worker->progress.bytes_done = update->bytes_done;
	worker->progress.bytes_total = update->bytes_total;
	pthread_mutex_unlock(&worker->mutex);
	wake_main(worker);
}

static struct worker_entry *
next_job(struct worker *worker)
{
	pthread_mutex_lock(&worker->mutex);
	while (worker->queue == NULL && !worker->stopping)
		pthread_cond_wait(&worker->wake_thread, &worker->mutex);
	struct worker_entry *entry = NULL;
	if (!worker->stopping) {
		entry = worker->queue;
		worker->queue = entry->next;
		worker->running = entry;
		atomic_store(&worker->cancel, 0);
		memset(&worker->progress, 0, sizeof worker->progress);
		snprintf(worker->progress.title, sizeof worker->progress.title, "%s",
		    entry->job.title);
	}
	pthread_mutex_unlock(&worker->mutex);
	return entry;
}

static void *
worker_main(void *argument)
{
	struct worker *worker = argument;
	hearth *home = NULL;
	struct hearth_open_options options = {
		.config_path = worker->config_path,
		.start_dir = worker->start_dir,
	};
	struct hearth_progress progress = {
		.report = report,
		.context = worker,
		.cancel = &worker->cancel,
	};
	struct worker_entry *entry;

	while ((entry = next_job(worker)) != NULL) {
		memset(&entry->error, 0, sizeof entry->error);
		entry->code = HEARTH_OK;
		if (home == NULL)
			entry->code = hearth_open(&home, &options, &entry->error);
		if (entry->code == HEARTH_OK)
			entry->code = entry->job.run(home, entry->job.context, &progress, &entry->error);
		pthread_mutex_lock(&worker->mutex);
		worker->running = NULL;
		append(&worker->finished, entry);
		pthread_mutex_unlock(&worker->mutex);
		wake_main(worker);
	}
	if (home != NULL)
		hearth_close(home);
	return NULL;
}

struct worker *
worker_new(const struct hearth_open_options *options, struct hearth_error *error)
{
	struct worker *worker = memory_alloc(1, sizeof *worker);

	if (pipe2(worker->pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
		error->code = HEARTH_FAILED;
		snprintf(error->message, sizeof error->message, "cannot make a pipe: %s",
		    strerror(errno));
		free(worker);
		return NULL;
	}
	pthread_mutex_init(&worker->mutex, NULL);
	pthread_cond_init(&worker->wake_thread, NULL);
	atomic_init(&worker->cancel, 0);
	atomic_init(&worker->wake_pending, false);
	worker->config_path = options && options->config_path ? memory_strdup(options->config_path) : NULL;
	worker->start_dir = options && options->start_dir ? memory_strdup(options->start_dir) : NULL;
	int failed = pthread_create(&worker->thread, NULL, worker_main, worker);
	if (failed != 0) {
		error->code = HEARTH_FAILED;
		snprintf(error->message, sizeof error->message, "cannot start the worker thread: %s",
		    strerror(failed));
		close(worker->pipe[0]);
		close(worker->pipe[1]);
		pthread_mutex_destroy(&worker->mutex);
		pthread_cond_destroy(&worker->wake_thread);
		free(worker->config_path);
		free(worker->start_dir);
		free(worker);
		return NULL;
	}
	return worker;
}

static void
discard_all(struct worker_entry *entry)
{
	while (entry != NULL) {
		struct worker_entry *next = entry->next;
		if (entry->job.discard != NULL)
			entry->job.discard(entry->job.context);
		else
			free(entry->job.context);
		free((char *)entry->job.title);
		free(entry);
		entry = next;
	}
}

void
worker_free(struct worker *worker)
{
	if (worker == NULL)
		return;
	pthread_mutex_lock(&worker->mutex);
	worker->stopping = true;
	atomic_store(&worker->cancel, 1);
	pthread_cond_signal(&worker->wake_thread);
	pthread_mutex_unlock(&worker->mutex);
	pthread_join(worker->thread, NULL);
	discard_all(worker->queue);
	discard_all(worker->finished);
	close(worker->pipe[0]);
	close(worker->pipe[1]);
	pthread_mutex_destroy(&worker->mutex);
	pthread_cond_destroy(&worker->wake_thread);
	free(worker->config_path);
	free(worker->start_dir);
	free(worker);
}

int
worker_wake_fd(const struct worker *worker)
{
	return worker->pipe[0];
}

void
worker_submit(struct worker *worker, const struct worker_job *job)
{
	struct worker_entry *entry = memory_alloc(1, sizeof *entry);

	entry->job = *job;
	entry->job.title = memory_strdup(job->title ? job->title : "working");
	pthread_mutex_lock(&worker->mutex);
	append(&worker->queue, entry);
	pthread_cond_signal(&worker->wake_thread);
	pthread_mutex_unlock(&worker->mutex);
}

bool
worker_cancel(struct worker *worker)
{
	pthread_mutex_lock(&worker->mutex);
	bool running = worker->running != NULL;
	if (running) {
		atomic_store(&worker->cancel, 1);
		worker->progress.cancelling = true;
	}
	pthread_mutex_unlock(&worker->mutex);
	return running;
}

bool
worker_progress(struct worker *worker, struct worker_progress *out)
{
	pthread_mutex_lock(&worker->mutex);
	bool running = worker->running != NULL;
	size_t queued = 0;
	bool changes_home = running && worker->running->job.changes_home;
	for (struct worker_entry *entry = worker->queue; entry != NULL; entry = entry->next) {
		queued++;
		changes_home = changes_home || entry->job.changes_home;
	}
	if (running || queued > 0) {
		*out = worker->progress;
		out->queued = queued;
		out->changes_home = changes_home;
	}
	pthread_mutex_unlock(&worker->mutex);
	return running || queued > 0;
}

bool
worker_dispatch(struct worker *worker)
{
	char drain[64];
	bool woken = false;

	/* Drain, then clear: anything reported after the clear writes a new
	 * byte, and anything before it is in the lists read below. */
	while (read(worker->pipe[0], drain, sizeof drain) > 0)
		woken = true;
	atomic_store(&worker->wake_pending, false);
	for (;;) {
		pthread_mutex_lock(&worker->mutex);
		struct worker_entry *entry = worker->finished;
		if (entry != NULL)
			worker->finished = entry->next;
		pthread_mutex_unlock(&worker->mutex);
		if (entry == NULL)
			break;
		woken = true;
		if (entry->job.done != NULL)
			entry->job.done(entry->job.context, entry->code, &entry->error);
		free((char *)entry->job.title);
		free(entry);
	}
	return woken;
}
