/* Versions: adding them, naming them (short ids, head~N), listing them
 * newest first by keyset, and the pointer to where the working tree is. */
#include "backend/history/history.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store/hash.h"
#include "model/array.h"

static const char SQL_VERSION_ADD[] =
    "INSERT INTO version(id, replica, counter, lamport, replica_id, time, utc_offset, author, "
    "message, previous, changes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
static const char SQL_PREVIOUS[] =
    "SELECT max(counter) FROM version WHERE replica = ?1 AND counter < ?2";
static const char SQL_NEIGHBOUR_BELOW[] =
    "SELECT id FROM version WHERE id < ?1 ORDER BY id DESC LIMIT 1";
static const char SQL_NEIGHBOUR_ABOVE[] = "SELECT id FROM version WHERE id > ?1 ORDER BY id LIMIT 1";
/* The newest version in total order: the one a record or a merge made
 * last, which holds the head state when any does. */
static const char SQL_NEWEST[] =
    "SELECT id FROM version ORDER BY lamport DESC, replica_id DESC, counter DESC LIMIT 1";
/* History as log lists it (hearth(1), log): newest first by the time each
 * version was recorded, ties (one second, or clocks that agree) broken by
 * the total order, so versions two replicas made at once interleave by
 * when they were made. Through the version_time index. */
#define HISTORY_ORDER "ORDER BY time DESC, lamport DESC, replica_id DESC, counter DESC"
static const char SQL_NTH_LISTED[] = "SELECT id FROM version " HISTORY_ORDER " LIMIT 1 OFFSET ?1";
static const char SQL_LISTED_ABOVE[] =
    "SELECT count(*) FROM version WHERE (time, lamport, replica_id, counter) > "
    "(SELECT time, lamport, replica_id, counter FROM version WHERE id = ?1)";
/* A version by a prefix of its id, or of the id an older build gave it
 * (version_alias, store format 7). */
static const char SQL_PREFIX[] =
    "SELECT id FROM version WHERE id >= ?1 AND id <= ?2 "
    "UNION SELECT id FROM version_alias WHERE old >= ?1 AND old <= ?2 LIMIT 2";
static const char SQL_ALIAS_ADD[] = "INSERT OR REPLACE INTO version_alias(old, id) VALUES(?1, ?2)";
static const char SQL_VERSION_ROW[] =
    "SELECT replica, counter, previous FROM version WHERE id = ?1";
static const char SQL_VERSION_LIST[] =
    "SELECT id, replica_id, counter, time, utc_offset, author, message, changes, lamport "
    "FROM version WHERE (?1 IS NULL OR (time, lamport, replica_id, counter) < (?6, ?1, ?2, ?3)) "
    "AND (?4 IS NULL OR instr(lower(message), lower(?4)) > 0) " HISTORY_ORDER " LIMIT ?5";
static const char SQL_VERSION_BY_ID[] =
    "SELECT id, replica_id, counter, time, utc_offset, author, message, changes, lamport "
    "FROM version WHERE id = ?1";
static const char SQL_VERSION_OF_OP[] = "SELECT id FROM version WHERE replica = ?1 AND counter = ?2";
static const char SQL_VERSION_KEY[] =
    "SELECT lamport, replica_id, counter, time FROM version WHERE id = ?1";

