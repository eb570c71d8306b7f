/* Unit and property tests of model/merge: each rule of the three-way line
 * merge on small texts, the markers as git leaves them, the base found
 * through supersedes, and random histories: heads that change disjoint
 * lines merge to every edit applied, in any order of the heads; any two
 * heads merge the same both ways round.
 *
 * HEARTH_PROPERTY_SEED / HEARTH_PROPERTY_COUNT choose the random
 * histories (2000 by default). The acceptance run of issue 16,
 * HEARTH_PROPERTY_COUNT=10000 at the default seed (2026-12-02, 22 s on the
 * shared 2-core machine): every property held for all 10 000, and the
 * replica histories made 24 713 merges (perf/RESULTS.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/merge.h"
#include "model/state.h"
#include "tests/unit/tap.h"
#include "tests/lib/splitmix.h"

/* ---- helpers ------------------------------------------------------------ */

static struct merge_text
text(const char *bytes)
{
	return (struct merge_text){ bytes, strlen(bytes) };
}

/* merged_of's answer lives here until the next call. */
static struct merge_result last;

static const char *
merged_of(const char *base, const char *mine, const char *theirs)
{
	struct merge_text b = text(base), heads[2] = { text(mine), text(theirs) };
	merge_result_free(&last);
	merge_lines(&b, heads, 2, &last);
	if (last.outcome == MERGE_OVERLAP)
		return "(overlap)";
	if (last.outcome != MERGE_CLEAN)
		return "(not text)";
	return last.merged.length ? buffer_string(&last.merged) : "";
}

static const char *
span_text(const struct merge_result *result, struct merge_span span, char *out, size_t size)
{
	snprintf(out, size, "%.*s", (int)span.length, (const char *)result->texts.data + span.offset);
	return out;
}

/* ---- the rules ---------------------------------------------------------- */

