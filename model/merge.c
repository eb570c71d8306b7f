/* The three-way line merge of merge.h. Lines of all three texts are
 * interned to integers, each head is diffed against the base with Myers'
 * linear-space algorithm (the middle-snake bisection, O((N+M)D) time and
 * O(N+M) memory), the diffs become hunks of base lines, and the hunks of
 * the two heads are grouped where they overlap: a group one head alone
 * changed takes that head's lines, a group both changed alike takes
 * them once, any other group is an overlap. */
#include "model/merge.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"

/* Line comparisons one diff may spend before the part still unsolved is
 * taken as replaced whole: a deterministic bound (the same on every
 * replica), reached only by inputs far from two edits of one file. */
#define MERGE_DIFF_BUDGET (64u * 1024 * 1024)
/* Crossed merges nested deeper than this, or with more nearest bases
 * than MERGE_BASES_MAX, take the greatest nearest base instead of a
 * virtual one: the work stays bounded on any history (replicas that all
 * merge all the time, in a ring, cross at every step). Virtual bases are
 * made once per merge_heads call (a cache keyed by their nearest bases). */
#define MERGE_RECURSION_MAX 3
#define MERGE_BASES_MAX 4

/* ---- lines ---------------------------------------------------------------- */

struct merge_file {
	const char *bytes;
	size_t length;
	size_t *starts;		/* starts[i]: offset of line i; starts[count] = length */
	uint32_t *ids;		/* equal ids, equal lines */
	size_t count;
};

struct intern_slot {
	uint64_t hash;
	const char *text;
	size_t length;
	uint32_t id;		/* id + 1; 0 is empty */
};

struct interner {
	struct intern_slot *slots;
	size_t mask;
	uint32_t next;
};

static uint64_t
line_hash(const char *text, size_t length)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < length; i++)
		hash = (hash ^ (uint8_t)text[i]) * 0x100000001b3ULL;
	return hash ^ (hash >> 29);
}

static size_t
line_count(const char *bytes, size_t length)
{
	size_t count = 0;
	for (const char *at = bytes, *end = bytes + length; at < end; count++) {
		const char *newline = memchr(at, '\n', (size_t)(end - at));
		at = newline != NULL ? newline + 1 : end;
	}
	return count;
}

static void
interner_init(struct interner *interner, size_t lines)
{
	size_t size = 16;
	while (size < lines * 2)
		size *= 2;
	interner->slots = array_zeroed(size, sizeof *interner->slots);
	interner->mask = size - 1;
	interner->next = 0;
}

static uint32_t
intern(struct interner *interner, const char *text, size_t length)
{
	uint64_t hash = line_hash(text, length);
	size_t slot = (size_t)hash & interner->mask;

	for (;; slot = (slot + 1) & interner->mask) {
		struct intern_slot *entry = &interner->slots[slot];
		if (entry->id == 0) {
			*entry = (struct intern_slot){ .hash = hash, .text = text, .length = length,
				.id = ++interner->next };
			return entry->id - 1;
		}
		if (entry->hash == hash && entry->length == length &&
		    memcmp(entry->text, text, length) == 0)
			return entry->id - 1;
	}
}

static void
file_split(struct merge_file *file, const struct merge_text *text, struct interner *interner)
{
	file->bytes = text->bytes;
	file->length = text->length;
	file->count = line_count(text->bytes, text->length);
	file->starts = array_zeroed(file->count + 1, sizeof *file->starts);
	file->ids = array_zeroed(file->count + 1, sizeof *file->ids);
	size_t at = 0;
	for (size_t i = 0; i < file->count; i++) {
		const char *newline = memchr(text->bytes + at, '\n', text->length - at);
		size_t end = newline != NULL ? (size_t)(newline - text->bytes) + 1 : text->length;
		file->starts[i] = at;
		file->ids[i] = intern(interner, text->bytes + at, end - at);
		at = end;
	}
	file->starts[file->count] = text->length;
}

static void
file_free(struct merge_file *file)
{
	free(file->starts);
	free(file->ids);
}

/* Appends lines [first, end) of a file. */
static void
append_lines(struct buffer *out, const struct merge_file *file, size_t first, size_t end)
{
	if (end > first)
		buffer_append(out, file->bytes + file->starts[first], file->starts[end] -
		    file->starts[first]);
}

/* ---- Myers' linear-space diff ----------------------------------------------------- */

struct myers {
	const uint32_t *a, *b;
	bool *a_changed, *b_changed;
	long *forward, *backward;	/* furthest x per diagonal, sized for the whole */
	size_t budget;			/* comparisons left */
};

static void
mark_changed(bool *changed, long first, long end)
{
	for (long i = first; i < end; i++)
		changed[i] = true;
}

/* The middle snake of a[a0..a1) against b[b0..b1) (both non-empty, their
 * ends differing): a point (x, y) on an optimal path from which both
 * halves are solved apart. false when the budget ran out. */
