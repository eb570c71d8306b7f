/* The sending half of a sync (sync_session.h): the ops the other side
 * lacks, in total order through a k-way merge over one cursor per replica,
 * with the chunk lists of the multi-chunk blobs their SETs name; then the
 * chunks it asks for, read straight from the packs into the frames. */
#include "backend/sync/sync_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/blob.h"
#include "backend/store/delta.h"
#include "backend/store/chunk.h"
#include "model/array.h"

/* An OPS frame goes out once its payload passes this. */
#define SYNC_OPS_FRAME_TARGET (256u * 1024)

/* One replica's ops the peer lacks, read in counter order; chain is the
 * op hash chain at the op before the current row, which each row must
 * extend (what is sent was checked against its hash). */
struct sync_cursor {
	struct store_ops ops;
	struct store_op_row row;	/* the current op */
	struct op_id id;
	uint64_t lamport;
	int kind;
	struct hash chain;
	uint64_t last_counter;	/* of the last op sent */
	bool sent;
};

static bool
sync_cursor_less(const struct sync_cursor *a, const struct sync_cursor *b)
{
	return op_order_compare_keys(a->lamport, a->id, b->lamport, b->id) < 0;
}

/* Steps a cursor; false when it has no more rows. */
static bool
sync_cursor_step(struct sync_cursor *cursor)
{
	if (!store_ops_next(&cursor->ops, &cursor->row))
		return false;
	cursor->lamport = cursor->row.lamport;
	cursor->id.counter = cursor->row.counter;
	cursor->kind = (int)cursor->row.kind;
	return true;
}

static void
sync_heap_down(struct sync_cursor **heap, size_t count, size_t at)
{
	for (;;) {
		size_t least = at, left = 2 * at + 1, right = left + 1;
		if (left < count && sync_cursor_less(heap[left], heap[least]))
			least = left;
		if (right < count && sync_cursor_less(heap[right], heap[least]))
			least = right;
		if (least == at)
			return;
		struct sync_cursor *swap = heap[at];
		heap[at] = heap[least];
		heap[least] = swap;
		at = least;
	}
}

/* One cursor per replica with ops above what the peer holds, as a heap
 * ordered by each cursor's next op: a k-way merge in total order that
 * holds one row per replica, whatever the history's size. */
struct sync_merge {
	struct sync_cursor *cursors;
	struct sync_cursor **heap;
	size_t count;
};

static void
sync_merge_free(struct sync_merge *merge)
{
	for (size_t i = 0; i < merge->count; i++)
		store_ops_close(&merge->cursors[i].ops);
	free(merge->cursors);
	free(merge->heap);
	memset(merge, 0, sizeof *merge);
}

static int
sync_merge_open(struct sync_session *session, const struct vv *theirs, struct sync_merge *merge,
    size_t *live)
{
	struct store *store = &session->home->store;
	struct store_replica_held *replicas;
	size_t replica_count, capacity = 0;

	memset(merge, 0, sizeof *merge);
	store_replicas_held(store, &replicas, &replica_count);
	for (size_t r = 0; r < replica_count; r++) {
		struct replica_id id = replicas[r].id;
		uint64_t held = replicas[r].counter;
		uint64_t known = vv_get(theirs, id);
		if (held <= known)
			continue;
		/* A peer never lacks ops it made itself. Its HELLO's vector can
		 * be older than what it sends: a record on that replica may
		 * commit between the two (t0630), and the ops of it that came
		 * back would be refused there as "never made". */
		if (session->have_theirs && !session->refetch &&
		    replica_id_equal(id, session->theirs.replica))
			continue;
		merge->cursors = array_grow(merge->cursors, &capacity, merge->count + 1,
		    sizeof *merge->cursors);
		struct sync_cursor *cursor = &merge->cursors[merge->count];
		memset(cursor, 0, sizeof *cursor);
		cursor->id.replica = id;
		if (store_ops_after(store, replicas[r].number, known, &cursor->ops) != 0) {
			free(replicas);
			sync_merge_free(merge);
			return sync_fail(session, HEARTH_FAILED, "cannot read ops: %s",
			    sqlite3_errmsg(store->db));
		}
		/* Each row is checked by sync_cursor_verify, against the chain the
		 * cursor carries from the peer's counter on. */
		cursor->ops.raw = true;
		merge->count++;
		if (store_op_chain(store, replicas[r].number, known, &cursor->chain) != 0) {
			char hex[ID_HEX];
			replica_id_hex(id, hex);
			free(replicas);
			sync_merge_free(merge);
			return sync_fail(session, HEARTH_DAMAGED, "op %.8s/%llu in this store has no hash "
			    "chain (run hearth fsck)", hex, (unsigned long long)known);
		}
	}
	free(replicas);
	merge->heap = array_zeroed(merge->count + 1, sizeof *merge->heap);
	*live = 0;
	for (size_t i = 0; i < merge->count; i++)
		if (sync_cursor_step(&merge->cursors[i]))
			merge->heap[(*live)++] = &merge->cursors[i];
	/* Cursors that found nothing stay in cursors[] to be finalized, but
	 * not in the heap. */
	for (size_t i = *live; i-- > 0;)
		sync_heap_down(merge->heap, *live, i);
	return 0;
}