int
history_add_version(struct hearth *home, const struct op *commit, const struct buffer *encoded,
    char id_hex[HASH_HEX], struct hearth_error *error)
{
	struct hash id;
	sqlite3_stmt *statement;
	uint64_t previous = 0;

	struct hash alias;
	if (store_version_id(&home->store, commit, &id) != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot name the version of commit %llu: the "
		    "ops it names are not all held", (unsigned long long)commit->id.counter);
	hash_hex(&id, id_hex);
	/* The id an older build gives it still names it here. */
	store_version_id_1(encoded, &alias);
	statement = store_statement(&home->store, SQL_ALIAS_ADD);
	sqlite3_bind_blob(statement, 1, alias.bytes, HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, id.bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_DONE)
		return hearth_fail(error, HEARTH_FAILED, "cannot add the version: %s",
		    sqlite3_errmsg(home->store.db));
	int64_t replica = store_replica_number(&home->store, commit->id.replica, true);
	statement = store_statement(&home->store, SQL_PREVIOUS);
	sqlite3_bind_int64(statement, 1, replica);
	sqlite3_bind_int64(statement, 2, (int64_t)commit->id.counter);
	if (sqlite3_step(statement) == SQLITE_ROW)
		previous = (uint64_t)sqlite3_column_int64(statement, 0);
	sqlite3_reset(statement);

	statement = store_statement(&home->store, SQL_VERSION_ADD);
	sqlite3_bind_blob(statement, 1, id.bytes, HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 2, replica);
	sqlite3_bind_int64(statement, 3, (int64_t)commit->id.counter);
	sqlite3_bind_int64(statement, 4, (int64_t)commit->lamport);
	sqlite3_bind_blob(statement, 5, commit->id.replica.bytes, ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 6, commit->u.commit.time);
	sqlite3_bind_int(statement, 7, commit->u.commit.utc_offset);
	sqlite3_bind_text(statement, 8, commit->u.commit.author, -1, SQLITE_STATIC);
	sqlite3_bind_text(statement, 9, commit->u.commit.message, -1, SQLITE_STATIC);
	sqlite3_bind_int64(statement, 10, (int64_t)previous);
	/* A version's changes: the ops its author made since its last one. */
	sqlite3_bind_int64(statement, 11, (int64_t)(commit->id.counter - previous - 1));
	if (sqlite3_step(statement) != SQLITE_DONE)
		return hearth_fail(error, HEARTH_FAILED, "cannot add the version: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

static void
encode_vv(const struct vv *vv, struct buffer *out)
{
	buffer_reset(out);
	buffer_append_varint(out, vv->count);
	for (size_t i = 0; i < vv->count; i++) {
		buffer_append(out, vv->entries[i].replica.bytes, ID_BYTES);
		buffer_append_varint(out, vv->entries[i].counter);
	}
}

static int
decode_vv(const uint8_t *data, size_t length, struct vv *out)
{
	struct reader reader;
	uint64_t count;

	out->count = 0;
	reader_init(&reader, data, length);
	if (!reader_varint(&reader, &count) || count > OP_VV_MAX)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		struct replica_id replica;
		uint64_t counter;
		if (!reader_fixed(&reader, replica.bytes, ID_BYTES) || !reader_varint(&reader, &counter))
			return -1;
		vv_set(out, replica, counter);
	}
	return reader_at_end(&reader) ? 0 : -1;
}

int
history_set_tree(struct hearth *home, const struct vv *vv, const char *version_hex,
    struct hearth_error *error)
{
	struct buffer encoded;
	struct hash id;

	buffer_init(&encoded);
	encode_vv(vv, &encoded);
	int status = store_meta_set_blob(&home->store, "tree_vv", encoded.data, encoded.length);
	buffer_free(&encoded);
	if (status == 0 && version_hex[0] != '\0' && hex_decode(version_hex, id.bytes, HASH_BYTES))
		status = store_meta_set_blob(&home->store, "tree_version", id.bytes, HASH_BYTES);
	if (status != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot record where the tree is: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

int
history_get_tree(struct hearth *home, struct vv *vv, char version_hex[HASH_HEX])
{
	struct buffer encoded;
	struct hash id;
	int status = 0;

	buffer_init(&encoded);
	version_hex[0] = '\0';
	vv->count = 0;
	if (store_meta_get_buffer(&home->store, "tree_vv", &encoded) == 0)
		status = decode_vv(encoded.data, encoded.length, vv);
	buffer_free(&encoded);
	if (store_meta_get_blob(&home->store, "tree_version", id.bytes, HASH_BYTES) == 0)
		hash_hex(&id, version_hex);
	return status;
}

/* Leading hex digits two ids share. */
static int
common_hex_digits(const uint8_t *a, const uint8_t *b)
{
	int digits = 0;

	for (int i = 0; i < HASH_BYTES; i++) {
		if (a[i] == b[i]) {
			digits += 2;
			continue;
		}
		if ((a[i] >> 4) == (b[i] >> 4))
			digits++;
		break;
	}
	return digits;
}

static int
neighbour_digits(struct hearth *home, const char *sql, const struct hash *id)
{
	sqlite3_stmt *statement = store_statement(&home->store, sql);
	int digits = 0;

	sqlite3_bind_blob(statement, 1, id->bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_bytes(statement, 0) == HASH_BYTES)
		digits = common_hex_digits(id->bytes, sqlite3_column_blob(statement, 0));
	sqlite3_reset(statement);
	return digits;
}

void
history_short_id(struct hearth *home, const char *full_hex, char out[HASH_HEX])
{
	struct hash id;
	int below, above, length;

	snprintf(out, HASH_HEX, "%s", full_hex);
	if (!hex_decode(full_hex, id.bytes, HASH_BYTES))
		return;
	/* The closest ids in sorted order share the longest prefix with it. */
	below = neighbour_digits(home, SQL_NEIGHBOUR_BELOW, &id);
	above = neighbour_digits(home, SQL_NEIGHBOUR_ABOVE, &id);
	length = (below > above ? below : above) + 1;
	if (length < SHORT_ID_MIN)
		length = SHORT_ID_MIN;
	if (length > HASH_BYTES * 2)
		length = HASH_BYTES * 2;
	out[length] = '\0';
}

int
history_author_of_op(struct hearth *home, struct op_id op, char *author, size_t size,
    int64_t *time)
{
	sqlite3_stmt *statement = store_statement(&home->store,
	    "SELECT author, time FROM version WHERE replica = ?1 AND counter >= ?2 "
	    "ORDER BY counter LIMIT 1");
	int found = 0;

	author[0] = '\0';
	sqlite3_bind_int64(statement, 1, store_replica_number(&home->store, op.replica, false));
	sqlite3_bind_int64(statement, 2, (int64_t)op.counter);
	if (sqlite3_step(statement) == SQLITE_ROW) {
		const unsigned char *text = sqlite3_column_text(statement, 0);
		snprintf(author, size, "%s", text != NULL ? (const char *)text : "");
		if (time != NULL)
			*time = sqlite3_column_int64(statement, 1);
		found = 1;
	}
	sqlite3_reset(statement);
	return found;
}

uint64_t
history_version_count(struct hearth *home)
{
	return store_scalar(&home->store, "SELECT count(*) FROM version");
}

void
history_head_id(struct hearth *home, char out[HASH_HEX])
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NEWEST);

	out[0] = '\0';
	if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_bytes(statement, 0) == HASH_BYTES)
		hex_encode(sqlite3_column_blob(statement, 0), HASH_BYTES, out);
	sqlite3_reset(statement);
}

