/* The pipes a sync runs over (see transport.h): parsing a peer's address,
 * starting `hearth serve` locally or through ssh, reads and writes bounded
 * by a timeout and a cancel flag, and an ending that reaps the child and
 * says why it failed. Every wait is a poll that also drains the child's
 * stderr, so a chatty child can never block on a full error pipe. */
#include "backend/sync/transport.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TRANSPORT_ERRORS_MAX (16 * 1024)
#define TRANSPORT_POLL_SLICE_MS 100
/* How long a peer gets to exit after we close its pipes. */
#define TRANSPORT_EXIT_WAIT_MS 5000
#define TRANSPORT_ARGUMENTS_MAX 64
#define TRANSPORT_READ_AHEAD (256 * 1024)

/* ---- addresses ------------------------------------------------------------------- */

/* ssh reads a leading '-' as an option and a space or control byte splits
 * or garbles its command line: refuse them in user and host. */
static bool
transport_safe_word(const char *word)
{
	if (word[0] == '-')
		return false;
	for (const char *at = word; *at != '\0'; at++)
		if ((unsigned char)*at <= ' ' || *at == 0x7f || *at == '\'' || *at == '"' ||
		    *at == '\\' || *at == '`' || *at == '$' || *at == ';' || *at == '|' ||
		    *at == '&')
			return false;
	return true;
}

static int
transport_parse_ssh(const char *url, struct transport_address *out, struct hearth_error *error)
{
	const char *rest = url + strlen("ssh://");
	const char *slash = strchr(rest, '/');

	if (slash == NULL || slash[1] == '\0')
		return hearth_fail(error, HEARTH_USAGE, "%s: an ssh URL needs a path: "
		    "ssh://[user@]host[:port]/path", url);
	char authority[600];
	if ((size_t)(slash - rest) >= sizeof authority)
		return hearth_fail(error, HEARTH_USAGE, "%s: host name too long", url);
	memcpy(authority, rest, (size_t)(slash - rest));
	authority[slash - rest] = '\0';

	char *host = authority;
	char *at = strrchr(authority, '@');
	if (at != NULL) {
		*at = '\0';
		host = at + 1;
		if (authority[0] == '\0' || strlen(authority) >= sizeof out->user)
			return hearth_fail(error, HEARTH_USAGE, "%s: bad user name", url);
		memcpy(out->user, authority, strlen(authority) + 1);
	}
	char *port = NULL;
	if (host[0] == '[') {
		/* [IPv6]:port */
		char *close = strchr(host, ']');
		if (close == NULL)
			return hearth_fail(error, HEARTH_USAGE, "%s: unclosed '[' in the host", url);
		*close = '\0';
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return hearth_fail(error, HEARTH_USAGE, "%s: bad host", url);
		host++;
	} else {
		char *colon = strchr(host, ':');
		if (colon != NULL) {
			*colon = '\0';
			port = colon + 1;
		}
	}
	if (host[0] == '\0' || strlen(host) >= sizeof out->host)
		return hearth_fail(error, HEARTH_USAGE, "%s: an ssh URL needs a host", url);
	memcpy(out->host, host, strlen(host) + 1);
	if (port != NULL) {
		char *end;
		long number = strtol(port, &end, 10);
		if (port[0] == '\0' || *end != '\0' || number < 1 || number > 65535)
			return hearth_fail(error, HEARTH_USAGE, "%s: bad port '%s'", url, port);
		snprintf(out->port, sizeof out->port, "%ld", number);
	}
	if (!transport_safe_word(out->host) || (out->user[0] && !transport_safe_word(out->user)))
		return hearth_fail(error, HEARTH_USAGE, "%s: the user or host holds characters "
		    "ssh would misread", url);
	/* ssh://host/~/notes means notes in the remote user's home, as git
	 * reads it; `hearth serve` expands the ~. */
	const char *path = strncmp(slash, "/~", 2) == 0 ? slash + 1 : slash;
	if (strlen(path) >= sizeof out->path)
		return hearth_fail(error, HEARTH_USAGE, "%s: path too long", url);
	snprintf(out->path, sizeof out->path, "%s", path);
	out->kind = TRANSPORT_SSH;
	return 0;
}

/* A local peer that is not there, said plainly; "host:path", scp's way of
 * naming a folder over ssh, gets the URL hearth reads instead. */
