/* The list/tree widget (see list.h). Items form a tree owned by the list;
 * rows is the flattened, filtered open part of it, rebuilt by list_refresh
 * after every structural change (linear in the items shown). */
#include "tui/list.h"

#include <stdlib.h>
#include <string.h>

#include "tui/memory.h"

#define LIST_DEFAULT_HEIGHT 20

struct list *
list_new(void (*free_data)(void *data), list_match_fn *match)
{
	struct list *list = memory_alloc(1, sizeof *list);

	list->free_data = free_data;
	list->match = match;
	list->height = LIST_DEFAULT_HEIGHT;
	return list;
}

static void
free_children(struct list *list, struct list_item *parent)
{
	for (size_t i = 0; i < parent->child_count; i++) {
		struct list_item *child = parent->children[i];
		free_children(list, child);
		if (child->marked)
			list->marked_count--;
		if (list->free_data != NULL && child->data != NULL)
			list->free_data(child->data);
		free(child->children);
		free(child);
	}
	free(parent->children);
	parent->children = NULL;
	parent->child_count = parent->child_capacity = 0;
}

void
list_free(struct list *list)
{
	if (list == NULL)
		return;
	free_children(list, &list->root);
	free(list->rows);
	free(list->filter);
	free(list);
}

void
list_clear(struct list *list)
{
	free_children(list, &list->root);
	list->root.loaded = list->root.more = false;
	list->row_count = list->cursor = list->top = 0;
	list->marked_count = 0;
}

struct list_item *
list_insert(struct list *list, struct list_item *parent, size_t index, void *data)
{
	struct list_item *item = memory_alloc(1, sizeof *item);

	if (parent == NULL)
		parent = &list->root;
	if (index > parent->child_count)
		index = parent->child_count;
	if (parent->child_count == parent->child_capacity) {
		parent->child_capacity = parent->child_capacity ? parent->child_capacity * 2 : 16;
		parent->children = memory_resize(parent->children, parent->child_capacity,
		    sizeof *parent->children);
	}
	memmove(parent->children + index + 1, parent->children + index,
	    (parent->child_count - index) * sizeof *parent->children);
	parent->children[index] = item;
	parent->child_count++;
	item->parent = parent;
	item->data = data;
	item->depth = parent == &list->root ? 0 : parent->depth + 1;
	return item;
}

struct list_item *
list_append(struct list *list, struct list_item *parent, void *data)
{
	if (parent == NULL)
		parent = &list->root;
	return list_insert(list, parent, parent->child_count, data);
}

void
list_remove_children(struct list *list, struct list_item *parent)
{
	if (parent == NULL)
		parent = &list->root;
	free_children(list, parent);
	parent->loaded = parent->more = false;
}

static void
add_row(struct list *list, struct list_item *item)
{
	if (list->row_count == list->row_capacity) {
		list->row_capacity = list->row_capacity ? list->row_capacity * 2 : 256;
		list->rows = memory_resize(list->rows, list->row_capacity, sizeof *list->rows);
	}
	list->rows[list->row_count++] = item;
}

static bool
item_matches(const struct list *list, const struct list_item *item)
{
	return list->filter == NULL || list->match == NULL || list->match(item->data, list->filter);
}

/* Whether item or a loaded descendant matches the filter. */
static bool
subtree_matches(const struct list *list, const struct list_item *item)
{
	if (item_matches(list, item))
		return true;
	for (size_t i = 0; i < item->child_count; i++)
		if (subtree_matches(list, item->children[i]))
			return true;
	return false;
}

static void
flatten(struct list *list, struct list_item *parent)
{
	for (size_t i = 0; i < parent->child_count; i++) {
		struct list_item *child = parent->children[i];
		bool filtering = list->filter != NULL;
		if (filtering && !subtree_matches(list, child))
			continue;
		add_row(list, child);
		/* A filter opens the folders that lead to a match. */
		if (child->expanded || (filtering && !item_matches(list, child)))
			flatten(list, child);
	}
}

size_t
list_index_of(const struct list *list, const struct list_item *item)
{
	for (size_t i = 0; i < list->row_count; i++)
		if (list->rows[i] == item)
			return i;
	return (size_t)-1;
}

static void
clamp(struct list *list)
{
	if (list->row_count == 0) {
		list->cursor = list->top = 0;
		return;
	}
	if (list->cursor >= list->row_count)
		list->cursor = list->row_count - 1;
	size_t height = list->height ? list->height : 1;
	if (list->cursor < list->top)
		list->top = list->cursor;
	if (list->cursor >= list->top + height)
		list->top = list->cursor - height + 1;
	/* No empty space under the last row while there are rows above. */
	if (list->top + height > list->row_count)
		list->top = list->row_count > height ? list->row_count - height : 0;
}

void
list_refresh(struct list *list)
{
	struct list_item *selected = list_selected(list);
	size_t old_cursor = list->cursor;

	list->row_count = 0;
	flatten(list, &list->root);
	size_t index = selected ? list_index_of(list, selected) : (size_t)-1;
	if (index != (size_t)-1)
		list->cursor = index;
	else
		list->cursor = old_cursor;
	clamp(list);
}

struct list_item *
list_selected(const struct list *list)
{
	if (list->cursor >= list->row_count)
		return NULL;
	return list->rows[list->cursor];
}

bool
list_select(struct list *list, const struct list_item *item)
{
	size_t index = list_index_of(list, item);

	if (index == (size_t)-1)
		return false;
	list->cursor = index;
	clamp(list);
	return true;
}

