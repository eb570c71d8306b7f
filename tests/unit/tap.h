/* A small TAP producer for the C unit tests, in the manner of git's
 * t/unit-tests/test-lib.h: each check prints "ok N - what" or "not ok",
 * with the values it compared on failure, and tap_done() prints the plan. */
#ifndef HEARTH_TESTS_TAP_H
#define HEARTH_TESTS_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool tap_ok(bool condition, const char *file, int line, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
bool tap_int(long long got, long long want, const char *file, int line, const char *what);
bool tap_uint(unsigned long long got, unsigned long long want, const char *file, int line,
    const char *what);
bool tap_str(const char *got, const char *want, const char *file, int line, const char *what);
bool tap_mem(const void *got, size_t got_length, const void *want, size_t want_length,
    const char *file, int line, const char *what);
void tap_diag(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Prints the plan; returns the exit status (1 if any check failed). */
int tap_done(void);
/* A scratch folder under $TMPDIR removed at exit, for tests that touch files. */
const char *tap_scratch_dir(void);
/* What a hang bound is multiplied by: HEARTH_TIME_SCALE (at least 1).
 * make valgrind sets it, since everything runs ten to fifty times slower
 * there. */
double tap_time_scale(void);
/* Arms a bound on a hang: if the process still runs after seconds (times
 * tap_time_scale()), it prints "Bail out!" naming what and exits 1; 0
 * disarms. Never a speed goal (those are perf/'s): the bound is generous,
 * so only work that does not end reaches it. */
void tap_hang_bound(unsigned seconds, const char *what);

#define ok(cond, ...) tap_ok((cond), __FILE__, __LINE__, __VA_ARGS__)
#define check_int(got, want) tap_int((got), (want), __FILE__, __LINE__, #got " == " #want)
#define check_uint(got, want) tap_uint((got), (want), __FILE__, __LINE__, #got " == " #want)
#define check_str(got, want) tap_str((got), (want), __FILE__, __LINE__, #got " == " #want)
#define check_mem(got, got_length, want, want_length) \
	tap_mem((got), (got_length), (want), (want_length), __FILE__, __LINE__, #got " == " #want)

#endif
