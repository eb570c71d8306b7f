/* Unit tests of model/diff: the exact unified format on small cases, a
 * round trip (a small patch applier here must turn old into new with the
 * diff) over random texts, and bounded work on large inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/diff.h"
#include "tests/unit/tap.h"

/* diff_of's answer lives here until the next call. */
static struct buffer diff_text;

static const char *
diff_of(const char *old_text, const char *new_text, int context)
{
	buffer_free(&diff_text);
	diff_unified(old_text, strlen(old_text), new_text, strlen(new_text), "a/f", "b/f", context,
	    &diff_text);
	return diff_text.length ? buffer_string(&diff_text) : "";
}

static void
test_format(void)
{
	static const struct {
		const char *old_text;
		const char *new_text;
		int context;
		const char *want;
	} cases[] = {
		{ "same\n", "same\n", 3, "" },
		{ "", "", 3, "" },
		{ "a\nb\nc\n", "a\nB\nc\n", 3,
		  "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n" },
		{ "", "x\ny\n", 3, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n" },
		{ "x\n", "", 3, "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n" },
		{ "a\nb", "a\nc", 3,
		  "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
		  "+c\n\\ No newline at end of file\n" },
		{ "a", "a\n", 3,
		  "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n" },
		{ "a\nb", "z\na\nb", 3,
		  "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+z\n a\n b\n\\ No newline at end of file\n" },
		{ "a\nb\n", "a\nx\nb\n", 0, "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+x\n" },
		{ "a\nx\nb\n", "a\nb\n", 0, "--- a/f\n+++ b/f\n@@ -2 +1,0 @@\n-x\n" },
		{ "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\nB\n3\n4\n5\n6\n7\n8\nI\n10\n", 1,
		  "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n 1\n-2\n+B\n 3\n@@ -8,3 +8,3 @@\n 8\n-9\n+I\n 10\n" },
		/* Two contexts apart or less: one hunk. */
		{ "1\n2\n3\n4\n5\n6\n", "1\nB\n3\n4\nE\n6\n", 1,
		  "--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n 1\n-2\n+B\n 3\n 4\n-5\n+E\n 6\n" },
		/* As GNU diff -U0 prints it; a negative context is none. */
		{ "a\nb\nc\n", "c\nb\na\n", -1,
		  "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-a\n-b\n@@ -3,0 +2,2 @@\n+b\n+a\n" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		check_str(diff_of(cases[i].old_text, cases[i].new_text, cases[i].context), cases[i].want);
	buffer_free(&diff_text);

	diff_unified("a\n", 2, "b\n", 2, NULL, NULL, 3, &diff_text);
	check_str(buffer_string(&diff_text), "--- /dev/null\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n");
	buffer_free(&diff_text);
}

/* ---- a patch applier ---------------------------------------------------- */

struct lines {
	const char **starts;
	size_t *lengths;
	size_t count;
};

static void
lines_split(const char *text, size_t length, struct lines *lines)
{
	lines->starts = malloc((length + 1) * sizeof *lines->starts);
	lines->lengths = malloc((length + 1) * sizeof *lines->lengths);
	lines->count = 0;
	for (size_t at = 0; at < length;) {
		const char *newline = memchr(text + at, '\n', length - at);
		size_t end = newline ? (size_t)(newline - text) + 1 : length;
		lines->starts[lines->count] = text + at;
		lines->lengths[lines->count++] = end - at;
		at = end;
	}
}

static void
lines_free(struct lines *lines)
{
	free(lines->starts);
	free(lines->lengths);
}

struct patcher {
	struct lines old;
	struct lines patch;
	size_t old_at;		/* next old line */
	size_t patch_at;	/* next patch line */
	struct buffer *out;
};

/* A hunk body line without its sign; a following "\ No newline" marker
 * takes its newline away. */
static void
patch_body(struct patcher *patcher, const char **text, size_t *length)
{
	*text = patcher->patch.starts[patcher->patch_at] + 1;
	*length = patcher->patch.lengths[patcher->patch_at] - 1;
	patcher->patch_at++;
	if (patcher->patch_at < patcher->patch.count &&
	    patcher->patch.starts[patcher->patch_at][0] == '\\') {
		(*length)--;
		patcher->patch_at++;
	}
}

static bool
patch_old_line_is(const struct patcher *patcher, const char *text, size_t length)
{
	return patcher->old_at < patcher->old.count && patcher->old.lengths[patcher->old_at] == length &&
	    memcmp(patcher->old.starts[patcher->old_at], text, length) == 0;
}

static void
patch_copy_old(struct patcher *patcher, size_t until)
{
	for (; patcher->old_at < until && patcher->old_at < patcher->old.count; patcher->old_at++)
		buffer_append(patcher->out, patcher->old.starts[patcher->old_at],
		    patcher->old.lengths[patcher->old_at]);
}

/* Applies one hunk at its header line; checks the counts it announces. */
static bool
patch_hunk(struct patcher *patcher)
{
	unsigned long old_start, old_count = 1, new_start, new_count = 1;
	const char *header = patcher->patch.starts[patcher->patch_at++];

	if (sscanf(header, "@@ -%lu,%lu +%lu,%lu @@", &old_start, &old_count, &new_start, &new_count) != 4 &&
	    sscanf(header, "@@ -%lu +%lu,%lu @@", &old_start, &new_start, &new_count) != 3 &&
	    sscanf(header, "@@ -%lu,%lu +%lu @@", &old_start, &old_count, &new_start) != 3 &&
	    sscanf(header, "@@ -%lu +%lu @@", &old_start, &new_start) != 2)
		return false;
	patch_copy_old(patcher, old_count ? old_start - 1 : old_start);
	unsigned long old_seen = 0, new_seen = 0;
	while (patcher->patch_at < patcher->patch.count &&
	    strchr(" -+", patcher->patch.starts[patcher->patch_at][0]) != NULL) {
		char sign = patcher->patch.starts[patcher->patch_at][0];
		const char *text;
		size_t length;
		patch_body(patcher, &text, &length);
		if (sign != '+' && !patch_old_line_is(patcher, text, length))
			return false;
		if (sign != '+') {
			patcher->old_at++;
			old_seen++;
		}
		if (sign != '-') {
			buffer_append(patcher->out, text, length);
			new_seen++;
		}
	}
	return old_seen == old_count && new_seen == new_count;
}

static bool
patch_apply(const char *old_text, size_t old_length, const char *patch, size_t patch_length,
    struct buffer *out)
{
	struct patcher patcher = { .out = out };
	bool good = true;

	lines_split(old_text, old_length, &patcher.old);
	lines_split(patch, patch_length, &patcher.patch);
	if (patcher.patch.count > 0)
		patcher.patch_at = 2;	/* --- and +++ */
	while (good && patcher.patch_at < patcher.patch.count)
		good = strncmp(patcher.patch.starts[patcher.patch_at], "@@ ", 3) == 0 && patch_hunk(&patcher);
	patch_copy_old(&patcher, patcher.old.count);
	lines_free(&patcher.old);
	lines_free(&patcher.patch);
	return good;
}

/* ---- round trips -------------------------------------------------------- */

static uint64_t random_state = 88172645463325252ULL;

static uint64_t
random_below(uint64_t bound)
{
	random_state ^= random_state << 13;
	random_state ^= random_state >> 7;
	random_state ^= random_state << 17;
	return random_state % bound;
}

/* Lines from a small alphabet so that equal lines are common, sometimes
 * without a final newline. */
static void
random_text(struct buffer *out, size_t lines)
{
	static const char *const words[] = { "alpha", "beta", "gamma", "", "delta", "x" };

	buffer_reset(out);
	for (size_t i = 0; i < lines; i++)
		buffer_printf(out, "%s\n", words[random_below(sizeof words / sizeof *words)]);
	if (out->length > 0 && random_below(3) == 0)
		out->length--;
	buffer_string(out);
}

static void
mutate_text(const struct buffer *from, struct buffer *to)
{
	buffer_reset(to);
	for (size_t at = 0; at < from->length;) {
		const char *newline = memchr(from->data + at, '\n', from->length - at);
		size_t end = newline ? (size_t)((const uint8_t *)newline - from->data) + 1 : from->length;
		uint64_t roll = random_below(10);
		if (roll == 0)
			buffer_printf(to, "inserted %llu\n", (unsigned long long)random_below(3));
		if (roll != 1)
			buffer_append(to, from->data + at, end - at);
		if (roll == 2)
			buffer_printf(to, "changed\n");
		at = end;
	}
	if (random_below(4) == 0 && to->length > 0)
		to->length--;
	buffer_string(to);
}

static bool
round_trip(const struct buffer *old_text, const struct buffer *new_text, int context)
{
	struct buffer patch, applied;
	bool good;

	buffer_init(&patch);
	buffer_init(&applied);
	diff_unified((const char *)old_text->data, old_text->length, (const char *)new_text->data,
	    new_text->length, "a/f", "b/f", context, &patch);
	good = patch_apply((const char *)old_text->data, old_text->length, (const char *)patch.data,
	    patch.length, &applied);
	good = good && applied.length == new_text->length &&
	    (applied.length == 0 || memcmp(applied.data, new_text->data, applied.length) == 0);
	buffer_free(&patch);
	buffer_free(&applied);
	return good;
}

static void
test_round_trips(void)
{
	struct buffer old_text, new_text;
	int failures = 0;

	buffer_init(&old_text);
	buffer_init(&new_text);
	for (int round = 0; round < 3000 && failures < 3; round++) {
		random_text(&old_text, random_below(40));
		if (random_below(5) == 0)
			random_text(&new_text, random_below(40));
		else
			mutate_text(&old_text, &new_text);
		int context = (int)random_below(5);
		if (!round_trip(&old_text, &new_text, context)) {
			failures++;
			tap_diag("round %d (context %d) fails:\nold:\n%s\nnew:\n%s", round, context,
			    buffer_string(&old_text), buffer_string(&new_text));
		}
	}
	ok(failures == 0, "3000 random diffs apply back to the new text");
	buffer_free(&old_text);
	buffer_free(&new_text);
}

static size_t
count_of(const char *text, const char *what)
{
	size_t count = 0;
	for (const char *at = strstr(text, what); at != NULL; at = strstr(at + 1, what))
		count++;
	return count;
}

/* A small change in a big file stays a small hunk; two unrelated big
 * files fall back to one replacement (the edit bound: its result is what
 * is checked; how fast is perf/'s question, a hang the bound's). */
static void
test_large(void)
{
	struct buffer old_text, new_text, patch;
	tap_hang_bound(300, "diffs of large inputs");
	buffer_init(&old_text);
	buffer_init(&new_text);
	buffer_init(&patch);
	for (int i = 0; i < 100000; i++) {
		buffer_printf(&old_text, "line %d\n", i);
		buffer_printf(&new_text, i == 50000 ? "changed %d\n" : "line %d\n", i);
	}
	diff_unified((const char *)old_text.data, old_text.length, (const char *)new_text.data,
	    new_text.length, "a/f", "b/f", 3, &patch);
	ok(strstr(buffer_string(&patch), "@@ -49998,7 +49998,7 @@\n") != NULL && count_of((const char *)patch.data, "\n-") == 1,
	    "one changed line of 100000 is one small hunk");
	ok(round_trip(&old_text, &new_text, 3), "and applies back");

	buffer_reset(&old_text);
	buffer_reset(&new_text);
	for (int i = 0; i < 20000; i++) {
		buffer_printf(&old_text, "old %d\n", i);
		buffer_printf(&new_text, "new %d\n", i);
		if (i % 7 == 3)
			buffer_printf(&new_text, "old %d\n", i);
	}
	buffer_reset(&patch);
	diff_unified((const char *)old_text.data, old_text.length, (const char *)new_text.data,
	    new_text.length, "a/f", "b/f", 3, &patch);
	ok(count_of(buffer_string(&patch), "@@ -") == 1 && count_of((const char *)patch.data, "\n-") == 20000,
	    "a diff past the edit bound is one replacement hunk");
	ok(round_trip(&old_text, &new_text, 3), "which applies back");
	tap_hang_bound(0, NULL);
	buffer_free(&old_text);
	buffer_free(&new_text);
	buffer_free(&patch);
}

static void
test_is_text(void)
{
	ok(diff_is_text("hello\n", 6), "text is text");
	ok(diff_is_text("", 0), "empty is text");
	ok(!diff_is_text("a\0b", 3), "a NUL byte makes it binary");
	ok(diff_is_text("caf\xc3\xa9\xff", 6), "other bytes do not");
}

/* --stat's counts: hunk lines only, never the ---/+++ heading, even when
 * a removed or added line itself starts with "--" or "++". */
static void
test_count_lines(void)
{
	size_t added, removed;
	const char *text = diff_of("a\n-- b\nc\n", "a\n++ B\nc\nd\n", 3);

	diff_count_lines(text, strlen(text), &added, &removed);
	ok(added == 2 && removed == 1, "two lines added, one removed (got %zu, %zu)", added, removed);
	diff_count_lines("", 0, &added, &removed);
	ok(added == 0 && removed == 0, "nothing in nothing");
	text = diff_of("a\nb", "a\nc", 3);
	diff_count_lines(text, strlen(text), &added, &removed);
	ok(added == 1 && removed == 1, "a missing newline is no line of its own");
}

int
main(void)
{
	test_format();
	test_round_trips();
	test_large();
	test_is_text();
	test_count_lines();
	return tap_done();
}
