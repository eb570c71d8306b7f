/* Line diff: common head and tail lines are trimmed, the middle goes
 * through Myers' greedy O(ND) search, and the edit script is printed as
 * GNU diff -u would. Work and memory are bounded: past DIFF_MAX_EDITS
 * edits or DIFF_MAX_WORK line comparisons the middle is shown as one
 * replacement, which is still a correct diff. */
#include "model/diff.h"
#include "model/array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trace keeps (D + 1)^2 positions: 1000 edits cost 4 MB. */
#define DIFF_MAX_EDITS 1000
#define DIFF_MAX_WORK (32 * 1024 * 1024)
#define DIFF_MAX_LINES (UINT32_MAX / 4)

struct diff_line {
	const char *text;
	size_t length;		/* with its '\n', when it has one */
	uint64_t hash;
};

struct diff_file {
	struct diff_line *lines;
	size_t count;
	bool *changed;		/* changed[i]: line i is deleted or inserted */
};

enum diff_entry_type {
	DIFF_EQUAL,
	DIFF_DELETE,
	DIFF_INSERT,
};

/* One line of the script; old and new are the positions before it. */
struct diff_entry {
	enum diff_entry_type type;
	size_t old;
	size_t new;
};

static uint64_t
diff_hash(const char *text, size_t length)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < length; i++)
		hash = (hash ^ (uint8_t)text[i]) * 0x100000001b3ULL;
	return hash;
}

static void
diff_split(const char *text, size_t length, struct diff_file *file)
{
	size_t count = 0;

	for (size_t i = 0; i < length; i++)
		count += text[i] == '\n';
	count += length > 0 && text[length - 1] != '\n';
	file->lines = array_zeroed(count, sizeof *file->lines);
	file->changed = array_zeroed(count, sizeof *file->changed);
	file->count = count;
	for (size_t at = 0, line = 0; at < length; line++) {
		const char *newline = memchr(text + at, '\n', length - at);
		size_t end = newline ? (size_t)(newline - text) + 1 : length;
		file->lines[line] = (struct diff_line){ .text = text + at, .length = end - at,
			.hash = diff_hash(text + at, end - at) };
		at = end;
	}
}

static bool
diff_line_equal(const struct diff_line *a, const struct diff_line *b)
{
	return a->hash == b->hash && a->length == b->length &&
	    memcmp(a->text, b->text, a->length) == 0;
}

/* ---- Myers' search ------------------------------------------------------ */

/* The middle part of both files that differs, after the common lines at
 * either end. */
struct diff_middle {
	const struct diff_line *old_lines;
	size_t old_count;
	const struct diff_line *new_lines;
	size_t new_count;
	bool *old_changed;
	bool *new_changed;
};

/* trace holds, for each d, the furthest x on diagonals -d..d after step d,
 * at trace[d * d + d + k]. Returns the number of edits, or -1 past the
 * bounds. */
static long
diff_search(const struct diff_middle *middle, uint32_t *trace)
{
	long n = (long)middle->old_count, m = (long)middle->new_count;
	long limit = n + m < DIFF_MAX_EDITS ? n + m : DIFF_MAX_EDITS;
	size_t work = 0;

	for (long d = 0; d <= limit; d++) {
		uint32_t *row = trace + d * d + d;
		const uint32_t *previous = d > 0 ? trace + (d - 1) * (d - 1) + (d - 1) : NULL;
		for (long k = -d; k <= d; k += 2) {
			long x;
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && previous[k - 1] < previous[k + 1]))
				x = previous[k + 1];
			else
				x = previous[k - 1] + 1;
			long y = x - k, snake_start = x;
			while (x < n && y < m &&
			    diff_line_equal(&middle->old_lines[x], &middle->new_lines[y])) {
				x++;
				y++;
			}
			work += 1 + (size_t)(x - snake_start);
			row[k] = (uint32_t)x;
			if (x >= n && y >= m)
				return d;
		}
		if (work > DIFF_MAX_WORK)
			return -1;
	}
	return -1;
}