static int
transport_missing(const char *url, struct hearth_error *error)
{
	size_t head = strcspn(url, "/:");

	if (errno != ENOENT && errno != ENOTDIR)
		return hearth_fail_errno(error, "peer %s", url);
	if (url[head] == ':' && head > 0)
		return hearth_fail(error, HEARTH_USAGE, "%s: no such folder; a folder over ssh is "
		    "written ssh://%.*s%s%s", url, (int)head, url, url[head + 1] == '/' ? "" : "/~/",
		    url + head + 1);
	return hearth_fail(error, HEARTH_FAILED, "%s: no such folder (a peer is a Home's folder "
	    "or its config file, or ssh://[user@]host[:port]/path)", url);
}

int
transport_parse(const char *url, struct transport_address *out, struct hearth_error *error)
{
	memset(out, 0, sizeof *out);
	if (url == NULL || url[0] == '\0')
		return hearth_fail(error, HEARTH_USAGE, "no peer given");
	if (strncmp(url, "ssh://", 6) == 0)
		return transport_parse_ssh(url, out, error);
	const char *scheme = strstr(url, "://");
	if (scheme != NULL)
		return hearth_fail(error, HEARTH_USAGE, "%s: unknown kind of peer '%.*s://' (a path "
		    "or ssh://[user@]host[:port]/path)", url, (int)(scheme - url), url);
	char absolute[PATH_MAX];
	if (realpath(url, absolute) == NULL)
		return transport_missing(url, error);
	snprintf(out->path, sizeof out->path, "%s", absolute);
	out->kind = TRANSPORT_LOCAL;
	return 0;
}

/* ---- waiting ---------------------------------------------------------------------- */

static int64_t
transport_now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* A pipe holds 64 KiB by default: a sender of many small frames would wait
 * on its reader after every 64 KiB, and the two sides would take turns
 * rather than work at once. 1 MiB is what an unprivileged process may ask
 * (/proc/sys/fs/pipe-max-size); a refusal leaves the default, which works. */
static void
transport_widen_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

static void
transport_ignore_sigpipe(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof action);
	action.sa_handler = SIG_IGN;
	sigemptyset(&action.sa_mask);
	sigaction(SIGPIPE, &action, NULL);
}

/* Reads what the child has written to stderr so far, keeping the first
 * TRANSPORT_ERRORS_MAX bytes (the cause comes first, noise after). */
