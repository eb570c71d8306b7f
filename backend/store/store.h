/* The store (docs/DESIGN.md §5): one SQLite database, store.db, holding replicas,
 * ops, the history, the materialized head state, the working-tree index and
 * the chunk index; content itself lives in packs (pack.h). This module owns
 * the schema, its migrations, prepared statements and transactions. */
#ifndef HEARTH_BACKEND_STORE_H
#define HEARTH_BACKEND_STORE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/buffer.h"
#include "model/id.h"
#include "model/op.h"
#include "backend/store/pack.h"

struct hash_state;

/* 'HRTH' */
#define STORE_APPLICATION_ID 0x48525448
#define STORE_SCHEMA_VERSION 8
/* How long a writer waits for another's transaction before giving up. */
#define STORE_BUSY_TIMEOUT_MS 10000

struct store {
	sqlite3 *db;
	char path[4096];
	enum config_durability durability;
	/* The database's flush on commit: what the mode asks (config_durability_
	 * rules), off between store_sync_relax and store_sync_restore; synced
	 * is what the connection was last set to. */
	bool sync_relaxed;
	bool synced;
	bool in_transaction;
	bool wide_cache;		/* the page cache of write transactions */
	/* Opened on a full disk: the WAL index in this process's memory (an
	 * exclusive lock, no -shm to grow), for reading; store_begin refuses. */
	bool no_space;
	/* Prepared statements, found by the address of their SQL text. */
	struct store_statement {
		const char *sql;
		sqlite3_stmt *statement;
	} *statements;
	size_t statement_count, statement_capacity;
	/* Every replica's id by local number (index = number - 1): the table
	 * is small and read on every decode of a head list. */
	struct replica_id *replicas;
	size_t replica_count;
	/* The chain of the op last stored per replica number (index = number
	 * - 1), valid inside one write transaction: a batch of 100 000 ops
	 * chains each on the one before without reading it back. */
	struct store_chain_tip {
		uint64_t counter;	/* 0: none known */
		struct hash chain;
	} *chain_tips;
	size_t chain_tip_count, chain_tip_capacity;
	struct hash_state *chain_hasher;	/* reused by store_chain_next */
	/* HEARTH_SQL_SCANS: where each statement run that stepped through a
	 * whole table or index is noted (store_connect), while noting. */
	bool noting_scans;
	int scan_notes;
};

/* An mtime in a column: an INTEGER when it fits 64 bits (every time
 * before 2262, all an older build stored), else 16 bytes big-endian, so no
 * column had to change. */
void store_bind_mtime(sqlite3_stmt *statement, int index, op_mtime value);
op_mtime store_column_mtime(sqlite3_stmt *statement, int column);

/* Opens (creating with create) store.db at path and migrates it. */
int store_open(struct store *store, const char *path, bool create,
    enum config_durability durability, struct hearth_error *error);
void store_close(struct store *store);

/* A cached prepared statement, reset and with bindings cleared. sql must be
 * a string literal (its address is the cache key). Aborts on a bad
 * statement: SQL text is ours, so that is a bug, not an input error. */
sqlite3_stmt *store_statement(struct store *store, const char *sql);

/* Writes a crash may lose (statistics, a status line) commit without the
 * database's flush: store_sync_relax turns it off, store_sync_restore puts
 * back what the durability mode asks. Neither may be called inside a
 * transaction (SQLite refuses, and so they fail). Should a restore fail,
 * the next store_begin restores first or refuses: no transaction commits
 * unflushed under a mode that asks for flushes. */
int store_sync_relax(struct store *store, struct hearth_error *error);
int store_sync_restore(struct store *store, struct hearth_error *error);

int store_begin(struct store *store, struct hearth_error *error);
/* store_begin for a transaction that changes few rows: it keeps the read
 * page cache (8 MiB) instead of raising it to 64 MiB. */
int store_begin_small(struct store *store, struct hearth_error *error);
/* store_begin without waiting: -1 at once when another connection holds
 * the write lock (a watch must never make the app wait behind a record). */
int store_try_begin(struct store *store);
/* A read snapshot: every query until store_end_read sees one state of the
 * store, even while a writer commits (WAL). Nests inside nothing. */
int store_begin_read(struct store *store);
void store_end_read(struct store *store);
int store_commit(struct store *store, struct hearth_error *error);
void store_rollback(struct store *store);
/* Runs SQL with no result rows. */
int store_exec(struct store *store, const char *sql, struct hearth_error *error);
/* Writes "what: sqlite message" to error and returns -1. */
int store_fail(struct store *store, const char *what, struct hearth_error *error);

