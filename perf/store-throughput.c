/* Store throughput: times content_store_fd streaming one generated file
 * into a pack (chunking, hashing, compressing, writing; sync on request)
 * and prints one row per run: rate, pack ratio, CPU and peak RSS.
 *
 * Build (from the top of the tree, with the release flags):
 *   make O=build/perf build/perf/libbackend.a build/perf/libmodel.a \
 *       build/perf/perf/store-throughput.o
 *   cc -o build/perf/store-throughput build/perf/perf/store-throughput.o \
 *       build/perf/libbackend.a build/perf/libmodel.a \
 *       $(pkg-config --libs libzstd libcrypto) -lpthread -lm
 * Run:
 *   build/perf/store-throughput [-k random|text] [-m MiB] [-s] [-l LEVEL]
 *       [-t THREADS] [-d DIR] [-i INPUT | -g OUTPUT] [-K]
 * The input is generated first (or read from INPUT, left in place; -g only
 * generates it) and is in the page cache when timed: nothing here drops
 * caches. -s adds the fsyncs of durability full and group. -K keeps the
 * pack and its folder under DIR, for a harness that times the whole
 * process (perf/p0004-store.sh builds and runs it so): deleting the pack
 * is then not part of the time, and the caller removes it. Peak RSS is the
 * whole process's, so run one case per process. On a virtual machine the
 * first run may be several times slower: page cache the host has never
 * backed costs a fault per page on first touch, so run each case twice. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/store/content.h"
#include "backend/store/pack.h"

#define PERF_BLOCK (1024 * 1024)

struct perf_options {
	const char *kind;
	size_t mebibytes;
	bool sync;
	int level;
	int threads;
	const char *folder;
	const char *input;
	const char *generate_only;
	bool keep;
};

static uint64_t
perf_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Text-like bytes, calibrated against source code and documentation from
 * /usr (zstd -1 on 256 KiB blocks: ratio 4.4 there, 4.3 to 4.8 here, at
 * about the same speed): words of a fixed vocabulary chosen with Zipf's
 * 1/rank law, lines of 70 to 90 columns with indents, and one step in
 * eight repeating 8 to 255 bytes from the last 32 KiB, as prose and code
 * repeat names and phrases. */
#define PERF_VOCABULARY 8192
#define PERF_TEXT_HISTORY (32 * 1024)

struct perf_text {
	uint64_t state;
	char words[PERF_VOCABULARY][16];
	size_t word_length[PERF_VOCABULARY];
	size_t column;
};

static void
perf_text_init(struct perf_text *text)
{
	static const char letters[] = "etaoinshrdlcumwfgypbvkjxqz";

	text->state = 42;
	text->column = 0;
	for (size_t i = 0; i < PERF_VOCABULARY; i++) {
		size_t length = 1 + perf_random(&text->state) % 3 + perf_random(&text->state) % 4 +
		    (i > 64 ? perf_random(&text->state) % 5 : 0);
		for (size_t c = 0; c < length; c++) {
			uint64_t a = perf_random(&text->state) % 26, b = perf_random(&text->state) % 26;
			text->words[i][c] = letters[a * b / 26];	/* common letters more often */
		}
		text->word_length[i] = length;
	}
}

/* Appends one piece at out[at] (room for 300 bytes) and returns its length. */
static size_t
perf_text_piece(struct perf_text *text, char *out, size_t at)
{
	uint64_t r = perf_random(&text->state);

	if (at > PERF_TEXT_HISTORY && r % 100 < 12) {
		size_t length = 8 + (r >> 8) % (8 + (r >> 30) % 248);
		size_t back = length + (r >> 20) % (PERF_TEXT_HISTORY - length);
		memcpy(out + at, out + at - back, length);
		text->column += length;
		return length;
	}
	if (text->column > 70 + (r >> 8) % 20) {
		size_t indent = (r >> 16) % 4 * 4;
		out[at] = '\n';
		memset(out + at + 1, ' ', indent);
		text->column = indent;
		return 1 + indent;
	}
	double uniform = (double)((r >> 11) + 1) / 9007199254740992.0;
	size_t rank = (size_t)exp(uniform * log((double)PERF_VOCABULARY)) - 1;
	if (rank >= PERF_VOCABULARY)
		rank = PERF_VOCABULARY - 1;
	size_t length = text->word_length[rank];
	memcpy(out + at, text->words[rank], length);
	uint64_t mark = (r >> 50) % 16;
	out[at + length] = mark == 0 ? ',' : mark == 1 ? '.' : mark == 2 ? '(' : ' ';
	text->column += length + 1;
	return length + 1;
}

