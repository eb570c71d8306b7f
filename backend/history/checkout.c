/* checkout (docs/DESIGN.md §7; export is checkout_export.c). Checkout brings the working tree to a
 * version without ever destroying unrecorded data: it refuses (or, forced,
 * records first) when a path it would touch holds a change not recorded.
 * New content is written to staging files first (the slow part, which can
 * be cancelled and leaves the tree untouched); then a short second phase
 * renames and removes, and the index follows in the same transaction. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/store/content.h"
#include "backend/disk/guard.h"
#include "backend/history/checkout.h"
#include "backend/history/checkout_parts.h"
#include "backend/history/head.h"
#include "backend/disk/prefill.h"
#include "backend/history/record.h"
#include "backend/disk/identity.h"
#include "backend/io/io.h"
#include "backend/disk/scan.h"
#include "model/array.h"

/* What the index says the tree holds now. */
struct current {
	struct node_id id, parent;
	char *name;
	enum node_kind kind;
	int root;
	struct hash blob;
	bool has_blob;
	struct scan_stamp stamp;	/* the index's; its mode is the file's */
	int64_t stamped_ns;
	int restore;
	uint8_t *seen;
	size_t seen_length;
	char *path;
	bool staged;		/* moved into staging during apply */
	struct step *step;	/* the step that changes it, if any */
	bool planned;		/* a step rewrites its index row */
	bool gone;		/* deleted from disk and not recorded: nothing to lose */
};

enum step_kind { STEP_NONE, STEP_CREATE, STEP_REMOVE, STEP_MOVE, STEP_WRITE, STEP_MOVE_WRITE };

struct step {
	enum step_kind kind;
	bool done;		/* applied to the tree: the index follows it */
	/* A file or link as it was placed, for its index row's stamp (a
	 * folder's is taken at the end: what is put inside it moves it). */
	bool has_placed;
	struct stat placed;
	struct current *current;	/* NULL for create */
	struct tree_node *target;	/* NULL for remove */
	int depth;
	int root;
};

struct checkout {
	struct hearth *home;
	const struct hearth_progress *progress;
	struct hearth_error *error;
	struct tree target, head;
	bool target_is_head;
	struct current *currents;
	size_t current_count, current_capacity;
	struct step *steps;
	size_t step_count;
	struct arena arena;
	int *staging_fds;		/* per root, HOME_DIR_NAME/staging */
	uint64_t written, removed, moved;
	struct buffer seen;
	int64_t now_ns;
	struct hearth_change_list blocked;
	/* A partial checkout (conflict resolution): only these nodes, sorted;
	 * the tree's version does not move. NULL for a whole checkout. */
	const struct node_id *only;
	size_t only_count;
	bool limit_deletes;	/* the guard on emptying applies */
	/* What the scan left out (another Home's state): never written,
	 * moved or removed, whatever the versions hold there. */
	char **left_out;
	size_t left_out_count;
	/* The walk of the record made just before (by hearth_apply_head, or
	 * by --force), or NULL: with it the plan is checked against the disk
	 * only where it changes it (plan_after_record). */
	const struct scan_result *recorded_walk;
};

/* ---- the index as it stands --------------------------------------------------- */

static int
compare_current(const void *a, const void *b)
{
	const struct current *x = a, *y = b;
	return node_id_compare(x->id, y->id);
}

static struct current *
find_current(struct checkout *checkout, struct node_id id)
{
	struct current key = { .id = id };
	return bsearch(&key, checkout->currents, checkout->current_count, sizeof key,
	    compare_current);
}

static int
root_number(const struct hearth *home, const char *name)
{
	for (size_t i = 0; i < home->root_count; i++)
		if (strcmp(home->roots[i].name, name) == 0)
			return (int)i;
	return 0;
}

/* The root a node of the target lives in here (docs/DESIGN.md §6): its own root,
 * or, for a root this Home lacks, the one it is in already (current: the
 * node as the index has it on disk, or NULL), else where the place: rules
 * say (home_place_root). */
static int
target_root(struct checkout *checkout, const struct tree_node *target,
    const struct current *current)
{
	bool ours = false;

	for (size_t i = 0; i < checkout->home->root_count; i++)
		ours |= strcmp(checkout->home->roots[i].name, target->root) == 0;
	if (current != NULL && !ours)
		return current->root;
	return home_place_root(checkout->home, target->root,
	    tree_path(&checkout->target, (struct tree_node *)target), target->kind == NODE_DIR);
}

/* target_root for a node the plan has settled: where it is, or goes. */
static int
placed_root(struct checkout *checkout, const struct tree_node *target)
{
	struct current *current = checkout->current_count > 0 ? find_current(checkout, target->id)
							    : NULL;
	bool on_disk = current != NULL && current->restore != 2 && !current->gone;

	return target_root(checkout, target, on_disk ? current : NULL);
}

static const char *
current_path(struct checkout *checkout, struct current *current)
{
	if (current->path != NULL)
		return current->path;
	if (current->restore == 2 || node_id_equal(current->parent, NODE_ROOT)) {
		current->path = current->name;
		return current->path;
	}
	struct current *parent = find_current(checkout, current->parent);
	const char *parent_path = parent ? current_path(checkout, parent) : "";
	size_t length = strlen(parent_path) + strlen(current->name) + 2;
	current->path = arena_alloc(&checkout->arena, length);
	snprintf(current->path, length, "%s%s%s", parent_path, parent_path[0] ? "/" : "",
	    current->name);
	return current->path;
}

static int
load_current(void *context, const struct scan_entry_row *entry)
{
	struct checkout *checkout = context;
	checkout->currents = array_grow(checkout->currents, &checkout->current_capacity,
	    checkout->current_count + 1, sizeof *checkout->currents);
	struct current *current = &checkout->currents[checkout->current_count++];
	memset(current, 0, sizeof *current);
	current->id = entry->node;
	current->parent = entry->parent;
	current->name = arena_strndup(&checkout->arena, entry->name, entry->name_length);
	current->kind = entry->kind;
	current->root = root_number(checkout->home, entry->root);
	current->has_blob = entry->blob != NULL;
	if (current->has_blob)
		current->blob = *entry->blob;
	current->stamp = entry->stamp;
	current->stamped_ns = entry->stamped_ns;
	current->restore = entry->restore;
	current->seen_length = entry->seen_length;
	current->seen = arena_copy(&checkout->arena, entry->seen, entry->seen_length);
	return 0;
}

static int
load_currents(struct checkout *checkout)
{
	checkout->current_capacity = 1024;
	checkout->currents = array_alloc(checkout->current_capacity, sizeof *checkout->currents);
	if (scan_entries_each(checkout->home, load_current, checkout) != 0)
		return hearth_fail(checkout->error, HEARTH_FAILED, "cannot read the index: %s",
		    sqlite3_errmsg(checkout->home->store.db));
	return 0;
}

/* ---- the plan ------------------------------------------------------------------- */

static bool
path_left_out(const struct checkout *checkout, const char *path)
{
	for (size_t i = 0; i < checkout->left_out_count; i++) {
		size_t length = strlen(checkout->left_out[i]);
		if (strncmp(path, checkout->left_out[i], length) == 0 &&
		    (path[length] == '\0' || path[length] == '/'))
			return true;
	}
	return false;
}

static void
add_step(struct checkout *checkout, enum step_kind kind, struct current *current,
    struct tree_node *target, size_t *capacity)
{
	if ((target != NULL && path_left_out(checkout, tree_path(&checkout->target, target))) ||
	    (current != NULL && path_left_out(checkout, current_path(checkout, current))))
		return;
	checkout->steps = array_grow(checkout->steps, capacity,
	    checkout->step_count + 1, sizeof *checkout->steps);
	struct step *step = &checkout->steps[checkout->step_count++];
	if (current != NULL)
		current->planned = true;
	step->done = false;
	step->has_placed = false;
	step->kind = kind;
	step->current = current;
	step->target = target;
	step->root = target ? target_root(checkout, target, current) : current->root;
	step->depth = target ? checkout_depth(tree_path(&checkout->target, target))
			     : checkout_depth(current_path(checkout, current));
}

static bool
content_differs(const struct current *current, const struct tree_node *target)
{
	if (target->kind == NODE_DIR)
		return false;
	if (current->has_blob != target->has_content)
		return true;
	if (current->has_blob && !hash_equal(&current->blob, &target->blob))
		return true;
	return target->kind == NODE_FILE && (current->stamp.mode & 0777) != (target->mode & 0777);
}

static int
compare_node_ids(const void *a, const void *b)
{
	return node_id_compare(*(const struct node_id *)a, *(const struct node_id *)b);
}

static bool
in_scope(const struct checkout *checkout, struct node_id id)
{
	return checkout->only == NULL ||
	    bsearch(&id, checkout->only, checkout->only_count, sizeof id, compare_node_ids) != NULL;
}

