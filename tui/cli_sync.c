/* hearth sync PEER | --all, hearth serve PATH, hearth peers: syncing with
 * other replicas of the Home, the remote end of a sync, and what the last
 * sync with each peer did. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "tui/cli.h"

/* What a sync does with what it brings (auto_checkout, --checkout, --yes). */
enum apply_mode { APPLY_NONE, APPLY_LIMITED, APPLY_WITH_DELETES };

static const char *
plural(uint64_t count)
{
	return count == 1 ? "" : "s";
}

/* Stable for scripts (hearth(1)): "key value" lines, one sync per block,
 * blocks separated by an empty line. */
static void
print_porcelain(const struct hearth_sync_result *result, const struct hearth_error *failure)
{
	printf("peer %s\nurl %s\n", result->peer_name, result->url);
	printf("status %s\n", failure != NULL ? "failed" : "ok");
	if (failure != NULL)
		printf("error %s\n", failure->message);
	printf("protocol %u\nops_sent %llu\nops_received %llu\nversions_sent %llu\n"
	       "versions_received %llu\nchunks_sent %llu\nchunks_received %llu\n"
	       "chunk_bytes_sent %llu\nchunk_bytes_received %llu\nbytes_sent %llu\n"
	       "bytes_received %llu\nlocal_ahead %llu\nremote_ahead %llu\nhead_ahead %llu\n"
	       "head_changes %llu\nfiles_merged %llu\n",
	    result->protocol, (unsigned long long)result->ops_sent,
	    (unsigned long long)result->ops_received, (unsigned long long)result->versions_sent,
	    (unsigned long long)result->versions_received, (unsigned long long)result->chunks_sent,
	    (unsigned long long)result->chunks_received,
	    (unsigned long long)result->chunk_bytes_sent,
	    (unsigned long long)result->chunk_bytes_received,
	    (unsigned long long)result->bytes_sent, (unsigned long long)result->bytes_received,
	    (unsigned long long)result->local_ahead, (unsigned long long)result->remote_ahead,
	    (unsigned long long)result->head_ahead, (unsigned long long)result->head_changes,
	    (unsigned long long)result->files_merged);
	printf("conflicts_new %llu\n", (unsigned long long)result->conflicts_new);
	for (int kind = 1; kind < HEARTH_CONFLICT_KINDS; kind++)
		if (result->conflicts_new_by_kind[kind] > 0)
			printf("conflicts_new_%s %llu\n",
			    hearth_conflict_kind_name((enum hearth_conflict_kind)kind),
			    (unsigned long long)result->conflicts_new_by_kind[kind]);
}

static void
print_direction(const char *verb, uint64_t ops, uint64_t versions, uint64_t chunks,
    uint64_t chunk_bytes, uint64_t wire_bytes)
{
	char content[32], wire[32];

	progress_format_bytes(chunk_bytes, content, sizeof content);
	progress_format_bytes(wire_bytes, wire, sizeof wire);
	printf("  %s %llu op%s (%llu version%s), %llu chunk%s (%s); %s on the wire\n", verb,
	    (unsigned long long)ops, plural(ops), (unsigned long long)versions, plural(versions),
	    (unsigned long long)chunks, plural(chunks), content, wire);
}