static bool
myers_split(struct myers *m, long a0, long a1, long b0, long b1, long *split_x, long *split_y)
{
	long n = a1 - a0, mm = b1 - b0, max_d = (n + mm + 1) / 2;
	long offset = max_d, length = 2 * max_d + 2, delta = n - mm;
	bool front = (delta & 1) != 0;
	long k1_start = 0, k1_end = 0, k2_start = 0, k2_end = 0;
	long *v1 = m->forward, *v2 = m->backward;

	for (long i = 0; i < length; i++)
		v1[i] = v2[i] = -1;
	v1[offset + 1] = v2[offset + 1] = 0;
	for (long d = 0; d < max_d; d++) {
		for (long k1 = -d + k1_start; k1 <= d - k1_end; k1 += 2) {
			long at = offset + k1, x1;
			if (k1 == -d || (k1 != d && v1[at - 1] < v1[at + 1]))
				x1 = v1[at + 1];
			else
				x1 = v1[at - 1] + 1;
			long y1 = x1 - k1, start = x1;
			while (x1 < n && y1 < mm && m->a[a0 + x1] == m->b[b0 + y1])
				x1++, y1++;
			if (m->budget < (size_t)(x1 - start) + 1)
				return false;
			m->budget -= (size_t)(x1 - start) + 1;
			v1[at] = x1;
			if (x1 > n) {
				k1_end += 2;
			} else if (y1 > mm) {
				k1_start += 2;
			} else if (front) {
				long other = offset + delta - k1;
				if (other >= 0 && other < length && v2[other] != -1 && x1 >= n - v2[other]) {
					*split_x = x1, *split_y = y1;
					return true;
				}
			}
		}
		for (long k2 = -d + k2_start; k2 <= d - k2_end; k2 += 2) {
			long at = offset + k2, x2;
			if (k2 == -d || (k2 != d && v2[at - 1] < v2[at + 1]))
				x2 = v2[at + 1];
			else
				x2 = v2[at - 1] + 1;
			long y2 = x2 - k2, start = x2;
			while (x2 < n && y2 < mm && m->a[a1 - 1 - x2] == m->b[b1 - 1 - y2])
				x2++, y2++;
			if (m->budget < (size_t)(x2 - start) + 1)
				return false;
			m->budget -= (size_t)(x2 - start) + 1;
			v2[at] = x2;
			if (x2 > n) {
				k2_end += 2;
			} else if (y2 > mm) {
				k2_start += 2;
			} else if (!front) {
				long other = offset + delta - k2;
				if (other >= 0 && other < length && v1[other] != -1) {
					long x1 = v1[other], y1 = offset + x1 - other;
					if (x1 >= n - x2) {
						*split_x = x1, *split_y = y1;
						return true;
					}
				}
			}
		}
	}
	/* No common line on any path: all of it is replaced. */
	*split_x = -1;
	return true;
}

static void
myers_range(struct myers *m, long a0, long a1, long b0, long b1)
{
	while (a0 < a1 && b0 < b1 && m->a[a0] == m->b[b0])
		a0++, b0++;
	while (a0 < a1 && b0 < b1 && m->a[a1 - 1] == m->b[b1 - 1])
		a1--, b1--;
	if (a0 == a1 || b0 == b1) {
		mark_changed(m->a_changed, a0, a1);
		mark_changed(m->b_changed, b0, b1);
		return;
	}
	long x, y;
	if (!myers_split(m, a0, a1, b0, b1, &x, &y) || x < 0) {
		mark_changed(m->a_changed, a0, a1);
		mark_changed(m->b_changed, b0, b1);
		return;
	}
	myers_range(m, a0, a0 + x, b0, b0 + y);
	myers_range(m, a0 + x, a1, b0 + y, b1);
}

/* A change of the base: lines [base_first, base_end) replaced by lines
 * [side_first, side_end) of the head. */
struct hunk {
	size_t base_first, base_end;
	size_t side_first, side_end;
};

/* The lines of ids[0..count) whose line occurs in the other file (seen
 * there), their ids into kept and their positions into at. */
static size_t
keep_shared(const uint32_t *ids, size_t count, const uint8_t *seen, uint32_t *kept, size_t *at)
{
	size_t filled = 0;
	for (size_t i = 0; i < count; i++) {
		if (seen[ids[i]]) {
			kept[filled] = ids[i];
			at[filled++] = i;
		}
	}
	return filled;
}

/* Myers over the lines both files hold: a line the other file lacks is
 * changed in every diff (xdiff drops them the same way), and without
 * them an edit of one line in a long file leaves the search next to
 * nothing to do. The diff stays a shortest one. */
