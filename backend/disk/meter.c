/* Progress counted as it happens and reported at a steady pace (meter.h):
 * record and checkout count the bytes of each chunk, a sync the bytes on
 * the wire, so a 2 GB file or a 400 MB sync moves the bar while it runs. */
#include "backend/disk/meter.h"

#include "backend/io/io.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

static int64_t
meter_now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

void
meter_init(struct meter *meter, const struct hearth_progress *progress)
{
	memset(meter, 0, sizeof *meter);
	meter->progress = progress;
}

void
meter_flush(struct meter *meter)
{
	if (meter->progress == NULL || meter->progress->report == NULL)
		return;
	meter->last_ms = meter_now_ms();
	meter->progress->report(meter->progress->context, &meter->report);
}

void
meter_tick(struct meter *meter)
{
	if (meter->progress == NULL || meter->progress->report == NULL)
		return;
	if (meter_now_ms() - meter->last_ms >= METER_INTERVAL_MS)
		meter_flush(meter);
}

void
meter_phase(struct meter *meter, const char *phase, uint64_t total, uint64_t bytes_total)
{
	uint64_t in = meter->report.bytes_in, out = meter->report.bytes_out;

	memset(&meter->report, 0, sizeof meter->report);
	meter->report.phase = phase;
	meter->report.total = total;
	meter->report.bytes_total = bytes_total;
	/* The wire's counts run across phases. */
	meter->report.bytes_in = in;
	meter->report.bytes_out = out;
	meter_flush(meter);
}

void
meter_add(struct meter *meter, uint64_t items, uint64_t bytes, const char *path)
{
	meter->report.done += items;
	meter->report.bytes_done += bytes;
	if (path != NULL)
		meter->report.path = path;
	meter_tick(meter);
	if (io_hold_due(meter->report.phase, meter->report.bytes_done)) {
		meter_flush(meter);
		io_hold();
	}
	/* A path is the caller's for this call only. */
	meter->report.path = NULL;
}

bool
meter_cancelled(const struct meter *meter)
{
	return meter->progress != NULL && meter->progress->cancel != NULL &&
	    atomic_load(meter->progress->cancel) != 0;
}
