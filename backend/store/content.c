/* Content into packs: streams bytes through the chunker, hashing the whole
 * (the blob id) and each chunk (the chunk ids), and hands the chunks the
 * store lacks to the pack writer. Memory is the read window, whatever the
 * file's size.
 *
 * Threading: a file of more than one chunk is hashed twice, whole and by
 * chunks, so for those a read-ahead thread reads the file and hashes it
 * whole (see struct content_window) while the caller cuts, hashes and
 * stores chunks; together with the pack writer's compressing threads that
 * keeps two cores busy. known() and the pack writer are called on the
 * caller's thread only. */
#include "backend/store/content.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/store/chunk.h"
#include "backend/store/hash.h"
#include "backend/io/fail.h"
#include "model/array.h"

/* A chunk is at most CHUNK_MAX; twice that leaves the reader room to read
 * ahead while the caller cuts, and bounds memory at about 2 x CHUNK_MAX. */
#define CONTENT_WINDOW (2 * (size_t)CHUNK_MAX)
#define CONTENT_WINDOW_FIRST (64 * 1024)
#define CONTENT_HASH_BLOCK (1024 * 1024)
/* Small enough that the bytes are still in cache when hashed. */
#define CONTENT_READ_STEP (1024 * 1024)

struct content_stream {
	struct pack_writer *writer;
	content_known_fn known;
	content_base_fn base;
	void *context;
	struct content_result *out;
	size_t chunk_capacity;
	struct hearth_error *error;
};


void
content_result_free(struct content_result *result)
{
	free(result->chunks);
	memset(result, 0, sizeof *result);
}

static void
content_remember_chunk(struct content_stream *stream, const struct hash *chunk)
{
	struct content_result *out = stream->out;

	out->chunks = array_grow(out->chunks, &stream->chunk_capacity, out->chunk_count + 1,
	    sizeof *out->chunks);
	out->chunks[out->chunk_count++] = *chunk;
}

/* Names a chunk and stores it unless the writer or the store holds it. The
 * whole-content hash is the caller's. A sink's refusal code comes back as is. */
static int
content_take_chunk(struct content_stream *stream, const uint8_t *data, size_t length)
{
	struct hash chunk;

	hash_bytes(data, length, &chunk);
	stream->out->size += length;
	content_remember_chunk(stream, &chunk);
	int held = stream->known != NULL ? stream->known(stream->context, &chunk, length) : 0;
	if (held < 0)
		return hearth_error_put(stream->error, "stopped");
	if (held > 0 || pack_writer_holds(stream->writer, &chunk))
		return 0;
	struct pack_base base;
	bool based = stream->base != NULL &&
	    stream->base(stream->context, stream->out->chunk_count - 1, &base) == 1;
	return pack_writer_add_delta(stream->writer, &chunk, data, length, based ? &base : NULL,
	    stream->error);
}

static void
content_stream_init(struct content_stream *stream, struct pack_writer *writer,
    content_known_fn known, void *context, struct content_result *out,
    struct hearth_error *error)
{
	memset(out, 0, sizeof *out);
	*stream = (struct content_stream){ .writer = writer, .known = known, .context = context,
		.out = out, .error = error };
}

/* A single chunk's id is the blob id: those bytes are hashed only once. */
static void
content_stream_single(struct content_stream *stream)
{
	stream->out->blob = stream->out->chunks[0];
}

/* Frees the result when status is an error, so the caller owns nothing. */
static int
content_stream_end(struct content_stream *stream, int status)
{
	if (status != 0)
		content_result_free(stream->out);
	return status;
}

int
content_store_bytes(struct pack_writer *writer, const void *data, size_t length,
    content_known_fn known, void *context, struct content_result *out,
    struct hearth_error *error)
{
	static const uint8_t nothing[1];
	struct content_stream stream;
	const uint8_t *bytes = data != NULL ? data : nothing;
	size_t offset = 0;
	int status = 0;

