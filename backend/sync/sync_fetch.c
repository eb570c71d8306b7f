/* Fetching chunks by id (protocol 2's WIRE_FETCH, wire.h): the client half
 * that fsck --repair calls (sync_fetch) and the server half that `hearth
 * serve` runs for it (sync_serve_fetch). The client checks every chunk's
 * bytes against its id before handing it on; the server only reads, and
 * says LACK for what it cannot give rather than failing the whole fetch,
 * so one damaged chunk on the peer does not hold back the rest. */
#include <stdio.h>
#include <string.h>

#include "backend/history/blob.h"
#include "backend/store/hash.h"
#include "backend/sync/sync.h"
#include "backend/sync/sync_session.h"

/* ---- the server ------------------------------------------------------------------------ */

/* One wanted chunk: CHUNK with its bytes, or LACK saying why not. */
static int
sync_answer_want(struct sync_session *session, const struct hash *chunk, uint64_t *sent)
{
	struct pack_location where;
	struct hearth_error failure;

	if (blob_chunk_find(session->home, chunk, &where) != 1) {
		size_t start = wire_begin(&session->out, WIRE_LACK);
		wire_encode_lack(&session->out, chunk, "this replica does not hold it");
		return sync_queued(session, start);
	}
	size_t start = wire_begin(&session->out, WIRE_CHUNK);
	wire_encode_chunk_header(&session->out, chunk);
	size_t before = session->out.length;
	/* pack_read checks the hash: a copy damaged here too is a LACK. */
	if (pack_read(session->home->reader, chunk, &where, &session->out, &failure) != 0) {
		session->out.length = start;
		start = wire_begin(&session->out, WIRE_LACK);
		char why[sizeof failure.message + 32];
		snprintf(why, sizeof why, "damaged here too: %s", failure.message);
		wire_encode_lack(&session->out, chunk, why);
		return sync_queued(session, start);
	}
	session->chunks_sent++;
	session->chunk_bytes_sent += session->out.length - before;
	(*sent)++;
	return sync_queued(session, start);
}

int
sync_serve_fetch(struct sync_session *session)
{
	struct buffer wants;
	uint64_t sent = 0;
	int status;

	buffer_init(&wants);
	status = sync_read_wants(session, &wants, NULL);
	size_t total = wants.length / HASH_BYTES;
	const struct hash *chunks = (const struct hash *)wants.data;
	store_begin_read(&session->home->store);
	for (size_t i = 0; status == 0 && i < total; i++)
		status = sync_answer_want(session, &chunks[i], &sent);
	store_end_read(&session->home->store);
	if (status == 0)
		status = sync_send_count(session, WIRE_CHUNKS_END, sent);
	buffer_free(&wants);
	return status;
}

/* ---- the client ------------------------------------------------------------------------ */

static int
sync_fetch_wants(struct sync_session *session, const struct hash *chunks, size_t count)
{
	for (size_t first = 0; first < count; first += WIRE_HASHES_MAX) {
		size_t part = count - first < WIRE_HASHES_MAX ? count - first : WIRE_HASHES_MAX;
		size_t start = wire_begin(&session->out, WIRE_WANT);
		wire_encode_hashes(&session->out, chunks + first, part);
		int status = sync_queued(session, start);
		if (status != 0)
			return status;
	}
	return sync_send_count(session, WIRE_WANT_END, count);
}

/* One answer, for the chunk asked for at that place. */
static int
sync_fetch_answer(struct sync_session *session, const struct hash *asked,
    const struct sync_fetch_sink *sink, uint64_t *taken)
{
	char reason[WIRE_MESSAGE_MAX + 1], hex[HASH_HEX], asked_hex[HASH_HEX];
	struct hearth_error failure;
	struct hash chunk;

	hash_hex(asked, asked_hex);
	if (session->frame.type == WIRE_LACK) {
		if (!wire_decode_lack(session->frame.payload, session->frame.length, &chunk, reason,
			sizeof reason, &failure))
			return sync_bad_frame(session, failure.message);
		if (!hash_equal(&chunk, asked)) {
			hash_hex(&chunk, hex);
			return sync_fail(session, HEARTH_FAILED, "%s answered for chunk %.16s where "
			    "%.16s was asked for", session->peer, hex, asked_hex);
		}
		sink->lacked(sink->context, asked, reason);
		return 0;
	}
	if (session->frame.type != WIRE_CHUNK)
		return sync_unexpected(session, "CHUNK or LACK");
	const uint8_t *data;
	size_t length;
	if (!wire_decode_chunk(session->frame.payload, session->frame.length, &chunk, &data, &length,
		&failure))
		return sync_bad_frame(session, failure.message);
	struct hash got;
	hash_bytes(data, length, &got);
	if (!hash_equal(&chunk, asked) || !hash_equal(&got, asked))
		return sync_fail(session, HEARTH_FAILED, "%s sent other bytes for chunk %.16s than "
		    "its id says", session->peer, asked_hex);
	session->chunks_received++;
	session->chunk_bytes_received += length;
	(*taken)++;
	return sink->take(sink->context, asked, data, length, session->error);
}

