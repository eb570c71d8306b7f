/* What a stopped checkout placed (adopt.h): a checkout that placed its
 * files and then could not write the index (its store failed, or it was
 * killed) leaves items as head has them that the index does not hold, or
 * holds as they were. Recorded as the user's, each would be a new node
 * clashing with head's own, or a move or delete concurrent with head's
 * same one. Each register of a node (docs/DESIGN.md §3: its place, its
 * content) is adopted on its own: where it is head's, the tree has taken
 * head's word on it, whatever the user did to the other. */
#include <stdlib.h>
#include <string.h>

#include "backend/history/adopt.h"
#include "backend/history/head.h"
#include "model/array.h"

struct adopting {
	struct hearth *home;
	struct scan_result *scan;	/* its arena owns the seen sets made */
	struct arena scratch;		/* the head node in hand */
	/* Added folders adopted as head's nodes: what the walk found in one
	 * names the walk's fresh id as its folder. */
	struct folder_adopted {
		struct node_id fresh, node;
	} *folders;
	size_t folder_count, folder_capacity;
};

/* The node a change may leave as head has it: its own, or for an added
 * item, the one its id names or (without one: a link, a file system
 * without xattrs) the one head shows there, unless the index holds that
 * node on disk elsewhere (then this is a copy of it). */
static bool
candidate_node(struct hearth *home, const struct scan_change *change, struct node_id *id)
{
	struct node_id parent;
	enum node_kind kind;

	switch (change->kind) {
	case SCAN_MODIFIED:
	case SCAN_MOVED:
	case SCAN_DELETED:
		*id = change->node;
		return true;
	case SCAN_ADDED:
		if (change->has_identity)
			*id = change->identity;
		else if (head_shown_at(home, change->parent, change->name, change->name_length, id,
			     &kind) != 1)
			return false;
		return !scan_index_place(home, *id, true, &parent, NULL);
	default:
		return false;
	}
}

/* Whether head shows node live, of the change's kind, under its name in
 * its folder, and (a file or link) in the root it is in. */
static bool
same_place(struct hearth *home, const struct scan_change *change, const struct head_node *node)
{
	if (!node->live || node->kind != change->node_kind ||
	    !node_id_equal(node->shown_parent, change->parent) ||
	    node->shown_length != change->name_length ||
	    memcmp(node->shown, change->name, change->name_length) != 0)
		return false;
	return change->node_kind == NODE_DIR ||
	    home_place_root(home, node->shown_root, change->path, false) == change->root;
}

/* Whether a file's or link's bytes and mode are the node's: read aside
 * when the stamp could not tell, so the change is left as it was. */
static bool
same_content(struct hearth *home, const struct scan_change *change, const struct head_node *node)
{
	struct scan_change read = *change;
	struct hearth_error ignored;
	uint32_t mode = change->node_kind == NODE_FILE ? change->stamp.mode & 0777 : 0;

	if (change->node_kind == NODE_DIR)
		return true;
	if (!node->has_content || mode != node->mode)
		return false;
	if (change->needs_content && scan_hash_content(home, &read, &ignored) != 0)
		return false;
	return hash_equal(read.content_changed || !read.has_entry ? &read.blob : &read.old_blob,
	    &node->blob);
}

/* The seen set of the change's row once adopted: head's heads for each
 * register adopted, the index row's own for the other. */
static void
adopt_seen(struct adopting *adopting, struct scan_change *change, const struct head_node *node,
    bool place, bool content)
{
	struct op_id *index_place = NULL, *index_content = NULL;
	size_t index_place_count = 0, index_content_count = 0;
	struct buffer seen;

	if (change->seen != NULL)
		head_decode_seen(adopting->home, change->seen, change->seen_length, &index_place,
		    &index_place_count, &index_content, &index_content_count, &adopting->scratch);
	buffer_init(&seen);
	head_encode_seen(adopting->home,
	    place ? node->place_heads : index_place, place ? node->place_head_count : index_place_count,
	    content ? node->content_heads : index_content,
	    content ? node->content_head_count : index_content_count, &seen);
	change->seen = arena_copy(&adopting->scan->arena, seen.data, seen.length);
	change->seen_length = seen.length;
	buffer_free(&seen);
}

/* An added item at head's place, carrying the id of head's node there: it
 * is that node, whose bytes came from head's (the tree held no other); an
 * edit of them supersedes head's. */
static void
adopt_as_node(struct scan_change *change, struct node_id id, const struct head_node *node)
{
	change->kind = SCAN_MODIFIED;
	change->node = id;
	change->has_entry = true;
	change->old_blob = node->blob;
	change->old_mode = node->mode;
	change->old_root = change->root;
	change->restore = 0;
	change->identity_stale = false;
	change->mode_changed = change->node_kind == NODE_FILE &&
	    (change->stamp.mode & 0777) != node->mode;
}

/* Adopts what of the change is head's; true when its place is (an added
 * folder is then head's node). An item the index holds at head's word
 * (its row's seen is head's heads, and no restore keeps an older version
 * there) is the user's to change: left alone. */
