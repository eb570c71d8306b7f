/* What the three files of sync share (sync.c: the client and the server;
 * sync_send.c: the half that has the ops; sync_receive.c: the half that
 * lacks them): a session over one connection, its frames and HELLO, and a
 * hash table of chunk and blob ids. Not for other modules: they use
 * hearth_sync and hearth_serve (hearth.h) or sync.h. */
#ifndef HEARTH_BACKEND_SYNC_SESSION_H
#define HEARTH_BACKEND_SYNC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "backend/disk/meter.h"
#include "backend/sync/transport.h"
#include "backend/sync/wire.h"

/* A receiver asking for more chunks than this, or a sender listing more,
 * is broken (32 bytes each in memory). */
#define SYNC_WANTS_MAX (8u * 1024 * 1024)
#define SYNC_REPORT_EVERY 64

/* ---- a hash table of chunk and blob ids ---------------------------------------------- */

struct sync_table {
	struct hash *keys;
	uint64_t *values;	/* value + 1; 0 marks an empty slot */
	size_t capacity, count;
};

void sync_table_free(struct sync_table *table);
bool sync_table_find(const struct sync_table *table, const struct hash *key, uint64_t *value);
/* key must not be in the table yet. */
void sync_table_put(struct sync_table *table, const struct hash *key, uint64_t value);
/* Makes room for count keys at once, so a table whose size is known never
 * rehashes. */
void sync_table_reserve(struct sync_table *table, size_t count);

/* ---- a session -------------------------------------------------------------------------- */

struct sync_session {
	struct hearth *home;
	struct transport transport;
	const struct hearth_progress *progress;	/* may be NULL (the server) */
	struct hearth_error *error;
	const char *peer;		/* how messages name the other side */
	struct buffer out;		/* frames queued for writing */
	struct buffer in;		/* the frame last read */
	struct wire_frame frame;
	struct wire_hello theirs;	/* the peer's HELLO */
	bool have_theirs;
	struct vv ours;			/* our version vector at HELLO */
	struct hash *our_chains;	/* the op hash chain at each entry of ours */
	/* The oldest version this session can use (WIRE_PROTOCOL_MIN, or
	 * WIRE_PROTOCOL_FETCH to fetch), sent in HELLO and negotiated with. */
	uint32_t protocol_floor;
	uint32_t protocol_ceiling;	/* the highest this side offers */
	uint32_t protocol;
	bool peer_failed;		/* the peer sent ERROR or vanished: do not answer */
	bool refetch;			/* WIRE_REFETCH: send the peer's own ops too */
	/* What travelled, each way. */
	uint64_t ops_sent, ops_received, ops_new;
	uint64_t versions_sent, versions_received;
	uint64_t chunks_sent, chunks_received, chunk_bytes_sent, chunk_bytes_received;
	uint64_t files_merged;		/* by line, after what came in (automerge.h) */
	/* Progress: the phase's items, and its bytes on the wire in the way
	 * it moves content, counted from phase_start; or, in a phase whose
	 * total is in content bytes (receiving chunks), the content stored
	 * (content_done) and the wire's bytes since the last of it
	 * (content_mark), so a delta counts the chunk it makes. */
	struct meter meter;
	bool phase_sends, phase_content;
	uint64_t phase_start, content_done, content_mark;
	/* Called when no byte moved either way for SYNC_IDLE_MS while the
	 * session waits for the peer (NULL: nothing to do then). */
	void (*idle)(void *context);
	void *idle_context;
	uint64_t idle_bytes;		/* bytes moved, as of idle_since */
	int64_t idle_since;
};

#define SYNC_IDLE_MS 1000

void sync_session_init(struct sync_session *session, struct hearth *home,
    const struct hearth_progress *progress, struct hearth_error *error);
void sync_session_free(struct sync_session *session);