void
history_head_base(struct hearth *home, char out[HASH_HEX])
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NTH_LISTED);

	out[0] = '\0';
	sqlite3_bind_int64(statement, 1, 0);
	if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_bytes(statement, 0) == HASH_BYTES)
		hex_encode(sqlite3_column_blob(statement, 0), HASH_BYTES, out);
	sqlite3_reset(statement);
}

bool
history_covers_head(struct hearth *home, const struct vv *vv)
{
	struct vv head;
	bool covers = true;

	vv_init(&head);
	if (store_head_vv(&home->store, &head) != 0) {
		vv_free(&head);
		return false;
	}
	for (size_t i = 0; covers && i < head.count; i++) {
		uint64_t have = vv_get(vv, head.entries[i].replica);
		if (have >= head.entries[i].counter)
			continue;
		int64_t number = store_replica_number(&home->store, head.entries[i].replica, false);
		covers = !store_replica_has_change_after(&home->store, number, have);
	}
	vv_free(&head);
	return covers;
}

/* The vv of the version whose id is hex: from its COMMIT op. */
static int history_version_vv(struct hearth *home, const struct hash *id, struct history_version *out,
    const char *spec, struct hearth_error *error);

void
history_head(struct hearth *home, struct history_head *out)
{
	struct history_version newest;
	struct hearth_error ignored;
	struct vv head;

	memset(out, 0, sizeof *out);
	out->named = true;
	history_head_id(home, out->version);
	vv_init(&head);
	store_head_vv(&home->store, &head);
	memset(&newest, 0, sizeof newest);
	vv_init(&newest.vv);
	if (out->version[0] == '\0') {
		/* No version: head names ops only if some are held. */
		out->unnamed_ops = vv_ops_ahead(&newest.vv, &head);
		out->named = out->unnamed_ops == 0;
	} else if (hex_decode(out->version, newest.id.bytes, HASH_BYTES) &&
	    history_version_vv(home, &newest.id, &newest, out->version, &ignored) == 0 &&
	    !history_covers_head(home, &newest.vv)) {
		/* Shown past the version head~1 names, log's first: that may be
		 * another replica's, newer by its clock than the newest in total
		 * order. */
		out->named = false;
		out->unnamed_ops = vv_ops_ahead(&newest.vv, &head);
		history_head_base(home, out->version);
		if (hex_decode(out->version, newest.id.bytes, HASH_BYTES) &&
		    history_version_vv(home, &newest.id, &newest, out->version, &ignored) == 0)
			out->unnamed_ops = vv_ops_ahead(&newest.vv, &head);
	}
	history_version_free(&newest);
	vv_free(&head);
}

