/* Line diffs of small text files (Myers' O(ND) algorithm), written as a
 * unified diff for the app's detail views and `hearth show -p`. */
#ifndef HEARTH_MODEL_DIFF_H
#define HEARTH_MODEL_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "model/buffer.h"

/* Appends a unified diff of old -> new with context lines of context;
 * nothing when they are equal. Labels go on the ---/+++ lines as given
 * ("a/notes.txt"); NULL prints /dev/null. The output is what diff -u
 * prints (hunk ranges, "\ No newline at end of file"), so patch(1) applies
 * it. Past about a thousand edits in the part that differs, that part is
 * shown as one replacement instead of a minimal diff: the work stays
 * bounded whatever the input. */
void diff_unified(const char *old_text, size_t old_length, const char *new_text,
    size_t new_length, const char *old_label, const char *new_label, int context,
    struct buffer *out);
/* Counts the lines a unified diff (as diff_unified writes it) adds and
 * removes, its ---/+++ lines aside. */
void diff_count_lines(const char *unified, size_t length, size_t *added, size_t *removed);
/* true when bytes look like text: no NUL in them. */
bool diff_is_text(const char *bytes, size_t length);

#endif