static void
transport_drain_errors(struct transport *transport)
{
	uint8_t block[4096];

	while (transport->errors_fd >= 0) {
		ssize_t got = read(transport->errors_fd, block, sizeof block);
		if (got > 0) {
			size_t room = TRANSPORT_ERRORS_MAX - transport->child_errors.length;
			buffer_append(&transport->child_errors, block, (size_t)got < room ? (size_t)got : room);
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return;
		close(transport->errors_fd);
		transport->errors_fd = -1;
	}
}

static bool
transport_cancelled(const struct transport *transport)
{
	return transport->cancel != NULL && atomic_load(transport->cancel) != 0;
}

static void
transport_tick(struct transport *transport)
{
	if (transport->tick != NULL)
		transport->tick(transport->tick_context);
}

/* Waits until fd is ready for events, the timeout passes or the caller
 * cancels. Hang-ups count as ready: the read or write that follows says
 * what happened. */
static int
transport_wait(struct transport *transport, int fd, short events, struct hearth_error *error)
{
	int64_t deadline = transport_now_ms() + transport->timeout_ms;

	for (;;) {
		if (transport_cancelled(transport))
			return hearth_fail(error, HEARTH_CANCELLED, "sync cancelled");
		int64_t left = deadline - transport_now_ms();
		if (left <= 0)
			return hearth_fail(error, HEARTH_FAILED, "no answer from %s for %.1f s; gave up "
			    "(HEARTH_SYNC_TIMEOUT_MS sets how long to wait)", transport->peer,
			    transport->timeout_ms / 1000.0);
		struct pollfd fds[2] = {
			{ .fd = fd, .events = events },
			{ .fd = transport->errors_fd, .events = POLLIN },
		};
		int slice = left < TRANSPORT_POLL_SLICE_MS ? (int)left : TRANSPORT_POLL_SLICE_MS;
		int ready = poll(fds, transport->errors_fd >= 0 ? 2 : 1, slice);
		transport_tick(transport);
		if (ready < 0 && errno != EINTR)
			return hearth_fail_errno(error, "cannot wait for %s", transport->peer);
		if (ready <= 0)
			continue;
		if (transport->errors_fd >= 0 && fds[1].revents != 0)
			transport_drain_errors(transport);
		if (fds[0].revents != 0)
			return 0;
	}
}

/* ---- the child ---------------------------------------------------------------------- */

/* Waits up to wait_ms for the child to exit (draining its stderr), then
 * kills it. Leaves the status in child_status. */
static void
transport_reap(struct transport *transport, int wait_ms)
{
	int64_t deadline = transport_now_ms() + wait_ms;

	while (transport->child > 0) {
		pid_t done = waitpid(transport->child, &transport->child_status, WNOHANG);
		if (done == transport->child || (done < 0 && errno != EINTR)) {
			transport->child = -1;
			break;
		}
		if (transport_now_ms() >= deadline) {
			kill(transport->child, SIGKILL);
			while (waitpid(transport->child, &transport->child_status, 0) < 0 &&
			    errno == EINTR)
				continue;
			transport->child = -1;
			break;
		}
		struct pollfd errors = { .fd = transport->errors_fd, .events = POLLIN };
		if (transport->errors_fd >= 0 && poll(&errors, 1, 20) > 0)
			transport_drain_errors(transport);
		else if (transport->errors_fd < 0) {
			struct timespec pause = { 0, 20 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
	transport_drain_errors(transport);
}

/* What to do about an ssh peer's failure, or "": status 127 is the far
 * side's shell finding no such program, 255 ssh's own failure, which in
 * batch is most often a question it was not allowed to ask. */
static const char *
transport_hint(struct transport *transport, int status)
{
	static char hint[1400];
	const char *name = transport->peer_name[0] ? transport->peer_name : "NAME";

	if (!transport->ssh)
		return "";
	if (status == 127) {
		snprintf(hint, sizeof hint, "; the far side has no '%s' on the PATH its "
		    "non-interactive shell gets: give its full path as remote_command under "
		    "this peer in the config (peers: - name: %s ... remote_command: "
		    "~/.local/bin/hearth; hearth.yaml(5)), or set HEARTH_REMOTE_COMMAND",
		    transport->remote, name);
		return hint;
	}
	if (status == 255 && transport->batch) {
		snprintf(hint, sizeof hint, "; the app runs ssh with no terminal (BatchMode), "
		    "so it cannot ask for a password or whether to trust a new host key: "
		    "make the first contact from a shell (`hearth sync %s`), or use a key "
		    "ssh-agent holds", name);
		return hint;
	}
	return "";
}

/* ", and its ssh exited with status 255: ssh: connect to host..." or "". */
static void
transport_describe_child(struct transport *transport, bool had_child, char *out, size_t size)
{
	const char *text = buffer_string(&transport->child_errors);
	size_t length = strlen(text);
	char trimmed[2048];

	out[0] = '\0';
	while (length > 0 && isspace((unsigned char)text[length - 1]))
		length--;
	/* The end of what it said: the cause is usually the last line. */
	const char *start = length > sizeof trimmed - 1 ? text + length - (sizeof trimmed - 1) : text;
	size_t kept = (size_t)(text + length - start);
	for (size_t i = 0; i < kept; i++)
		trimmed[i] = start[i] == '\n' ? ' ' : (start[i] < 0x20 ? '?' : start[i]);
	trimmed[kept] = '\0';
	if (!had_child) {
		if (kept > 0)
			snprintf(out, size, " (%s)", trimmed);
		return;
	}
	int status = transport->child_status;
	if (WIFSIGNALED(status))
		snprintf(out, size, "; the peer's process was killed by signal %d%s%s",
		    WTERMSIG(status), kept ? ": " : "", trimmed);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		snprintf(out, size, "; the peer's process exited with status %d%s%s%s",
		    WEXITSTATUS(status), kept ? ": " : "", trimmed,
		    transport_hint(transport, WEXITSTATUS(status)));
	else if (kept > 0)
		snprintf(out, size, "; it said: %s", trimmed);
}

/* The connection broke under a read or write: learn why from the child. */
static int
transport_fail_closed(struct transport *transport, const char *what, struct hearth_error *error)
{
	char cause[2400];
	bool had_child = transport->child > 0 || transport->child_status != 0;

	transport_reap(transport, 2000);
	transport_describe_child(transport, had_child, cause, sizeof cause);
	return hearth_fail(error, HEARTH_FAILED, "%s %s%s", transport->peer, what, cause);
}

static int
transport_set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -1;
	return flags;
}

/* Appends "word" to a shell command line in single quotes, so the remote
 * shell passes the path through whatever bytes it holds. */
static void
transport_shell_quote(struct buffer *out, const char *word)
{
	buffer_append_byte(out, '\'');
	for (const char *at = word; *at != '\0'; at++) {
		if (*at == '\'')
			buffer_append(out, "'\\''", 4);
		else
			buffer_append_byte(out, (uint8_t)*at);
	}
	buffer_append_byte(out, '\'');
}

int
transport_split_words(const char *line, struct buffer *storage, size_t *offsets, size_t max,
    size_t *count, struct hearth_error *error)
{
	const char *at = line;

	*count = 0;
	for (;;) {
		at += strspn(at, " \t\n");
		if (*at == '\0')
			return 0;
		if (*count == max)
			return hearth_fail(error, HEARTH_USAGE, "the ssh command '%s' has too many words",
			    line);
		offsets[(*count)++] = storage->length;
		char quote = '\0';
		for (; *at != '\0' && (quote != '\0' || strchr(" \t\n", *at) == NULL); at++) {
			if (quote == '\'' && *at != '\'') {
				buffer_append_byte(storage, (uint8_t)*at);
			} else if (*at == quote) {
				quote = '\0';
			} else if (quote == '\0' && (*at == '\'' || *at == '"')) {
				quote = *at;
			} else if (*at == '\\' && at[1] != '\0' &&
			    (quote == '\0' || strchr("\"\\$`", at[1]) != NULL)) {
				buffer_append_byte(storage, (uint8_t)*++at);
			} else {
				buffer_append_byte(storage, (uint8_t)*at);
			}
		}
		if (quote != '\0')
			return hearth_fail(error, HEARTH_USAGE, "the ssh command '%s' has an unclosed %s "
			    "quote", line, quote == '\'' ? "single" : "double");
		buffer_append_byte(storage, '\0');
	}
}

/* argv for the peer: local `PROGRAM serve PATH`, or `SSH... [-o
 * BatchMode=yes] [-p PORT] [USER@]HOST 'REMOTE serve PATH'`. Strings live
 * in storage. */
static int
transport_arguments(struct transport *transport, const struct transport_address *address,
    const char *program, const struct transport_command *how, char **argv,
    struct buffer *storage, struct hearth_error *error)
{
	size_t count = 0;

	if (address->kind == TRANSPORT_LOCAL) {
		argv[count++] = (char *)program;
		argv[count++] = (char *)"serve";
		argv[count++] = (char *)address->path;
		argv[count] = NULL;
		return 0;
	}
	/* Words of the ssh command, then the target, then the remote command
	 * as one word (ssh hands the remote shell one line anyway). Offsets
	 * first: storage may move while it grows. */
	size_t offsets[TRANSPORT_ARGUMENTS_MAX];
	const char *command = getenv("HEARTH_SSH");
	if (command == NULL || command[0] == '\0')
		command = how->ssh != NULL && how->ssh[0] != '\0' ? how->ssh : "ssh";
	buffer_reset(storage);
	int status = transport_split_words(command, storage, offsets, TRANSPORT_ARGUMENTS_MAX - 8,
	    &count, error);
	if (status != 0)
		return status;
	if (count == 0)
		return hearth_fail(error, HEARTH_USAGE, "the ssh command is empty");
	if (how->batch) {
		offsets[count++] = storage->length;
		buffer_append(storage, "-o", 3);
		offsets[count++] = storage->length;
		buffer_append(storage, "BatchMode=yes", 14);
	}
	if (address->port[0] != '\0') {
		offsets[count++] = storage->length;
		buffer_append(storage, "-p", 3);
		offsets[count++] = storage->length;
		buffer_append(storage, address->port, strlen(address->port) + 1);
	}
	offsets[count++] = storage->length;
	if (address->user[0] != '\0') {
		buffer_append(storage, address->user, strlen(address->user));
		buffer_append_byte(storage, '@');
	}
	buffer_append(storage, address->host, strlen(address->host) + 1);
	offsets[count++] = storage->length;
	const char *remote = getenv("HEARTH_REMOTE_COMMAND");
	if (remote == NULL || remote[0] == '\0')
		remote = how->remote != NULL && how->remote[0] != '\0' ? how->remote : "hearth";
	snprintf(transport->remote, sizeof transport->remote, "%s", remote);
	/* The remote command is a line for the far side's shell, as written. */
	buffer_append(storage, remote, strlen(remote));
	buffer_append(storage, " serve ", 7);
	transport_shell_quote(storage, address->path);
	buffer_append_byte(storage, '\0');
	for (size_t i = 0; i < count; i++)
		argv[i] = (char *)storage->data + offsets[i];
	argv[count] = NULL;
	return 0;
}

static void
transport_init(struct transport *transport)
{
	memset(transport, 0, sizeof *transport);
	transport->read_fd = transport->write_fd = transport->errors_fd = -1;
	transport->saved_read_flags = transport->saved_write_flags = -1;
	transport->child = -1;
	buffer_init(&transport->child_errors);
	buffer_init(&transport->ahead);
	const char *timeout = getenv("HEARTH_SYNC_TIMEOUT_MS");
	long milliseconds = timeout != NULL ? strtol(timeout, NULL, 10) : 0;
	transport->timeout_ms = milliseconds > 0 && milliseconds < INT_MAX ? (int)milliseconds
									   : TRANSPORT_TIMEOUT_MS;
	transport_ignore_sigpipe();
}

int
transport_open(struct transport *transport, const struct transport_address *address,
    const char *program, const struct transport_command *command, struct hearth_error *error)
{
	static const struct transport_command no_command = { 0 };
	char self[PATH_MAX];
	char *argv[TRANSPORT_ARGUMENTS_MAX];
	struct buffer storage;
	int to_child[2] = { -1, -1 }, from_child[2] = { -1, -1 }, errors[2] = { -1, -1 };
	int status;

	transport_init(transport);
	if (address->kind == TRANSPORT_LOCAL)
		snprintf(transport->peer, sizeof transport->peer, "%s", address->path);
	else
		snprintf(transport->peer, sizeof transport->peer, "%s%s%s", address->user,
		    address->user[0] ? "@" : "", address->host);
	if (program == NULL) {
		ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
		if (length <= 0)
			return hearth_fail_errno(error, "cannot find this program (/proc/self/exe)");
		self[length] = '\0';
		program = self;
	}
	if (command == NULL)
		command = &no_command;
	transport->ssh = address->kind == TRANSPORT_SSH;
	transport->batch = command->batch && transport->ssh;
	snprintf(transport->peer_name, sizeof transport->peer_name, "%s",
	    command->peer_name != NULL ? command->peer_name : "");
	buffer_init(&storage);
	if ((status = transport_arguments(transport, address, program, command, argv, &storage,
		 error)) != 0) {
		buffer_free(&storage);
		return status;
	}
	if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0 ||
	    pipe2(errors, O_CLOEXEC) != 0) {
		status = hearth_fail_errno(error, "cannot make pipes for %s", transport->peer);
		goto failed;
	}
	transport_widen_pipe(to_child[1]);
	transport_widen_pipe(from_child[0]);
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, errors[1], STDERR_FILENO);
	/* An ignored signal stays ignored across exec: the child gets
	 * SIGPIPE back as every program expects it. */
	posix_spawnattr_t attributes;
	sigset_t defaults;
	posix_spawnattr_init(&attributes);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_setsigdefault(&attributes, &defaults);
	/* In batch, a session of its own: no controlling terminal, so ssh
	 * (or anything it runs) cannot open /dev/tty and write on the app's
	 * screen or read its keys. */
	posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF |
	    (transport->batch ? POSIX_SPAWN_SETSID : 0));
	int spawned = address->kind == TRANSPORT_LOCAL
	    ? posix_spawn(&transport->child, argv[0], &actions, &attributes, argv, environ)
	    : posix_spawnp(&transport->child, argv[0], &actions, &attributes, argv, environ);
	posix_spawnattr_destroy(&attributes);
	posix_spawn_file_actions_destroy(&actions);
	if (spawned != 0) {
		errno = spawned;
		transport->child = -1;
		status = hearth_fail_errno(error, "cannot run %s for %s", argv[0], transport->peer);
		goto failed;
	}
	close(to_child[0]);
	close(from_child[1]);
	close(errors[1]);
	transport->write_fd = to_child[1];
	transport->read_fd = from_child[0];
	transport->errors_fd = errors[0];
	transport_set_nonblocking(transport->write_fd);
	transport_set_nonblocking(transport->read_fd);
	transport_set_nonblocking(transport->errors_fd);
	buffer_free(&storage);
	return 0;
failed:
	for (int i = 0; i < 2; i++) {
		if (to_child[i] >= 0)
			close(to_child[i]);
		if (from_child[i] >= 0)
			close(from_child[i]);
		if (errors[i] >= 0)
			close(errors[i]);
	}
	buffer_free(&storage);
	return status;
}

