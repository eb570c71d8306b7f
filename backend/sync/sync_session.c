/* A sync session (sync_session.h): the frames both halves read and write,
 * HELLO and the checks on it, and the hash table of chunk and blob ids. */
#include "backend/sync/sync_session.h"
#include "model/array.h"
#include "model/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Queued frames are written once they pass this. */
#define SYNC_FLUSH_SIZE (1024u * 1024)

/* ---- a hash table of chunk and blob ids --------------------------------------------- */

void
sync_table_free(struct sync_table *table)
{
	free(table->keys);
	free(table->values);
	memset(table, 0, sizeof *table);
}

/* Open addressing. Ids are SHA-256 output, so their own bytes are hash
 * enough (a peer that made up colliding ids would only slow its own sync). */
static size_t
sync_table_slot(const struct sync_table *table, const struct hash *key)
{
	uint64_t mixed = load_u64be(key->bytes) ^ load_u64be(key->bytes + 8);
	size_t slot = (size_t)(mixed & (table->capacity - 1));

	while (table->values[slot] != 0 && !hash_equal(&table->keys[slot], key))
		slot = (slot + 1) & (table->capacity - 1);
	return slot;
}

bool
sync_table_find(const struct sync_table *table, const struct hash *key, uint64_t *value)
{
	if (table->capacity == 0)
		return false;
	size_t slot = sync_table_slot(table, key);
	if (table->values[slot] == 0)
		return false;
	if (value != NULL)
		*value = table->values[slot] - 1;
	return true;
}

static void
sync_table_grow(struct sync_table *table)
{
	struct sync_table grown = { .capacity = table->capacity ? table->capacity * 2 : 1024 };

	grown.keys = array_zeroed(grown.capacity, sizeof *grown.keys);
	grown.values = array_zeroed(grown.capacity, sizeof *grown.values);
	for (size_t i = 0; i < table->capacity; i++)
		if (table->values[i] != 0)
			sync_table_put(&grown, &table->keys[i], table->values[i] - 1);
	sync_table_free(table);
	*table = grown;
}

void
sync_table_reserve(struct sync_table *table, size_t count)
{
	while (table->capacity < count * 2)
		sync_table_grow(table);
}

void
sync_table_put(struct sync_table *table, const struct hash *key, uint64_t value)
{
	if ((table->count + 1) * 2 > table->capacity)
		sync_table_grow(table);
	size_t slot = sync_table_slot(table, key);
	table->keys[slot] = *key;
	table->values[slot] = value + 1;
	table->count++;
}

/* ---- a session ---------------------------------------------------------------------- */

int
sync_fail(struct sync_session *session, enum hearth_code code, const char *format, ...)
{
	va_list args;

	session->error->code = code;
	va_start(args, format);
	error_vput(session->error->message, sizeof session->error->message, format, args);
	va_end(args);
	return code;
}

void
sync_session_init(struct sync_session *session, struct hearth *home,
    const struct hearth_progress *progress, struct hearth_error *error)
{
	memset(session, 0, sizeof *session);
	session->home = home;
	session->progress = progress;
	session->error = error;
	session->protocol_floor = WIRE_PROTOCOL_MIN;
	session->protocol_ceiling = WIRE_PROTOCOL_MAX;
	/* HEARTH_SYNC_PROTOCOL_MAX speaks as an older hearth would (the tests
	 * of a sync between versions). */
	const char *ceiling = getenv("HEARTH_SYNC_PROTOCOL_MAX");
	if (ceiling != NULL && *ceiling != '\0') {
		long value = strtol(ceiling, NULL, 10);
		if (value >= WIRE_PROTOCOL_MIN && value < WIRE_PROTOCOL_MAX)
			session->protocol_ceiling = (uint32_t)value;
	}
	buffer_init(&session->out);
	buffer_init(&session->in);
	vv_init(&session->ours);
	vv_init(&session->theirs.vv);
	meter_init(&session->meter, progress);
}

void
sync_session_free(struct sync_session *session)
{
	buffer_free(&session->out);
	buffer_free(&session->in);
	vv_free(&session->ours);
	free(session->our_chains);
	session->our_chains = NULL;
	wire_hello_free(&session->theirs);
}

bool
sync_cancelled(const struct sync_session *session)
{
	return session->progress != NULL && session->progress->cancel != NULL &&
	    atomic_load(session->progress->cancel) != 0;
}