	content_stream_init(&stream, writer, known, context, out, error);
	do {
		size_t cut = chunk_next(bytes + offset, length - offset, true);
		status = content_take_chunk(&stream, bytes + offset, cut);
		offset += cut;
	} while (status == 0 && offset < length);
	if (status == 0 && out->chunk_count == 1)
		content_stream_single(&stream);
	else if (status == 0)
		hash_bytes(bytes, length, &out->blob);
	return content_stream_end(&stream, status);
}

/* ---- the read window ---------------------------------------------------- */

/* The bytes between start and end wait to be cut. The window grows to
 * CONTENT_WINDOW (small files stay small) and then, when full, moves its
 * unread tail to the front.
 *
 * Once the file proves longer than one chunk its whole-file hash is needed
 * too, and a read-ahead thread takes over reading: it fills the window in
 * CONTENT_READ_STEP pieces and hashes each while it is still in cache. The
 * lock guards end, at_end, read_error, hashed, busy and stopping; the
 * caller alone moves or grows the window, and only while the reader is
 * idle with nothing left to hash, so the reader never sees bytes move. */
struct content_window {
	int fd;
	uint8_t *bytes;
	size_t capacity;
	size_t start;			/* first byte not yet chunked; the caller's */
	size_t end;			/* first byte not yet read */
	bool at_end;
	int read_error;			/* errno of a failed read */
	struct hash_state *blob;	/* the whole-file hash, once needed */
	size_t hashed;			/* bytes before this are in blob */
	bool threaded;			/* the read-ahead thread runs */
	bool busy;			/* it works outside the lock */
	bool stopping;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
};

/* What the caller may cut: a snapshot taken under the lock. */
struct content_view {
	size_t waiting;
	bool at_end;
	int read_error;
};

/* The next chunk: its length, and whether it ends the file. */
struct content_cut {
	size_t length;
	bool last;
};

/* Sized from the file's length when it tells one, so a small file costs a
 * small buffer and a medium one no regrowth. */
static size_t
content_window_first_size(int fd)
{
	struct stat status;

	if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))
		return CONTENT_WINDOW_FIRST;
	if ((uint64_t)status.st_size >= CONTENT_WINDOW)
		return CONTENT_WINDOW;
	size_t size = (size_t)status.st_size + 1;	/* room to see the end */
	return size < CONTENT_WINDOW_FIRST ? CONTENT_WINDOW_FIRST : size;
}

/* The caller's, with the reader idle and caught up (or not running). A full
 * window is only moved down once at least CHUNK_MAX of it has been cut (a
 * caller short of bytes has cut more than that), so this always frees room. */
static void
content_window_make_room(struct content_window *window)
{
	if (window->capacity >= CONTENT_WINDOW) {
		size_t shift = window->start;
		memmove(window->bytes, window->bytes + shift, window->end - shift);
		window->start = 0;
		window->end -= shift;
		if (window->blob != NULL)
			window->hashed -= shift;
		return;
	}
	size_t capacity = window->capacity ? window->capacity * 2
					   : content_window_first_size(window->fd);
	if (capacity > CONTENT_WINDOW)
		capacity = CONTENT_WINDOW;
	window->bytes = array_resize(window->bytes, capacity, 1);
	window->capacity = capacity;
}

/* One read on the caller's thread, before the reader runs or without it. */
static void
content_window_read(struct content_window *window)
{
	ssize_t got;

	do
		got = read(window->fd, window->bytes + window->end, window->capacity - window->end);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		window->read_error = errno;
		window->at_end = true;
		return;
	}
	if (got == 0)
		window->at_end = true;
	if (window->blob != NULL) {
		hash_update(window->blob, window->bytes + window->end, (size_t)got);
		window->hashed += (size_t)got;
	}
	window->end += (size_t)got;
}