static int
sync_fetch_run(struct sync_session *session, const struct hash *chunks, size_t count,
    const struct sync_fetch_sink *sink)
{
	struct hearth_error failure;
	uint64_t taken = 0, declared;
	int status;

	if ((status = sync_start(session, WIRE_FETCH)) != 0 ||
	    (status = sync_fetch_wants(session, chunks, count)) != 0)
		return status;
	for (size_t i = 0; i < count; i++) {
		if ((status = sync_read(session)) != 0 ||
		    (status = sync_fetch_answer(session, &chunks[i], sink, &taken)) != 0)
			return status;
		if (i % 256 == 0)
			sync_report(session, "fetching chunks", i, count);
	}
	if ((status = sync_read(session)) != 0)
		return status;
	if (session->frame.type != WIRE_CHUNKS_END)
		return sync_unexpected(session, "CHUNKS_END");
	if (!wire_decode_count(session->frame.payload, session->frame.length, &declared, &failure))
		return sync_bad_frame(session, failure.message);
	if (declared != taken)
		return sync_fail(session, HEARTH_FAILED, "%s sent %llu chunks but counted %llu",
		    session->peer, (unsigned long long)taken, (unsigned long long)declared);
	if ((status = sync_read(session)) != 0)
		return status;
	if (session->frame.type != WIRE_DONE)
		return sync_unexpected(session, "DONE");
	return 0;
}

/* Names the peer (into peer_name, as big as a sync result's; as typed when
 * it has no name), then opens a session to it that speaks at least floor.
 * Nonzero: nothing to free; zero: the caller frees the session. */
static int
open_fetch_session(struct hearth *home, const char *peer, const char *program, uint32_t floor,
    const struct hearth_progress *progress, struct hearth_sync_result *named,
    struct sync_session *session, char *peer_name, struct hearth_error *error)
{
	struct transport_address address;

	memset(named, 0, sizeof *named);
	hearth_error_clear(error);
	int status = sync_resolve_peer(home, peer, named, &address, error);
	snprintf(peer_name, sizeof named->peer_name, "%s", status == 0 ? named->peer_name : peer);
	if (status != 0)
		return status;
	sync_session_init(session, home, progress, error);
	session->peer = named->peer_name;
	session->protocol_floor = floor;
	struct transport_command command;
	sync_peer_command(home, named->peer_name, false, &command);
	status = transport_open(&session->transport, &address, program, &command, error);
	if (status != 0)
		sync_session_free(session);
	return status;
}

int
sync_fetch(struct hearth *home, const char *peer, const char *program,
    const struct hash *chunks, size_t count, const struct sync_fetch_sink *sink,
    const struct hearth_progress *progress, char *peer_name, struct hearth_error *error)
{
	struct hearth_sync_result named;
	struct sync_session session;
	int status = open_fetch_session(home, peer, program, WIRE_PROTOCOL_FETCH, progress, &named,
	    &session, peer_name, error);

	if (status != 0)
		return status;
	sync_watch_transport(&session);
	status = sync_finish(&session, sync_fetch_run(&session, chunks, count, sink));
	sync_session_free(&session);
	return status;
}

/* ---- fetching this replica's ops again (protocol 3's WIRE_REFETCH) ------------------ */

/* Reads OPS and BLOB frames up to OPS_END, handing each op to the sink;
 * then, when ops came, wants nothing and reads CHUNKS_END. */
static int
sync_refetch_receive(struct sync_session *session, const struct sync_op_sink *sink)
{
	struct wire_ops cursor;
	const uint8_t *body;
	size_t length;
	struct hearth_error failure;
	int status, step;

	for (;;) {
		if ((status = sync_read(session)) != 0)
			return status;
		if (session->frame.type == WIRE_OPS_END)
			break;
		if (session->frame.type == WIRE_BLOB)
			continue;
		if (session->frame.type != WIRE_OPS)
			return sync_unexpected(session, "OPS, BLOB or OPS_END");
		if (!wire_ops_begin(session->frame.payload, session->frame.length, &cursor, &failure))
			return sync_bad_frame(session, failure.message);
		while ((step = wire_ops_next(&cursor, &body, &length, &failure)) == 1) {
			session->ops_received++;
			if ((status = sink->take(sink->context, body, length, session->error)) != 0)
				return status;
		}
		if (step != 0)
			return sync_bad_frame(session, failure.message);
	}
	if (session->ops_received == 0)
		return 0;
	if ((status = sync_send_count(session, WIRE_WANT_END, 0)) != 0 ||
	    (status = sync_read(session)) != 0)
		return status;
	return session->frame.type == WIRE_CHUNKS_END ? 0 : sync_unexpected(session, "CHUNKS_END");
}

static int
sync_refetch_run(struct sync_session *session, const struct vv *from,
    const struct sync_op_sink *sink)
{
	int status;

	vv_copy(&session->ours, from);
	store_begin_read(&session->home->store);
	status = sync_read_chains(session);
	store_end_read(&session->home->store);
	if (status != 0)
		return sync_fail(session, HEARTH_DAMAGED, "the op hash chain before a damaged op is "
		    "damaged too; no peer can prove what it would send");
	if ((status = sync_send_hello(session, WIRE_PULL | WIRE_REFETCH)) != 0 ||
	    (status = sync_read_hello(session)) != 0 ||
	    (status = sync_check_hello(session)) != 0)
		return status;
	if (session->protocol < WIRE_PROTOCOL_CHAINS)
		return sync_fail(session, HEARTH_FAILED, "%s (%s) cannot send ops again: it needs "
		    "protocol %d", session->peer, session->theirs.software, WIRE_PROTOCOL_CHAINS);
	if ((status = sync_refetch_receive(session, sink)) != 0 ||
	    (status = sync_read(session)) != 0)
		return status;
	return session->frame.type == WIRE_DONE ? 0 : sync_unexpected(session, "DONE");
}

int
sync_fetch_ops(struct hearth *home, const char *peer, const char *program, const struct vv *from,
    const struct sync_op_sink *sink, char *peer_name, struct hearth_error *error)
{
	struct hearth_sync_result named;
	struct sync_session session;
	int status = open_fetch_session(home, peer, program, WIRE_PROTOCOL_CHAINS, NULL, &named,
	    &session, peer_name, error);

	if (status != 0)
		return status;
	status = sync_finish(&session, sync_refetch_run(&session, from, sink));
	sync_session_free(&session);
	return status;
}