/* Fills the whole output in one buffer so repeats can reach back across
 * blocks; the caller writes it out. */
static char *
perf_text_make(size_t length)
{
	struct perf_text *text = malloc(sizeof *text);
	char *out = malloc(length + 512);
	size_t at = 0;

	if (text == NULL || out == NULL) {
		free(text);
		free(out);
		return NULL;
	}
	perf_text_init(text);
	while (at < length)
		at += perf_text_piece(text, out, at);
	free(text);
	return out;
}

/* Writes the input in 1 MiB blocks; text is made whole first, since its
 * repeats reach back across blocks. */
static int
perf_write_input(const char *path, const struct perf_options *options)
{
	size_t length = options->mebibytes * PERF_BLOCK;
	bool text = strcmp(options->kind, "text") == 0;
	uint8_t *block = malloc(PERF_BLOCK);
	char *all_text = text ? perf_text_make(length) : NULL;
	uint64_t state = 7;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (block == NULL || (text && all_text == NULL) || fd < 0) {
		perror(path);
		return -1;
	}
	for (size_t at = 0; at < length; at += PERF_BLOCK) {
		const uint8_t *bytes = block;
		if (text) {
			bytes = (const uint8_t *)all_text + at;
		} else {
			for (size_t i = 0; i < PERF_BLOCK; i += 8) {
				uint64_t value = perf_random(&state);
				memcpy(block + i, &value, 8);
			}
		}
		if (write(fd, bytes, PERF_BLOCK) != PERF_BLOCK) {
			perror(path);
			return -1;
		}
	}
	free(all_text);
	free(block);
	return close(fd);
}

/* In a child process, so the generator's memory stays out of the peak RSS
 * reported for storing. */
