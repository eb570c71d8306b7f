/* Fuzz target: the ignore-pattern compiler and matcher (model/ignore.c).
 * The input is patterns, one a line, up to the first NUL byte, then paths
 * separated by NUL bytes. Beyond not crashing and not hanging (the matcher
 * promises O(pattern x path)), it checks the documented rule that a path
 * under an ignored folder is ignored too. */
#include <stdbool.h>
#include <string.h>

#include "model/ignore.h"
#include "tests/fuzz/fuzz.h"

#define IGNORE_FUZZ_PATTERNS 64
#define IGNORE_FUZZ_PATHS 64
#define IGNORE_FUZZ_TEXT 4096

struct ignore_fuzz_input {
	char *patterns[IGNORE_FUZZ_PATTERNS];
	size_t pattern_count;
	char *paths[IGNORE_FUZZ_PATHS];
	size_t path_count;
	char text[IGNORE_FUZZ_TEXT + 1];
};

static void
ignore_fuzz_split(const uint8_t *data, size_t size, struct ignore_fuzz_input *input)
{
	size_t length = size < IGNORE_FUZZ_TEXT ? size : IGNORE_FUZZ_TEXT;
	char *cursor = input->text, *end = input->text + length;

	memcpy(input->text, data, length);
	input->text[length] = '\0';
	input->pattern_count = input->path_count = 0;
	/* Patterns: lines up to the first NUL (strlen stops there). */
	char *patterns_end = cursor + strlen(cursor);
	while (cursor < patterns_end && input->pattern_count < IGNORE_FUZZ_PATTERNS) {
		char *newline = memchr(cursor, '\n', (size_t)(patterns_end - cursor));
		char *stop = newline != NULL ? newline : patterns_end;
		*stop = '\0';
		input->patterns[input->pattern_count++] = cursor;
		cursor = stop + 1;
	}
	cursor = patterns_end + 1;
	while (cursor < end && input->path_count < IGNORE_FUZZ_PATHS) {
		input->paths[input->path_count++] = cursor;
		cursor += strlen(cursor) + 1;
	}
}

/* A path whose parent folder is ignored is ignored. */
static void
ignore_fuzz_parents(const struct ignore_set *set, const char *path)
{
	char parent[IGNORE_FUZZ_TEXT + 1];
	bool is_ignored = ignore_match(set, path, false);

	snprintf(parent, sizeof parent, "%s", path);
	for (char *slash = strrchr(parent, '/'); slash != NULL; slash = strrchr(parent, '/')) {
		*slash = '\0';
		if (parent[0] == '\0')
			break;
		if (ignore_match(set, parent, true))
			fuzz_check(is_ignored, "what an ignored folder holds is ignored");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ignore_fuzz_input input;
	char error[512] = "";

	ignore_fuzz_split(data, size, &input);
	struct ignore_set *set = ignore_compile((const char *const *)input.patterns,
	    input.pattern_count, error, sizeof error);
	if (set == NULL)
		fuzz_check(error[0] != '\0', "a refused pattern says why");
	fuzz_check(!ignore_match(set, "", true), "the top is never ignored");
	for (size_t i = 0; i < input.path_count; i++) {
		const char *path = input.paths[i];
		ignore_match(set, path, true);
		ignore_match(set, path, false);
		if (set != NULL && path[0] != '\0' && path[0] != '/' && strstr(path, "//") == NULL &&
		    path[strlen(path) - 1] != '/')
			ignore_fuzz_parents(set, path);
		for (size_t j = 0; j < input.pattern_count; j++)
			ignore_glob_match(input.patterns[j], path);
	}
	ignore_free(set);
	return 0;
}