static bool
adopt_change(struct adopting *adopting, struct scan_change *change, struct node_id id)
{
	struct hearth *home = adopting->home;
	struct head_node node;
	struct buffer heads;

	if (head_get(home, id, &node, &adopting->scratch) != 1)
		return false;
	if (change->kind == SCAN_DELETED) {
		change->adopted = !node.live;
		return false;
	}
	if (change->has_entry && change->restore == 0) {
		buffer_init(&heads);
		head_encode_seen(home, node.place_heads, node.place_head_count, node.content_heads,
		    node.content_head_count, &heads);
		bool current = change->seen_length == heads.length &&
		    memcmp(change->seen, heads.data, heads.length) == 0;
		buffer_free(&heads);
		if (current)
			return false;
	}
	bool place = same_place(home, change, &node);
	/* A folder has its place alone. */
	if (change->node_kind == NODE_DIR && !place)
		return false;
	bool content = same_content(home, change, &node);
	if (change->kind == SCAN_ADDED && !(place && (content || change->has_identity)))
		return false;
	if (!place && !content)
		return false;
	/* An added item's bytes came from head's: an edit supersedes them. */
	bool supersedes_content = content || change->kind == SCAN_ADDED;
	if (change->kind == SCAN_ADDED)
		adopt_as_node(change, id, &node);
	adopt_seen(adopting, change, &node, place, supersedes_content);
	change->adopted = true;
	if (place) {
		change->kind = SCAN_MODIFIED;
		change->old_path = NULL;
		change->old_root = change->root;
	}
	if (content) {
		change->blob = node.blob;
		change->old_blob = node.blob;
		change->needs_content = false;
		change->content_changed = false;
		change->mode_changed = false;
	}
	/* All of it head's: an older version a restore kept there is gone. */
	if (place && (content || change->node_kind == NODE_DIR)) {
		change->kind = SCAN_STAMP;
		change->restore = 0;
	}
	return place;
}

static void
adopted_parent(const struct adopting *adopting, struct scan_change *change)
{
	for (size_t i = adopting->folder_count; i-- > 0;)
		if (node_id_equal(change->parent, adopting->folders[i].fresh)) {
			change->parent = adopting->folders[i].node;
			return;
		}
}

static void
remember_folder(struct adopting *adopting, struct node_id fresh, struct node_id node)
{
	adopting->folders = array_grow(adopting->folders, &adopting->folder_capacity,
	    adopting->folder_count + 1, sizeof *adopting->folders);
	adopting->folders[adopting->folder_count++] = (struct folder_adopted){ fresh, node };
}

/* A node head has that the tree lacked (a row a restore would delete)
 * and an adopted item now holds: that restore is done. */
static void
adopt_restores(struct scan_result *scan, const struct node_id *nodes, size_t count)
{
	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *restore = &scan->changes[i];
		if (restore->kind != SCAN_RESTORE || restore->restore != 2)
			continue;
		for (size_t j = 0; j < count && !restore->adopted; j++)
			restore->adopted = node_id_equal(nodes[j], restore->node);
	}
}

/* What the index held of a change's item, before adopting. */
struct index_view {
	bool stamp_only;	/* the walk found nothing but a new stamp */
	bool same_place;	/* the item is where its row says */
	struct hash blob;
	uint32_t mode;
};

static struct index_view
index_view_of(const struct scan_change *change)
{
	return (struct index_view){
		.stamp_only = change->kind == SCAN_STAMP,
		.same_place = change->has_entry && change->old_path == NULL &&
		    change->kind != SCAN_ADDED && change->kind != SCAN_DELETED,
		.blob = change->old_blob,
		.mode = change->old_mode,
	};
}

/* An item where its row says, adopted with only its seen heads changed
 * (its bytes the user's, or head's and its row's alike: a file the walk
 * could not trust by its stamp, read and found unchanged), brings the
 * tree no nearer head. */
static bool
still_as_indexed(const struct index_view *before, const struct scan_change *change)
{
	if (before->stamp_only)
		return true;
	if (!before->same_place)
		return false;
	/* At its row's place, an item adopted whole is a stamp refresh. */
	return change->kind != SCAN_STAMP || (hash_equal(&change->blob, &before->blob) &&
	    (change->stamp.mode & 0777) == (before->mode & 0777));
}

size_t
adopt_places(struct hearth *home, struct scan_result *scan)
{
	size_t toward_head = 0;
	struct adopting adopting = { .home = home, .scan = scan };
	struct node_id *added = NULL;
	size_t added_count = 0, added_capacity = 0;

	arena_init(&adopting.scratch, 4096);
	for (size_t i = 0; i < scan->count; i++) {
		struct scan_change *change = &scan->changes[i];
		struct node_id id, fresh = change->node;
		bool was_added = change->kind == SCAN_ADDED;
		if (change->kind != SCAN_DELETED)
			adopted_parent(&adopting, change);
		if (!candidate_node(home, change, &id))
			continue;
		struct index_view before = index_view_of(change);
		bool place = adopt_change(&adopting, change, id);
		toward_head += change->adopted && !still_as_indexed(&before, change);
		arena_free(&adopting.scratch);
		arena_init(&adopting.scratch, 4096);
		if (!place || !was_added)
			continue;
		added = array_grow(added, &added_capacity, added_count + 1, sizeof *added);
		added[added_count++] = id;
		if (change->node_kind == NODE_DIR)
			remember_folder(&adopting, fresh, id);
	}
	if (added_count > 0)
		adopt_restores(scan, added, added_count);
	free(added);
	free(adopting.folders);
	arena_free(&adopting.scratch);
	return toward_head;
}