void
list_move_to(struct list *list, size_t row)
{
	list->cursor = row;
	clamp(list);
}

void
list_move(struct list *list, long delta)
{
	if (delta < 0 && (size_t)-delta > list->cursor)
		list->cursor = 0;
	else
		list->cursor += (size_t)delta;
	if (delta > 0 && list->cursor >= list->row_count)
		list->cursor = list->row_count ? list->row_count - 1 : 0;
	clamp(list);
}

static void
scroll_and_move(struct list *list, long delta)
{
	/* Paging keeps the cursor at the same place on the screen, like less. */
	size_t offset = list->cursor - list->top;

	list_move(list, delta);
	if (delta > 0 && list->top + list->height < list->row_count)
		list->top = list->cursor >= offset ? list->cursor - offset : 0;
	if (delta < 0)
		list->top = list->cursor >= offset ? list->cursor - offset : 0;
	clamp(list);
}

bool
list_handle_action(struct list *list, enum action action)
{
	long height = list->height ? (long)list->height : 1;
	long half = height / 2 ? height / 2 : 1;

	switch (action) {
	case ACTION_MOVE_UP:
		list_move(list, -1);
		return true;
	case ACTION_MOVE_DOWN:
		list_move(list, 1);
		return true;
	case ACTION_MOVE_HALF_UP:
		scroll_and_move(list, -half);
		return true;
	case ACTION_MOVE_HALF_DOWN:
		scroll_and_move(list, half);
		return true;
	case ACTION_MOVE_PAGE_UP:
		scroll_and_move(list, -height);
		return true;
	case ACTION_MOVE_PAGE_DOWN:
		scroll_and_move(list, height);
		return true;
	case ACTION_MOVE_FIRST:
		list_move_to(list, 0);
		return true;
	case ACTION_MOVE_LAST:
		list_move_to(list, list->row_count ? list->row_count - 1 : 0);
		return true;
	default:
		return false;
	}
}

void
list_set_expanded(struct list *list, struct list_item *item, bool expanded)
{
	if (item == NULL || item == &list->root || !item->expandable || item->expanded == expanded)
		return;
	item->expanded = expanded;
	list_refresh(list);
}

void
list_toggle_mark(struct list *list, struct list_item *item)
{
	if (item == NULL)
		return;
	item->marked = !item->marked;
	if (item->marked)
		list->marked_count++;
	else
		list->marked_count--;
}

static void
visit_marked(struct list_item *parent, void (*visit)(void *context, struct list_item *item),
    void *context)
{
	for (size_t i = 0; i < parent->child_count; i++) {
		struct list_item *child = parent->children[i];
		if (child->marked && visit != NULL)
			visit(context, child);
		visit_marked(child, visit, context);
	}
}

static void
unmark(void *context, struct list_item *item)
{
	struct list *list = context;

	item->marked = false;
	list->marked_count--;
}

void
list_clear_marks(struct list *list)
{
	visit_marked(&list->root, unmark, list);
}

void
list_for_each_marked(struct list *list, void (*visit)(void *context, struct list_item *item),
    void *context)
{
	visit_marked(&list->root, visit, context);
}

void
list_set_filter(struct list *list, const char *filter)
{
	free(list->filter);
	list->filter = filter != NULL && filter[0] != '\0' ? memory_strdup(filter) : NULL;
	list_refresh(list);
}

long
list_find(const struct list *list, const char *text, size_t start, long step, bool *wrapped)
{
	size_t count = list->row_count;

	*wrapped = false;
	if (list->match == NULL || count == 0 || text == NULL || text[0] == '\0')
		return -1;
	/* A start past the end stands for the row beyond the last (or, going
	 * up, before the first): whatever is found then lies round the end. */
	bool past = start >= count;
	if (past)
		start = step > 0 ? 0 : count - 1;
	for (size_t seen = 0; seen < count; seen++) {
		size_t row = step > 0 ? (start + seen) % count : (start + count - seen) % count;
		if (list->match(list->rows[row]->data, text)) {
			*wrapped = past || (step > 0 ? row < start : row > start);
			return (long)row;
		}
	}
	return -1;
}

/* The depth of a row's parent level, with the root at -1. */
static long
item_depth(const struct list *list, const struct list_item *item)
{
	return item == &list->root ? -1 : (long)item->depth;
}

struct list_item *
list_wanting_more(struct list *list)
{
	if (list->row_count == 0)
		return list->root.more ? &list->root : NULL;
	size_t height = list->height ? list->height : 1;
	size_t end = list->top + 2 * height;
	if (end > list->row_count)
		end = list->row_count;
	for (size_t row = list->top; row < end; row++) {
		long next_depth = row + 1 < list->row_count ? (long)list->rows[row + 1]->depth : -1;
		/* Walk up the folders whose loaded children end at this row. */
		for (struct list_item *item = list->rows[row]; item != NULL; item = item->parent) {
			if (next_depth > item_depth(list, item))
				break;
			bool open = item == &list->root || item->expanded;
			if (open && item->more)
				return item;
		}
	}
	return NULL;
}

void
list_draw(struct list *list, int y, int x, int height, int width, list_draw_fn *draw,
    void *context)
{
	list->height = height > 0 ? (size_t)height : 1;
	clamp(list);
	for (int line = 0; line < height; line++) {
		size_t row = list->top + (size_t)line;
		if (row >= list->row_count)
			break;
		draw(context, list->rows[row], y + line, x, width, row == list->cursor);
	}
}
