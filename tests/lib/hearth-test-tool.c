/* One helper binary that reaches the backend's internals from the shell
 * tests, in the manner of git's t/helper/test-tool: a table of subcommands,
 * each a few lines over an internal API. Never installed. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/history/blob.h"
#include "backend/store/hash.h"
#include "backend/history/compare.h"
#include "backend/history/history.h"
#include "backend/history/path_scope.h"
#include "backend/history/tree.h"
#include "backend/disk/home.h"
#include "backend/store/pack.h"
#include "backend/sync/sync.h"
#include "backend/sync/wire.h"
#include "model/array.h"
#include "model/op.h"
#include "model/state.h"

static int
tool_hash(int argc, char **argv)
{
	struct hash digest;
	uint64_t size;
	char hex[HASH_HEX];

	if (argc != 2) {
		fputs("usage: hearth-test-tool hash FILE\n", stderr);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	struct hash_state *state = hash_begin();
	uint8_t block[65536];
	ssize_t n;
	size = 0;
	while ((n = read(fd, block, sizeof block)) > 0) {
		hash_update(state, block, (size_t)n);
		size += (uint64_t)n;
	}
	hash_finish(state, &digest);
	close(fd);
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	hash_hex(&digest, hex);
	printf("%s %llu\n", hex, (unsigned long long)size);
	return 0;
}

/* ---- sync ------------------------------------------------------------------------- */

/* join-home DIR SOURCE: makes the empty Home `hearth init DIR` made a
 * replica of SOURCE's Home, by giving it SOURCE's home id (in the store
 * and in the root marker). What `hearth clone` does properly; tests use
 * it to make a second replica out of init + sync. */
static int
tool_join_home(int argc, char **argv)
{
	char path[4200], line[4200];
	sqlite3 *source = NULL, *target = NULL;
	uint8_t home[ID_BYTES];
	char hex[ID_HEX];
	int status = 1;

	if (argc != 3) {
		fputs("usage: hearth-test-tool join-home DIR SOURCE_DIR\n", stderr);
		return 2;
	}
	snprintf(path, sizeof path, "%s/.hearth/store.db", argv[2]);
	if (sqlite3_open(path, &source) != SQLITE_OK)
		goto done;
	sqlite3_stmt *statement;
	if (sqlite3_prepare_v2(source, "SELECT value FROM meta WHERE key = 'home'", -1, &statement,
		NULL) != SQLITE_OK)
		goto done;
	if (sqlite3_step(statement) != SQLITE_ROW || sqlite3_column_bytes(statement, 0) != ID_BYTES) {
		sqlite3_finalize(statement);
		goto done;
	}
	memcpy(home, sqlite3_column_blob(statement, 0), ID_BYTES);
	sqlite3_finalize(statement);
	snprintf(path, sizeof path, "%s/.hearth/store.db", argv[1]);
	if (sqlite3_open(path, &target) != SQLITE_OK ||
	    sqlite3_prepare_v2(target, "UPDATE meta SET value = ?1 WHERE key = 'home'", -1,
		&statement, NULL) != SQLITE_OK)
		goto done;
	sqlite3_bind_blob(statement, 1, home, ID_BYTES, SQLITE_STATIC);
	int step = sqlite3_step(statement);
	sqlite3_finalize(statement);
	if (step != SQLITE_DONE)
		goto done;
	hex_encode(home, ID_BYTES, hex);
	/* The marker names the Home too. */
	snprintf(path, sizeof path, "%s/.hearth/root", argv[1]);
	FILE *marker = fopen(path, "r");
	char text[16384] = "";
	size_t used = 0;
	while (marker != NULL && fgets(line, sizeof line, marker) != NULL) {
		if (strncmp(line, "home:", 5) == 0)
			used += (size_t)snprintf(text + used, sizeof text - used, "home: %s\n", hex);
		else
			used += (size_t)snprintf(text + used, sizeof text - used, "%s", line);
	}
	if (marker == NULL)
		goto done;
	fclose(marker);
	marker = fopen(path, "w");
	if (marker == NULL || fputs(text, marker) < 0 || fclose(marker) != 0)
		goto done;
	status = 0;
done:
	if (status != 0)
		fprintf(stderr, "join-home: cannot join %s to %s\n", argv[1], argv[2]);
	sqlite3_close(source);
	sqlite3_close(target);
	return status;
}

static int
write_all(int fd, const void *data, size_t length)
{
	const uint8_t *bytes = data;

	while (length > 0) {
		ssize_t put = write(fd, bytes, length);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
			return -1;
		bytes += put;
		length -= (size_t)put;
	}
	return 0;
}

/* A frame type by name (HELLO, CHUNK...) or number (to make unknown ones). */
static enum wire_type
frame_type_named(const char *name)
{
	char *end;
	unsigned long number = strtoul(name, &end, 10);
	if (*end == '\0' && number > 0 && number < 256)
		return (enum wire_type)number;
	for (int type = 1; type <= WIRE_TYPE_LAST; type++)
		if (strcasecmp(name, wire_type_name((uint8_t)type)) == 0)
			return (enum wire_type)type;
	return 0;
}

/* frame hello MIN MAX HOME_HEX REPLICA_HEX [FLAGS] | frame raw TYPE HEX |
 * frame oversized | frame badcrc TYPE HEX: writes one frame to stdout,
 * to feed `hearth serve` input no real client sends. */
static int
tool_frame(int argc, char **argv)
{
	struct buffer out;
	int status = 0;

	buffer_init(&out);
	if (argc >= 6 && strcmp(argv[1], "hello") == 0) {
		struct wire_hello hello = {
			.protocol_min = (uint32_t)strtoul(argv[2], NULL, 10),
			.protocol_max = (uint32_t)strtoul(argv[3], NULL, 10),
			.flags = argc > 6 ? (uint32_t)strtoul(argv[6], NULL, 0) : WIRE_PULL | WIRE_PUSH,
		};
		snprintf(hello.software, sizeof hello.software, "hearth-test-tool");
		vv_init(&hello.vv);
		if (!hex_decode(argv[4], hello.home, ID_BYTES) ||
		    !hex_decode(argv[5], hello.replica.bytes, ID_BYTES)) {
			fputs("frame hello: ids are 32 hex digits\n", stderr);
			return 2;
		}
		size_t start = wire_begin(&out, WIRE_HELLO);
		wire_encode_hello(&out, &hello);
		wire_end(&out, start);
	} else if (argc == 4 && (strcmp(argv[1], "raw") == 0 || strcmp(argv[1], "badcrc") == 0)) {
		size_t length = strlen(argv[3]) / 2;
		uint8_t *payload = calloc(length + 1, 1);
		enum wire_type type = frame_type_named(argv[2]);
		if (type == 0 || !hex_decode(argv[3], payload, length)) {
			fputs("frame raw: TYPE is a frame type, HEX an even number of hex digits\n", stderr);
			free(payload);
			return 2;
		}
		size_t start = wire_begin(&out, type);
		buffer_append(&out, payload, length);
		wire_end(&out, start);
		if (strcmp(argv[1], "badcrc") == 0)
			out.data[out.length - 1] ^= 0x55;
		free(payload);
	} else if (argc == 2 && strcmp(argv[1], "oversized") == 0) {
		uint8_t header[WIRE_HEADER_SIZE] = { 0, 0, 0, 0, WIRE_HELLO };
		store_u32be(header, WIRE_PAYLOAD_MAX + 1);
		buffer_append(&out, header, sizeof header);
	} else {
		fputs("usage: hearth-test-tool frame hello MIN MAX HOME_HEX REPLICA_HEX [FLAGS]\n"
		      "       hearth-test-tool frame raw|badcrc TYPE HEX\n"
		      "       hearth-test-tool frame oversized\n", stderr);
		return 2;
	}
	if (write_all(STDOUT_FILENO, out.data, out.length) != 0)
		status = 1;
	buffer_free(&out);
	return status;
}

/* frames: reads frames from stdin and prints one line each: the type, and
 * an ERROR's message. Stops at the first bad frame ("bad: why"). With
 * --filter MAX it writes the stream back out instead, without the frames
 * whose payload is over MAX bytes (small fuzz seeds from real streams). */
static int
tool_frames(int argc, char **argv)
{
	struct buffer in;
	uint8_t block[65536];
	ssize_t got;
	size_t offset = 0, filter = 0;
	struct hearth_error failure;

	if (argc == 3 && strcmp(argv[1], "--filter") == 0)
		filter = (size_t)strtoul(argv[2], NULL, 10);
	else if (argc != 1) {
		fputs("usage: hearth-test-tool frames [--filter MAX] < STREAM\n", stderr);
		return 2;
	}
	buffer_init(&in);
	while ((got = read(STDIN_FILENO, block, sizeof block)) > 0)
		buffer_append(&in, block, (size_t)got);
	for (;;) {
		struct wire_frame frame;
		size_t used;
		int parsed = wire_parse_frame(in.data + offset, in.length - offset, &frame, &used, &failure);
		if (parsed == 0) {
			if (offset < in.length)
				printf("bad: %zu bytes trail the last frame\n", in.length - offset);
			break;
		}
		if (parsed < 0) {
			printf("bad: %s\n", failure.message);
			break;
		}
		if (filter > 0) {
			if (frame.length <= filter)
				write_all(STDOUT_FILENO, in.data + offset, used);
		} else if (frame.type == WIRE_ERROR) {
			char message[WIRE_MESSAGE_MAX + 1];
			if (wire_decode_error(frame.payload, frame.length, message, sizeof message, &failure))
				printf("ERROR %s\n", message);
			else
				printf("bad: %s\n", failure.message);
		} else {
			printf("%s\n", wire_type_name(frame.type));
		}
		offset += used;
	}
	buffer_free(&in);
	return 0;
}