/* Sends the chunk list of a multi-chunk blob, once per sync. */
static int
sync_send_blob_list(struct sync_session *session, struct sync_table *sent,
    const struct hash *blob, struct buffer *scratch)
{
	uint64_t size;

	if (sync_table_find(sent, blob, NULL))
		return 0;
	sync_table_put(sent, blob, 0);
	buffer_reset(scratch);
	if (blob_chunk_list(session->home, blob, &size, scratch) != 1)
		return 0;	/* one chunk: its id is the blob's */
	size_t total = scratch->length / HASH_BYTES;
	const struct hash *chunks = (const struct hash *)scratch->data;
	for (size_t first = 0; first < total; first += WIRE_HASHES_MAX) {
		size_t count = total - first < WIRE_HASHES_MAX ? total - first : WIRE_HASHES_MAX;
		size_t start = wire_begin(&session->out, WIRE_BLOB);
		wire_encode_blob(&session->out, blob, size, total, first, chunks + first, count);
		int status = sync_queued(session, start);
		if (status != 0)
			return status;
	}
	return 0;
}

/* The cursor's current op against its hash chain: damage in this store
 * is found here, and never travels. */
static int
sync_cursor_verify(struct sync_session *session, struct sync_cursor *cursor, const void *body,
    size_t length)
{
	struct hash computed;
	char hex[ID_HEX];

	store_chain_next(&session->home->store, &cursor->chain, body, length, &computed);
	if (!cursor->row.has_chain || !hash_equal(&cursor->row.chain, &computed)) {
		replica_id_hex(cursor->id.replica, hex);
		return sync_fail(session, HEARTH_DAMAGED, "op %.8s/%llu (%s) in this store is "
		    "damaged: its bytes do not match its hash chain (run hearth fsck); nothing more "
		    "was sent", hex, (unsigned long long)cursor->id.counter,
		    op_kind_name((enum op_kind)cursor->kind));
	}
	cursor->chain = computed;
	cursor->last_counter = cursor->id.counter;
	cursor->sent = true;
	return 0;
}

/* OPS_END: in protocol 3 with each replica's chain at the last op sent,
 * which the receiver checks what it took in against. */
static int
sync_send_ops_end(struct sync_session *session, const struct sync_merge *merge)
{
	if (session->protocol < WIRE_PROTOCOL_CHAINS)
		return sync_send_count(session, WIRE_OPS_END, session->ops_sent);
	struct wire_chain_claim *claims = array_zeroed(merge->count + 1, sizeof *claims);
	size_t n = 0;
	for (size_t i = 0; i < merge->count; i++) {
		const struct sync_cursor *cursor = &merge->cursors[i];
		if (!cursor->sent)
			continue;
		claims[n++] = (struct wire_chain_claim){ .replica = cursor->id.replica,
			.counter = cursor->last_counter, .chain = cursor->chain };
	}
	size_t start = wire_begin(&session->out, WIRE_OPS_END);
	wire_encode_ops_end(&session->out, session->ops_sent, claims, n);
	free(claims);
	int status = sync_queued(session, start);
	return status != 0 ? status : sync_flush(session);
}

static int
sync_send_ops_frame(struct sync_session *session, struct buffer *batch, uint64_t *batch_count)
{
	if (*batch_count == 0)
		return 0;
	size_t start = wire_begin(&session->out, WIRE_OPS);
	wire_encode_count(&session->out, *batch_count);
	buffer_append(&session->out, batch->data, batch->length);
	buffer_reset(batch);
	*batch_count = 0;
	return sync_queued(session, start);
}

/* The ops above theirs, in total order, with the chunk lists of the
 * multi-chunk blobs their SETs name. */
