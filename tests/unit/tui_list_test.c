/* Unit tests of tui/list, the widget every view uses: flattening open
 * folders into rows, keeping the cursor on its item, movement and paging,
 * filtering that keeps the path to a match, marks, and asking for the next
 * page only when the end of what is loaded comes near. */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/tap.h"
#include "tui/list.h"
#include "tui/memory.h"

static int freed;

static void
free_name(void *data)
{
	freed++;
	free(data);
}

static bool
name_contains(const void *data, const char *filter)
{
	return strstr(data, filter) != NULL;
}

static struct list_item *
add(struct list *list, struct list_item *parent, const char *name)
{
	return list_append(list, parent, memory_strdup(name));
}

static const char *
row_name(const struct list *list, size_t row)
{
	return row < list->row_count ? list->rows[row]->data : "(none)";
}

static void
test_rows_and_folders(void)
{
	struct list *list = list_new(free_name, name_contains);
	struct list_item *docs = add(list, NULL, "docs");
	add(list, NULL, "notes.txt");
	add(list, docs, "a.txt");
	add(list, docs, "b.txt");
	docs->expandable = true;
	list_refresh(list);

	check_uint(list->row_count, 2);
	list_move(list, 1);
	check_str(list_selected(list)->data, "notes.txt");
	list_set_expanded(list, docs, true);
	check_uint(list->row_count, 4);
	check_str(row_name(list, 1), "a.txt");
	check_uint(docs->children[0]->depth, 1);
	check_str(list_selected(list)->data, "notes.txt");
	list_set_expanded(list, docs, false);
	check_uint(list->row_count, 2);
	check_str(list_selected(list)->data, "notes.txt");

	struct list_item *first = list_insert(list, NULL, 0, memory_strdup(".bashrc"));
	list_refresh(list);
	check_str(row_name(list, 0), ".bashrc");
	ok(list_select(list, first), "an inserted item can be selected");
	list_clear(list);
	check_uint(list->row_count, 0);
	check_int(freed, 5);
	list_free(list);
}

static void
test_movement(void)
{
	struct list *list = list_new(free_name, NULL);
	char name[16];

	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof name, "%03d", i);
		add(list, NULL, name);
	}
	list_refresh(list);
	list->height = 10;
	list_move(list, -5);
	check_uint(list->cursor, 0);
	ok(list_handle_action(list, ACTION_MOVE_PAGE_DOWN), "page down is a list action");
	check_uint(list->cursor, 10);
	ok(list->cursor >= list->top && list->cursor < list->top + list->height,
	    "the cursor stays on screen");
	list_handle_action(list, ACTION_MOVE_HALF_DOWN);
	check_uint(list->cursor, 15);
	list_handle_action(list, ACTION_MOVE_LAST);
	check_uint(list->cursor, 99);
	check_uint(list->top, 90);
	list_handle_action(list, ACTION_MOVE_HALF_UP);
	check_uint(list->cursor, 94);
	list_handle_action(list, ACTION_MOVE_FIRST);
	check_uint(list->cursor, 0);
	check_uint(list->top, 0);
	list_move(list, 1000);
	check_uint(list->cursor, 99);
	ok(!list_handle_action(list, ACTION_RECORD), "record is not a list action");
	list_free(list);
}

static void
test_filter_and_marks(void)
{
	struct list *list = list_new(free_name, name_contains);
	struct list_item *docs = add(list, NULL, "docs");
	struct list_item *photos = add(list, NULL, "photos");
	struct list_item *deep = add(list, docs, "deep");
	add(list, deep, "letter-to-bank.txt");
	add(list, photos, "cat.jpg");
	add(list, NULL, "bank.txt");
	docs->expandable = photos->expandable = deep->expandable = true;
	list_refresh(list);

	list_set_filter(list, "bank");
	check_uint(list->row_count, 4);
	check_str(row_name(list, 0), "docs");
	check_str(row_name(list, 1), "deep");
	check_str(row_name(list, 2), "letter-to-bank.txt");
	check_str(row_name(list, 3), "bank.txt");
	list_set_filter(list, "");
	check_uint(list->row_count, 3);

	list_toggle_mark(list, photos);
	list_toggle_mark(list, deep);
	check_uint(list->marked_count, 2);
	list_toggle_mark(list, photos);
	check_uint(list->marked_count, 1);
	list_clear_marks(list);
	check_uint(list->marked_count, 0);
	ok(!deep->marked, "clearing marks unmarks folded items too");
	list_free(list);
}

static void
test_find(void)
{
	struct list *list = list_new(free_name, name_contains);
	bool wrapped;

	add(list, NULL, "apple");
	add(list, NULL, "banana");
	add(list, NULL, "cherry");
	add(list, NULL, "banana split");
	list_refresh(list);
	check_int(list_find(list, "banana", 0, 1, &wrapped), 1);
	ok(!wrapped, "a match below the start is no wrap");
	check_int(list_find(list, "banana", 2, 1, &wrapped), 3);
	check_int(list_find(list, "banana", 3 + 1, 1, &wrapped), 1);
	ok(wrapped, "past the last row the search goes on from the top");
	check_int(list_find(list, "banana", 0, -1, &wrapped), 3);
	ok(wrapped, "above the first row it goes on from the bottom");
	check_int(list_find(list, "cherry", 4, -1, &wrapped), 2);
	ok(wrapped, "a start past the end going up comes round from the bottom");
	check_int(list_find(list, "apple", 4, 1, &wrapped), 0);
	ok(wrapped, "a start past the end going down comes round from the top");
	check_int(list_find(list, "cherry", 2, 1, &wrapped), 2);
	ok(!wrapped, "the start row itself counts");
	check_int(list_find(list, "kiwi", 0, 1, &wrapped), -1);
	check_int(list_find(list, "", 0, 1, &wrapped), -1);
	list_free(list);
	list = list_new(free_name, NULL);
	add(list, NULL, "apple");
	list_refresh(list);
	check_int(list_find(list, "apple", 0, 1, &wrapped), -1);
	list_free(list);
}

static void
test_wanting_more(void)
{
	struct list *list = list_new(free_name, NULL);
	char name[16];

	list->root.more = true;
	ok(list_wanting_more(list) == &list->root, "an empty list with more wants its first page");
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof name, "%03d", i);
		add(list, NULL, name);
	}
	list_refresh(list);
	list->height = 10;
	ok(list_wanting_more(list) == NULL, "the end of the page is two screens away: no more yet");
	list_move_to(list, 40);
	ok(list_wanting_more(list) == &list->root, "within a screen of the page's end, more is wanted");

	struct list_item *folder = list->rows[45];
	folder->expandable = folder->expanded = folder->more = true;
	add(list, folder, "inside");
	list_refresh(list);
	ok(list_wanting_more(list) == folder, "an open folder whose page ends on screen wants more");
	folder->expanded = false;
	list_refresh(list);
	ok(list_wanting_more(list) == &list->root, "a closed folder never asks");
	list->root.more = false;
	ok(list_wanting_more(list) == NULL, "nothing more when nothing has more");
	list_free(list);
}

int
main(void)
{
	test_rows_and_folders();
	test_movement();
	test_filter_and_marks();
	test_find();
	test_wanting_more();
	return tap_done();
}