static int
perf_generate(const char *path, const struct perf_options *options)
{
	int status;
	pid_t child = fork();

	if (child == 0)
		_exit(perf_write_input(path, options) == 0 ? 0 : 1);
	if (child < 0 || waitpid(child, &status, 0) != child)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static double
perf_seconds(clockid_t clock)
{
	struct timespec now;
	clock_gettime(clock, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static long
perf_peak_rss_kib(void)
{
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_maxrss;
}

static int
perf_parse(int argc, char **argv, struct perf_options *options)
{
	int option;

	*options = (struct perf_options){ .kind = "random", .mebibytes = 512, .level = 1,
		.threads = -1, .folder = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp" };
	while ((option = getopt(argc, argv, "k:m:sl:t:d:i:g:K")) != -1) {
		switch (option) {
		case 'k': options->kind = optarg; break;
		case 'm': options->mebibytes = strtoul(optarg, NULL, 10); break;
		case 's': options->sync = true; break;
		case 'l': options->level = atoi(optarg); break;
		case 't': options->threads = atoi(optarg); break;
		case 'd': options->folder = optarg; break;
		case 'i': options->input = optarg; break;
		case 'g': options->generate_only = optarg; break;
		case 'K': options->keep = true; break;
		default: return -1;
		}
	}
	if (strcmp(options->kind, "random") != 0 && strcmp(options->kind, "text") != 0)
		return -1;
	return 0;
}

struct perf_result {
	double seconds;
	double cpu_seconds;		/* every thread's */
	uint64_t size;
	uint64_t pack_bytes;
	size_t chunk_count;
	long peak_rss_kib;
	long grown_rss_kib;		/* how much storing raised the peak */
};

/* The timed part: stream input into a pack in folder, finish (and sync). */
static int
perf_store(const struct perf_options *options, int folder_fd, const char *folder, int input_fd,
    struct perf_result *out)
{
	struct content_result result;
	struct hearth_error error;
	long rss_before = perf_peak_rss_kib();
	struct pack_writer *writer = pack_writer_new(folder_fd, folder, options->sync, NULL);

	if (writer == NULL)
		return -1;
	pack_writer_set_level(writer, options->level);
	if (options->threads >= 0)
		pack_writer_set_threads(writer, options->threads);
	double started = perf_seconds(CLOCK_MONOTONIC);
	double cpu_started = perf_seconds(CLOCK_PROCESS_CPUTIME_ID);
	int status = content_store_fd(writer, input_fd, NULL, NULL, &result, &error);
	if (status == 0)
		status = pack_writer_finish(writer, &error);
	out->seconds = perf_seconds(CLOCK_MONOTONIC) - started;
	out->cpu_seconds = perf_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_started;
	if (status != 0) {
		fprintf(stderr, "store failed: %s\n", error.message);
	} else {
		out->size = result.size;
		out->chunk_count = result.chunk_count;
		out->pack_bytes = pack_writer_bytes(writer);
		content_result_free(&result);
	}
	out->peak_rss_kib = perf_peak_rss_kib();
	out->grown_rss_kib = out->peak_rss_kib - rss_before;
	if (status != 0 || !options->keep)
		pack_writer_abort(writer);
	pack_writer_free(writer);
	return status;
}

static void
perf_print(const struct perf_options *options, const struct perf_result *result)
{
	char threads[16] = "default";

	if (options->threads >= 0)
		snprintf(threads, sizeof threads, "%d", options->threads);
	printf("%-6s %5.0f MiB  sync=%d level=%d threads=%-7s %7.1f MiB/s  %6.3f s  "
	    "cpu %6.3f s  pack/input %.3f  chunks %zu  peak RSS %ld MiB (+%ld storing)\n",
	    options->kind, (double)result->size / PERF_BLOCK, options->sync, options->level,
	    threads, (double)result->size / PERF_BLOCK / result->seconds, result->seconds,
	    result->cpu_seconds, (double)result->pack_bytes / (double)result->size,
	    result->chunk_count, result->peak_rss_kib / 1024, result->grown_rss_kib / 1024);
}

int
main(int argc, char **argv)
{
	struct perf_options options;
	struct perf_result result;
	char folder[4096], input[4200];

	if (perf_parse(argc, argv, &options) != 0) {
		fprintf(stderr, "usage: %s [-k random|text] [-m MiB] [-s] [-l LEVEL] "
		    "[-t THREADS] [-d DIR] [-i INPUT | -g OUTPUT] [-K]\n", argv[0]);
		return 2;
	}
	if (options.generate_only != NULL)
		return perf_generate(options.generate_only, &options) == 0 ? 0 : 1;
	snprintf(folder, sizeof folder, "%s/hearth-perf-XXXXXX", options.folder);
	if (mkdtemp(folder) == NULL) {
		perror(folder);
		return 1;
	}
	snprintf(input, sizeof input, "%s/input", folder);
	if (options.input != NULL)
		snprintf(input, sizeof input, "%s", options.input);
	else if (perf_generate(input, &options) != 0)
		return 1;
	int folder_fd = open(folder, O_RDONLY | O_DIRECTORY);
	int input_fd = open(input, O_RDONLY);
	int status = folder_fd >= 0 && input_fd >= 0 ?
	    perf_store(&options, folder_fd, folder, input_fd, &result) : -1;
	if (status == 0)
		perf_print(&options, &result);
	close(input_fd);
	if (options.input == NULL)
		unlinkat(folder_fd, "input", 0);
	close(folder_fd);
	if (!options.keep || status != 0)
		rmdir(folder);
	return status == 0 ? 0 : 1;
}