/* head, head~N, HEAD: the Nth newest version; -1 when spec is not one. */
static long
head_offset(const char *spec)
{
	if (strcasecmp(spec, "head") == 0)
		return 0;
	if (strncasecmp(spec, "head~", 5) != 0)
		return -1;
	const char *digits = spec + 5;
	if (*digits == '\0')
		return 1;	/* head~ means head~1, as in git */
	char *end;
	long offset = strtol(digits, &end, 10);
	return *end == '\0' && offset >= 0 ? offset : -1;
}

static int
find_by_prefix(struct hearth *home, const char *spec, struct hash *out, struct hearth_error *error)
{
	struct hash low, high;
	size_t length = strlen(spec);

	if (length < 4 || length > HASH_BYTES * 2 || !hex_is_prefix(spec))
		return hearth_fail(error, HEARTH_USAGE,
		    "'%s' is not a version: use head, head~N or an id (4 or more hex digits)", spec);
	memset(low.bytes, 0, HASH_BYTES);
	memset(high.bytes, 0xff, HASH_BYTES);
	for (size_t i = 0; i < length; i++) {
		int digit = isdigit((unsigned char)spec[i]) ? spec[i] - '0'
							   : tolower((unsigned char)spec[i]) - 'a' + 10;
		int shift = i % 2 ? 0 : 4;
		low.bytes[i / 2] = (uint8_t)((low.bytes[i / 2] & ~(0xf << shift)) | digit << shift);
		high.bytes[i / 2] = (uint8_t)((high.bytes[i / 2] & ~(0xf << shift)) | digit << shift);
	}
	sqlite3_stmt *statement = store_statement(&home->store, SQL_PREFIX);
	sqlite3_bind_blob(statement, 1, low.bytes, HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, high.bytes, HASH_BYTES, SQLITE_STATIC);
	int found = 0;
	while (sqlite3_step(statement) == SQLITE_ROW) {
		if (found++ == 0)
			memcpy(out->bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
	}
	sqlite3_reset(statement);
	if (found == 0)
		return hearth_fail(error, HEARTH_USAGE, "no version %s in this Home", spec);
	if (found > 1)
		return hearth_fail(error, HEARTH_USAGE, "%s names more than one version; give more digits",
		    spec);
	return 0;
}

/* head~N: N lines below head in log's order (head itself may sit below a
 * version whose clock ran ahead; head~N counts from where head is). */
static int
find_by_offset(struct hearth *home, const char *spec, long offset, const char *head,
    struct hash *out, struct hearth_error *error)
{
	struct hash head_id;
	int64_t above = 0;

	if (head != NULL && hex_decode(head, head_id.bytes, HASH_BYTES)) {
		sqlite3_stmt *count = store_statement(&home->store, SQL_LISTED_ABOVE);
		sqlite3_bind_blob(count, 1, head_id.bytes, HASH_BYTES, SQLITE_TRANSIENT);
		if (sqlite3_step(count) == SQLITE_ROW)
			above = sqlite3_column_int64(count, 0);
		sqlite3_reset(count);
	}
	sqlite3_stmt *statement = store_statement(&home->store, SQL_NTH_LISTED);
	sqlite3_bind_int64(statement, 1, above + offset);
	if (sqlite3_step(statement) != SQLITE_ROW) {
		sqlite3_reset(statement);
		return hearth_fail(error, HEARTH_USAGE, offset == 0 ? "no versions yet: %s names nothing"
								 : "%s: the history is not that long", spec);
	}
	memcpy(out->bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
	sqlite3_reset(statement);
	return 0;
}

static int
history_version_vv(struct hearth *home, const struct hash *id, struct history_version *out,
    const char *spec, struct hearth_error *error)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_VERSION_ROW);
	sqlite3_bind_blob(statement, 1, id->bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW) {
		sqlite3_reset(statement);
		return hearth_fail(error, HEARTH_DAMAGED, "version %s vanished", spec);
	}
	out->id = *id;
	out->replica_number = sqlite3_column_int64(statement, 0);
	out->counter = (uint64_t)sqlite3_column_int64(statement, 1);
	out->previous = (uint64_t)sqlite3_column_int64(statement, 2);
	sqlite3_reset(statement);

	struct op commit;
	struct arena arena;
	struct hearth_error failure;
	struct op_id op_id = { .counter = out->counter };
	arena_init(&arena, 4096);
	int held = store_replica_id(&home->store, out->replica_number, &op_id.replica) != 0 ? 0 :
	    store_get_op(&home->store, op_id, &commit, &arena, &failure);
	if (held != 1 || commit.kind != OP_COMMIT) {
		arena_free(&arena);
		if (held < 0)
			return hearth_fail(error, failure.code, "version %s: %s", spec, failure.message);
		return hearth_fail(error, HEARTH_DAMAGED, "the COMMIT op of version %s is missing or "
		    "damaged (run hearth fsck)", spec);
	}
	out->vv.count = 0;
	for (size_t i = 0; i < commit.u.commit.vv_count; i++)
		vv_set(&out->vv, commit.u.commit.vv_entries[i].replica,
		    commit.u.commit.vv_entries[i].counter);
	arena_free(&arena);
	return 0;
}

