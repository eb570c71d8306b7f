/* merge-bench: the measurements of p0040-merge.sh that are about the line
 * merge itself (model/merge.h), without a Home.
 *
 *   merge-bench make DIR LINES EDITS SEED
 *       Writes DIR/base (LINES numbered lines) and DIR/mine and DIR/theirs,
 *       each with EDITS line edits of the base at random lines (a rewrite,
 *       or now and then an insertion or a deletion), drawn apart from SEED:
 *       where the two happen to touch one line, they overlap.
 *   merge-bench file BASE MINE THEIRS
 *       Merges the three files once and writes the result (with markers
 *       around overlaps) to standard output, as `git merge-file -p` does.
 *   merge-bench pair BASE MINE THEIRS RUNS
 *       Merges them RUNS times in this process and prints the median, min
 *       and max wall milliseconds, the overlaps and the peak RSS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "model/merge.h"
#include "tests/lib/splitmix.h"

static int
write_file(const char *dir, const char *name, const struct buffer *bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *file = fopen(path, "wb");
	if (file == NULL || fwrite(bytes->data, 1, bytes->length, file) != bytes->length) {
		perror(path);
		return 1;
	}
	return fclose(file) != 0;
}

/* One head: EDITS edits at distinct random lines of the base. */
static void
make_head(size_t lines, size_t edits, uint64_t seed, const char *who, struct buffer *out)
{
	uint8_t *action = calloc(lines, 1);
	uint64_t random = seed;
	for (size_t done = 0; done < edits && done < lines;) {
		size_t line = (size_t)(splitmix_next(&random) % lines);
		if (action[line] != 0)
			continue;
		uint64_t roll = splitmix_next(&random) % 10;
		action[line] = roll < 8 ? 1 : roll == 8 ? 2 : 3;	/* rewrite, insert, delete */
		done++;
	}
	for (size_t i = 0; i < lines; i++) {
		if (action[i] == 2)
			buffer_printf(out, "a line %s inserted before %zu\n", who, i + 1);
		if (action[i] == 1)
			buffer_printf(out, "line %zu, as %s wrote it\n", i + 1, who);
		else if (action[i] != 3)
			buffer_printf(out, "line %zu of the notes, as it was\n", i + 1);
	}
	free(action);
}

static int
make(const char *dir, size_t lines, size_t edits, uint64_t seed)
{
	struct buffer base, mine, theirs;
	buffer_init(&base);
	buffer_init(&mine);
	buffer_init(&theirs);
	for (size_t i = 0; i < lines; i++)
		buffer_printf(&base, "line %zu of the notes, as it was\n", i + 1);
	make_head(lines, edits, seed * 2 + 1, "mine", &mine);
	make_head(lines, edits, seed * 2 + 2, "theirs", &theirs);
	int status = write_file(dir, "base", &base) || write_file(dir, "mine", &mine) ||
	    write_file(dir, "theirs", &theirs);
	buffer_free(&base);
	buffer_free(&mine);
	buffer_free(&theirs);
	return status;
}

static int
read_file(const char *path, struct buffer *out)
{
	FILE *file = fopen(path, "rb");
	char chunk[65536];
	size_t got;

	buffer_init(out);
	if (file == NULL) {
		perror(path);
		return 1;
	}
	while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
		buffer_append(out, chunk, got);
	fclose(file);
	return 0;
}

static double
now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static int
compare_doubles(const void *left, const void *right)
{
	double a = *(const double *)left, b = *(const double *)right;
	return (a > b) - (a < b);
}

static struct merge_text
text_of(const struct buffer *buffer)
{
	return (struct merge_text){ (const char *)buffer->data, buffer->length };
}

int
main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "make") == 0)
		return make(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10),
		    strtoull(argv[5], NULL, 10));
	if ((argc == 5 && strcmp(argv[1], "file") == 0) || (argc == 6 && strcmp(argv[1], "pair") == 0)) {
		struct buffer base, mine, theirs, out;
		if (read_file(argv[2], &base) || read_file(argv[3], &mine) || read_file(argv[4], &theirs))
			return 1;
		struct merge_text b = text_of(&base), m = text_of(&mine), t = text_of(&theirs);
		buffer_init(&out);
		if (argc == 5) {
			merge_with_markers(&b, &m, &t, "mine", "theirs", &out);
			fwrite(out.data, 1, out.length, stdout);
			return 0;
		}
		size_t runs = strtoul(argv[5], NULL, 10), overlaps = 0;
		double *times = calloc(runs + 1, sizeof *times);
		struct merge_text heads[2] = { m, t };
		for (size_t i = 0; i < runs; i++) {
			struct merge_result result;
			double start = now_ms();
			merge_lines(&b, heads, 2, &result);
			times[i] = now_ms() - start;
			overlaps = result.hunk_count;
			merge_result_free(&result);
		}
		qsort(times, runs, sizeof *times, compare_doubles);
		struct rusage usage;
		getrusage(RUSAGE_SELF, &usage);
		printf("median_ms %.3f\nmin_ms %.3f\nmax_ms %.3f\noverlaps %zu\npeak_rss_kib %ld\n",
		    times[runs / 2], times[0], times[runs - 1], overlaps, usage.ru_maxrss);
		free(times);
		return 0;
	}
	fprintf(stderr, "usage: merge-bench make DIR LINES EDITS SEED | file BASE MINE THEIRS | "
	    "pair BASE MINE THEIRS RUNS\n");
	return 2;
}
