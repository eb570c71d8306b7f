/* The delta codec (delta.h): zstd with the base as its prefix, the window
 * widened to reach over the whole base, long-distance matching for big
 * bases. */
#include "backend/store/delta.h"

/* The window must reach back over the whole base, or the matches a delta
 * is made of are not found; 27 is what a decoder accepts by default. */
#define DELTA_WINDOW_LOG_MIN 10
#define DELTA_WINDOW_LOG_MAX 27
/* Long-distance matching finds the base's runs in a big chunk: without it
 * a one-line edit of 850 KiB of text was a 4 KiB delta, with it 120 bytes. */
#define DELTA_LONG_MIN (64u * 1024)

static int
delta_window_log(size_t span)
{
	int log = DELTA_WINDOW_LOG_MIN;

	while (log < DELTA_WINDOW_LOG_MAX && ((size_t)1 << log) < span)
		log++;
	return log;
}

size_t
delta_encode(ZSTD_CCtx *context, int level, const uint8_t *base, size_t base_length,
    const uint8_t *data, size_t length, uint8_t *out, size_t out_capacity)
{
	ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters);
	size_t made = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel,
	    level > DELTA_LEVEL ? level : DELTA_LEVEL);
	if (!ZSTD_isError(made))
		made = ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog,
		    delta_window_log(base_length + length));
	if (!ZSTD_isError(made) && base_length >= DELTA_LONG_MIN)
		made = ZSTD_CCtx_setParameter(context, ZSTD_c_enableLongDistanceMatching, 1);
	if (!ZSTD_isError(made))
		made = ZSTD_CCtx_refPrefix(context, base, base_length);
	if (!ZSTD_isError(made))
		made = ZSTD_compress2(context, out, out_capacity, data, length);
	ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters);
	return ZSTD_isError(made) ? 0 : made;
}

bool
delta_decode(ZSTD_DCtx *context, const uint8_t *base, size_t base_length,
    const uint8_t *delta, size_t delta_length, uint8_t *out, size_t length,
    const char **reason)
{
	ZSTD_DCtx_reset(context, ZSTD_reset_session_and_parameters);
	size_t got = ZSTD_DCtx_refPrefix(context, base, base_length);
	/* Room for length bytes only: a longer result is zstd's error. */
	if (!ZSTD_isError(got))
		got = ZSTD_decompressDCtx(context, out, length, delta, delta_length);
	if (ZSTD_isError(got)) {
		if (reason != NULL)
			*reason = ZSTD_getErrorName(got);
		return false;
	}
	if (got != length && reason != NULL)
		*reason = "it decodes to another length";
	return got == length;
}
