/* Progress of a long call as it goes (hearth.h, struct hearth_progress):
 * items and bytes counted as each arrives, reported to the front end at
 * most every METER_INTERVAL_MS (and at once when the phase changes or the
 * caller asks), and the caller's cancel flag read at each step. */
#ifndef HEARTH_BACKEND_DISK_METER_H
#define HEARTH_BACKEND_DISK_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/hearth.h"

/* Often enough for a bar to move smoothly (a front end shows at least
 * every half second), rarely enough to cost nothing per chunk. */
#define METER_INTERVAL_MS 100

struct meter {
	const struct hearth_progress *progress;	/* may be NULL */
	struct hearth_progress_report report;
	int64_t last_ms;			/* of the last report */
};

void meter_init(struct meter *meter, const struct hearth_progress *progress);
/* A new phase: counts start from zero, and it is reported at once. */
void meter_phase(struct meter *meter, const char *phase, uint64_t total, uint64_t bytes_total);
/* Counts items and bytes done; reports when the last report is old. */
void meter_add(struct meter *meter, uint64_t items, uint64_t bytes, const char *path);
/* Reports what is counted now, due or not. */
void meter_flush(struct meter *meter);
/* Reports if the last report is old: for a caller that sets report's
 * fields itself (a sync's bytes each way). */
void meter_tick(struct meter *meter);
bool meter_cancelled(const struct meter *meter);

#endif
