/* A version's tree in memory: every live node with its shown name and
 * content, from the head state (a table read) or, for an older version,
 * derived from the ops at or below its version vector (model/state). Used
 * by checkout, export, ls and show of whole versions. */
#ifndef HEARTH_BACKEND_TREE_H
#define HEARTH_BACKEND_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/disk/home.h"
#include "model/arena.h"
#include "model/id.h"
#include "model/op.h"

struct tree_node {
	struct node_id id, parent;
	const char *name;		/* shown name; never holds NUL or '/' */
	enum node_kind kind;
	const char *root;
	bool has_content;
	struct hash blob;
	uint64_t size;
	uint32_t mode;
	op_mtime mtime_ns;
	const char *path;		/* filled by tree_path */
	struct op_id *place_heads, *content_heads;	/* for a checkout's seen sets */
	size_t place_head_count, content_head_count;
	/* A working tree's node whose content is what the disk holds now
	 * (changed since the index; blob is its hash), read from there. */
	bool on_disk;
};

struct tree {
	struct tree_node *nodes;	/* live nodes, sorted by id */
	size_t count;
	struct tree_node **children;	/* the same, sorted by (parent, name) */
	struct arena arena;
};

/* The tree at vv; the head state when vv holds every op this store has. */
int tree_load(struct hearth *home, const struct vv *vv, struct tree *out,
    struct hearth_error *error);
int tree_load_head(struct hearth *home, struct tree *out, struct hearth_error *error);
/* Every op at or below vv, decoded into *ops (the caller frees the array;
 * names and lists in arena). */
int tree_read_ops(struct hearth *home, const struct vv *vv, struct op **ops, size_t *count,
    struct arena *arena, struct hearth_error *error);
/* The tree the ops derive (model/state.h), into out. */
void tree_derive(const struct op *ops, size_t count, struct tree *out);
void tree_free(struct tree *tree);

struct tree_node *tree_find(const struct tree *tree, struct node_id id);
/* The Home-relative path of a node ("" for the top). */
const char *tree_path(struct tree *tree, struct tree_node *node);
/* The node at a Home-relative path; NULL if none. "" is the top (NULL too:
 * the top is not a node of the tree). */
struct tree_node *tree_lookup(struct tree *tree, const char *path);
/* The children of parent, in name order: *first and *count into children. */
void tree_children(const struct tree *tree, struct node_id parent, size_t *first, size_t *count);

/* The working tree as the index holds it (as last recorded or checked
 * out): the entry table's nodes. */
int tree_load_index(struct hearth *home, struct tree *out, struct hearth_error *error);
/* Sorts the nodes again after a caller added, removed or edited some. */
void tree_reindex(struct tree *tree);

/* What changed from before to after, as show lists it (hearth_show): one
 * change per node added, deleted, moved (a folder only when it moved
 * itself; a file also when it moved to another root) or modified, at or
 * below one of filters (none: all), sorted by path. modified (may be
 * NULL) is called with each node whose content changed, right after its
 * change is added (the last item of out). */
void tree_diff(struct tree *before, struct tree *after, const char *const *filters,
    size_t filter_count,
    void (*modified)(void *context, const struct tree_node *node, struct hearth_change_list *out),
    void *context, struct hearth_change_list *out);
/* Whether path is filter or below it (NULL or "": everything is). */
bool tree_within(const char *path, const char *filter);

#endif