static void
print_human(const struct hearth_sync_result *result, bool applying)
{
	bool same = strcmp(result->peer_name, result->url) == 0;

	printf("Synced with %s%s%s%s.\n", result->peer_name, same ? "" : " (", same ? "" : result->url,
	    same ? "" : ")");
	print_direction("received", result->ops_received, result->versions_received,
	    result->chunks_received, result->chunk_bytes_received, result->bytes_received);
	print_direction("sent    ", result->ops_sent, result->versions_sent, result->chunks_sent,
	    result->chunk_bytes_sent, result->bytes_sent);
	if (result->files_merged > 0)
		printf("Merged concurrent edits of %llu file%s by line (a version of its own: "
		       "`hearth log`).\n", (unsigned long long)result->files_merged,
		    plural(result->files_merged));
	if (result->local_ahead > 0 || result->remote_ahead > 0)
		printf("Still apart (a record ran meanwhile?): this replica has %llu op%s the peer "
		       "lacks, the peer %llu.\n", (unsigned long long)result->local_ahead,
		    plural(result->local_ahead), (unsigned long long)result->remote_ahead);
	char conflicts[256];
	progress_new_conflicts(result->conflicts_new, result->conflicts_new_by_kind, conflicts,
	    sizeof conflicts);
	if (conflicts[0] != '\0')
		printf("The sync brought %s: `hearth conflicts` lists them, `hearth resolve` "
		       "settles them.\n", conflicts);
	if (result->head_changes > 0 && !applying)
		printf("Head has %llu change%s the working tree lacks: `hearth checkout` applies "
		       "%s.\n", (unsigned long long)result->head_changes, plural(result->head_changes),
		    result->head_changes == 1 ? "it" : "them");
}

/* auto_checkout: bring head into the tree, recording local changes first;
 * more deletes than max_delete allows wait for --yes (or a checkout). */
static int
apply_head(struct cli *cli, bool allow_deletes, bool porcelain)
{
	struct hearth_checkout_result result;
	struct hearth_error error;
	struct hearth_progress progress = cli_progress(cli);
	int status = hearth_apply_head(cli->home, allow_deletes, &progress, &result, &error);

	cli_progress_done(cli);
	if (status == 0 && porcelain)
		printf("checkout %.12s\nrecorded %s\nwritten %llu\nremoved %llu\nmoved %llu\n",
		    result.version, result.recorded[0] ? result.recorded : "-",
		    (unsigned long long)result.written, (unsigned long long)result.removed,
		    (unsigned long long)result.moved);
	else if (status == 0) {
		if (result.recorded[0] != '\0')
			printf("Recorded local changes first as %.8s.\n", result.recorded);
		char arrived[64];
		cli_format_arrived(result.prefilled, arrived, sizeof arrived);
		printf("Checked out %.8s: %llu written%s, %llu removed, %llu moved.\n", result.version,
		    (unsigned long long)result.written, arrived, (unsigned long long)result.removed,
		    (unsigned long long)result.moved);
	}
	hearth_checkout_result_free(&result);
	if (status != 0)
		return cli_fail(&error);
	return 0;
}

static int
sync_one(struct cli *cli, const char *peer, enum hearth_sync_direction direction,
    bool porcelain, int apply)
{
	struct hearth_sync_options options = { .peer = peer, .direction = direction,
		.checkout_after = apply != APPLY_NONE };
	struct hearth_progress progress = cli_progress(cli);
	struct hearth_sync_result result;
	struct hearth_error error;

	if (porcelain)
		progress.report = NULL;
	int status = hearth_sync(cli->home, &options, &progress, &result, &error);
	cli_progress_done(cli);
	if (porcelain)
		print_porcelain(&result, status == 0 ? NULL : &error);
	else if (status == 0)
		print_human(&result, apply != APPLY_NONE);
	if (status != 0)
		return cli_fail_peer(cli, &error, peer);
	if (apply == APPLY_NONE || result.head_ahead == 0)
		return 0;
	return apply_head(cli, apply == APPLY_WITH_DELETES, porcelain);
}

static const struct cli_option sync_options[] = {
	{ 'a', "--all", NULL, "sync with every peer in the config, one after the other" },
	{ 'p', "--pull", NULL, "only take in what the peer has" },
	{ 'P', "--push", NULL, "only give the peer what it lacks" },
	{ 'r', "--porcelain", NULL, "stable output for scripts: \"key value\" lines" },
	{ 'c', "--checkout", NULL, "check out what the sync brought (auto_checkout: true does too)" },
	{ 'n', "--no-checkout", NULL, "leave the working tree as it is, whatever auto_checkout says" },
	{ 'y', "--yes", NULL, "record and check out even when that deletes more than max_delete allows" },
	{ 0 },
};