static void
diff_changed(const struct merge_file *base, const struct merge_file *side, bool *base_changed,
    bool *side_changed)
{
	uint32_t ids = 0;
	for (size_t i = 0; i < base->count; i++)
		ids = base->ids[i] + 1 > ids ? base->ids[i] + 1 : ids;
	for (size_t i = 0; i < side->count; i++)
		ids = side->ids[i] + 1 > ids ? side->ids[i] + 1 : ids;
	uint8_t *in_base = array_zeroed(ids + 1, 1), *in_side = array_zeroed(ids + 1, 1);
	for (size_t i = 0; i < base->count; i++)
		in_base[base->ids[i]] = 1;
	for (size_t i = 0; i < side->count; i++)
		in_side[side->ids[i]] = 1;
	uint32_t *a = array_zeroed(base->count + 1, sizeof *a), *b = array_zeroed(side->count + 1, sizeof *b);
	size_t *a_at = array_zeroed(base->count + 1, sizeof *a_at);
	size_t *b_at = array_zeroed(side->count + 1, sizeof *b_at);
	size_t n = keep_shared(base->ids, base->count, in_side, a, a_at);
	size_t mm = keep_shared(side->ids, side->count, in_base, b, b_at);
	struct myers m = {
		.a = a, .b = b,
		.a_changed = array_zeroed(n + 1, sizeof(bool)),
		.b_changed = array_zeroed(mm + 1, sizeof(bool)),
		.forward = array_zeroed(n + mm + 4, sizeof(long)),
		.backward = array_zeroed(n + mm + 4, sizeof(long)),
		.budget = MERGE_DIFF_BUDGET,
	};
	myers_range(&m, 0, (long)n, 0, (long)mm);
	for (size_t i = 0; i < base->count; i++)
		base_changed[i] = !in_side[base->ids[i]];
	for (size_t i = 0; i < side->count; i++)
		side_changed[i] = !in_base[side->ids[i]];
	for (size_t i = 0; i < n; i++)
		base_changed[a_at[i]] = m.a_changed[i];
	for (size_t i = 0; i < mm; i++)
		side_changed[b_at[i]] = m.b_changed[i];
	free(in_base);
	free(in_side);
	free(a);
	free(b);
	free(a_at);
	free(b_at);
	free(m.a_changed);
	free(m.b_changed);
	free(m.forward);
	free(m.backward);
}

/* The hunks of base -> side, in order; same-side hunks are separated by
 * at least one unchanged line. */
static struct hunk *
diff_hunks(const struct merge_file *base, const struct merge_file *side, size_t *count)
{
	struct {
		bool *a_changed, *b_changed;
	} m = {
		.a_changed = array_zeroed(base->count + 1, sizeof(bool)),
		.b_changed = array_zeroed(side->count + 1, sizeof(bool)),
	};
	diff_changed(base, side, m.a_changed, m.b_changed);

	struct hunk *hunks = NULL;
	size_t capacity = 0, filled = 0, i = 0, j = 0;
	while (i < base->count || j < side->count) {
		if (i < base->count && j < side->count && !m.a_changed[i] && !m.b_changed[j]) {
			i++, j++;
			continue;
		}
		struct hunk hunk = { .base_first = i, .side_first = j };
		while ((i < base->count && m.a_changed[i]) || (j < side->count && m.b_changed[j])) {
			if (i < base->count && m.a_changed[i])
				i++;
			else
				j++;
		}
		hunk.base_end = i, hunk.side_end = j;
		hunks = array_grow(hunks, &capacity, filled + 1, sizeof *hunks);
		hunks[filled++] = hunk;
	}
	free(m.a_changed);
	free(m.b_changed);
	*count = filled;
	return hunks;
}

/* ---- three ways ------------------------------------------------------------------- */

static bool
hunk_empty(const struct hunk *h)
{
	return h->base_first == h->base_end;
}

/* Overlap of a hunk of one head with one of the other (see merge.h). */
static bool
hunks_overlap(const struct hunk *x, const struct hunk *y)
{
	if (hunk_empty(x) && hunk_empty(y))
		return x->base_first == y->base_first;
	if (hunk_empty(x))
		return y->base_first < x->base_first && x->base_first < y->base_end;
	if (hunk_empty(y))
		return x->base_first < y->base_first && y->base_first < x->base_end;
	return x->base_first < y->base_end && y->base_first < x->base_end;
}

/* One head's side of a walk: its hunks and how far they are taken. */
struct side {
	const struct merge_file *file;
	const struct hunk *hunks;
	size_t count, next;
	long delta;		/* side line - base line after the hunks taken */
};

/* Whether hunk overlaps one of other's hunks taken into the group
 * [first, other->next). Hunks are in order and disjoint, so the walk back
 * stops at the first that ends before hunk starts. */
static bool
overlaps_group(const struct hunk *hunk, const struct side *other, size_t first)
{
	for (size_t i = other->next; i-- > first;) {
		const struct hunk *taken = &other->hunks[i];
		if (hunks_overlap(hunk, taken))
			return true;
		if (taken->base_end < hunk->base_first)
			return false;
	}
	return false;
}

/* Which hunk opens the next group: the one starting first; at one start,
 * an insertion (it goes before a range starting there). 0 for mine. */
static int
first_side(const struct side *mine, const struct side *theirs)
{
	if (mine->next == mine->count)
		return 1;
	if (theirs->next == theirs->count)
		return 0;
	const struct hunk *x = &mine->hunks[mine->next], *y = &theirs->hunks[theirs->next];
	if (x->base_first != y->base_first)
		return x->base_first < y->base_first ? 0 : 1;
	return hunk_empty(y) && !hunk_empty(x) ? 1 : 0;
}

static void
take_hunk(struct side *side, size_t *low, size_t *high)
{
	const struct hunk *hunk = &side->hunks[side->next++];
	if (hunk->base_first < *low)
		*low = hunk->base_first;
	if (hunk->base_end > *high)
		*high = hunk->base_end;
	side->delta += (long)(hunk->side_end - hunk->side_first) -
	    (long)(hunk->base_end - hunk->base_first);
}

/* A group of overlapping hunks, as line ranges of each text. */
struct group {
	size_t base_first, base_end;
	size_t mine_first, mine_end;
	size_t theirs_first, theirs_end;
	bool mine_changed, theirs_changed;
};

