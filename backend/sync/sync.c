/* Sync (docs/DESIGN.md §8): hearth_sync (the client) and hearth_serve (the other
 * end) speaking the framed protocol of wire.h over a transport.
 *
 * One connection, two halves. After HELLO both ways, the server sends the
 * ops the client lacks (pull), then the client sends the ops the server
 * lacks (push), then the server says DONE. Each half runs the same two
 * functions: sync_send on the side that has the ops, sync_receive on the
 * side that lacks them:
 *
 *   sender:   OPS and BLOB frames, in total order, then OPS_END
 *   receiver: WANT frames naming the chunks it lacks, then WANT_END
 *   sender:   one CHUNK frame per wanted chunk, in that order, then CHUNKS_END
 *
 * (an OPS_END of 0 ends the half at once). Only one side writes at a time,
 * so full pipes can never deadlock the two. The receiver streams chunks
 * into one new pack, checks every hash, and commits ops, chunk index and
 * head state in one transaction after the pack is durable; anything wrong
 * before that rolls it all back and the orphan pack is collected at the
 * next lock. Held chunks are never asked for, so the sender never reads
 * them. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/disk/prefill.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/sync/peer.h"
#include "backend/sync/sync.h"
#include "backend/sync/sync_session.h"
#include "model/array.h"

/* ---- the client ------------------------------------------------------------------------- */

static int sync_serve_config(const char *path, char *config_path, size_t size,
    struct hearth_error *error);

/* The error about the config's peer number index, its name and the config
 * file put before what is wrong. */
static int
sync_peer_failed(const struct config *config, size_t index, struct hearth_error *error)
{
	char reason[HEARTH_ERROR_MAX];

	snprintf(reason, sizeof reason, "%s", error->message);
	return hearth_fail(error, error->code, "peer '%s' (peers: in %s): %s",
	    config->peers[index].name,
	    config->source_path != NULL ? config->source_path : "the config", reason);
}

/* Parses the URL of the config's peer number index (transport_parse). */
static int
sync_parse_configured(const struct config *config, size_t index,
    struct transport_address *address, struct hearth_error *error)
{
	if (transport_parse(config->peers[index].url, address, error) == 0)
		return 0;
	return sync_peer_failed(config, index, error);
}

/* The peer option as a config name, a URL or a path; fills name and url. */
int
sync_resolve_peer(struct hearth *home, const char *peer, struct hearth_sync_result *out,
    struct transport_address *address, struct hearth_error *error)
{
	const struct config *config = home->config;
	const char *url = peer;
	size_t configured = config->peer_count;
	int status;

	for (size_t i = 0; i < config->peer_count; i++) {
		if (strcmp(config->peers[i].name, peer) == 0) {
			snprintf(out->peer_name, sizeof out->peer_name, "%s", peer);
			url = config->peers[i].url;
			configured = i;
			break;
		}
	}
	if (url == peer && strstr(peer, "://") == NULL && access(peer, F_OK) != 0 &&
	    strchr(peer, ':') == NULL)
		return hearth_fail(error, HEARTH_USAGE, "'%s' is neither a peer in the config (peers: "
		    "in %s) nor a folder here", peer,
		    config->source_path != NULL ? config->source_path : "the config");
	if (configured < config->peer_count)
		status = sync_parse_configured(config, configured, address, error);
	else
		status = transport_parse(url, address, error);
	if (status != 0)
		return status;
	if (address->kind == TRANSPORT_LOCAL)
		snprintf(out->url, sizeof out->url, "%s", address->path);
	else
		snprintf(out->url, sizeof out->url, "%s", url);
	/* A URL that is a configured peer's keeps that peer's name. */
	for (size_t i = 0; i < config->peer_count && out->peer_name[0] == '\0'; i++) {
		struct transport_address other;
		struct hearth_error ignored;
		if (strcmp(config->peers[i].url, out->url) == 0 ||
		    (transport_parse(config->peers[i].url, &other, &ignored) == 0 &&
			other.kind == TRANSPORT_LOCAL && address->kind == TRANSPORT_LOCAL &&
			strcmp(other.path, address->path) == 0))
			snprintf(out->peer_name, sizeof out->peer_name, "%s", config->peers[i].name);
	}
	if (out->peer_name[0] == '\0')
		snprintf(out->peer_name, sizeof out->peer_name, "%s", out->url);
	if (address->kind == TRANSPORT_LOCAL) {
		/* The same Home under another name would claim our replica id. */
		char state[PATH_MAX];
		for (size_t i = 0; i < home->root_count; i++)
			if (strcmp(home->roots[i].path, address->path) == 0)
				return hearth_fail(error, HEARTH_USAGE, "%s is this Home itself", peer);
		if (realpath(home->location.state_path, state) != NULL &&
		    strcmp(state, address->path) == 0)
			return hearth_fail(error, HEARTH_USAGE, "%s is this Home itself", peer);
		/* Said here, before its serve starts, so the message is this one
		 * whenever the serve's own would arrive. */
		char config_path[PATH_MAX + 32];
		if (sync_serve_config(address->path, config_path, sizeof config_path, error) != 0)
			return configured < config->peer_count ?
			    sync_peer_failed(config, configured, error) : (int)error->code;
	}
	return 0;
}

