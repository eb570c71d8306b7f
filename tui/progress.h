/* Progress as the CLI and the app show it: one line from a report (phase,
 * share done, items, bytes, rate and time left), with the rate measured
 * from when the phase began. */
#ifndef HEARTH_TUI_PROGRESS_H
#define HEARTH_TUI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/hearth.h"

/* When the phase in hand began, to measure its rate, and when its counts
 * last moved, to say when it stalls. */
struct progress_clock {
	char phase[64];
	int64_t started_ms;
	int64_t moved_ms;
	uint64_t done, bytes_done;	/* the counts as they last moved */
};

/* A phase with a total whose counts have not moved for this long says
 * "stalled N s" in place of a rate that would only decay (a connection
 * that hangs, a peer that went quiet). */
#define PROGRESS_STALL_MS 2000

/* "312 B", "4.0 KiB", "1.2 MiB". */
void progress_format_bytes(uint64_t bytes, char *out, size_t size);
int64_t progress_now_ms(void);
/* The share done, 0 to 1, by bytes when their total is known, else by
 * items; -1 when neither total is. */
double progress_fraction(const struct hearth_progress_report *report);
/* "storing 41% 12/30, 103.2 MiB of 250.0 MiB, 12.3 MiB/s, 12 s left", or
 * "..., stalled 4 s"; a new phase restarts the clock. */
void progress_line(struct progress_clock *clock, const struct hearth_progress_report *report,
    char *out, size_t size);
/* The same at now_ms (progress_now_ms's clock). */
void progress_line_at(struct progress_clock *clock, const struct hearth_progress_report *report,
    int64_t now_ms, char *out, size_t size);

/* What a sync brought to settle: "5 new conflicts (3 content, 2 name)"
 * from hearth_sync_result's counts by kind; "" when none came. */
void progress_new_conflicts(uint64_t count, const uint64_t by_kind[HEARTH_CONFLICT_KINDS],
    char *out, size_t size);

#endif