static void
test_rules(void)
{
	static const struct {
		const char *base, *mine, *theirs, *want;
	} cases[] = {
		/* Different lines: both edits. */
		{ "1\n2\n3\n4\n5\n", "1\nTWO\n3\n4\n5\n", "1\n2\n3\n4\nFIVE\n", "1\nTWO\n3\n4\nFIVE\n" },
		/* Adjacent lines do not overlap. */
		{ "1\n2\n3\n", "1\nTWO\n3\n", "1\n2\nTHREE\n", "1\nTWO\nTHREE\n" },
		/* The same change made twice is one change. */
		{ "1\n2\n3\n", "1\nX\n3\n", "1\nX\n3\n", "1\nX\n3\n" },
		/* One side unchanged: the other's. */
		{ "1\n2\n", "1\n2\n", "1\n2\nmore\n", "1\n2\nmore\n" },
		{ "1\n2\n", "0\n1\n2\n", "1\n2\n", "0\n1\n2\n" },
		/* An insertion at either end of the other's range stays outside it. */
		{ "1\n2\n3\n4\n", "1\nnew\n2\n3\n4\n", "1\n4\n", "1\nnew\n4\n" },
		{ "1\n2\n3\n4\n", "1\n2\n3\nnew\n4\n", "1\n4\n", "1\nnew\n4\n" },
		/* Inserts at two places, a delete elsewhere. */
		{ "a\nb\nc\nd\ne\n", "a\nb\nb2\nc\nd\ne\n", "a\nc\nd\ne\ne2\n", "a\nb2\nc\nd\ne\ne2\n" },
		/* Line endings are kept as they are. */
		{ "1\r\n2\r\n3\r\n", "ONE\r\n2\r\n3\r\n", "1\r\n2\r\nTHREE\r\n", "ONE\r\n2\r\nTHREE\r\n" },
		{ "1\n2\n3\n", "1\r\n2\n3\n", "1\n2\n3\nfour\n", "1\r\n2\n3\nfour\n" },
		/* A last line without a newline is its own line. */
		{ "a\nb", "A\nb", "a\nb\nc", "A\nb\nc" },
		{ "a\nb", "A\nb", "a\nb\n", "A\nb\n" },
		/* Empty files. */
		{ "", "", "", "" },
		{ "a\n", "", "a\n", "" },
		{ "", "x\n", "", "x\n" },
		/* Overlaps. */
		{ "1\n2\n3\n", "1\nmine\n3\n", "1\ntheirs\n3\n", "(overlap)" },
		{ "1\n2\n", "1\nmine\n2\n", "1\ntheirs\n2\n", "(overlap)" },
		{ "1\n2\n3\n4\n", "1\n2\nin\n3\n4\n", "1\n4\n", "(overlap)" },
		{ "1\n2\n3\n", "1\n3\n", "1\nedited\n3\n", "(overlap)" },
		{ "", "a\n", "b\n", "(overlap)" },
		{ "a", "a\n", "a b", "(overlap)" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *got = merged_of(cases[i].base, cases[i].mine, cases[i].theirs);
		if (!check_str(got, cases[i].want))
			tap_diag("case %zu", i);
		/* Both ways round the same. */
		got = merged_of(cases[i].base, cases[i].theirs, cases[i].mine);
		if (!check_str(got, cases[i].want))
			tap_diag("case %zu swapped", i);
	}
}

static void
test_overlap_hunks(void)
{
	char base[64], mine[64], theirs[64];

	merged_of("1\n2\n3\n4\n5\n6\n7\n", "1\nB\n3\n4\n5\nF\n7\n", "1\nb\n3\n4\n5\n6\n7\n");
	check_int(last.outcome, MERGE_OVERLAP);
	check_uint(last.hunk_count, 1);
	check_uint(last.overlap_head, 1);
	check_uint(last.hunks[0].base_line, 1);
	check_uint(last.hunks[0].base_count, 1);
	check_str(span_text(&last, last.hunks[0].base, base, sizeof base), "2\n");
	check_str(span_text(&last, last.hunks[0].mine, mine, sizeof mine), "B\n");
	check_str(span_text(&last, last.hunks[0].theirs, theirs, sizeof theirs), "b\n");

	/* Two overlaps, and a clean change between them. */
	merged_of("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", "x\nb\nC\nd\ny\n");
	check_uint(last.hunk_count, 2);
	check_uint(last.hunks[1].base_line, 4);
	check_str(span_text(&last, last.hunks[1].mine, mine, sizeof mine), "E\n");
	check_str(span_text(&last, last.hunks[1].theirs, theirs, sizeof theirs), "y\n");

	/* A chain of hunks overlapping in turn is one overlap. */
	merged_of("1\n2\n3\n4\n5\n", "1\nX\nX\n4\n5\n", "1\n2\nY\nY\n5\n");
	check_uint(last.hunk_count, 1);
	check_uint(last.hunks[0].base_line, 1);
	check_uint(last.hunks[0].base_count, 3);
	check_str(span_text(&last, last.hunks[0].mine, mine, sizeof mine), "X\nX\n4\n");
	check_str(span_text(&last, last.hunks[0].theirs, theirs, sizeof theirs), "2\nY\nY\n");
}

static void
test_not_text(void)
{
	struct merge_text base = { "a\0b\n", 4 }, heads[2] = { text("a\n"), text("b\n") };
	struct merge_result result;

	merge_lines(&base, heads, 2, &result);
	check_int(result.outcome, MERGE_NOT_TEXT);
	merge_result_free(&result);
	base = text("a\n");
	heads[1] = (struct merge_text){ "b\0", 2 };
	merge_lines(&base, heads, 2, &result);
	check_int(result.outcome, MERGE_NOT_TEXT);
	merge_result_free(&result);

	size_t big = MERGE_MAX_BYTES + 1;
	char *large = malloc(big);
	memset(large, 'x', big);
	large[big - 1] = '\n';
	heads[1] = (struct merge_text){ large, big };
	merge_lines(&base, heads, 2, &result);
	check_int(result.outcome, MERGE_TOO_BIG);
	merge_result_free(&result);
	check_int(merge_check(large, MERGE_MAX_BYTES), MERGE_CLEAN);
	free(large);
}

static void
test_fold(void)
{
	struct merge_text base = text("1\n2\n3\n4\n5\n6\n7\n");
	struct merge_text heads[3] = {
		text("ONE\n2\n3\n4\n5\n6\n7\n"),
		text("1\n2\n3\nFOUR\n5\n6\n7\n"),
		text("1\n2\n3\n4\n5\n6\nSEVEN\n"),
	};
	struct merge_result result;

	merge_lines(&base, heads, 3, &result);
	check_int(result.outcome, MERGE_CLEAN);
	check_str(buffer_string(&result.merged), "ONE\n2\n3\nFOUR\n5\n6\nSEVEN\n");
	merge_result_free(&result);

	/* One head alone is itself. */
	merge_lines(&base, heads + 1, 1, &result);
	check_str(buffer_string(&result.merged), "1\n2\n3\nFOUR\n5\n6\n7\n");
	merge_result_free(&result);

	/* The third head overlaps the first: step 2 stops the fold. */
	heads[2] = text("uno\n2\n3\n4\n5\n6\n7\n");
	merge_lines(&base, heads, 3, &result);
	check_int(result.outcome, MERGE_OVERLAP);
	check_uint(result.overlap_head, 2);
	check_uint(result.hunk_count, 1);
	check_uint(result.merged.length, 0);
	merge_result_free(&result);
}

static void
test_markers(void)
{
	struct merge_text base = text("1\n2\n3\n4\n5\n"), mine = text("1\nmine\n3\n4\nFIVE\n"),
			  theirs = text("1\ntheirs\n3\n4\n5\n");
	struct buffer out;

	buffer_init(&out);
	check_uint(merge_with_markers(&base, &mine, &theirs, "mine (laptop)", "theirs (desktop)", &out), 1);
	check_str(buffer_string(&out), "1\n<<<<<<< mine (laptop)\nmine\n||||||| base\n2\n=======\n"
	    "theirs\n>>>>>>> theirs (desktop)\n3\n4\nFIVE\n");
	ok(merge_has_markers((const char *)out.data, out.length), "markers are found");

	/* No newline at the end of a side; CRLF files get CRLF markers. */
	buffer_reset(&out);
	base = text("a\r\nb");
	mine = text("a\r\nB");
	theirs = text("a\r\nbb");
	check_uint(merge_with_markers(&base, &mine, &theirs, "m", "t", &out), 1);
	check_str(buffer_string(&out), "a\r\n<<<<<<< m\r\nB\r\n||||||| base\r\nb\r\n=======\r\nbb\r\n"
	    ">>>>>>> t\r\n");
	ok(merge_has_markers((const char *)out.data, out.length), "CRLF markers are found");

	/* Clean: no marker at all. */
	buffer_reset(&out);
	theirs = text("a\r\nb");
	check_uint(merge_with_markers(&base, &mine, &theirs, "m", "t", &out), 0);
	check_str(buffer_string(&out), "a\r\nB");
	buffer_free(&out);

	ok(!merge_has_markers("<<<<<<< x\n=======\n", 18), "half a marker set is not markers");
	ok(!merge_has_markers("a\n=======\n>>>>>>> t\n", 20), "no opening marker");
	ok(!merge_has_markers("<<<<<<<x\n=======\n>>>>>>> t\n", 26), "the opening needs its space");
}

/* ---- the base ------------------------------------------------------------- */

static struct op_id
id_of(uint8_t replica, uint64_t counter)
{
	struct op_id id;
	memset(id.replica.bytes, replica, sizeof id.replica.bytes);
	id.counter = counter;
	return id;
}

static struct op
set_op(uint8_t replica, uint64_t counter, uint64_t lamport, const struct op_id *supersedes,
    size_t supersedes_count)
{
	return (struct op){ .id = id_of(replica, counter), .lamport = lamport, .kind = OP_SET,
		.supersedes = supersedes, .supersedes_count = supersedes_count };
}

static void
test_find_base(void)
{
	/* a1 <- a2 <- {b1, a3}; b1 <- b2; then a merge m of {a3, b2}, and
	 * concurrently c1 of {a3, b2} too (a crossed history), then a4 <- m
	 * against c2 <- c1. */
	struct op_id a1 = id_of(0xa, 1), a2 = id_of(0xa, 2), a3 = id_of(0xa, 3), b1 = id_of(0xb, 1),
		     b2 = id_of(0xb, 2), m = id_of(0xa, 4), c1 = id_of(0xc, 1), a4 = id_of(0xa, 5),
		     c2 = id_of(0xc, 2), place = id_of(0xd, 1);
	struct op_id on_a2[] = { a2, place }, on_b1[] = { b1 }, on_a1[] = { a1 }, both[] = { a3, b2 },
		     on_m[] = { m }, on_c1[] = { c1 };
	struct op sets[] = {
		set_op(0xa, 5, 9, on_m, 1),
		set_op(0xb, 1, 3, on_a2, 2),
		set_op(0xa, 1, 1, NULL, 0),
		set_op(0xa, 2, 2, on_a1, 1),
		set_op(0xa, 3, 3, on_a2, 1),
		set_op(0xb, 2, 4, on_b1, 1),
		set_op(0xa, 4, 5, both, 2),
		set_op(0xc, 1, 6, both, 2),
		set_op(0xc, 2, 7, on_c1, 1),
	};
	size_t count = sizeof sets / sizeof *sets, base;

	struct op_id heads[] = { a3, b2 };
	ok(merge_find_base(sets, count, heads, 2, &base) && op_id_equal(sets[base].id, a2),
	    "a fork's base is where it forked");
	struct op_id three[] = { a3, b2, a1 };
	ok(merge_find_base(sets, count, three, 3, &base) && op_id_equal(sets[base].id, a1),
	    "three heads: their common ancestor");
	struct op_id crossed[] = { a4, c2 };
	ok(merge_find_base(sets, count, crossed, 2, &base) && op_id_equal(sets[base].id, b2),
	    "crossed merges: the greatest nearest common ancestor");
	struct op_id line[] = { a3, a1 };
	ok(merge_find_base(sets, count, line, 2, &base) && op_id_equal(sets[base].id, a1),
	    "a head reaches itself");
	struct op_id unknown[] = { a3, id_of(0xe, 1) };
	ok(!merge_find_base(sets, count, unknown, 2, &base), "a head not among the sets: no base");
	struct op lone[] = { set_op(0xa, 1, 1, NULL, 0), set_op(0xb, 1, 1, NULL, 0) };
	struct op_id apart[] = { lone[0].id, lone[1].id };
	ok(!merge_find_base(lone, 2, apart, 2, &base), "no common ancestor: no base");
}

/* Four replicas that each merge all four of the round before, thirty
 * rounds: every pair of heads has four nearest bases, each pair of those
 * four more, and so on. The merge must not walk that tree (it once took a
 * minute on a ring of replicas): virtual bases are made once and only so
 * deep, which the count of reads bounds. */
struct counting_source {
	size_t reads;
};

static bool
count_read(void *context, const struct op *set, struct merge_text *out)
{
	((struct counting_source *)context)->reads++;
	*out = (struct merge_text){ "same\n", 5 };
	(void)set;
	return true;
}

static void
test_crossed_history(void)
{
	enum { REPLICAS = 4, ROUNDS = 30 };
	static struct op sets[REPLICAS * ROUNDS];
	static struct op_id ids[REPLICAS * ROUNDS];
	for (int round = 0; round < ROUNDS; round++) {
		for (int r = 0; r < REPLICAS; r++) {
			int at = round * REPLICAS + r;
			ids[at] = id_of((uint8_t)(r + 1), (uint64_t)round + 1);
			sets[at] = set_op((uint8_t)(r + 1), (uint64_t)round + 1, (uint64_t)round + 1,
			    round > 0 ? &ids[(round - 1) * REPLICAS] : NULL, round > 0 ? REPLICAS : 0);
		}
	}
	struct counting_source counter = { 0 };
	struct merge_source source = { count_read, &counter };
	struct merge_result result;
	merge_heads(sets, REPLICAS * ROUNDS, &ids[(ROUNDS - 1) * REPLICAS], REPLICAS, &source, true,
	    &result);
	check_int(result.outcome, MERGE_CLEAN);
	ok(counter.reads < 400, "a crossed history merges with %zu reads", counter.reads);
	merge_result_free(&result);
}

/* ---- properties ------------------------------------------------------------ */

static size_t
below(uint64_t *state, size_t bound)
{
	return (size_t)(splitmix_next(state) % bound);
}

#define HEADS_MAX 5

/* A random base of unique lines, cut into blocks separated by a line no
 * head touches; each block belongs to one head (or none), which edits
 * inside it: replaces, deletes, inserts before a line of the block. The
 * expected merge applies every head's edits. */
struct disjoint_case {
	struct buffer base, heads[HEADS_MAX], expected;
	size_t head_count;
};

static void
edit_line(uint64_t *random, struct buffer *head, struct buffer *expected, size_t line,
    int owner, const char *original)
{
	char fresh[64];
	size_t action = below(random, 4);

	snprintf(fresh, sizeof fresh, "h%d-%zu-%llu\n", owner, line,
	    (unsigned long long)(splitmix_next(random) % 1000000));
	if (action == 0) {		/* replace */
		buffer_printf(head, "%s", fresh);
		buffer_printf(expected, "%s", fresh);
	} else if (action == 1) {	/* delete */
	} else if (action == 2) {	/* insert before */
		buffer_printf(head, "%s%s", fresh, original);
		buffer_printf(expected, "%s%s", fresh, original);
	} else {			/* keep */
		buffer_printf(head, "%s", original);
		buffer_printf(expected, "%s", original);
	}
}

static void
disjoint_case_make(struct disjoint_case *c, uint64_t *random)
{
	size_t lines = 1 + below(random, 60);
	char line[64];
	size_t owner = 0, block_left = 0;

	memset(c, 0, sizeof *c);
	c->head_count = 2 + below(random, HEADS_MAX - 1);
	for (size_t i = 0; i < lines; i++) {
		snprintf(line, sizeof line, "base line %zu\n", i);
		buffer_printf(&c->base, "%s", line);
		if (block_left == 0) {
			/* A separating line nobody touches, then a new block. */
			for (size_t h = 0; h < c->head_count; h++)
				buffer_printf(&c->heads[h], "%s", line);
			buffer_printf(&c->expected, "%s", line);
			owner = below(random, c->head_count + 1);
			block_left = 1 + below(random, 6);
			continue;
		}
		block_left--;
		for (size_t h = 0; h < c->head_count; h++) {
			if (h + 1 == owner)
				edit_line(random, &c->heads[h], &c->expected, i, (int)h, line);
			else
				buffer_printf(&c->heads[h], "%s", line);
		}
		if (owner == 0)
			buffer_printf(&c->expected, "%s", line);
	}
}

static void
disjoint_case_free(struct disjoint_case *c)
{
	buffer_free(&c->base);
	buffer_free(&c->expected);
	for (size_t h = 0; h < HEADS_MAX; h++)
		buffer_free(&c->heads[h]);
}

static struct merge_text
buffer_text(const struct buffer *buffer)
{
	return (struct merge_text){ (const char *)buffer->data, buffer->length };
}

/* Disjoint edits: clean, every edit there, in every order of the heads. */
static bool
check_disjoint(uint64_t seed)
{
	uint64_t random = seed;
	struct disjoint_case c;
	struct merge_text base, heads[HEADS_MAX];
	bool good = true;

	disjoint_case_make(&c, &random);
	base = buffer_text(&c.base);
	for (int order = 0; order < 3 && good; order++) {
		size_t perm[HEADS_MAX];
		for (size_t h = 0; h < c.head_count; h++)
			perm[h] = h;
		for (size_t h = c.head_count; order > 0 && h > 1; h--) {
			size_t j = below(&random, h), swap = perm[h - 1];
			perm[h - 1] = perm[j];
			perm[j] = swap;
		}
		for (size_t h = 0; h < c.head_count; h++)
			heads[h] = buffer_text(&c.heads[perm[h]]);
		struct merge_result result;
		merge_lines(&base, heads, c.head_count, &result);
		good = result.outcome == MERGE_CLEAN && result.merged.length == c.expected.length &&
		    (c.expected.length == 0 ||
			memcmp(result.merged.data, c.expected.data, c.expected.length) == 0);
		if (!good)
			tap_diag("seed %llu order %d: outcome %d\nbase:\n%s\nexpected:\n%s\ngot:\n%s",
			    (unsigned long long)seed, order, result.outcome, buffer_string(&c.base),
			    buffer_string(&c.expected), buffer_string(&result.merged));
		merge_result_free(&result);
	}
	disjoint_case_free(&c);
	return good;
}

/* Random texts over a few distinct lines (so diffs are ambiguous), with
 * random edits anywhere: any two heads merge alike both ways round, a head
 * merged with itself or with the base is that head, and markers appear
 * exactly when the merge overlaps. */
static void
random_text(uint64_t *random, const struct buffer *from, struct buffer *out)
{
	static const char *const alphabet[] = { "a\n", "b\n", "c\n", "{\n", "}\n", "\n", "x\r\n" };
	size_t pieces = 0;
	const char *at = (const char *)from->data, *end = at + from->length;

	buffer_reset(out);
	while (at < end) {
		const char *newline = memchr(at, '\n', (size_t)(end - at));
		size_t length = newline ? (size_t)(newline - at) + 1 : (size_t)(end - at);
		size_t roll = below(random, 10);
		if (roll == 0)
			buffer_printf(out, "%s", alphabet[below(random, 7)]);
		else if (roll != 1)
			buffer_append(out, at, length);
		if (roll == 2)
			buffer_printf(out, "%s", alphabet[below(random, 7)]);
		at += length;
		pieces++;
	}
	if (below(random, 4) == 0)
		buffer_printf(out, "%s", alphabet[below(random, 7)]);
}

static bool
same_result(const struct merge_result *x, const struct merge_result *y)
{
	return x->outcome == y->outcome && x->merged.length == y->merged.length &&
	    (x->merged.length == 0 || memcmp(x->merged.data, y->merged.data, x->merged.length) == 0) &&
	    x->hunk_count == y->hunk_count;
}

static bool
check_symmetric(uint64_t seed)
{
	uint64_t random = seed ^ 0x5bd1e995;
	struct buffer base, mine, theirs, markers;
	struct merge_result forward, backward, self;
	bool good;

	buffer_init(&base);
	buffer_init(&mine);
	buffer_init(&theirs);
	buffer_init(&markers);
	size_t lines = below(&random, 30);
	for (size_t i = 0; i < lines; i++)
		buffer_printf(&base, "%s", (const char *[]){ "a\n", "b\n", "c\n", "{\n", "}\n" }[below(&random, 5)]);
	random_text(&random, &base, &mine);
	random_text(&random, &base, &theirs);
	struct merge_text b = buffer_text(&base);
	struct merge_text pair[2] = { buffer_text(&mine), buffer_text(&theirs) };
	struct merge_text swapped[2] = { pair[1], pair[0] };
	struct merge_text same[2] = { pair[0], pair[0] };
	merge_lines(&b, pair, 2, &forward);
	merge_lines(&b, swapped, 2, &backward);
	merge_lines(&b, same, 2, &self);
	good = same_result(&forward, &backward);
	good = good && self.outcome == MERGE_CLEAN && self.merged.length == mine.length &&
	    (mine.length == 0 || memcmp(self.merged.data, mine.data, mine.length) == 0);
	merge_result_free(&self);
	struct merge_text with_base[2] = { b, pair[1] };
	merge_lines(&b, with_base, 2, &self);
	good = good && self.outcome == MERGE_CLEAN && self.merged.length == theirs.length &&
	    (theirs.length == 0 || memcmp(self.merged.data, theirs.data, theirs.length) == 0);
	size_t overlaps = merge_with_markers(&b, &pair[0], &pair[1], "m", "t", &markers);
	good = good && (overlaps > 0) == (forward.outcome == MERGE_OVERLAP) &&
	    overlaps == forward.hunk_count;
	if (forward.outcome == MERGE_CLEAN)
		good = good && markers.length == forward.merged.length &&
		    (markers.length == 0 || memcmp(markers.data, forward.merged.data, markers.length) == 0);
	if (!good)
		tap_diag("seed %llu: base\n%s--mine\n%s--theirs\n%s--", (unsigned long long)seed,
		    buffer_string(&base), buffer_string(&mine), buffer_string(&theirs));
	merge_result_free(&self);
	merge_result_free(&forward);
	merge_result_free(&backward);
	buffer_free(&base);
	buffer_free(&mine);
	buffer_free(&theirs);
	buffer_free(&markers);
	return good;
}

static uint64_t
env_number(const char *name, uint64_t fallback)
{
	const char *value = getenv(name);
	return value != NULL && *value != '\0' ? strtoull(value, NULL, 10) : fallback;
}

static void
test_properties(void)
{
	uint64_t seed = env_number("HEARTH_PROPERTY_SEED", 16);
	uint64_t count = env_number("HEARTH_PROPERTY_COUNT", 2000);
	uint64_t disjoint_failed = 0, symmetric_failed = 0;

	for (uint64_t i = 0; i < count; i++) {
		if (!check_disjoint(seed + i) && disjoint_failed++ == 0)
			tap_diag("rerun: HEARTH_PROPERTY_SEED=%llu HEARTH_PROPERTY_COUNT=1",
			    (unsigned long long)(seed + i));
		if (!check_symmetric(seed + i) && symmetric_failed++ == 0)
			tap_diag("rerun: HEARTH_PROPERTY_SEED=%llu HEARTH_PROPERTY_COUNT=1",
			    (unsigned long long)(seed + i));
	}
	ok(disjoint_failed == 0, "%llu random histories of disjoint edits merge to every edit, "
	    "whatever the order of the heads (%llu failed)", (unsigned long long)count,
	    (unsigned long long)disjoint_failed);
	ok(symmetric_failed == 0, "%llu random pairs of heads merge alike both ways round (%llu failed)",
	    (unsigned long long)count, (unsigned long long)symmetric_failed);
}

/* A long file with many edits on each side: clean, and well within the
 * diff's bound (the replacement fallback would overlap them). */
static void
test_large(void)
{
	struct buffer base, mine, theirs, expected;
	buffer_init(&base);
	buffer_init(&mine);
	buffer_init(&theirs);
	buffer_init(&expected);
	for (int i = 0; i < 10000; i++) {
		buffer_printf(&base, "line %d\n", i);
		const char *owner = i % 20 == 3 ? "mine" : i % 20 == 13 ? "theirs" : NULL;
		buffer_printf(&mine, owner && owner[0] == 'm' ? "mine %d\n" : "line %d\n", i);
		buffer_printf(&theirs, owner && owner[0] == 't' ? "theirs %d\n" : "line %d\n", i);
		if (owner != NULL)
			buffer_printf(&expected, "%s %d\n", owner, i);
		else
			buffer_printf(&expected, "line %d\n", i);
	}
	struct merge_text b = buffer_text(&base), heads[2] = { buffer_text(&mine), buffer_text(&theirs) };
	struct merge_result result;
	merge_lines(&b, heads, 2, &result);
	check_int(result.outcome, MERGE_CLEAN);
	check_mem(result.merged.data, result.merged.length, expected.data, expected.length);
	merge_result_free(&result);
	buffer_free(&base);
	buffer_free(&mine);
	buffer_free(&theirs);
	buffer_free(&expected);
}

/* ---- replicas: merges at sync, derived state --------------------------------------- */

/* Simulated replicas of one file, as the backend's sync would run them:
 * each edits its view, syncs a random causally closed part of what
 * another holds, and then merges by line as automerge.c does (the base
 * through supersedes, the heads in total order, a SET of the merged bytes
 * superseding every head). At the end every replica syncs with every
 * other until nothing moves. */
#define SIM_REPLICAS 4
#define SIM_OPS_MAX 512

struct sim_blob {
	struct hash hash;
	struct buffer bytes;
};

struct sim {
	struct op ops[SIM_OPS_MAX];
	size_t count;
	struct arena arena;
	bool known[SIM_REPLICAS][SIM_OPS_MAX];
	uint64_t counter[SIM_REPLICAS], lamport[SIM_REPLICAS];
	struct replica_id replicas[SIM_REPLICAS];
	int replica_count;
	struct sim_blob *blobs;
	size_t blob_count, blob_capacity;
	struct node_id node;
	uint64_t random;
	bool disjoint;		/* each replica edits only its own lines */
	size_t merges;
};

static struct hash
sim_hash(const struct buffer *bytes)
{
	struct hash hash;
	for (int part = 0; part < 4; part++) {
		uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)part * 0x9e3779b97f4a7c15ULL;
		for (size_t i = 0; i < bytes->length; i++)
			h = (h ^ bytes->data[i]) * 0x100000001b3ULL;
		h ^= bytes->length;
		store_u64be(hash.bytes + part * 8, h);
	}
	return hash;
}