void
sync_peer_command(struct hearth *home, const char *name, bool batch,
    struct transport_command *out)
{
	const struct config *config = home->config;

	*out = (struct transport_command){ .ssh = config->ssh_command, .batch = batch };
	for (size_t i = 0; i < config->peer_count; i++) {
		if (strcmp(config->peers[i].name, name) != 0)
			continue;
		out->peer_name = config->peers[i].name;
		out->remote = config->peers[i].remote_command;
		if (config->peers[i].ssh_command != NULL)
			out->ssh = config->peers[i].ssh_command;
	}
}

static uint32_t
sync_flags(enum hearth_sync_direction direction)
{
	switch (direction) {
	case HEARTH_SYNC_PULL:
		return WIRE_PULL;
	case HEARTH_SYNC_PUSH:
		return WIRE_PUSH;
	default:
		return WIRE_PULL | WIRE_PUSH;
	}
}

static int
sync_read_done(struct sync_session *session, struct vv *theirs_after)
{
	struct hearth_error failure;
	uint64_t ops_new;
	int status = sync_read(session);

	if (status != 0)
		return status;
	if (session->frame.type != WIRE_DONE)
		return sync_unexpected(session, "DONE");
	if (!wire_decode_done(session->frame.payload, session->frame.length, &ops_new, theirs_after,
		&failure))
		return sync_bad_frame(session, failure.message);
	return 0;
}

static int
sync_client_run(struct sync_session *session, uint32_t flags, struct vv *theirs_after)
{
	int status;

	if ((status = sync_start(session, flags)) != 0)
		return status;
	if ((flags & WIRE_PULL) && (status = sync_receive(session, false)) != 0)
		return status;
	if ((flags & WIRE_PUSH) && (status = sync_send(session, &session->theirs.vv)) != 0)
		return status;
	return sync_read_done(session, theirs_after);
}

static void
sync_fill_result(struct sync_session *session, struct hearth_sync_result *out)
{
	out->protocol = session->protocol;
	out->ops_sent = session->ops_sent;
	out->ops_received = session->ops_received;
	out->versions_sent = session->versions_sent;
	out->versions_received = session->versions_received;
	out->chunks_sent = session->chunks_sent;
	out->chunks_received = session->chunks_received;
	out->chunk_bytes_sent = session->chunk_bytes_sent;
	out->chunk_bytes_received = session->chunk_bytes_received;
	out->files_merged = session->files_merged;
	out->bytes_sent = session->transport.bytes_written;
	out->bytes_received = session->transport.bytes_read;
	if (session->have_theirs) {
		snprintf(out->peer_software, sizeof out->peer_software, "%s",
		    session->theirs.software);
		replica_id_hex(session->theirs.replica, out->peer_replica);
	}
}

/* How far each side is ahead, from our vv now and theirs (after DONE, or
 * as of HELLO when the sync failed). The paths head changes are counted
 * only for a caller that does not check them out next: a count reads the
 * whole index and head (a quarter second at 100k files), and the
 * checkout's own report says what it wrote. */