/* The wire's counts into the meter's report, then a report if one is due. */
static void
sync_tick(void *context)
{
	struct sync_session *session = context;
	struct hearth_progress_report *report = &session->meter.report;

	report->bytes_in = session->transport.bytes_read;
	report->bytes_out = session->transport.bytes_written;
	uint64_t moved = session->phase_sends ? report->bytes_out : report->bytes_in;
	if (session->phase_content)
		report->bytes_done = session->content_done + (moved > session->content_mark ?
		    moved - session->content_mark : 0);
	else
		report->bytes_done = moved > session->phase_start ? moved - session->phase_start : 0;
	meter_tick(&session->meter);
	struct timespec clock;
	clock_gettime(CLOCK_MONOTONIC, &clock);
	int64_t now = (int64_t)clock.tv_sec * 1000 + clock.tv_nsec / 1000000;
	uint64_t both = report->bytes_in + report->bytes_out;
	if (both != session->idle_bytes || session->idle == NULL) {
		session->idle_bytes = both;
		session->idle_since = now;
	} else if (now - session->idle_since >= SYNC_IDLE_MS) {
		session->idle_since = now;
		session->idle(session->idle_context);
	}
}

void
sync_phase(struct sync_session *session, const char *phase, uint64_t total,
    uint64_t bytes_total)
{
	session->phase_sends = strncmp(phase, "sending", 7) == 0;
	session->phase_start = session->phase_sends ? session->transport.bytes_written
						    : session->transport.bytes_read;
	/* A total in content bytes is held against content bytes: a delta of
	 * a few KiB on the wire stores a chunk of a MiB. */
	session->phase_content = bytes_total > 0;
	session->content_done = 0;
	session->content_mark = session->phase_start;
	meter_phase(&session->meter, phase, total, bytes_total);
}

void
sync_content(struct sync_session *session, uint64_t length)
{
	session->content_done += length;
	session->content_mark = session->phase_sends ? session->transport.bytes_written
						     : session->transport.bytes_read;
}

void
sync_content_done(struct sync_session *session)
{
	if (!session->phase_content)
		return;
	session->content_mark = session->phase_sends ? session->transport.bytes_written
						     : session->transport.bytes_read;
	session->meter.report.bytes_done = session->content_done;
	session->meter.report.bytes_total = session->content_done;
	meter_flush(&session->meter);
}

void
sync_report(struct sync_session *session, const char *phase, uint64_t done, uint64_t total)
{
	const char *now = session->meter.report.phase;

	if (now == NULL || strcmp(now, phase) != 0)
		sync_phase(session, phase, total, 0);
	session->meter.report.done = done;
	session->meter.report.total = total;
	sync_tick(session);
}

void
sync_watch_transport(struct sync_session *session)
{
	session->transport.cancel = session->progress != NULL ? session->progress->cancel : NULL;
	session->transport.tick = sync_tick;
	session->transport.tick_context = session;
}

/* ---- frames ---------------------------------------------------------------------------- */

int
sync_flush(struct sync_session *session)
{
	if (session->out.length == 0)
		return 0;
	int status = transport_write(&session->transport, session->out.data, session->out.length,
	    session->error);
	buffer_reset(&session->out);
	if (status != 0 && status != HEARTH_CANCELLED)
		session->peer_failed = true;
	return status;
}

/* Closes the frame begun at start and writes the queue once it is big. */
int
sync_queued(struct sync_session *session, size_t start)
{
	if (!wire_end(&session->out, start))
		return sync_fail(session, HEARTH_FAILED, "bug: a sync frame outgrew the limit");
	if (sync_cancelled(session))
		return sync_fail(session, HEARTH_CANCELLED, "sync cancelled");
	return session->out.length >= SYNC_FLUSH_SIZE ? sync_flush(session) : 0;
}

int
sync_send_count(struct sync_session *session, enum wire_type type, uint64_t count)
{
	size_t start = wire_begin(&session->out, type);
	wire_encode_count(&session->out, count);
	int status = sync_queued(session, start);
	return status != 0 ? status : sync_flush(session);
}