/* The unnamed head state as a version: every op held. */
static int
resolve_unnamed(struct hearth *home, struct history_version *out, struct hearth_error *error)
{
	out->unnamed = true;
	memset(out->id.bytes, 0, HASH_BYTES);
	if (store_head_vv(&home->store, &out->vv) != 0)
		return hearth_fail(error, HEARTH_FAILED, "cannot read the head state's version vector");
	return 0;
}

int
history_resolve(struct hearth *home, const char *spec, struct history_version *out,
    struct hearth_error *error)
{
	long offset = head_offset(spec);
	struct history_head head = { .named = false };
	struct hash id;
	int status;

	memset(out, 0, sizeof *out);
	vv_init(&out->vv);
	if (offset >= 0) {
		/* head counts the unnamed head state as the newest entry. */
		history_head(home, &head);
		if (!head.named && offset == 0)
			return resolve_unnamed(home, out, error);
		if (!head.named)
			offset--;
	}
	status = offset >= 0 ? find_by_offset(home, spec, offset, head.named ? head.version : NULL,
				   &id, error)
			     : find_by_prefix(home, spec, &id, error);
	if (status != 0)
		return status;
	return history_version_vv(home, &id, out, spec, error);
}

int
history_version_of_op(struct hearth *home, struct replica_id replica, uint64_t counter,
    struct history_version *out, struct hearth_error *error)
{
	struct hash id;

