/* Content-defined chunking (FastCDC with normalised chunking, ~1 MiB
 * average): cut points depend on the bytes around them, so an insert early
 * in a big file changes one or two chunks, not all that follow. */
#ifndef HEARTH_BACKEND_CHUNK_H
#define HEARTH_BACKEND_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHUNK_MIN (256u * 1024)
#define CHUNK_AVERAGE (1024u * 1024)
#define CHUNK_MAX (4u * 1024 * 1024)

/* Length of the chunk that starts at data. With at_end false the caller
 * must pass at least CHUNK_MAX bytes (or all it has left, with at_end
 * true); the result is then in [CHUNK_MIN, CHUNK_MAX], or length when
 * at_end and length <= CHUNK_MIN. Pure and deterministic. */
size_t chunk_next(const uint8_t *data, size_t length, bool at_end);
/* A cut depends only on the bytes before it, so a streaming caller may also
 * pass fewer than CHUNK_MAX bytes with at_end false: a result shorter than
 * length is the cut any longer input would give; a result equal to length
 * means more bytes are needed. */

#endif
