/* What the pack files' writer and reader share inside the store room: the
 * sizes and magic numbers of the layout pack.h describes, and the error
 * helper. Not for use outside backend/store/pack_*.c. */
#ifndef HEARTH_BACKEND_PACK_FORMAT_H
#define HEARTH_BACKEND_PACK_FORMAT_H

#include <stddef.h>

#include "backend/store/chunk.h"
#include "backend/store/pack.h"

#define PACK_HEADER_SIZE 16
#define PACK_FRAME_HEADER_SIZE 16
#define PACK_INDEX_HEADER_SIZE 12
#define PACK_INDEX_ENTRY_SIZE 48
#define PACK_FOOTER_SIZE 20
#define PACK_CODEC_RAW 0
#define PACK_CODEC_ZSTD 1
#define PACK_CODEC_DELTA 2
#define PACK_NAME_RANDOM_BYTES 16
#define PACK_NAME_SIZE (PACK_NAME_RANDOM_BYTES * 2 + sizeof ".pack")
#define PACK_ERROR_SIZE 512

/* A frame holds one chunk of PACK_FRAME_MIN or more, or small chunks that
 * stopped gathering at PACK_FRAME_TARGET, so no honest frame is larger. */
#define PACK_FRAME_RAW_MAX CHUNK_MAX
_Static_assert(PACK_FRAME_TARGET + PACK_FRAME_MIN <= PACK_FRAME_RAW_MAX, "frame bound");

/* Level 1, measured here. Chunks of PACK_FRAME_MIN or more (every chunk of
 * a file over CHUNK_MIN) are frames of their own, so most frames are about
 * 1 MiB: on source code and docs from /usr, level 1 makes those 4.4 times
 * smaller at 375 to 425 MB/s per core, level 3 5.2 times at 270 to 340.
 * Through the whole store path on text-like data (perf/store-throughput.c)
 * level 3 costs 25% more CPU for a 4% smaller pack, and only level 1 keeps
 * a two-core machine storing text at 400 MiB/s. */
#define PACK_DEFAULT_LEVEL 1

/* A frame is stored compressed only when that saves at least 1/32 (~3%):
 * less would cost every later read a decompression for almost nothing. */
#define PACK_MIN_SAVING_SHIFT 5

/* The index of the open pack lives in memory until it is sealed; sealing
 * also at this many chunks keeps it under 48 MiB for packs of tiny files. */
#define PACK_SEAL_CHUNKS (1u << 20)

/* With sync, dirty pack pages are handed to the disk every few MiB, so it
 * writes while later frames are made instead of all at once at the seal. */
#define PACK_WRITEBACK_STEP (8u * 1024 * 1024)

#define PACK_WORKERS_MAX 2
/* Frames submitted but not yet written: enough for every worker to have
 * one in hand and one waiting, few enough to bound memory (each is at most
 * CHUNK_MAX). */
#define PACK_RING_EXTRA 2
#define PACK_RING_MAX (PACK_WORKERS_MAX + PACK_RING_EXTRA)

static const char pack_magic[8] = { 'H', 'R', 'T', 'H', 'P', 'A', 'C', 'K' };
static const char pack_index_magic[8] = { 'H', 'R', 'T', 'H', 'I', 'N', 'D', 'X' };
static const char pack_seal_magic[8] = { 'H', 'R', 'T', 'H', 'S', 'E', 'A', 'L' };


#endif