/* Walks the trace back from the end, marking each step's line changed. */
static void
diff_backtrack(const struct diff_middle *middle, const uint32_t *trace, long edits)
{
	long x = (long)middle->old_count, y = (long)middle->new_count;

	for (long d = edits; d > 0; d--) {
		const uint32_t *previous = trace + (d - 1) * (d - 1) + (d - 1);
		long k = x - y;
		bool inserted = k == -d || (k != d && previous[k - 1] < previous[k + 1]);
		long previous_k = inserted ? k + 1 : k - 1;
		long previous_x = previous[previous_k];
		long previous_y = previous_x - previous_k;
		if (inserted)
			middle->new_changed[previous_y] = true;
		else
			middle->old_changed[previous_x] = true;
		x = previous_x;
		y = previous_y;
	}
}

static void
diff_mark_all(const struct diff_middle *middle)
{
	for (size_t i = 0; i < middle->old_count; i++)
		middle->old_changed[i] = true;
	for (size_t i = 0; i < middle->new_count; i++)
		middle->new_changed[i] = true;
}

static void
diff_compare(struct diff_file *old_file, struct diff_file *new_file)
{
	size_t head = 0, tail = 0;

	while (head < old_file->count && head < new_file->count &&
	    diff_line_equal(&old_file->lines[head], &new_file->lines[head]))
		head++;
	while (tail < old_file->count - head && tail < new_file->count - head &&
	    diff_line_equal(&old_file->lines[old_file->count - 1 - tail],
		&new_file->lines[new_file->count - 1 - tail]))
		tail++;

	struct diff_middle middle = {
		.old_lines = old_file->lines + head,
		.old_count = old_file->count - head - tail,
		.new_lines = new_file->lines + head,
		.new_count = new_file->count - head - tail,
		.old_changed = old_file->changed + head,
		.new_changed = new_file->changed + head,
	};
	if (middle.old_count == 0 || middle.new_count == 0 ||
	    middle.old_count > DIFF_MAX_LINES || middle.new_count > DIFF_MAX_LINES) {
		diff_mark_all(&middle);
		return;
	}
	size_t steps = middle.old_count + middle.new_count < DIFF_MAX_EDITS
	    ? middle.old_count + middle.new_count : DIFF_MAX_EDITS;
	uint32_t *trace = array_zeroed((steps + 1) * (steps + 1), sizeof *trace);
	long edits = diff_search(&middle, trace);
	if (edits < 0)
		diff_mark_all(&middle);
	else
		diff_backtrack(&middle, trace, edits);
	free(trace);
}

/* ---- unified output ----------------------------------------------------- */

/* Deletions before insertions within a change, as diff(1) prints them. */
static struct diff_entry *
diff_script(const struct diff_file *old_file, const struct diff_file *new_file, size_t *count)
{
	struct diff_entry *entries = array_zeroed(old_file->count + new_file->count,
	    sizeof *entries);
	size_t old = 0, new = 0, filled = 0;

	while (old < old_file->count || new < new_file->count) {
		enum diff_entry_type type = DIFF_EQUAL;
		if (old < old_file->count && old_file->changed[old])
			type = DIFF_DELETE;
		else if (new < new_file->count && new_file->changed[new])
			type = DIFF_INSERT;
		entries[filled++] = (struct diff_entry){ .type = type, .old = old, .new = new };
		old += type != DIFF_INSERT;
		new += type != DIFF_DELETE;
	}
	*count = filled;
	return entries;
}

static void
diff_print_range(struct buffer *out, char sign, size_t start, size_t count)
{
	/* diff(1): a one-line range has no count; an empty one names the
	 * line before it. */
	if (count == 1)
		buffer_printf(out, "%c%zu", sign, start + 1);
	else
		buffer_printf(out, "%c%zu,%zu", sign, count ? start + 1 : start, count);
}

