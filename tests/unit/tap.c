/* TAP output for the C unit tests (see tap.h). */
#include "tests/unit/tap.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_count;
static int failure_count;
static char scratch[4096];

static void
remove_scratch(void)
{
	if (scratch[0] != '\0' && getenv("HEARTH_KEEP_SCRATCH") == NULL) {
		char command[4200];
		snprintf(command, sizeof command, "rm -rf '%s'", scratch);
		if (system(command) != 0)
			fprintf(stderr, "# could not remove %s\n", scratch);
	}
}

const char *
tap_scratch_dir(void)
{
	if (scratch[0] == '\0') {
		const char *base = getenv("TMPDIR");
		snprintf(scratch, sizeof scratch, "%s/hearth-unit-XXXXXX", base ? base : "/tmp");
		if (mkdtemp(scratch) == NULL) {
			perror("mkdtemp");
			exit(2);
		}
		atexit(remove_scratch);
	}
	return scratch;
}

double
tap_time_scale(void)
{
	const char *text = getenv("HEARTH_TIME_SCALE");
	double scale = text != NULL ? atof(text) : 1.0;
	return scale >= 1.0 ? scale : 1.0;
}

static char hang_message[512];

static void
on_hang(int signal_number)
{
	(void)signal_number;
	ssize_t written = write(STDOUT_FILENO, hang_message, strlen(hang_message));
	(void)written;
	_exit(1);
}

void
tap_hang_bound(unsigned seconds, const char *what)
{
	if (seconds == 0) {
		alarm(0);
		return;
	}
	unsigned bound = (unsigned)(seconds * tap_time_scale());
	snprintf(hang_message, sizeof hang_message, "Bail out! %s still ran after %u s: a hang\n",
	    what, bound);
	fflush(stdout);
	signal(SIGALRM, on_hang);
	alarm(bound);
}

static bool
report(bool passed, const char *file, int line, const char *what)
{
	test_count++;
	printf("%sok %d - %s\n", passed ? "" : "not ", test_count, what);
	if (!passed) {
		failure_count++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return passed;
}

bool
tap_ok(bool condition, const char *file, int line, const char *format, ...)
{
	char what[1024];
	va_list args;

	va_start(args, format);
	vsnprintf(what, sizeof what, format, args);
	va_end(args);
	return report(condition, file, line, what);
}

bool
tap_int(long long got, long long want, const char *file, int line, const char *what)
{
	if (!report(got == want, file, line, what)) {
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
		return false;
	}
	return true;
}

bool
tap_uint(unsigned long long got, unsigned long long want, const char *file, int line,
    const char *what)
{
	if (!report(got == want, file, line, what)) {
		printf("#   got:  %llu\n#   want: %llu\n", got, want);
		return false;
	}
	return true;
}

bool
tap_str(const char *got, const char *want, const char *file, int line, const char *what)
{
	bool same = (got == NULL && want == NULL) ||
	    (got != NULL && want != NULL && strcmp(got, want) == 0);
	if (!report(same, file, line, what)) {
		printf("#   got:  \"%s\"\n#   want: \"%s\"\n", got ? got : "(null)",
		    want ? want : "(null)");
		return false;
	}
	return true;
}

bool
tap_mem(const void *got, size_t got_length, const void *want, size_t want_length,
    const char *file, int line, const char *what)
{
	bool same = got_length == want_length &&
	    (got_length == 0 || memcmp(got, want, got_length) == 0);
	if (!report(same, file, line, what)) {
		printf("#   got %zu bytes, want %zu bytes\n", got_length, want_length);
		return false;
	}
	return true;
}

void
tap_diag(const char *format, ...)
{
	va_list args;

	printf("# ");
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	printf("\n");
}

int
tap_done(void)
{
	printf("1..%d\n", test_count);
	return failure_count > 0;
}