void
transport_attach(struct transport *transport, int read_fd, int write_fd, const char *peer)
{
	transport_init(transport);
	transport->attached = true;
	transport->read_fd = read_fd;
	transport->write_fd = write_fd;
	snprintf(transport->peer, sizeof transport->peer, "%s", peer);
	/* Restored at close: the fds may be a terminal the shell keeps using. */
	transport->saved_read_flags = transport_set_nonblocking(read_fd);
	transport->saved_write_flags = transport_set_nonblocking(write_fd);
}

/* ---- reading and writing ------------------------------------------------------------ */

/* Takes what was read ahead; returns the bytes copied. */
static size_t
transport_take_ahead(struct transport *transport, uint8_t *out, size_t length)
{
	size_t held = transport->ahead.length - transport->ahead_offset;
	size_t taken = held < length ? held : length;

	if (taken == 0)
		return 0;
	memcpy(out, transport->ahead.data + transport->ahead_offset, taken);
	transport->ahead_offset += taken;
	if (transport->ahead_offset == transport->ahead.length) {
		buffer_reset(&transport->ahead);
		transport->ahead_offset = 0;
	}
	return taken;
}

int
transport_read(struct transport *transport, void *out, size_t length, struct hearth_error *error)
{
	uint8_t *bytes = out;
	size_t done = 0;

	if (transport->ahead.length > transport->ahead_offset)
		done = transport_take_ahead(transport, bytes, length);
	while (done < length) {
		if (transport->read_fd < 0)
			return hearth_fail(error, HEARTH_FAILED, "%s: connection closed", transport->peer);
		/* A big want (a chunk) goes straight to its place; a small one
		 * reads ahead as much as the pipe holds. */
		bool direct = length - done >= TRANSPORT_READ_AHEAD;
		if (!direct)
			buffer_reserve(&transport->ahead, TRANSPORT_READ_AHEAD);
		ssize_t got = direct ? read(transport->read_fd, bytes + done, length - done)
				     : read(transport->read_fd, transport->ahead.data, TRANSPORT_READ_AHEAD);
		if (got > 0) {
			transport->bytes_read += (uint64_t)got;
			transport_tick(transport);
			if (direct) {
				done += (size_t)got;
			} else {
				transport->ahead.length = (size_t)got;
				done += transport_take_ahead(transport, bytes + done, length - done);
			}
			continue;
		}
		if (got == 0)
			return transport_fail_closed(transport, "closed the connection", error);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return hearth_fail_errno(error, "cannot read from %s", transport->peer);
		int status = transport_wait(transport, transport->read_fd, POLLIN, error);
		if (status != 0)
			return status;
	}
	return 0;
}