/* How sync-proxy meddles with one frame. */
struct proxy_rule {
	bool upward;		/* client -> server; else server -> client */
	enum wire_type type;	/* 0: any */
	unsigned long nth;
	char action[16];	/* flip, hash, swap, zstd, incompressible, truncate, oversize, kill, none */
	unsigned long seen;
};

struct proxy_stream {
	int from, to;
	bool upward;
	struct buffer pending;
	bool open;
};

/* Applies the rule to the frame at the start of the stream's pending
 * bytes (length used). Returns false when the proxy must stop. */
static bool
proxy_meddle(struct proxy_rule *rule, struct proxy_stream *stream, size_t used, pid_t child)
{
	uint8_t *frame = stream->pending.data;
	size_t payload = used - WIRE_HEADER_SIZE - WIRE_TRAILER_SIZE;

	if (rule->upward != stream->upward || (rule->type != 0 && frame[4] != rule->type) ||
	    ++rule->seen != rule->nth)
		return true;
	if (strcmp(rule->action, "flip") == 0 && payload > 0) {
		frame[WIRE_HEADER_SIZE + payload / 2] ^= 0x10;
	} else if (strcmp(rule->action, "hash") == 0 && payload > 0) {
		/* A changed byte with a fixed-up checksum: only the content's
		 * own hash can tell. */
		frame[WIRE_HEADER_SIZE + payload - 1] ^= 0x01;
		store_u32be(frame + WIRE_HEADER_SIZE + payload,
		    pack_crc32c(0, frame + 4, payload + 1));
	} else if (strcmp(rule->action, "swap") == 0 && payload >= 2 * HASH_BYTES) {
		/* The last two ids of a list trade places: each still names a
		 * real chunk, only the whole is wrong. */
		uint8_t *last = frame + WIRE_HEADER_SIZE + payload - HASH_BYTES;
		uint8_t swap[HASH_BYTES];
		memcpy(swap, last, HASH_BYTES);
		memcpy(last, last - HASH_BYTES, HASH_BYTES);
		memcpy(last - HASH_BYTES, swap, HASH_BYTES);
		store_u32be(frame + WIRE_HEADER_SIZE + payload,
		    pack_crc32c(0, frame + 4, payload + 1));
	} else if ((strcmp(rule->action, "zstd") == 0 ||
		       strcmp(rule->action, "incompressible") == 0) && payload > HASH_BYTES) {
		/* A CHUNK relabelled: its bytes said to be coded as they are not,
		 * or in a codec the protocol agreed on does not have. */
		frame[WIRE_HEADER_SIZE + HASH_BYTES] = strcmp(rule->action, "zstd") == 0
		    ? WIRE_CODEC_ZSTD : WIRE_CODEC_INCOMPRESSIBLE;
		store_u32be(frame + WIRE_HEADER_SIZE + payload,
		    pack_crc32c(0, frame + 4, payload + 1));
	} else if (strcmp(rule->action, "truncate") == 0) {
		write_all(stream->to, frame, used / 2);
		return false;
	} else if (strcmp(rule->action, "oversize") == 0) {
		store_u32be(frame, WIRE_PAYLOAD_MAX + 1);
		write_all(stream->to, frame, WIRE_HEADER_SIZE);
		return false;
	} else if (strcmp(rule->action, "kill") == 0) {
		kill(child, SIGKILL);
		return false;
	}
	return true;
}

/* With HEARTH_PROXY_DUMP=PREFIX, every frame relayed is also appended to
 * PREFIX.up or PREFIX.down: real protocol streams, the fuzzer's seeds. */
static void
proxy_dump(const struct proxy_stream *stream, size_t used)
{
	const char *prefix = getenv("HEARTH_PROXY_DUMP");
	char path[4200];

	if (prefix == NULL)
		return;
	snprintf(path, sizeof path, "%s.%s", prefix, stream->upward ? "up" : "down");
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	write_all(fd, stream->pending.data, used);
	close(fd);
}

/* Forwards whole frames from pending; false when the rule ended it all. */
static bool
proxy_forward(struct proxy_rule *rule, struct proxy_stream *stream, pid_t child)
{
	for (;;) {
		struct wire_frame frame;
		size_t used;
		struct hearth_error failure;
		int parsed = wire_parse_frame(stream->pending.data, stream->pending.length, &frame, &used,
		    &failure);
		if (parsed == 0)
			return true;
		if (parsed < 0) {
			/* Not ours to judge: pass it on and let the peer refuse it. */
			write_all(stream->to, stream->pending.data, stream->pending.length);
			buffer_reset(&stream->pending);
			return true;
		}
		if (!proxy_meddle(rule, stream, used, child))
			return false;
		proxy_dump(stream, used);
		write_all(stream->to, stream->pending.data, used);
		memmove(stream->pending.data, stream->pending.data + used, stream->pending.length - used);
		stream->pending.length -= used;
	}
}

/* sync-proxy UP|DOWN:TYPE|any:NTH:ACTION [SSH ARGS...] COMMAND: stands in
 * for ssh (HEARTH_SSH="hearth-test-tool sync-proxy RULE"): runs COMMAND
 * (the last argument) with sh -c and relays the protocol both ways,
 * meddling with the NTH frame of TYPE going UP (to the server) or DOWN
 * (to the client): flip a bit, change a byte and fix the checksum (hash),
 * swap the payload's last two 32-byte ids and fix the checksum (swap),
 * relabel a CHUNK's codec as zstd or incompressible and fix the checksum
 * (zstd, incompressible), cut it in half (truncate), claim an oversized length (oversize), or
 * SIGKILL the server just before it passes (kill). */