static const struct sim_blob *
sim_blob_of(const struct sim *sim, const struct hash *hash)
{
	for (size_t i = 0; i < sim->blob_count; i++)
		if (hash_equal(&sim->blobs[i].hash, hash))
			return &sim->blobs[i];
	return NULL;
}

static struct hash
sim_store(struct sim *sim, const struct buffer *bytes)
{
	struct hash hash = sim_hash(bytes);
	if (sim_blob_of(sim, &hash) != NULL)
		return hash;
	if (sim->blob_count == sim->blob_capacity) {
		sim->blob_capacity = sim->blob_capacity ? sim->blob_capacity * 2 : 16;
		sim->blobs = realloc(sim->blobs, sim->blob_capacity * sizeof *sim->blobs);
	}
	struct sim_blob *blob = &sim->blobs[sim->blob_count++];
	blob->hash = hash;
	buffer_init(&blob->bytes);
	buffer_append(&blob->bytes, bytes->data, bytes->length);
	return hash;
}

static struct op *
sim_new_op(struct sim *sim, int replica, enum op_kind kind, const struct op_id *supersedes,
    size_t count)
{
	if (sim->count == SIM_OPS_MAX)
		return NULL;
	struct op *op = &sim->ops[sim->count];
	memset(op, 0, sizeof *op);
	op->id = (struct op_id){ .replica = sim->replicas[replica], .counter = ++sim->counter[replica] };
	op->lamport = ++sim->lamport[replica];
	op->kind = kind;
	op->supersedes = arena_copy(&sim->arena, supersedes, count * sizeof *supersedes);
	op->supersedes_count = count;
	sim->known[replica][sim->count++] = true;
	return op;
}