int
transport_write(struct transport *transport, const void *data, size_t length,
    struct hearth_error *error)
{
	const uint8_t *bytes = data;
	size_t done = 0;

	while (done < length) {
		if (transport->write_fd < 0)
			return hearth_fail(error, HEARTH_FAILED, "%s: connection closed", transport->peer);
		/* The peer's pipe is not the store or the tree: io.h's fault
		 * injection counts store and tree writes only. */
		ssize_t put = write(transport->write_fd, bytes + done, length - done);
		if (put > 0) {
			done += (size_t)put;
			transport->bytes_written += (uint64_t)put;
			transport_tick(transport);
			continue;
		}
		if (put < 0 && errno == EINTR)
			continue;
		if (put < 0 && errno == EPIPE)
			return transport_fail_closed(transport, "closed the connection", error);
		if (put < 0 && errno != EAGAIN)
			return hearth_fail_errno(error, "cannot write to %s", transport->peer);
		int status = transport_wait(transport, transport->write_fd, POLLOUT, error);
		if (status != 0)
			return status;
	}
	return 0;
}

/* The first bytes were no frame: show them, since the usual cause is a
 * remote login script printing text on ssh's standard output. */
static int
transport_fail_first_frame(struct transport *transport, const uint8_t *header,
    const char *reason, struct hearth_error *error)
{
	uint8_t more[64];
	char shown[128];
	size_t length = 0, count = WIRE_HEADER_SIZE;
	ssize_t got = (ssize_t)transport_take_ahead(transport, more, sizeof more);

	for (size_t i = 0; i < count + (got > 0 ? (size_t)got : 0) && length < sizeof shown - 5; i++) {
		uint8_t byte = i < count ? header[i] : more[i - count];
		if (byte >= 0x20 && byte < 0x7f)
			shown[length++] = (char)byte;
		else
			length += (size_t)snprintf(shown + length, sizeof shown - length, "\\x%02x", byte);
	}
	shown[length] = '\0';
	return hearth_fail(error, HEARTH_FAILED, "%s does not speak hearth's sync protocol (%s); "
	    "it sent \"%s\". Does the peer's login shell print text, or is another program "
	    "called hearth there?", transport->peer, reason, shown);
}