static void
sync_fill_ahead(struct sync_session *session, const struct vv *theirs, bool checkout_after,
    struct hearth_sync_result *out)
{
	struct vv ours, tree;
	char version[HASH_HEX];

	vv_init(&ours);
	vv_init(&tree);
	store_begin_read(&session->home->store);
	if (store_head_vv(&session->home->store, &ours) == 0) {
		out->local_ahead = vv_ops_ahead(theirs, &ours);
		out->remote_ahead = vv_ops_ahead(&ours, theirs);
		if (history_get_tree(session->home, &tree, version) == 0)
			out->head_ahead = vv_ops_ahead(&tree, &ours);
		if (out->head_ahead > 0 && !checkout_after)
			out->head_changes = head_pending_changes(session->home);
	}
	store_end_read(&session->home->store);
	vv_free(&ours);
	vv_free(&tree);
}

static void
sync_save_outcome(struct sync_session *session, const struct hearth_sync_result *result,
    int status)
{
	struct hearth_error ignored;
	struct peer_outcome outcome = {
		.name = result->peer_name, .url = result->url,
		.replica = session->have_theirs ? &session->theirs.replica : NULL,
		.error = status == 0 ? NULL : session->error->message,
		.ops_sent = result->ops_sent, .ops_received = result->ops_received,
		.bytes_sent = result->bytes_sent, .bytes_received = result->bytes_received,
		.local_ahead = result->local_ahead, .remote_ahead = result->remote_ahead,
		.ahead_known = session->have_theirs,
	};

	/* The outcome is a courtesy for `hearth peers`: failing to save it
	 * does not change what the sync did. */
	peer_record(session->home, &outcome, &ignored);
}

int
hearth_sync(hearth *home, const struct hearth_sync_options *options,
    const struct hearth_progress *progress, struct hearth_sync_result *out,
    struct hearth_error *error)
{
	struct sync_session session;
	struct transport_address address;
	struct vv theirs_after;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if ((status = sync_resolve_peer(home, options->peer, out, &address, error)) != 0)
		return status;
	if ((status = home_lock(home, "sync", error)) != 0)
		return status;
	/* A clone's prefill is the clone's; this sync's is freed below
	 * unless a checkout will take it. */
	bool made_prefill = options->checkout_after && options->direction != HEARTH_SYNC_PUSH &&
	    home->prefill == NULL && (home->prefill = prefill_new(home)) != NULL;
	sync_session_init(&session, home, progress, error);
	session.peer = out->peer_name;
	vv_init(&theirs_after);
	struct buffer conflicts_before;
	buffer_init(&conflicts_before);
	store_begin_read(&home->store);
	head_conflict_keys(home, &conflicts_before);
	store_end_read(&home->store);
	struct transport_command command;
	sync_peer_command(home, out->peer_name, options->batch, &command);
	status = transport_open(&session.transport, &address, options->program, &command, error);
	if (status == 0) {
		sync_watch_transport(&session);
		status = sync_finish(&session,
		    sync_client_run(&session, sync_flags(options->direction), &theirs_after));
	}
	/* Ctrl-C reaches the ssh beside us too: a peer gone because the user
	 * cancelled is a cancel, not a broken connection. */
	if (status != 0 && status != HEARTH_CANCELLED && sync_cancelled(&session))
		status = sync_fail(&session, HEARTH_CANCELLED, "sync cancelled");
	sync_fill_result(&session, out);
	if (session.have_theirs)
		sync_fill_ahead(&session, status == 0 ? &theirs_after : &session.theirs.vv,
		    options->checkout_after && options->direction != HEARTH_SYNC_PUSH, out);
	/* A failed sync may still have taken in its first half. */
	store_begin_read(&home->store);
	out->conflicts_new = head_conflicts_new(home, &conflicts_before, out->conflicts_new_by_kind,
	    HEARTH_CONFLICT_KINDS);
	store_end_read(&home->store);
	buffer_free(&conflicts_before);
	sync_save_outcome(&session, out, status);
	if (made_prefill && (status != 0 || out->head_ahead == 0)) {
		prefill_free(home->prefill);
		home->prefill = NULL;
	}
	home_unlock(home);
	vv_free(&theirs_after);
	sync_session_free(&session);
	return status;
}

/* ---- asking a peer whose Home it is ------------------------------------------------------ */