static void
sim_set(struct sim *sim, int replica, const struct buffer *bytes, const struct op_id *supersedes,
    size_t count, int64_t mtime)
{
	struct op *op = sim_new_op(sim, replica, OP_SET, supersedes, count);
	if (op == NULL)
		return;
	op->u.set = (struct op_set){ .node = sim->node, .blob = sim_store(sim, bytes),
		.size = bytes->length, .mode = 0644, .mtime_ns = mtime };
}

/* The replica's view: state_derive over what it knows, in a random order. */
static void
sim_view(struct sim *sim, int replica, struct state *out)
{
	struct op *ops = calloc(sim->count + 1, sizeof *ops);
	size_t count = 0;
	for (size_t i = 0; i < sim->count; i++)
		if (sim->known[replica][i])
			ops[count++] = sim->ops[i];
	for (size_t i = count; i > 1; i--) {
		size_t j = below(&sim->random, i);
		struct op swap = ops[i - 1];
		ops[i - 1] = ops[j];
		ops[j] = swap;
	}
	state_derive(ops, count, out);
	free(ops);
}

static const struct state_conflict *
sim_content_conflict(const struct state *state)
{
	for (size_t i = 0; i < state->conflict_count; i++)
		if (state->conflicts[i].kind == CONFLICT_CONTENT)
			return &state->conflicts[i];
	return NULL;
}