	memset(out, 0, sizeof *out);
	vv_init(&out->vv);
	sqlite3_stmt *statement = store_statement(&home->store, SQL_VERSION_OF_OP);
	sqlite3_bind_int64(statement, 1, store_replica_number(&home->store, replica, false));
	sqlite3_bind_int64(statement, 2, (int64_t)counter);
	bool found = sqlite3_step(statement) == SQLITE_ROW &&
	    sqlite3_column_bytes(statement, 0) == HASH_BYTES;
	if (found)
		memcpy(id.bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
	sqlite3_reset(statement);
	if (!found)
		return hearth_fail(error, HEARTH_DAMAGED, "no version is COMMIT op %llu of its replica "
		    "(run hearth fsck)", (unsigned long long)counter);
	return history_version_vv(home, &id, out, "before it", error);
}

void
history_version_free(struct history_version *version)
{
	vv_free(&version->vv);
}

/* ---- the public listing ------------------------------------------------------- */

static void
fill_version(struct hearth *home, sqlite3_stmt *statement, struct hearth_version *version,
    struct hearth_storage *storage)
{
	memset(version, 0, sizeof *version);
	hex_encode(sqlite3_column_blob(statement, 0), HASH_BYTES, version->id);
	hex_encode(sqlite3_column_blob(statement, 1), ID_BYTES, version->replica);
	version->counter = (uint64_t)sqlite3_column_int64(statement, 2);
	version->time = sqlite3_column_int64(statement, 3);
	version->utc_offset = sqlite3_column_int(statement, 4);
	version->author = storage_strdup(storage, (const char *)sqlite3_column_text(statement, 5));
	version->message = storage_strdup(storage, (const char *)sqlite3_column_text(statement, 6));
	version->changes = (uint64_t)sqlite3_column_int64(statement, 7);
	struct op_id made = { .counter = version->counter };
	memcpy(made.replica.bytes, sqlite3_column_blob(statement, 1), ID_BYTES);
	version->synced = !home_op_is_mine(home, made);
}

int
hearth_log(hearth *home, const struct hearth_log_query *query, struct hearth_version_list *out,
    struct hearth_error *error)
{
	struct hash before;
	size_t limit = query && query->limit ? query->limit : SIZE_MAX / 2;
	size_t capacity = limit < 256 ? limit + 1 : 256;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if (query != NULL && query->path != NULL)
		return history_log_path(home, query, out, error);
	sqlite3_stmt *statement;
	int64_t key_lamport = 0, key_counter = 0, key_time = 0;
	uint8_t key_replica[ID_BYTES];
	bool keyed = query != NULL && query->before != NULL;

	if (keyed) {
		if (!hex_decode(query->before, before.bytes, HASH_BYTES))
			return hearth_fail(error, HEARTH_USAGE, "'%s' is not a full version id",
			    query->before);
		statement = store_statement(&home->store, SQL_VERSION_KEY);
		sqlite3_bind_blob(statement, 1, before.bytes, HASH_BYTES, SQLITE_STATIC);
		if (sqlite3_step(statement) != SQLITE_ROW) {
			sqlite3_reset(statement);
			return hearth_fail(error, HEARTH_USAGE, "no version %s", query->before);
		}
		key_lamport = sqlite3_column_int64(statement, 0);
		memcpy(key_replica, sqlite3_column_blob(statement, 1), ID_BYTES);
		key_counter = sqlite3_column_int64(statement, 2);
		key_time = sqlite3_column_int64(statement, 3);
		sqlite3_reset(statement);
	}
	out->storage = storage_new();
	statement = store_statement(&home->store, SQL_VERSION_LIST);
	if (keyed) {
		sqlite3_bind_int64(statement, 1, key_lamport);
		sqlite3_bind_blob(statement, 2, key_replica, ID_BYTES, SQLITE_TRANSIENT);
		sqlite3_bind_int64(statement, 3, key_counter);
		sqlite3_bind_int64(statement, 6, key_time);
	}
	if (query != NULL && query->grep != NULL)
		sqlite3_bind_text(statement, 4, query->grep, -1, SQLITE_STATIC);
	/* One more than asked, to know whether more follow. */
	sqlite3_bind_int64(statement, 5, (int64_t)(limit + 1));
	out->items = array_alloc(capacity, sizeof *out->items);
	int step;
	while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
		if (out->count == limit) {
			out->more = true;
			break;
		}
		out->items = array_grow(out->items, &capacity, out->count + 1, sizeof *out->items);
		fill_version(home, statement, &out->items[out->count++], out->storage);
	}
	sqlite3_reset(statement);
	/* The items move into storage so one free releases everything. */
	struct hearth_version *items = storage_alloc(out->storage,
	    (out->count ? out->count : 1) * sizeof *items);
	memcpy(items, out->items, out->count * sizeof *items);
	free(out->items);
	out->items = items;
	for (size_t i = 0; i < out->count; i++)
		history_short_id(home, items[i].id, items[i].short_id);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		hearth_version_list_free(out);
		return hearth_fail(error, HEARTH_FAILED, "cannot read the history: %s",
		    sqlite3_errmsg(home->store.db));
	}
	return 0;
}