static int
tool_sync_proxy(int argc, char **argv)
{
	struct proxy_rule rule = { 0 };
	char direction[8], type[32];

	if (argc < 3 || sscanf(argv[1], "%7[^:]:%31[^:]:%lu:%15s", direction, type, &rule.nth,
			    rule.action) != 4) {
		fputs("usage: hearth-test-tool sync-proxy up|down:TYPE|any:NTH:ACTION ... COMMAND\n",
		    stderr);
		return 2;
	}
	rule.upward = strcmp(direction, "up") == 0;
	rule.type = strcmp(type, "any") == 0 ? 0 : frame_type_named(type);
	signal(SIGPIPE, SIG_IGN);
	int to_child[2], from_child[2];
	if (pipe(to_child) != 0 || pipe(from_child) != 0)
		return 1;
	pid_t child = fork();
	if (child == 0) {
		dup2(to_child[0], STDIN_FILENO);
		dup2(from_child[1], STDOUT_FILENO);
		close(to_child[0]);
		close(to_child[1]);
		close(from_child[0]);
		close(from_child[1]);
		execl("/bin/sh", "sh", "-c", argv[argc - 1], (char *)NULL);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	struct proxy_stream streams[2] = {
		{ .from = STDIN_FILENO, .to = to_child[1], .upward = true, .open = true },
		{ .from = from_child[0], .to = STDOUT_FILENO, .upward = false, .open = true },
	};
	buffer_init(&streams[0].pending);
	buffer_init(&streams[1].pending);
	bool running = true;
	while (running && (streams[0].open || streams[1].open)) {
		struct pollfd fds[2];
		for (int i = 0; i < 2; i++)
			fds[i] = (struct pollfd){ .fd = streams[i].open ? streams[i].from : -1,
				.events = POLLIN };
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2 && running; i++) {
			if (fds[i].revents == 0)
				continue;
			uint8_t block[65536];
			ssize_t got = read(streams[i].from, block, sizeof block);
			if (got <= 0) {
				streams[i].open = false;
				close(streams[i].to);
				continue;
			}
			buffer_append(&streams[i].pending, block, (size_t)got);
			running = proxy_forward(&rule, &streams[i], child);
		}
	}
	/* Whatever ended it, both ends see the connection close. */
	close(to_child[1]);
	close(STDOUT_FILENO);
	close(from_child[0]);
	int status = 0;
	waitpid(child, &status, 0);
	buffer_free(&streams[0].pending);
	buffer_free(&streams[1].pending);
	if (!running)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Reads one frame from fd into storage; false at the end or on junk. */
static bool
read_frame(int fd, struct buffer *storage, struct wire_frame *frame)
{
	uint8_t block[65536];
	size_t used;
	struct hearth_error failure;

	buffer_reset(storage);
	for (;;) {
		int parsed = wire_parse_frame(storage->data, storage->length, frame, &used, &failure);
		if (parsed != 0)
			return parsed == 1;
		/* One byte at a time past the header: never read into the next frame. */
		size_t want = storage->length < WIRE_HEADER_SIZE ? WIRE_HEADER_SIZE - storage->length : 1;
		if (storage->length >= WIRE_HEADER_SIZE) {
			size_t payload;
			if (!wire_parse_header(storage->data, &payload, &failure))
				return false;
			want = WIRE_HEADER_SIZE + payload + WIRE_TRAILER_SIZE - storage->length;
		}
		ssize_t got = read(fd, block, want < sizeof block ? want : sizeof block);
		if (got <= 0)
			return false;
		buffer_append(storage, block, (size_t)got);
	}
}

static void
send_frame(struct buffer *out)
{
	write_all(STDOUT_FILENO, out->data, out->length);
	buffer_reset(out);
}

/* The ops a fake peer sends for one case: up to two, the first a PLACE of
 * node 0x42.. named "fake", a folder under the top, changed to make it
 * hostile; the second (when there is one) about the same node. */
struct fake_ops {
	struct op ops[2];
	size_t count;
	uint8_t name[300];
	bool noncanonical;
};

static const char FAKE_CASES[] =
    "good|own|root|trash|gap|noncanonical|slash|dotdot|dot|nul|empty|long|state|"
    "self|under-file|under-link|rekind|set-folder|set-root|root-name|stall";

/* Fills ops for a case; false for a name it does not know. */
static bool
fake_ops_for(const char *kind, const struct wire_hello *theirs, struct replica_id ours,
    struct fake_ops *fake)
{
	struct op *first = &fake->ops[0], *second = &fake->ops[1];

	memset(fake, 0, sizeof *fake);
	memcpy(fake->name, "fake", 4);
	*first = (struct op){ .id = { ours, 1 }, .lamport = 1000, .kind = OP_PLACE,
		.u.place = { .parent = NODE_ROOT, .name = fake->name, .name_length = 4,
			.kind = NODE_DIR, .root = "main" } };
	memset(first->u.place.node.bytes, 0x42, ID_BYTES);
	fake->count = 1;
	struct op_place *place = &first->u.place;
	if (strcmp(kind, "own") == 0)
		first->id = (struct op_id){ theirs->replica, vv_get(&theirs->vv, theirs->replica) + 1 };
	else if (strcmp(kind, "root") == 0)
		place->node = NODE_ROOT;
	else if (strcmp(kind, "trash") == 0)
		place->node = NODE_TRASH;
	else if (strcmp(kind, "gap") == 0)
		first->id.counter = 2;
	else if (strcmp(kind, "noncanonical") == 0)
		fake->noncanonical = true;
	else if (strcmp(kind, "slash") == 0)
		memcpy(fake->name, "../x", place->name_length = 4);
	else if (strcmp(kind, "dotdot") == 0)
		memcpy(fake->name, "..", place->name_length = 2);
	else if (strcmp(kind, "dot") == 0)
		memcpy(fake->name, ".", place->name_length = 1);
	else if (strcmp(kind, "nul") == 0)
		memcpy(fake->name, "a\0b", place->name_length = 3);
	else if (strcmp(kind, "empty") == 0)
		place->name_length = 0;
	else if (strcmp(kind, "long") == 0)
		memset(fake->name, 'x', place->name_length = 256);
	else if (strcmp(kind, "state") == 0)
		memcpy(fake->name, ".hearth", place->name_length = 7);
	else if (strcmp(kind, "self") == 0)
		place->parent = place->node;
	else if (strcmp(kind, "root-name") == 0)
		place->root = "../main";
	else if (strcmp(kind, "set-root") == 0)
		*first = (struct op){ .id = { ours, 1 }, .lamport = 1000, .kind = OP_SET,
			.u.set = { .node = NODE_ROOT, .mode = 0644 } };
	else if (strcmp(kind, "under-file") == 0 || strcmp(kind, "under-link") == 0 ||
	    strcmp(kind, "rekind") == 0 || strcmp(kind, "set-folder") == 0) {
		/* Two ops: the first makes node 0x42.. (a file, a link or a
		 * folder), the second misuses it. */
		fake->count = 2;
		*second = (struct op){ .id = { ours, 2 }, .lamport = 1001, .kind = OP_PLACE,
			.u.place = { .parent = place->node, .name = fake->name, .name_length = 4,
				.kind = NODE_FILE, .root = "main" } };
		memset(second->u.place.node.bytes, 0x43, ID_BYTES);
		if (strcmp(kind, "under-file") == 0)
			place->kind = NODE_FILE;
		else if (strcmp(kind, "under-link") == 0)
			place->kind = NODE_SYMLINK;
		else if (strcmp(kind, "rekind") == 0)
			second->u.place = (struct op_place){ .node = place->node, .parent = NODE_ROOT,
				.name = fake->name, .name_length = 4, .kind = NODE_FILE, .root = "main" };
		else
			*second = (struct op){ .id = { ours, 2 }, .lamport = 1001, .kind = OP_SET,
				.u.set = { .node = place->node, .mode = 0644 } };
	} else if (strcmp(kind, "good") != 0)
		return false;
	return true;
}

/* fake-peer CASE [ssh args...]: stands in for ssh and a server that sends
 * ops a real peer never would (fake_ops_for): "good" (a plain new folder,
 * the control), "own" (an op as made by the client's own replica), "root"
 * (a move of the Home's top folder), "trash", "gap" (counter 2 with no 1),
 * "noncanonical" (an overlong varint), names with '/', "..", ".", NUL,
 * empty or of 256 bytes, hearth's own names (.hearth at the top,
 * .hearth-id), a folder inside itself, a node under a file or a link, a
 * node changing kind, content for a folder or the top, a bad root name;
 * or "stall": no answer at all. Serves pull only. */
static int
tool_fake_peer(int argc, char **argv)
{
	struct buffer in, out, body;
	struct wire_frame frame;
	struct wire_hello theirs, ours = { .protocol_min = 1, .protocol_max = 1 };
	struct fake_ops fake;
	struct hearth_error failure;
	const char *kind = argc > 1 ? argv[1] : "";

	if (argc < 2) {
		fprintf(stderr, "usage: hearth-test-tool fake-peer %s ...\n", FAKE_CASES);
		return 2;
	}
	buffer_init(&in);
	buffer_init(&out);
	buffer_init(&body);
	if (!read_frame(STDIN_FILENO, &in, &frame) || frame.type != WIRE_HELLO ||
	    !wire_decode_hello(frame.payload, frame.length, &theirs, &failure)) {
		fputs("fake-peer: no HELLO\n", stderr);
		return 1;
	}
	if (strcmp(kind, "stall") == 0) {
		/* Says nothing more, until the client gives up and hangs up. */
		struct pollfd in_fd = { .fd = STDIN_FILENO, .events = POLLIN };
		poll(&in_fd, 1, 30000);
		wire_hello_free(&theirs);
		return 0;
	}
	memset(ours.replica.bytes, 0xfa, ID_BYTES);
	if (!fake_ops_for(kind, &theirs, ours.replica, &fake)) {
		fprintf(stderr, "fake-peer: no case '%s' (%s)\n", kind, FAKE_CASES);
		wire_hello_free(&theirs);
		return 2;
	}
	memcpy(ours.home, theirs.home, ID_BYTES);
	snprintf(ours.software, sizeof ours.software, "fake-peer");
	vv_init(&ours.vv);
	vv_set(&ours.vv, ours.replica, fake.ops[fake.count - 1].id.counter);
	size_t start = wire_begin(&out, WIRE_HELLO);
	wire_encode_hello(&out, &ours);
	wire_end(&out, start);
	send_frame(&out);

	start = wire_begin(&out, WIRE_OPS);
	buffer_append_varint(&out, fake.count);
	for (size_t i = 0; i < fake.count; i++) {
		buffer_reset(&body);
		op_encode(&fake.ops[i], &body);
		if (fake.noncanonical) {
			/* The counter (1, one byte after format, kind and replica) as two. */
			buffer_reserve(&body, 1);
			memmove(body.data + 19, body.data + 18, body.length - 18);
			body.data[18] = 0x81;
			body.data[19] = 0x00;
			body.length++;
		}
		buffer_append_bytes(&out, body.data, body.length);
	}
	wire_end(&out, start);
	start = wire_begin(&out, WIRE_OPS_END);
	wire_encode_count(&out, fake.count);
	wire_end(&out, start);
	send_frame(&out);
	/* A client that took it asks for no chunks (a PLACE has none). */
	while (read_frame(STDIN_FILENO, &in, &frame) && frame.type != WIRE_WANT_END)
		if (frame.type == WIRE_ERROR)
			break;
	if (frame.type == WIRE_WANT_END) {
		start = wire_begin(&out, WIRE_CHUNKS_END);
		wire_encode_count(&out, 0);
		wire_end(&out, start);
		start = wire_begin(&out, WIRE_DONE);
		wire_encode_done(&out, 0, &ours.vv);
		wire_end(&out, start);
		send_frame(&out);
	}
	wire_hello_free(&theirs);
	vv_free(&ours.vv);
	buffer_free(&in);
	buffer_free(&out);
	buffer_free(&body);
	return 0;
}

/* fake-push CASE HOME_HEX: writes to stdout what a client pushing the
 * ops of fake-peer's CASE sends `hearth serve` (HELLO asking to push,
 * the OPS, OPS_END), to show the server refuses them as the client does. */
static int
tool_fake_push(int argc, char **argv)
{
	struct wire_hello hello = { .protocol_min = 1, .protocol_max = 1, .flags = WIRE_PUSH };
	struct fake_ops fake;
	struct buffer out, body;

	if (argc != 3 || !hex_decode(argv[2], hello.home, ID_BYTES)) {
		fprintf(stderr, "usage: hearth-test-tool fake-push %s HOME_HEX\n", FAKE_CASES);
		return 2;
	}
	memset(hello.replica.bytes, 0xfb, ID_BYTES);
	vv_init(&hello.vv);
	if (!fake_ops_for(argv[1], &hello, hello.replica, &fake) || fake.noncanonical) {
		fprintf(stderr, "fake-push: no case '%s'\n", argv[1]);
		return 2;
	}
	snprintf(hello.software, sizeof hello.software, "fake-push");
	buffer_init(&out);
	buffer_init(&body);
	size_t start = wire_begin(&out, WIRE_HELLO);
	wire_encode_hello(&out, &hello);
	wire_end(&out, start);
	start = wire_begin(&out, WIRE_OPS);
	buffer_append_varint(&out, fake.count);
	for (size_t i = 0; i < fake.count; i++) {
		buffer_reset(&body);
		op_encode(&fake.ops[i], &body);
		buffer_append_bytes(&out, body.data, body.length);
	}
	wire_end(&out, start);
	start = wire_begin(&out, WIRE_OPS_END);
	wire_encode_count(&out, fake.count);
	wire_end(&out, start);
	int status = write_all(STDOUT_FILENO, out.data, out.length) == 0 ? 0 : 1;
	buffer_free(&out);
	buffer_free(&body);
	return status;
}

/* ops DIR: prints each op the Home at DIR holds, in its canonical
 * encoding, as hex, one a line, in (replica, counter) order: the op
 * decoder's fuzz seeds, and evidence for tests. */
static int
tool_ops(int argc, char **argv)
{
	char path[4200];
	sqlite3 *db = NULL;
	sqlite3_stmt *statement = NULL;

	if (argc != 2) {
		fputs("usage: hearth-test-tool ops DIR\n", stderr);
		return 2;
	}
	snprintf(path, sizeof path, "file:%s/.hearth/store.db?mode=ro", argv[1]);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT body FROM op ORDER BY replica, counter", -1, &statement,
		NULL) != SQLITE_OK) {
		fprintf(stderr, "ops: cannot read %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return 1;
	}
	while (sqlite3_step(statement) == SQLITE_ROW) {
		const uint8_t *body = sqlite3_column_blob(statement, 0);
		int length = sqlite3_column_bytes(statement, 0);
		for (int i = 0; i < length; i++)
			printf("%02x", body[i]);
		putchar('\n');
	}
	sqlite3_finalize(statement);
	sqlite3_close(db);
	return 0;
}