static bool
sim_read(void *context, const struct op *set, struct merge_text *out)
{
	const struct sim_blob *blob = sim_blob_of(context, &set->u.set.blob);
	if (blob == NULL)
		return false;
	*out = buffer_text(&blob->bytes);
	return true;
}

/* What automerge.c does for the node: 1 merged, 0 nothing to do, -1 the
 * heads overlap (or have no base). */
static int
sim_merge(struct sim *sim, int replica, const struct state *view, bool write)
{
	const struct state_conflict *conflict = sim_content_conflict(view);
	if (conflict == NULL)
		return 0;
	struct op *sets = calloc(sim->count + 1, sizeof *sets);
	size_t set_count = 0;
	int64_t mtime = 0;
	for (size_t i = 0; i < sim->count; i++) {
		if (!sim->known[replica][i] || sim->ops[i].kind != OP_SET)
			continue;
		sets[set_count++] = sim->ops[i];
		for (size_t h = 0; h < conflict->op_count; h++)
			if (op_id_equal(sim->ops[i].id, conflict->ops[h]) && sim->ops[i].u.set.mtime_ns > mtime)
				mtime = sim->ops[i].u.set.mtime_ns;
	}
	struct merge_source source = { sim_read, sim };
	struct merge_result result;
	merge_heads(sets, set_count, conflict->ops, conflict->op_count, &source, true, &result);
	int outcome = result.outcome == MERGE_CLEAN ? 1 : -1;
	if (outcome == 1 && write) {
		sim_set(sim, replica, &result.merged, conflict->ops, conflict->op_count, mtime);
		sim->merges++;
	}
	merge_result_free(&result);
	free(sets);
	return outcome;
}

