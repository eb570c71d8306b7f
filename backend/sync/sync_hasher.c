/* Whole-blob hashes on a thread beside the receiving one (sync_hasher.h):
 * a bounded ring of parts, each a copy of one chunk's bytes, handed over
 * under one lock; the results are read only after a drain. */
#include "backend/sync/sync_hasher.h"

#include <pthread.h>
#include <stdlib.h>

#include "backend/store/hash.h"
#include "model/array.h"
#include "model/buffer.h"

/* Parts in hand at once: enough that neither thread waits for the other
 * on a chunk, few enough to bound memory (a part is at most a chunk). */
#define SYNC_HASHER_PARTS 4

struct sync_hasher_part {
	struct buffer bytes;
	size_t number;
	bool first, last;
	struct hash expected;
};

struct sync_hasher {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t part_ready;	/* the thread waits for parts */
	pthread_cond_t part_done;	/* the receiving thread waits for room, or a drain */
	struct sync_hasher_part parts[SYNC_HASHER_PARTS];
	size_t head;			/* the oldest part not yet hashed */
	size_t used;			/* parts added and not yet hashed */
	bool stopping;
	/* The thread's own, then read after a drain. */
	struct hash_state *state;	/* the blob in hand */
	bool *matched;
	size_t count;
};

struct sync_hasher *
sync_hasher_new(size_t count)
{
	if (count == 0)
		return NULL;
	struct sync_hasher *hasher = array_zeroed(1, sizeof *hasher);
	hasher->matched = array_zeroed(count, sizeof *hasher->matched);
	hasher->count = count;
	for (size_t i = 0; i < SYNC_HASHER_PARTS; i++)
		buffer_init(&hasher->parts[i].bytes);
	pthread_mutex_init(&hasher->lock, NULL);
	pthread_cond_init(&hasher->part_ready, NULL);
	pthread_cond_init(&hasher->part_done, NULL);
	return hasher;
}

/* One part, on the thread: outside the lock, as the receiving thread
 * does not touch a part between adding it and its being done. */
static void
sync_hasher_take(struct sync_hasher *hasher, struct sync_hasher_part *part)
{
	if (part->first) {
		if (hasher->state != NULL) {
			struct hash dropped;
			hash_finish(hasher->state, &dropped);
		}
		hasher->state = hash_begin();
	}
	if (hasher->state == NULL)
		return;
	hash_update(hasher->state, part->bytes.data, part->bytes.length);
	if (!part->last)
		return;
	struct hash got;
	hash_finish(hasher->state, &got);
	hasher->state = NULL;
	if (part->number < hasher->count)
		hasher->matched[part->number] = hash_equal(&got, &part->expected);
}

static void *
sync_hasher_main(void *argument)
{
	struct sync_hasher *hasher = argument;

	pthread_mutex_lock(&hasher->lock);
	for (;;) {
		while (!hasher->stopping && hasher->used == 0)
			pthread_cond_wait(&hasher->part_ready, &hasher->lock);
		if (hasher->used == 0)
			break;
		struct sync_hasher_part *part = &hasher->parts[hasher->head];
		pthread_mutex_unlock(&hasher->lock);
		sync_hasher_take(hasher, part);
		pthread_mutex_lock(&hasher->lock);
		hasher->head = (hasher->head + 1) % SYNC_HASHER_PARTS;
		hasher->used--;
		pthread_cond_broadcast(&hasher->part_done);
	}
	pthread_mutex_unlock(&hasher->lock);
	return NULL;
}

/* Without a thread (none could start) the receiving thread hashes each
 * part itself, as it did before this file. */
static void
sync_hasher_start(struct sync_hasher *hasher)
{
	hasher->started = pthread_create(&hasher->thread, NULL, sync_hasher_main, hasher) == 0;
	if (!hasher->started)
		hasher->stopping = true;
}

void
sync_hasher_add(struct sync_hasher *hasher, size_t number, bool first, bool last,
    const struct hash *expected, const uint8_t *data, size_t length)
{
	if (!hasher->started && !hasher->stopping)
		sync_hasher_start(hasher);
	pthread_mutex_lock(&hasher->lock);
	while (hasher->started && hasher->used == SYNC_HASHER_PARTS)
		pthread_cond_wait(&hasher->part_done, &hasher->lock);
	struct sync_hasher_part *part =
	    &hasher->parts[(hasher->head + hasher->used) % SYNC_HASHER_PARTS];
	pthread_mutex_unlock(&hasher->lock);
	buffer_reset(&part->bytes);
	buffer_append(&part->bytes, data, length);
	part->number = number;
	part->first = first;
	part->last = last;
	part->expected = *expected;
	if (!hasher->started) {
		sync_hasher_take(hasher, part);
		return;
	}
	pthread_mutex_lock(&hasher->lock);
	hasher->used++;
	pthread_cond_signal(&hasher->part_ready);
	pthread_mutex_unlock(&hasher->lock);
}

void
sync_hasher_drain(struct sync_hasher *hasher)
{
	pthread_mutex_lock(&hasher->lock);
	while (hasher->started && hasher->used > 0)
		pthread_cond_wait(&hasher->part_done, &hasher->lock);
	pthread_mutex_unlock(&hasher->lock);
}

bool
sync_hasher_matched(const struct sync_hasher *hasher, size_t number)
{
	return number < hasher->count && hasher->matched[number];
}

void
sync_hasher_free(struct sync_hasher *hasher)
{
	if (hasher == NULL)
		return;
	if (hasher->started) {
		pthread_mutex_lock(&hasher->lock);
		hasher->stopping = true;
		pthread_cond_signal(&hasher->part_ready);
		pthread_mutex_unlock(&hasher->lock);
		pthread_join(hasher->thread, NULL);
	}
	if (hasher->state != NULL) {
		struct hash dropped;
		hash_finish(hasher->state, &dropped);
	}
	for (size_t i = 0; i < SYNC_HASHER_PARTS; i++)
		buffer_free(&hasher->parts[i].bytes);
	pthread_mutex_destroy(&hasher->lock);
	pthread_cond_destroy(&hasher->part_ready);
	pthread_cond_destroy(&hasher->part_done);
	free(hasher->matched);
	free(hasher);
}