/* Tells the peer why we stop; best effort, since it may be gone. */
void
sync_send_error(struct sync_session *session)
{
	struct hearth_error ignored;

	if (session->peer_failed || session->transport.write_fd < 0)
		return;
	/* A peer that stopped reading must not keep us waiting long. */
	session->transport.timeout_ms = 2000;
	session->transport.cancel = NULL;
	buffer_reset(&session->out);
	size_t start = wire_begin(&session->out, WIRE_ERROR);
	wire_encode_error(&session->out, session->error->message);
	wire_end(&session->out, start);
	transport_write(&session->transport, session->out.data, session->out.length, &ignored);
	buffer_reset(&session->out);
}

int
sync_finish(struct sync_session *session, int status)
{
	struct hearth_error closing;

	if (status != 0)
		sync_send_error(session);
	int closed = transport_close(&session->transport, &closing);
	/* A peer that did all its work but then failed (a crash on exit, a
	 * leak report) is still a failure worth seeing. */
	if (status == 0 && closed != 0)
		status = sync_fail(session, closed, "%s", closing.message);
	return status;
}

/* Reads the next frame. An ERROR frame ends the sync with the peer's words. */
int
sync_read(struct sync_session *session)
{
	struct hearth_error failure;
	char message[WIRE_MESSAGE_MAX + 1];

	if (sync_cancelled(session))
		return sync_fail(session, HEARTH_CANCELLED, "sync cancelled");
	int status = transport_read_frame(&session->transport, &session->in, &session->frame,
	    session->error);
	if (status != 0) {
		if (status != HEARTH_CANCELLED)
			session->peer_failed = true;
		return status;
	}
	if (session->frame.type != WIRE_ERROR)
		return 0;
	session->peer_failed = true;
	if (!wire_decode_error(session->frame.payload, session->frame.length, message,
		sizeof message, &failure))
		return sync_fail(session, HEARTH_FAILED, "%s failed and sent a bad ERROR frame: %s",
		    session->peer, failure.message);
	return sync_fail(session, HEARTH_FAILED, "%s: %s", session->peer, message);
}

int
sync_unexpected(struct sync_session *session, const char *expected)
{
	return sync_fail(session, HEARTH_FAILED, "%s broke the protocol: expected %s, got a %s "
	    "frame", session->peer, expected, wire_type_name(session->frame.type));
}

int
sync_bad_frame(struct sync_session *session, const char *reason)
{
	return sync_fail(session, HEARTH_FAILED, "%s sent a bad frame: %s", session->peer, reason);
}

/* ---- HELLO ---------------------------------------------------------------------------- */

int
sync_read_ours(struct sync_session *session)
{
	struct store *store = &session->home->store;
	int status;

	store_begin_read(store);
	status = store_head_vv(store, &session->ours);
	if (status == 0)
		status = sync_read_chains(session);
	store_end_read(store);
	if (status != 0)
		return sync_fail(session, HEARTH_FAILED, "cannot read this replica's version vector "
		    "and op hashes (run hearth fsck)");
	return 0;
}

int
sync_read_chains(struct sync_session *session)
{
	struct store *store = &session->home->store;
	int status = 0;

	free(session->our_chains);
	session->our_chains = array_zeroed(session->ours.count + 1, sizeof *session->our_chains);
	for (size_t i = 0; status == 0 && i < session->ours.count; i++) {
		const struct vv_entry *entry = &session->ours.entries[i];
		int64_t number = store_replica_number(store, entry->replica, false);
		if (number <= 0 || store_op_chain(store, number, entry->counter,
			&session->our_chains[i]) != 0)
			status = -1;
	}
	return status;
}

int
sync_send_hello(struct sync_session *session, uint32_t flags)
{
	struct wire_hello hello = {
		.protocol_min = session->protocol_floor, .protocol_max = session->protocol_ceiling,
		.flags = flags,
		.replica = session->home->replica, .vv = session->ours,
		.chains = session->our_chains,
	};

	snprintf(hello.software, sizeof hello.software, "hearth %s", hearth_version_string());
	memcpy(hello.home, session->home->home_id, ID_BYTES);
	size_t start = wire_begin(&session->out, WIRE_HELLO);
	wire_encode_hello(&session->out, &hello);
	int status = sync_queued(session, start);
	return status != 0 ? status : sync_flush(session);
}

int
sync_read_hello(struct sync_session *session)
{
	struct hearth_error failure;
	int status = sync_read(session);

	if (status != 0)
		return status;
	if (session->frame.type != WIRE_HELLO)
		return sync_unexpected(session, "HELLO");
	if (!wire_decode_hello(session->frame.payload, session->frame.length, &session->theirs,
		&failure))
		return sync_bad_frame(session, failure.message);
	session->have_theirs = true;
	return 0;
}

