/* One list/tree widget for every view, in the manner of tmux's mode-tree.c:
 * a view builds items (each holding a snapshot of what it shows, owned by
 * the list), the widget flattens the open part of the tree into rows, keeps
 * the cursor and the scroll position, filters, marks and tells the view when
 * a folder or the list itself wants its next page. Drawing a row is the
 * view's callback; the widget never calls the backend. */
#ifndef HEARTH_TUI_LIST_H
#define HEARTH_TUI_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/action.h"

struct list_item {
	struct list_item *parent;	/* NULL only for the list's root */
	struct list_item **children;
	size_t child_count, child_capacity;
	void *data;		/* the view's snapshot; freed by the list's free_data */
	unsigned depth;		/* 0 for the root's children */
	bool expandable;	/* may have children (a folder, a file with a diff) */
	bool expanded;
	bool loaded;		/* its first page of children was fetched */
	bool more;		/* more children can be fetched (keyset paging) */
	bool marked;
};

/* Tells whether an item's data matches a filter text. */
typedef bool list_match_fn(const void *data, const char *filter);
/* Draws one row: the item, where, and whether it is the cursor's. */
typedef void list_draw_fn(void *context, const struct list_item *item, int y, int x,
    int width, bool selected);

struct list {
	struct list_item root;	/* its children are the top-level rows */
	struct list_item **rows;	/* the visible items in order, recomputed by list_refresh */
	size_t row_count, row_capacity;
	size_t cursor;		/* index into rows */
	size_t top;		/* first row on screen */
	size_t height;		/* rows on screen, from the last draw */
	size_t marked_count;
	char *filter;		/* NULL: no filter */
	void (*free_data)(void *data);
	list_match_fn *match;
};

/* free_data may be NULL for data that needs no freeing. */
struct list *list_new(void (*free_data)(void *data), list_match_fn *match);
void list_free(struct list *list);

/* Removes every item (the root stays, with loaded and more cleared). */
void list_clear(struct list *list);
/* Adds an item after parent's last child (parent NULL: the root) and takes
 * ownership of data. Call list_refresh once after a batch of changes. */
struct list_item *list_append(struct list *list, struct list_item *parent, void *data);
/* Same, at position index among parent's children. */
struct list_item *list_insert(struct list *list, struct list_item *parent, size_t index,
    void *data);
void list_remove_children(struct list *list, struct list_item *parent);

/* Recomputes the rows after items were added, removed, opened or closed,
 * keeping the cursor on the same item when it is still shown. */
void list_refresh(struct list *list);

struct list_item *list_selected(const struct list *list);
size_t list_index_of(const struct list *list, const struct list_item *item);
/* Puts the cursor on item if it is shown; returns whether it is. */
bool list_select(struct list *list, const struct list_item *item);
void list_move(struct list *list, long delta);
void list_move_to(struct list *list, size_t row);
/* Applies a movement action; returns false for any other action. */
bool list_handle_action(struct list *list, enum action action);

void list_set_expanded(struct list *list, struct list_item *item, bool expanded);
void list_toggle_mark(struct list *list, struct list_item *item);
void list_clear_marks(struct list *list);
/* Calls visit for each marked item, in tree order. */
void list_for_each_marked(struct list *list, void (*visit)(void *context,
    struct list_item *item), void *context);

/* NULL or "" clears the filter. Items whose data match, and the folders
 * leading to them, are shown. */
void list_set_filter(struct list *list, const char *filter);

/* Search, as less and vim do: the row of the first shown item whose data
 * match text (the list's match function), going by step (1 or -1) from
 * row start and on round the end to the other end; -1 when none does.
 * A start past the last row stands for the row beyond either end. Sets
 * *wrapped when the match lies round the end. */
long list_find(const struct list *list, const char *text, size_t start, long step,
    bool *wrapped);

/* An item whose next page of children should be fetched now because its
 * last loaded child is on screen or within a screen of it (the root stands
 * for the list itself), or NULL. */
struct list_item *list_wanting_more(struct list *list);

/* Draws the rows that fit in height lines from (y, x) and remembers height
 * for paging; keeps the cursor on screen. */
void list_draw(struct list *list, int y, int x, int height, int width, list_draw_fn *draw,
    void *context);

#endif