/* Takes the next group of transitively overlapping hunks of both heads. */
static struct group
next_group(struct side *mine, struct side *theirs)
{
	struct side *sides[2] = { mine, theirs };
	size_t first[2] = { mine->next, theirs->next };
	size_t low = SIZE_MAX, high = 0;
	long delta_before[2] = { mine->delta, theirs->delta };

	take_hunk(sides[first_side(mine, theirs)], &low, &high);
	for (bool grew = true; grew;) {
		grew = false;
		for (int s = 0; s < 2; s++) {
			struct side *side = sides[s], *other = sides[1 - s];
			if (side->next < side->count &&
			    overlaps_group(&side->hunks[side->next], other, first[1 - s])) {
				take_hunk(side, &low, &high);
				grew = true;
			}
		}
	}
	/* Outside its hunks a head's lines are the base's, shifted by delta. */
	return (struct group){
		.base_first = low, .base_end = high,
		.mine_first = (size_t)((long)low + delta_before[0]),
		.mine_end = (size_t)((long)high + mine->delta),
		.theirs_first = (size_t)((long)low + delta_before[1]),
		.theirs_end = (size_t)((long)high + theirs->delta),
		.mine_changed = mine->next > first[0],
		.theirs_changed = theirs->next > first[1],
	};
}

static bool
same_lines(const struct merge_file *a, size_t a_first, size_t a_end,
    const struct merge_file *b, size_t b_first, size_t b_end)
{
	if (a_end - a_first != b_end - b_first)
		return false;
	for (size_t i = 0; i < a_end - a_first; i++)
		if (a->ids[a_first + i] != b->ids[b_first + i])
			return false;
	return true;
}

/* What a walk does with each piece: the caller renders it. */
struct walk_sink {
	void (*copy)(void *context, const struct merge_file *file, size_t first, size_t end);
	void (*overlap)(void *context, const struct group *group);
	void *context;
};

struct three {
	struct interner interner;
	struct merge_file base, mine, theirs;
};

static void
three_open(struct three *three, const struct merge_text *base, const struct merge_text *mine,
    const struct merge_text *theirs)
{
	interner_init(&three->interner, line_count(base->bytes, base->length) +
	    line_count(mine->bytes, mine->length) + line_count(theirs->bytes, theirs->length));
	file_split(&three->base, base, &three->interner);
	file_split(&three->mine, mine, &three->interner);
	file_split(&three->theirs, theirs, &three->interner);
}

static void
three_close(struct three *three)
{
	file_free(&three->base);
	file_free(&three->mine);
	file_free(&three->theirs);
	free(three->interner.slots);
}

/* Walks base, mine and theirs group by group; returns the overlaps. */
static size_t
three_walk(struct three *three, const struct walk_sink *sink)
{
	size_t mine_count, theirs_count, overlaps = 0, at = 0;
	struct hunk *mine_hunks = diff_hunks(&three->base, &three->mine, &mine_count);
	struct hunk *theirs_hunks = diff_hunks(&three->base, &three->theirs, &theirs_count);
	struct side mine = { .file = &three->mine, .hunks = mine_hunks, .count = mine_count };
	struct side theirs = { .file = &three->theirs, .hunks = theirs_hunks, .count = theirs_count };

	while (mine.next < mine.count || theirs.next < theirs.count) {
		struct group group = next_group(&mine, &theirs);
		sink->copy(sink->context, &three->base, at, group.base_first);
		at = group.base_end;
		if (!group.theirs_changed ||
		    (group.mine_changed && same_lines(&three->mine, group.mine_first, group.mine_end,
			&three->theirs, group.theirs_first, group.theirs_end))) {
			sink->copy(sink->context, &three->mine, group.mine_first, group.mine_end);
		} else if (!group.mine_changed) {
			sink->copy(sink->context, &three->theirs, group.theirs_first, group.theirs_end);
		} else {
			sink->overlap(sink->context, &group);
			overlaps++;
		}
	}
	sink->copy(sink->context, &three->base, at, three->base.count);
	free(mine_hunks);
	free(theirs_hunks);
	return overlaps;
}

/* ---- merge_lines: the fold ------------------------------------------------------- */

struct clean_context {
	struct three *three;
	struct buffer *merged;
	struct merge_result *result;
};

static void
clean_copy(void *context, const struct merge_file *file, size_t first, size_t end)
{
	struct clean_context *clean = context;
	append_lines(clean->merged, file, first, end);
}

static struct merge_span
span_of(struct buffer *texts, const struct merge_file *file, size_t first, size_t end)
{
	struct merge_span span = { .offset = texts->length };
	append_lines(texts, file, first, end);
	span.length = texts->length - span.offset;
	return span;
}

static void
clean_overlap(void *context, const struct group *group)
{
	struct clean_context *clean = context;
	struct merge_result *result = clean->result;
	size_t capacity = result->hunk_count;

	result->hunks = array_grow(result->hunks, &capacity, result->hunk_count + 1,
	    sizeof *result->hunks);
	result->hunks[result->hunk_count++] = (struct merge_hunk){
		.base_line = group->base_first,
		.base_count = group->base_end - group->base_first,
		.base = span_of(&result->texts, &clean->three->base, group->base_first,
		    group->base_end),
		.mine = span_of(&result->texts, &clean->three->mine, group->mine_first,
		    group->mine_end),
		.theirs = span_of(&result->texts, &clean->three->theirs, group->theirs_first,
		    group->theirs_end),
	};
}

