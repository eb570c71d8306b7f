/* Transports (docs/DESIGN.md §8): the byte pipe a sync runs over. A peer is a path
 * on this machine, reached by running this same program as
 * `hearth serve PATH` with pipes, or ssh://[user@]host[:port]/path, reached
 * by running the ssh command (HEARTH_SSH, else the peer's or the config's
 * ssh_command, split into words as a shell would) as
 * `SSH [-p PORT] [USER@]HOST hearth serve 'PATH'`; the remote program is
 * HEARTH_REMOTE_COMMAND, else the peer's remote_command, else `hearth`.
 * `hearth serve` itself attaches a transport to its standard input and
 * output.
 *
 * Every read and write waits at most timeout_ms for the peer and stops at
 * once when the caller's cancel flag is set. Closing reaps the child and,
 * when it failed, puts what it wrote on stderr into the error. SIGPIPE is
 * ignored from the first transport on: a peer that goes away is an error
 * to report, not a reason to die. */
#ifndef HEARTH_BACKEND_TRANSPORT_H
#define HEARTH_BACKEND_TRANSPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/disk/home.h"
#include "backend/sync/wire.h"
#include "model/buffer.h"

#define TRANSPORT_TIMEOUT_MS (300 * 1000)

enum transport_kind {
	TRANSPORT_LOCAL = 1,
	TRANSPORT_SSH = 2,
};

struct transport_address {
	enum transport_kind kind;
	char user[256];		/* "" when the URL names none */
	char host[256];
	char port[8];		/* "" when the URL names none */
	char path[4096];	/* local: absolute; ssh: as the remote should see it */
};

/* A path (made absolute) or an ssh:// URL. HEARTH_USAGE for anything else:
 * another scheme, a host or user that would read as an ssh option. */
int transport_parse(const char *url, struct transport_address *out, struct hearth_error *error);

struct transport {
	int read_fd, write_fd;
	bool attached;			/* fds are the caller's (serve), not pipes we made */
	int saved_read_flags, saved_write_flags;
	pid_t child;			/* -1 when there is none, or once reaped */
	int child_status;		/* waitpid status once reaped */
	int errors_fd;			/* the child's stderr, -1 when none */
	struct buffer child_errors;	/* what it wrote there (the first TRANSPORT_ERRORS_MAX) */
	int timeout_ms;
	const atomic_int *cancel;	/* may be NULL */
	/* Called after bytes move and at each poll slice while waiting (a
	 * tenth of a second), so progress moves inside a big frame and while
	 * the peer is slow; may be NULL. */
	void (*tick)(void *context);
	void *tick_context;
	char peer[4200];		/* how messages name the other end */
	/* An ssh peer: the program run there and the config's name for the
	 * peer, for the hint when it is not found; whether it ran in batch. */
	bool ssh, batch;
	char remote[512];
	char peer_name[128];
	uint64_t bytes_read, bytes_written;
	/* Bytes read ahead of what was asked: small frames come many to a
	 * read(2), not two reads each. */
	struct buffer ahead;
	size_t ahead_offset;
};

/* How an ssh peer is reached (each NULL for the default). */
struct transport_command {
	const char *ssh;	/* the peer's or the config's ssh_command */
	const char *remote;	/* the peer's remote_command */
	const char *peer_name;	/* as the config names it, for the hints; may be NULL */
	/* No questions (the app owns the terminal): ssh runs with BatchMode
	 * and without a controlling terminal, so it cannot prompt there. */
	bool batch;
};

/* Starts the peer's `hearth serve`. program is this program's path for a
 * local peer (NULL: /proc/self/exe); command says how to reach an ssh
 * peer (NULL: the defaults). */
int transport_open(struct transport *transport, const struct transport_address *address,
    const char *program, const struct transport_command *command, struct hearth_error *error);

/* Splits a command line into words as a POSIX shell would, without
 * expanding anything: single quotes keep everything, double quotes keep all
 * but \" \\ \$ \` and a backslash outside quotes keeps the next byte. Each
 * word goes into storage with its NUL, its offset into offsets (at most
 * max). HEARTH_USAGE for an unclosed quote or too many words. */
int transport_split_words(const char *line, struct buffer *storage, size_t *offsets, size_t max,
    size_t *count, struct hearth_error *error);
/* Uses fds someone else opened (serve: standard input and output). */
void transport_attach(struct transport *transport, int read_fd, int write_fd, const char *peer);

int transport_read(struct transport *transport, void *out, size_t length,
    struct hearth_error *error);
int transport_write(struct transport *transport, const void *data, size_t length,
    struct hearth_error *error);
/* Reads one whole frame into storage (reused frame to frame) and checks
 * its header and checksum; out points into storage. */
int transport_read_frame(struct transport *transport, struct buffer *storage,
    struct wire_frame *out, struct hearth_error *error);

/* Ends the connection: closes both directions, waits a little for the
 * child to exit, kills it if it does not, and reaps it. 0 when the child
 * exited with status 0 (or there was none); otherwise error says how it
 * ended, with what it wrote on stderr. Safe to call twice. */
int transport_close(struct transport *transport, struct hearth_error *error);

#endif
