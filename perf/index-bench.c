/* index-bench: the measurements of p0020-index.sh that no command line can
 * make, because a process start costs more than what is measured.
 *
 *   index-bench fill STATE TOP SUB FILES
 *       Writes a metadata-only fixture straight into the working-tree index
 *       (the entry table of STATE/store.db) of a Home that `hearth init`
 *       just made: TOP folders at the top, SUB folders in each, FILES files
 *       in each of those; nothing is written to the disk's tree. The rows
 *       are what record would write for such a tree, so hearth_list reads
 *       them as it reads a recorded Home (the app's Home view lists the
 *       entry table, never the disk).
 *   index-bench list HOME_DIR SAMPLES PAGE
 *       Opens the Home with hearth_open, as the app does, and lists the
 *       first PAGE entries of SAMPLES folders taken evenly from the second
 *       level, each call timed alone; then the same folders again (warm).
 *       Prints the p50/p99/max of each pass in microseconds of wall time, the
 *       p50/p99 of the thread's CPU time, and the peak RSS of the process.
 *   index-bench tree DIR FILES FOLDERS
 *       FILES small files spread evenly over FOLDERS folders (ten at the top,
 *       the rest below them), every time 2020-01-01 so no stamp is racy.
 *   index-bench find HOME_DIR TEXT SAMPLES
 *       Opens the Home as the app does and calls hearth_find_names (the Home
 *       view's filter over the whole index, at the app's limit of 1000
 *       paths) SAMPLES times for TEXT, each call timed alone: p50/p99/max
 *       of wall and thread CPU time in microseconds, the paths found, the
 *       peak RSS.
 *   index-bench cpu PID SECONDS
 *       CPU seconds (user + system) PID uses over the next SECONDS, from
 *       /proc/PID/stat, and that as a share of one core.
 *
 * Built by p0020-index.sh against the static libraries beside HEARTH_BIN
 * (a `make O=DIR` build), since it calls the backend's public API. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "backend/hearth.h"

static double
clock_us(clockid_t clock)
{
	struct timespec now;

	clock_gettime(clock, &now);
	return (double)now.tv_sec * 1e6 + (double)now.tv_nsec / 1e3;
}

/* Node ids: random-looking but reproducible, so the primary key is filled
 * in no particular order, as ids made on several replicas are. */
static void
make_id(uint64_t number, uint8_t out[16])
{
	uint64_t x = number * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;

	for (int half = 0; half < 2; half++) {
		x ^= x >> 31;
		x *= 0xBF58476D1CE4E5B9ull;
		x ^= x >> 27;
		for (int i = 0; i < 8; i++)
			out[half * 8 + i] = (uint8_t)(x >> (8 * i));
	}
}

/* The top's id, as model/id.c has it (NODE_ROOT). */
static const uint8_t TOP_ID[16] = { 0, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, 1 };

static int
fail_sql(sqlite3 *db, const char *what)
{
	fprintf(stderr, "index-bench: %s: %s\n", what, sqlite3_errmsg(db));
	return 1;
}

static int
insert(sqlite3_stmt *statement, const uint8_t node[16], const uint8_t parent[16],
    const char *name, int kind, uint64_t number)
{
	uint8_t blob[32];

	sqlite3_bind_blob(statement, 1, node, 16, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 2, parent, 16, SQLITE_STATIC);
	sqlite3_bind_blob(statement, 3, name, (int)strlen(name), SQLITE_STATIC);
	sqlite3_bind_int(statement, 4, kind);
	if (kind == 1) {
		make_id(number ^ 0xB10Bull, blob);
		make_id(number ^ 0xB10Cull, blob + 16);
		sqlite3_bind_blob(statement, 5, blob, 32, SQLITE_STATIC);
		sqlite3_bind_int64(statement, 6, (int64_t)(1000 + number % 9000));
		sqlite3_bind_int(statement, 7, 0644);
	} else {
		sqlite3_bind_null(statement, 5);
		sqlite3_bind_int64(statement, 6, 0);
		sqlite3_bind_int(statement, 7, 0755);
	}
	sqlite3_bind_int64(statement, 8, 1577836800000000000ll + (int64_t)number);
	sqlite3_bind_int64(statement, 9, (int64_t)(1000000 + number));
	int step = sqlite3_step(statement);
	sqlite3_reset(statement);
	return step == SQLITE_DONE ? 0 : 1;
}