/* probe URL: asks a peer whose Home it serves (sync_probe) and prints the
 * home id, the replica id and its software. */
static int
tool_probe(int argc, char **argv)
{
	struct sync_identity identity;
	struct hearth_error error;
	char home[ID_HEX], replica[ID_HEX];

	if (argc != 2) {
		fputs("usage: hearth-test-tool probe URL\n", stderr);
		return 2;
	}
	/* A local peer runs `hearth serve`: this tool is not hearth. */
	if (sync_probe(argv[1], getenv("HEARTH_BIN"), NULL, &identity, &error) != 0) {
		fprintf(stderr, "probe: %s\n", error.message);
		return 1;
	}
	hex_encode(identity.home, ID_BYTES, home);
	replica_id_hex(identity.replica, replica);
	printf("%s %s %s\n", home, replica, identity.software);
	return 0;
}

struct cancel_at {
	const char *phase;
	atomic_int flag;
	bool reached;
};

static void
cancel_when(void *context, const struct hearth_progress_report *report)
{
	struct cancel_at *at = context;

	if (strcmp(report->phase, at->phase) == 0) {
		at->reached = true;
		atomic_store(&at->flag, 1);
	}
}

/* sync-cancel DIR PEER PHASE: syncs the Home at DIR with PEER (local peers
 * run $HEARTH_BIN serve) and sets the cancel flag as soon as progress
 * reports PHASE, as the app's Esc does. Prints the outcome; exits 0 when
 * the sync was cancelled. */
static int
tool_sync_cancel(int argc, char **argv)
{
	struct cancel_at at = { 0 };
	struct hearth_error error;
	hearth *home;

	if (argc != 4) {
		fputs("usage: hearth-test-tool sync-cancel DIR PEER PHASE\n", stderr);
		return 2;
	}
	at.phase = argv[3];
	atomic_init(&at.flag, 0);
	struct hearth_open_options open_options = { .start_dir = argv[1] };
	if (hearth_open(&home, &open_options, &error) != 0) {
		fprintf(stderr, "sync-cancel: %s\n", error.message);
		return 1;
	}
	struct hearth_progress progress = { .report = cancel_when, .context = &at,
		.cancel = &at.flag };
	struct hearth_sync_options options = { .peer = argv[2], .program = getenv("HEARTH_BIN") };
	struct hearth_sync_result result;
	int status = hearth_sync(home, &options, &progress, &result, &error);
	hearth_close(home);
	printf("%s%s: %s\n", at.reached ? "" : "phase never reached; ",
	    status == HEARTH_CANCELLED ? "cancelled" : status == 0 ? "completed" : "failed",
	    status == 0 ? "" : error.message);
	return status == HEARTH_CANCELLED ? 0 : 1;
}

/* frame-recrc PACK OFFSET: sets the CRC of the pack frame at OFFSET to what
 * its stored bytes give, as a forger would after changing them: a frame
 * only the chunk's hash can tell is wrong. */
static int
tool_frame_recrc(int argc, char **argv)
{
	uint8_t header[16];

	if (argc != 3) {
		fputs("usage: hearth-test-tool frame-recrc PACK OFFSET\n", stderr);
		return 2;
	}
	off_t offset = (off_t)strtoull(argv[2], NULL, 10);
	int fd = open(argv[1], O_RDWR);
	if (fd < 0 || pread(fd, header, sizeof header, offset) != (ssize_t)sizeof header) {
		perror("frame-recrc");
		return 1;
	}
	uint32_t stored = (uint32_t)header[4] << 24 | (uint32_t)header[5] << 16 |
	    (uint32_t)header[6] << 8 | header[7];
	uint8_t *bytes = malloc(stored ? stored : 1);
	if (bytes == NULL || pread(fd, bytes, stored, offset + sizeof header) != (ssize_t)stored) {
		perror("frame-recrc");
		return 1;
	}
	store_u32be(header + 12, pack_crc32c(0, bytes, stored));
	int status = pwrite(fd, header + 12, 4, offset + 12) == 4 ? 0 : 1;
	free(bytes);
	close(fd);
	return status;
}

/* find-names DIR TEXT LIMIT: the paths the Home view's filter finds for
 * TEXT (hearth_find_names), one a line, then "more" when LIMIT cut them. */
static int
tool_find_names(int argc, char **argv)
{
	struct hearth_path_list found;
	struct hearth_error error;
	hearth *home;

	if (argc != 4) {
		fputs("usage: hearth-test-tool find-names DIR TEXT LIMIT\n", stderr);
		return 2;
	}
	struct hearth_open_options open_options = { .start_dir = argv[1] };
	if (hearth_open(&home, &open_options, &error) != 0) {
		fprintf(stderr, "find-names: %s\n", error.message);
		return 1;
	}
	int status = hearth_find_names(home, argv[2], strtoul(argv[3], NULL, 10), &found, &error);
	hearth_close(home);
	if (status != HEARTH_OK) {
		fprintf(stderr, "find-names: %s\n", error.message);
		return 1;
	}
	for (size_t i = 0; i < found.count; i++)
		printf("%s\n", found.items[i]);
	if (found.more)
		puts("more");
	hearth_path_list_free(&found);
	return 0;
}

struct swap_at {
	const char *home, *folder, *target;
	bool swapped;
};

/* On the first "writing" report (content staged, the tree not touched
 * yet): FOLDER is moved aside and a link to TARGET takes its place. */