static int
cli_sync(struct cli *cli, int argc, char **argv)
{
	enum hearth_sync_direction direction = HEARTH_SYNC_BOTH;
	bool all = false, porcelain = false, yes = false;
	int checkout = -1;	/* -1: as the config's auto_checkout says */
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option == 'a')
			all = true;
		else if (option == 'p')
			direction = direction == HEARTH_SYNC_PUSH ? HEARTH_SYNC_BOTH : HEARTH_SYNC_PULL;
		else if (option == 'P')
			direction = direction == HEARTH_SYNC_PULL ? HEARTH_SYNC_BOTH : HEARTH_SYNC_PUSH;
		else if (option == 'r')
			porcelain = true;
		else if (option == 'c' || option == 'n')
			checkout = option == 'c';
		else if (option == 'y')
			yes = true;
		else
			return cli_option_error(cli, option, argv);
	}
	/* Options end at PEER (a peer's name is the config's, any text). */
	if (!all && optind + 1 < argc && argv[optind + 1][0] == '-')
		return cli_usage_error(cli, "options go before PEER: hearth sync [OPTIONS] PEER");
	if (all ? optind != argc : optind + 1 != argc)
		return cli_usage_error(cli, all ? "--all takes no PEER"
							     : "sync needs one PEER (or --all)");
	int status = cli_open(cli);
	if (status != 0)
		return status;
	const struct config *config = hearth_config(cli->home);
	if (checkout < 0)
		checkout = config->auto_checkout;
	/* A push brings nothing to check out. */
	int apply = !checkout || direction == HEARTH_SYNC_PUSH ? APPLY_NONE
	    : yes ? APPLY_WITH_DELETES : APPLY_LIMITED;
	if (!all)
		return sync_one(cli, argv[optind], direction, porcelain, apply);

	if (config->peer_count == 0) {
		fprintf(stderr, "hearth: no peers in the config (peers: in %s)\n",
		    config->source_path ? config->source_path : "the config");
		return 1;
	}
	/* Every peer gets its turn even when one fails; the worst status wins. */
	int worst = 0;
	for (size_t i = 0; i < config->peer_count; i++) {
		if (i > 0)
			putchar('\n');
		status = sync_one(cli, config->peers[i].name, direction, porcelain, apply);
		if (status > worst)
			worst = status;
		fflush(stdout);
	}
	return worst;
}

const struct cli_command cli_sync_entry = {
	.name = "sync",
	.usage = "[--pull | --push] [--checkout | --no-checkout] [--yes] [--porcelain] PEER | --all",
	.summary = "exchange what each side lacks with another replica",
	.options = sync_options,
	.run = cli_sync,
	.options_first = true,
};

static int
cli_serve(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	if (argc != 2)
		return cli_usage_error(cli, "serve needs the PATH of a Home");
	/* Standard output carries the protocol: nothing else may reach it. */
	struct hearth_serve_options options = {
		.path = argv[1], .in_fd = STDIN_FILENO, .out_fd = STDOUT_FILENO,
	};
	struct hearth_error error;
	if (hearth_serve(&options, &error) != 0)
		return cli_fail(&error);
	return 0;
}

const struct cli_command cli_serve_entry = {
	.name = "serve",
	.usage = "PATH",
	.summary = "the remote end of a sync: the protocol on stdin and stdout",
	.options = cli_no_options,
	.run = cli_serve,
};

static void
format_when(int64_t when, char *out, size_t size)
{
	struct tm local;
	time_t seconds = (time_t)when;

	if (when == 0) {
		snprintf(out, size, "never");
		return;
	}
	localtime_r(&seconds, &local);
	cli_format_time(when, (int32_t)local.tm_gmtoff, out, size);
}