/* The unnamed head state as hearth_resolve lists it: "head" for its id, so
 * passing the id on names it again. */
static void
fill_unnamed(struct hearth *home, struct hearth_version_list *out)
{
	struct history_head head;
	char text[256], newest[HASH_HEX];

	history_head(home, &head);
	newest[0] = '\0';
	if (head.version[0] != '\0')
		history_short_id(home, head.version, newest);
	out->storage = storage_new();
	out->items = storage_alloc(out->storage, sizeof *out->items);
	out->count = 1;
	struct hearth_version *version = &out->items[0];
	memset(version, 0, sizeof *version);
	version->unnamed = true;
	snprintf(version->id, sizeof version->id, "head");
	snprintf(version->short_id, sizeof version->short_id, "head");
	snprintf(text, sizeof text, "The head state: %llu op%s past %s%s that no version names yet",
	    (unsigned long long)head.unnamed_ops, head.unnamed_ops == 1 ? "" : "s",
	    newest[0] ? "version " : "the empty Home", newest);
	version->author = storage_strdup(out->storage, "");
	version->message = storage_strdup(out->storage, text);
	version->changes = head.unnamed_ops;
}

int
hearth_resolve(hearth *home, const char *spec, struct hearth_version_list *out,
    struct hearth_error *error)
{
	struct history_version version;
	char hex[HASH_HEX];

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	int status = history_resolve(home, spec, &version, error);
	if (status != 0)
		return status;
	bool unnamed = version.unnamed;
	hash_hex(&version.id, hex);
	history_version_free(&version);
	if (unnamed) {
		fill_unnamed(home, out);
		return 0;
	}

	sqlite3_stmt *statement = store_statement(&home->store, SQL_VERSION_BY_ID);
	sqlite3_bind_blob(statement, 1, version.id.bytes, HASH_BYTES, SQLITE_STATIC);
	if (sqlite3_step(statement) != SQLITE_ROW) {
		sqlite3_reset(statement);
		return hearth_fail(error, HEARTH_DAMAGED, "version %s vanished", spec);
	}
	out->storage = storage_new();
	out->items = storage_alloc(out->storage, sizeof *out->items);
	fill_version(home, statement, &out->items[0], out->storage);
	sqlite3_reset(statement);
	out->count = 1;
	history_short_id(home, hex, out->items[0].short_id);
	return 0;
}

bool
history_tree_at_head(struct hearth *home)
{
	struct vv tree;
	char version[HASH_HEX];

	vv_init(&tree);
	bool holds = history_get_tree(home, &tree, version) == 0 &&
	    history_covers_head(home, &tree);
	vv_free(&tree);
	return holds;
}

int
hearth_head(hearth *home, struct hearth_head *out, struct hearth_error *error)
{
	struct history_head head;
	struct vv tree;
	char tree_version[HASH_HEX];

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	store_begin_read(&home->store);
	history_head(home, &head);
	snprintf(out->version, sizeof out->version, "%s", head.version);
	if (head.version[0] != '\0')
		history_short_id(home, head.version, out->short_id);
	out->named = head.named;
	out->unnamed_ops = head.unnamed_ops;
	vv_init(&tree);
	int status = history_get_tree(home, &tree, tree_version);
	out->tree_at_head = status == 0 && history_covers_head(home, &tree);
	vv_free(&tree);
	store_end_read(&home->store);
	if (status != 0)
		return hearth_fail(error, HEARTH_DAMAGED, "cannot read where the working tree is "
		    "(run hearth fsck)");
	return 0;
}

void
hearth_version_list_free(struct hearth_version_list *list)
{
	storage_free(list->storage);
	memset(list, 0, sizeof *list);
}

int
history_forget_versions(struct hearth *home)
{
	struct hearth_error failure;
	return store_exec(&home->store, "DELETE FROM version", &failure);
}

/* A join: each version row with its COMMIT's bytes (LEFT: a row whose op
 * is gone still shows, with no bytes). */