int
sync_probe(const char *url, const char *program, const struct transport_command *command,
    struct sync_identity *out, struct hearth_error *error)
{
	struct transport_address address;
	struct sync_session session;
	struct vv done_vv;
	struct hearth_error failure;
	int status;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	if ((status = transport_parse(url, &address, error)) != 0)
		return status;
	/* A session without a Home: zero home and replica ids, an empty vv. */
	struct hearth *none = array_zeroed(1, sizeof *none);
	sync_session_init(&session, none, NULL, error);
	session.peer = url;
	vv_init(&done_vv);
	status = transport_open(&session.transport, &address, program, command, error);
	if (status == 0) {
		if ((status = sync_send_hello(&session, 0)) == 0 &&
		    (status = sync_read_hello(&session)) == 0 &&
		    !wire_negotiate(WIRE_PROTOCOL_MIN, WIRE_PROTOCOL_MAX,
			session.theirs.protocol_min, session.theirs.protocol_max, &session.protocol,
			&failure))
			status = sync_fail(&session, HEARTH_FAILED, "%s (%s): %s", url,
			    session.theirs.software, failure.message);
		if (status == 0)
			status = sync_read_done(&session, &done_vv);
		status = sync_finish(&session, status);
	}
	if (status == 0) {
		memcpy(out->home, session.theirs.home, ID_BYTES);
		out->replica = session.theirs.replica;
		snprintf(out->software, sizeof out->software, "%s", session.theirs.software);
		out->protocol = session.protocol;
	}
	vv_free(&done_vv);
	sync_session_free(&session);
	free(none);
	return status;
}

/* ---- the server --------------------------------------------------------------------------- */

/* serve's PATH as open options: a config file, a folder holding
 * config.yaml (a Home's .hearth), or a Home's top folder (its marker names
 * the config). */
static int
sync_serve_config(const char *path, char *config_path, size_t size, struct hearth_error *error)
{
	char expanded[PATH_MAX], probe[PATH_MAX + 32];
	struct stat status;
	const char *home = getenv("HOME");

	if ((strcmp(path, "~") == 0 || strncmp(path, "~/", 2) == 0) && home != NULL)
		snprintf(expanded, sizeof expanded, "%s%s", home, path + 1);
	else
		snprintf(expanded, sizeof expanded, "%s", path);
	if (stat(expanded, &status) != 0)
		return hearth_fail_errno(error, "cannot serve %s", expanded);
	if (S_ISREG(status.st_mode)) {
		snprintf(config_path, size, "%s", expanded);
		return 0;
	}
	snprintf(probe, sizeof probe, "%s/config.yaml", expanded);
	if (access(probe, R_OK) == 0) {
		snprintf(config_path, size, "%s", probe);
		return 0;
	}
	snprintf(probe, sizeof probe, "%s/" HOME_DIR_NAME "/" HOME_MARKER_NAME, expanded);
	const char *why;
	FILE *marker = home_fopen_regular(probe, &why);
	if (marker == NULL)
		return hearth_fail(error, HEARTH_NOT_A_HOME, "%s is not a Home: no "
		    HOME_DIR_NAME "/ there (give a Home's folder or its config file)", expanded);
	char line[4200];
	config_path[0] = '\0';
	while (fgets(line, sizeof line, marker) != NULL) {
		if (strncmp(line, "config:", 7) != 0)
			continue;
		char *value = line + 7 + strspn(line + 7, " ");
		value[strcspn(value, "\n")] = '\0';
		if (value[0] == '/')
			snprintf(config_path, size, "%s", value);
		else
			snprintf(config_path, size, "%s/%s", expanded, value);
	}
	fclose(marker);
	if (config_path[0] == '\0')
		return hearth_fail(error, HEARTH_FAILED, "%s: the marker names no config", probe);
	return 0;
}

int
hearth_check_peer(const struct config *config, size_t index, struct hearth_error *error)
{
	struct transport_address address;
	char config_path[PATH_MAX + 32];

	hearth_error_clear(error);
	int status = sync_parse_configured(config, index, &address, error);
	if (status != 0 || address.kind != TRANSPORT_LOCAL)
		return status;
	/* A local peer must be a Home, as its serve will look for one. */
	if (sync_serve_config(address.path, config_path, sizeof config_path, error) != 0)
		return sync_peer_failed(config, index, error);
	return 0;
}