/* Both reader steps are entered and left with the lock held. */
static void
content_reader_hash_backlog(struct content_window *window)
{
	const uint8_t *from = window->bytes + window->hashed;
	size_t length = window->end - window->hashed;

	pthread_mutex_unlock(&window->lock);
	hash_update(window->blob, from, length);
	pthread_mutex_lock(&window->lock);
	window->hashed += length;
}

static void
content_reader_read(struct content_window *window)
{
	uint8_t *into = window->bytes + window->end;
	size_t room = window->capacity - window->end;
	ssize_t got;

	if (room > CONTENT_READ_STEP)
		room = CONTENT_READ_STEP;
	pthread_mutex_unlock(&window->lock);
	do
		got = read(window->fd, into, room);
	while (got < 0 && errno == EINTR);
	int read_error = got < 0 ? errno : 0;
	if (got > 0)
		hash_update(window->blob, into, (size_t)got);
	pthread_mutex_lock(&window->lock);
	if (got <= 0) {
		window->read_error = read_error;
		window->at_end = true;
		return;
	}
	window->end += (size_t)got;
	window->hashed += (size_t)got;
}

static void *
content_reader_main(void *argument)
{
	struct content_window *window = argument;

	pthread_mutex_lock(&window->lock);
	while (!window->stopping) {
		bool backlog = window->hashed < window->end;
		bool room = !window->at_end && window->end < window->capacity;
		if (!backlog && !room) {
			pthread_cond_wait(&window->changed, &window->lock);
			continue;
		}
		window->busy = true;
		if (backlog)
			content_reader_hash_backlog(window);
		else
			content_reader_read(window);
		window->busy = false;
		pthread_cond_broadcast(&window->changed);
	}
	pthread_mutex_unlock(&window->lock);
	return NULL;
}

/* The window still starts at the file's first byte: the reader hashes what
 * is there, then reads on. Without a thread the caller does both. */
static void
content_window_start_reader(struct content_window *window)
{
	window->blob = hash_begin();
	window->hashed = 0;
	pthread_mutex_init(&window->lock, NULL);
	pthread_cond_init(&window->changed, NULL);
	window->threaded = pthread_create(&window->thread, NULL, content_reader_main,
	    window) == 0;
	if (window->threaded)
		return;
	pthread_mutex_destroy(&window->lock);
	pthread_cond_destroy(&window->changed);
	hash_update(window->blob, window->bytes, window->end);
	window->hashed = window->end;
}

static bool
content_window_full_and_idle(const struct content_window *window)
{
	return window->end == window->capacity && !window->busy &&
	    window->hashed == window->end;
}

/* Takes a snapshot. Once a full window has CHUNK_MAX bytes cut, its tail
 * moves down at once, so the reader never idles waiting for room; moving
 * no more than was consumed keeps the copying under one pass. */
static void
content_window_look(struct content_window *window, struct content_view *view)
{
	if (window->threaded) {
		pthread_mutex_lock(&window->lock);
		if (content_window_full_and_idle(window) && window->start >= CHUNK_MAX) {
			content_window_make_room(window);
			pthread_cond_broadcast(&window->changed);
		}
	}
	view->waiting = window->end - window->start;
	view->at_end = window->at_end;
	view->read_error = window->read_error;
	if (window->threaded)
		pthread_mutex_unlock(&window->lock);
}

/* Waits until more than seen bytes wait to be cut, or the file has ended;
 * without the reader, reads once. Room is made only when the window is
 * full, which a caller short of bytes implies it has mostly cut. */
static void
content_window_await(struct content_window *window, size_t seen)
{
	if (!window->threaded) {
		if (window->end == window->capacity)
			content_window_make_room(window);
		content_window_read(window);
		return;
	}
	pthread_mutex_lock(&window->lock);
	while (!window->at_end && window->end - window->start <= seen) {
		if (content_window_full_and_idle(window)) {
			content_window_make_room(window);
			pthread_cond_broadcast(&window->changed);
		} else {
			pthread_cond_wait(&window->changed, &window->lock);
		}
	}
	pthread_mutex_unlock(&window->lock);
}

