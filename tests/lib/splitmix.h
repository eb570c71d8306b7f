/* splitmix64, the one pseudo-random generator of the tests and benchmarks:
 * small, seedable and the same on every platform, so a seed printed by a
 * failing run replays it anywhere. Never for anything the program keeps. */
#ifndef HEARTH_TESTS_SPLITMIX_H
#define HEARTH_TESTS_SPLITMIX_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t
splitmix_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* length pseudo-random bytes, one of each splitmix_next. */
static inline void
splitmix_fill(uint8_t *out, size_t length, uint64_t *state)
{
	for (size_t at = 0; at < length; at++)
		out[at] = (uint8_t)splitmix_next(state);
}

#endif
