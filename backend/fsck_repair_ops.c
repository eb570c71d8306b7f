/* fsck --repair for ops: each op whose bytes fsck found not to match its
 * hash chain is fetched again from a peer (sync_fetch_ops), and taken only
 * when the chain proves it: it extends this store's chain before it to the
 * chain stored at it, or to one the next op's stored chain extends. Then
 * every op row and every history row that disagrees with its (now whole)
 * op is written anew from it. All in one transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/fsck.h"
#include "backend/history/history.h"
#include "backend/sync/sync.h"
#include "model/array.h"

/* An op fetched again and proved, waiting for the transaction. */
struct refetched {
	struct op_id id;
	int64_t replica_number;
	uint8_t *body;
	size_t length;
	struct hash chain;
};

struct op_repair {
	struct hearth *home;
	struct fsck_damage *damage;	/* ops sorted by id */
	struct refetched *got;
	size_t got_count, got_capacity;
	struct arena arena;
};

static int
compare_op_ids(const void *a, const void *b)
{
	return op_id_compare(*(const struct op_id *)a, *(const struct op_id *)b);
}

static bool
is_damaged(const struct op_repair *repair, struct op_id id)
{
	return repair->damage->op_count > 0 && bsearch(&id, repair->damage->ops,
	    repair->damage->op_count, sizeof id, compare_op_ids) != NULL;
}

static bool
already_got(const struct op_repair *repair, struct op_id id)
{
	for (size_t i = 0; i < repair->got_count; i++)
		if (op_id_compare(repair->got[i].id, id) == 0)
			return true;
	return false;
}

/* The fetched bytes of op (number, counter) give chain: true when this
 * store's chain proves them its op. */
static bool
chain_proves(struct store *store, int64_t number, uint64_t counter, const struct hash *chain)
{
	struct hash stored, extended;
	struct store_op_row next;

	if (store_op_chain(store, number, counter, &stored) == 0 && hash_equal(&stored, chain))
		return true;
	/* The stored chain may be what is damaged: the next op's proves it.
	 * None held: the last op held; the peer proved the same ops up to
	 * the one before, in HELLO, and this op id is its. */
	if (store_op_row_get(store, number, counter + 1, true, &next) != 1)
		return true;
	if (!next.has_chain)
		return false;
	store_chain_next(store, chain, next.body, next.body_length, &extended);
	return hash_equal(&extended, &next.chain);
}

static int
refetch_take(void *context, const uint8_t *body, size_t length, struct hearth_error *error)
{
	struct op_repair *repair = context;
	struct store *store = &repair->home->store;
	struct hash previous;
	struct refetched got;
	struct op op;
	char reason[128];

	(void)error;
	if (!op_decode(body, length, &op, &repair->arena, reason, sizeof reason) ||
	    !is_damaged(repair, op.id) || already_got(repair, op.id))
		return 0;
	got.id = op.id;
	got.replica_number = store_replica_number(store, op.id.replica, false);
	if (got.replica_number <= 0 ||
	    store_op_chain(store, got.replica_number, op.id.counter - 1, &previous) != 0)
		return 0;
	store_chain_next(store, &previous, body, length, &got.chain);
	if (!chain_proves(store, got.replica_number, op.id.counter, &got.chain))
		return 0;
	got.body = array_alloc(length, 1);
	memcpy(got.body, body, length);
	got.length = length;
	repair->got = array_grow(repair->got, &repair->got_capacity, repair->got_count + 1,
	    sizeof *repair->got);
	repair->got[repair->got_count++] = got;
	return 0;
}

/* From: this replica's vector with each damaged op's replica lowered to
 * just before its first damaged op (entries at 0 left out). */
static void
refetch_from(struct op_repair *repair, struct vv *from)
{
	struct vv head;

	vv_init(&head);
	store_head_vv(&repair->home->store, &head);
	for (size_t i = 0; i < head.count; i++) {
		uint64_t counter = head.entries[i].counter;
		for (size_t j = 0; j < repair->damage->op_count; j++) {
			const struct op_id *id = &repair->damage->ops[j];
			if (replica_id_equal(id->replica, head.entries[i].replica) &&
			    id->counter - 1 < counter)
				counter = id->counter - 1;
		}
		if (counter > 0)
			vv_set(from, head.entries[i].replica, counter);
	}
	vv_free(&head);
}

static int
write_refetched(struct op_repair *repair)
{
	for (size_t i = 0; i < repair->got_count; i++) {
		const struct refetched *got = &repair->got[i];
		if (store_op_set_body(&repair->home->store, got->replica_number, got->id.counter,
			got->body, got->length, &got->chain) != 0)
			return -1;
	}
	return 0;
}

/* Every op row's lamport, kind and node from its op, but for ops still
 * damaged (nothing is taken from bytes the chain does not prove). */