static int
fill(const char *state, unsigned top, unsigned sub, unsigned files)
{
	char path[4096], name[64];
	sqlite3 *db;
	sqlite3_stmt *statement;
	uint8_t first[16], second[16], file[16];
	uint64_t number = 0;

	snprintf(path, sizeof path, "%s/store.db", state);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return fail_sql(db, path);
	if (sqlite3_exec(db, "PRAGMA synchronous=OFF; BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return fail_sql(db, "begin");
	if (sqlite3_prepare_v2(db,
	    "INSERT INTO entry(node, parent, name, kind, root, blob, size, mode, mtime, device, "
	    "inode, ctime, stamped, seen) VALUES (?1, ?2, ?3, ?4, 'main', ?5, ?6, ?7, ?8, 1, ?9, "
	    "?8, ?8, X'')", -1, &statement, NULL) != SQLITE_OK)
		return fail_sql(db, "prepare");
	for (unsigned t = 0; t < top; t++) {
		make_id(++number, first);
		snprintf(name, sizeof name, "folder-%04u", t);
		if (insert(statement, first, TOP_ID, name, 2, number) != 0)
			return fail_sql(db, "insert");
		for (unsigned s = 0; s < sub; s++) {
			make_id(++number, second);
			snprintf(name, sizeof name, "sub-%04u", s);
			if (insert(statement, second, first, name, 2, number) != 0)
				return fail_sql(db, "insert");
			for (unsigned f = 0; f < files; f++) {
				make_id(++number, file);
				snprintf(name, sizeof name, "file-%05u-%04u.txt", f, (unsigned)(number % 9973));
				if (insert(statement, file, second, name, 1, number) != 0)
					return fail_sql(db, "insert");
			}
		}
	}
	sqlite3_finalize(statement);
	if (sqlite3_exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return fail_sql(db, "commit");
	sqlite3_close(db);
	printf("%" PRIu64 " entries\n", number);
	return 0;
}

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
quantile(const double *sorted, size_t count, double q)
{
	size_t at = (size_t)(q * (double)(count - 1) + 0.5);

	return sorted[at < count ? at : count - 1];
}

/* One pass over the folders: each first page timed alone. */
/* Wall time is what the user waits; the thread's CPU time beside it tells
 * a slow call from one that lost its core to another process (this runs
 * on shared machines). */
static int
list_pass(hearth *home, unsigned top, unsigned sub, unsigned samples, size_t page,
    double *times, double *cpu_times, const char *label)
{
	char folder[64];
	struct hearth_entry_list list;
	struct hearth_error error;

	for (unsigned i = 0; i < samples; i++) {
		/* Spread over the whole index, not one corner of it. */
		uint64_t pick = (uint64_t)i * (uint64_t)top * sub / samples;
		snprintf(folder, sizeof folder, "folder-%04u/sub-%04u", (unsigned)(pick / sub),
		    (unsigned)(pick % sub));
		struct hearth_list_query query = { .folder = folder, .limit = page };
		double start = clock_us(CLOCK_MONOTONIC);
		double cpu_start = clock_us(CLOCK_THREAD_CPUTIME_ID);
		if (hearth_list(home, &query, &list, &error) != HEARTH_OK) {
			fprintf(stderr, "index-bench: list %s: %s\n", folder, error.message);
			return 1;
		}
		cpu_times[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
		times[i] = clock_us(CLOCK_MONOTONIC) - start;
		if (list.count != page) {
			fprintf(stderr, "index-bench: %s gave %zu entries, not %zu\n", folder,
			    list.count, page);
			return 1;
		}
		hearth_entry_list_free(&list);
	}
	qsort(times, samples, sizeof *times, compare_doubles);
	qsort(cpu_times, samples, sizeof *cpu_times, compare_doubles);
	printf("%s p50_us %.1f p99_us %.1f max_us %.1f cpu_p50_us %.1f cpu_p99_us %.1f\n", label,
	    quantile(times, samples, 0.5), quantile(times, samples, 0.99), times[samples - 1],
	    quantile(cpu_times, samples, 0.5), quantile(cpu_times, samples, 0.99));
	return 0;
}

static int
list(const char *home_dir, unsigned samples, size_t page)
{
	struct hearth_open_options options = { .start_dir = home_dir };
	struct hearth_error error;
	hearth *home;
	struct rusage usage;
	unsigned top = 0, sub = 0;
	struct hearth_entry_list list;

	if (hearth_open(&home, &options, &error) != HEARTH_OK) {
		fprintf(stderr, "index-bench: %s\n", error.message);
		return 1;
	}
	/* The shape of the fixture, from the index itself (two small pages). */
	struct hearth_list_query query = { .folder = "" };
	if (hearth_list(home, &query, &list, &error) != HEARTH_OK)
		return 1;
	top = (unsigned)list.count;
	hearth_entry_list_free(&list);
	query.folder = "folder-0000";
	if (top == 0 || hearth_list(home, &query, &list, &error) != HEARTH_OK)
		return 1;
	sub = (unsigned)list.count;
	hearth_entry_list_free(&list);
	double *times = malloc(samples * sizeof *times);
	double *cpu_times = malloc(samples * sizeof *cpu_times);
	if (times == NULL || cpu_times == NULL || sub == 0)
		return 1;
	int status = list_pass(home, top, sub, samples, page, times, cpu_times, "first");
	if (status == 0)
		status = list_pass(home, top, sub, samples, page, times, cpu_times, "warm");
	free(times);
	free(cpu_times);
	hearth_close(home);
	getrusage(RUSAGE_SELF, &usage);
	printf("rss_mib %.1f\n", (double)usage.ru_maxrss / 1024.0);
	return status;
}

/* The Home view's filter: hearth_find_names at the app's limit. */
static int
find(const char *home_dir, const char *text, unsigned samples)
{
	struct hearth_open_options options = { .start_dir = home_dir };
	struct hearth_error error;
	struct hearth_path_list found;
	struct rusage usage;
	hearth *home;
	size_t paths = 0;

	if (samples == 0 || hearth_open(&home, &options, &error) != HEARTH_OK) {
		fprintf(stderr, "index-bench: %s\n", samples == 0 ? "no samples" : error.message);
		return 1;
	}
	double *times = malloc(samples * sizeof *times);
	double *cpu_times = malloc(samples * sizeof *cpu_times);
	if (times == NULL || cpu_times == NULL)
		return 1;
	for (unsigned i = 0; i < samples; i++) {
		double start = clock_us(CLOCK_MONOTONIC);
		double cpu_start = clock_us(CLOCK_THREAD_CPUTIME_ID);
		if (hearth_find_names(home, text, 1000, &found, &error) != HEARTH_OK) {
			fprintf(stderr, "index-bench: find %s: %s\n", text, error.message);
			return 1;
		}
		cpu_times[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
		times[i] = clock_us(CLOCK_MONOTONIC) - start;
		paths = found.count;
		hearth_path_list_free(&found);
	}
	qsort(times, samples, sizeof *times, compare_doubles);
	qsort(cpu_times, samples, sizeof *cpu_times, compare_doubles);
	printf("find p50_us %.1f p99_us %.1f max_us %.1f cpu_p50_us %.1f cpu_p99_us %.1f "
	    "paths %zu\n", quantile(times, samples, 0.5), quantile(times, samples, 0.99),
	    times[samples - 1], quantile(cpu_times, samples, 0.5),
	    quantile(cpu_times, samples, 0.99), paths);
	free(times);
	free(cpu_times);
	hearth_close(home);
	getrusage(RUSAGE_SELF, &usage);
	printf("rss_mib %.1f\n", (double)usage.ru_maxrss / 1024.0);
	return 0;
}

static int
tree(const char *dir, unsigned files, unsigned folders)
{
	char path[4096], text[64];
	struct timespec old[2] = { { 1577836800, 0 }, { 1577836800, 0 } };
	unsigned tops = folders < 10 ? folders : 10;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	for (unsigned d = 0; d < folders; d++) {
		if (d < tops)
			snprintf(path, sizeof path, "%s/top-%02u", dir, d);
		else
			snprintf(path, sizeof path, "%s/top-%02u/folder-%05u", dir, d % tops, d);
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			perror(path);
			return 1;
		}
		size_t length = strlen(path);
		unsigned here = files / folders + (d < files % folders);
		for (unsigned f = 0; f < here; f++) {
			snprintf(path + length, sizeof path - length, "/file-%05u.txt", f);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			int n = snprintf(text, sizeof text, "file %u of folder %u\n", f, d);
			if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) != 0) {
				perror(path);
				return 1;
			}
			utimensat(AT_FDCWD, path, old, 0);
		}
	}
	/* Folders last, so making their files did not move their times. */
	for (unsigned d = folders; d-- > 0;) {
		if (d < tops)
			snprintf(path, sizeof path, "%s/top-%02u", dir, d);
		else
			snprintf(path, sizeof path, "%s/top-%02u/folder-%05u", dir, d % tops, d);
		utimensat(AT_FDCWD, path, old, 0);
	}
	return 0;
}

static double
cpu_seconds(const char *pid)
{
	char path[64], text[4096];
	unsigned long user = 0, system = 0;

	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	FILE *file = fopen(path, "r");
	if (file == NULL || fgets(text, sizeof text, file) == NULL) {
		if (file)
			fclose(file);
		return -1;
	}
	fclose(file);
	/* Fields after the command's closing parenthesis: 14 and 15 are
	 * utime and stime (proc(5)), here the 12th and 13th. */
	const char *rest = strrchr(text, ')');
	if (rest == NULL || sscanf(rest + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
	    &user, &system) != 2)
		return -1;
	return (double)(user + system) / (double)sysconf(_SC_CLK_TCK);
}

static int
cpu(const char *pid, unsigned seconds)
{
	double before = cpu_seconds(pid);

	sleep(seconds);
	double after = cpu_seconds(pid);
	if (before < 0 || after < 0) {
		fprintf(stderr, "index-bench: no process %s\n", pid);
		return 1;
	}
	printf("cpu_s %.3f share_pct %.4f\n", after - before,
	    100.0 * (after - before) / (double)seconds);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "fill") == 0)
		return fill(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]),
		    (unsigned)atoi(argv[5]));
	if (argc == 5 && strcmp(argv[1], "list") == 0)
		return list(argv[2], (unsigned)atoi(argv[3]), (size_t)atoi(argv[4]));
	if (argc == 5 && strcmp(argv[1], "tree") == 0)
		return tree(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
	if (argc == 5 && strcmp(argv[1], "find") == 0)
		return find(argv[2], argv[3], (unsigned)atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "cpu") == 0)
		return cpu(argv[2], (unsigned)atoi(argv[3]));
	fprintf(stderr, "usage: index-bench fill STATE TOP SUB FILES | list HOME_DIR SAMPLES PAGE | "
	    "tree DIR FILES FOLDERS | find HOME_DIR TEXT SAMPLES | cpu PID SECONDS\n");
	return 2;
}