/* Whether a folder of the index that is in the original scope goes (the
 * target lacks it) above current. */
static bool
under_removed_folder(struct checkout *checkout, const struct current *current)
{
	struct node_id parent = current->parent;

	for (int depth = 0; depth < 4096 && !node_id_equal(parent, NODE_ROOT); depth++) {
		struct current *folder = find_current(checkout, parent);
		if (folder == NULL)
			return false;
		if (folder->kind == NODE_DIR && in_scope(checkout, folder->id) &&
		    tree_find(&checkout->target, folder->id) == NULL)
			return true;
		parent = folder->parent;
	}
	return false;
}

/* Whether the index holds a folder of the target where the target has it. */
static bool
folder_in_place(struct checkout *checkout, const struct tree_node *folder)
{
	const struct current *current = find_current(checkout, folder->id);

	return current != NULL && current->restore == 0 &&
	    node_id_equal(current->parent, folder->parent) && strcmp(current->name, folder->name) == 0;
}

/* A partial checkout (a resolve) widens to what its nodes need. One that
 * removes a folder takes what the index holds below it along, brought to
 * the target too: left out, those rows would name a parent gone from the
 * index, and a later checkout would take them for paths at the top of the
 * Home (a tree behind head still holds what head deleted there). One that
 * writes a node takes the folders above it that the index lacks where the
 * target has them (a folder the resolve brought back): left out, the
 * node's row would name a parent the index lacks, and status would call
 * both new. */
static void
widen_scope(struct checkout *checkout)
{
	struct node_id *extra = NULL;
	size_t extra_count = 0, extra_capacity = 0;

	for (size_t i = 0; i < checkout->current_count; i++) {
		struct current *current = &checkout->currents[i];
		if (!in_scope(checkout, current->id) && under_removed_folder(checkout, current)) {
			extra = array_grow(extra, &extra_capacity, extra_count + 1, sizeof *extra);
			extra[extra_count++] = current->id;
		}
	}
	for (size_t i = 0; i < checkout->only_count; i++) {
		struct tree_node *node = tree_find(&checkout->target, checkout->only[i]);
		for (int depth = 0; node != NULL && depth < 4096; depth++) {
			struct tree_node *folder = node_id_equal(node->parent, NODE_ROOT) ? NULL
			    : tree_find(&checkout->target, node->parent);
			if (folder == NULL || in_scope(checkout, folder->id) ||
			    folder_in_place(checkout, folder))
				break;
			extra = array_grow(extra, &extra_capacity, extra_count + 1, sizeof *extra);
			extra[extra_count++] = folder->id;
			node = folder;
		}
	}
	if (extra_count == 0)
		return;
	size_t count = checkout->only_count;
	struct node_id *wider = arena_alloc(&checkout->arena, (count + extra_count) * sizeof *wider);
	memcpy(wider, checkout->only, count * sizeof *wider);
	memcpy(wider + count, extra, extra_count * sizeof *wider);
	free(extra);
	count += extra_count;
	qsort(wider, count, sizeof *wider, compare_node_ids);
	size_t kept = 0;
	for (size_t i = 0; i < count; i++)
		if (kept == 0 || !node_id_equal(wider[kept - 1], wider[i]))
			wider[kept++] = wider[i];
	checkout->only = wider;
	checkout->only_count = kept;
}

static void
make_plan(struct checkout *checkout)
{
	size_t capacity = 0;

	for (size_t i = 0; i < checkout->current_count; i++) {
		struct current *current = &checkout->currents[i];
		struct tree_node *target = tree_find(&checkout->target, current->id);
		if (!in_scope(checkout, current->id))
			continue;
		/* Not on disk: the target's version is written afresh. */
		if (current->restore == 2 || current->gone) {
			if (target != NULL)
				add_step(checkout, STEP_CREATE, NULL, target, &capacity);
			continue;
		}
		/* Into another root: written there afresh and removed here, as
		 * roots are often disks a rename cannot cross. */
		if (target == NULL || target->kind != current->kind ||
		    (target->kind != NODE_DIR && current->root != target_root(checkout, target,
			current))) {
			add_step(checkout, STEP_REMOVE, current, NULL, &capacity);
			if (target != NULL)
				add_step(checkout, STEP_CREATE, NULL, target, &capacity);
			continue;
		}
		bool moved = !node_id_equal(current->parent, target->parent) ||
		    strcmp(current->name, target->name) != 0;
		bool written = content_differs(current, target);
		if (moved || written)
			add_step(checkout, moved && written ? STEP_MOVE_WRITE
					 : moved	    ? STEP_MOVE
							    : STEP_WRITE,
			    current, target, &capacity);
	}
	for (size_t i = 0; i < checkout->target.count; i++) {
		struct tree_node *target = &checkout->target.nodes[i];
		if (in_scope(checkout, target->id) && find_current(checkout, target->id) == NULL)
			add_step(checkout, STEP_CREATE, NULL, target, &capacity);
	}
	/* Linked once the array no longer moves. */
	for (size_t i = 0; i < checkout->step_count; i++)
		if (checkout->steps[i].current != NULL)
			checkout->steps[i].current->step = &checkout->steps[i];
}

static void
keep_left_out(struct checkout *checkout, const struct scan_result *scan)
{
	checkout->left_out_count = 0;
	checkout->left_out = arena_alloc(&checkout->arena,
	    (scan->left_out_count ? scan->left_out_count : 1) * sizeof *checkout->left_out);
	for (size_t i = 0; i < scan->left_out_count; i++)
		if (scan->left_out[i].excluded)
			checkout->left_out[checkout->left_out_count++] = arena_strdup(&checkout->arena,
			    scan->left_out[i].path);
}

/* The guard on emptying: per root, the files and links on disk as the index
 * has them, and those the plan removes. */
static int
check_removals(struct checkout *checkout, struct hearth_checkout_result *out)
{
	struct hearth *home = checkout->home;
	struct guard_count *roots = array_zeroed(home->root_count, sizeof *roots);

	for (size_t i = 0; i < checkout->current_count; i++) {
		const struct current *current = &checkout->currents[i];
		if (current->kind != NODE_DIR && current->restore != 2 && !current->gone)
			roots[current->root].files++;
	}
	for (size_t i = 0; i < checkout->step_count; i++) {
		const struct step *step = &checkout->steps[i];
		if (step->kind == STEP_REMOVE && step->current->kind != NODE_DIR)
			roots[step->current->root].deleting++;
	}
	int status = guard_check(home, "checkout", roots, &out->guard, checkout->error);
	free(roots);
	return status;
}

/* ---- never destroy what is not recorded --------------------------------------------- */

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool
related(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t shorter = la < lb ? la : lb;
	if (strncmp(a, b, shorter) != 0)
		return false;
	return la == lb || (la < lb ? b[la] == '/' : a[lb] == '/');
}

/* Whether path is, contains or lies inside a touched path. */
static bool
touches(const char *const *touched, size_t count, const char *path)
{
	size_t low = 0, high = count;

	/* Anything inside path, or path itself, sorts right after path. */
	while (low < high) {
		size_t middle = (low + high) / 2;
		if (strcmp(touched[middle], path) < 0)
			low = middle + 1;
		else
			high = middle;
	}
	if (low < count && related(touched[low], path))
		return true;
	/* Ancestors of path sort before it: check each prefix. */
	char prefix[4096];
	snprintf(prefix, sizeof prefix, "%s", path);
	for (char *slash = strrchr(prefix, '/'); slash != NULL; slash = strrchr(prefix, '/')) {
		*slash = '\0';
		const char *key = prefix;
		if (bsearch(&key, touched, count, sizeof *touched, compare_strings) != NULL)
			return true;
	}
	return false;
}

static int
find_blocked(struct checkout *checkout, const struct scan_result *scan)
{
	size_t count = 0;
	const char **touched = array_alloc(2 * checkout->step_count + 1, sizeof *touched);

	for (size_t i = 0; i < checkout->step_count; i++) {
		struct step *step = &checkout->steps[i];
		if (step->current != NULL)
			touched[count++] = current_path(checkout, step->current);
		if (step->target != NULL)
			touched[count++] = tree_path(&checkout->target, step->target);
	}
	qsort(touched, count, sizeof *touched, compare_strings);

	struct hearth_change_list *blocked = &checkout->blocked;
	blocked->storage = storage_new();
	blocked->items = storage_alloc(blocked->storage, (scan->count + 1) * sizeof *blocked->items);
	for (size_t i = 0; i < scan->count; i++) {
		const struct scan_change *change = &scan->changes[i];
		/* A deleted file is no data to lose: checkout may bring it back. */
		if (change->kind == SCAN_STAMP || change->kind == SCAN_RESTORE ||
		    change->kind == SCAN_DELETED)
			continue;
		bool hit = touches(touched, count, change->path) ||
		    (change->old_path != NULL && touches(touched, count, change->old_path));
		if (!hit)
			continue;
		struct hearth_change *item = &blocked->items[blocked->count++];
		memset(item, 0, sizeof *item);
		item->kind = change->kind == SCAN_ADDED ? HEARTH_ADDED
			   : change->kind == SCAN_DELETED ? HEARTH_DELETED
			   : change->kind == SCAN_MOVED	 ? HEARTH_MOVED
							 : HEARTH_MODIFIED;
		item->entry_kind = (enum hearth_entry_kind)change->node_kind;
		item->path = storage_strdup(blocked->storage, change->path);
		if (change->old_path)
			item->old_path = storage_strdup(blocked->storage, change->old_path);
	}
	free(touched);
	return 0;
}

