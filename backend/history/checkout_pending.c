/* A resolve's pending paths (checkout.h): kept in the store's meta table
 * by the resolve's own transaction and written by the next command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/checkout.h"
#include "backend/history/checkout_parts.h"
#include "model/array.h"

static const char PENDING_KEY[] = "pending_checkout";

static bool
has_pending(struct hearth *home, struct buffer *out)
{
	return store_meta_get_buffer(&home->store, PENDING_KEY, out) == 0 && out->length > 0 &&
	    out->length % ID_BYTES == 0;
}

int
checkout_clear_pending(struct hearth *home, struct hearth_error *error)
{
	struct buffer pending;

	buffer_init(&pending);
	bool present = has_pending(home, &pending);
	buffer_free(&pending);
	if (present && store_meta_set_blob(&home->store, PENDING_KEY, "", 0) != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot clear the pending paths: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

int
checkout_set_pending(struct hearth *home, const struct node_id *nodes, size_t count,
    struct hearth_error *error)
{
	struct buffer pending;

	buffer_init(&pending);
	for (size_t i = 0; i < count; i++)
		buffer_append(&pending, nodes[i].bytes, ID_BYTES);
	int status = store_meta_set_blob(&home->store, PENDING_KEY, pending.data, pending.length);
	buffer_free(&pending);
	if (status != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot keep the paths to write: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

/* Drops the pending set in a transaction of its own. */
static int
drop_pending(struct hearth *home, struct hearth_error *error)
{
	struct hearth_error failure;

	if (store_begin(&home->store, &failure) != 0)
		return hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	int status = checkout_clear_pending(home, error);
	if (status == 0 && store_commit(&home->store, &failure) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	if (status != 0)
		store_rollback(&home->store);
	return status;
}

int
checkout_write_pending(struct hearth *home, uint64_t *moved, struct hearth_error *error)
{
	struct hearth_error ignored;
	struct hearth_checkout_result result;
	struct buffer pending;

	buffer_init(&pending);
	if (!has_pending(home, &pending) || home_require_roots(home, &ignored) != 0) {
		buffer_free(&pending);
		return 0;
	}
	size_t count = pending.length / ID_BYTES;
	struct node_id *nodes = array_alloc(count, sizeof *nodes);
	for (size_t i = 0; i < count; i++)
		memcpy(nodes[i].bytes, pending.data + i * ID_BYTES, ID_BYTES);
	buffer_free(&pending);
	int status = checkout_nodes(home, nodes, count, NULL, &result, error);
	if (status == 0 && moved != NULL)
		*moved = result.moved;
	hearth_checkout_result_free(&result);
	free(nodes);
	if (status == HEARTH_REFUSED) {
		hearth_error_clear(error);
		return drop_pending(home, error);
	}
	return status;
}

int
checkout_finish_pending(struct hearth *home, struct hearth_error *error)
{
	int status = checkout_write_pending(home, NULL, error);

	if (status != 0) {
		char first[HEARTH_ERROR_MAX];
		snprintf(first, sizeof first, "%s", error->message);
		return hearth_fail(error, error->code, "an interrupted resolve or record left paths "
		    "to write, and they could not be written: %s; nothing else was done", first);
	}
	return 0;
}