int
transport_read_frame(struct transport *transport, struct buffer *storage, struct wire_frame *out,
    struct hearth_error *error)
{
	struct hearth_error failure;
	size_t length, used;
	bool first = transport->bytes_read == 0;
	int status;

	buffer_reset(storage);
	buffer_reserve(storage, WIRE_HEADER_SIZE);
	if ((status = transport_read(transport, storage->data, WIRE_HEADER_SIZE, error)) != 0)
		return status;
	storage->length = WIRE_HEADER_SIZE;
	if (!wire_parse_header(storage->data, &length, &failure)) {
		if (first)
			return transport_fail_first_frame(transport, storage->data, failure.message, error);
		return hearth_fail(error, HEARTH_FAILED, "%s sent a bad frame: %s", transport->peer,
		    failure.message);
	}
	buffer_reserve(storage, length + WIRE_TRAILER_SIZE);
	if ((status = transport_read(transport, storage->data + WIRE_HEADER_SIZE,
		 length + WIRE_TRAILER_SIZE, error)) != 0)
		return status;
	storage->length += length + WIRE_TRAILER_SIZE;
	if (wire_parse_frame(storage->data, storage->length, out, &used, &failure) != 1)
		return hearth_fail(error, HEARTH_FAILED, "%s sent a bad frame: %s", transport->peer,
		    failure.message);
	return 0;
}