enum merge_outcome
merge_check(const char *bytes, size_t length)
{
	if (length > MERGE_MAX_BYTES)
		return MERGE_TOO_BIG;
	if (length > 0 && memchr(bytes, '\0', length) != NULL)
		return MERGE_NOT_TEXT;
	return MERGE_CLEAN;
}

/* One fold step: base, mine (the fold so far), theirs (the next head). */
static size_t
merge_step(const struct merge_text *base, const struct merge_text *mine,
    const struct merge_text *theirs, struct buffer *merged, struct merge_result *result)
{
	struct three three;
	three_open(&three, base, mine, theirs);
	struct clean_context clean = { .three = &three, .merged = merged, .result = result };
	struct walk_sink sink = { .copy = clean_copy, .overlap = clean_overlap, .context = &clean };
	size_t overlaps = three_walk(&three, &sink);
	three_close(&three);
	return overlaps;
}

static enum merge_outcome
merge_check_with(const struct merge_text *text, bool text_only)
{
	if (!text_only)
		return text->length > MERGE_MAX_BYTES ? MERGE_TOO_BIG : MERGE_CLEAN;
	return merge_check(text->bytes, text->length);
}

static void
merge_fold(const struct merge_text *base, const struct merge_text *heads, size_t count,
    bool text_only, struct merge_result *out)
{
	memset(out, 0, sizeof *out);
	buffer_init(&out->merged);
	buffer_init(&out->texts);
	buffer_init(&out->base);
	out->outcome = merge_check_with(base, text_only);
	for (size_t i = 0; i < count && out->outcome == MERGE_CLEAN; i++)
		out->outcome = merge_check_with(&heads[i], text_only);
	if (out->outcome != MERGE_CLEAN || count == 0)
		return;

	buffer_append(&out->merged, heads[0].bytes, heads[0].length);
	struct buffer next;
	buffer_init(&next);
	for (size_t i = 1; i < count; i++) {
		struct merge_text so_far = { (const char *)out->merged.data, out->merged.length };
		buffer_reset(&next);
		if (merge_step(base, &so_far, &heads[i], &next, out) > 0) {
			out->outcome = MERGE_OVERLAP;
			out->overlap_head = i;
			buffer_reset(&out->merged);
			break;
		}
		struct buffer swap = out->merged;
		out->merged = next;
		next = swap;
	}
	buffer_free(&next);
}

void
merge_lines(const struct merge_text *base, const struct merge_text *heads, size_t count,
    struct merge_result *out)
{
	merge_fold(base, heads, count, true, out);
}

void
merge_lines_any(const struct merge_text *base, const struct merge_text *heads, size_t count,
    struct merge_result *out)
{
	merge_fold(base, heads, count, false, out);
}

void
merge_result_free(struct merge_result *result)
{
	buffer_free(&result->merged);
	buffer_free(&result->texts);
	buffer_free(&result->base);
	free(result->hunks);
	memset(result, 0, sizeof *result);
}

/* ---- markers ------------------------------------------------------------------------- */

struct marker_context {
	struct three *three;
	struct buffer *out;
	const char *mine_label, *theirs_label;
	const char *newline;
};

static void
marker_copy(void *context, const struct merge_file *file, size_t first, size_t end)
{
	struct marker_context *markers = context;
	append_lines(markers->out, file, first, end);
}

/* A side's lines, ended by a newline if its last line lacks one. */
static void
marker_lines(struct marker_context *markers, const struct merge_file *file, size_t first,
    size_t end)
{
	append_lines(markers->out, file, first, end);
	if (end > first && file->bytes[file->starts[end] - 1] != '\n')
		buffer_printf(markers->out, "%s", markers->newline);
}

static void
marker_overlap(void *context, const struct group *group)
{
	struct marker_context *markers = context;
	struct buffer *out = markers->out;
	const char *nl = markers->newline;

	/* Text before a conflict may end without a newline (a last line
	 * changed on one side only cannot: it would be in the group). */
	if (out->length > 0 && out->data[out->length - 1] != '\n')
		buffer_printf(out, "%s", nl);
	buffer_printf(out, "<<<<<<< %s%s", markers->mine_label, nl);
	marker_lines(markers, &markers->three->mine, group->mine_first, group->mine_end);
	buffer_printf(out, "||||||| base%s", nl);
	marker_lines(markers, &markers->three->base, group->base_first, group->base_end);
	buffer_printf(out, "=======%s", nl);
	marker_lines(markers, &markers->three->theirs, group->theirs_first, group->theirs_end);
	buffer_printf(out, ">>>>>>> %s%s", markers->theirs_label, nl);
}

static bool
first_line_crlf(const struct merge_file *file)
{
	if (file->count == 0)
		return false;
	size_t end = file->starts[1];
	return end >= 2 && file->bytes[end - 1] == '\n' && file->bytes[end - 2] == '\r';
}

