/* Folders listed ahead of the walk on a second thread (scan_prefetch.h).
 * The thread only reads the disk: every decision about what it found
 * (left out, ignored, another Home, a change) stays with the walk, which
 * takes a listing only for the very folder it is about to read. */
#include "backend/disk/scan_prefetch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/disk/identity.h"
#include "backend/disk/layout.h"
#include "backend/disk/scan.h"
#include "model/array.h"

/* ---- one listing ---------------------------------------------------------------- */

static bool
refused(int error)
{
	return error == EACCES || error == EPERM;
}

static void
add_name(struct scan_listing *out, int folder, const char *name)
{
	size_t length = strlen(name) + 1;
	out->names = array_grow(out->names, &out->names_capacity, out->names_length + length, 1);
	out->entries = array_grow(out->entries, &out->capacity, out->count + 1,
	    sizeof *out->entries);
	struct scan_listed *entry = &out->entries[out->count++];
	entry->name = out->names_length;
	memcpy(out->names + out->names_length, name, length);
	out->names_length += length;
	entry->error = fstatat(folder, name, &entry->status, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
	entry->may_be_home_state = entry->error == 0 && S_ISDIR(entry->status.st_mode) &&
	    layout_may_be_home_state(folder, name);
}

/* Whether the walk needs the folder open to read what the listing holds:
 * an identity marker's id, or a folder that may be a Home's state. */
static bool
needs_folder(const struct scan_listing *listing)
{
	for (size_t i = 0; i < listing->count; i++) {
		const struct scan_listed *entry = &listing->entries[i];
		if (entry->may_be_home_state ||
		    strcmp(listing->names + entry->name, IDENTITY_MARKER) == 0)
			return true;
	}
	return false;
}

void
scan_listing_read(int root_fd, const char *path, uint8_t *dirents, struct scan_listing *out)
{
	memset(out, 0, sizeof *out);
	out->fd = scan_open_folder(root_fd, path);
	if (out->fd < 0) {
		out->open_error = errno;
		return;
	}
	out->opened = true;
	/* getdents64 into one buffer, not opendir's: fdopendir allocated 32 KiB
	 * and asked fcntl and fstat again for each folder. The same entries, in
	 * the same order, as readdir gives (which also skips inode 0). */
	for (;;) {
		ssize_t got = getdents64(out->fd, dirents, SCAN_DIRENT_BUFFER);
		if (got <= 0) {
			out->read_error = got < 0 ? errno : 0;
			return;
		}
		for (ssize_t at = 0; at < got;) {
			const struct dirent64 *dirent = (const struct dirent64 *)(dirents + at);
			at += dirent->d_reclen;
			if (dirent->d_ino == 0 || strcmp(dirent->d_name, ".") == 0 ||
			    strcmp(dirent->d_name, "..") == 0)
				continue;
			add_name(out, out->fd, dirent->d_name);
			/* Listed but not searchable: the rest cannot be told. */
			if (refused(out->entries[out->count - 1].error))
				return;
		}
	}
}

void
scan_listing_free(struct scan_listing *listing)
{
	if (listing->fd >= 0)
		close(listing->fd);
	free(listing->names);
	free(listing->entries);
	memset(listing, 0, sizeof *listing);
	listing->fd = -1;
}

/* ---- the thread ------------------------------------------------------------------- */

/* How far the thread may run ahead: listings made and not yet taken. A
 * walk that turns elsewhere (a deferred folder, a folder left out) leaves
 * some untaken; past these bounds the thread waits, and the walk lists on
 * its own, as it would without it. */
#define PREFETCH_READY_MAX 64
#define PREFETCH_ENTRIES_MAX 32768

enum job_state { JOB_ASKED, JOB_LISTING, JOB_READY };

struct prefetch_job {
	char *path;
	enum job_state state;
	struct scan_listing *roots;	/* root_count listings once ready */
	size_t entries;
};

struct scan_prefetch {
	const struct hearth *home;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the thread: asked for more, or stop */
	pthread_cond_t listed;		/* the walk: a job became ready */
	/* A stack: the top (the end) is what the walk wants next. */
	struct prefetch_job **jobs;
	size_t count, capacity;
	size_t ready, ready_entries;
	bool stopping;
	_Alignas(struct dirent64) uint8_t dirents[SCAN_DIRENT_BUFFER];
};

static void
job_free(const struct scan_prefetch *prefetch, struct prefetch_job *job)
{
	if (job->roots != NULL)
		for (size_t i = 0; i < prefetch->home->root_count; i++)
			scan_listing_free(&job->roots[i]);
	free(job->roots);
	free(job->path);
	free(job);
}

/* The topmost job not begun, if the thread may begin one; lock held. */
static struct prefetch_job *
next_job(struct scan_prefetch *prefetch)
{
	if (prefetch->ready >= PREFETCH_READY_MAX ||
	    prefetch->ready_entries >= PREFETCH_ENTRIES_MAX)
		return NULL;
	for (size_t i = prefetch->count; i-- > 0;)
		if (prefetch->jobs[i]->state == JOB_ASKED)
			return prefetch->jobs[i];
	return NULL;
}

static void *
prefetch_main(void *context)
{
	struct scan_prefetch *prefetch = context;
	const struct hearth *home = prefetch->home;

	pthread_mutex_lock(&prefetch->lock);
	while (!prefetch->stopping) {
		struct prefetch_job *job = next_job(prefetch);
		if (job == NULL) {
			pthread_cond_wait(&prefetch->wake, &prefetch->lock);
			continue;
		}
		job->state = JOB_LISTING;
		pthread_mutex_unlock(&prefetch->lock);
		struct scan_listing *roots = array_alloc(home->root_count, sizeof *roots);
		size_t entries = 0;
		for (size_t i = 0; i < home->root_count; i++) {
			scan_listing_read(home->roots[i].fd, job->path, prefetch->dirents, &roots[i]);
			entries += roots[i].count;
			/* Closed here, not by the walk, where it will not use it. */
			if (roots[i].fd >= 0 && !needs_folder(&roots[i])) {
				close(roots[i].fd);
				roots[i].fd = -1;
			}
		}
		pthread_mutex_lock(&prefetch->lock);
		job->roots = roots;
		job->entries = entries;
		job->state = JOB_READY;
		prefetch->ready++;
		prefetch->ready_entries += entries;
		pthread_cond_broadcast(&prefetch->listed);
	}
	pthread_mutex_unlock(&prefetch->lock);
	return NULL;
}

struct scan_prefetch *
scan_prefetch_start(const struct hearth *home)
{
	struct scan_prefetch *prefetch = array_zeroed(1, sizeof *prefetch);

	prefetch->home = home;
	pthread_mutex_init(&prefetch->lock, NULL);
	pthread_cond_init(&prefetch->wake, NULL);
	pthread_cond_init(&prefetch->listed, NULL);
	if (pthread_create(&prefetch->thread, NULL, prefetch_main, prefetch) != 0) {
		pthread_cond_destroy(&prefetch->listed);
		pthread_cond_destroy(&prefetch->wake);
		pthread_mutex_destroy(&prefetch->lock);
		free(prefetch);
		return NULL;
	}
	return prefetch;
}

void
scan_prefetch_ask(struct scan_prefetch *prefetch, const char *folder, const char *const *names,
    size_t count)
{
	size_t folder_length = strlen(folder);

	if (count == 0)
		return;
	pthread_mutex_lock(&prefetch->lock);
	prefetch->jobs = array_grow(prefetch->jobs, &prefetch->capacity, prefetch->count + count,
	    sizeof *prefetch->jobs);
	/* The first wanted on top. */
	for (size_t i = count; i-- > 0;) {
		struct prefetch_job *job = array_zeroed(1, sizeof *job);
		size_t name_length = strlen(names[i]);
		job->path = array_alloc(folder_length + name_length + 2, 1);
		if (folder_length > 0) {
			memcpy(job->path, folder, folder_length);
			job->path[folder_length] = '/';
		}
		memcpy(job->path + folder_length + (folder_length > 0), names[i], name_length + 1);
		job->state = JOB_ASKED;
		prefetch->jobs[prefetch->count++] = job;
	}
	pthread_cond_signal(&prefetch->wake);
	pthread_mutex_unlock(&prefetch->lock);
}

/* Takes jobs[index] off the stack; lock held, the job not being listed. */
static void
remove_job(struct scan_prefetch *prefetch, size_t index)
{
	struct prefetch_job *job = prefetch->jobs[index];

	if (job->state == JOB_READY) {
		prefetch->ready--;
		prefetch->ready_entries -= job->entries;
	}
	memmove(&prefetch->jobs[index], &prefetch->jobs[index + 1],
	    (prefetch->count - index - 1) * sizeof *prefetch->jobs);
	prefetch->count--;
}

bool
scan_prefetch_take(struct scan_prefetch *prefetch, const char *path, struct scan_listing *out)
{
	pthread_mutex_lock(&prefetch->lock);
	size_t index = prefetch->count;
	while (index-- > 0 && strcmp(prefetch->jobs[index]->path, path) != 0)
		;
	if (index == (size_t)-1) {
		pthread_mutex_unlock(&prefetch->lock);
		return false;
	}
	/* Above it: folders asked for after it, of a subtree the walk has
	 * left since. Given up, once the thread is done with the one it may
	 * be listing. */
	while (prefetch->count > index + 1) {
		struct prefetch_job *top = prefetch->jobs[prefetch->count - 1];
		if (top->state == JOB_LISTING) {
			pthread_cond_wait(&prefetch->listed, &prefetch->lock);
			continue;
		}
		remove_job(prefetch, prefetch->count - 1);
		job_free(prefetch, top);
	}
	struct prefetch_job *job = prefetch->jobs[index];
	while (job->state == JOB_LISTING)
		pthread_cond_wait(&prefetch->listed, &prefetch->lock);
	bool taken = job->state == JOB_READY;
	remove_job(prefetch, index);
	/* A thread held back by the bounds may go on. */
	pthread_cond_signal(&prefetch->wake);
	pthread_mutex_unlock(&prefetch->lock);
	if (taken)
		memcpy(out, job->roots, prefetch->home->root_count * sizeof *out);
	free(job->roots);
	job->roots = NULL;
	job_free(prefetch, job);
	return taken;
}

/* Whether the thread has a job to list or is listing one; lock held. */
static bool
busy(struct scan_prefetch *prefetch)
{
	if (next_job(prefetch) != NULL)
		return true;
	for (size_t i = 0; i < prefetch->count; i++)
		if (prefetch->jobs[i]->state == JOB_LISTING)
			return true;
	return false;
}

void
scan_prefetch_settle(struct scan_prefetch *prefetch)
{
	pthread_mutex_lock(&prefetch->lock);
	while (busy(prefetch))
		pthread_cond_wait(&prefetch->listed, &prefetch->lock);
	pthread_mutex_unlock(&prefetch->lock);
}

void
scan_prefetch_stop(struct scan_prefetch *prefetch)
{
	if (prefetch == NULL)
		return;
	pthread_mutex_lock(&prefetch->lock);
	prefetch->stopping = true;
	pthread_cond_signal(&prefetch->wake);
	pthread_mutex_unlock(&prefetch->lock);
	pthread_join(prefetch->thread, NULL);
	for (size_t i = 0; i < prefetch->count; i++)
		job_free(prefetch, prefetch->jobs[i]);
	free(prefetch->jobs);
	pthread_cond_destroy(&prefetch->listed);
	pthread_cond_destroy(&prefetch->wake);
	pthread_mutex_destroy(&prefetch->lock);
	free(prefetch);
}