#define VERSION_ROWS "SELECT v.id, v.replica, v.counter, v.lamport, v.replica_id, v.time, " \
    "v.utc_offset, v.author, v.message, v.previous, v.changes, o.body FROM version v " \
    "LEFT JOIN op o ON o.replica = v.replica AND o.counter = v.counter AND o.kind = 3 "
static const char SQL_VERSION_ROWS[] = VERSION_ROWS "ORDER BY v.replica, v.counter";
static const char SQL_VERSION_ROWS_NEWEST[] =
    VERSION_ROWS "ORDER BY v.lamport DESC, v.replica_id DESC, v.counter DESC";

static void
read_version_row(sqlite3_stmt *statement, struct history_version_row *row)
{
	row->id = sqlite3_column_blob(statement, 0);
	row->id_length = (size_t)sqlite3_column_bytes(statement, 0);
	row->replica_number = sqlite3_column_int64(statement, 1);
	row->counter = (uint64_t)sqlite3_column_int64(statement, 2);
	row->lamport = (uint64_t)sqlite3_column_int64(statement, 3);
	row->replica_id = sqlite3_column_blob(statement, 4);
	row->replica_id_length = (size_t)sqlite3_column_bytes(statement, 4);
	row->time = sqlite3_column_int64(statement, 5);
	row->utc_offset = sqlite3_column_int64(statement, 6);
	row->author = (const char *)sqlite3_column_text(statement, 7);
	row->author_length = (size_t)sqlite3_column_bytes(statement, 7);
	row->message = (const char *)sqlite3_column_text(statement, 8);
	row->message_length = (size_t)sqlite3_column_bytes(statement, 8);
	row->previous = (uint64_t)sqlite3_column_int64(statement, 9);
	row->changes = (uint64_t)sqlite3_column_int64(statement, 10);
	bool held = sqlite3_column_type(statement, 11) != SQLITE_NULL;
	row->commit = held ? sqlite3_column_blob(statement, 11) : NULL;
	row->commit_length = held ? (size_t)sqlite3_column_bytes(statement, 11) : 0;
}

int
history_version_rows_each(struct hearth *home, bool newest_first,
    int (*visit)(void *context, const struct history_version_row *row), void *context)
{
	sqlite3_stmt *statement = store_statement(&home->store,
	    newest_first ? SQL_VERSION_ROWS_NEWEST : SQL_VERSION_ROWS);
	int status = 0;

	while (status == 0 && sqlite3_step(statement) == SQLITE_ROW) {
		struct history_version_row row;
		read_version_row(statement, &row);
		status = visit(context, &row);
	}
	sqlite3_reset(statement);
	return status;
}

bool
history_has_version(struct hearth *home, int64_t replica_number, uint64_t counter)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_VERSION_OF_OP);

	sqlite3_bind_int64(statement, 1, replica_number);
	sqlite3_bind_int64(statement, 2, (sqlite3_int64)counter);
	bool found = sqlite3_step(statement) == SQLITE_ROW;
	sqlite3_reset(statement);
	return found;
}

/* A join: version ids, read against the op table. */
static const char SQL_VERSIONS_OF_NODE[] =
    "SELECT DISTINCT (SELECT v.id FROM version v WHERE v.replica = o.replica AND "
    "v.counter >= o.counter ORDER BY v.counter LIMIT 1) FROM op o WHERE o.node = ?1 AND o.kind != 3";

void
history_versions_of_node(struct hearth *home, struct node_id node, struct hash **ids,
    size_t *count, size_t *capacity)
{
	sqlite3_stmt *statement = store_statement(&home->store, SQL_VERSIONS_OF_NODE);

	sqlite3_bind_blob(statement, 1, node.bytes, ID_BYTES, SQLITE_TRANSIENT);
	while (sqlite3_step(statement) == SQLITE_ROW) {
		if (sqlite3_column_bytes(statement, 0) != HASH_BYTES)
			continue;
		*ids = array_grow(*ids, capacity, *count + 1, sizeof **ids);
		memcpy((*ids)[(*count)++].bytes, sqlite3_column_blob(statement, 0), HASH_BYTES);
	}
	sqlite3_reset(statement);
}