static void
diff_print_line(struct buffer *out, char sign, const struct diff_line *line)
{
	buffer_append_byte(out, (uint8_t)sign);
	buffer_append(out, line->text, line->length);
	if (line->length == 0 || line->text[line->length - 1] != '\n')
		buffer_printf(out, "\n\\ No newline at end of file\n");
}

static void
diff_print_hunk(struct buffer *out, const struct diff_file *old_file,
    const struct diff_file *new_file, const struct diff_entry *entries, size_t start, size_t end)
{
	size_t old_count = 0, new_count = 0;

	for (size_t i = start; i < end; i++) {
		old_count += entries[i].type != DIFF_INSERT;
		new_count += entries[i].type != DIFF_DELETE;
	}
	buffer_printf(out, "@@ ");
	diff_print_range(out, '-', entries[start].old, old_count);
	buffer_printf(out, " ");
	diff_print_range(out, '+', entries[start].new, new_count);
	buffer_printf(out, " @@\n");
	for (size_t i = start; i < end; i++) {
		if (entries[i].type == DIFF_INSERT)
			diff_print_line(out, '+', &new_file->lines[entries[i].new]);
		else
			diff_print_line(out, entries[i].type == DIFF_DELETE ? '-' : ' ',
			    &old_file->lines[entries[i].old]);
	}
}

static size_t
diff_next_change(const struct diff_entry *entries, size_t count, size_t from)
{
	while (from < count && entries[from].type == DIFF_EQUAL)
		from++;
	return from;
}

/* Changes closer than two contexts share a hunk, as in diff(1). */
static void
diff_print_hunks(struct buffer *out, const struct diff_file *old_file,
    const struct diff_file *new_file, const struct diff_entry *entries, size_t count,
    size_t context)
{
	size_t at = 0;

	for (;;) {
		size_t change = diff_next_change(entries, count, at);
		if (change == count)
			return;
		size_t start = change - at > context ? change - context : at;
		size_t end;
		for (;;) {
			end = change;
			while (end < count && entries[end].type != DIFF_EQUAL)
				end++;
			change = diff_next_change(entries, count, end);
			if (change == count || change - end > 2 * context)
				break;
		}
		end = count - end > context ? end + context : count;
		diff_print_hunk(out, old_file, new_file, entries, start, end);
		at = end;
	}
}

void
diff_unified(const char *old_text, size_t old_length, const char *new_text,
    size_t new_length, const char *old_label, const char *new_label, int context,
    struct buffer *out)
{
	struct diff_file old_file, new_file;
	size_t entry_count;

	if (old_length == new_length && (old_length == 0 || memcmp(old_text, new_text, old_length) == 0))
		return;
	diff_split(old_text, old_length, &old_file);
	diff_split(new_text, new_length, &new_file);
	diff_compare(&old_file, &new_file);
	struct diff_entry *entries = diff_script(&old_file, &new_file, &entry_count);

	buffer_printf(out, "--- %s\n+++ %s\n", old_label ? old_label : "/dev/null",
	    new_label ? new_label : "/dev/null");
	diff_print_hunks(out, &old_file, &new_file, entries, entry_count,
	    context > 0 ? (size_t)context : 0);
	buffer_string(out);

	free(entries);
	free(old_file.lines);
	free(old_file.changed);
	free(new_file.lines);
	free(new_file.changed);
}

bool
diff_is_text(const char *bytes, size_t length)
{
	return length == 0 || memchr(bytes, '\0', length) == NULL;
}

void
diff_count_lines(const char *unified, size_t length, size_t *added, size_t *removed)
{
	bool in_hunk = false;

	*added = *removed = 0;
	for (size_t at = 0; at < length;) {
		const char *newline = memchr(unified + at, '\n', length - at);
		size_t end = newline ? (size_t)(newline - unified) + 1 : length;
		char first = unified[at];
		if (first == '@')
			in_hunk = true;
		else if (in_hunk && first == '+')
			(*added)++;
		else if (in_hunk && first == '-')
			(*removed)++;
		at = end;
	}
}