/* meta: small named values. */
int store_meta_get_blob(struct store *store, const char *key, void *out, size_t size);
int store_meta_get_int(struct store *store, const char *key, int64_t *out);
int store_meta_get_buffer(struct store *store, const char *key, struct buffer *out);
int store_meta_set_blob(struct store *store, const char *key, const void *data, size_t size);
int store_meta_set_int(struct store *store, const char *key, int64_t value);
int store_meta_add_int(struct store *store, const char *key, int64_t delta);
int store_meta_delete(struct store *store, const char *key);	/* none there is no error */

/* The first column of a one-row query (sql a literal, as for
 * store_statement), 0 when there is no row: for the owners' counts. */
uint64_t store_scalar(struct store *store, const char *sql);
/* Every op stored, of every replica. */
uint64_t store_op_count(struct store *store);
/* A count that moves when another connection commits to the store
 * (PRAGMA data_version); this connection's own commits leave it. */
uint64_t store_data_version(struct store *store);

/* Replicas get small local numbers so ops and heads stay compact. */
int64_t store_replica_number(struct store *store, struct replica_id id, bool create);
int store_replica_id(struct store *store, int64_t number, struct replica_id *out);
/* Every replica with an op held: its number, id and highest counter
 * (*out the caller's to free; count 0 and NULL when none). */
struct store_replica_held {
	int64_t number;
	struct replica_id id;
	uint64_t counter;
};
void store_replicas_held(struct store *store, struct store_replica_held **out, size_t *count);
/* Whether the replica made an op other than a COMMIT after counter. */
bool store_replica_has_change_after(struct store *store, int64_t number, uint64_t counter);
/* Highest counter held for a replica (0 if none). */
uint64_t store_replica_counter(struct store *store, int64_t number);
uint64_t store_max_lamport(struct store *store);
/* The version vector of every op held: the head's. */
int store_head_vv(struct store *store, struct vv *out);

/* Op storage. Ops are written encoded, with their id, lamport, kind and node
 * broken out for the indexes. The replica's counter is raised apart, once a
 * batch (store_replica_raise), not once an op. */
int store_put_op(struct store *store, const struct op *op, const struct buffer *encoded,
    int64_t replica_number);
int store_replica_raise(struct store *store, int64_t replica_number, uint64_t counter);

/* The op hash chain (store_chain.c): chain(R, c) = SHA-256(chain(R, c - 1)
 * || encoding of op (R, c)), chain(R, 0) all zeros. store_put_op keeps it
 * in the op's row. */
void store_chain_next(struct store *store, const struct hash *previous, const void *body,
    size_t length, struct hash *out);
/* chain(replica, counter) as stored; -1 when that op (or its chain) is not held. */
int store_op_chain(struct store *store, int64_t replica_number, uint64_t counter,
    struct hash *out);
/* chain(replica, counter) for op (replica, counter) encoded, from the one
 * before it; -1 when that is not held. */
int store_chain_extend(struct store *store, int64_t replica_number, uint64_t counter,
    const struct buffer *encoded, struct hash *out);
/* Drops the chain tips remembered (a transaction ended or rolled back). */
void store_chain_forget(struct store *store);
/* Schema 4's migration: the chain of every op held. Inside its transaction. */
int store_chain_migrate(struct store *store, struct hearth_error *error);
/* A version's id (schema 7): SHA-256 of a tag, the chain of its COMMIT
 * (which hashes the COMMIT's own bytes, its version vector among them, and
 * every op its replica made before it) and the chain at each entry of its
 * version vector, so the id commits to every byte of every op the version
 * names: two stores that give one version one id hold one tree for it.
 * The ops must be held (and chained); -1 when one is not. */
int store_version_id(struct store *store, const struct op *commit, struct hash *out);
/* The id older builds gave a version: SHA-256 of its COMMIT's encoding
 * alone; kept in version_alias so an id they showed still names it. */
void store_version_id_1(const struct buffer *encoded, struct hash *out);
/* Schema 7's migration: every version takes its new id, its old one kept
 * as an alias (and the tree's version follows). Inside its transaction. */
int store_version_ids_migrate(struct store *store, struct hearth_error *error);
/* Loads and decodes one op into arena, its bytes checked against its hash
 * chain. Returns 1 found, 0 missing, -1 error (damaged: named in error). */
int store_get_op(struct store *store, struct op_id id, struct op *out, struct arena *arena,
    struct hearth_error *error);

/* A walk over rows of the op table, each selection in its own order (one
 * selection, one statement: the functions below open it, store_ops_next
 * steps it, store_ops_close ends it). A row's body is valid until the
 * next step. */