/* ---- what a checkout stopped before its commit left done -------------------------- */

/* Whether a change the scan found is exactly what the target has for that
 * node, at the target's path: a checkout that stopped after changing the
 * tree and before the commit that tells the index (a crash, a failed
 * flush or commit) leaves such changes. Nothing of the user's is there. */
static bool
change_is_target(struct checkout *checkout, struct scan_change *change,
    struct tree_node *target)
{
	struct hearth_error ignored;

	if (target == NULL || target->kind != change->node_kind ||
	    strcmp(tree_path(&checkout->target, target), change->path) != 0)
		return false;
	if (target->kind == NODE_DIR)
		return true;
	if (placed_root(checkout, target) != change->root || !target->has_content)
		return false;
	/* Read only now, and only what could be the target's. */
	if (change->needs_content && scan_hash_content(checkout->home, change, &ignored) != 0)
		return false;
	const struct hash *blob = change->content_changed || !change->has_entry ? &change->blob
										 : &change->old_blob;
	return hash_equal(blob, &target->blob) &&
	    (target->kind != NODE_FILE || (change->stamp.mode & 0777) == (target->mode & 0777));
}

/* A folder taken as the target's carries the target's marker, written now
 * if the stopped checkout had not got to it. */
static bool
has_own_marker(struct checkout *checkout, const struct scan_change *change,
    const struct tree_node *target)
{
	int root_fd = checkout->home->roots[change->root].fd;
	struct node_id claimed;

	if (identity_read_folder(root_fd, change->path, &claimed) &&
	    node_id_equal(claimed, target->id))
		return true;
	return identity_write_folder(root_fd, change->path, target->id) == 0;
}

static int
compare_steps_by_target(const void *a, const void *b)
{
	const struct step *const *x = a, *const *y = b;
	return node_id_compare((*x)->target->id, (*y)->target->id);
}

/* Sorted by target path; the key's path is in its target's path field. */
static int
compare_steps_by_path(const void *a, const void *b)
{
	const struct step *const *x = a, *const *y = b;
	return strcmp((*x)->target->path, (*y)->target->path);
}

/* The step that would bring the target's node to where a change is: by
 * the node's id, or, for an item with no id of its own (a link has no
 * xattr), by the path a step would create. NULL when none. */
static struct step *
step_for_change(const struct scan_change *change, struct step **by_target, size_t target_count, struct step **creates, size_t create_count)
{
	struct tree_node key_node;
	struct step key_step = { .target = &key_node }, *key = &key_step, **found;

	if (change->kind == SCAN_MODIFIED || change->kind == SCAN_MOVED ||
	    (change->kind == SCAN_ADDED && change->has_identity)) {
		key_node.id = change->kind == SCAN_ADDED ? change->identity : change->node;
		found = bsearch(&key, by_target, target_count, sizeof *by_target,
		    compare_steps_by_target);
	} else if (change->kind == SCAN_ADDED) {
		key_node.path = change->path;
		found = bsearch(&key, creates, create_count, sizeof *creates, compare_steps_by_path);
	} else {
		return NULL;
	}
	return found != NULL ? *found : NULL;
}

/* The step of each change that is the target's already becomes a done step
 * of the index alone (STEP_NONE), its current takes the target's place,
 * and the change leaves the scan: find_blocked sees nothing of the user's
 * there, and a rerun completes what the stopped checkout began. */
static void
adopt_done_steps(struct checkout *checkout, struct scan_result *scan)
{
	struct step **by_target = array_alloc(checkout->step_count + 1, sizeof *by_target);
	struct step **creates = array_alloc(checkout->step_count + 1, sizeof *creates);
	size_t target_count = 0, create_count = 0, kept = 0;
	bool moved = false;

	for (size_t i = 0; i < checkout->step_count; i++) {
		struct step *step = &checkout->steps[i];
		if (step->target == NULL)
			continue;
		by_target[target_count++] = step;
		if (step->kind == STEP_CREATE) {
			tree_path(&checkout->target, step->target);
			creates[create_count++] = step;
		}
	}
	qsort(by_target, target_count, sizeof *by_target, compare_steps_by_target);
	qsort(creates, create_count, sizeof *creates, compare_steps_by_path);
	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *change = &scan->changes[i];
		struct step *step = step_for_change(change, by_target, target_count, creates,
		    create_count);
		if (step == NULL || step->kind == STEP_NONE ||
		    !change_is_target(checkout, change, step->target) ||
		    (step->target->kind == NODE_DIR && !has_own_marker(checkout, change,
			step->target))) {
			scan->changes[kept++] = *change;
			continue;
		}
		step->kind = STEP_NONE;
		step->done = true;
		if (step->current != NULL) {
			step->current->parent = step->target->parent;
			step->current->name = arena_strdup(&checkout->arena, step->target->name);
			moved = true;
		}
	}
	scan->count = kept;
	/* Paths below a folder that took its new place are new paths too. */
	for (size_t i = 0; moved && i < checkout->current_count; i++)
		checkout->currents[i].path = NULL;
	free(creates);
	free(by_target);
}

/* ---- staging: new content, written where the tree cannot see it --------------------- */

static void
staged_name(struct node_id id, const char *suffix, char out[64])
{
	char hex[ID_HEX];
	node_id_hex(id, hex);
	snprintf(out, 64, "%s%s", hex, suffix);
}

static void clear_staging(struct checkout *checkout);

/* Opens each root's staging folder and clears what a killed checkout left
 * there, once, so no file's write has to make room first. */
static int
open_staging(struct checkout *checkout)
{
	struct hearth *home = checkout->home;

	checkout->staging_fds = array_alloc(home->root_count, sizeof *checkout->staging_fds);
	for (size_t i = 0; i < home->root_count; i++)
		checkout->staging_fds[i] = -1;
	for (size_t i = 0; i < home->root_count; i++) {
		const char *path = HOME_DIR_NAME "/" HOME_STAGING_NAME;
		if (io_mkdir(home->roots[i].fd, path, 0700) != 0 && errno != EEXIST)
			return hearth_fail_errno(checkout->error, "cannot make %s/%s",
			    home->roots[i].path, path);
		checkout->staging_fds[i] = scan_open_folder(home->roots[i].fd, path);
		if (checkout->staging_fds[i] < 0)
			return hearth_fail_errno(checkout->error, "cannot open %s/%s",
			    home->roots[i].path, path);
	}
	clear_staging(checkout);
	return 0;
}

/* Removes the new content a failed or cancelled checkout left in staging.
 * Never a moved-aside entry (NAME.moved): that is the user's file or
 * folder on its way, put back by put_back_staged; one that could not be
 * put back stays here rather than be lost. Nor, inside a clone, a file
 * its prefill wrote for this checkout to take (prefill.h). */
static void
clear_staging(struct checkout *checkout)
{
	for (size_t i = 0; checkout->staging_fds && i < checkout->home->root_count; i++) {
		int fd = checkout->staging_fds[i];
		if (fd < 0)
			continue;
		int listing = dup(fd);
		DIR *dir = listing >= 0 ? fdopendir(listing) : NULL;
		struct dirent *dirent;
		while (dir != NULL && (dirent = readdir(dir)) != NULL)
			if (dirent->d_name[0] != '.' && strstr(dirent->d_name, ".moved") == NULL &&
			    (checkout->home->prefill == NULL || !prefill_is_name(dirent->d_name)))
				io_unlink(fd, dirent->d_name);
		if (dir != NULL)
			closedir(dir);
	}
}

static bool
needs_content(const struct step *step)
{
	return step->target != NULL && step->target->kind != NODE_DIR &&
	    (step->kind == STEP_CREATE || step->kind == STEP_WRITE || step->kind == STEP_MOVE_WRITE);
}

static int
fail_cancelled(struct checkout *checkout)
{
	return hearth_fail(checkout->error, HEARTH_CANCELLED,
	    "checkout cancelled; the working tree was not changed");
}

static int
stage_one(struct checkout *checkout, const struct checkout_placed *item,
    struct checkout_write_how *how)
{
	const struct step *step = item->owner;
	char name[64];