static int
sync_send_ops(struct sync_session *session, const struct vv *theirs)
{
	struct sync_merge merge;
	struct sync_table sent_blobs = { 0 };
	struct buffer batch, scratch;
	struct arena arena;
	uint64_t batch_count = 0;
	char reason[256];
	int status = 0;

	size_t live = 0;
	if ((status = sync_merge_open(session, theirs, &merge, &live)) != 0)
		return status;
	buffer_init(&batch);
	buffer_init(&scratch);
	arena_init(&arena, 64 * 1024);
	while (live > 0 && status == 0) {
		struct sync_cursor *next = merge.heap[0];
		const void *body = next->row.body;
		size_t length = next->row.body_length;
		if ((status = sync_cursor_verify(session, next, body, length)) != 0)
			break;
		buffer_append_bytes(&batch, body, length);
		batch_count++;
		session->ops_sent++;
		if (next->kind == OP_COMMIT)
			session->versions_sent++;
		if (next->kind == OP_SET) {
			struct op op;
			if (!op_decode(body, length, &op, &arena, reason, sizeof reason)) {
				char hex[ID_HEX];
				replica_id_hex(next->id.replica, hex);
				status = sync_fail(session, HEARTH_DAMAGED, "op %.8s/%llu in this store does "
				    "not decode: %s (run hearth fsck)", hex,
				    (unsigned long long)next->id.counter, reason);
				break;
			}
			/* Up to CHUNK_MIN bytes a blob is always one chunk. */
			if (op.u.set.size > CHUNK_MIN)
				status = sync_send_blob_list(session, &sent_blobs, &op.u.set.blob, &scratch);
			if (arena.allocated > (1u << 20)) {
				arena_free(&arena);
				arena_init(&arena, 64 * 1024);
			}
		}
		if (status == 0 && batch.length >= SYNC_OPS_FRAME_TARGET)
			status = sync_send_ops_frame(session, &batch, &batch_count);
		if (session->ops_sent % SYNC_REPORT_EVERY == 0)
			sync_report(session, "sending ops", session->ops_sent, 0);
		if (!sync_cursor_step(next))
			merge.heap[0] = merge.heap[--live];
		sync_heap_down(merge.heap, live, 0);
	}
	if (status == 0)
		status = sync_send_ops_frame(session, &batch, &batch_count);
	if (status == 0)
		status = sync_send_ops_end(session, &merge);
	sync_merge_free(&merge);
	sync_table_free(&sent_blobs);
	buffer_free(&batch);
	buffer_free(&scratch);
	arena_free(&arena);
	return status;
}

/* The BASES frame after a WANT of count hashes, into bases. */
static int
sync_read_bases(struct sync_session *session, size_t count, struct buffer *bases)
{
	struct hearth_error failure;
	const uint8_t *hashes;
	size_t got;
	int status = sync_read(session);

	if (status != 0)
		return status;
	if (session->frame.type != WIRE_BASES)
		return sync_unexpected(session, "BASES");
	if (!wire_decode_hashes(session->frame.payload, session->frame.length, &hashes, &got,
		&failure))
		return sync_bad_frame(session, failure.message);
	if (got != count)
		return sync_fail(session, HEARTH_FAILED, "%s named %zu bases for %zu wanted chunks",
		    session->peer, got, count);
	buffer_append(bases, hashes, got * HASH_BYTES);
	return 0;
}

int
sync_read_wants(struct sync_session *session, struct buffer *wants, struct buffer *bases)
{
	struct hearth_error failure;
	int status;

	for (;;) {
		if ((status = sync_read(session)) != 0)
			return status;
		if (session->frame.type == WIRE_WANT_END)
			break;
		if (session->frame.type != WIRE_WANT)
			return sync_unexpected(session, "WANT or WANT_END");
		const uint8_t *hashes;
		size_t count;
		if (!wire_decode_hashes(session->frame.payload, session->frame.length, &hashes, &count,
			&failure))
			return sync_bad_frame(session, failure.message);
		if (wants->length / HASH_BYTES + count > SYNC_WANTS_MAX)
			return sync_fail(session, HEARTH_FAILED, "%s asked for more than %u chunks",
			    session->peer, SYNC_WANTS_MAX);
		buffer_append(wants, hashes, count * HASH_BYTES);
		if (bases != NULL && (status = sync_read_bases(session, count, bases)) != 0)
			return status;
	}
	uint64_t declared;
	size_t total = wants->length / HASH_BYTES;
	if (!wire_decode_count(session->frame.payload, session->frame.length, &declared, &failure))
		return sync_bad_frame(session, failure.message);
	if (declared != total)
		return sync_fail(session, HEARTH_FAILED, "%s asked for %zu chunks but counted %llu",
		    session->peer, total, (unsigned long long)declared);
	return 0;
}

