/* Three-way line merge of text files (docs/DESIGN.md §4.2): the base and the heads
 * of a node's content, in total order, give either the merged bytes or the
 * hunks where the heads overlap. A pure function of its inputs, so every
 * replica that merges the same heads writes the same bytes. */
#ifndef HEARTH_MODEL_MERGE_H
#define HEARTH_MODEL_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/buffer.h"
#include "model/op.h"

/* Text is what merges: no NUL byte and at most this many bytes, in the
 * base and in every head. 4 MiB holds any hand-edited file (man pages,
 * notes, sources) many times over and keeps a merge's work bounded
 * whatever the input; a bigger or binary file stays a plain conflict. */
#define MERGE_MAX_BYTES (4u * 1024 * 1024)

enum merge_outcome {
	MERGE_CLEAN = 0,	/* merged holds the result */
	MERGE_OVERLAP,		/* hunks holds where two heads changed the same lines */
	MERGE_NOT_TEXT,		/* the base or a head holds a NUL byte */
	MERGE_TOO_BIG,		/* the base or a head is over MERGE_MAX_BYTES, or
				 * (merge_heads) its bytes could not be had */
	MERGE_NO_BASE,		/* merge_heads: the heads share no ancestor */
};

struct merge_text {
	const char *bytes;
	size_t length;
};

/* A run of bytes in merge_result.texts. */
struct merge_span {
	size_t offset, length;
};

/* One overlap: base lines [base_line, base_line + base_count) (0-based),
 * what the fold so far made of them (mine) and what the head that
 * overlapped made of them (theirs). */
struct merge_hunk {
	size_t base_line, base_count;
	struct merge_span base, mine, theirs;
};

struct merge_result {
	enum merge_outcome outcome;
	struct buffer merged;		/* MERGE_CLEAN: the merged bytes */
	/* MERGE_OVERLAP: the overlaps of the first fold step that had any, in
	 * base order, and the index of that step's head. */
	struct merge_hunk *hunks;
	size_t hunk_count;
	size_t overlap_head;
	struct buffer texts;		/* the hunks' bytes */
	struct buffer base;		/* merge_heads: the base it merged over */
};

/* Merges heads[0..count) (count >= 1, in total order) against base. Two
 * heads merge as diff3 does, with one difference: changes to adjacent
 * lines do not overlap. Both heads' line diffs against the base become
 * hunks (a range of base lines and what replaced it); a hunk of one head
 * overlaps one of the other when they share a base line, when both insert
 * at one place, or when one inserts strictly inside the other's range (an
 * insertion at either end of a range goes before or after it). Groups of
 * overlapping hunks that still give both heads the same lines are one
 * change made twice, not an overlap.
 *
 * More heads fold in total order over the one base: heads[0] merged with
 * heads[1], that result with heads[2], and so on; the first step with an
 * overlap stops the fold. When the heads change disjoint lines the result
 * is the same in any order of the heads.
 *
 * Line endings are bytes of their lines ("\r\n" stays), and a last line
 * without '\n' is another line than the same text with one. out needs no
 * initialization; merge_result_free releases it. */
void merge_lines(const struct merge_text *base, const struct merge_text *heads, size_t count,
    struct merge_result *out);
/* merge_lines with NUL bytes taken as any other byte (a file the config
 * says to merge always): only the size limit holds. */
void merge_lines_any(const struct merge_text *base, const struct merge_text *heads,
    size_t count, struct merge_result *out);
void merge_result_free(struct merge_result *result);

/* Appends mine and theirs merged against base, with every overlap written
 * between diff3-style markers as git merge leaves a file:
 *
 *     <<<<<<< mine_label
 *     (mine's lines)
 *     ||||||| base
 *     (the base's lines)
 *     =======
 *     (theirs' lines)
 *     >>>>>>> theirs_label
 *
 * The markers end in "\r\n" when the first line of the base (or else of
 * mine) does; a side's last line without a newline gets one before the
 * marker that follows it. Returns the number of overlaps written. Inputs
 * that are not text (merge_check) are the caller's to refuse. */
size_t merge_with_markers(const struct merge_text *base, const struct merge_text *mine,
    const struct merge_text *theirs, const char *mine_label, const char *theirs_label,
    struct buffer *out);

/* MERGE_CLEAN when bytes may take part in a merge, else why not. */
enum merge_outcome merge_check(const char *bytes, size_t length);

/* true when bytes hold a whole set of conflict markers as
 * merge_with_markers writes them: a line starting "<<<<<<< ", then one
 * "=======", then one starting ">>>>>>> ", in that order. */
bool merge_has_markers(const char *bytes, size_t length);

/* The base of a merge: among sets[0..count) (a node's SET ops, any order,
 * each naming in supersedes the content it replaced), the op greatest in
 * total order that every head reaches through supersedes (a head reaches
 * itself). Causality puts an ancestor before its descendants in total
 * order, so that op is a nearest common ancestor; when history crossed
 * (two merges of the same heads), it is the later of the nearest ones.
 * Ids in supersedes that name no op of sets (a PLACE, an op not held) are
 * passed over. Returns false when the heads share no ancestor, or a head
 * is not among sets; else writes the base's index in sets. */
bool merge_find_base(const struct op *sets, size_t count, const struct op_id *heads,
    size_t head_count, size_t *base_index);

/* Where merge_heads gets a SET's bytes: true with out pointing at them
 * (valid until the merge returns), false when they cannot be had or are
 * over MERGE_MAX_BYTES. */
struct merge_source {
	bool (*read)(void *context, const struct op *set, struct merge_text *out);
	void *context;
};

/* The whole merge of a node's content heads[0..head_count) (any order;
 * merged in total order) among its SETs sets[0..count): over their one
 * nearest common ancestor, or, when history crossed (two replicas merged
 * different heads, and the heads now descend from both merges), over a
 * virtual base made by merging the nearest ones in turn, as git's
 * recursive strategy does; a virtual base that overlaps itself gives way
 * to the greatest nearest one. text_only false lets NUL bytes through
 * (only the size limit holds). out->base holds the base used. */
void merge_heads(const struct op *sets, size_t count, const struct op_id *heads,
    size_t head_count, const struct merge_source *source, bool text_only,
    struct merge_result *out);

#endif
