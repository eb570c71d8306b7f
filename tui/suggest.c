/* "Did you mean": the name closest to a mistyped one, by edit distance with
 * a swap of two neighbours counting as one edit (the commonest slip, as in
 * `hearth recrod`). Pure: the CLI gives it the names to choose from. */
#include <stdlib.h>
#include <string.h>

#include "tui/cli.h"

#define SUGGEST_LENGTH_MAX 64

/* Optimal string alignment distance between a and b (each shorter than
 * SUGGEST_LENGTH_MAX), over three rows of the classic table. */
static size_t
suggest_distance(const char *a, size_t a_length, const char *b, size_t b_length)
{
	size_t rows[3][SUGGEST_LENGTH_MAX + 1];
	size_t *before = rows[0], *previous = rows[1], *current = rows[2];

	for (size_t j = 0; j <= b_length; j++)
		previous[j] = j;
	for (size_t i = 1; i <= a_length; i++) {
		current[0] = i;
		for (size_t j = 1; j <= b_length; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = previous[j - 1] + cost;
			if (previous[j] + 1 < best)
				best = previous[j] + 1;
			if (current[j - 1] + 1 < best)
				best = current[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    before[j - 2] + 1 < best)
				best = before[j - 2] + 1;
			current[j] = best;
		}
		size_t *spare = before;
		before = previous;
		previous = current;
		current = spare;
	}
	return previous[b_length];
}

const char *
cli_suggest(const char *typed, const char *const *names, size_t count)
{
	size_t typed_length = strlen(typed), best_distance = SIZE_MAX;
	const char *best = NULL;

	if (typed_length == 0 || typed_length >= SUGGEST_LENGTH_MAX)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		size_t length = strlen(names[i]);
		if (length >= SUGGEST_LENGTH_MAX || strcmp(names[i], typed) == 0)
			continue;
		size_t distance = suggest_distance(typed, typed_length, names[i], length);
		if (distance < best_distance) {
			best_distance = distance;
			best = names[i];
		}
	}
	/* Close enough to be a slip, not a different word: at most two edits,
	 * and fewer than half the letters typed. */
	if (best == NULL || best_distance > 2 || best_distance * 2 >= typed_length)
		return NULL;
	return best;
}