/* Lines "k.owner:text": owner 9 is nobody's (separators). */
static void
sim_base(struct sim *sim, struct buffer *out)
{
	size_t lines = 4 + below(&sim->random, 40), block = 0;
	int owner = 9;
	for (size_t k = 0; k < lines; k++) {
		if (block == 0) {
			buffer_printf(out, "%zu.9:separator\n", k);
			owner = (int)below(&sim->random, (uint64_t)sim->replica_count);
			block = 1 + below(&sim->random, 4);
			continue;
		}
		block--;
		buffer_printf(out, "%zu.%d:base\n", k, owner);
	}
}

static int
line_owner(const char *line, size_t length)
{
	const char *dot = memchr(line, '.', length);
	return dot != NULL && dot + 1 < line + length ? dot[1] - '0' : 9;
}

/* A random edit of a few lines (in disjoint mode only of the replica's
 * own lines, keeping their owner). */
static void
sim_edit_text(struct sim *sim, int replica, const struct buffer *from, struct buffer *out)
{
	const char *at = (const char *)from->data, *end = at + from->length;
	size_t index = 0;
	while (at < end) {
		const char *newline = memchr(at, '\n', (size_t)(end - at));
		size_t length = newline ? (size_t)(newline - at) + 1 : (size_t)(end - at);
		int owner = line_owner(at, length);
		bool mine = !sim->disjoint || owner == replica;
		size_t roll = mine ? below(&sim->random, 8) : 7;
		int kept_owner = sim->disjoint ? replica : owner;
		if (roll == 0 || roll == 1) {		/* rewrite */
			buffer_printf(out, "%zu.%d:r%d-%llu\n", index, kept_owner, replica,
			    (unsigned long long)sim->counter[replica]);
		} else if (roll == 2) {			/* delete */
		} else if (roll == 3) {			/* insert after */
			buffer_append(out, at, length);
			buffer_printf(out, "n.%d:r%d-%llu-%zu\n", kept_owner, replica,
			    (unsigned long long)sim->counter[replica], index);
		} else {
			buffer_append(out, at, length);
		}
		at += length;
		index++;
	}
}

