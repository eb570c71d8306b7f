/* bench-tool: the helper binary of hearth's benchmark harness (perf/),
 * one table of subcommands as git's t/helper/test-tool.
 *
 *   bench-tool time OUT CMD [ARG...]
 *       run CMD, append "WALL_SECONDS PEAK_RSS_KIB EXIT_STATUS" to OUT and
 *       exit with CMD's status. Wall time from CLOCK_MONOTONIC around
 *       fork..wait4; the peak RSS is the largest of CMD and every
 *       descendant it waited for (wait4's ru_maxrss), so `sh -c 'a && b'`
 *       reports the bigger of a and b.
 *   bench-tool tree DIR COUNT SEED
 *       write COUNT small files under DIR (made if missing): 1 to 8 KiB,
 *       seven in eight text-like and one in eight incompressible, 24 to a
 *       folder, folders three levels deep, every mtime 2024-01-01 UTC.
 *       File i depends only on SEED and i, so two trees of one seed are
 *       byte-identical.
 *   bench-tool name SEED I
 *       print the path, relative to DIR, of file I of such a tree.
 *   bench-tool file PATH MIB text|random SEED
 *       write one file of MIB mebibytes, streamed in 1 MiB blocks (the
 *       generator itself stays under 2 MiB of memory).
 *
 * Text-like bytes: words of a fixed vocabulary drawn with Zipf's 1/rank
 * law, lines of 70 to 90 columns with indents, and about one piece in
 * eight repeating 8 to 255 bytes from the last 32 KiB, as prose and code
 * repeat names and phrases (zstd -1 shrinks it 4 to 5 times, as it
 * does source and documentation). Built by the harness with the release
 * flags; it uses nothing of hearth. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tests/lib/splitmix.h"

#define MIB (1024 * 1024)
#define VOCABULARY 8192
#define HISTORY (32 * 1024)
#define ZIPF_STEPS 65536
#define FILES_PER_FOLDER 24
#define FOLDER_FANOUT 16

static void
fill_random(uint8_t *out, size_t length, uint64_t *state)
{
	size_t i = 0;
	for (; i + 8 <= length; i += 8) {
		uint64_t value = splitmix_next(state);
		memcpy(out + i, &value, 8);
	}
	if (i < length) {
		uint64_t value = splitmix_next(state);
		memcpy(out + i, &value, length - i);
	}
}

/* ---- text-like content ---------------------------------------------- */

struct vocabulary {
	char words[VOCABULARY][16];
	uint8_t length[VOCABULARY];
	uint16_t zipf[ZIPF_STEPS];	/* uniform 16-bit draw -> word rank */
};

static void
vocabulary_init(struct vocabulary *v)
{
	static const char letters[] = "etaoinshrdlcumwfgypbvkjxqz";
	uint64_t state = 42;

	for (size_t i = 0; i < VOCABULARY; i++) {
		size_t length = 1 + splitmix_next(&state) % 3 + splitmix_next(&state) % 4 +
		    (i > 64 ? splitmix_next(&state) % 5 : 0);
		for (size_t c = 0; c < length; c++) {
			uint64_t a = splitmix_next(&state) % 26, b = splitmix_next(&state) % 26;
			v->words[i][c] = letters[a * b / 26];	/* common letters more often */
		}
		v->length[i] = (uint8_t)length;
	}
	/* Zipf with s = 1: P(rank <= r) ~ ln r / ln V, so rank = V^u. */
	for (size_t i = 0; i < ZIPF_STEPS; i++) {
		double u = ((double)i + 0.5) / ZIPF_STEPS;
		size_t rank = (size_t)exp(u * log((double)VOCABULARY)) - 1;
		v->zipf[i] = (uint16_t)(rank < VOCABULARY ? rank : VOCABULARY - 1);
	}
}

struct text {
	const struct vocabulary *vocabulary;
	uint64_t state;
	size_t column;
};

/* Appends one piece at out[at] (room for 300 bytes after at is needed);
 * out[0..at) is the history repeats may copy from. Returns its length. */
static size_t
text_piece(struct text *t, char *out, size_t at)
{
	uint64_t r = splitmix_next(&t->state);

	if (at > 1024 && r % 100 < 12) {
		size_t reach = at < HISTORY ? at : HISTORY;
		size_t length = 8 + (r >> 8) % (8 + (r >> 30) % 248);
		if (length > reach)
			length = reach;
		size_t back = length + (r >> 20) % (reach - length + 1);
		memmove(out + at, out + at - back, length);
		t->column += length;
		return length;
	}
	if (t->column > 70 + (r >> 8) % 20) {
		size_t indent = (r >> 16) % 4 * 4;
		out[at] = '\n';
		memset(out + at + 1, ' ', indent);
		t->column = indent;
		return 1 + indent;
	}
	size_t rank = t->vocabulary->zipf[(r >> 24) % ZIPF_STEPS];
	size_t length = t->vocabulary->length[rank];
	memcpy(out + at, t->vocabulary->words[rank], length);
	uint64_t mark = (r >> 50) % 16;
	out[at + length] = mark == 0 ? ',' : mark == 1 ? '.' : mark == 2 ? '(' : ' ';
	t->column += length + 1;
	return length + 1;
}