static void
swap_when_writing(void *context, const struct hearth_progress_report *report)
{
	struct swap_at *at = context;
	char path[8192], aside[8300];

	if (at->swapped || strcmp(report->phase, "writing") != 0)
		return;
	at->swapped = true;
	snprintf(path, sizeof path, "%s/%s", at->home, at->folder);
	snprintf(aside, sizeof aside, "%s.moved-away", path);
	if (rename(path, aside) != 0 || symlink(at->target, path) != 0)
		perror("checkout-swap: cannot swap the folder");
}

/* checkout-swap DIR VERSION FOLDER TARGET: checks out VERSION ("head" for
 * head) in the Home at DIR and, once the new content is staged and before
 * the tree changes, swaps the folder FOLDER (relative to DIR) for a
 * symlink to TARGET: the race a checkout must not lose by writing
 * through the link. Prints the outcome; exits with the CLI's status. */
static int
tool_checkout_swap(int argc, char **argv)
{
	struct swap_at at = { 0 };
	struct hearth_error error;
	hearth *home;

	if (argc != 5) {
		fputs("usage: hearth-test-tool checkout-swap DIR VERSION FOLDER TARGET\n", stderr);
		return 2;
	}
	at.home = argv[1];
	at.folder = argv[3];
	at.target = argv[4];
	struct hearth_open_options open_options = { .start_dir = argv[1] };
	if (hearth_open(&home, &open_options, &error) != 0) {
		fprintf(stderr, "checkout-swap: %s\n", error.message);
		return 1;
	}
	struct hearth_progress progress = { .report = swap_when_writing, .context = &at };
	struct hearth_checkout_options options = {
		.version = strcmp(argv[2], "head") == 0 ? NULL : argv[2],
	};
	struct hearth_checkout_result result;
	int status = hearth_checkout(home, &options, &progress, &result, &error);
	hearth_checkout_result_free(&result);
	hearth_close(home);
	printf("%s%s%s\n", at.swapped ? "" : "never swapped; ",
	    status == 0 ? "checked out" : "failed: ", status == 0 ? "" : error.message);
	return hearth_exit_status(status);
}

struct fifo_at {
	const char *home, *file;
	bool swapped;
};

/* On the first "storing" report (the scan is done, the file's bytes not
 * read yet): FILE is moved aside and a FIFO takes its place. */
static void
fifo_when_storing(void *context, const struct hearth_progress_report *report)
{
	struct fifo_at *at = context;
	char path[8192], aside[8300];

	if (at->swapped || strcmp(report->phase, "storing") != 0)
		return;
	at->swapped = true;
	snprintf(path, sizeof path, "%s/%s", at->home, at->file);
	snprintf(aside, sizeof aside, "%s.moved-away", path);
	if (rename(path, aside) != 0 || mkfifo(path, 0600) != 0)
		perror("record-fifo: cannot swap the file");
}

/* record-fifo DIR FILE: records the Home at DIR and, between the scan and
 * the read of FILE's bytes, swaps FILE for a FIFO that no one writes: the
 * race in which a blocking open would hang with the lock held. Prints
 * the outcome; exits with the CLI's status. */
static int
tool_record_fifo(int argc, char **argv)
{
	struct fifo_at at = { 0 };
	struct hearth_error error;
	hearth *home;

	if (argc != 3) {
		fputs("usage: hearth-test-tool record-fifo DIR FILE\n", stderr);
		return 2;
	}
	at.home = argv[1];
	at.file = argv[2];
	struct hearth_open_options open_options = { .start_dir = argv[1] };
	if (hearth_open(&home, &open_options, &error) != 0) {
		fprintf(stderr, "record-fifo: %s\n", error.message);
		return 1;
	}
	struct hearth_progress progress = { .report = fifo_when_storing, .context = &at };
	struct hearth_record_options options = { .message = "swapped" };
	struct hearth_record_result result;
	int status = hearth_record(home, &options, &progress, &result, &error);
	hearth_record_result_free(&result);
	hearth_close(home);
	printf("%s%s%s\n", at.swapped ? "" : "never swapped; ",
	    status == 0 ? "recorded" : "failed: ", status == 0 ? "" : error.message);
	return hearth_exit_status(status);
}

/* ---- the observed index (reconcile, watch) -------------------------------------------- */

/* Opens the Home "-c CONFIG" or the folder DIR names, as the CLI would. */
static int
open_home(int argc, char **argv, hearth **home)
{
	struct hearth_open_options options = { 0 };
	struct hearth_error error;

	if (argc == 3 && strcmp(argv[1], "-c") == 0)
		options.config_path = argv[2];
	else if (argc == 2)
		options.start_dir = argv[1];
	else
		return 2;
	if (hearth_open(home, &options, &error) != 0) {
		fprintf(stderr, "hearth-test-tool: %s\n", error.message);
		return 1;
	}
	return 0;
}

/* marks DIR | marks -c CONFIG: the folders the index marks as differing
 * from the recorded tree, one a line ("." for the top), sorted. */
static int
tool_marks(int argc, char **argv)
{
	hearth *home;
	int status = open_home(argc, argv, &home);

	if (status == 2)
		fputs("usage: hearth-test-tool marks DIR | marks -c CONFIG\n", stderr);
	if (status != 0)
		return status;
	sqlite3_stmt *rows = store_statement(&home->store, "SELECT path FROM dirty ORDER BY path");
	while (sqlite3_step(rows) == SQLITE_ROW) {
		int length = sqlite3_column_bytes(rows, 0);
		if (length == 0)
			fputs(".", stdout);
		else
			fwrite(sqlite3_column_blob(rows, 0), 1, (size_t)length, stdout);
		putchar('\n');
	}
	sqlite3_reset(rows);
	hearth_close(home);
	return 0;
}

/* store-format DB N: makes a store look like format N: for 1 to 7,
 * without what later formats added (as earlier hearths left it); else only
 * the number. */
