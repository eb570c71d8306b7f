/* One line of progress for the CLI and the app (progress.h): what share is
 * done, at what rate and how long the rest should take, so a long record,
 * checkout or sync says how it is going, not only that it runs. */
#include "tui/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* A rate needs a little time behind it before it means anything. */
#define PROGRESS_RATE_AFTER_MS 500

void
progress_format_bytes(uint64_t bytes, char *out, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double value = (double)bytes;
	size_t unit = 0;

	if (bytes < 1024) {
		snprintf(out, size, "%llu B", (unsigned long long)bytes);
		return;
	}
	value /= 1024;
	while (value >= 1024 && unit + 1 < sizeof units / sizeof *units) {
		value /= 1024;
		unit++;
	}
	snprintf(out, size, "%.1f %s", value, units[unit]);
}

int64_t
progress_now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

double
progress_fraction(const struct hearth_progress_report *report)
{
	double fraction;

	if (report->bytes_total > 0)
		fraction = (double)report->bytes_done / (double)report->bytes_total;
	else if (report->total > 0)
		fraction = (double)report->done / (double)report->total;
	else
		return -1;
	return fraction > 1 ? 1 : fraction;
}

/* "12 s", "3 min 20 s", "2 h 5 min". */
static void
format_duration(uint64_t seconds, char *out, size_t size)
{
	if (seconds < 60)
		snprintf(out, size, "%llu s", (unsigned long long)seconds);
	else if (seconds < 3600)
		snprintf(out, size, "%llu min %llu s", (unsigned long long)(seconds / 60),
		    (unsigned long long)(seconds % 60));
	else
		snprintf(out, size, "%llu h %llu min", (unsigned long long)(seconds / 3600),
		    (unsigned long long)(seconds / 60 % 60));
}

/* ", 12.3 MiB/s, 12 s left": bytes per second when bytes move, else items;
 * time left from whichever total is known. */
static void
format_rate(const struct hearth_progress_report *report, int64_t elapsed_ms, char *out,
    size_t size)
{
	char amount[32], left[32];

	out[0] = '\0';
	if (elapsed_ms < PROGRESS_RATE_AFTER_MS)
		return;
	double seconds = (double)elapsed_ms / 1000;
	double byte_rate = (double)report->bytes_done / seconds;
	double item_rate = (double)report->done / seconds;
	int used = 0;
	if (report->bytes_done > 0) {
		progress_format_bytes((uint64_t)byte_rate, amount, sizeof amount);
		used = snprintf(out, size, ", %s/s", amount);
	} else if (report->done > 0) {
		used = snprintf(out, size, ", %.0f/s", item_rate);
	}
	double remaining = -1;
	if (report->bytes_total > report->bytes_done && byte_rate > 0)
		remaining = (double)(report->bytes_total - report->bytes_done) / byte_rate;
	else if (report->bytes_total == 0 && report->total > report->done && item_rate > 0)
		remaining = (double)(report->total - report->done) / item_rate;
	if (remaining < 0 || used < 0 || (size_t)used >= size)
		return;
	format_duration((uint64_t)remaining + 1, left, sizeof left);
	snprintf(out + used, size - (size_t)used, ", %s left", left);
}

/* How long the counts have stood still, noting when they move. */
static int64_t
still_for_ms(struct progress_clock *clock, const struct hearth_progress_report *report,
    int64_t now)
{
	if (report->done != clock->done || report->bytes_done != clock->bytes_done) {
		clock->done = report->done;
		clock->bytes_done = report->bytes_done;
		clock->moved_ms = now;
	}
	return now - clock->moved_ms;
}

void
progress_line(struct progress_clock *clock, const struct hearth_progress_report *report,
    char *out, size_t size)
{
	progress_line_at(clock, report, progress_now_ms(), out, size);
}

void
progress_line_at(struct progress_clock *clock, const struct hearth_progress_report *report,
    int64_t now, char *out, size_t size)
{
	const char *phase = report->phase != NULL ? report->phase : "";
	char share[16] = "", items[48] = "", bytes[64] = "", rate[64];

	if (strcmp(clock->phase, phase) != 0 || clock->started_ms == 0) {
		snprintf(clock->phase, sizeof clock->phase, "%s", phase);
		clock->started_ms = clock->moved_ms = now;
		clock->done = report->done;
		clock->bytes_done = report->bytes_done;
	}
	double fraction = progress_fraction(report);
	if (fraction >= 0)
		snprintf(share, sizeof share, " %d%%", (int)(fraction * 100));
	if (report->total > 0)
		snprintf(items, sizeof items, " %llu/%llu", (unsigned long long)report->done,
		    (unsigned long long)report->total);
	else if (report->done > 0)
		snprintf(items, sizeof items, " %llu", (unsigned long long)report->done);
	if (report->bytes_done > 0 || report->bytes_total > 0) {
		char done[24], total[24];
		progress_format_bytes(report->bytes_done, done, sizeof done);
		progress_format_bytes(report->bytes_total, total, sizeof total);
		snprintf(bytes, sizeof bytes, "%s%s%s%s", items[0] ? ", " : " ", done,
		    report->bytes_total > 0 ? " of " : "", report->bytes_total > 0 ? total : "");
	}
	int64_t still = still_for_ms(clock, report, now);
	if (still >= PROGRESS_STALL_MS && (report->total > 0 || report->bytes_total > 0))
		snprintf(rate, sizeof rate, ", stalled %lld s", (long long)(still / 1000));
	else
		format_rate(report, now - clock->started_ms, rate, sizeof rate);
	snprintf(out, size, "%s%s%s%s%s", phase, share, items, bytes, rate);
}

void
progress_new_conflicts(uint64_t count, const uint64_t by_kind[HEARTH_CONFLICT_KINDS],
    char *out, size_t size)
{
	int used;

	out[0] = '\0';
	if (count == 0)
		return;
	used = snprintf(out, size, "%llu new conflict%s (", (unsigned long long)count,
	    count == 1 ? "" : "s");
	const char *separator = "";
	for (int kind = 1; kind < HEARTH_CONFLICT_KINDS && used > 0 && (size_t)used < size; kind++) {
		if (by_kind[kind] == 0)
			continue;
		used += snprintf(out + used, size - (size_t)used, "%s%llu %s", separator,
		    (unsigned long long)by_kind[kind],
		    hearth_conflict_kind_name((enum hearth_conflict_kind)kind));
		separator = ", ";
	}
	if (used > 0 && (size_t)used < size)
		snprintf(out + used, size - (size_t)used, ")");
}