/* Fills out[from..to) and returns where the last piece ended, at most
 * 300 bytes past to (out must have that room). */
static size_t
text_fill(struct text *t, char *out, size_t from, size_t to)
{
	while (from < to)
		from += text_piece(t, out, from);
	return from;
}

/* ---- writing files --------------------------------------------------- */

static int
write_all(int fd, const void *bytes, size_t length, const char *path)
{
	const char *at = bytes;
	while (length > 0) {
		ssize_t done = write(fd, at, length);
		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			fprintf(stderr, "bench-tool: %s: %s\n", path, strerror(errno));
			return -1;
		}
		at += done;
		length -= (size_t)done;
	}
	return 0;
}

static int
make_folders(char *path)
{
	for (char *slash = strchr(path + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		int status = mkdir(path, 0755);
		*slash = '/';
		if (status != 0 && errno != EEXIST) {
			fprintf(stderr, "bench-tool: %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static const char *const extensions[] = {
	".txt", ".md", ".c", ".h", ".py", ".conf", ".html", ".json",
};
static const char *const stems[] = {
	"notes", "draft", "main", "util", "index", "report", "config", "letter",
	"todo", "parser", "readme", "module", "list", "paper", "server", "test",
};

#define FIXED_MTIME 1704067200	/* 2024-01-01 00:00:00 UTC: never racy */

/* File i of a tree: its relative path into path, its size and kind. */
static void
tree_file(uint64_t seed, unsigned long i, char *path, size_t path_size, size_t *size,
    bool *binary, uint64_t *state)
{
	*state = seed * 0x100000001b3u + i;
	uint64_t r = splitmix_next(state);
	unsigned long f = i / FILES_PER_FOLDER;

	*size = 1024 + r % (7 * 1024 + 1);
	*binary = (r >> 20) % 8 == 0;
	snprintf(path, path_size, "d%02lu/d%02lu/d%02lu/%s-%06lu%s",
	    f / (FOLDER_FANOUT * FOLDER_FANOUT), f / FOLDER_FANOUT % FOLDER_FANOUT,
	    f % FOLDER_FANOUT, stems[(r >> 32) % 16], i,
	    *binary ? ".bin" : extensions[(r >> 40) % 8]);
}

static int
tree(const char *folder, unsigned long count, uint64_t seed)
{
	struct vocabulary *v = malloc(sizeof *v);
	char *buffer = malloc(8192 + 512);
	char path[4096];
	int status = 0;
	size_t prefix = (size_t)snprintf(path, sizeof path, "%s/", folder);
	const struct timespec times[2] = { { FIXED_MTIME, 0 }, { FIXED_MTIME, 0 } };

	if (v == NULL || buffer == NULL || prefix >= sizeof path - 64) {
		fprintf(stderr, "bench-tool: out of memory\n");
		return 1;
	}
	vocabulary_init(v);
	for (unsigned long i = 0; i < count && status == 0; i++) {
		uint64_t state;
		size_t size;
		bool binary;

		tree_file(seed, i, path + prefix, sizeof path - prefix, &size, &binary, &state);
		if (i % FILES_PER_FOLDER == 0 && make_folders(path) != 0)
			return 1;
		if (binary) {
			fill_random((uint8_t *)buffer, size, &state);
		} else {
			struct text t = { v, state, 0 };
			text_fill(&t, buffer, 0, size);
		}
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "bench-tool: %s: %s\n", path, strerror(errno));
			status = 1;
		} else {
			status = write_all(fd, buffer, size, path) != 0 || futimens(fd, times) != 0;
			if (close(fd) != 0)
				status = 1;
		}
	}
	free(buffer);
	free(v);
	return status;
}

static int
big_file(const char *path, unsigned long mebibytes, bool text, uint64_t seed)
{
	struct vocabulary *v = text ? malloc(sizeof *v) : NULL;
	char *buffer = malloc(HISTORY + MIB + 512);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct text t = { v, seed, 0 };
	uint64_t state = seed;
	size_t out = 0, fill = 0;	/* buffer[out..fill) is made, not yet written */

	if ((text && v == NULL) || buffer == NULL || fd < 0) {
		fprintf(stderr, "bench-tool: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (text)
		vocabulary_init(v);
	for (unsigned long block = 0; block < mebibytes; block++) {
		if (!text) {
			fill_random((uint8_t *)buffer, MIB, &state);
			if (write_all(fd, buffer, MIB, path) != 0)
				return 1;
			continue;
		}
		fill = text_fill(&t, buffer, fill, out + MIB);
		if (write_all(fd, buffer + out, MIB, path) != 0)
			return 1;
		/* Keep 32 KiB of history and the pieces that ran past the MiB. */
		size_t written = out + MIB;
		size_t keep = written - (written < HISTORY ? written : HISTORY);
		memmove(buffer, buffer + keep, fill - keep);
		out = written - keep;
		fill -= keep;
	}
	free(buffer);
	free(v);
	return close(fd) == 0 ? 0 : 1;
}

/* ---- timing ------------------------------------------------------------ */

static int
time_command(const char *out, char **argv)
{
	struct timespec started, ended;
	struct rusage usage;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &started);
	pid_t child = fork();
	if (child < 0) {
		perror("bench-tool: fork");
		return 125;
	}
	if (child == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bench-tool: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (wait4(child, &status, 0, &usage) < 0) {
		if (errno != EINTR) {
			perror("bench-tool: wait4");
			return 125;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ended);
	int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	double wall = (double)(ended.tv_sec - started.tv_sec) +
	    (double)(ended.tv_nsec - started.tv_nsec) * 1e-9;
	FILE *file = fopen(out, "a");
	if (file == NULL) {
		fprintf(stderr, "bench-tool: %s: %s\n", out, strerror(errno));
		return 125;
	}
	fprintf(file, "%.6f %ld %d\n", wall, usage.ru_maxrss, exit_status);
	if (fclose(file) != 0)
		return 125;
	return exit_status;
}

/* ---- the table of subcommands ------------------------------------------- */

static int
cmd_time(int argc, char **argv)
{
	return argc < 3 ? -1 : time_command(argv[1], argv + 2);
}

static int
cmd_tree(int argc, char **argv)
{
	if (argc != 4)
		return -1;
	return tree(argv[1], strtoul(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
}

static int
cmd_name(int argc, char **argv)
{
	char path[4096];
	size_t size;
	bool binary;
	uint64_t state;

	if (argc != 3)
		return -1;
	tree_file(strtoull(argv[1], NULL, 10), strtoul(argv[2], NULL, 10), path, sizeof path,
	    &size, &binary, &state);
	puts(path);
	return 0;
}

/* Round ROUND of edits of a tree made by `tree DIR TOTAL SEED`: COUNT
 * files, from file ROUND * COUNT on (modulo TOTAL), each rewritten with a
 * line of its own, so every edit is a new blob. Much faster than a shell
 * loop, which would otherwise time the fixture, not the measurement. */
static int
cmd_edit(int argc, char **argv)
{
	char path[4096], line[4200];
	size_t size;
	bool binary;
	uint64_t state;

	if (argc != 6)
		return -1;
	uint64_t seed = strtoull(argv[2], NULL, 10);
	unsigned long total = strtoul(argv[3], NULL, 10), round = strtoul(argv[4], NULL, 10);
	unsigned long count = strtoul(argv[5], NULL, 10);
	size_t prefix = (size_t)snprintf(path, sizeof path, "%s/", argv[1]);
	if (total == 0 || prefix >= sizeof path - 64)
		return -1;
	for (unsigned long j = 0; j < count; j++) {
		unsigned long i = (round * count + j) % total;
		tree_file(seed, i, path + prefix, sizeof path - prefix, &size, &binary, &state);
		int length = snprintf(line, sizeof line, "round %lu of %s\n", round, path + prefix);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "bench-tool: %s: %s\n", path, strerror(errno));
			return 1;
		}
		int status = write_all(fd, line, (size_t)length, path);
		if (close(fd) != 0 || status != 0)
			return 1;
	}
	return 0;
}

static int
cmd_file(int argc, char **argv)
{
	if (argc != 5 || (strcmp(argv[3], "text") != 0 && strcmp(argv[3], "random") != 0))
		return -1;
	return big_file(argv[1], strtoul(argv[2], NULL, 10), strcmp(argv[3], "text") == 0,
	    strtoull(argv[4], NULL, 10));
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "time", cmd_time, "time OUT CMD [ARG...]" },
	{ "tree", cmd_tree, "tree DIR COUNT SEED" },
	{ "name", cmd_name, "name SEED I" },
	{ "file", cmd_file, "file PATH MIB text|random SEED" },
	{ "edit", cmd_edit, "edit DIR SEED TOTAL ROUND COUNT" },
};

int
main(int argc, char **argv)
{
	size_t n = sizeof commands / sizeof commands[0];

	for (size_t i = 0; argc > 1 && i < n; i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			int status = commands[i].run(argc - 1, argv + 1);
			if (status >= 0)
				return status;
			fprintf(stderr, "usage: bench-tool %s\n", commands[i].usage);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s bench-tool %s\n", i == 0 ? "usage:" : "      ", commands[i].usage);
	return 2;
}
