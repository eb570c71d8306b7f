/* Property test of incremental integration (docs/DESIGN.md §4.6): random
 * multi-replica histories are delivered to a real store in random
 * causally closed batches (what some replica knew up to some point, less
 * what was delivered), in random orders and splits; after every batch the
 * head state must equal state_derive over the ops delivered so far, and
 * delivering a batch again must change nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store/hash.h"
#include "backend/disk/home.h"
#include "backend/history/integrate.h"
#include "backend/history/verify.h"
#include "tests/unit/history_gen.h"
#include "tests/unit/tap.h"

struct run {
	hearth *home;
	struct buffer problems;
	size_t problem_count;
};

static void
collect(void *context, const char *line)
{
	struct run *run = context;
	if (run->problem_count++ < 5)
		buffer_printf(&run->problems, "%s\n", line);
}

/* Opens the Home at dir, making it first if needed, and empties its
 * history: one Home serves every run (making one costs several flushes). */
static hearth *
open_home(const char *dir)
{
	struct hearth_init_options init = { .dir = dir };
	struct hearth_open_options open = { .start_dir = dir };
	struct hearth_error error;
	hearth *home;
	struct hearth_error failure;

	if (hearth_open(&home, &open, &error) != 0 &&
	    (hearth_init(&init, &error) != 0 || hearth_open(&home, &open, &error) != 0)) {
		tap_diag("cannot make a Home in %s: %s", dir, error.message);
		return NULL;
	}
	/* Scratch stores need no flushes. */
	if (store_sync_relax(&home->store, &failure) != 0 ||
	    store_exec(&home->store, "DELETE FROM op; DELETE FROM node; "
		"DELETE FROM conflict; DELETE FROM version; UPDATE replica SET counter = 0",
		&failure) != 0) {
		tap_diag("cannot empty %s: %s", dir, failure.message);
		hearth_close(home);
		return NULL;
	}
	return home;
}

static int
deliver(hearth *home, const struct op *ops, size_t count, struct integrate_result *result)
{
	struct hearth_error error;
	struct hearth_error failure;

	if (store_begin(&home->store, &failure) != 0)
		return -1;
	if (integrate_ops(home, ops, count, result, &error) != 0) {
		tap_diag("integrate failed: %s", error.message);
		store_rollback(&home->store);
		return -1;
	}
	return store_commit(&home->store, &failure);
}

/* The whole node and conflict tables as bytes, to see that nothing moved. */
static void
dump_tables(hearth *home, struct buffer *out)
{
	static const char *const queries[] = {
		"SELECT * FROM node ORDER BY id",
		"SELECT * FROM conflict ORDER BY kind, node, op_replica, op_counter",
	};

	buffer_reset(out);
	for (size_t q = 0; q < sizeof queries / sizeof *queries; q++) {
		sqlite3_stmt *statement;
		sqlite3_prepare_v2(home->store.db, queries[q], -1, &statement, NULL);
		while (sqlite3_step(statement) == SQLITE_ROW) {
			for (int column = 0; column < sqlite3_column_count(statement); column++) {
				const void *bytes = sqlite3_column_blob(statement, column);
				int length = sqlite3_column_bytes(statement, column);
				buffer_append_varint(out, (uint64_t)length);
				if (length > 0)
					buffer_append(out, bytes, (size_t)length);
			}
		}
		sqlite3_finalize(statement);
	}
}

/* The head state against state_derive of what was delivered. */
static bool
check_equal(struct run *run, const struct op *delivered, size_t count)
{
	struct state state;

	state_derive(delivered, count, &state);
	run->problem_count = 0;
	verify_head_state(run->home, &state, collect, run);
	state_free(&state);
	return run->problem_count == 0;
}

