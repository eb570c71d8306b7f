/* Unit tests of tui/progress, the line the CLI's bar and the app's status
 * show: share, counts and rate as a phase moves, and "stalled N s" when a
 * phase with a total stands still (a hung connection), on a clock the
 * test sets. */
#include <string.h>

#include "tests/unit/tap.h"
#include "tui/progress.h"

static const char *
line_at(struct progress_clock *clock, const struct hearth_progress_report *report,
    int64_t now_ms)
{
	static char line[256];

	progress_line_at(clock, report, now_ms, line, sizeof line);
	return line;
}

static void
test_rate_then_stall(void)
{
	struct progress_clock clock = { 0 };
	struct hearth_progress_report report = { .phase = "receiving", .bytes_total = 4 << 20 };

	check_str(line_at(&clock, &report, 10000), "receiving 0% 0 B of 4.0 MiB");
	report.bytes_done = 1 << 20;
	check_str(line_at(&clock, &report, 11000),
	    "receiving 25% 1.0 MiB of 4.0 MiB, 1.0 MiB/s, 4 s left");
	ok(strstr(line_at(&clock, &report, 12999), "stalled") == NULL,
	    "still for 1.999 s: not yet stalled (%s)", line_at(&clock, &report, 12999));
	check_str(line_at(&clock, &report, 13000), "receiving 25% 1.0 MiB of 4.0 MiB, stalled 2 s");
	check_str(line_at(&clock, &report, 14500), "receiving 25% 1.0 MiB of 4.0 MiB, stalled 3 s");
	report.bytes_done = 2 << 20;
	check_str(line_at(&clock, &report, 15000),
	    "receiving 50% 2.0 MiB of 4.0 MiB, 409.6 KiB/s, 6 s left");
	ok(strstr(line_at(&clock, &report, 16999), "stalled") == NULL,
	    "moving again restarts the stall's clock");
}

static void
test_items_and_phases(void)
{
	struct progress_clock clock = { 0 };
	struct hearth_progress_report report = { .phase = "storing", .total = 10 };

	line_at(&clock, &report, 500);
	report.done = 5;
	check_str(line_at(&clock, &report, 1500), "storing 50% 5/10, 5/s, 2 s left");
	check_str(line_at(&clock, &report, 4500), "storing 50% 5/10, stalled 3 s");
	report = (struct hearth_progress_report){ .phase = "checking", .done = 7 };
	check_str(line_at(&clock, &report, 4000), "checking 7");
	ok(strstr(line_at(&clock, &report, 60000), "stalled") == NULL,
	    "a phase with no total never says it stalled: nothing says it should move");
	report = (struct hearth_progress_report){ .phase = "sending", .total = 3 };
	check_str(line_at(&clock, &report, 61000), "sending 0% 0/3");
	check_str(line_at(&clock, &report, 63000), "sending 0% 0/3, stalled 2 s");
}

static void
test_bytes_and_fraction(void)
{
	char text[32];
	struct hearth_progress_report report = { .done = 3, .total = 4, .bytes_done = 1,
		.bytes_total = 4 };

	progress_format_bytes(1023, text, sizeof text);
	check_str(text, "1023 B");
	progress_format_bytes(1536, text, sizeof text);
	check_str(text, "1.5 KiB");
	ok(progress_fraction(&report) == 0.25, "bytes decide the share when their total is known");
	report.bytes_total = 0;
	ok(progress_fraction(&report) == 0.75, "else items do");
	report.total = 0;
	ok(progress_fraction(&report) < 0, "and with neither total, none");
}

int
main(void)
{
	test_rate_then_stall();
	test_items_and_phases();
	test_bytes_and_fraction();
	return tap_done();
}