/* Fills the session's error and returns code. */
int sync_fail(struct sync_session *session, enum hearth_code code, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
bool sync_cancelled(const struct sync_session *session);
/* A new phase of the sync, reported at once: bytes_total is the content
 * it expects to store (0 when unknown: the phase counts the wire). */
void sync_phase(struct sync_session *session, const char *phase, uint64_t total,
    uint64_t bytes_total);
/* In a phase with a content total: one chunk of length bytes stored. */
void sync_content(struct sync_session *session, uint64_t length);
/* The content phase is over: its total becomes what it stored (the
 * expected one is a guess for part of a chunk list), reported at once. */
void sync_content_done(struct sync_session *session);
/* Items done in the phase (a new phase when phase is not the current
 * one), reported at the meter's pace. */
void sync_report(struct sync_session *session, const char *phase, uint64_t done, uint64_t total);
/* Hooks the session's progress and cancel flag to its open transport. */
void sync_watch_transport(struct sync_session *session);

/* Frames go out through session->out: wire_begin, the payload, then
 * sync_queued, which closes the frame and writes the queue once it is big;
 * sync_flush writes what is queued. */
int sync_queued(struct sync_session *session, size_t start);
int sync_flush(struct sync_session *session);
/* An OPS_END, WANT_END or CHUNKS_END, flushed. */
int sync_send_count(struct sync_session *session, enum wire_type type, uint64_t count);
/* Tells the peer why we stop (the session's error); best effort. */
void sync_send_error(struct sync_session *session);
/* A client's end: tells the peer why when status is a failure, closes the
 * transport, and returns status, or the peer's own failure at exit. */
int sync_finish(struct sync_session *session, int status);
/* Reads the next frame into session->frame; an ERROR frame ends the sync
 * with the peer's words. */
int sync_read(struct sync_session *session);
int sync_unexpected(struct sync_session *session, const char *expected);
int sync_bad_frame(struct sync_session *session, const char *reason);

/* Reads this replica's version vector and the op hash chain at each of
 * its entries into ours and our_chains, in one read snapshot. */
int sync_read_ours(struct sync_session *session);
/* The op hash chain at each entry of ours, into our_chains; -1 when one is
 * not held. Inside a read snapshot. */
int sync_read_chains(struct sync_session *session);
int sync_send_hello(struct sync_session *session, uint32_t flags);
int sync_read_hello(struct sync_session *session);
/* What both sides check of the other's HELLO: a version in common, the
 * same Home, two different replicas, and (protocol 3) the same ops under
 * each replica id both hold. */
int sync_check_hello(struct sync_session *session);
/* A client's opening: this replica's version vector read, hellos traded
 * and checked. */
int sync_start(struct sync_session *session, uint32_t flags);

/* ---- the two halves ---------------------------------------------------------------------- */

/* The peer option as a config name, a URL or a path: fills the result's
 * peer_name and url, and the address to open. */
int sync_resolve_peer(struct hearth *home, const char *peer, struct hearth_sync_result *out,
    struct transport_address *address, struct hearth_error *error);

/* How to reach the peer a config names name (or the URL name, with the
 * config's defaults): its own ssh_command and remote_command over the
 * config's; batch as in struct transport_command. */
void sync_peer_command(struct hearth *home, const char *name, bool batch,
    struct transport_command *out);

/* Reads WANT frames up to WANT_END into wants (HASH_BYTES each), checking
 * the count WANT_END declares and the SYNC_WANTS_MAX bound. With bases
 * (a sync half in protocol 4) each WANT is followed by its BASES frame,
 * read into bases (HASH_BYTES each, the zero hash for none). */
int sync_read_wants(struct sync_session *session, struct buffer *wants, struct buffer *bases);

/* The server's side of WIRE_FETCH (sync_fetch.c): reads the wants, answers
 * each with CHUNK or LACK, then CHUNKS_END. Reads only. */
int sync_serve_fetch(struct sync_session *session);

/* The side that has the ops: sends those above theirs, then the chunks the
 * other side asks for. In one read snapshot of the store. */
int sync_send(struct sync_session *session, const struct vv *theirs);
/* The side that lacks them: takes them in, asks for the chunks it lacks,
 * and commits it all in one transaction after its pack is durable. lock:
 * take the Home's write lock first (the server; the client holds it for
 * the whole sync). */
int sync_receive(struct sync_session *session, bool lock);

#endif