/* The server's checks answer with its HELLO first, so the client can say
 * in its own words what does not match; then the refusal. */
static int
sync_serve_session(struct sync_session *session)
{
	int status;

	if ((status = sync_read_hello(session)) != 0)
		return status;
	uint32_t flags = session->theirs.flags;
	if ((status = sync_read_ours(session)) != 0)
		return status;
	if ((status = sync_send_hello(session, 0)) != 0)
		return status;
	/* A zero home asking for nothing: a new replica learning whose Home
	 * this is (sync_probe). It is told, and nothing else happens. */
	static const uint8_t no_home[ID_BYTES];
	bool probe = flags == 0 && memcmp(session->theirs.home, no_home, ID_BYTES) == 0;
	if (!probe && (status = sync_check_hello(session)) != 0)
		return status;
	struct hearth_error failure;
	if (probe && !wire_negotiate(WIRE_PROTOCOL_MIN, WIRE_PROTOCOL_MAX,
	    session->theirs.protocol_min, session->theirs.protocol_max, &session->protocol,
	    &failure))
		return sync_fail(session, HEARTH_FAILED, "%s", failure.message);
	if ((flags & ~WIRE_FLAGS_KNOWN) != 0)
		return sync_fail(session, HEARTH_FAILED, "the client asked for unknown things (flags "
		    "%#x)", flags);
	if ((flags & WIRE_FETCH) && (flags != WIRE_FETCH || session->protocol < WIRE_PROTOCOL_FETCH))
		return sync_fail(session, HEARTH_FAILED, "the client asked to fetch chunks %s",
		    flags != WIRE_FETCH ? "and to sync at once" : "in protocol 1, which cannot");
	if ((flags & WIRE_FETCH) && (status = sync_serve_fetch(session)) != 0)
		return status;
	if ((flags & WIRE_REFETCH) && (flags != (WIRE_PULL | WIRE_REFETCH) ||
	    session->protocol < WIRE_PROTOCOL_CHAINS))
		return sync_fail(session, HEARTH_FAILED, "the client asked to fetch its own ops %s",
		    flags != (WIRE_PULL | WIRE_REFETCH) ? "and to do more at once" :
		    "in a protocol without op hash chains");
	session->refetch = (flags & WIRE_REFETCH) != 0;
	if ((flags & WIRE_PULL) && (status = sync_send(session, &session->theirs.vv)) != 0)
		return status;
	if ((flags & WIRE_PUSH) && (status = sync_receive(session, true)) != 0)
		return status;
	struct vv after;
	vv_init(&after);
	store_begin_read(&session->home->store);
	status = store_head_vv(&session->home->store, &after);
	store_end_read(&session->home->store);
	if (status != 0) {
		vv_free(&after);
		return sync_fail(session, HEARTH_FAILED, "cannot read this replica's version vector");
	}
	size_t start = wire_begin(&session->out, WIRE_DONE);
	wire_encode_done(&session->out, session->ops_new, &after);
	vv_free(&after);
	if ((status = sync_queued(session, start)) != 0)
		return status;
	return sync_flush(session);
}

int
hearth_serve(const struct hearth_serve_options *options, struct hearth_error *error)
{
	struct hearth_open_options open_options = { 0 };
	struct sync_session session;
	char config_path[PATH_MAX + 32];
	hearth *home = NULL;
	int status;

	hearth_error_clear(error);
	status = sync_serve_config(options->path, config_path, sizeof config_path, error);
	if (status == 0) {
		open_options.config_path = config_path;
		status = hearth_open(&home, &open_options, error);
	}
	sync_session_init(&session, home, NULL, error);
	session.peer = "the client";
	transport_attach(&session.transport, options->in_fd, options->out_fd, "the client");
	if (status == 0)
		status = sync_serve_session(&session);
	if (status != 0)
		sync_send_error(&session);
	transport_close(&session.transport, NULL);
	sync_session_free(&session);
	if (home != NULL)
		home_unlock(home);
	hearth_close(home);
	return status;
}
