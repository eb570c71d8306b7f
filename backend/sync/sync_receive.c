/* The receiving half of a sync (sync_session.h): ops checked one by one
 * as they arrive, the chunks the store lacks asked for and taken into one
 * new pack with every hash checked (and a blob's whole hash when all its
 * chunks travel), then integrate_ops and one commit after the pack is
 * durable. Anything wrong before the commit rolls all of it back. */
#include "backend/sync/sync_session.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/author.h"
#include "backend/history/automerge.h"
#include "backend/history/blob.h"
#include "backend/store/chunk.h"
#include "backend/store/delta.h"
#include "backend/store/hash.h"
#include "backend/sync/sync_hasher.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/disk/identity.h"
#include "backend/history/integrate.h"
#include "backend/disk/prefill.h"
#include "backend/io/io.h"
#include "config/config.h"
#include "model/array.h"

#define SYNC_UNKNOWN_SIZE UINT64_MAX

/* A multi-chunk blob's list as the sender gave it. */
struct sync_blob {
	struct hash blob;
	uint64_t size, total;
	struct buffer chunks;		/* HASH_BYTES each, as received so far */
	bool seen;			/* a SET of this batch names it */
	bool stored;			/* the store has its list already */
	bool verified;			/* every chunk travelled in order: hash checked */
};

/* Blobs whose chunks all travel, in order, one after the other: their
 * whole hash is checked as the chunks arrive. */
struct sync_check {
	size_t first, end;		/* want indexes */
	size_t blob;			/* index in blobs */
	bool prefilled;			/* its bytes go to a clone's prefill too */
	bool prefill_whole;		/* and all went in, the file closed */
};

/* One replica's ops as they arrive: the op hash chain they extend this
 * store's with, to be held against the sender's claim at OPS_END. */
struct sync_chain {
	struct replica_id replica;
	uint64_t counter;		/* of the last op taken */
	struct hash chain;
	bool claimed;
};

struct sync_incoming {
	struct sync_chain *chains;
	size_t chain_count, chain_capacity;
	struct arena arena;		/* the decoded ops' strings and lists */
	struct op *ops;
	size_t count, capacity;
	struct vv next;			/* per replica: the counter the last op had */
	struct buffer encoded;		/* re-encoding, to check the canonical form */
	struct sync_blob *blobs;
	size_t blob_count, blob_capacity;
	struct sync_table blob_index;	/* blob id -> index in blobs */
	uint64_t list_hashes;		/* chunk ids in all lists, to bound memory */
	struct hash *wants;
	uint64_t *want_sizes;		/* expected bytes, or SYNC_UNKNOWN_SIZE */
	struct hash *bases;		/* protocol 4: a base per want, or the zero hash */
	size_t want_count, want_capacity;
	struct sync_table want_index;	/* chunk id -> index in wants */
	struct sync_check *checks;
	size_t check_count, check_capacity;
	uint64_t want_bytes;		/* what the wants should hold, as far as known */
	struct sync_table prefill_blobs;	/* a clone's: each node's last content */
	struct sync_table kinds;	/* node (padded to a hash) -> kind, made in this batch */
	/* The batch of chunks in hand: its pack and its transaction, open
	 * while writer_started (see sync_batch_close). */
	struct blob_writer writer;
	bool writer_started, in_transaction;
	uint64_t batch_bytes;
	unsigned batches_closed;	/* each may hold twice the one before */
	bool store_failed;		/* the store, not the peer, failed: keep nothing */
	int idle_status;		/* a batch closed while waiting that failed */
};

static void
sync_incoming_init(struct sync_incoming *incoming, const struct vv *ours)
{
	memset(incoming, 0, sizeof *incoming);
	arena_init(&incoming->arena, 1024 * 1024);
	vv_init(&incoming->next);
	vv_copy(&incoming->next, ours);
	buffer_init(&incoming->encoded);
}

static void
sync_incoming_free(struct sync_incoming *incoming)
{
	arena_free(&incoming->arena);
	free(incoming->ops);
	vv_free(&incoming->next);
	buffer_free(&incoming->encoded);
	for (size_t i = 0; i < incoming->blob_count; i++)
		buffer_free(&incoming->blobs[i].chunks);
	free(incoming->blobs);
	sync_table_free(&incoming->blob_index);
	free(incoming->wants);
	free(incoming->bases);
	free(incoming->want_sizes);
	sync_table_free(&incoming->want_index);
	free(incoming->checks);
	sync_table_free(&incoming->prefill_blobs);
	sync_table_free(&incoming->kinds);
	free(incoming->chains);
}

/* The chain a replica's ops extend: found by a scan (a batch names a few
 * replicas; most of its ops come in runs of one), started at this store's
 * chain where the ops it holds end. */
static struct sync_chain *
sync_chain_of(struct sync_session *session, struct sync_incoming *incoming,
    struct replica_id replica)
{
	for (size_t i = incoming->chain_count; i-- > 0;)
		if (replica_id_equal(incoming->chains[i].replica, replica))
			return &incoming->chains[i];
	incoming->chains = array_grow(incoming->chains, &incoming->chain_capacity,
	    incoming->chain_count + 1, sizeof *incoming->chains);
	struct sync_chain *chain = &incoming->chains[incoming->chain_count++];
	memset(chain, 0, sizeof *chain);
	chain->replica = replica;
	chain->counter = vv_get(&session->ours, replica);
	int64_t number = store_replica_number(&session->home->store, replica, false);
	if (chain->counter > 0 && (number <= 0 ||
	    store_op_chain(&session->home->store, number, chain->counter, &chain->chain) != 0))
		return NULL;
	return chain;
}

static int
sync_chain_take(struct sync_session *session, struct sync_incoming *incoming, const struct op *op,
    const uint8_t *body, size_t length)
{
	struct sync_chain *chain = sync_chain_of(session, incoming, op->id.replica);

	if (chain == NULL)
		return sync_fail(session, HEARTH_DAMAGED, "this store lacks the op hash chain its "
		    "ops should end with (run hearth fsck)");
	store_chain_next(&session->home->store, &chain->chain, body, length, &chain->chain);
	chain->counter = op->id.counter;
	return 0;
}

/* Protocol 3: every replica's ops taken in must end where the sender says
 * its chain is, so each op is as the sender holds it and extends what this
 * store holds; anything else refuses the whole batch, nothing written. */