/* Delivers the whole history in random causally closed batches. */
static bool
run_history(uint64_t seed, const char *dir, size_t *batches_out, size_t *slow_out)
{
	struct history history;
	struct history_random random;
	struct run run = { 0 };
	bool good = true;

	history_gen_generate(&history, seed, false);
	history_gen_random_seed(&random, seed ^ 0x5eed);
	run.home = open_home(dir);
	buffer_init(&run.problems);
	if (run.home == NULL) {
		history_gen_free(&history);
		return false;
	}
	uint8_t *delivered = calloc(history.count + 1, 1);
	struct op *batch = malloc((history.count + 1) * sizeof *batch);
	struct op *sofar = malloc((history.count + 1) * sizeof *sofar);
	struct op *previous = malloc((history.count + 1) * sizeof *previous);
	size_t delivered_count = 0, previous_count = 0;
	struct buffer before, after;
	buffer_init(&before);
	buffer_init(&after);

	while (good && delivered_count < history.count) {
		int replica = (int)history_gen_random_below(&random,
		    (uint64_t)history.replica_count);
		size_t prefix = 1 + (size_t)history_gen_random_below(&random, history.count);
		size_t count = 0;
		/* What the replica knew among the first `prefix` ops made: a
		 * causally closed set, as a sync would bring. */
		for (size_t i = 0; i < prefix; i++)
			if (!delivered[i] && history.replicas[replica].known[i])
				batch[count++] = history.ops[i];
		if (count == 0)
			continue;
		history_gen_shuffle(&random, batch, count);
		struct integrate_result result;
		if (deliver(run.home, batch, count, &result) != 0) {
			good = false;
			break;
		}
		for (size_t i = 0; i < prefix; i++)
			if (history.replicas[replica].known[i] && !delivered[i]) {
				delivered[i] = 1;
				sofar[delivered_count++] = history.ops[i];
			}
		(*batches_out)++;
		for (size_t i = 0; i < count; i++)
			if (batch[i].kind == OP_PLACE && batch[i].u.place.kind == NODE_DIR)
				(*slow_out)++;
		if (!check_equal(&run, sofar, delivered_count)) {
			tap_diag("seed %llu: after a batch of %zu ops (%zu delivered):\n%s",
			    (unsigned long long)seed, count, delivered_count,
			    buffer_string(&run.problems));
			good = false;
			break;
		}
		/* Delivering an earlier batch again changes nothing. */
		if (previous_count > 0 && history_gen_random_below(&random, 3) == 0) {
			dump_tables(run.home, &before);
			if (deliver(run.home, previous, previous_count, &result) != 0 ||
			    result.ops_new != 0) {
				tap_diag("seed %llu: a repeated batch was taken as new",
				    (unsigned long long)seed);
				good = false;
				break;
			}
			dump_tables(run.home, &after);
			if (before.length != after.length ||
			    memcmp(before.data, after.data, before.length) != 0) {
				tap_diag("seed %llu: a repeated batch changed the head state",
				    (unsigned long long)seed);
				good = false;
			}
		}
		memcpy(previous, batch, count * sizeof *batch);
		previous_count = count;
	}
	buffer_free(&before);
	buffer_free(&after);
	buffer_free(&run.problems);
	free(delivered);
	free(batch);
	free(sofar);
	free(previous);
	hearth_close(run.home);
	history_gen_free(&history);
	return good;
}

static uint64_t
environment_number(const char *name, uint64_t fallback)
{
	const char *text = getenv(name);
	return text != NULL && *text ? strtoull(text, NULL, 10) : fallback;
}

/* A refused batch: a gap in a replica's counters, or a supersede of an op
 * nobody sent. Both leave the store as it was. */
static void
test_refusals(void)
{
	char dir[4200];
	struct history history;
	struct integrate_result result;

	snprintf(dir, sizeof dir, "%s/refusals", tap_scratch_dir());
	hearth *home = open_home(dir);
	if (home == NULL) {
		ok(false, "a Home for the refusal tests");
		return;
	}
	history_gen_init(&history, 2, 7);
	struct node_id folder = history_gen_create(&history, 0, NODE_ROOT, "folder", NODE_DIR);
	struct node_id file = history_gen_create(&history, 0, folder, "file", NODE_FILE);
	history_gen_edit(&history, 0, file);
	ok(history.count >= 4, "a small history to tamper with (%zu ops)", history.count);
	ok(deliver(home, history.ops + 1, history.count - 1, &result) != 0,
	    "a batch that skips its replica's first op is refused");
	ok(deliver(home, history.ops, history.count, &result) == 0 &&
	    result.ops_new == history.count,
	    "the whole history then goes in");
	struct op forged = history.ops[history.count - 1];
	struct op_id unknown = { .replica = forged.id.replica, .counter = 999 };
	forged.id.counter = history.count + 1;
	forged.lamport += 10;
	forged.supersedes = &unknown;
	forged.supersedes_count = 1;
	ok(deliver(home, &forged, 1, &result) != 0,
	    "an op superseding an op nobody sent is refused");
	hearth_close(home);
	history_gen_free(&history);
}

int
main(void)
{
	uint64_t seed = environment_number("HEARTH_PROPERTY_SEED", 20261129);
	uint64_t count = environment_number("HEARTH_PROPERTY_COUNT", 500);
	size_t passed = 0, batches = 0, folder_places = 0;
	char dir[4200];

	test_refusals();
	snprintf(dir, sizeof dir, "%s/home", tap_scratch_dir());
	for (uint64_t i = 0; i < count; i++) {
		if (!run_history(seed + i, dir, &batches, &folder_places)) {
			tap_diag("rerun with HEARTH_PROPERTY_SEED=%llu HEARTH_PROPERTY_COUNT=1",
			    (unsigned long long)(seed + i));
			break;
		}
		passed++;
	}
	ok(passed == count, "%llu random histories integrate equal to state_derive after every "
	    "batch (%zu passed, %zu batches, %zu folder PLACEs)", (unsigned long long)count, passed,
	    batches, folder_places);
	return tap_done();
}