/* Chunks go out in the order asked, which follows the ops' total order and
 * so hops between packs replica by replica; read in that order, every
 * chunk would decompress its frame again. So a window of wants is read in
 * pack order first (each frame once), held, then sent in the asked order. */
#define SYNC_WINDOW_CHUNKS 4096
#define SYNC_WINDOW_BYTES (32u * 1024 * 1024)

struct sync_window_chunk {
	size_t want;			/* index in the wants */
	struct pack_location where;
	size_t offset;			/* of its bytes in the window's buffer */
	size_t length;			/* of those bytes */
	uint8_t codec;			/* how they travel: raw, zstd or incompressible */
};

static int
compare_by_location(const void *left, const void *right)
{
	const struct pack_location *a = &((const struct sync_window_chunk *)left)->where;
	const struct pack_location *b = &((const struct sync_window_chunk *)right)->where;
	if (a->pack != b->pack)
		return a->pack < b->pack ? -1 : 1;
	if (a->frame_offset != b->frame_offset)
		return a->frame_offset < b->frame_offset ? -1 : 1;
	return (a->offset_in_frame > b->offset_in_frame) - (a->offset_in_frame < b->offset_in_frame);
}

static int
compare_by_want(const void *left, const void *right)
{
	size_t a = ((const struct sync_window_chunk *)left)->want;
	size_t b = ((const struct sync_window_chunk *)right)->want;
	return (a > b) - (a < b);
}

/* Finds wants from first on, up to the window's limits, into *count. */
static int
sync_window_fill(struct sync_session *session, const struct hash *chunks, size_t first,
    size_t total, struct sync_window_chunk *window, size_t *count)
{
	uint64_t bytes = 0;

	*count = 0;
	for (size_t i = first; i < total && *count < SYNC_WINDOW_CHUNKS &&
	     bytes < SYNC_WINDOW_BYTES; i++) {
		struct sync_window_chunk *chunk = &window[(*count)++];
		char hex[HASH_HEX];
		if (blob_chunk_find(session->home, &chunks[i], &chunk->where) != 1) {
			hash_hex(&chunks[i], hex);
			return sync_fail(session, HEARTH_FAILED, "%s asked for chunk %.16s, which this "
			    "store does not hold", session->peer, hex);
		}
		chunk->want = i;
		bytes += chunk->where.length;
	}
	return 0;
}

/* Whether a chunk may travel as its pack stores it: in protocol 5, when
 * the receiver named no base to make a delta against (that needs the raw
 * bytes). */
static bool
sync_may_send_stored(const struct sync_session *session, const struct hash *base)
{
	return session->protocol >= WIRE_PROTOCOL_STORED && (base == NULL || hash_is_zero(base));
}

/* One chunk of the window into held: as its pack stores it where it may
 * travel so and lies alone in a frame, else raw. */
static int
sync_window_read_chunk(struct sync_session *session, const struct hash *chunk,
    const struct hash *base, struct sync_window_chunk *entry, struct buffer *held,
    struct hearth_error *failure)
{
	struct pack_reader *reader = session->home->reader;
	bool compressed = false;

	entry->offset = held->length;
	entry->codec = WIRE_CODEC_RAW;
	int found = sync_may_send_stored(session, base)
	    ? pack_read_stored(reader, &entry->where, held, &compressed, failure) : 0;
	if (found < 0)
		return -1;
	if (found > 0)
		entry->codec = compressed ? WIRE_CODEC_ZSTD : WIRE_CODEC_INCOMPRESSIBLE;
	else if (pack_read_for_peer(reader, chunk, &entry->where, held, failure) != 0)
		return -1;
	entry->length = held->length - entry->offset;
	return 0;
}

/* Reads a window's chunks in pack order into held, each frame's CRC
 * checked; the receiver hashes every chunk (pack_read_for_peer). */
static int
sync_window_read(struct sync_session *session, const struct hash *chunks,
    const struct hash *bases, struct sync_window_chunk *window, size_t count,
    struct buffer *held)
{
	struct hearth_error failure;

	qsort(window, count, sizeof *window, compare_by_location);
	buffer_reset(held);
	for (size_t i = 0; i < count; i++) {
		size_t want = window[i].want;
		if (sync_window_read_chunk(session, &chunks[want],
			bases != NULL ? &bases[want] : NULL, &window[i], held, &failure) != 0)
			return sync_fail(session, HEARTH_DAMAGED, "%s", failure.message);
	}
	qsort(window, count, sizeof *window, compare_by_want);
	return 0;
}