static int
sync_check_claims(struct sync_session *session, struct sync_incoming *incoming,
    const struct wire_chain_claim *claims, size_t n)
{
	char hex[ID_HEX];

	if (session->protocol < WIRE_PROTOCOL_CHAINS)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct sync_chain *chain = NULL;
		for (size_t j = 0; j < incoming->chain_count && chain == NULL; j++)
			if (replica_id_equal(incoming->chains[j].replica, claims[i].replica))
				chain = &incoming->chains[j];
		replica_id_hex(claims[i].replica, hex);
		if (chain == NULL || chain->claimed || chain->counter != claims[i].counter)
			return sync_fail(session, HEARTH_FAILED, "%s claimed ops of replica %.8s up to "
			    "%llu that it did not send; nothing of this sync was taken in",
			    session->peer, hex, (unsigned long long)claims[i].counter);
		chain->claimed = true;
		if (!hash_equal(&chain->chain, &claims[i].chain))
			return sync_fail(session, HEARTH_FAILED, "the ops of replica %.8s that %s sent "
			    "(up to %llu) are not the ops it holds, or do not extend the ones this Home "
			    "holds: damaged on the way, or the two Homes hold different ops under that "
			    "id; nothing of this sync was taken in", hex, session->peer,
			    (unsigned long long)claims[i].counter);
	}
	for (size_t j = 0; j < incoming->chain_count; j++) {
		if (incoming->chains[j].claimed)
			continue;
		replica_id_hex(incoming->chains[j].replica, hex);
		return sync_fail(session, HEARTH_FAILED, "%s sent ops of replica %.8s without their "
		    "hash; nothing of this sync was taken in", session->peer, hex);
	}
	return 0;
}

/* The kind a node was created with: by an earlier op of this batch, else
 * as the store holds it; 0 when it is not known yet (its PLACE may come
 * later, and the op waits as pending). A node's kind never changes. */
static struct hash
sync_node_key(struct node_id node)
{
	struct hash key;

	memset(&key, 0, sizeof key);
	memcpy(key.bytes, node.bytes, ID_BYTES);
	return key;
}

static enum node_kind
sync_node_kind(struct sync_session *session, struct sync_incoming *incoming, struct node_id node)
{
	struct hash key = sync_node_key(node);
	uint64_t kind;

	if (node_id_equal(node, NODE_ROOT))
		return NODE_DIR;
	if (sync_table_find(&incoming->kinds, &key, &kind))
		return (enum node_kind)kind;
	enum node_kind found = head_kind(session->home, node);
	/* A batch of edits asks about the same few nodes again and again. */
	if (found != 0)
		sync_table_put(&incoming->kinds, &key, (uint64_t)found);
	return found;
}

/* A root name as the config allows it ([A-Za-z0-9_-]{1,64}): a peer's
 * names end up in listings and the terminal. */