/* Finds the next chunk. A cut found in fewer than CHUNK_MAX bytes is final
 * (chunk.h), so the caller cuts as soon as one shows rather than waiting
 * for CHUNK_MAX bytes ahead. The bytes being scanned never move: only this
 * thread moves them, and the reader writes past end. */
static int
content_window_next_cut(struct content_window *window, struct content_cut *cut,
    struct hearth_error *error)
{
	size_t tried = 0;	/* a scan of this many bytes found no cut */

	for (;;) {
		struct content_view view;
		content_window_look(window, &view);
		if (view.read_error != 0)
			return hearth_error_put(error, "read: %s", strerror(view.read_error));
		const uint8_t *bytes = window->bytes + window->start;
		if (view.at_end || view.waiting >= CHUNK_MAX) {
			cut->length = chunk_next(bytes, view.waiting, view.at_end);
			cut->last = view.at_end && cut->length == view.waiting;
			return 0;
		}
		if (view.waiting > tried) {
			cut->length = chunk_next(bytes, view.waiting, false);
			cut->last = false;
			if (cut->length < view.waiting)
				return 0;
			tried = view.waiting;
		}
		content_window_await(window, view.waiting);
	}
}

/* Stops the reader once it has hashed all it read, and writes the digest
 * (when blob is not NULL). */
static void
content_window_finish(struct content_window *window, struct hash *blob)
{
	struct hash unused;

	if (window->threaded) {
		pthread_mutex_lock(&window->lock);
		while (window->busy || window->hashed < window->end)
			pthread_cond_wait(&window->changed, &window->lock);
		window->stopping = true;
		pthread_cond_broadcast(&window->changed);
		pthread_mutex_unlock(&window->lock);
		pthread_join(window->thread, NULL);
		pthread_mutex_destroy(&window->lock);
		pthread_cond_destroy(&window->changed);
	}
	if (window->blob != NULL)
		hash_finish(window->blob, blob != NULL ? blob : &unused);
	free(window->bytes);
}

int
content_store_fd(struct pack_writer *writer, int fd, content_known_fn known, void *context,
    struct content_result *out, struct hearth_error *error)
{
	return content_store_fd_based(writer, fd, known, NULL, context, out, error);
}

int
content_store_fd_based(struct pack_writer *writer, int fd, content_known_fn known,
    content_base_fn base, void *context, struct content_result *out,
    struct hearth_error *error)
{
	struct content_stream stream;
	struct content_window window = { .fd = fd };
	struct content_cut cut = { 0 };
	int status;

	content_stream_init(&stream, writer, known, context, out, error);
	stream.base = base;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	do {
		status = content_window_next_cut(&window, &cut, error);
		if (status != 0)
			break;
		if (out->chunk_count == 0 && !cut.last)
			content_window_start_reader(&window);
		status = content_take_chunk(&stream, window.bytes + window.start, cut.length);
		window.start += cut.length;
	} while (status == 0 && !cut.last);
	bool single = window.blob == NULL;
	content_window_finish(&window, status == 0 ? &out->blob : NULL);
	if (status == 0 && single)
		content_stream_single(&stream);
	return content_stream_end(&stream, status);
}

int
content_hash_fd(int fd, struct hash *out, uint64_t *size, struct hearth_error *error)
{
	uint8_t *block = array_alloc(CONTENT_HASH_BLOCK, 1);
	uint64_t total = 0;

	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	struct hash_state *state = hash_begin();
	for (;;) {
		ssize_t got = read(fd, block, CONTENT_HASH_BLOCK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int saved = errno;
			hash_finish(state, out);
			free(block);
			return hearth_error_put(error, "read: %s", strerror(saved));
		}
		if (got == 0)
			break;
		hash_update(state, block, (size_t)got);
		total += (uint64_t)got;
	}
	hash_finish(state, out);
	free(block);
	if (size != NULL)
		*size = total;
	return 0;
}