/* A chunk the receiver named a base for goes as a delta against it when
 * this store holds the base and the delta is at most 3/4 of the chunk. */
struct sync_deltas {
	ZSTD_CCtx *context;		/* NULL: every chunk goes raw */
	struct buffer base;		/* the base's bytes */
	struct buffer delta;
};

static bool
sync_delta_made(struct sync_session *session, struct sync_deltas *deltas,
    const struct hash *base, const uint8_t *data, size_t length)
{
	struct pack_location where;
	struct hearth_error failure;

	if (deltas->context == NULL || hash_is_zero(base) ||
	    blob_chunk_find(session->home, base, &where) != 1)
		return false;
	buffer_reset(&deltas->base);
	if (pack_read(session->home->reader, base, &where, &deltas->base, &failure) != 0)
		return false;
	size_t bound = ZSTD_compressBound(length);
	buffer_reset(&deltas->delta);
	buffer_reserve(&deltas->delta, bound);
	size_t made = delta_encode(deltas->context, DELTA_LEVEL, deltas->base.data, deltas->base.length, data,
	    length, deltas->delta.data, bound);
	deltas->delta.length = made;
	return made > 0 && made + HASH_BYTES <= length - length / 4;
}

/* One CHUNK frame: as the window holds it, or a delta against the base
 * the receiver named. */
static int
sync_send_chunk(struct sync_session *session, struct sync_deltas *deltas,
    const struct hash *chunk, const struct hash *base, const uint8_t *data,
    const struct sync_window_chunk *entry)
{
	size_t start = wire_begin(&session->out, WIRE_CHUNK);

	if (base != NULL && entry->codec == WIRE_CODEC_RAW &&
	    sync_delta_made(session, deltas, base, data, entry->length)) {
		wire_encode_delta_header(&session->out, chunk, base);
		buffer_append(&session->out, deltas->delta.data, deltas->delta.length);
		session->chunk_bytes_sent += HASH_BYTES + deltas->delta.length;
	} else {
		wire_encode_coded_header(&session->out, chunk, entry->codec);
		buffer_append(&session->out, data, entry->length);
		session->chunk_bytes_sent += entry->length;
	}
	session->chunks_sent++;
	return sync_queued(session, start);
}

/* Reads the receiver's wants, all of them before any chunk goes out (only
 * one side writes at a time), then sends each chunk in the order asked. */
static int
sync_send_chunks(struct sync_session *session)
{
	struct buffer wants, bases, held;
	bool based = session->protocol >= WIRE_PROTOCOL_DELTAS;
	struct sync_deltas deltas = { .context = based ? ZSTD_createCCtx() : NULL };
	int status;

	buffer_init(&wants);
	buffer_init(&bases);
	buffer_init(&held);
	buffer_init(&deltas.base);
	buffer_init(&deltas.delta);
	struct sync_window_chunk *window = array_alloc(SYNC_WINDOW_CHUNKS, sizeof *window);
	if ((status = sync_read_wants(session, &wants, based ? &bases : NULL)) != 0)
		goto done;
	size_t total = wants.length / HASH_BYTES;
	const struct hash *chunks = (const struct hash *)wants.data;
	for (size_t first = 0; first < total;) {
		size_t count;
		const struct hash *base_of = based ? (const struct hash *)bases.data : NULL;
		if ((status = sync_window_fill(session, chunks, first, total, window, &count)) != 0 ||
		    (status = sync_window_read(session, chunks, base_of, window, count, &held)) != 0)
			goto done;
		for (size_t i = 0; i < count; i++) {
			size_t want = window[i].want;
			const struct hash *base = based ? &base_of[want] : NULL;
			if ((status = sync_send_chunk(session, &deltas, &chunks[want], base,
				 held.data + window[i].offset, &window[i])) != 0)
				goto done;
			sync_report(session, "sending chunks", window[i].want + 1, total);
		}
		first += count;
	}
	status = sync_send_count(session, WIRE_CHUNKS_END, total);
done:
	free(window);
	ZSTD_freeCCtx(deltas.context);
	buffer_free(&deltas.base);
	buffer_free(&deltas.delta);
	buffer_free(&held);
	buffer_free(&bases);
	buffer_free(&wants);
	return status;
}

/* The sending half, in one read snapshot of the store. */
int
sync_send(struct sync_session *session, const struct vv *theirs)
{
	store_begin_read(&session->home->store);
	sync_report(session, "sending ops", 0, 0);
	int status = sync_send_ops(session, theirs);
	if (status == 0 && session->ops_sent > 0)
		status = sync_send_chunks(session);
	store_end_read(&session->home->store);
	return status;
}