static bool
sync_root_name_valid(const char *name)
{
	size_t length = strlen(name);

	if (length == 0 || length > OP_ROOT_NAME_MAX)
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			(*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
			return false;
	return true;
}

/* Names hearth keeps for itself: never recorded, so never in an honest
 * op, and written by a checkout they would land in the state folder. (A
 * .hearth-id is a user's name like any other: folder ids live in xattrs,
 * and only where none are kept does a folder's marker file take it.) */
static const char *
sync_reserved_name(const struct op_place *place)
{
	if (node_id_equal(place->parent, NODE_ROOT) &&
	    place->name_length == sizeof HOME_DIR_NAME - 1 &&
	    memcmp(place->name, HOME_DIR_NAME, sizeof HOME_DIR_NAME - 1) == 0)
		return "the name " HOME_DIR_NAME " at the top, where the Home's state lives";
	return NULL;
}

/* What is wrong with a PLACE that decoded, or NULL: names hearth keeps,
 * a folder inside itself, a parent that is no folder, a kind other than
 * the node's, a root name no config could hold. */
static const char *
sync_place_problem(struct sync_session *session, struct sync_incoming *incoming,
    const struct op_place *place, char *scratch, size_t scratch_size)
{
	const char *reserved = sync_reserved_name(place);

	if (reserved != NULL)
		return reserved;
	if (node_id_equal(place->node, place->parent))
		return "it puts a node inside itself";
	if (!sync_root_name_valid(place->root))
		return "its root name is not 1 to 64 letters, digits, '-' or '_'";
	enum node_kind known = sync_node_kind(session, incoming, place->node);
	if (known != 0 && known != place->kind) {
		snprintf(scratch, scratch_size, "it makes a %s of a node created as a %s",
		    node_kind_name(place->kind), node_kind_name(known));
		return scratch;
	}
	if (node_id_equal(place->parent, NODE_TRASH))
		return NULL;
	enum node_kind parent = sync_node_kind(session, incoming, place->parent);
	if (parent != 0 && parent != NODE_DIR) {
		snprintf(scratch, scratch_size, "it puts a node under a %s, which is no folder "
		    "(a checkout would write through it)", node_kind_name(parent));
		return scratch;
	}
	return NULL;
}

/* Refuses what no honest peer sends: an op of ours we never made, a gap
 * or repeat in a replica's counters, a move of the top folder or trash, a
 * PLACE that could reach outside its folder or into hearth's own files
 * (sync_place_problem), content for a folder, and any encoding but the
 * canonical one (version ids hash it). One refused op refuses the batch:
 * nothing of it is written. */
static int
sync_check_op(struct sync_session *session, struct sync_incoming *incoming,
    const struct op *op, const uint8_t *body, size_t length)
{
	char hex[ID_HEX], scratch[128];

	replica_id_hex(op->id.replica, hex);
	if (replica_id_equal(op->id.replica, session->home->replica))
		return sync_fail(session, HEARTH_FAILED, "%s sent op %.8s/%llu as made by this "
		    "replica, which never made it: was this state folder copied? (`hearth reid` "
		    "gives a copy its own id)", session->peer, hex, (unsigned long long)op->id.counter);
	uint64_t last = vv_get(&incoming->next, op->id.replica);
	if (op->id.counter != last + 1)
		return sync_fail(session, HEARTH_FAILED, "%s sent op %.8s/%llu where %.8s/%llu was "
		    "due: its ops have a gap or a repeat", session->peer, hex,
		    (unsigned long long)op->id.counter, hex, (unsigned long long)last + 1);
	vv_set(&incoming->next, op->id.replica, op->id.counter);
	if (op->kind != OP_COMMIT) {
		struct node_id node = op_node(op);
		if (node_id_equal(node, NODE_ROOT) || node_id_equal(node, NODE_TRASH))
			return sync_fail(session, HEARTH_FAILED, "%s sent op %.8s/%llu, a %s of the "
			    "Home's %s, which no replica makes", session->peer, hex,
			    (unsigned long long)op->id.counter, op_kind_name(op->kind),
			    node_id_equal(node, NODE_ROOT) ? "top folder" : "trash");
	}
	const char *problem = NULL;
	if (op->kind == OP_PLACE)
		problem = sync_place_problem(session, incoming, &op->u.place, scratch,
		    sizeof scratch);
	else if (op->kind == OP_SET && sync_node_kind(session, incoming, op->u.set.node) == NODE_DIR)
		problem = "it gives content to a folder";
	if (problem != NULL)
		return sync_fail(session, HEARTH_FAILED, "%s sent op %.8s/%llu, a %s that no honest "
		    "replica makes: %s; nothing of this sync was taken in", session->peer, hex,
		    (unsigned long long)op->id.counter, op_kind_name(op->kind), problem);
	if (op->kind == OP_PLACE) {
		struct hash key = sync_node_key(op->u.place.node);
		if (!sync_table_find(&incoming->kinds, &key, NULL))
			sync_table_put(&incoming->kinds, &key, (uint64_t)op->u.place.kind);
	}
	buffer_reset(&incoming->encoded);
	op_encode(op, &incoming->encoded);
	if (incoming->encoded.length != length || memcmp(incoming->encoded.data, body, length) != 0)
		return sync_fail(session, HEARTH_FAILED, "%s sent op %.8s/%llu in a non-canonical "
		    "encoding", session->peer, hex, (unsigned long long)op->id.counter);
	return 0;
}

/* An op that does not decode is named by its id when that much of it
 * decoded (op_decode fills the id first). */
static int
sync_refuse_undecoded(struct sync_session *session, const struct op *op, const char *reason)
{
	char hex[ID_HEX];

	if (op->id.counter == 0)
		return sync_fail(session, HEARTH_FAILED, "%s sent an op that does not decode: %s; "
		    "nothing of this sync was taken in", session->peer, reason);
	replica_id_hex(op->id.replica, hex);
	return sync_fail(session, HEARTH_FAILED, "%s sent op %.8s/%llu, a %s that does not "
	    "decode: %s; nothing of this sync was taken in", session->peer, hex,
	    (unsigned long long)op->id.counter, op_kind_name(op->kind), reason);
}

static int
sync_take_ops_frame(struct sync_session *session, struct sync_incoming *incoming)
{
	struct wire_ops cursor;
	const uint8_t *body;
	size_t length;
	struct hearth_error failure;
	char reason[256];
	int step;

	if (!wire_ops_begin(session->frame.payload, session->frame.length, &cursor, &failure))
		return sync_bad_frame(session, failure.message);
	while ((step = wire_ops_next(&cursor, &body, &length, &failure)) == 1) {
		incoming->ops = array_grow(incoming->ops, &incoming->capacity, incoming->count + 1,
		    sizeof *incoming->ops);
		struct op *op = &incoming->ops[incoming->count];
		if (!op_decode(body, length, op, &incoming->arena, reason, sizeof reason))
			return sync_refuse_undecoded(session, op, reason);
		int status = sync_check_op(session, incoming, op, body, length);
		if (status == 0)
			status = sync_chain_take(session, incoming, op, body, length);
		if (status != 0)
			return status;
		incoming->count++;
		session->ops_received++;
		if (op->kind == OP_COMMIT)
			session->versions_received++;
		if (session->ops_received % SYNC_REPORT_EVERY == 0)
			sync_report(session, "receiving ops", session->ops_received, 0);
	}
	return step == 0 ? 0 : sync_bad_frame(session, failure.message);
}

static int
sync_take_blob_frame(struct sync_session *session, struct sync_incoming *incoming)
{
	struct wire_blob part;
	struct hearth_error failure;
	char hex[HASH_HEX];
	uint64_t index;

	if (!wire_decode_blob(session->frame.payload, session->frame.length, &part, &failure))
		return sync_bad_frame(session, failure.message);
	hash_hex(&part.blob, hex);
	if (!sync_table_find(&incoming->blob_index, &part.blob, &index)) {
		if (part.first != 0)
			return sync_fail(session, HEARTH_FAILED, "%s sent chunk list of blob %.16s from "
			    "its middle", session->peer, hex);
		incoming->blobs = array_grow(incoming->blobs, &incoming->blob_capacity,
		    incoming->blob_count + 1, sizeof *incoming->blobs);
		index = incoming->blob_count++;
		struct sync_blob *blob = &incoming->blobs[index];
		memset(blob, 0, sizeof *blob);
		blob->blob = part.blob;
		blob->size = part.size;
		blob->total = part.total;
		buffer_init(&blob->chunks);
		sync_table_put(&incoming->blob_index, &part.blob, index);
	}
	incoming->list_hashes += part.count;
	if (incoming->list_hashes > SYNC_WANTS_MAX)
		return sync_fail(session, HEARTH_FAILED, "%s sent chunk lists of more than %u chunks",
		    session->peer, SYNC_WANTS_MAX);
	struct sync_blob *blob = &incoming->blobs[index];
	if (blob->size != part.size || blob->total != part.total ||
	    blob->chunks.length / HASH_BYTES != part.first)
		return sync_fail(session, HEARTH_FAILED, "%s sent the chunk list of blob %.16s in "
		    "parts that do not fit together", session->peer, hex);
	buffer_append(&blob->chunks, part.hashes, part.count * HASH_BYTES);
	return 0;
}

/* Reads OPS and BLOB frames up to OPS_END. */
static int
sync_receive_ops(struct sync_session *session, struct sync_incoming *incoming)
{
	struct hearth_error failure;
	char hex[HASH_HEX];
	int status;

	sync_report(session, "receiving ops", 0, 0);
	for (;;) {
		if ((status = sync_read(session)) != 0)
			return status;
		if (session->frame.type == WIRE_OPS_END)
			break;
		if (session->frame.type == WIRE_OPS)
			status = sync_take_ops_frame(session, incoming);
		else if (session->frame.type == WIRE_BLOB)
			status = sync_take_blob_frame(session, incoming);
		else
			status = sync_unexpected(session, "OPS, BLOB or OPS_END");
		if (status != 0)
			return status;
	}
	uint64_t declared;
	struct wire_chain_claim *claims;
	size_t claim_count;
	if (!wire_decode_ops_end(session->frame.payload, session->frame.length, &declared, &claims,
		&claim_count, &failure))
		return sync_bad_frame(session, failure.message);
	status = declared == incoming->count ? 0 : sync_fail(session, HEARTH_FAILED,
	    "%s sent %zu ops but counted %llu", session->peer, incoming->count,
	    (unsigned long long)declared);
	if (status == 0)
		status = sync_check_claims(session, incoming, claims, claim_count);
	free(claims);
	if (status != 0)
		return status;
	for (size_t i = 0; i < incoming->blob_count; i++) {
		if (incoming->blobs[i].chunks.length / HASH_BYTES != incoming->blobs[i].total) {
			hash_hex(&incoming->blobs[i].blob, hex);
			return sync_fail(session, HEARTH_FAILED, "%s sent an incomplete chunk list for "
			    "blob %.16s", session->peer, hex);
		}
	}
	return 0;
}

/* Appends a chunk to the wants. */
static void
sync_add_want(struct sync_incoming *incoming, const struct hash *chunk, uint64_t size)
{
	size_t capacity = incoming->want_capacity;

	/* The two arrays grow in step, so one capacity describes both. */
	incoming->wants = array_grow(incoming->wants, &capacity, incoming->want_count + 1,
	    sizeof *incoming->wants);
	capacity = incoming->want_capacity;
	incoming->bases = array_grow(incoming->bases, &capacity, incoming->want_count + 1,
	    sizeof *incoming->bases);
	incoming->want_sizes = array_grow(incoming->want_sizes, &incoming->want_capacity,
	    incoming->want_count + 1, sizeof *incoming->want_sizes);
	memset(&incoming->bases[incoming->want_count], 0, sizeof *incoming->bases);
	incoming->wants[incoming->want_count] = *chunk;
	incoming->want_sizes[incoming->want_count] = size;
	sync_table_put(&incoming->want_index, chunk, incoming->want_count);
	incoming->want_count++;
}

/* Adds a chunk to the wants unless it is held or wanted already. Returns
 * true when it was added. */
static bool
sync_want(struct sync_incoming *incoming, struct hearth *home, const struct hash *chunk,
    uint64_t size)
{
	struct pack_location where;
	uint64_t index;

	if (sync_table_find(&incoming->want_index, chunk, &index)) {
		if (incoming->want_sizes[index] == SYNC_UNKNOWN_SIZE)
			incoming->want_sizes[index] = size;
		return false;
	}
	if (blob_chunk_find(home, chunk, &where) == 1)
		return false;
	sync_add_want(incoming, chunk, size);
	return true;
}

/* Protocol 4: the base the sender may send the want at index as a delta
 * against, the same chunk (the chunk_index-th) of the content the node has
 * here now; none for a node this store does not hold. */
static void
sync_name_base(struct sync_session *session, struct sync_incoming *incoming, size_t index,
    const struct op *op, size_t chunk_index)
{
	struct hearth *home = session->home;
	struct pack_location where;
	struct hash current;
	uint64_t size;

	if (session->protocol < WIRE_PROTOCOL_DELTAS)
		return;
	if (!head_blob(home, op->u.set.node, &current) || hash_equal(&current, &op->u.set.blob))
		return;
	buffer_reset(&incoming->encoded);
	if (blob_chunk_list(home, &current, &size, &incoming->encoded) == 1) {
		size_t count = incoming->encoded.length / HASH_BYTES;
		const struct hash *chunks = (const struct hash *)incoming->encoded.data;
		incoming->bases[index] = chunks[chunk_index < count ? chunk_index : count - 1];
	} else if (blob_chunk_find(home, &current, &where) == 1) {
		incoming->bases[index] = current;
	}
}

/* The content of one SET: the chunks of it this store lacks become wants,
 * and a size the store already knows must match the op's. */
static int
sync_plan_content(struct sync_session *session, struct sync_incoming *incoming,
    const struct op *op)
{
	const struct hash *blob_id = &op->u.set.blob;
	uint64_t size = op->u.set.size, index;
	char hex[HASH_HEX];

	if (!sync_table_find(&incoming->blob_index, blob_id, &index)) {
		/* One chunk, whose id is the blob's. */
		struct pack_location where;
		uint64_t want;
		if (sync_table_find(&incoming->want_index, blob_id, &want)) {
			if (incoming->want_sizes[want] != SYNC_UNKNOWN_SIZE &&
			    incoming->want_sizes[want] != size) {
				hash_hex(blob_id, hex);
				return sync_fail(session, HEARTH_FAILED, "%s sent ops that disagree on "
				    "the size of blob %.16s", session->peer, hex);
			}
			incoming->want_sizes[want] = size;
			return 0;
		}
		if (blob_chunk_find(session->home, blob_id, &where) == 1) {
			if (where.length != size) {
				hash_hex(blob_id, hex);
				return sync_fail(session, HEARTH_FAILED, "%s sent a SET saying blob "
				    "%.16s has %llu bytes; this store holds it with %u", session->peer,
				    hex, (unsigned long long)size, where.length);
			}
			return 0;
		}
		/* Held as a list the sender did not send? Only a blob over
		 * CHUNK_MIN can have one. */
		if (size > CHUNK_MIN &&
		    blob_chunk_list(session->home, blob_id, &size, &incoming->encoded) == 1)
			return 0;
		sync_add_want(incoming, blob_id, op->u.set.size);
		sync_name_base(session, incoming, incoming->want_count - 1, op, 0);
		incoming->want_bytes += op->u.set.size;
		return 0;
	}
	struct sync_blob *blob = &incoming->blobs[index];
	if (blob->size != size) {
		hash_hex(blob_id, hex);
		return sync_fail(session, HEARTH_FAILED, "%s sent a SET saying blob %.16s has %llu "
		    "bytes, and a chunk list saying %llu", session->peer, hex,
		    (unsigned long long)size, (unsigned long long)blob->size);
	}
	if (blob->seen)
		return 0;
	blob->seen = true;
	if (blob_is_stored(session->home, blob_id)) {
		blob->stored = true;
		return 0;
	}
	size_t first = incoming->want_count;
	bool all_new = true;
	const struct hash *chunks = (const struct hash *)blob->chunks.data;
	for (uint64_t i = 0; i < blob->total; i++) {
		if (!sync_want(incoming, session->home, &chunks[i], SYNC_UNKNOWN_SIZE))
			all_new = false;
		else
			sync_name_base(session, incoming, incoming->want_count - 1, op, (size_t)i);
	}
	/* The chunks' own sizes come with them: a blob whose chunks all
	 * travel is its size, a share of it the guess. */
	if (all_new)
		incoming->want_bytes += blob->size;
	else if (blob->total > 0)
		incoming->want_bytes += blob->size / blob->total * (incoming->want_count - first);
	if (all_new) {
		incoming->checks = array_grow(incoming->checks, &incoming->check_capacity,
		    incoming->check_count + 1, sizeof *incoming->checks);
		incoming->checks[incoming->check_count++] = (struct sync_check){
			.first = first, .end = incoming->want_count, .blob = (size_t)index,
		};
	}
	return 0;
}

static int
sync_send_wants(struct sync_session *session, struct sync_incoming *incoming)
{
	for (size_t first = 0; first < incoming->want_count; first += WIRE_HASHES_MAX) {
		size_t count = incoming->want_count - first;
		if (count > WIRE_HASHES_MAX)
			count = WIRE_HASHES_MAX;
		size_t start = wire_begin(&session->out, WIRE_WANT);
		wire_encode_hashes(&session->out, incoming->wants + first, count);
		int status = sync_queued(session, start);
		if (status == 0 && session->protocol >= WIRE_PROTOCOL_DELTAS) {
			start = wire_begin(&session->out, WIRE_BASES);
			wire_encode_hashes(&session->out, incoming->bases + first, count);
			status = sync_queued(session, start);
		}
		if (status != 0)
			return status;
	}
	return sync_send_count(session, WIRE_WANT_END, incoming->want_count);
}

/* A delta that came for the want at index, back into its chunk's bytes in
 * out, against the base this side named for it; *base the base as the
 * pack writer takes it, to keep the chunk as a delta here too. */
struct sync_undelta {
	ZSTD_DCtx *context;
	struct buffer base;
	struct buffer bytes;
};

static int
sync_undelta(struct sync_session *session, struct sync_incoming *incoming, size_t index,
    const struct hash *named, const uint8_t *delta, size_t length, struct sync_undelta *undelta,
    struct pack_base *base)
{
	struct pack_location where;
	struct hearth_error failure;
	char hex[HASH_HEX];
	const char *reason = "it does not say its size";

	hash_hex(&incoming->wants[index], hex);
	if (hash_is_zero(&incoming->bases[index]) || !hash_equal(named, &incoming->bases[index]))
		return sync_fail(session, HEARTH_FAILED, "%s sent chunk %.16s as a delta against "
		    "a base this side did not name", session->peer, hex);
	if (undelta->context == NULL && (undelta->context = ZSTD_createDCtx()) == NULL)
		return sync_fail(session, HEARTH_FAILED, "out of memory");
	buffer_reset(&undelta->base);
	if (blob_chunk_find(session->home, named, &where) != 1 ||
	    pack_read(session->home->reader, named, &where, &undelta->base, &failure) != 0)
		return sync_fail(session, HEARTH_DAMAGED, "the base of chunk %.16s does not read "
		    "here: %s", hex, failure.message);
	unsigned long long size = ZSTD_getFrameContentSize(delta, length);
	buffer_reset(&undelta->bytes);
	if (size <= WIRE_CHUNK_DATA_MAX) {
		buffer_reserve(&undelta->bytes, (size_t)size);
		if (delta_decode(undelta->context, undelta->base.data, undelta->base.length, delta,
			length, undelta->bytes.data, (size_t)size, &reason))
			undelta->bytes.length = (size_t)size;
		else
			size = ULLONG_MAX;
	}
	if (size > WIRE_CHUNK_DATA_MAX)
		return sync_fail(session, HEARTH_FAILED, "%s sent a delta for chunk %.16s that does "
		    "not decode (%s)", session->peer, hex, reason);
	*base = (struct pack_base){ .id = *named, .data = undelta->base.data,
		.length = undelta->base.length, .depth = where.depth };
	return 0;
}

/* A chunk that came as a zstd frame (protocol 5), decoded into undelta's
 * bytes: one frame that says its size, at most a chunk's, and decodes to
 * exactly that many bytes, so the frame kept reads back the same. */
static int
sync_unzstd(struct sync_session *session, const struct hash *chunk, const uint8_t *frame,
    size_t length, struct sync_undelta *undelta)
{
	char hex[HASH_HEX];
	const char *reason = "it does not say its size, or says more than a chunk";

	hash_hex(chunk, hex);
	if (undelta->context == NULL && (undelta->context = ZSTD_createDCtx()) == NULL)
		return sync_fail(session, HEARTH_FAILED, "out of memory");
	unsigned long long size = ZSTD_getFrameContentSize(frame, length);
	buffer_reset(&undelta->bytes);
	if (size <= WIRE_CHUNK_DATA_MAX) {
		buffer_reserve(&undelta->bytes, (size_t)size);
		size_t made = ZSTD_decompressDCtx(undelta->context, undelta->bytes.data,
		    (size_t)size, frame, length);
		if (ZSTD_isError(made))
			reason = ZSTD_getErrorName(made);
		else if (made != size)
			reason = "it decodes to fewer bytes than it says";
		else
			reason = NULL;
	}
	if (reason != NULL)
		return sync_fail(session, HEARTH_FAILED, "%s sent chunk %.16s as a zstd frame that "
		    "does not decode (%s)", session->peer, hex, reason);
	undelta->bytes.length = (size_t)size;
	return 0;
}

/* Whether the protocol agreed on has the codec a chunk came in. */
static bool
sync_codec_agreed(const struct sync_session *session, uint8_t codec)
{
	if (codec == WIRE_CODEC_DELTA)
		return session->protocol >= WIRE_PROTOCOL_DELTAS;
	if (codec == WIRE_CODEC_ZSTD || codec == WIRE_CODEC_INCOMPRESSIBLE)
		return session->protocol >= WIRE_PROTOCOL_STORED;
	return true;
}

/* ---- durable batches ------------------------------------------------------------ */

/* Chunks are made durable in batches apart from the ops that name them:
 * each batch is a pack of its own, sealed (packs are written once) and
 * synced, then its chunk rows commit in a transaction of their own. A
 * cancel, a failure, a kill or a dropped connection loses at most the
 * batch in hand; the chunks kept are held like any other, so the rerun's
 * plan (sync_want) does not ask for them again. Until ops name them they
 * are content no version uses, which costs space and nothing else.
 * Each batch may hold twice the content of the one before, from 16 MiB
 * up to 1 GiB (a pack's seal size): batches of one size made a clone of
 * 1 GiB leave 64 packs, past the light upkeep's threshold, so the next
 * command copied every byte again; doubling makes it 7, and a kill still
 * keeps at least half of what arrived. */
#define SYNC_BATCH_FIRST_BYTES (16ull * 1024 * 1024)
#define SYNC_BATCH_DOUBLINGS 6

static uint64_t
sync_batch_limit(const struct sync_incoming *incoming)
{
	unsigned doublings = incoming->batches_closed < SYNC_BATCH_DOUBLINGS
	    ? incoming->batches_closed : SYNC_BATCH_DOUBLINGS;
	return SYNC_BATCH_FIRST_BYTES << doublings;
}

static int
sync_batch_open(struct sync_session *session, struct sync_incoming *incoming)
{
	struct hearth_error failure;

	if (incoming->writer_started)
		return 0;
	if (store_begin(&session->home->store, &failure) != 0) {
		incoming->store_failed = true;
		return sync_fail(session, HEARTH_FAILED, "%s", failure.message);
	}
	blob_writer_begin(session->home, &incoming->writer);
	incoming->writer_started = true;
	incoming->batch_bytes = 0;
	return 0;
}

/* Seals the batch's pack, then commits its chunk rows; on failure takes
 * both back. error gets why (the session's own, or a scratch one when the
 * sync already failed for another reason). */
static int
sync_batch_close(struct sync_session *session, struct sync_incoming *incoming,
    struct hearth_error *error)
{
	struct hearth_error failure;

	if (!incoming->writer_started)
		return 0;
	incoming->writer_started = false;
	int status = blob_writer_finish(&incoming->writer, error);
	if (status == 0 && store_commit(&session->home->store, &failure) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	if (status != 0) {
		store_rollback(&session->home->store);
		blob_writer_abort(&incoming->writer);
		incoming->store_failed = true;
		return status;
	}
	home_count_writes(session->home, incoming->writer.bytes_new);
	incoming->batches_closed++;
	if (incoming->writer.pack != NULL)
		pack_writer_free(incoming->writer.pack);
	incoming->writer.pack = NULL;
	return 0;
}

/* The sender went quiet (sync_session.h, idle): what arrived so far is
 * made durable, so a connection that stalls and dies keeps it. */
static void
sync_batch_idle(void *context)
{
	struct sync_session *session = ((void **)context)[0];
	struct sync_incoming *incoming = ((void **)context)[1];

	if (incoming->writer_started && incoming->batch_bytes > 0 && incoming->idle_status == 0)
		incoming->idle_status = sync_batch_close(session, incoming, session->error);
}

/* A clone's prefill (prefill.h) writes each node's last content among the
 * ops that came: older versions would be written for nothing. */
static void
sync_prefill_plan(struct sync_session *session, struct sync_incoming *incoming)
{
	struct sync_table nodes = { 0 };
	uint64_t value;

	if (session->home->prefill == NULL)
		return;
	for (size_t i = incoming->count; i-- > 0;) {
		const struct op *op = &incoming->ops[i];
		if (op->kind != OP_SET)
			continue;
		struct hash key = sync_node_key(op->u.set.node);
		if (sync_table_find(&nodes, &key, &value))
			continue;
		sync_table_put(&nodes, &key, 0);
		if (!sync_table_find(&incoming->prefill_blobs, &op->u.set.blob, &value))
			sync_table_put(&incoming->prefill_blobs, &op->u.set.blob, 0);
	}
	sync_table_free(&nodes);
}

/* The prefilled file of the blob whose chunks arrive now: written on
 * this thread, as every io_* call of the receiving side is (io.c's
 * counters and fault walks count calls in one order). */
struct sync_prefilling {
	struct blob_sparse_file file;	/* fd -1: none */
	bool failed;
	struct hearth_error error;
};

/* Starts blob's file when the clone's prefill wants it: true when it did. */
static bool
sync_prefill_open(struct sync_session *session, struct sync_incoming *incoming,
    const struct hash *blob, struct sync_prefilling *prefilling)
{
	uint64_t value;

	if (session->home->prefill == NULL ||
	    !sync_table_find(&incoming->prefill_blobs, blob, &value))
		return false;
	int fd = prefill_start(session->home->prefill, blob);
	if (fd < 0)
		return false;
	struct config_durability_rules rules =
	    config_durability_rules(session->home->config->durability);
	*prefilling = (struct sync_prefilling){ .file = { .fd = fd,
		.writeback = rules.sync_each_file || rules.sync_folders } };
	prefilling->file.error = &prefilling->error;
	return true;
}

static void
sync_prefill_append(struct sync_prefilling *prefilling, const uint8_t *data, size_t length)
{
	if (prefilling->file.fd >= 0 && !prefilling->failed)
		prefilling->failed = blob_sparse_append(&prefilling->file, data, length) != 0;
}

/* Ends the file in hand, if any: whether it holds every byte, closed. */
static bool
sync_prefill_close(struct sync_prefilling *prefilling)
{
	if (prefilling->file.fd < 0)
		return false;
	bool whole = !prefilling->failed && blob_sparse_end(&prefilling->file) == 0;
	if (io_close(prefilling->file.fd) != 0)
		whole = false;
	prefilling->file.fd = -1;
	return whole;
}

/* A blob of one chunk, big enough that writing it now pays (a small
 * file costs its creation, wherever it is made): its id is the chunk's,
 * just checked, so its file is whole once written. */
static void
sync_prefill_chunk(struct sync_session *session, struct sync_incoming *incoming,
    const struct hash *chunk, const uint8_t *data, size_t length)
{
	struct sync_prefilling prefilling;

	if (length < CHUNK_MIN || !sync_prefill_open(session, incoming, chunk, &prefilling))
		return;
	sync_prefill_append(&prefilling, data, length);
	prefill_finish(session->home->prefill, chunk, sync_prefill_close(&prefilling));
}

/* After the hasher's drain: a prefilled file is whole when every byte
 * went in and its blob's hash held; any other goes. */
static void
sync_prefill_finish(struct sync_session *session, struct sync_incoming *incoming,
    struct sync_hasher *hasher, bool received)
{
	if (hasher != NULL)
		sync_hasher_drain(hasher);
	for (size_t i = 0; i < incoming->check_count; i++) {
		const struct sync_check *check = &incoming->checks[i];
		if (check->prefilled)
			prefill_finish(session->home->prefill, &incoming->blobs[check->blob].blob,
			    received && check->prefill_whole && sync_hasher_matched(hasher, i));
	}
}

/* Once every chunk is in: each blob whose chunks all travelled made its
 * own hash, or the peer sent a list that makes other bytes. */
static int
sync_whole_blobs_checked(struct sync_session *session, struct sync_incoming *incoming,
    struct sync_hasher *hasher)
{
	char hex[HASH_HEX];

	if (hasher != NULL)
		sync_hasher_drain(hasher);
	for (size_t i = 0; i < incoming->check_count; i++) {
		struct sync_blob *blob = &incoming->blobs[incoming->checks[i].blob];
		if (!sync_hasher_matched(hasher, i)) {
			hash_hex(&blob->blob, hex);
			return sync_fail(session, HEARTH_FAILED, "%s sent a chunk list for blob "
			    "%.16s whose chunks make other bytes", session->peer, hex);
		}
		blob->verified = true;
	}
	return 0;
}

/* Takes the wanted chunks, in the order asked, into the pack. */
static int
sync_receive_chunks(struct sync_session *session, struct sync_incoming *incoming)
{
	struct sync_undelta undelta = { 0 };
	struct sync_hasher *hasher = sync_hasher_new(incoming->check_count);
	struct sync_prefilling prefilling = { .file = { .fd = -1 } };
	size_t check = 0;
	struct hearth_error failure;
	char hex[HASH_HEX], asked[HASH_HEX];
	int status = 0;

	sync_phase(session, "receiving chunks", incoming->want_count, incoming->want_bytes);
	void *idle_context[2] = { session, incoming };
	session->idle = sync_batch_idle;
	session->idle_context = idle_context;
	for (size_t i = 0; i < incoming->want_count && status == 0; i++) {
		status = sync_read(session);
		if (incoming->idle_status != 0)
			status = incoming->idle_status;
		if (status != 0)
			break;
		if (session->frame.type != WIRE_CHUNK) {
			status = sync_unexpected(session, "CHUNK");
			break;
		}
		struct hash chunk, named;
		uint8_t codec;
		const uint8_t *data;
		size_t length;
		struct pack_base base;
		if (!wire_decode_chunk_coded(session->frame.payload, session->frame.length, &chunk,
			&codec, &named, &data, &length, &failure)) {
			status = sync_bad_frame(session, failure.message);
			break;
		}
		hash_hex(&chunk, hex);
		if (!hash_equal(&chunk, &incoming->wants[i])) {
			hash_hex(&incoming->wants[i], asked);
			status = sync_fail(session, HEARTH_FAILED, "%s sent chunk %.16s where %.16s was "
			    "asked for", session->peer, hex, asked);
			break;
		}
		if (!sync_codec_agreed(session, codec)) {
			status = sync_fail(session, HEARTH_FAILED, "%s sent chunk %.16s in codec %u, "
			    "which protocol %u does not have", session->peer, hex, codec,
			    session->protocol);
			break;
		}
		size_t traveled = length;
		bool based = codec == WIRE_CODEC_DELTA;
		struct pack_stored stored = { 0 };
		if (based && (status = sync_undelta(session, incoming, i, &named, data, length,
				  &undelta, &base)) != 0)
			break;
		if (codec == WIRE_CODEC_ZSTD) {
			if ((status = sync_unzstd(session, &chunk, data, length, &undelta)) != 0)
				break;
			stored = (struct pack_stored){ .bytes = data, .length = length };
		}
		if (based || codec == WIRE_CODEC_ZSTD) {
			data = undelta.bytes.data;
			length = undelta.bytes.length;
		}
		if (incoming->want_sizes[i] != SYNC_UNKNOWN_SIZE && incoming->want_sizes[i] != length) {
			status = sync_fail(session, HEARTH_FAILED, "%s sent %zu bytes for blob %.16s, "
			    "whose op says %llu", session->peer, length, hex,
			    (unsigned long long)incoming->want_sizes[i]);
			break;
		}
		if ((status = sync_batch_open(session, incoming)) != 0)
			break;
		bool kept = codec == WIRE_CODEC_ZSTD || codec == WIRE_CODEC_INCOMPRESSIBLE;
		if ((status = blob_store_chunk(&incoming->writer, &chunk, data, length,
			 based ? &base : NULL, kept ? &stored : NULL, session->error)) != 0) {
			incoming->store_failed = status != HEARTH_DAMAGED;
			if (status == HEARTH_DAMAGED) {
				char why[512];
				snprintf(why, sizeof why, "%.400s", session->error->message);
				status = sync_fail(session, HEARTH_FAILED, "%s sent a damaged chunk: %s",
				    session->peer, why);
			}
			break;
		}
		session->chunks_received++;
		session->chunk_bytes_received += traveled;
		incoming->batch_bytes += length;
		sync_content(session, length);
		/* The whole-blob check of a blob whose chunks all travel, on the
		 * hasher's thread while this one takes the next chunks. */
		if (check < incoming->check_count && i >= incoming->checks[check].first) {
			struct sync_check *whole = &incoming->checks[check];
			sync_hasher_add(hasher, check, i == whole->first, i + 1 == whole->end,
			    &incoming->blobs[whole->blob].blob, data, length);
			if (i == whole->first)
				whole->prefilled = sync_prefill_open(session, incoming,
				    &incoming->blobs[whole->blob].blob, &prefilling);
			sync_prefill_append(&prefilling, data, length);
			if (i + 1 == whole->end)
				whole->prefill_whole = sync_prefill_close(&prefilling);
			check += i + 1 == whole->end;
		} else {
			sync_prefill_chunk(session, incoming, &chunk, data, length);
		}
		sync_report(session, "receiving chunks", i + 1, incoming->want_count);
		if (incoming->batch_bytes >= sync_batch_limit(incoming))
			status = sync_batch_close(session, incoming, session->error);
	}
	session->idle = NULL;
	if (status == 0)
		status = sync_whole_blobs_checked(session, incoming, hasher);
	if (status == 0)
		sync_content_done(session);
	sync_prefill_close(&prefilling);
	sync_prefill_finish(session, incoming, hasher, status == 0);
	sync_hasher_free(hasher);
	ZSTD_freeDCtx(undelta.context);
	buffer_free(&undelta.base);
	buffer_free(&undelta.bytes);
	if (status != 0)
		return status;
	if ((status = sync_read(session)) != 0)
		return status;
	if (session->frame.type != WIRE_CHUNKS_END)
		return sync_unexpected(session, "CHUNKS_END");
	uint64_t declared;
	if (!wire_decode_count(session->frame.payload, session->frame.length, &declared, &failure))
		return sync_bad_frame(session, failure.message);
	if (declared != incoming->want_count)
		return sync_fail(session, HEARTH_FAILED, "%s sent %zu chunks but counted %llu",
		    session->peer, incoming->want_count, (unsigned long long)declared);
	return 0;
}

/* Chunk lists whose chunks did not all travel: their sizes, from the
 * index, must add up to the blob's (held chunks are never read). Runs
 * after the pack is finished, when every new chunk is indexed. */
static int
sync_check_lists(struct sync_session *session, struct sync_incoming *incoming)
{
	for (size_t i = 0; i < incoming->blob_count; i++) {
		struct sync_blob *blob = &incoming->blobs[i];
		if (!blob->seen || blob->stored || blob->verified)
			continue;
		const struct hash *chunks = (const struct hash *)blob->chunks.data;
		uint64_t sum = 0;
		for (uint64_t j = 0; j < blob->total; j++) {
			struct pack_location where;
			if (blob_chunk_find(session->home, &chunks[j], &where) != 1)
				return sync_fail(session, HEARTH_FAILED, "bug: a chunk of a received blob "
				    "is not in the index");
			sum += where.length;
		}
		if (sum != blob->size) {
			char hex[HASH_HEX];
			hash_hex(&blob->blob, hex);
			return sync_fail(session, HEARTH_FAILED, "%s sent a chunk list for blob %.16s "
			    "whose chunks hold %llu bytes, not %llu", session->peer, hex,
			    (unsigned long long)sum, (unsigned long long)blob->size);
		}
	}
	return 0;
}

static int
sync_store_lists(struct sync_session *session, struct sync_incoming *incoming)
{
	for (size_t i = 0; i < incoming->blob_count; i++) {
		struct sync_blob *blob = &incoming->blobs[i];
		if (!blob->seen || blob->stored)
			continue;
		int status = blob_add_chunk_list(session->home, &blob->blob, blob->size,
		    (const struct hash *)blob->chunks.data, (size_t)blob->total, session->error);
		if (status != 0)
			return status;
	}
	return 0;
}

/* The replica that syncs names what it took in: when no version holds
 * the head state now, a merge version (no ops of its own; its vv every op
 * held) does, in the same transaction, so `head` is a version that a peer
 * receives along with the rest (hearth(1), VERSIONS). */
static int
sync_merge(struct sync_session *session)
{
	struct history_head head;
	struct author author;
	char message[512], version[HASH_HEX];

	history_head(session->home, &head);
	if (head.named)
		return 0;
	/* Ops without a version of their own come only from a broken peer;
	 * they are named too, and the message counts them instead. */
	uint64_t count = session->versions_received ? session->versions_received
						    : session->ops_new;
	snprintf(message, sizeof message, "Merge %llu %s%s from %.400s", (unsigned long long)count,
	    session->versions_received ? "version" : "op", count == 1 ? "" : "s", session->peer);
	author_begin(&author, session->home, session->error);
	int status = author_merge(&author, message, version);
	author_end(&author);
	return status;
}

/* Wants, chunks, integration and the commit, once the ops are in; merge:
 * this side started the sync (see sync_merge). */
static int
sync_take_in(struct sync_session *session, struct sync_incoming *incoming, bool merge)
{
	struct hearth_error failure;
	int status = 0;

	size_t sets = 0;
	for (size_t i = 0; i < incoming->count; i++)
		sets += incoming->ops[i].kind == OP_SET;
	sync_table_reserve(&incoming->want_index, sets);
	sync_prefill_plan(session, incoming);
	/* The plan reads only, in one snapshot; chunks a cancelled or broken
	 * sync kept are held now, and not asked for. */
	store_begin_read(&session->home->store);
	for (size_t i = 0; i < incoming->count && status == 0; i++)
		if (incoming->ops[i].kind == OP_SET)
			status = sync_plan_content(session, incoming, &incoming->ops[i]);
	store_end_read(&session->home->store);
	if (status != 0)
		return status;
	if ((status = sync_send_wants(session, incoming)) != 0 ||
	    (status = sync_receive_chunks(session, incoming)) != 0 ||
	    (status = sync_batch_close(session, incoming, session->error)) != 0)
		return status;
	/* The ops, their lists, the head state and history: one transaction
	 * over chunks already durable. */
	if (store_begin(&session->home->store, &failure) != 0)
		return sync_fail(session, HEARTH_FAILED, "%s", failure.message);
	incoming->in_transaction = true;
	if ((status = sync_store_lists(session, incoming)) != 0)
		return status;
	sync_report(session, "integrating", 0, incoming->count);
	struct integrate_result result = { 0 };
	if ((status = integrate_ops(session->home, incoming->ops, incoming->count, &result,
		 session->error)) != 0)
		return status;
	session->ops_new = result.ops_new;
	if (merge && (status = sync_merge(session)) != 0)
		return status;
	if ((status = sync_check_lists(session, incoming)) != 0)
		return status;
	if (sync_cancelled(session))
		return sync_fail(session, HEARTH_CANCELLED, "sync cancelled");
	if (store_commit(&session->home->store, &failure) != 0) {
		incoming->in_transaction = false;
		return sync_fail(session, HEARTH_FAILED, "%s", failure.message);
	}
	incoming->in_transaction = false;
	return 0;
}

/* The receiving half. lock: take the Home's write lock first (the server;
 * the client holds it for the whole sync). */
int
sync_receive(struct sync_session *session, bool lock)
{
	struct sync_incoming incoming;
	int status;

	sync_incoming_init(&incoming, &session->ours);
	/* The checks look nodes up one by one (a clone's every new node): in
	 * one read snapshot, not one lock and unlock each. */
	store_begin_read(&session->home->store);
	status = sync_receive_ops(session, &incoming);
	store_end_read(&session->home->store);
	if (status == 0 && incoming.count > 0) {
		if (lock)
			status = home_lock(session->home, "serve", session->error);
		if (status == 0)
			status = sync_take_in(session, &incoming, !lock);
	}
	if (incoming.in_transaction)
		store_rollback(&session->home->store);
	/* A sync that stopped keeps the chunks that came whole (they are
	 * checked, and held like any other), unless the store failed. */
	if (incoming.writer_started && !incoming.store_failed) {
		struct hearth_error kept;
		sync_batch_close(session, &incoming, &kept);
	} else if (incoming.writer_started) {
		store_rollback(&session->home->store);
		blob_writer_abort(&incoming.writer);
	}
	/* What came in is kept; now the line merges it allows (automerge.h),
	 * before the client pushes, so the peer gets the merge in this sync. */
	if (status == 0 && incoming.count > 0) {
		struct automerge_result merged;
		status = automerge_after_sync(session->home, incoming.ops, incoming.count, &merged,
		    session->error);
		session->files_merged += merged.merged;
	}
	sync_incoming_free(&incoming);
	return status;
}