/* ---- the end ----------------------------------------------------------------------- */

int
transport_close(struct transport *transport, struct hearth_error *error)
{
	bool had_child = transport->child > 0;

	if (transport->attached) {
		if (transport->saved_read_flags >= 0)
			fcntl(transport->read_fd, F_SETFL, transport->saved_read_flags);
		if (transport->saved_write_flags >= 0)
			fcntl(transport->write_fd, F_SETFL, transport->saved_write_flags);
		transport->read_fd = transport->write_fd = -1;
		buffer_free(&transport->child_errors);
		buffer_free(&transport->ahead);
		return 0;
	}
	/* Closing both directions tells the child to stop: a read sees the end
	 * and a write fails, whatever it was doing. */
	if (transport->write_fd >= 0)
		close(transport->write_fd);
	if (transport->read_fd >= 0)
		close(transport->read_fd);
	transport->write_fd = transport->read_fd = -1;
	transport_reap(transport, TRANSPORT_EXIT_WAIT_MS);
	int status = 0;
	if (had_child && (!WIFEXITED(transport->child_status) ||
	    WEXITSTATUS(transport->child_status) != 0)) {
		char cause[2400];
		transport_describe_child(transport, true, cause, sizeof cause);
		status = hearth_fail(error, HEARTH_FAILED, "%s%s", transport->peer, cause);
	}
	if (transport->errors_fd >= 0)
		close(transport->errors_fd);
	transport->errors_fd = -1;
	buffer_free(&transport->child_errors);
	buffer_free(&transport->ahead);
	return status;
}