	how->place = &item->place;
	staged_name(item->node->id, "", name);
	int status = checkout_write_content(checkout->home, checkout->staging_fds[step->root],
	    name, item->node, how, checkout->error);
	if (status == HEARTH_CANCELLED)
		return fail_cancelled(checkout);
	return status != 0 ? checkout->error->code : 0;
}

/* Writes every new content into staging, in pack order, counting files and
 * their bytes as each chunk is written: a cancel stops between chunks,
 * before the tree is touched. */
static int
stage_contents(struct checkout *checkout)
{
	struct config_durability_rules rules =
	    config_durability_rules(checkout->home->config->durability);
	struct checkout_write_how how = { .sync = rules.sync_each_file,
		.writeback = rules.sync_each_file || rules.sync_folders, .stamp = true,
		.prefill = checkout->home->prefill };
	size_t total = 0;
	uint64_t bytes = 0;
	int status = 0;

	struct checkout_placed *order = array_alloc(checkout->step_count + 1, sizeof *order);
	for (size_t i = 0; i < checkout->step_count; i++)
		if (needs_content(&checkout->steps[i]))
			order[total++] = (struct checkout_placed){ .node = checkout->steps[i].target,
				.owner = &checkout->steps[i] };
	checkout_place_and_sort(checkout->home, order, total);
	for (size_t i = 0; i < total; i++)
		bytes += order[i].node->size;
	struct meter meter;
	meter_init(&meter, checkout->progress);
	meter_phase(&meter, "writing", total, bytes);
	how.meter = &meter;
	checkout_process_umask(&how);
	for (size_t done = 0; done < total && status == 0; done++) {
		if (meter_cancelled(&meter)) {
			status = fail_cancelled(checkout);
			break;
		}
		status = stage_one(checkout, &order[done], &how);
		if (status == 0)
			meter_add(&meter, 1, 0, tree_path(&checkout->target, order[done].node));
	}
	meter_flush(&meter);
	free(order);
	return status;
}

/* ---- applying: renames and removals ------------------------------------------------ */

static int
compare_deepest_first(const void *a, const void *b)
{
	const struct step *const *x = a, *const *y = b;
	return (*y)->depth - (*x)->depth;
}

/* Shallowest first, so a folder is in place before what it holds; at one
 * depth by root and path, so the steps in one folder come together (paths
 * of one depth below one folder are contiguous in byte order). */
static int
compare_placing_order(const void *a, const void *b)
{
	const struct step *x = *(struct step *const *)a, *y = *(struct step *const *)b;
	if (x->depth != y->depth)
		return x->depth - y->depth;
	if (x->target == NULL || y->target == NULL)
		return (x->target != NULL) - (y->target != NULL);
	if (x->root != y->root)
		return x->root - y->root;
	return strcmp(x->target->path, y->target->path);
}

/* Where a current node is now: its path, relative to its root or, once
 * moved aside, to staging. */
static int
current_location(struct checkout *checkout, struct current *current, int *dir_fd, char *out,
    size_t size)
{
	struct current *top = current;
	char suffix[4096] = "";

	/* Find the nearest ancestor moved into staging, if any. */
	while (top != NULL && !top->staged && !node_id_equal(top->parent, NODE_ROOT))
		top = find_current(checkout, top->parent);
	if (top != NULL && top->staged) {
		char name[64];
		const char *full = current_path(checkout, current), *base = current_path(checkout, top);
		snprintf(suffix, sizeof suffix, "%s", full + strlen(base));
		staged_name(top->id, ".moved", name);
		*dir_fd = checkout->staging_fds[top->root];
		snprintf(out, size, "%s%s", name, suffix);
		return 0;
	}
	*dir_fd = checkout->home->roots[current->root].fd;
	snprintf(out, size, "%s", current_path(checkout, current));
	return 0;
}

static int
move_aside(struct checkout *checkout, struct step *step)
{
	char from[4200], name[64];
	int from_fd;

	struct checkout_parent parent;

	current_location(checkout, step->current, &from_fd, from, sizeof from);
	staged_name(step->current->id, ".moved", name);
	if (checkout_open_parent(from_fd, from, &parent) != 0)
		return checkout_unreachable(checkout->error, "move", from);
	int status = io_rename(parent.folder, parent.name,
	    checkout->staging_fds[step->current->root], name);
	close(parent.folder);
	if (status != 0)
		return hearth_fail_errno(checkout->error, "cannot move %s", from);
	step->current->staged = true;
	return 0;
}

static int
remove_current(struct checkout *checkout, struct step *step)
{
	char path[4200];
	int dir_fd;

	struct checkout_parent parent;

	current_location(checkout, step->current, &dir_fd, path, sizeof path);
	if (checkout_open_parent(dir_fd, path, &parent) != 0) {
		if (errno == ENOENT)
			return 0;	/* already gone with its folder */
		return checkout_unreachable(checkout->error, "remove", path);
	}
	int status = 0;
	bool kept = false;
	if (step->current->kind == NODE_DIR) {
		/* Its identity marker (where xattrs are not kept) is hearth's own:
		 * it goes with the folder. A user's file of that name is not. */
		int folder = scan_open_folder(parent.folder, parent.name);
		if (folder >= 0 && identity_remove_marker(folder) != 0) {
			status = hearth_fail_errno(checkout->error, "cannot remove %s/" IDENTITY_MARKER,
			    path);
			close(folder);
			close(parent.folder);
			return status;
		}
		if (folder >= 0)
			close(folder);
		/* Files the Home does not track (ignored ones) keep the folder. */
		if (io_rmdir(parent.folder, parent.name) != 0 && errno != ENOENT) {
			kept = errno == ENOTEMPTY || errno == EEXIST;
			if (!kept)
				status = hearth_fail_errno(checkout->error, "cannot remove %s", path);
			/* Still there and still in the index: it keeps its identity. */
			if (!kept) {
				int saved = errno;
				identity_write_folder(dir_fd, path, step->current->id);
				errno = saved;
			}
		}
	} else if (io_unlink(parent.folder, parent.name) != 0 && errno != ENOENT) {
		status = hearth_fail_errno(checkout->error, "cannot remove %s", path);
	}
	close(parent.folder);
	if (status == 0 && !kept)
		checkout->removed++;
	step->done = status == 0;
	return status;
}

/* place_target's work, inside the folder that holds the target. */
static int
place_in_folder(struct checkout *checkout, struct step *step, int staging,
    const struct checkout_parent *parent, const char *path)
{
	char name[64];

	if (step->kind == STEP_MOVE || step->kind == STEP_MOVE_WRITE) {
		staged_name(step->target->id, ".moved", name);
		if (io_rename_noreplace(staging, name, parent->folder, parent->name) != 0)
			return hearth_fail_errno(checkout->error, "cannot move into %s", path);
		step->current->staged = false;
		checkout->moved++;
	}
	if (step->target->kind == NODE_DIR) {
		if (step->kind == STEP_CREATE && io_mkdir(parent->folder, parent->name, 0755) != 0 &&
		    errno != EEXIST)
			return hearth_fail_errno(checkout->error, "cannot make %s", path);
		return 0;
	}
	if (!needs_content(step))
		return 0;
	staged_name(step->target->id, "", name);
	/* In place of the same node's old bytes (checked unchanged), replace;
	 * anywhere else, never clobber. */
	int status = step->kind == STEP_CREATE
	    ? io_rename_noreplace(staging, name, parent->folder, parent->name)
	    : io_rename(staging, name, parent->folder, parent->name);
	if (status != 0) {
		status = hearth_fail_errno(checkout->error, "cannot write %s", path);
		/* Moved but not rewritten: back into staging, so the failure
		 * leaves it where the index still has it (put_back_staged). */
		if (step->kind == STEP_MOVE_WRITE) {
			staged_name(step->target->id, ".moved", name);
			if (io_rename_noreplace(parent->folder, parent->name, staging, name) == 0) {
				step->current->staged = true;
				checkout->moved--;
			}
		}
		return status;
	}
	checkout->written++;
	return 0;
}

/* Makes the folders above path that this root lacks: a file the place:
 * rules put in another root than its folder's needs them there. Each is
 * made inside the one above it, opened without following links. */
static int
make_parents(int root_fd, const char *path)
{
	char name[PATH_MAX];
	int folder = dup(root_fd);

	for (const char *at = path; folder >= 0 && strchr(at, '/') != NULL;) {
		size_t length = strcspn(at, "/");
		if (length >= sizeof name) {
			close(folder);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, at, length);
		name[length] = '\0';
		at += length + 1;
		if (io_mkdir(folder, name, 0755) != 0 && errno != EEXIST) {
			close(folder);
			return -1;
		}
		int next = scan_open_folder(folder, name);
		close(folder);
		folder = next;
	}
	if (folder < 0)
		return -1;
	close(folder);
	return 0;
}

/* folders is the root's cache of the folder the last step placed in:
 * steps are placed a folder's at a time (compare_placing_order), and in
 * this phase nothing leaves its place, so the folder open for one is the
 * folder at that path for the next. */