static int
tool_store_format(int argc, char **argv)
{
	/* The listing index as formats 3 to 7 had it. */
#define NARROW_LISTING "DROP INDEX entry_listing; CREATE INDEX entry_listing ON " \
	"entry(parent, name, kind, root, size, mtime, mode, restore);"
	static const char DOWN_TO_7[] = NARROW_LISTING "PRAGMA user_version=7;";
	static const char DOWN_TO_6[] = NARROW_LISTING "DROP TABLE IF EXISTS version_alias;"
	    "PRAGMA user_version=6;";
	static const char DOWN_TO_5[] = NARROW_LISTING "DROP TABLE IF EXISTS version_alias;"
	    "ALTER TABLE chunk DROP COLUMN depth; PRAGMA user_version=5;";
	static const char DOWN_TO_4[] = NARROW_LISTING "DROP TABLE IF EXISTS version_alias;"
	    "ALTER TABLE chunk DROP COLUMN depth;"
	    "DROP INDEX IF EXISTS version_time; PRAGMA user_version=4;";
	static const char DOWN_TO_3[] = NARROW_LISTING "DROP TABLE IF EXISTS version_alias;"
	    "ALTER TABLE chunk DROP COLUMN depth;"
	    "DROP INDEX IF EXISTS version_time;"
	    "ALTER TABLE op DROP COLUMN chain; PRAGMA user_version=3;";
	static const char DOWN_TO_2[] = "DROP TABLE IF EXISTS version_alias;"
	    "ALTER TABLE chunk DROP COLUMN depth;"
	    "DROP INDEX IF EXISTS version_time;"
	    "ALTER TABLE op DROP COLUMN chain; DROP INDEX entry_listing; PRAGMA user_version=2;";
	static const char DOWN_TO_1[] = "DROP TABLE IF EXISTS version_alias;"
	    "ALTER TABLE chunk DROP COLUMN depth;"
	    "DROP INDEX IF EXISTS version_time;"
	    "ALTER TABLE op DROP COLUMN chain; DROP INDEX entry_listing;"
	    "DROP TABLE folder; DROP TABLE dirty; DROP TABLE watch; DROP INDEX entry_untrusted;"
	    "DROP INDEX entry_restoring; DROP INDEX entry_folders; PRAGMA user_version=1;";
	sqlite3 *db;
	char sql[64];

	if (argc != 3) {
		fputs("usage: hearth-test-tool store-format DB N\n", stderr);
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 1;
	int format = atoi(argv[2]);
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d;", format);
	char *message = NULL;
	int status = sqlite3_exec(db, format == 1 ? DOWN_TO_1 : format == 2 ? DOWN_TO_2 :
	    format == 3 ? DOWN_TO_3 : format == 4 ? DOWN_TO_4 : format == 5 ? DOWN_TO_5 :
	    format == 6 ? DOWN_TO_6 : format == 7 ? DOWN_TO_7 : sql,
	    NULL, NULL, &message);
	if (status != SQLITE_OK)
		fprintf(stderr, "hearth-test-tool: %s\n", message ? message : "SQLite error");
	sqlite3_free(message);
	sqlite3_close(db);
	return status == SQLITE_OK ? 0 : 1;
#undef NARROW_LISTING
}

/* flip DB op|version N COLUMN POS: flips the lowest bit of byte POS of
 * COLUMN in the N-th row (from 0) of the op log or the history, both in
 * (replica, counter) order; flipping it again puts it back. Prints the
 * column's length when POS is "length". What fsck must find. */
static int
tool_flip(int argc, char **argv)
{
	static const char *const columns[] = { "body", "chain", "node", "author", "message" };
	char select[256], update[256];
	sqlite3 *db;
	sqlite3_stmt *statement;
	bool known = false;

	if (argc != 6 || (strcmp(argv[2], "op") != 0 && strcmp(argv[2], "version") != 0)) {
		fputs("usage: hearth-test-tool flip DB op|version N COLUMN POS|length\n", stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof columns / sizeof *columns; i++)
		known = known || strcmp(argv[4], columns[i]) == 0;
	if (!known || sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 2;
	bool op = strcmp(argv[2], "op") == 0;
	const char *key = op ? "replica, counter" : "id";
	snprintf(select, sizeof select, "SELECT %s, %s, typeof(%s) FROM %s ORDER BY replica, "
	    "counter LIMIT 1 OFFSET %ld", key, argv[4], argv[4], argv[2], atol(argv[3]));
	snprintf(update, sizeof update, op ? "UPDATE op SET %s = ?3 WHERE replica = ?1 AND "
	    "counter = ?2" : "UPDATE version SET %s = ?3 WHERE id = ?1 AND ?2 IS NULL", argv[4]);
	int status = 1;
	if (sqlite3_prepare_v2(db, select, -1, &statement, NULL) == SQLITE_OK &&
	    sqlite3_step(statement) == SQLITE_ROW) {
		int at = op ? 2 : 1;
		size_t length = (size_t)sqlite3_column_bytes(statement, at);
		uint8_t *bytes = malloc(length + 1);
		memcpy(bytes, sqlite3_column_blob(statement, at), length);
		bool text = strcmp((const char *)sqlite3_column_text(statement, at + 1), "text") == 0;
		size_t pos = (size_t)atol(argv[5]);
		if (strcmp(argv[5], "length") == 0) {
			printf("%zu\n", length);
			status = 0;
		} else if (pos < length) {
			sqlite3_stmt *write;
			bytes[pos] ^= 1;
			sqlite3_prepare_v2(db, update, -1, &write, NULL);
			sqlite3_bind_value(write, 1, sqlite3_column_value(statement, 0));
			if (op)
				sqlite3_bind_value(write, 2, sqlite3_column_value(statement, 1));
			if (text)
				sqlite3_bind_text(write, 3, (const char *)bytes, (int)length, SQLITE_STATIC);
			else
				sqlite3_bind_blob(write, 3, bytes, (int)length, SQLITE_STATIC);
			status = sqlite3_step(write) == SQLITE_DONE ? 0 : 1;
			sqlite3_finalize(write);
		}
		free(bytes);
	}
	sqlite3_finalize(statement);
	sqlite3_close(db);
	return status;
}

/* row-drop DB op|version N: deletes the N-th row (from 0, in replica and
 * counter order) of the op log or the history: a COMMIT without its
 * version, or a version without its COMMIT, for fsck to find. */
static int
tool_row_drop(int argc, char **argv)
{
	char sql[256];
	sqlite3 *db;

	if (argc != 4 || (strcmp(argv[2], "op") != 0 && strcmp(argv[2], "version") != 0)) {
		fputs("usage: hearth-test-tool row-drop DB op|version N\n", stderr);
		return 2;
	}
	snprintf(sql, sizeof sql, "DELETE FROM %s WHERE (replica, counter) = (SELECT replica, "
	    "counter FROM %s ORDER BY replica, counter LIMIT 1 OFFSET %ld)", argv[2], argv[2],
	    atol(argv[3]));
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 2;
	int status = sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK && sqlite3_changes(db) == 1;
	if (!status)
		fprintf(stderr, "row-drop: %s\n", sqlite3_errmsg(db));
	sqlite3_close(db);
	return status ? 0 : 1;
}

/* One statement on a store's meta table, KEY as ?1 and VALUE (an integer)
 * as ?2 where given: 0 when it changed one row. */
static int
meta_change(const char *path, const char *sql, const char *key, const char *value)
{
	sqlite3 *db;
	sqlite3_stmt *statement;
	int status = 1;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return 1;
	if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) == SQLITE_OK) {
		sqlite3_bind_text(statement, 1, key, -1, SQLITE_STATIC);
		if (value != NULL)
			sqlite3_bind_int64(statement, 2, strtoll(value, NULL, 10));
		status = sqlite3_step(statement) == SQLITE_DONE && sqlite3_changes(db) == 1 ? 0 : 1;
		sqlite3_finalize(statement);
	}
	sqlite3_close(db);
	return status;
}

/* meta-delete DB KEY: removes one named value from a store's meta table,
 * as a store made before that value existed lacks it. */
static int
tool_meta_delete(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: hearth-test-tool meta-delete DB KEY\n", stderr);
		return 2;
	}
	return meta_change(argv[1], "DELETE FROM meta WHERE key = ?1", argv[2], NULL);
}

/* meta-set DB KEY INTEGER: sets one named value of a store's meta table,
 * as damage or a defect could have set it. */
static int
tool_meta_set(int argc, char **argv)
{
	if (argc != 4) {
		fputs("usage: hearth-test-tool meta-set DB KEY INTEGER\n", stderr);
		return 2;
	}
	return meta_change(argv[1], "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
	    argv[2], argv[3]);
}

/* store-schema DB: the store's format number, then the name of each of its
 * tables and indexes, sorted, one a line (what a migration must leave). */
static int
tool_store_schema(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *statement;

	if (argc != 2) {
		fputs("usage: hearth-test-tool store-schema DB\n", stderr);
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return 1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, NULL) != SQLITE_OK ||
	    sqlite3_step(statement) != SQLITE_ROW) {
		sqlite3_close(db);
		return 1;
	}
	printf("format %d\n", sqlite3_column_int(statement, 0));
	sqlite3_finalize(statement);
	if (sqlite3_prepare_v2(db, "SELECT type, name FROM sqlite_master WHERE name NOT LIKE "
	    "'sqlite_%' ORDER BY name", -1, &statement, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 1;
	}
	while (sqlite3_step(statement) == SQLITE_ROW)
		printf("%s %s\n", (const char *)sqlite3_column_text(statement, 0),
		    (const char *)sqlite3_column_text(statement, 1));
	sqlite3_finalize(statement);
	sqlite3_close(db);
	return 0;
}

/* ---- the oracle's model side (tests/lib/oracle.pl) ---------------------------------- */

/* Appends bytes as tree_manifest (tests/lib/manifest.sh) writes a path:
 * every byte outside printable ASCII, the space and the backslash as \xNN. */
static void
manifest_escape(const uint8_t *bytes, size_t length, struct buffer *out)
{
	for (size_t i = 0; i < length; i++) {
		if (bytes[i] >= 0x21 && bytes[i] <= 0x7e && bytes[i] != '\\')
			buffer_append_byte(out, bytes[i]);
		else
			buffer_printf(out, "\\x%02x", bytes[i]);
	}
}

static int
compare_hashes(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct hash));
}

/* The digest of a set of ops: the hash of their encodings' hashes, sorted,
 * so two stores holding the same ops agree whatever their local order. */
static void
derive_ops_digest(struct hash *hashes, size_t count, char hex[HASH_HEX])
{
	struct hash digest;

	if (count > 0)
		qsort(hashes, count, sizeof *hashes, compare_hashes);
	struct hash_state *state = hash_begin();
	for (size_t i = 0; i < count; i++)
		hash_update(state, hashes[i].bytes, HASH_BYTES);
	hash_finish(state, &digest);
	hash_hex(&digest, hex);
}

/* Every op the store holds, or with vv only those at or below it, decoded
 * into arena. The model derives from these alone. With digest, also the
 * digest of every op held (derive_ops_digest). */
static int
derive_load_ops(hearth *home, const struct vv *vv, struct op **ops, size_t *count,
    struct arena *arena, char *digest)
{
	sqlite3_stmt *rows = store_statement(&home->store, "SELECT body FROM op");
	struct hash *hashes = NULL;
	size_t capacity = 0, hash_count = 0, hash_capacity = 0;
	char reason[160];
	int step;

	*ops = NULL;
	*count = 0;
	while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
		const uint8_t *body = sqlite3_column_blob(rows, 0);
		size_t length = (size_t)sqlite3_column_bytes(rows, 0);
		struct op op;
		if (!op_decode(body, length, &op, arena, reason, sizeof reason)) {
			fprintf(stderr, "derive: an op does not decode: %s\n", reason);
			sqlite3_reset(rows);
			free(hashes);
			return 1;
		}
		if (digest != NULL) {
			hashes = array_grow(hashes, &hash_capacity, hash_count + 1, sizeof *hashes);
			struct hash_state *state = hash_begin();
			hash_update(state, body, length);
			hash_finish(state, &hashes[hash_count++]);
		}
		if (vv != NULL && !vv_includes(vv, op.id))
			continue;
		*ops = array_grow(*ops, &capacity, *count + 1, sizeof **ops);
		(*ops)[(*count)++] = op;
	}
	sqlite3_reset(rows);
	if (digest != NULL)
		derive_ops_digest(hashes, hash_count, digest);
	free(hashes);
	if (step != SQLITE_DONE) {
		fprintf(stderr, "derive: cannot read the ops: %s\n", sqlite3_errmsg(home->store.db));
		return 1;
	}
	return 0;
}