static int
mend_op_rows(struct op_repair *repair, uint64_t *mended)
{
	struct store *store = &repair->home->store;
	struct store_ops rows;
	struct store_op_row row;
	struct arena arena;
	char reason[128];
	int status = 0;

	arena_init(&arena, 64 * 1024);
	store_ops_all(store, &rows);
	rows.raw = true;	/* the damaged ops are this repair's to judge */
	while (status == 0 && store_ops_next(&rows, &row)) {
		struct op op;
		if (!op_decode(row.body, row.body_length, &op, &arena, reason, sizeof reason) ||
		    (is_damaged(repair, op.id) && !already_got(repair, op.id)))
			continue;
		struct node_id node = op_node(&op);
		bool changed = false;
		status = store_op_set_facts(store, row.replica_number, row.counter, op.lamport,
		    op.kind, op.kind == OP_COMMIT ? NULL : &node, &changed);
		*mended += changed;
		if (arena.allocated > (1u << 20)) {
			arena_free(&arena);
			arena_init(&arena, 64 * 1024);
		}
	}
	store_ops_close(&rows);
	arena_free(&arena);
	return status;
}

/* The history again from the COMMIT ops, in each replica's counter order
 * (a row's previous is the one before): ids are the hash of each COMMIT,
 * so no version changes its name. */
static int
mend_history(struct hearth *home, struct hearth_error *error)
{
	struct store_ops commits;
	struct store_op_row row;
	struct buffer encoded;
	struct arena arena;
	char reason[128], id[HASH_HEX];
	int status = 0;

	if (history_forget_versions(home) != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot write the history anew: %s",
		    sqlite3_errmsg(home->store.db));
	buffer_init(&encoded);
	arena_init(&arena, 64 * 1024);
	store_ops_commits(&home->store, &commits);
	commits.raw = true;	/* as mend_op_rows: a repair reads what it mends */
	while (status == 0 && store_ops_next(&commits, &row)) {
		struct op op;
		if (!op_decode(row.body, row.body_length, &op, &arena, reason, sizeof reason) ||
		    op.kind != OP_COMMIT)
			continue;
		buffer_reset(&encoded);
		op_encode(&op, &encoded);
		status = history_add_version(home, &op, &encoded, id, error);
		if (arena.allocated > (1u << 20)) {
			arena_free(&arena);
			arena_init(&arena, 64 * 1024);
		}
	}
	store_ops_close(&commits);
	arena_free(&arena);
	buffer_free(&encoded);
	return status;
}

static int
repair_transaction(struct op_repair *repair, struct hearth_repair_result *out,
    struct hearth_error *error)
{
	struct hearth *home = repair->home;
	struct hearth_error failure;
	int status = 0;

	if (store_begin(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	if (write_refetched(repair) != 0 || mend_op_rows(repair, &out->rows_mended) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "cannot mend the ops: %s",
		    sqlite3_errmsg(home->store.db));
	/* The history is written from every COMMIT: only once all are whole. */
	if (status == 0 && repair->got_count == repair->damage->op_count &&
	    (repair->got_count > 0 || repair->damage->rows_disagreeing > 0))
		status = mend_history(home, error);
	if (status == 0 && store_commit(&home->store, &failure) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	if (status != 0) {
		store_rollback(&home->store);
		out->rows_mended = 0;
		return status;
	}
	out->ops_fetched = repair->got_count;
	return 0;
}

int
fsck_repair_ops(struct hearth *home, struct fsck_damage *damage,
    const struct hearth_repair_options *options, struct hearth_repair_result *out,
    struct hearth_error *error)
{
	struct op_repair repair = { .home = home, .damage = damage };
	int status = 0;

	out->ops_damaged = damage->op_count;
	if (damage->op_count == 0 && damage->rows_disagreeing == 0)
		return 0;
	array_sort(damage->ops, damage->op_count, sizeof *damage->ops, compare_op_ids);
	arena_init(&repair.arena, 64 * 1024);
	if (damage->op_count > 0) {
		struct sync_op_sink sink = { .take = refetch_take, .context = &repair };
		struct vv from;
		vv_init(&from);
		store_begin_read(&home->store);
		refetch_from(&repair, &from);
		store_end_read(&home->store);
		status = sync_fetch_ops(home, options->peer, options->program, &from, &sink,
		    out->peer_name, error);
		vv_free(&from);
	}
	if (status == 0)
		status = repair_transaction(&repair, out, error);
	out->ops_lacking = damage->op_count - (status == 0 ? repair.got_count : 0);
	for (size_t i = 0; i < repair.got_count; i++)
		free(repair.got[i].body);
	free(repair.got);
	arena_free(&repair.arena);
	if (status == 0 && out->ops_lacking > 0)
		snprintf(out->lacking, sizeof out->lacking, "%s sent no copy of %llu damaged op%s "
		    "that this store's hash chain proves", out->peer_name,
		    (unsigned long long)out->ops_lacking, out->ops_lacking == 1 ? "" : "s");
	return status;
}