size_t
merge_with_markers(const struct merge_text *base, const struct merge_text *mine,
    const struct merge_text *theirs, const char *mine_label, const char *theirs_label,
    struct buffer *out)
{
	struct three three;
	three_open(&three, base, mine, theirs);
	bool crlf = three.base.count > 0 ? first_line_crlf(&three.base) : first_line_crlf(&three.mine);
	struct marker_context markers = {
		.three = &three, .out = out, .mine_label = mine_label, .theirs_label = theirs_label,
		.newline = crlf ? "\r\n" : "\n",
	};
	struct walk_sink sink = { .copy = marker_copy, .overlap = marker_overlap,
		.context = &markers };
	size_t overlaps = three_walk(&three, &sink);
	three_close(&three);
	return overlaps;
}

static bool
line_starts(const char *line, size_t length, const char *prefix)
{
	size_t prefix_length = strlen(prefix);
	return length >= prefix_length && memcmp(line, prefix, prefix_length) == 0;
}

bool
merge_has_markers(const char *bytes, size_t length)
{
	int stage = 0;	/* 0: looking for <<<, 1: for ===, 2: for >>> */

	for (size_t at = 0; at < length;) {
		const char *line = bytes + at;
		const char *newline = memchr(line, '\n', length - at);
		size_t line_length = newline != NULL ? (size_t)(newline - line) : length - at;
		at += line_length + (newline != NULL);
		if (line_length > 0 && line[line_length - 1] == '\r')
			line_length--;
		if (stage == 0 && line_starts(line, line_length, "<<<<<<< "))
			stage = 1;
		else if (stage == 1 && line_length == 7 && memcmp(line, "=======", 7) == 0)
			stage = 2;
		else if (stage == 2 && line_starts(line, line_length, ">>>>>>> "))
			return true;
	}
	return false;
}

/* ---- the base ------------------------------------------------------------------------ */

static int
compare_set_ids(const void *left, const void *right, void *sets)
{
	const struct op *all = sets;
	return op_id_compare(all[*(const size_t *)left].id, all[*(const size_t *)right].id);
}