static void
sim_edit(struct sim *sim, int replica)
{
	struct state view;
	sim_view(sim, replica, &view);
	const struct state_node *node = state_find(&view, sim->node);
	const struct sim_blob *blob = sim_blob_of(sim, &node->blob);
	struct buffer text;
	buffer_init(&text);
	sim_edit_text(sim, replica, &blob->bytes, &text);
	/* An ordinary edit: of a file in conflict it supersedes the head on
	 * disk; else every head (a checkout's seen set). */
	if (sim_content_conflict(&view) != NULL)
		sim_set(sim, replica, &text, &node->content_op, 1, (int64_t)sim->count);
	else
		sim_set(sim, replica, &text, node->content_heads, node->content_head_count,
		    (int64_t)sim->count);
	buffer_free(&text);
	state_free(&view);
}

/* to takes a random prefix (in total order) of what from has and it
 * lacks, then merges. Returns the ops taken. */
static size_t
sim_sync(struct sim *sim, int from, int to, bool whole)
{
	size_t lacking[SIM_OPS_MAX], count = 0;
	for (size_t i = 0; i < sim->count; i++)
		if (sim->known[from][i] && !sim->known[to][i])
			lacking[count++] = i;
	/* sim->ops is in the order made, which is causal; a prefix of it is
	 * causally closed. */
	size_t taken = count == 0 ? 0 : whole ? count : 1 + below(&sim->random, count);
	for (size_t i = 0; i < taken; i++) {
		sim->known[to][lacking[i]] = true;
		if (sim->ops[lacking[i]].lamport > sim->lamport[to])
			sim->lamport[to] = sim->ops[lacking[i]].lamport;
	}
	if (taken > 0) {
		struct state view;
		sim_view(sim, to, &view);
		sim_merge(sim, to, &view, true);
		state_free(&view);
	}
	return taken;
}