/* One manifest line for a live node: path, then "d", "f MODE SHA256" or
 * "l TARGET" (a link's target is its blob's bytes). A folder has no mode in
 * the model, so none is written; the checker drops folders' modes. */
static int
derive_line(hearth *home, const struct state *state, const struct state_node *node,
    struct buffer *line)
{
	struct buffer path;
	char hex[HASH_HEX];
	struct hearth_error error;

	buffer_init(&path);
	state_path(state, node->id, &path);
	manifest_escape(path.data, path.length, line);
	buffer_free(&path);
	if (node->kind == NODE_DIR) {
		buffer_printf(line, " d");
		return 0;
	}
	if (!node->has_content) {
		buffer_printf(line, node->kind == NODE_FILE ? " f - no-content" : " l no-content");
		return 0;
	}
	if (node->kind == NODE_FILE) {
		hash_hex(&node->blob, hex);
		buffer_printf(line, " f %o %s", node->mode & 07777, hex);
		return 0;
	}
	struct buffer target;
	bool truncated;
	buffer_init(&target);
	if (blob_read(home, &node->blob, 65536, &target, &truncated, &error) != 0) {
		fprintf(stderr, "derive: cannot read a link's target: %s\n", error.message);
		buffer_free(&target);
		return 1;
	}
	buffer_printf(line, " l ");
	manifest_escape(target.data, target.length, line);
	buffer_free(&target);
	return 0;
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints the manifest of every live node of state, sorted by bytes. */
static int
derive_print(hearth *home, const struct state *state)
{
	char **lines = NULL;
	size_t count = 0, capacity = 0;
	int status = 0;

	for (size_t i = 0; i < state->node_count && status == 0; i++) {
		const struct state_node *node = &state->nodes[i];
		if (!node->live || node_id_equal(node->id, NODE_ROOT))
			continue;
		struct buffer line;
		buffer_init(&line);
		status = derive_line(home, state, node, &line);
		lines = array_grow(lines, &capacity, count + 1, sizeof *lines);
		lines[count++] = strdup(buffer_string(&line));
		buffer_free(&line);
	}
	if (count > 0)
		qsort(lines, count, sizeof *lines, compare_strings);
	for (size_t i = 0; i < count; i++) {
		if (status == 0)
			printf("%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return status;
}

/* derive [--ops] DIR [VERSION]: the tree the pure model (state_derive)
 * derives from the ops the Home at DIR holds, all of them (head) or those
 * at or below VERSION's version vector, as a manifest in tree_manifest's
 * form. --ops writes first a line "ops HEX": the digest of every op held,
 * equal on two replicas exactly when they hold the same ops. The oracle
 * (tests/lib/oracle.pl) compares every view of hearth with these. */
static int
tool_derive(int argc, char **argv)
{
	struct hearth_open_options options = { 0 };
	struct hearth_error error;
	struct history_version version;
	char digest[HASH_HEX];
	hearth *home;

	bool with_digest = argc > 1 && strcmp(argv[1], "--ops") == 0;
	if (with_digest) {
		argc--;
		argv++;
	}
	if (argc < 2 || argc > 3) {
		fputs("usage: hearth-test-tool derive [--ops] DIR [VERSION]\n", stderr);
		return 2;
	}
	options.start_dir = argv[1];
	if (hearth_open(&home, &options, &error) != 0) {
		fprintf(stderr, "derive: %s\n", error.message);
		return 1;
	}
	if (argc == 3 && history_resolve(home, argv[2], &version, &error) != 0) {
		fprintf(stderr, "derive: %s\n", error.message);
		hearth_close(home);
		return 1;
	}
	struct arena arena;
	struct op *ops;
	size_t count;
	arena_init(&arena, 1 << 16);
	int status = derive_load_ops(home, argc == 3 ? &version.vv : NULL, &ops, &count, &arena,
	    with_digest ? digest : NULL);
	if (status == 0) {
		struct state state;
		state_derive(ops, count, &state);
		if (with_digest)
			printf("ops %s\n", digest);
		status = derive_print(home, &state);
		state_free(&state);
	}
	free(ops);
	arena_free(&arena);
	if (argc == 3)
		history_version_free(&version);
	hearth_close(home);
	return status;
}

/* frames-read DIR export OUT | frames-read DIR checkout: exports head to
 * OUT, or checks head out, then prints how many pack frames the reader
 * loaded and how many the store holds: a tree written in pack order loads
 * each frame once. */
static int
tool_frames_read(int argc, char **argv)
{
	struct hearth_error error;
	hearth *home;

	if (!(argc == 4 && strcmp(argv[2], "export") == 0) &&
	    !(argc == 3 && strcmp(argv[2], "checkout") == 0)) {
		fputs("usage: hearth-test-tool frames-read DIR export OUT | frames-read DIR checkout\n",
		    stderr);
		return 2;
	}
	struct hearth_open_options open_options = { .start_dir = argv[1] };
	if (hearth_open(&home, &open_options, &error) != 0) {
		fprintf(stderr, "frames-read: %s\n", error.message);
		return 1;
	}
	int status;
	if (argc == 4) {
		status = hearth_export(home, NULL, argv[3], NULL, &error);
	} else {
		struct hearth_checkout_options options = { 0 };
		struct hearth_checkout_result result;
		status = hearth_checkout(home, &options, NULL, &result, &error);
		hearth_checkout_result_free(&result);
	}
	sqlite3_stmt *statement;
	long long held = -1;
	if (sqlite3_prepare_v2(home->store.db, "SELECT COUNT(*) FROM (SELECT DISTINCT pack, frame "
		"FROM chunk)", -1, &statement, NULL) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW)
		held = sqlite3_column_int64(statement, 0);
	sqlite3_finalize(statement);
	if (status == 0)
		printf("loaded %llu frames of %lld\n",
		    (unsigned long long)pack_reader_frames_loaded(home->reader), held);
	else
		fprintf(stderr, "frames-read: %s\n", error.message);
	hearth_close(home);
	return hearth_exit_status(status);
}

/* log PATH of one path both ways: from its scope and from whole trees.
 * Every path asked was held by head or by some version, so either way
 * refusing it is a defect too (a clash loser's shown name was). */
static bool
log_path_agrees(hearth *home, const char *path, size_t *listed)
{
	struct hearth_log_query query = { .path = path };
	struct hearth_version_list scoped, whole;
	struct hearth_error error;
	int by_scope = history_log_path_by(home, &query, false, &scoped, &error);
	int by_whole = history_log_path_by(home, &query, true, &whole, &error);

	if (by_scope != 0 || by_whole != 0) {
		printf("MISMATCH %s: scope %d, whole trees %d (%s)\n", path, by_scope, by_whole,
		    error.message);
		if (by_scope == 0)
			hearth_version_list_free(&scoped);
		if (by_whole == 0)
			hearth_version_list_free(&whole);
		return false;
	}
	bool same = scoped.count == whole.count;
	for (size_t i = 0; same && i < scoped.count; i++)
		same = strcmp(scoped.items[i].id, whole.items[i].id) == 0 &&
		    strcmp(scoped.items[i].path ? scoped.items[i].path : "",
			whole.items[i].path ? whole.items[i].path : "") == 0;
	if (!same) {
		printf("MISMATCH %s:\n", path);
		for (size_t i = 0; i < scoped.count; i++)
			printf("  scope %.8s %s\n", scoped.items[i].id, scoped.items[i].path);
		for (size_t i = 0; i < whole.count; i++)
			printf("  whole %.8s %s\n", whole.items[i].id, whole.items[i].path);
	}
	*listed += scoped.count;
	hearth_version_list_free(&scoped);
	hearth_version_list_free(&whole);
	return same;
}

/* The paths of every version's tree that head lacks, each once. */
static int
gone_paths(hearth *home, struct tree *head, char ***out, size_t *count)
{
	struct hearth_log_query query = { 0 };
	struct hearth_version_list versions;
	struct hearth_error error;
	size_t capacity = 0;

	*out = NULL;
	*count = 0;
	if (hearth_log(home, &query, &versions, &error) != 0) {
		fprintf(stderr, "log-paths: %s\n", error.message);
		return 1;
	}
	for (size_t v = 0; v < versions.count; v++) {
		struct vv after, before;
		struct tree tree;
		if (compare_version_vvs(home, versions.items[v].id, &after, &before, &error) != 0)
			continue;
		if (tree_load(home, &after, &tree, &error) == 0) {
			for (size_t i = 0; i < tree.count; i++) {
				const char *path = tree_path(&tree, &tree.nodes[i]);
				bool seen = tree_lookup(head, path) != NULL;
				for (size_t j = 0; j < *count && !seen; j++)
					seen = strcmp((*out)[j], path) == 0;
				if (seen)
					continue;
				*out = array_grow(*out, &capacity, *count + 1, sizeof **out);
				(*out)[(*count)++] = array_strdup(path);
			}
			tree_free(&tree);
		}
		vv_free(&after);
		vv_free(&before);
	}
	hearth_version_list_free(&versions);
	return 0;
}

/* log-paths DIR: for every file and folder of head, and every path of an
 * older version that head lacks (found by looking back through history),
 * log PATH from its scope lists what it lists from each version's whole
 * trees. */
static int
tool_log_paths(int argc, char **argv)
{
	hearth *home;
	struct hearth_error error;
	struct tree head;
	size_t paths = 0, listed = 0, differ = 0, gone_count = 0;
	char **gone = NULL;

	if (argc != 2)
		return 2;
	int status = open_home(argc, argv, &home);
	if (status != 0)
		return status;
	if (tree_load_head(home, &head, &error) != 0) {
		fprintf(stderr, "log-paths: %s\n", error.message);
		hearth_close(home);
		return 1;
	}
	for (size_t i = 0; i < head.count; i++, paths++)
		differ += !log_path_agrees(home, tree_path(&head, &head.nodes[i]), &listed);
	status = gone_paths(home, &head, &gone, &gone_count);
	for (size_t i = 0; i < gone_count; i++) {
		differ += !log_path_agrees(home, gone[i], &listed);
		free(gone[i]);
	}
	free(gone);
	tree_free(&head);
	hearth_close(home);
	printf("%zu paths and %zu gone from head, %zu versions listed, %zu differ\n", paths,
	    gone_count, listed, differ);
	return status != 0 || differ != 0 ? 1 : 0;
}

static bool
same_text(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

static bool
same_changes(const struct hearth_change_list *a, const struct hearth_change_list *b)
{
	bool same = a->count == b->count;
	for (size_t i = 0; same && i < a->count; i++) {
		const struct hearth_change *x = &a->items[i], *y = &b->items[i];
		same = x->kind == y->kind && x->entry_kind == y->entry_kind &&
		    x->content_changed == y->content_changed && x->size == y->size &&
		    same_text(x->path, y->path) && same_text(x->old_path, y->old_path) &&
		    same_text(x->root, y->root) && same_text(x->old_root, y->old_root) &&
		    same_text(x->merged_from, y->merged_from);
	}
	return same;
}

static void
print_changes(const char *label, const struct hearth_change_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		printf("  %s %d %s%s%s\n", label, (int)list->items[i].kind, list->items[i].path,
		    list->items[i].old_path ? " <- " : "",
		    list->items[i].old_path ? list->items[i].old_path : "");
}

/* show of one version both ways: from the scope of what it changed and
 * from its whole trees. *scoped says whether the scope decided alone. */
static bool
show_agrees(hearth *home, const char *id, bool *scoped)
{
	struct hearth_change_list by_scope, by_whole;
	struct hearth_error error;
	struct vv after, before;
	struct path_scope scope;

	*scoped = false;
	if (compare_version_vvs(home, id, &after, &before, &error) == 0) {
		if (path_scope_open_changes(home, &after, &before, &scope, &error) == 1) {
			*scoped = !scope.whole;
			path_scope_close(&scope);
		}
		vv_free(&after);
		vv_free(&before);
	}
	int scope_status = history_show_by(home, id, NULL, false, &by_scope, &error);
	int whole_status = history_show_by(home, id, NULL, true, &by_whole, &error);
	if (scope_status != 0 || whole_status != 0) {
		printf("MISMATCH %.8s: scope %d, whole trees %d (%s)\n", id, scope_status,
		    whole_status, error.message);
		if (scope_status == 0)
			hearth_change_list_free(&by_scope);
		if (whole_status == 0)
			hearth_change_list_free(&by_whole);
		return false;
	}
	bool same = same_changes(&by_scope, &by_whole);
	if (!same) {
		printf("MISMATCH %.8s:\n", id);
		print_changes("scope", &by_scope);
		print_changes("whole", &by_whole);
	}
	hearth_change_list_free(&by_scope);
	hearth_change_list_free(&by_whole);
	return same;
}

/* show-versions DIR: for every version and for head, show lists from the
 * scope of what it changed what it lists from the whole trees. */
static int
tool_show_versions(int argc, char **argv)
{
	hearth *home;
	struct hearth_error error;
	struct hearth_log_query query = { 0 };
	struct hearth_version_list versions;
	size_t differ = 0, scoped_count = 0;
	bool scoped;

	if (argc != 2)
		return 2;
	int status = open_home(argc, argv, &home);
	if (status != 0)
		return status;
	if (hearth_log(home, &query, &versions, &error) != 0) {
		fprintf(stderr, "show-versions: %s\n", error.message);
		hearth_close(home);
		return 1;
	}
	for (size_t i = 0; i < versions.count; i++) {
		differ += !show_agrees(home, versions.items[i].id, &scoped);
		scoped_count += scoped;
	}
	differ += !show_agrees(home, "head", &scoped);
	scoped_count += scoped;
	printf("%zu versions and head, %zu from their scope, %zu differ\n", versions.count,
	    scoped_count, differ);
	hearth_version_list_free(&versions);
	hearth_close(home);
	return differ == 0 ? 0 : 1;
}

static const struct tool_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} tool_commands[] = {
	{ "hash", tool_hash, "hash FILE: print the blob id and size" },
	{ "log-paths", tool_log_paths,
	    "log-paths DIR: log PATH of every path of head, from its scope and from whole trees" },
	{ "show-versions", tool_show_versions,
	    "show-versions DIR: show of every version, from its scope and from whole trees" },
	{ "join-home", tool_join_home, "join-home DIR SOURCE: give an empty Home SOURCE's home id" },
	{ "sync-cancel", tool_sync_cancel,
	    "sync-cancel DIR PEER PHASE: a sync cancelled when progress reports PHASE" },
	{ "frame-recrc", tool_frame_recrc,
	    "frame-recrc PACK OFFSET: give a pack frame the CRC of its bytes as they are" },
	{ "find-names", tool_find_names,
	    "find-names DIR TEXT LIMIT: the paths the Home view's filter finds" },
	{ "probe", tool_probe, "probe URL: print the peer's home id, replica id, software" },
	{ "checkout-swap", tool_checkout_swap,
	    "checkout-swap DIR VERSION FOLDER TARGET: a folder swapped for a link mid-checkout" },
	{ "record-fifo", tool_record_fifo,
	    "record-fifo DIR FILE: FILE swapped for a FIFO between the scan and its read" },
	{ "ops", tool_ops, "ops DIR: print each op of the Home at DIR, hex, one a line" },
	{ "frame", tool_frame, "frame hello|raw|badcrc|oversized ...: write one sync frame" },
	{ "frames", tool_frames, "frames < STREAM: list the sync frames in a stream" },
	{ "fake-peer", tool_fake_peer,
	    "fake-peer CASE ...: an ssh to a server sending ops no honest peer sends" },
	{ "fake-push", tool_fake_push,
	    "fake-push CASE HOME_HEX: the stream of a client pushing fake-peer's ops" },
	{ "sync-proxy", tool_sync_proxy,
	    "sync-proxy up|down:TYPE:NTH:ACTION ... COMMAND: an ssh that meddles with a frame" },
	{ "marks", tool_marks, "marks DIR | marks -c CONFIG: the folders the index marks" },
	{ "store-format", tool_store_format, "store-format DB N: a store made to look like format N" },
	{ "store-schema", tool_store_schema, "store-schema DB: the format, tables and indexes" },
	{ "derive", tool_derive,
	    "derive [--ops] DIR [VERSION]: the model's tree of head or VERSION, as tree_manifest does" },
	{ "meta-delete", tool_meta_delete, "meta-delete DB KEY: drop a named value from meta" },
	{ "meta-set", tool_meta_set, "meta-set DB KEY INTEGER: set a named value of meta" },
	{ "frames-read", tool_frames_read,
	    "frames-read DIR export OUT | DIR checkout: frames loaded beside frames held" },
	{ "flip", tool_flip, "flip DB op|version N COLUMN POS|length: flip one bit of a stored op" },
	{ "row-drop", tool_row_drop, "row-drop DB op|version N: delete one row of the op log or history" },
};

int
main(int argc, char **argv)
{
	size_t count = sizeof tool_commands / sizeof *tool_commands;

	for (size_t i = 0; argc > 1 && i < count; i++)
		if (strcmp(argv[1], tool_commands[i].name) == 0)
			return tool_commands[i].run(argc - 1, argv + 1);
	fputs("usage: hearth-test-tool COMMAND ...\n", stderr);
	for (size_t i = 0; i < count; i++)
		fprintf(stderr, "  %s\n", tool_commands[i].help);
	return 2;
}