struct store_ops {
	sqlite3_stmt *statement;
	struct store *store;
	bool owned;		/* prepared for this walk alone: finalized on close */
	bool failed;		/* a step failed or a row was damaged (not the end of the rows) */
	bool raw;		/* set after opening: rows as stored, unchecked (fsck's own walk) */
	/* The op whose bytes did not match its hash chain, where the walk stopped
	 * (damaged_counter 0: none). */
	int64_t damaged_replica;
	uint64_t damaged_counter;
	enum op_kind damaged_kind;	/* as its row names it */
	/* The row read last and its chain, which the next row chains on when
	 * it is the op after it. */
	int64_t carried_replica;
	uint64_t carried_counter;
	struct hash carried_chain;
};
struct store_op_row {
	int64_t replica_number;
	uint64_t counter, lamport;
	enum op_kind kind;
	int status;		/* what placement made of it (docs/DESIGN.md §4.6) */
	struct node_id node;	/* zero for a COMMIT */
	int node_length;	/* bytes the node column holds, -1 when NULL (fsck) */
	const void *body;
	size_t body_length;
	struct hash chain;	/* zero when has_chain is false */
	bool has_chain;
};
/* The ops of kind about node, in no order; applied_only: those placement
 * applied (status 0). */
void store_ops_of_node(struct store *store, struct node_id node, enum op_kind kind,
    bool applied_only, struct store_ops *out);
/* The ops of kind, node by node, each node's newest first (lamport, then
 * counter, descending). */
void store_ops_by_node_newest(struct store *store, enum op_kind kind, struct store_ops *out);
/* The ops of kind with a lamport of at least lamport, in no order. */
void store_ops_of_kind_since(struct store *store, enum op_kind kind, uint64_t lamport,
    struct store_ops *out);
/* Every op, by replica and counter. */
void store_ops_all(struct store *store, struct store_ops *out);
/* Every COMMIT, by replica and counter. */
void store_ops_commits(struct store *store, struct store_ops *out);
/* Every op of kind, in no order. */
void store_ops_of_kind(struct store *store, enum op_kind kind, struct store_ops *out);
/* Every op but COMMITs, in no order. */
void store_ops_changes(struct store *store, struct store_ops *out);
/* The ops but COMMITs replica number made up to counter, in no order. */
void store_ops_changes_upto(struct store *store, int64_t number, uint64_t counter,
    struct store_ops *out);
/* The ops replica number made after counter, by counter, on a statement of
 * the walk's own (many such walks may be open at once): -1 when it cannot
 * be prepared (sqlite3_errmsg says why). */
int store_ops_after(struct store *store, int64_t number, uint64_t counter,
    struct store_ops *out);
/* The next row: true with it in *row, false at the end, or on a failed
 * step or a damaged row, which set ops->failed. Each row's bytes are
 * checked against its hash chain as they are read (docs/DESIGN.md §5,
 * "Ops checked on read"), unless ops->raw: a row that does not match
 * stops the walk, named in damaged_replica and damaged_counter. */
bool store_ops_next(struct store_ops *ops, struct store_op_row *row);
/* 0 when the walk read every row; -1 with error saying why it stopped
 * (a damaged op named, with what mends it). */
int store_ops_status(const struct store_ops *ops, struct hearth_error *error);
void store_ops_close(struct store_ops *ops);
/* Closes the walk and says how it went: status when the caller stopped it
 * for a reason of its own (nonzero), else 0 when it read every row, or the
 * API code of error, filled with why it stopped. */
int store_ops_end(struct store_ops *ops, int status, struct hearth_error *error);
/* One op's row, without its body (row->body NULL) unless with_body: 1
 * found, 0 not held. As stored, unchecked: fsck --repair's read. */
int store_op_row_get(struct store *store, int64_t number, uint64_t counter, bool with_body,
    struct store_op_row *row);
/* What placement made of op (number, counter). */
int store_op_set_status(struct store *store, int64_t number, uint64_t counter, int status);
/* fsck --repair: an op's bytes fetched again, and the chain they prove. */
int store_op_set_body(struct store *store, int64_t number, uint64_t counter, const void *body,
    size_t length, const struct hash *chain);
/* fsck --repair: an op row's lamport, kind and node as its bytes say
 * (node NULL for a COMMIT); *changed whether the row held others. */
int store_op_set_facts(struct store *store, int64_t number, uint64_t counter, uint64_t lamport,
    enum op_kind kind, const struct node_id *node, bool *changed);

/* Compact lists of op ids (heads, seen sets) as (replica number, counter)
 * varint pairs: the form the node and entry tables keep. */
void store_encode_op_ids(struct store *store, const struct op_id *ids, size_t count,
    struct buffer *out);
int store_decode_op_ids(struct store *store, const void *data, size_t length,
    struct op_id **ids, size_t *count, struct arena *arena);

/* The cost counters of hearth_stats, kept in meta. */
int store_count_transaction(struct store *store);

#endif