/* The first replica whose op hash chain differs between the two sides at
 * a counter both hold (its counter in at); false when there is none, or
 * the peer speaks a protocol without chains. */
static bool
sync_find_fork(struct sync_session *session, struct replica_id *replica, uint64_t *at)
{
	const struct wire_hello *theirs = &session->theirs;
	struct store *store = &session->home->store;
	bool found = false;

	if (theirs->chains == NULL || session->protocol < WIRE_PROTOCOL_CHAINS)
		return false;
	store_begin_read(store);
	for (size_t i = 0; i < theirs->vv.count && !found; i++) {
		const struct vv_entry *entry = &theirs->vv.entries[i];
		struct hash chain;
		if (vv_get(&session->ours, entry->replica) < entry->counter)
			continue;	/* theirs is the longer: they check it */
		int64_t number = store_replica_number(store, entry->replica, false);
		if (number <= 0 || store_op_chain(store, number, entry->counter, &chain) != 0)
			continue;
		if (!hash_equal(&chain, &theirs->chains[i])) {
			*replica = entry->replica;
			*at = entry->counter;
			found = true;
		}
	}
	store_end_read(store);
	return found;
}

/* Two Homes that made different ops under one replica id (a copy an
 * earlier hearth did not notice, and both went on recording): no sync can
 * tell those ops apart, and reid cannot either, since the ops made before
 * it keep the old id. What is left is to keep one side whole and bring the
 * other's work over as new changes. */
static int
sync_refuse_fork(struct sync_session *session, struct replica_id replica, uint64_t at)
{
	char hex[ID_HEX];

	replica_id_hex(replica, hex);
	return sync_fail(session, HEARTH_FAILED, "%s and this Home hold different ops as replica "
	    "%.8s (they differ at or before its op %llu): one state folder was copied from the "
	    "other and both recorded under that id, so their ops cannot be told apart (or one "
	    "store is damaged there: `hearth fsck` says); nothing was exchanged. Keep one of the two as it is. In the other, save the files you "
	    "changed there, move that Home aside, make it again with `hearth clone` from the "
	    "one you keep, copy the saved files in and `hearth record`", session->peer, hex,
	    (unsigned long long)at);
}

/* What both sides check of the other's HELLO: a version in common, the
 * same Home, two different replicas, and the same ops under each replica
 * id both hold. */
int
sync_check_hello(struct sync_session *session)
{
	const struct wire_hello *theirs = &session->theirs;
	struct hearth_error failure;
	char our_hex[ID_HEX], their_hex[ID_HEX];

	if (!wire_negotiate(session->protocol_floor, session->protocol_ceiling, theirs->protocol_min,
		theirs->protocol_max, &session->protocol, &failure))
		return sync_fail(session, HEARTH_FAILED, "%s (%s): %s", session->peer,
		    theirs->software, failure.message);
	if (memcmp(theirs->home, session->home->home_id, ID_BYTES) != 0) {
		hex_encode(theirs->home, ID_BYTES, their_hex);
		hex_encode(session->home->home_id, ID_BYTES, our_hex);
		return sync_fail(session, HEARTH_FAILED, "%s is another Home (home %.8s; this one is "
		    "%.8s): only replicas of one Home sync; make a replica with `hearth clone`",
		    session->peer, their_hex, our_hex);
	}
	struct replica_id forked;
	uint64_t at;
	bool fork = sync_find_fork(session, &forked, &at);
	if (fork)
		return sync_refuse_fork(session, forked, at);
	if (replica_id_equal(theirs->replica, session->home->replica)) {
		replica_id_hex(theirs->replica, our_hex);
		return sync_fail(session, HEARTH_FAILED, "both copies claim replica %.8s: one was "
		    "copied; run `hearth reid` on the copy", our_hex);
	}
	return 0;
}

int
sync_start(struct sync_session *session, uint32_t flags)
{
	int status;

	if ((status = sync_read_ours(session)) != 0)
		return status;
	sync_report(session, "connecting", 0, 0);
	if ((status = sync_send_hello(session, flags)) != 0 ||
	    (status = sync_read_hello(session)) != 0)
		return status;
	return sync_check_hello(session);
}