/* Index of id among sets through by_id (sorted by op id), or SIZE_MAX. */
static size_t
find_set(const struct op *sets, const size_t *by_id, size_t count, struct op_id id)
{
	size_t low = 0, high = count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		int order = op_id_compare(sets[by_id[middle]].id, id);
		if (order == 0)
			return by_id[middle];
		if (order < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return SIZE_MAX;
}

/* Marks every set the head reaches (itself included) with stamp, and
 * counts each first visit in reached. */
static void
reach_from(const struct op *sets, const size_t *by_id, size_t count, size_t head,
    uint32_t stamp, uint32_t *visited, uint32_t *reached, size_t *stack)
{
	size_t depth = 0;

	visited[head] = stamp;
	reached[head]++;
	stack[depth++] = head;
	while (depth > 0) {
		const struct op *op = &sets[stack[--depth]];
		for (size_t i = 0; i < op->supersedes_count; i++) {
			size_t parent = find_set(sets, by_id, count, op->supersedes[i]);
			if (parent == SIZE_MAX || visited[parent] == stamp)
				continue;
			visited[parent] = stamp;
			reached[parent]++;
			stack[depth++] = parent;
		}
	}
}

/* Marks with reached[i] how many heads reach set i; false when a head is
 * not among the sets. */
static bool
count_reach(const struct op *sets, const size_t *by_id, size_t count, const struct op_id *heads,
    size_t head_count, uint32_t *reached)
{
	uint32_t *visited = array_zeroed(count, sizeof *visited);
	size_t *stack = array_zeroed(count, sizeof *stack);
	bool found = true;

	for (size_t h = 0; h < head_count && found; h++) {
		size_t head = find_set(sets, by_id, count, heads[h]);
		if (head == SIZE_MAX)
			found = false;
		else if (visited[head] != h + 1)
			reach_from(sets, by_id, count, head, (uint32_t)h + 1, visited, reached, stack);
	}
	free(visited);
	free(stack);
	return found;
}

static size_t *
sets_by_id(const struct op *sets, size_t count)
{
	size_t *by_id = array_zeroed(count, sizeof *by_id);
	for (size_t i = 0; i < count; i++)
		by_id[i] = i;
	qsort_r(by_id, count, sizeof *by_id, compare_set_ids, (void *)sets);
	return by_id;
}

bool
merge_find_base(const struct op *sets, size_t count, const struct op_id *heads,
    size_t head_count, size_t *base_index)
{
	if (count == 0 || head_count == 0)
		return false;
	size_t *by_id = sets_by_id(sets, count);
	uint32_t *reached = array_zeroed(count, sizeof *reached);
	bool found = count_reach(sets, by_id, count, heads, head_count, reached);
	size_t best = SIZE_MAX;

	for (size_t i = 0; found && i < count; i++)
		if (reached[i] == head_count &&
		    (best == SIZE_MAX || op_order_compare(&sets[i], &sets[best]) > 0))
			best = i;
	free(by_id);
	free(reached);
	if (!found || best == SIZE_MAX)
		return false;
	*base_index = best;
	return true;
}

static int
compare_sets_by_order(const void *left, const void *right, void *sets)
{
	const struct op *all = sets;
	return op_order_compare(&all[*(const size_t *)left], &all[*(const size_t *)right]);
}

/* Marks with bit every set one of heads reaches (itself included);
 * false when a head is not among the sets. */
static bool
mark_reach(const struct op *sets, const size_t *by_id, size_t count, const struct op_id *heads,
    size_t head_count, uint8_t bit, uint8_t *marks, size_t *stack)
{
	for (size_t h = 0; h < head_count; h++) {
		size_t head = find_set(sets, by_id, count, heads[h]);
		if (head == SIZE_MAX)
			return false;
		if (marks[head] & bit)
			continue;
		size_t depth = 0;
		marks[head] |= bit;
		stack[depth++] = head;
		while (depth > 0) {
			const struct op *op = &sets[stack[--depth]];
			for (size_t j = 0; j < op->supersedes_count; j++) {
				size_t parent = find_set(sets, by_id, count, op->supersedes[j]);
				if (parent != SIZE_MAX && !(marks[parent] & bit)) {
					marks[parent] |= bit;
					stack[depth++] = parent;
				}
			}
		}
	}
	return true;
}

/* The nearest common ancestors of two groups of heads (sets both groups
 * reach, none of whose descendants both reach too), least first in total
 * order. Walking the common ones from the greatest down, each one not yet
 * below a nearer one is nearest, and then everything below it is marked:
 * every set is marked once. */
#define REACH_FIRST 1
#define REACH_SECOND 2
#define REACH_BELOW 4

static size_t *
nearest_bases(const struct op *sets, size_t count, const struct op_id *first, size_t first_count,
    const struct op_id *second, size_t second_count, size_t *nearest_count)
{
	size_t *by_id = sets_by_id(sets, count);
	uint8_t *marks = array_zeroed(count, 1);
	size_t *order = array_zeroed(count, sizeof *order);
	size_t *stack = array_zeroed(count, sizeof *stack);
	size_t *nearest = array_zeroed(count, sizeof *nearest);
	size_t found = 0;

	if (mark_reach(sets, by_id, count, first, first_count, REACH_FIRST, marks, stack) &&
	    mark_reach(sets, by_id, count, second, second_count, REACH_SECOND, marks, stack)) {
		for (size_t i = 0; i < count; i++)
			order[i] = i;
		qsort_r(order, count, sizeof *order, compare_sets_by_order, (void *)sets);
		for (size_t i = count; i-- > 0;) {
			size_t at = order[i];
			if ((marks[at] & (REACH_FIRST | REACH_SECOND)) != (REACH_FIRST | REACH_SECOND) ||
			    (marks[at] & REACH_BELOW))
				continue;
			nearest[found++] = at;
			/* Everything below it, itself not: a set reached twice is
			 * marked on the first walk only. */
			const struct op *op = &sets[at];
			for (size_t j = 0; j < op->supersedes_count; j++) {
				struct op_id parent = op->supersedes[j];
				size_t index = find_set(sets, by_id, count, parent);
				if (index != SIZE_MAX && !(marks[index] & REACH_BELOW))
					mark_reach(sets, by_id, count, &parent, 1, REACH_BELOW, marks, stack);
			}
		}
	}
	/* Found greatest first: reverse into total order. */
	for (size_t i = 0; i < found / 2; i++) {
		size_t swap = nearest[i];
		nearest[i] = nearest[found - 1 - i];
		nearest[found - 1 - i] = swap;
	}
	free(by_id);
	free(marks);
	free(order);
	free(stack);
	*nearest_count = found;
	return nearest;
}

/* A virtual base made once: the nearest bases it merged, and its bytes
 * (clean false when they overlapped). */
struct virtual_base {
	struct op_id *ids;
	size_t count;
	bool clean;
	struct buffer bytes;
};

struct virtual_cache {
	struct virtual_base *items;
	size_t count, capacity;
};

struct heads_merge {
	const struct op *sets;
	size_t count;
	const struct merge_source *source;
	bool text_only;
	struct virtual_cache *cache;
};

static struct virtual_base *
cache_find(struct virtual_cache *cache, const struct op_id *ids, size_t count)
{
	for (size_t i = 0; i < cache->count; i++) {
		struct virtual_base *item = &cache->items[i];
		if (item->count != count)
			continue;
		size_t j = 0;
		while (j < count && op_id_equal(item->ids[j], ids[j]))
			j++;
		if (j == count)
			return item;
	}
	return NULL;
}

static void merge_heads_of(const struct heads_merge *merge, const struct op_id *heads,
    size_t head_count, unsigned depth, struct merge_result *out);

/* The base of one step of the fold, into out: the nearest common ancestor
 * of what is merged so far (first) and the next head (second), or several
 * such merged (recursively) into a virtual one. false when there is none
 * or its bytes cannot be had (reason in *why). */
static bool
step_base(const struct heads_merge *merge, const struct op_id *first, size_t first_count,
    const struct op_id *second, unsigned depth, struct buffer *out, enum merge_outcome *why)
{
	size_t nearest_count;
	size_t *nearest = nearest_bases(merge->sets, merge->count, first, first_count, second, 1,
	    &nearest_count);
	struct merge_text text;
	bool found = false;

	*why = MERGE_NO_BASE;
	if (nearest_count > 1 && nearest_count <= MERGE_BASES_MAX && depth < MERGE_RECURSION_MAX) {
		struct op_id *ids = array_zeroed(nearest_count, sizeof *ids);
		for (size_t i = 0; i < nearest_count; i++)
			ids[i] = merge->sets[nearest[i]].id;
		struct virtual_base *made = cache_find(merge->cache, ids, nearest_count);
		if (made == NULL) {
			struct merge_result virtual;
			merge_heads_of(merge, ids, nearest_count, depth + 1, &virtual);
			struct virtual_cache *cache = merge->cache;
			cache->items = array_grow(cache->items, &cache->capacity, cache->count + 1,
			    sizeof *cache->items);
			made = &cache->items[cache->count++];
			made->ids = ids;
			made->count = nearest_count;
			made->clean = virtual.outcome == MERGE_CLEAN;
			buffer_init(&made->bytes);
			if (made->clean)
				buffer_append(&made->bytes, virtual.merged.data, virtual.merged.length);
			merge_result_free(&virtual);
		} else {
			free(ids);
		}
		if (made->clean) {
			buffer_append(out, made->bytes.data, made->bytes.length);
			found = true;
		}
	}
	/* One nearest base, or a virtual one that overlapped: the greatest. */
	if (!found && nearest_count > 0) {
		const struct op *base = &merge->sets[nearest[nearest_count - 1]];
		found = merge->source->read(merge->source->context, base, &text);
		if (found)
			buffer_append(out, text.bytes, text.length);
		else
			*why = MERGE_TOO_BIG;
	}
	free(nearest);
	return found;
}

static const struct op *
set_with_id(const struct heads_merge *merge, struct op_id id)
{
	for (size_t i = 0; i < merge->count; i++)
		if (op_id_equal(merge->sets[i].id, id))
			return &merge->sets[i];
	return NULL;
}

static int
compare_op_pointers(const void *left, const void *right)
{
	return op_order_compare(*(const struct op *const *)left, *(const struct op *const *)right);
}

/* Fails the merge with outcome, keeping nothing. */
static void
merge_fail(struct merge_result *out, enum merge_outcome outcome)
{
	memset(out, 0, sizeof *out);
	buffer_init(&out->merged);
	buffer_init(&out->texts);
	buffer_init(&out->base);
	out->outcome = outcome;
}

/* One step: so_far (the heads before) merged with the next head, over
 * their base. Leaves the result in out. */
static void
merge_step_heads(const struct heads_merge *merge, const struct op_id *before, size_t before_count,
    const struct op *next, const struct buffer *so_far, unsigned depth, struct merge_result *out)
{
	struct merge_text texts[2], next_text;
	struct buffer base;
	enum merge_outcome why;

	buffer_init(&base);
	if (!merge->source->read(merge->source->context, next, &next_text)) {
		merge_fail(out, MERGE_TOO_BIG);
	} else if (!step_base(merge, before, before_count, &next->id, depth, &base, &why)) {
		merge_fail(out, why);
	} else {
		struct merge_text base_text = { (const char *)base.data, base.length };
		texts[0] = (struct merge_text){ (const char *)so_far->data, so_far->length };
		texts[1] = next_text;
		merge_fold(&base_text, texts, 2, merge->text_only, out);
		buffer_append(&out->base, base.data, base.length);
	}
	buffer_free(&base);
}

/* The heads in total order, folded pairwise: each step merges what the
 * heads before it made with the next one, over their own base. */
static void
merge_heads_of(const struct heads_merge *merge, const struct op_id *heads, size_t head_count,
    unsigned depth, struct merge_result *out)
{
	const struct op **ops = array_zeroed(head_count, sizeof *ops);
	struct op_id *sorted = array_zeroed(head_count, sizeof *sorted);
	struct merge_text first;

	for (size_t h = 0; h < head_count; h++) {
		ops[h] = set_with_id(merge, heads[h]);
		if (ops[h] == NULL) {
			merge_fail(out, MERGE_NO_BASE);
			goto done;
		}
	}
	qsort(ops, head_count, sizeof *ops, compare_op_pointers);
	for (size_t h = 0; h < head_count; h++)
		sorted[h] = ops[h]->id;
	if (!merge->source->read(merge->source->context, ops[0], &first)) {
		merge_fail(out, MERGE_TOO_BIG);
		goto done;
	}
	/* The first head alone (merge_fold checks it is text). */
	merge_fold(&first, &first, 1, merge->text_only, out);
	for (size_t h = 1; h < head_count && out->outcome == MERGE_CLEAN; h++) {
		struct merge_result step;
		merge_step_heads(merge, sorted, h, ops[h], &out->merged, depth, &step);
		if (step.outcome == MERGE_OVERLAP)
			step.overlap_head = h;
		merge_result_free(out);
		*out = step;
	}
done:
	free(ops);
	free(sorted);
}

void
merge_heads(const struct op *sets, size_t count, const struct op_id *heads, size_t head_count,
    const struct merge_source *source, bool text_only, struct merge_result *out)
{
	struct virtual_cache cache = { 0 };
	struct heads_merge merge = { .sets = sets, .count = count, .source = source,
		.text_only = text_only, .cache = &cache };
	if (head_count == 0) {
		merge_fail(out, MERGE_NO_BASE);
		return;
	}
	merge_heads_of(&merge, heads, head_count, 0, out);
	for (size_t i = 0; i < cache.count; i++) {
		free(cache.items[i].ids);
		buffer_free(&cache.items[i].bytes);
	}
	free(cache.items);
}