static int
place_target(struct checkout *checkout, struct step *step, struct checkout_folder_cache *folders)
{
	struct hearth *home = checkout->home;
	const char *path = tree_path(&checkout->target, step->target);
	int root_fd = home->roots[step->root].fd, staging = checkout->staging_fds[step->root];
	struct checkout_parent parent;
	bool owned;

	if (checkout_reach_parent(root_fd, path, folders, &parent, &owned) != 0 &&
	    (errno != ENOENT || make_parents(root_fd, path) != 0 ||
		checkout_reach_parent(root_fd, path, folders, &parent, &owned) != 0))
		return checkout_unreachable(checkout->error, "write", path);
	int status = place_in_folder(checkout, step, staging, &parent, path);
	if (status == 0 && step->target->kind != NODE_DIR)
		step->has_placed = fstatat(parent.folder, parent.name, &step->placed,
		    AT_SYMLINK_NOFOLLOW) == 0;
	/* A new folder carries its identity from the start; without it, it
	 * goes again (empty as it is), so the step is not half done. */
	if (status == 0 && step->kind == STEP_CREATE && step->target->kind == NODE_DIR &&
	    identity_write_folder(root_fd, path, step->target->id) != 0) {
		status = hearth_fail_errno(checkout->error, "cannot write the identity marker of %s",
		    path);
		io_rmdir(parent.folder, parent.name);
	}
	checkout_release_parent(&parent, owned);
	step->done = status == 0;
	return status;
}

static int
apply_steps(struct checkout *checkout)
{
	struct step **order = array_alloc(checkout->step_count + 1, sizeof *order);
	int status = 0;

	for (size_t i = 0; i < checkout->step_count; i++)
		order[i] = &checkout->steps[i];
	/* Out of the way first, deepest first so each path is still valid. */
	qsort(order, checkout->step_count, sizeof *order, compare_deepest_first);
	for (size_t i = 0; status == 0 && i < checkout->step_count; i++)
		if (order[i]->kind == STEP_MOVE || order[i]->kind == STEP_MOVE_WRITE)
			status = move_aside(checkout, order[i]);
	for (size_t i = 0; status == 0 && i < checkout->step_count; i++)
		if (order[i]->kind == STEP_REMOVE)
			status = remove_current(checkout, order[i]);
	/* Then into place, parents before children. Rewrites in place come
	 * last: their old bytes may be what a new path is to hold (resolve
	 * --both), and a failure before them leaves those bytes in the tree. */
	qsort(order, checkout->step_count, sizeof *order, compare_placing_order);
	struct checkout_folder_cache *folders = array_alloc(checkout->home->root_count,
	    sizeof *folders);
	for (size_t root = 0; root < checkout->home->root_count; root++)
		checkout_folder_cache_init(&folders[root]);
	for (size_t i = 0; status == 0 && i < checkout->step_count; i++)
		if (order[i]->kind != STEP_REMOVE && order[i]->kind != STEP_NONE &&
		    order[i]->kind != STEP_WRITE)
			status = place_target(checkout, order[i], &folders[order[i]->root]);
	for (size_t i = 0; status == 0 && i < checkout->step_count; i++)
		if (order[i]->kind == STEP_WRITE)
			status = place_target(checkout, order[i], &folders[order[i]->root]);
	for (size_t root = 0; root < checkout->home->root_count; root++)
		checkout_folder_cache_close(&folders[root]);
	free(folders);
	free(order);
	return status;
}

/* ---- after a failure part way -------------------------------------------------------- */

/* Where the index, as a failed apply leaves it, has a current node: at its
 * target's path when its step was done, else by its old name under its
 * parent's such place. */
static void
index_path(struct checkout *checkout, struct current *current, struct buffer *out)
{
	if (current->step != NULL && current->step->done && current->step->target != NULL) {
		const char *path = tree_path(&checkout->target, current->step->target);
		buffer_append(out, path, strlen(path));
		return;
	}
	struct current *parent = node_id_equal(current->parent, NODE_ROOT) ? NULL
	    : find_current(checkout, current->parent);
	if (parent != NULL) {
		index_path(checkout, parent, out);
		buffer_append_byte(out, '/');
	}
	buffer_append(out, current->name, strlen(current->name));
}

/* The folders above current that a done removal took: made again (with
 * their identity), their removal undone, so the index keeps their rows. */
static void
restore_removed_folders(struct checkout *checkout, struct current *current)
{
	struct current *chain[512];
	size_t depth = 0;
	struct buffer path;

	buffer_init(&path);
	for (struct current *up = current; depth < 512 && !node_id_equal(up->parent, NODE_ROOT);) {
		up = find_current(checkout, up->parent);
		if (up == NULL)
			break;
		chain[depth++] = up;
	}
	while (depth-- > 0) {
		struct current *folder = chain[depth];
		if (folder->step == NULL || folder->step->kind != STEP_REMOVE || !folder->step->done)
			continue;
		int root_fd = checkout->home->roots[current->root].fd;
		struct checkout_parent parent;
		buffer_reset(&path);
		index_path(checkout, folder, &path);
		if (checkout_open_parent(root_fd, buffer_string(&path), &parent) != 0)
			continue;
		if (io_mkdir(parent.folder, parent.name, 0755) == 0 || errno == EEXIST) {
			identity_write_folder(root_fd, buffer_string(&path), folder->id);
			folder->step->done = false;
			checkout->removed--;
		}
		close(parent.folder);
	}
	buffer_free(&path);
}

struct staged_item {
	struct current *current;
	int depth;		/* of its old path */
};

static int
compare_staged_shallowest_first(const void *a, const void *b)
{
	const struct staged_item *x = a, *y = b;
	return x->depth - y->depth;
}

/* After a failure part way: what was moved aside and not placed goes back
 * to where the index (kept for every step not done) has it, so that tree
 * and index agree, status tells the truth and a rerun completes the
 * checkout. Shallowest first: a folder is back before what goes into it. */
static void
put_back_staged(struct checkout *checkout)
{
	struct staged_item *staged = array_alloc(checkout->current_count + 1, sizeof *staged);
	size_t count = 0;
	struct buffer path;
	char name[64];

	for (size_t i = 0; i < checkout->current_count; i++) {
		struct current *current = &checkout->currents[i];
		if (current->staged && current->step != NULL)
			staged[count++] = (struct staged_item){
				current, checkout_depth(current_path(checkout, current)) };
	}
	qsort(staged, count, sizeof *staged, compare_staged_shallowest_first);
	buffer_init(&path);
	for (size_t i = 0; i < count; i++) {
		struct current *current = staged[i].current;
		struct checkout_parent parent;
		restore_removed_folders(checkout, current);
		buffer_reset(&path);
		index_path(checkout, current, &path);
		staged_name(current->id, ".moved", name);
		if (checkout_open_parent(checkout->home->roots[current->root].fd,
			buffer_string(&path), &parent) != 0)
			continue;
		if (io_rename_noreplace(checkout->staging_fds[current->root], name, parent.folder,
			parent.name) == 0)
			current->staged = false;
		close(parent.folder);
	}
	buffer_free(&path);
	free(staged);
}

/* ---- the index after ------------------------------------------------------------- */

/* The seen set just encoded, never NULL: the row keeps an empty one. */
static const void *
seen_bytes(const struct checkout *checkout)
{
	return checkout->seen.data ? (const void *)checkout->seen.data : "";
}

static bool
same_as_head(const struct tree_node *target, const struct tree_node *head)
{
	if (head == NULL || !node_id_equal(target->parent, head->parent) ||
	    strcmp(target->name, head->name) != 0 || target->has_content != head->has_content)
		return false;
	return !target->has_content ||
	    (hash_equal(&target->blob, &head->blob) && target->mode == head->mode);
}

/* The heads a record of this node would supersede: head's own, so that a
 * record after checking out an old version restores it (docs/DESIGN.md §7). */
static int
seen_for(struct checkout *checkout, struct node_id id, int *restore)
{
	struct tree_node *head = tree_find(&checkout->head, id);
	struct tree_node *target = tree_find(&checkout->target, id);

	*restore = target != NULL && !same_as_head(target, head) ? 1 : 0;
	if (head != NULL) {
		head_encode_seen(checkout->home, head->place_heads, head->place_head_count,
		    head->content_heads, head->content_head_count, &checkout->seen);
		return 0;
	}
	/* Not live at head (deleted there): supersede its trash placement. */
	struct head_node node;
	struct arena scratch;
	arena_init(&scratch, 4096);
	int found = head_get(checkout->home, id, &node, &scratch);
	if (found == 1)
		head_encode_seen(checkout->home, node.place_heads, node.place_head_count,
		    node.content_heads, node.content_head_count, &checkout->seen);
	else
		buffer_reset(&checkout->seen);
	arena_free(&scratch);
	return found < 0 ? -1 : 0;
}

