/* The delta codec packs and the wire share (docs/DESIGN.md §5 Deltas): a
 * chunk compressed by zstd with another chunk, its base, as the prefix, so
 * what the two share costs a few bytes. Pure functions over the caller's
 * zstd contexts and buffers. */
#ifndef HEARTH_BACKEND_DELTA_H
#define HEARTH_BACKEND_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

/* The least level deltas are made at: they are small, so a stronger level
 * than the frames' costs little. */
#define DELTA_LEVEL 3

/* data as a delta against base, at zstd level (DELTA_LEVEL at least), into out (at most out_capacity bytes, which
 * ZSTD_compressBound(length) always suffices for); returns its length, or
 * 0 when it cannot be made. */
size_t delta_encode(ZSTD_CCtx *context, int level, const uint8_t *base, size_t base_length,
    const uint8_t *data, size_t length, uint8_t *out, size_t out_capacity);
/* A delta back into out: true when it decodes to exactly length bytes. On
 * failure, why (zstd's words) in *reason when reason is not NULL. */
bool delta_decode(ZSTD_DCtx *context, const uint8_t *base, size_t base_length,
    const uint8_t *delta, size_t delta_length, uint8_t *out, size_t length,
    const char **reason);

#endif
