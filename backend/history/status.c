/* status (docs/DESIGN.md §7): what changed in the working tree since it was last
 * recorded or checked out, where it stands against head, and how many
 * conflicts are listed. It reads; it never writes (beyond the cookie a
 * running watch answers, see watch.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/adopt.h"
#include "backend/history/head.h"
#include "backend/history/history.h"
#include "backend/disk/reconcile.h"
#include "backend/disk/scan.h"
#include "backend/history/conflicts.h"

/* A tree that holds all of head yet has rows head dropped differs from
 * it: they are what the next record adds (docs/DESIGN.md §7, "The tree is
 * the version"), listed as such. Behind head they are a delete to check
 * out, counted among head's changes. */
static void
list_dropped(hearth *home, struct hearth_change_list *changes)
{
	struct arena names;
	struct head_dropped *rows;
	size_t count;

	if (head_dropped_known_none(home))
		return;
	arena_init(&names, 4 * 1024);
	if (head_dropped_rows(home, &names, &rows, &count) == 0)
		head_dropped_list(home, rows, count, changes);
	free(rows);
	arena_free(&names);
}

/* What a stopped checkout placed is not the user's change: what record
 * would adopt (adopt.h) is not listed, and *adopted counts the paths a
 * checkout of head then finds done. */
static void
leave_out_adopted(hearth *home, struct scan_result *scan, uint64_t *adopted)
{
	if (history_tree_at_head(home))
		return;
	adopt_places(home, scan);
	for (size_t i = 0; i < scan->count; i++) {
		enum scan_change_kind kind = scan->changes[i].kind;
		*adopted += scan->changes[i].adopted && (kind == SCAN_STAMP || kind == SCAN_DELETED);
	}
}

int
hearth_status(hearth *home, const struct hearth_progress *progress,
    struct hearth_status_report *out, struct hearth_error *error)
{
	struct scan_result scan;
	struct reconcile_scan how;
	struct vv tree, head;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	/* From the index when a watch keeps it current, else by a walk. */
	int status = reconcile_scan_tree(home, progress, &scan, &how, error);
	if (status != 0)
		return status;
	out->from_index = how.from_index;
	out->folders_listed = how.folders_listed;
	status = scan_settle_content(home, &scan, progress, error);
	uint64_t adopted = 0;
	if (status == 0)
		leave_out_adopted(home, &scan, &adopted);
	if (status == 0) {
		scan_to_change_list(&scan, false, &out->changes);
		scan_to_note_list(&scan, &out->notes);
	}
	scan_result_free(&scan);
	if (status != 0)
		return status;
	store_begin_read(&home->store);

	vv_init(&tree);
	vv_init(&head);
	history_get_tree(home, &tree, out->tree_version);
	if (out->tree_version[0] != '\0')
		history_short_id(home, out->tree_version, out->tree_short);
	struct history_head named;
	history_head(home, &named);
	snprintf(out->head_version, sizeof out->head_version, "%s", named.version);
	if (out->head_version[0] != '\0')
		history_short_id(home, out->head_version, out->head_short);
	out->head_named = named.named;
	out->head_unnamed_ops = named.unnamed_ops;
	out->tree_at_head = history_covers_head(home, &tree);
	store_head_vv(&home->store, &head);
	out->head_ahead = vv_ops_ahead(&tree, &head);
	/* Each path adopted is one the checkout finds done. */
	if (out->head_ahead > 0) {
		out->head_changes = head_pending_changes(home);
		out->head_changes -= adopted < out->head_changes ? adopted : out->head_changes;
	} else {
		list_dropped(home, &out->changes);
	}
	vv_free(&tree);
	vv_free(&head);
	out->restore_paths = scan_restore_count(home);
	out->conflicts = conflicts_count(home);
	store_end_read(&home->store);
	return 0;
}

void
hearth_status_report_free(struct hearth_status_report *report)
{
	hearth_change_list_free(&report->changes);
	hearth_note_list_free(&report->notes);
}