/* The index row of a node now on disk as the target has it: its stamp
 * (known, or read now), and trusted unless the bytes are not the target's. */
static int
put_entry_stamped(struct checkout *checkout, struct tree_node *target, const struct stat *known,
    bool trusted)
{
	struct hearth *home = checkout->home;
	int root = placed_root(checkout, target);
	const char *path = tree_path(&checkout->target, target);
	struct stat status;
	int restore;

	memset(&status, 0, sizeof status);
	if (known != NULL)
		status = *known;
	else if (checkout_stat(home->roots[root].fd, path, &status) != 0)
		return hearth_fail_errno(checkout->error, "cannot stat %s after writing it", path);
	if (seen_for(checkout, target->id, &restore) != 0)
		return hearth_fail(checkout->error, HEARTH_FAILED, "cannot read the head state");
	struct scan_entry_row entry = {
		.node = target->id, .parent = target->parent,
		.name = target->name, .name_length = strlen(target->name),
		.kind = target->kind, .root = home->roots[root].name,
		.blob = target->has_content ? &target->blob : NULL,
		.stamp = {
			.size = S_ISDIR(status.st_mode) ? 0 : (uint64_t)status.st_size,
			.mode = (uint32_t)(status.st_mode & 07777),
			.mtime_ns = (op_mtime)status.st_mtim.tv_sec * 1000000000 + status.st_mtim.tv_nsec,
			.device = (uint64_t)status.st_dev, .inode = (uint64_t)status.st_ino,
			.ctime_ns = (int64_t)status.st_ctim.tv_sec * 1000000000LL + status.st_ctim.tv_nsec,
		},
		.stamped_ns = trusted ? checkout->now_ns : 0,
		.seen = seen_bytes(checkout), .seen_length = checkout->seen.length,
		.restore = restore,
	};
	if (scan_entry_put(home, &entry) != 0)
		return hearth_fail(checkout->error, HEARTH_FAILED, "cannot update the index: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

static int
refresh_seen(struct checkout *checkout, const struct current *current)
{
	int restore;

	if (seen_for(checkout, current->id, &restore) != 0)
		return hearth_fail(checkout->error, HEARTH_FAILED, "cannot read the head state");
	if (restore == current->restore && checkout->seen.length == current->seen_length &&
	    (current->seen_length == 0 ||
		memcmp(checkout->seen.data, current->seen, current->seen_length) == 0))
		return 0;
	return scan_entry_set_seen(checkout->home, current->id, seen_bytes(checkout),
	    checkout->seen.length, restore);
}

/* Head nodes the target lacks: absent from the tree, restored away (deleted
 * from head) by the next record. */
static int
put_absent(struct checkout *checkout, struct tree_node *head)
{
	char hex[ID_HEX];

	node_id_hex(head->id, hex);
	head_encode_seen(checkout->home, head->place_heads, head->place_head_count,
	    head->content_heads, head->content_head_count, &checkout->seen);
	struct scan_entry_row entry = {
		.node = head->id, .parent = NODE_TRASH, .name = hex, .name_length = strlen(hex),
		.kind = head->kind, .root = head->root,
		.seen = seen_bytes(checkout), .seen_length = checkout->seen.length, .restore = 2,
	};
	return scan_entry_put(checkout->home, &entry);
}

/* complete: every step was applied. Otherwise only the rows of the steps
 * done change, so the index says what the tree holds. */
static int
update_index(struct checkout *checkout, bool complete)
{
	for (size_t i = 0; i < checkout->step_count; i++) {
		struct step *step = &checkout->steps[i];
		if (step->kind == STEP_REMOVE && (complete || step->done)) {
			if (scan_entry_drop(checkout->home, step->current->id) != 0)
				return hearth_fail(checkout->error, HEARTH_FAILED, "cannot update the index");
		}
	}
	for (size_t i = 0; i < checkout->step_count; i++) {
		struct step *step = &checkout->steps[i];
		if (step->kind != STEP_REMOVE && (complete || step->done) &&
		    put_entry_stamped(checkout, step->target, step->has_placed ? &step->placed : NULL,
			true) != 0)
			return checkout->error->code;
	}
	if (!complete)
		return 0;
	/* Untouched nodes: only what they supersede may have moved on. */
	for (size_t i = 0; i < checkout->current_count; i++) {
		struct current *current = &checkout->currents[i];
		struct tree_node *target = tree_find(&checkout->target, current->id);
		if (!in_scope(checkout, current->id))
			continue;
		if (target != NULL && !current->planned && current->restore != 2 &&
		    refresh_seen(checkout, current) != 0)
			return hearth_fail(checkout->error, HEARTH_FAILED, "cannot update the index");
		if (target == NULL && (current->restore == 2 || current->gone)) {
			/* Gone from the tree and from the target: the row goes too
			 * (put_absent below makes the restore-deletes due now). */
			if (scan_entry_drop(checkout->home, current->id) != 0)
				return hearth_fail(checkout->error, HEARTH_FAILED, "cannot update the index");
		}
	}
	if (checkout->target_is_head)
		return 0;
	for (size_t i = 0; i < checkout->head.count; i++) {
		struct tree_node *head = &checkout->head.nodes[i];
		if (tree_find(&checkout->target, head->id) == NULL && put_absent(checkout, head) != 0)
			return hearth_fail(checkout->error, HEARTH_FAILED, "cannot update the index");
	}
	return 0;
}

/* ---- the command ----------------------------------------------------------------------- */

/* Before the commit that makes the index say so, what the tree now holds
 * is made durable: every root's file system, once (group), and so also
 * the folders whose entries the renames and removals changed (full: files
 * were synced one by one, folders were not). */
static int
flush_roots(struct checkout *checkout)
{
	struct hearth *home = checkout->home;
	bool changed = false;

	for (size_t i = 0; i < checkout->step_count && !changed; i++)
		changed = checkout->steps[i].done;
	if (!changed || !config_durability_rules(home->config->durability).sync_folders)
		return 0;
	for (size_t i = 0; i < home->root_count; i++)
		if (io_syncfs(home->roots[i].fd) != 0)
			return hearth_fail_errno(checkout->error, "cannot flush the written files in %s",
			    home->roots[i].path);
	return 0;
}

static void
checkout_free(struct checkout *checkout)
{
	tree_free(&checkout->target);
	if (!checkout->target_is_head)
		tree_free(&checkout->head);
	free(checkout->currents);
	free(checkout->steps);
	arena_free(&checkout->arena);
	buffer_free(&checkout->seen);
	for (size_t i = 0; checkout->staging_fds && i < checkout->home->root_count; i++)
		if (checkout->staging_fds[i] >= 0)
			close(checkout->staging_fds[i]);
	free(checkout->staging_fds);
}

static int
load_trees(struct checkout *checkout, const struct vv *vv)
{
	checkout->target_is_head = history_covers_head(checkout->home, vv);
	if (tree_load(checkout->home, vv, &checkout->target, checkout->error) != 0)
		return checkout->error->code;
	if (checkout->target_is_head) {
		checkout->head = checkout->target;
		return 0;
	}
	return tree_load_head(checkout->home, &checkout->head, checkout->error);
}

/* Resolves what to check out: a version, or (NULL) the head state. */
int
checkout_target(struct hearth *home, const char *spec, struct vv *vv, char id_hex[HASH_HEX],
    struct hearth_error *error)
{
	struct history_version version;

	if (spec == NULL) {
		struct history_head head;
		history_head(home, &head);
		snprintf(id_hex, HASH_HEX, "%s", head.version);
		return store_head_vv(&home->store, vv) == 0 ? 0
		    : hearth_fail(error, HEARTH_FAILED, "cannot read the head");
	}
	if (history_resolve(home, spec, &version, error) != 0)
		return error->code;
	vv_copy(vv, &version.vv);
	/* The unnamed head state: the tree is past the version head~1 names. */
	if (version.unnamed)
		history_head_base(home, id_hex);
	else
		hash_hex(&version.id, id_hex);
	history_version_free(&version);
	return 0;
}

/* The plan, from a walk of the whole tree against the index: what the
 * user changed and did not record blocks it (find_blocked), and what a
 * checkout stopped part way left done is taken as done. */
static int
plan_after_walk(struct checkout *checkout)
{
	struct scan_result scan;
	int status = scan_tree(checkout->home, NULL, 0, checkout->progress, &scan, checkout->error);

	if (status != 0)
		return status;
	for (size_t i = 0; status == 0 && i < scan.count; i++) {
		struct scan_change *change = &scan.changes[i];
		if (change->needs_content && change->kind != SCAN_ADDED)
			status = scan_hash_content(checkout->home, change, checkout->error);
		struct current *current = change->kind == SCAN_DELETED ? find_current(checkout,
		    change->node) : NULL;
		if (current != NULL)
			current->gone = true;
	}
	keep_left_out(checkout, &scan);
	make_plan(checkout);
	if (status == 0)
		adopt_done_steps(checkout, &scan);
	if (status == 0)
		status = find_blocked(checkout, &scan);
	scan_result_free(&scan);
	return status;
}

static void
forget_plan(struct checkout *checkout)
{
	for (size_t i = 0; i < checkout->current_count; i++) {
		checkout->currents[i].planned = false;
		checkout->currents[i].step = NULL;
	}
	free(checkout->steps);
	checkout->steps = NULL;
	checkout->step_count = 0;
	checkout->left_out_count = 0;
}

/* Whether an item of the index is on disk as the index has it. */
static bool
current_unchanged(struct checkout *checkout, struct current *current)
{
	struct scan_entry_row row = {
		.kind = current->kind, .blob = current->has_blob ? &current->blob : NULL,
		.stamp = current->stamp, .stamped_ns = current->stamped_ns,
	};

	return current->restore == 0 && !current->gone &&
	    scan_entry_unchanged(checkout->home, current->root, current_path(checkout, current),
		&row);
}

/* Whether no root holds anything at path, reached as checkout reaches
 * it (no link followed on the way: a link there is not "empty"). */
static bool
place_empty(struct checkout *checkout, const char *path)
{
	struct stat status;

	for (size_t root = 0; root < checkout->home->root_count; root++)
		if (checkout_stat(checkout->home->roots[root].fd, path, &status) == 0 ||
		    errno != ENOENT)
			return false;
	return true;
}

/* The plan after a record of the whole tree (hearth_apply_head), made
 * without a second walk: that record left the index equal to the disk
 * (restores aside), so only what the plan changes can hold something of
 * the user's since. Each item it moves, rewrites or removes must still be
 * the index's and each place it fills empty, as find_blocked would find
 * after a walk; anything else (an edit since the record, a restore
 * waiting, a swap of two names) and the plan is dropped for the walk's
 * (false). */
static bool
plan_after_record(struct checkout *checkout)
{
	keep_left_out(checkout, checkout->recorded_walk);
	make_plan(checkout);
	for (size_t i = 0; i < checkout->step_count; i++) {
		struct step *step = &checkout->steps[i];
		bool fills = step->kind == STEP_CREATE || step->kind == STEP_MOVE ||
		    step->kind == STEP_MOVE_WRITE;
		if ((step->current != NULL && !current_unchanged(checkout, step->current)) ||
		    (fills && !place_empty(checkout, tree_path(&checkout->target, step->target)))) {
			forget_plan(checkout);
			return false;
		}
	}
	return true;
}

/* A tree checked out at head holds no row head dropped, but in what the
 * walk left out (head_dropped_known_none): looked for once a node has
 * stopped being live since it was last known. */
static int
note_dropped_none(struct checkout *checkout)
{
	struct hearth *home = checkout->home;
	struct head_dropped *rows;
	size_t count;

	if (head_dropped_known_none(home))
		return 0;
	if (head_dropped_rows(home, &checkout->arena, &rows, &count) != 0)
		return hearth_fail(checkout->error, HEARTH_FAILED, "cannot read the index: %s",
		    sqlite3_errmsg(home->store.db));
	free(rows);
	if (count == 0 && head_dropped_none(home) != 0)
		return hearth_fail(checkout->error, HEARTH_FAILED, "cannot update the store: %s",
		    sqlite3_errmsg(home->store.db));
	return 0;
}

static int
run_checkout(struct checkout *checkout, const struct vv *vv, const char *id_hex,
    struct hearth_checkout_result *out)
{
	struct hearth *home = checkout->home;
	struct hearth_error failure;
	int status = 0;

	if (load_trees(checkout, vv) != 0 || load_currents(checkout) != 0)
		return checkout->error->code;
	if (checkout->only != NULL)
		widen_scope(checkout);
	if (checkout->recorded_walk == NULL || !plan_after_record(checkout))
		status = plan_after_walk(checkout);
	if (status != 0)
		return status;
	if (checkout->limit_deletes && (status = check_removals(checkout, out)) != 0)
		return status;
	if (checkout->blocked.count > 0) {
		out->blocked = checkout->blocked;
		memset(&checkout->blocked, 0, sizeof checkout->blocked);
		return hearth_fail(checkout->error, HEARTH_REFUSED,
		    "checkout would overwrite %zu unrecorded change%s; record them first, or use "
		    "--force to record them as a version and then check out", out->blocked.count,
		    out->blocked.count == 1 ? "" : "s");
	}
	/* One read snapshot for every file's chunk lookups: outside a
	 * transaction each lookup takes and drops SQLite's read lock. */
	store_begin_read(&home->store);
	status = open_staging(checkout) != 0 || stage_contents(checkout) != 0;
	store_end_read(&home->store);
	if (status != 0) {
		clear_staging(checkout);
		return checkout->error->code;
	}
	if (store_begin(&home->store, &failure) != 0) {
		clear_staging(checkout);
		return hearth_fail(checkout->error, HEARTH_FAILED, "%s", failure.message);
	}
	/* From here the tree changes. A failure part way keeps what was done
	 * in the index, so status tells the truth and a rerun completes it. */
	int applied = apply_steps(checkout);
	/* What stopped the tree changing is the error to report, not what
	 * the index update then trips over. */
	struct hearth_error apply_error;
	if (applied != 0) {
		apply_error = *checkout->error;
		put_back_staged(checkout);
	}
	status = update_index(checkout, applied == 0);
	if (applied == 0 && status == 0 && checkout->only == NULL)
		status = history_set_tree(home, vv, id_hex, checkout->error);
	if (applied == 0 && status == 0 && checkout->only == NULL && checkout->target_is_head)
		status = note_dropped_none(checkout);
	if (applied == 0 && status == 0)
		status = checkout_clear_pending(home, checkout->error);
	if (status == 0)
		status = flush_roots(checkout);
	if (status == 0 && store_commit(&home->store, &failure) != 0)
		status = hearth_fail(checkout->error, HEARTH_FAILED, "%s", failure.message);
	if (status == 0)
		home_count_writes(home, 0);
	if (status != 0)
		store_rollback(&home->store);
	clear_staging(checkout);
	if (applied != 0) {
		*checkout->error = apply_error;
		return applied;
	}
	if (status == 0) {
		snprintf(out->version, sizeof out->version, "%s", id_hex);
		out->written = checkout->written;
		out->removed = checkout->removed;
		out->moved = checkout->moved;
	}
	return status;
}

int
checkout_nodes(struct hearth *home, const struct node_id *nodes, size_t count,
    const struct hearth_progress *progress, struct hearth_checkout_result *out,
    struct hearth_error *error)
{
	struct checkout checkout = { .home = home, .progress = progress, .error = error };
	struct node_id *only = array_alloc(count, sizeof *only);
	char id_hex[HASH_HEX];
	struct vv vv;
	struct timespec now;

	memset(out, 0, sizeof *out);
	memcpy(only, nodes, count * sizeof *only);
	if (count > 1)
		qsort(only, count, sizeof *only, compare_node_ids);
	checkout.only = only;
	checkout.only_count = count;
	clock_gettime(CLOCK_REALTIME, &now);
	checkout.now_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	arena_init(&checkout.arena, 64 * 1024);
	buffer_init(&checkout.seen);
	vv_init(&vv);
	int status = checkout_target(home, NULL, &vv, id_hex, error);
	if (status == 0)
		status = run_checkout(&checkout, &vv, id_hex, out);
	hearth_change_list_free(&checkout.blocked);
	checkout_free(&checkout);
	vv_free(&vv);
	free(only);
	return status;
}

/* ---- adopting what is already there (clone into a full folder) --------------------- */

int
checkout_compare_nodes_by_depth(const void *a, const void *b)
{
	const struct tree_node *const *x = a, *const *y = b;
	return checkout_depth((*x)->path) - checkout_depth((*y)->path);
}

/* Whether the bytes at path are the node's content. */
static bool
same_content(struct hearth *home, int root_fd, const char *path, const struct tree_node *node)
{
	struct hash found;
	uint64_t size;

	if (node->kind == NODE_SYMLINK) {
		struct arena scratch;
		char *target;
		size_t length;
		arena_init(&scratch, 4096);
		bool equal = scan_read_link(root_fd, path, &scratch, &target, &length) == 0;
		if (equal) {
			hash_bytes(target, length, &found);
			equal = node->has_content && hash_equal(&found, &node->blob);
		}
		arena_free(&scratch);
		return equal;
	}
	int fd = scan_open_file(root_fd, path);
	if (fd < 0)
		return false;
	bool equal = content_hash_fd(fd, &found, &size, NULL) == 0 &&
	    node->has_content && hash_equal(&found, &node->blob);
	if (equal)
		identity_write_file(fd, node->id);
	close(fd);
	(void)home;
	return equal;
}

/* Index rows for what the folder already holds where head has it, so that
 * checkout writes only what is missing and nothing is overwritten: the
 * same bytes are adopted as they are; other bytes, or another kind of
 * thing, become this replica's own change, recorded next. */
static int
adopt_existing(struct checkout *checkout, uint64_t *adopted)
{
	struct hearth *home = checkout->home;
	struct tree_node **order = array_alloc(checkout->target.count + 1, sizeof *order);
	struct node_id *blocked = array_alloc(checkout->target.count + 1, sizeof *blocked);
	/* The root a folder was found missing in, by node (-1: not missing):
	 * what it holds there is missing too, and is not looked for (into an
	 * empty folder, a stat a file saved). */
	int *missing_in = array_alloc(checkout->target.count + 1, sizeof *missing_in);
	size_t blocked_count = 0;
	int status = 0;

	for (size_t i = 0; i < checkout->target.count; i++) {
		order[i] = &checkout->target.nodes[i];
		tree_path(&checkout->target, order[i]);
		missing_in[i] = -1;
	}
	qsort(order, checkout->target.count, sizeof *order, checkout_compare_nodes_by_depth);
	for (size_t i = 0; i < checkout->target.count && status == 0; i++) {
		struct tree_node *node = order[i];
		int root = home_place_root(home, node->root, node->path, node->kind == NODE_DIR);
		int root_fd = home->roots[root].fd;
		struct tree_node *parent = tree_find(&checkout->target, node->parent);
		if (parent != NULL && missing_in[parent - checkout->target.nodes] == root) {
			missing_in[node - checkout->target.nodes] = root;
			continue;
		}
		struct stat disk;
		bool under_blocked = false;
		for (size_t b = 0; b < blocked_count && !under_blocked; b++)
			under_blocked = node_id_equal(blocked[b], node->parent);
		bool exists = checkout_stat(root_fd, node->path, &disk) == 0;
		if (!under_blocked && !exists) {
			missing_in[node - checkout->target.nodes] = errno == ENOENT ? root : -1;
			continue;	/* missing: the checkout writes it */
		}
		bool kind_matches = exists &&
		    ((node->kind == NODE_DIR && S_ISDIR(disk.st_mode)) ||
			(node->kind == NODE_FILE && S_ISREG(disk.st_mode)) ||
			(node->kind == NODE_SYMLINK && S_ISLNK(disk.st_mode)));
		if (under_blocked || !kind_matches) {
			/* Something else is there (or above): head's node counts as
			 * present, so the next record deletes it and adds what is. */
			if (node->kind == NODE_DIR)
				blocked[blocked_count++] = node->id;
			struct stat nothing;
			memset(&nothing, 0, sizeof nothing);
			status = put_entry_stamped(checkout, node, &nothing, false);
			continue;
		}
		bool same = node->kind == NODE_DIR || same_content(home, root_fd, node->path, node);
		if (node->kind == NODE_DIR && identity_write_folder(root_fd, node->path, node->id) != 0) {
			status = hearth_fail_errno(checkout->error, "cannot write the identity marker of "
			    "%s", node->path);
			break;
		}
		if (checkout_stat(root_fd, node->path, &disk) != 0)
			continue;
		status = put_entry_stamped(checkout, node, &disk, same);
		*adopted += same && node->kind != NODE_DIR;
	}
	free(order);
	free(blocked);
	free(missing_in);
	return status;
}

int
checkout_adopt(struct hearth *home, uint64_t *adopted, struct hearth_error *error)
{
	struct checkout checkout = { .home = home, .error = error };
	struct hearth_error failure;
	struct timespec now;

	*adopted = 0;
	clock_gettime(CLOCK_REALTIME, &now);
	checkout.now_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	arena_init(&checkout.arena, 64 * 1024);
	buffer_init(&checkout.seen);
	int status = tree_load_head(home, &checkout.target, error);
	if (status == 0) {
		checkout.head = checkout.target;
		checkout.target_is_head = true;
	}
	if (status == 0 && store_begin(&home->store, &failure) != 0)
		status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
	else if (status == 0) {
		status = adopt_existing(&checkout, adopted);
		if (status == 0 && store_commit(&home->store, &failure) != 0)
			status = hearth_fail(error, HEARTH_FAILED, "%s", failure.message);
		if (status != 0)
			store_rollback(&home->store);
	}
	checkout_free(&checkout);
	return status;
}

/* Whether walk is a record's that nothing has written after (no other
 * process has committed to the store since). */
static bool
walk_still_true(struct hearth *home, const struct record_walk *walk)
{
	return walk != NULL && walk->usable &&
	    store_data_version(&home->store) == walk->data_version;
}

/* hearth_checkout; walk (or NULL) is the record's that came just before,
 * as is the one --force makes before its second attempt. */
static int
checkout_whole(hearth *home, const struct hearth_checkout_options *options,
    const struct hearth_progress *progress, const struct record_walk *walk,
    struct hearth_checkout_result *out, struct hearth_error *error)
{
	char id_hex[HASH_HEX], fixed[HASH_HEX];
	const char *spec = options->version;
	struct vv vv;
	struct record_walk forced = { 0 };

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	vv_init(&vv);
	for (int attempt = 0; attempt < 2; attempt++) {
		struct checkout checkout = { .home = home, .progress = progress, .error = error,
			.limit_deletes = !options->allow_deletes };
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		checkout.now_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
		arena_init(&checkout.arena, 64 * 1024);
		buffer_init(&checkout.seen);
		int status = home_lock(home, "checkout", error);
		if (status == 0)
			status = checkout_target(home, spec, &vv, id_hex, error);
		/* head~2 means what it meant when typed, even after --force records. */
		if (status == 0 && spec != NULL) {
			snprintf(fixed, sizeof fixed, "%s", id_hex);
			spec = fixed;
		}
		if (status == 0 && walk_still_true(home, walk))
			checkout.recorded_walk = &walk->scan;
		uint64_t taken = prefill_taken(home->prefill);
		if (status == 0)
			status = run_checkout(&checkout, &vv, id_hex, out);
		out->prefilled = prefill_taken(home->prefill) - taken;
		hearth_change_list_free(&checkout.blocked);
		checkout_free(&checkout);
		home_unlock(home);
		if (status != HEARTH_REFUSED || !options->force || attempt > 0) {
			record_walk_free(&forced);
			vv_free(&vv);
			return status;
		}
		/* --force: record what would be overwritten, then try again. */
		hearth_change_list_free(&out->blocked);
		struct hearth_record_options record = {
			.message = "Unrecorded changes, recorded by checkout --force",
			.leave_restores = true,
			.allow_deletes = options->allow_deletes,
		};
		struct hearth_record_result recorded;
		hearth_error_clear(error);
		status = record_keeping_walk(home, &record, progress, &recorded, &forced, error);
		snprintf(out->recorded, sizeof out->recorded, "%s", recorded.version);
		out->guard = recorded.guard;
		hearth_record_result_free(&recorded);
		walk = &forced;
		if (status != 0) {
			record_walk_free(&forced);
			vv_free(&vv);
			return status;
		}
	}
	record_walk_free(&forced);
	vv_free(&vv);
	return 0;
}

int
hearth_checkout(hearth *home, const struct hearth_checkout_options *options,
    const struct hearth_progress *progress, struct hearth_checkout_result *out,
    struct hearth_error *error)
{
	return checkout_whole(home, options, progress, NULL, out, error);
}

/* One walk for both steps: the record's, which the checkout takes in
 * place of its own (plan_after_record). */
int
hearth_apply_head(hearth *home, bool allow_deletes, const struct hearth_progress *progress,
    struct hearth_checkout_result *out, struct hearth_error *error)
{
	struct hearth_checkout_options options = { .allow_deletes = allow_deletes };
	/* Only what was really changed: a tree left at an older version is
	 * not turned into a restore of it. */
	struct hearth_record_options record = {
		.message = "Local changes, recorded before applying a sync",
		.leave_restores = true,
		.allow_deletes = allow_deletes,
	};
	struct hearth_record_result recorded;
	struct record_walk walk;

	memset(out, 0, sizeof *out);
	int status = record_keeping_walk(home, &record, progress, &recorded, &walk, error);
	if (status == 0)
		snprintf(out->recorded, sizeof out->recorded, "%s", recorded.version);
	out->guard = recorded.guard;
	hearth_record_result_free(&recorded);
	if (status == 0) {
		char kept[HEARTH_ID_HEX];
		snprintf(kept, sizeof kept, "%s", out->recorded);
		status = checkout_whole(home, &options, progress, &walk, out, error);
		snprintf(out->recorded, sizeof out->recorded, "%s", kept);
	}
	record_walk_free(&walk);
	/* What a sync wrote ahead for this checkout and it did not take. */
	prefill_free(home->prefill);
	home->prefill = NULL;
	return status;
}

void
hearth_checkout_result_free(struct hearth_checkout_result *result)
{
	hearth_change_list_free(&result->blocked);
}