/* One line a peer, tab-separated (hearth(1) documents the columns):
 * name, url, configured, replica, last attempt, last success (unix
 * seconds), ops sent, ops received, bytes sent, bytes received, local
 * ahead, remote ahead, last error. */
static void
print_peer_porcelain(const struct hearth_peer_status *peer)
{
	printf("%s\t%s\t%d\t%s\t%lld\t%lld\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t", peer->name,
	    peer->url, peer->configured ? 1 : 0, peer->replica[0] ? peer->replica : "-",
	    (long long)peer->last_attempt, (long long)peer->last_success,
	    (unsigned long long)peer->ops_sent, (unsigned long long)peer->ops_received,
	    (unsigned long long)peer->bytes_sent, (unsigned long long)peer->bytes_received,
	    (unsigned long long)peer->local_ahead, (unsigned long long)peer->remote_ahead);
	for (const char *at = peer->last_error; *at != '\0'; at++)
		putchar(*at == '\t' || *at == '\n' ? ' ' : *at);
	putchar('\n');
}

static void
print_peer(const struct hearth_peer_status *peer)
{
	char when[80], sent[32], received[32];

	printf("%s%s %s\n", peer->name, peer->configured ? "" : " (not in the config)", peer->url);
	if (peer->last_attempt == 0) {
		printf("  never synced\n");
		return;
	}
	format_when(peer->last_success, when, sizeof when);
	progress_format_bytes(peer->bytes_sent, sent, sizeof sent);
	progress_format_bytes(peer->bytes_received, received, sizeof received);
	printf("  last success: %s", when);
	if (peer->last_success != 0)
		printf("; sent %llu op%s (%s), received %llu op%s (%s)",
		    (unsigned long long)peer->ops_sent, plural(peer->ops_sent), sent,
		    (unsigned long long)peer->ops_received, plural(peer->ops_received), received);
	putchar('\n');
	if (peer->last_error[0] != '\0') {
		format_when(peer->last_attempt, when, sizeof when);
		printf("  last attempt failed: %s: %s\n", when, peer->last_error);
	}
	if (peer->local_ahead > 0 || peer->remote_ahead > 0)
		printf("  since then: this replica has %llu op%s it lacks, it has %llu\n",
		    (unsigned long long)peer->local_ahead, plural(peer->local_ahead),
		    (unsigned long long)peer->remote_ahead);
	else if (peer->last_error[0] == '\0')
		printf("  in step as of the last sync\n");
}

static const struct cli_option peers_options[] = {
	{ 'p', "--porcelain", NULL, "stable output for scripts: one tab-separated line a peer" },
	{ 0 },
};

static int
cli_peers(struct cli *cli, int argc, char **argv)
{
	bool porcelain = false;
	int option;

	while ((option = cli_next_option(cli, argc, argv)) != -1) {
		if (option != 'p')
			return cli_option_error(cli, option, argv);
		porcelain = true;
	}
	if (optind < argc)
		return cli_usage_error(cli, "unknown argument %s", argv[optind]);
	int status = cli_open(cli);
	if (status != 0)
		return status;
	struct hearth_peer_list peers;
	struct hearth_error error;
	if (hearth_peers(cli->home, &peers, &error) != 0)
		return cli_fail(&error);
	if (peers.count == 0 && !porcelain)
		printf("No peers. Add some under peers: in the config, or run `hearth sync PATH|URL`.\n");
	for (size_t i = 0; i < peers.count; i++) {
		if (porcelain)
			print_peer_porcelain(&peers.items[i]);
		else
			print_peer(&peers.items[i]);
	}
	hearth_peer_list_free(&peers);
	return 0;
}

const struct cli_command cli_peers_entry = {
	.name = "peers",
	.usage = "[--porcelain]",
	.summary = "list the peers and what their last sync did",
	.options = peers_options,
	.run = cli_peers,
};