static void
sim_init(struct sim *sim, uint64_t seed)
{
	memset(sim, 0, sizeof *sim);
	sim->random = seed * 0x2545f4914f6cdd1dULL + 1;
	arena_init(&sim->arena, 16 * 1024);
	sim->replica_count = 2 + (int)below(&sim->random, SIM_REPLICAS - 1);
	sim->disjoint = below(&sim->random, 2) == 0;
	for (int r = 0; r < sim->replica_count; r++)
		for (size_t b = 0; b < ID_BYTES; b++)
			sim->replicas[r].bytes[b] = (uint8_t)splitmix_next(&sim->random);
	memset(sim->node.bytes, 0x42, ID_BYTES);
	struct op *place = sim_new_op(sim, 0, OP_PLACE, NULL, 0);
	place->u.place = (struct op_place){ .node = sim->node, .parent = NODE_ROOT,
		.name = (const uint8_t *)"notes.txt", .name_length = 9, .kind = NODE_FILE,
		.root = "main" };
	struct buffer base;
	buffer_init(&base);
	sim_base(sim, &base);
	sim_set(sim, 0, &base, NULL, 0, 1);
	buffer_free(&base);
	for (int r = 1; r < sim->replica_count; r++) {
		sim->known[r][0] = sim->known[r][1] = true;
		sim->lamport[r] = sim->lamport[0];
	}
}

static void
sim_free(struct sim *sim)
{
	for (size_t i = 0; i < sim->blob_count; i++)
		buffer_free(&sim->blobs[i].bytes);
	free(sim->blobs);
	arena_free(&sim->arena);
}

/* Every replica ends with the same dump; a content conflict is left only
 * where the heads truly overlap, and never with disjoint edits. */
static bool
check_replicas(uint64_t seed, size_t *merges)
{
	struct sim sim;
	bool good = true;
	sim_init(&sim, seed);
	size_t steps = 4 + below(&sim.random, 30);
	for (size_t s = 0; s < steps && sim.count < SIM_OPS_MAX - 64; s++) {
		int replica = (int)below(&sim.random, (uint64_t)sim.replica_count);
		if (below(&sim.random, 2) == 0) {
			sim_edit(&sim, replica);
		} else {
			int other = (int)below(&sim.random, (uint64_t)sim.replica_count);
			if (other != replica)
				sim_sync(&sim, other, replica, false);
		}
	}
	for (int round = 0; round < 8; round++) {
		size_t moved = 0;
		for (int a = 0; a < sim.replica_count; a++)
			for (int b = 0; b < sim.replica_count; b++)
				if (a != b && sim.count < SIM_OPS_MAX)
					moved += sim_sync(&sim, a, b, true);
		if (moved == 0)
			break;
	}
	struct buffer first, dump;
	buffer_init(&first);
	buffer_init(&dump);
	for (int r = 0; r < sim.replica_count && good; r++) {
		struct state view;
		sim_view(&sim, r, &view);
		buffer_reset(&dump);
		state_dump(&view, &dump);
		if (r == 0)
			buffer_append(&first, dump.data, dump.length);
		else
			good = dump.length == first.length && memcmp(dump.data, first.data, dump.length) == 0;
		const struct state_conflict *conflict = sim_content_conflict(&view);
		if (good && conflict != NULL)
			good = sim_merge(&sim, r, &view, false) < 0 && !sim.disjoint;
		if (!good)
			tap_diag("seed %llu: replica %d differs or keeps a conflict that merges "
			    "(disjoint %d)\n%s", (unsigned long long)seed, r, sim.disjoint,
			    buffer_string(&dump));
		state_free(&view);
	}
	*merges += sim.merges;
	buffer_free(&first);
	buffer_free(&dump);
	sim_free(&sim);
	return good;
}

static void
test_replicas(void)
{
	uint64_t seed = env_number("HEARTH_PROPERTY_SEED", 16);
	uint64_t count = env_number("HEARTH_PROPERTY_COUNT", 2000);
	uint64_t failed = 0;
	size_t merges = 0;

	for (uint64_t i = 0; i < count; i++)
		if (!check_replicas(seed + i, &merges) && failed++ == 0)
			tap_diag("rerun: HEARTH_PROPERTY_SEED=%llu HEARTH_PROPERTY_COUNT=1",
			    (unsigned long long)(seed + i));
	ok(failed == 0, "%llu random histories of concurrent line edits, synced in random parts "
	    "and merged where they arrive: every replica derives the same state, and only real "
	    "overlaps stay conflicts (%llu failed, %zu merges made)", (unsigned long long)count,
	    (unsigned long long)failed, merges);
	ok(count < 20 || merges > count / 4, "the histories merge often (%zu merges)", merges);
}

int
main(void)
{
	test_rules();
	test_overlap_hunks();
	test_not_text();
	test_fold();
	test_markers();
	test_find_base();
	test_crossed_history();
	test_large();
	test_properties();
	test_replicas();
	merge_result_free(&last);
	return tap_done();
}
