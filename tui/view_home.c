/* The Home view: the working tree (hearth_list, version NULL) as a tree
 * whose folders open lazily, 200 entries a page (keyset `after`), with
 * status marks from the app's last hearth_status and new paths merged from
 * it, live as the watch reruns it; a changed path's size and time are the
 * disk's; space marks, r records from a dialog, f or / filters by name over
 * the whole Home (the index's names and the status's new paths). */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tui/app.h"
#include "tui/dialog.h"
#include "tui/memory.h"
#include "tui/view.h"

#define HOME_PAGE 200
#define HOME_SIZE_WIDTH 7
#define HOME_TIME_WIDTH 16
#define HOME_ROOT_WIDTH 8
#define HOME_MARK_WIDTH 2
#define HOME_FOLDER_WITH_CHANGES '*'
/* The most paths a filter opens the way to. */
#define HOME_FILTER_LIMIT 1000

struct home_entry {
	char *name;
	enum hearth_entry_kind kind;
	char *root;
	uint64_t size;
	__int128 mtime_ns;
	bool stamped;		/* size and mtime_ns are known (else none shown) */
	char listed_mark;	/* what hearth_list said, ' ' for nothing */
	char mark;		/* what is shown: a change kind, '*' or ' ' */
	bool from_status;	/* a new path, known only from the status */
};

/* A changed path from the status, for lookups by path. */
struct home_change {
	const char *path;	/* points into the app's status report */
	char kind;
	enum hearth_entry_kind entry_kind;
	const char *root;	/* the root holding it, NULL when not known */
	/* A move's other end, so each of its two rows says where the file
	 * went or came from: the new path on the old row, and back. */
	const char *moved_with;
	bool moved_away;	/* this is where the path left */
};

struct home_pane {
	char *filter_before;	/* restored when the filter dialog is cancelled */
	bool several_roots;
	struct home_change *changes;	/* sorted by path bytes */
	size_t change_count;
	/* A record the guard on emptying stopped, while the user is asked. */
	struct record_job *pending;
	/* The paths of the record whose message is being asked for, and
	 * whether they are the tree's marks (cleared once recorded). */
	char **recording;
	size_t recording_count;
	bool recording_marks;
};

struct record_job {
	struct view *view;
	char *message;
	char **paths;
	size_t path_count;
	bool allow_deletes;	/* asked and confirmed past the guard on emptying */
	bool marks;		/* the paths are the tree's marks */
	struct hearth_record_result result;
};

static void record_free(void *context);
static void forget_recording(struct home_pane *pane);
static void reveal_matches(struct view *view, const char *text);

/* ---- rows and paths ----------------------------------------------------------- */

static void
free_entry(void *data)
{
	struct home_entry *entry = data;

	free(entry->name);
	free(entry->root);
	free(entry);
}

static bool
entry_matches(const void *data, const char *filter)
{
	const struct home_entry *entry = data;

	return strcasestr(entry->name, filter) != NULL;
}

/* "a/b/c" for an item; "" for the list's root. The caller frees it. */
static char *
item_path(const struct list_item *item)
{
	size_t length = 0;

	for (const struct list_item *at = item; at != NULL && at->data != NULL; at = at->parent)
		length += strlen(((const struct home_entry *)at->data)->name) + 1;
	char *path = memory_alloc(length + 1, 1);
	size_t end = length ? length - 1 : 0;
	for (const struct list_item *at = item; at != NULL && at->data != NULL; at = at->parent) {
		const char *name = ((const struct home_entry *)at->data)->name;
		size_t name_length = strlen(name);
		end -= name_length;
		memcpy(path + end, name, name_length);
		if (end > 0)
			path[--end] = '/';
	}
	return path;
}

/* The index of the first child whose name is not below name. */
static size_t
child_position(const struct list_item *parent, const char *name)
{
	size_t low = 0, high = parent->child_count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		const struct home_entry *entry = parent->children[middle]->data;
		if (strcmp(entry->name, name) < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

static struct list_item *
find_child(const struct list_item *parent, const char *name)
{
	size_t at = child_position(parent, name);

	if (at < parent->child_count &&
	    strcmp(((const struct home_entry *)parent->children[at]->data)->name, name) == 0)
		return parent->children[at];
	return NULL;
}

/* The loaded item at path, or NULL. */
static struct list_item *
find_item(struct list *list, const char *path)
{
	struct list_item *item = &list->root;
	char *copy = memory_strdup(path);
	char *save = NULL;

	for (char *name = strtok_r(copy, "/", &save); name != NULL && item != NULL;
	    name = strtok_r(NULL, "/", &save))
		item = find_child(item, name);
	free(copy);
	return item == &list->root ? NULL : item;
}

/* ---- the status, indexed by path ------------------------------------------------ */

static int
compare_changes(const void *left, const void *right)
{
	return strcmp(((const struct home_change *)left)->path,
	    ((const struct home_change *)right)->path);
}

static void
index_status(struct view *view)
{
	struct home_pane *pane = view->private;
	const struct hearth_status_report *status = app_status(view->app);

	free(pane->changes);
	pane->changes = NULL;
	pane->change_count = 0;
	if (status == NULL)
		return;
	const struct hearth_change_list *list = &status->changes;
	pane->changes = memory_alloc(list->count * 2 + 1, sizeof *pane->changes);
	for (size_t i = 0; i < list->count; i++) {
		const struct hearth_change *change = &list->items[i];
		pane->changes[pane->change_count++] = (struct home_change){
			change->path, (char)change->kind, change->entry_kind, change->root,
			change->kind == HEARTH_MOVED ? change->old_path : NULL, false };
		/* A moved path is marked where it left too. */
		if (change->kind == HEARTH_MOVED && change->old_path != NULL)
			pane->changes[pane->change_count++] = (struct home_change){
				change->old_path, (char)HEARTH_MOVED, change->entry_kind,
				change->old_root, change->path, true };
	}
	qsort(pane->changes, pane->change_count, sizeof *pane->changes, compare_changes);
}

static size_t
change_lower_bound(const struct home_pane *pane, const char *key)
{
	size_t low = 0, high = pane->change_count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (strcmp(pane->changes[middle].path, key) < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

static bool
has_prefix(const char *path, const char *prefix, size_t prefix_length)
{
	return strncmp(path, prefix, prefix_length) == 0;
}

/* The mark for path: its own change, else a folder holding changes. */
static char
status_mark(const struct home_pane *pane, const char *path, const struct home_entry *entry)
{
	size_t at = change_lower_bound(pane, path);

	if (at < pane->change_count && strcmp(pane->changes[at].path, path) == 0)
		return pane->changes[at].kind;
	if (entry->listed_mark != ' ' && entry->listed_mark != '\0')
		return entry->listed_mark;
	if (entry->kind != HEARTH_DIR)
		return ' ';
	char *prefix = memory_printf("%s/", path);
	at = change_lower_bound(pane, prefix);
	bool below = at < pane->change_count && has_prefix(pane->changes[at].path, prefix,
	    strlen(prefix));
	free(prefix);
	return below ? HOME_FOLDER_WITH_CHANGES : ' ';
}

/* Whether a mark is a change of the path itself (not ' ', not a folder
 * holding changes). */
static bool
changed_mark(char mark)
{
	return mark != ' ' && mark != '\0' && mark != HOME_FOLDER_WITH_CHANGES;
}

/* A changed path's size and time as the disk has them now, from its root
 * (or the first root holding it, when the status did not say); none when
 * no root has it (moved away, deleted). The index has them as recorded. */
static void
stamp_from_disk(struct view *view, struct home_entry *entry, const char *path)
{
	entry->stamped = hearth_disk_stamp(app_home(view->app), path, entry->root, &entry->size,
	    &entry->mtime_ns) == 1;
}

static void
set_mark(struct view *view, struct home_entry *entry, const char *path)
{
	char before = entry->mark;

	entry->mark = status_mark(view->private, path, entry);
	if (changed_mark(entry->mark))
		stamp_from_disk(view, entry, path);
	else if (changed_mark(before) && !entry->from_status)
		/* Changed back: the disk is as recorded again. */
		stamp_from_disk(view, entry, path);
}

static void
update_marks(struct view *view, struct list_item *parent)
{
	for (size_t i = 0; i < parent->child_count; i++) {
		struct list_item *child = parent->children[i];
		char *path = item_path(child);
		set_mark(view, child->data, path);
		free(path);
		update_marks(view, child);
	}
}

/* ---- loading -------------------------------------------------------------------- */

static struct list_item *
add_entry(struct view *view, struct list_item *parent, size_t at, struct home_entry *entry)
{
	struct list_item *item = list_insert(view->list, parent, at, entry);
	char *path = item_path(item);

	item->expandable = entry->kind == HEARTH_DIR;
	set_mark(view, entry, path);
	free(path);
	return item;
}

/* New paths under parent that the listing lacks, from the status. Only
 * once the folder is fully listed, so the rows stay in name order. */
static void
merge_new_paths(struct view *view, struct list_item *parent)
{
	struct home_pane *pane = view->private;

	if (parent->more)
		return;
	char *folder = item_path(parent);
	char *prefix = folder[0] ? memory_printf("%s/", folder) : memory_strdup("");
	size_t prefix_length = strlen(prefix);
	for (size_t i = change_lower_bound(pane, prefix); i < pane->change_count; i++) {
		const struct home_change *change = &pane->changes[i];
		if (!has_prefix(change->path, prefix, prefix_length))
			break;
		if (change->kind == HEARTH_DELETED)
			continue;
		const char *rest = change->path + prefix_length;
		size_t name_length = strcspn(rest, "/");
		char *name = memory_strndup(rest, name_length);
		if (name_length == 0 || find_child(parent, name) != NULL) {
			free(name);
			continue;
		}
		struct home_entry *entry = memory_alloc(1, sizeof *entry);
		entry->name = name;
		entry->kind = rest[name_length] == '/' ? HEARTH_DIR : change->entry_kind;
		/* What is new on disk is in the root the status found it in; a
		 * folder known only from a path below it, in that path's root. */
		entry->root = memory_strdup(change->root ? change->root : "");
		entry->listed_mark = ' ';
		entry->from_status = true;
		add_entry(view, parent, child_position(parent, name), entry);
	}
	free(prefix);
	free(folder);
}

/* Appends the next page of the folder's listing. */
static void
list_folder(struct view *view, struct list_item *parent)
{
	char *folder = item_path(parent);
	const struct home_entry *last = parent->child_count ?
	    parent->children[parent->child_count - 1]->data : NULL;
	struct hearth_list_query query = {
		.folder = folder,
		.after = parent->loaded && last ? last->name : NULL,
		.limit = HOME_PAGE,
	};
	struct hearth_entry_list entries;
	struct hearth_error error;

	parent->more = false;
	if (hearth_list(app_home(view->app), &query, &entries, &error) != HEARTH_OK) {
		app_error(view->app, "Cannot list the folder", &error);
		free(folder);
		return;
	}
	for (size_t i = 0; i < entries.count; i++) {
		const struct hearth_entry *listed = &entries.items[i];
		struct home_entry *entry = memory_alloc(1, sizeof *entry);
		entry->name = memory_strdup(listed->name);
		entry->kind = listed->kind;
		entry->root = memory_strdup(listed->root ? listed->root : "");
		entry->size = listed->size;
		entry->mtime_ns = listed->mtime_ns;
		entry->stamped = true;
		entry->listed_mark = listed->mark ? listed->mark : ' ';
		add_entry(view, parent, parent->child_count, entry);
	}
	parent->more = entries.more && entries.count > 0;
	hearth_entry_list_free(&entries);
	free(folder);
}

static void
load_page(struct view *view, struct list_item *parent)
{
	const struct home_entry *folder_entry = parent->data;

	/* A folder known only from the status is not in the listing yet. */
	if (folder_entry == NULL || !folder_entry->from_status)
		list_folder(view, parent);
	parent->loaded = true;
	merge_new_paths(view, parent);
	list_refresh(view->list);
}

static void
home_load_more(struct view *view, struct list_item *parent)
{
	load_page(view, parent);
}

static void
expand(struct view *view, struct list_item *item)
{
	if (!item->loaded)
		load_page(view, item);
	list_set_expanded(view->list, item, true);
}

/* ---- open, build, close ------------------------------------------------------------ */

static void
home_open(struct view *view)
{
	struct home_pane *pane = memory_alloc(1, sizeof *pane);

	view->list = list_new(free_entry, entry_matches);
	view->private = pane;
	view->stale = true;
}

static void
home_close(struct view *view)
{
	struct home_pane *pane = view->private;

	list_free(view->list);
	free(pane->filter_before);
	free(pane->changes);
	if (pane->pending != NULL)
		record_free(pane->pending);
	forget_recording(pane);
	free(pane);
}

struct path_set {
	char **paths;
	size_t count;
};

static void
add_path(struct path_set *set, char *path)
{
	set->paths = memory_resize(set->paths, set->count + 1, sizeof *set->paths);
	set->paths[set->count++] = path;
}

static void
free_paths(struct path_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		free(set->paths[i]);
	free(set->paths);
	set->paths = NULL;
	set->count = 0;
}

static void
collect_expanded(struct list_item *parent, struct path_set *set)
{
	for (size_t i = 0; i < parent->child_count; i++) {
		struct list_item *child = parent->children[i];
		if (!child->expanded)
			continue;
		add_path(set, item_path(child));
		collect_expanded(child, set);
	}
}

static void
collect_marked(void *context, struct list_item *item)
{
	add_path(context, item_path(item));
}

/* Reloads the tree, keeping open folders, marks and the cursor's path. */
static void
home_build(struct view *view)
{
	struct home_pane *pane = view->private;
	const struct config *config = hearth_config(app_home(view->app));
	struct path_set expanded = { 0 }, marked = { 0 };
	struct list_item *selected = list_selected(view->list);
	char *selected_path = selected ? item_path(selected) : NULL;

	pane->several_roots = config != NULL && config->root_count > 1;
	index_status(view);
	collect_expanded(&view->list->root, &expanded);
	list_for_each_marked(view->list, collect_marked, &marked);
	list_clear(view->list);
	load_page(view, &view->list->root);
	for (size_t i = 0; i < expanded.count; i++) {
		struct list_item *item = find_item(view->list, expanded.paths[i]);
		if (item != NULL && item->expandable)
			expand(view, item);
	}
	for (size_t i = 0; i < marked.count; i++) {
		struct list_item *item = find_item(view->list, marked.paths[i]);
		if (item != NULL)
			list_toggle_mark(view->list, item);
	}
	if (view->list->filter != NULL)
		reveal_matches(view, view->list->filter);
	list_refresh(view->list);
	struct list_item *again = selected_path ? find_item(view->list, selected_path) : NULL;
	if (again != NULL)
		list_select(view->list, again);
	free(selected_path);
	free_paths(&expanded);
	free_paths(&marked);
}

static void
merge_all(struct view *view, struct list_item *parent)
{
	if (parent->loaded)
		merge_new_paths(view, parent);
	for (size_t i = 0; i < parent->child_count; i++)
		merge_all(view, parent->children[i]);
}

/* Whether a row known only from an earlier status is in this one still
 * (itself, or for a folder something below it): a new file deleted again
 * must leave the tree. */
static bool
status_still_has(const struct home_pane *pane, const char *path)
{
	size_t at = change_lower_bound(pane, path), length = strlen(path);

	return at < pane->change_count && has_prefix(pane->changes[at].path, path, length) &&
	    (pane->changes[at].path[length] == '\0' || pane->changes[at].path[length] == '/');
}

static bool
has_stale_new_paths(struct view *view, struct list_item *parent)
{
	for (size_t i = 0; i < parent->child_count; i++) {
		struct list_item *child = parent->children[i];
		const struct home_entry *entry = child->data;
		char *path = item_path(child);
		bool stale = entry->from_status && !status_still_has(view->private, path);
		free(path);
		if (stale || has_stale_new_paths(view, child))
			return true;
	}
	return false;
}

/* Marks follow the status as it changes (the watch reruns it whenever
 * files change on disk). Rows of new paths that went away again need the
 * tree rebuilt; anything else is updated in place. */
static void
home_status_changed(struct view *view)
{
	index_status(view);
	if (!view->list->root.loaded)
		return;
	if (has_stale_new_paths(view, &view->list->root)) {
		view->stale = true;
		return;
	}
	update_marks(view, &view->list->root);
	merge_all(view, &view->list->root);
	list_refresh(view->list);
}

/* ---- drawing ------------------------------------------------------------------- */

struct home_columns {
	int name, root, size, time, mark;	/* widths; 0 hides a column */
};

static struct home_columns
layout(const struct home_pane *pane, int width)
{
	struct home_columns columns = {
		.root = pane->several_roots ? HOME_ROOT_WIDTH : 0,
		.size = HOME_SIZE_WIDTH,
		.time = HOME_TIME_WIDTH,
		.mark = HOME_MARK_WIDTH,
	};
	/* Narrow screens give up the time, then the root, before the name. */
	int fixed = columns.root + columns.size + columns.time + columns.mark + 4;
	if (width - fixed < 24) {
		fixed -= columns.time + 1;
		columns.time = 0;
	}
	if (width - fixed < 16 && columns.root) {
		fixed -= columns.root + 1;
		columns.root = 0;
	}
	columns.name = width - fixed - 2 > 4 ? width - fixed - 2 : 4;
	return columns;
}

static void
draw_columns(int y, int x, const struct home_columns *columns, enum theme_role dim,
    const char *root, const char *size, const char *time, const char *mark,
    enum theme_role mark_role)
{
	x += columns->name + 1;
	if (columns->root) {
		draw_text(y, x, columns->root, dim, root, DRAW_PAD);
		x += columns->root + 1;
	}
	draw_text(y, x, columns->size, dim, size, DRAW_ALIGN_RIGHT);
	x += columns->size + 1;
	if (columns->time) {
		draw_text(y, x, columns->time, dim, time, DRAW_PAD);
		x += columns->time + 1;
	}
	draw_text(y, x, columns->mark, mark_role, mark, 0);
}

static void
home_draw_header(struct view *view, int y, int width)
{
	struct home_columns columns = layout(view->private, width);
	char *title = view->list->filter ? memory_printf("Name (filter: %s)", view->list->filter) :
	    memory_strdup("Name");

	draw_fill(y, 0, width, THEME_HEADER);
	draw_text(y, 2, columns.name, THEME_HEADER, title, 0);
	draw_columns(y, 2, &columns, THEME_HEADER, "Root", "Size", "Modified", "St",
	    THEME_HEADER);
	free(title);
}

static enum theme_role
name_role(const struct home_entry *entry)
{
	if (entry->mark != ' ' && entry->mark != HOME_FOLDER_WITH_CHANGES)
		return draw_change_role(entry->mark);
	if (entry->kind == HEARTH_DIR)
		return THEME_DIRECTORY;
	if (entry->kind == HEARTH_SYMLINK)
		return THEME_SYMLINK;
	return THEME_NORMAL;
}

/* " → new/path" on the row a moved path left, " ← old/path" on the row it
 * came to; NULL for any other row. The caller frees it. */
static char *
move_note(const struct home_pane *pane, const struct list_item *item, bool unicode)
{
	const struct home_entry *entry = item->data;

	if (entry->mark != (char)HEARTH_MOVED)
		return NULL;
	char *path = item_path(item);
	size_t at = change_lower_bound(pane, path);
	char *note = NULL;
	for (; at < pane->change_count && strcmp(pane->changes[at].path, path) == 0; at++) {
		const struct home_change *change = &pane->changes[at];
		if (change->kind != (char)HEARTH_MOVED || change->moved_with == NULL)
			continue;
		const char *arrow = change->moved_away ? (unicode ? "\u2192" : "->") :
		    (unicode ? "\u2190" : "<-");
		note = memory_printf(" %s %s", arrow, change->moved_with);
		break;
	}
	free(path);
	return note;
}

static void
home_draw_row(void *context, const struct list_item *item, int y, int x, int width,
    bool selected)
{
	struct view *view = context;
	const struct home_entry *entry = item->data;
	struct home_columns columns = layout(view->private, width);
	bool unicode = draw_unicode();
	char size[16] = "", time[32] = "", mark[3] = { ' ', entry->mark, '\0' };

	draw_fill(y, x, width, view_role(selected, THEME_NORMAL));
	if (item->marked)
		draw_text(y, x, 1, view_role(selected, THEME_MARKED), unicode ? "\u25cf" : "*", 0);
	int indent = 2 * (int)item->depth;
	const char *fold = !item->expandable ? "  " : item->expanded ?
	    (unicode ? "\u25be " : "- ") : (unicode ? "\u25b8 " : "+ ");
	int column = x + 2;
	if (indent < columns.name - 4) {
		column += indent;
		column += draw_text(y, column, 2, view_role(selected, THEME_DIM), fold, 0);
	}
	char *name = entry->kind == HEARTH_DIR ? memory_printf("%s/", entry->name) :
	    memory_strdup(entry->name);
	int name_end = x + 2 + columns.name;
	column += draw_text(y, column, name_end - column,
	    view_role(selected, item->marked ? THEME_MARKED : name_role(entry)), name, 0);
	free(name);
	char *note = move_note(view->private, item, unicode);
	if (note != NULL && column < name_end)
		draw_text(y, column, name_end - column, view_role(selected, THEME_DIM), note, 0);
	free(note);
	if (entry->kind != HEARTH_DIR && entry->stamped)
		draw_format_size(entry->size, size, sizeof size);
	if (entry->stamped)
		draw_format_time(entry->mtime_ns / 1000000000, time, sizeof time);
	draw_columns(y, x + 2, &columns, view_role(selected, THEME_DIM), entry->root, size, time,
	    mark, view_role(selected, draw_change_role(entry->mark)));
}

static void
home_draw_note(struct view *view, int y, int height, int width)
{
	if (view->list->row_count > 0)
		return;
	draw_text(y + 1, 2, width - 4, THEME_DIM, view->list->filter ?
	    "No name in the Home contains the filter (f, then an empty text, shows all)." :
	    "The Home is empty: files put in it show here.", 0);
}

/* ---- record ------------------------------------------------------------------- */

static int
record_run(hearth *home, void *context, const struct hearth_progress *progress,
    struct hearth_error *error)
{
	struct record_job *job = context;
	struct hearth_record_options options = {
		.message = job->message,
		.paths = (const char *const *)job->paths,
		.path_count = job->path_count,
		.allow_deletes = job->allow_deletes,
	};

	return hearth_record(home, &options, progress, &job->result, error);
}

static void
record_free(void *context)
{
	struct record_job *job = context;

	for (size_t i = 0; i < job->path_count; i++)
		free(job->paths[i]);
	free(job->paths);
	free(job->message);
	hearth_record_result_free(&job->result);
	free(job);
}

static void submit_record(struct view *view, struct record_job *job);

static void
confirm_deletes(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct home_pane *pane = view->private;
	struct record_job *job = pane->pending;

	(void)text;
	pane->pending = NULL;
	if (job == NULL)
		return;
	if (!accepted) {
		app_message(view->app, "Record not done; nothing was recorded");
		record_free(job);
		return;
	}
	job->allow_deletes = true;
	submit_record(view, job);
}

char *
view_guard_question(struct view *view, const struct hearth_delete_guard *guard, const char *ask)
{
	const struct config *config = hearth_config(app_home(view->app));
	char *where = config->root_count == 1 ? memory_strdup(guard->root_path) :
	    memory_printf("root '%s' (%s)", guard->root, guard->root_path);
	char *why = guard->every_file ? memory_strdup("every file") :
	    memory_printf("more than max_delete, %u%%", guard->max_delete_percent);
	char *question = memory_printf("%s would delete %llu of the %llu files in %s (%s)%s.\n\n%s",
	    guard->recording ? "This record" : "This checkout",
	    (unsigned long long)guard->deleting, (unsigned long long)guard->files, where, why,
	    guard->recording ? ": each replica's next checkout removes them" : "", ask);

	free(why);
	free(where);
	return question;
}

/* The guard on emptying stopped it: ask, keeping the job for a yes. */
static void
ask_deletes(struct view *view, struct record_job *job)
{
	struct home_pane *pane = view->private;
	char *question = view_guard_question(view, &job->result.guard, "Record these deletes anyway?");

	if (pane->pending != NULL)
		record_free(pane->pending);
	pane->pending = job;
	hearth_record_result_free(&job->result);
	memset(&job->result, 0, sizeof job->result);
	dialog_confirm(app_dialog(view->app), "Delete many files?", question, confirm_deletes, view);
	free(question);
}

static void
record_done(void *context, int code, const struct hearth_error *error)
{
	struct record_job *job = context;
	struct view *view = job->view;

	if (code == HEARTH_REFUSED && job->result.guard.refused) {
		ask_deletes(view, job);
		return;
	}
	if (code == HEARTH_OK && job->result.version[0] == '\0') {
		app_message(view->app, "Nothing to record: no changes%s", job->path_count ?
		    " under the marked paths" : "");
	} else if (code == HEARTH_OK) {
		app_message(view->app, "Recorded %s: %zu path%s, %llu file%s stored",
		    job->result.short_id, job->result.changes.count,
		    job->result.changes.count == 1 ? "" : "s",
		    (unsigned long long)job->result.files_stored,
		    job->result.files_stored == 1 ? "" : "s");
		if (job->marks)
			list_clear_marks(view->list);
		app_home_changed(view->app);
	} else if (code == HEARTH_CANCELLED) {
		app_message(view->app, "Record cancelled; nothing was recorded");
	} else {
		app_error(view->app, "Record failed", error);
	}
	record_free(job);
}

static void show_record_dialog(struct view *view);
static void submit_with_message(struct view *view, const char *text);

/* An empty message was typed: y records without one, n goes back to it. */
static void
confirm_empty_message(void *context, bool accepted, const char *text)
{
	struct view *view = context;

	(void)text;
	if (accepted)
		submit_with_message(view, "");
	else
		show_record_dialog(view);
}

static void
record_message_done(void *context, bool accepted, const char *text)
{
	struct view *view = context;

	if (!accepted) {
		forget_recording(view->private);
		app_message(view->app, "Record cancelled");
		return;
	}
	if (text == NULL || text[strspn(text, " \t")] == '\0') {
		dialog_confirm(app_dialog(view->app), "Record", "The message is empty: record without "
		    "one? (n goes back to it)", confirm_empty_message, view);
		return;
	}
	submit_with_message(view, text);
}

static void
submit_with_message(struct view *view, const char *text)
{
	struct home_pane *pane = view->private;
	struct record_job *job = memory_alloc(1, sizeof *job);

	job->view = view;
	job->message = memory_strdup(text);
	job->paths = pane->recording;
	job->path_count = pane->recording_count;
	job->marks = pane->recording_marks;
	pane->recording = NULL;
	pane->recording_count = 0;
	submit_record(view, job);
}

static void
submit_record(struct view *view, struct record_job *job)
{
	struct worker_job work = {
		.title = "recording",
		.run = record_run,
		.done = record_done,
		.discard = record_free,
		.context = job,
		.changes_home = true,
	};
	app_submit(view->app, &work);
}

static void
forget_recording(struct home_pane *pane)
{
	for (size_t i = 0; i < pane->recording_count; i++)
		free(pane->recording[i]);
	free(pane->recording);
	pane->recording = NULL;
	pane->recording_count = 0;
}

static void
show_record_dialog(struct view *view)
{
	struct home_pane *pane = view->private;
	const struct hearth_status_report *status = app_status(view->app);
	size_t count = pane->recording_count;
	char *prompt;

	if (count == 0 && status != NULL)
		prompt = memory_printf("Record every change (%zu path%s) as a new version.\nMessage:",
		    status->changes.count, status->changes.count == 1 ? "" : "s");
	else if (count == 0)
		prompt = memory_strdup("Record every change as a new version.\nMessage:");
	else
		prompt = memory_printf("Record the %zu marked path%s (%s%s) as a new version.\nMessage:",
		    count, count == 1 ? "" : "s", pane->recording[0], count > 1 ? ", ..." : "");
	dialog_input(app_dialog(view->app), "Record", prompt, "", record_message_done, NULL, view);
	free(prompt);
}

/* Asks for the message of a record of paths (taken; none: every change). */
static void
start_record(struct view *view, char **paths, size_t count, bool marks)
{
	struct home_pane *pane = view->private;

	forget_recording(pane);
	pane->recording = paths;
	pane->recording_count = count;
	pane->recording_marks = marks;
	show_record_dialog(view);
}

static void
ask_record(struct view *view)
{
	struct path_set marked = { 0 };

	list_for_each_marked(view->list, collect_marked, &marked);
	start_record(view, marked.paths, marked.count, true);
}

void
view_home_record(struct view *home, char **paths, size_t count)
{
	char **copy = memory_alloc(count + 1, sizeof *copy);

	for (size_t i = 0; i < count; i++)
		copy[i] = memory_strdup(paths[i]);
	start_record(home, copy, count, false);
}

/* ---- filter -------------------------------------------------------------------- */

/* Loads the folders on the way to path and the pages of each up to the
 * name wanted, opening none: the list's filter then sees the name, and
 * shows the folders that lead to it. */
static void
load_path(struct view *view, const char *path)
{
	struct list_item *parent = &view->list->root;
	const char *cursor = path;

	for (;;) {
		size_t length = strcspn(cursor, "/");
		char *name = memory_strndup(cursor, length);
		if (!parent->loaded)
			load_page(view, parent);
		struct list_item *child;
		while ((child = find_child(parent, name)) == NULL && parent->more)
			load_page(view, parent);
		free(name);
		if (child == NULL || cursor[length] == '\0' || !child->expandable)
			return;
		parent = child;
		cursor += length + 1;
	}
}

/* Whether the last name of path holds text, as the list's filter asks. */
static bool
last_name_matches(const char *path, const char *text)
{
	const char *slash = strrchr(path, '/');
	struct home_entry entry = { .name = (char *)(slash ? slash + 1 : path) };

	return entry_matches(&entry, text);
}

/* A filter looks over the whole Home, not only the folders opened: the
 * index's names (hearth_find_names) and the status's new paths. */
static void
reveal_matches(struct view *view, const char *text)
{
	struct home_pane *pane = view->private;
	struct hearth_path_list found;
	struct hearth_error error;

	if (text == NULL || text[0] == '\0')
		return;
	if (hearth_find_names(app_home(view->app), text, HOME_FILTER_LIMIT, &found,
		&error) != HEARTH_OK) {
		app_error(view->app, "Cannot search the Home", &error);
		return;
	}
	for (size_t i = 0; i < found.count; i++)
		load_path(view, found.items[i]);
	hearth_path_list_free(&found);
	for (size_t i = 0; i < pane->change_count; i++)
		if (pane->changes[i].kind != HEARTH_DELETED &&
		    last_name_matches(pane->changes[i].path, text))
			load_path(view, pane->changes[i].path);
}

static void
filter_changed(void *context, const char *text)
{
	struct view *view = context;

	reveal_matches(view, text);
	list_set_filter(view->list, text);
}

static void
filter_done(void *context, bool accepted, const char *text)
{
	struct view *view = context;
	struct home_pane *pane = view->private;

	const char *filter = accepted ? text : pane->filter_before;
	reveal_matches(view, filter);
	list_set_filter(view->list, filter);
	free(pane->filter_before);
	pane->filter_before = NULL;
}

static void
ask_filter(struct view *view)
{
	struct home_pane *pane = view->private;

	free(pane->filter_before);
	pane->filter_before = view->list->filter ? memory_strdup(view->list->filter) : NULL;
	dialog_input(app_dialog(view->app), "Filter", "Show names containing:",
	    view->list->filter, filter_done, filter_changed, view);
}

/* ---- keys ---------------------------------------------------------------------- */

/* Enter on a file: its diff in the Changes pane when it changed. */
static void
open_diff(struct view *view, struct list_item *item)
{
	const struct home_entry *entry = item->data;
	char *path = item_path(item);

	if (entry->mark == ' ' || entry->mark == HOME_FOLDER_WITH_CHANGES)
		app_message(view->app, "%s has not changed since the version the tree is at", path);
	else
		view_changes_show(view->app, path);
	free(path);
}

static bool
home_handle(struct view *view, enum action action)
{
	struct list_item *item = list_selected(view->list);

	switch (action) {
	case ACTION_EXPAND:
		if (item != NULL && !item->expandable) {
			open_diff(view, item);
			return true;
		}
		if (item != NULL && item->expandable && item->expanded)
			list_set_expanded(view->list, item, false);
		else if (item != NULL && item->expandable)
			expand(view, item);
		return true;
	case ACTION_EXPAND_RIGHT:
		if (item != NULL && item->expandable)
			expand(view, item);
		return true;
	case ACTION_COLLAPSE:
		if (item != NULL && item->expanded)
			list_set_expanded(view->list, item, false);
		else if (item != NULL && item->parent != &view->list->root)
			list_select(view->list, item->parent);
		return true;
	case ACTION_MARK:
		list_toggle_mark(view->list, item);
		list_move(view->list, 1);
		return true;
	case ACTION_UNMARK_ALL:
		list_clear_marks(view->list);
		return true;
	case ACTION_RECORD:
		ask_record(view);
		return true;
	case ACTION_FILTER:
		ask_filter(view);
		return true;
	case ACTION_FILE_HISTORY:
		if (item != NULL) {
			char *path = item_path(item);
			view_file_log_show(view->app, path);
			free(path);
		}
		return true;
	default:
		return false;
	}
}

const struct view_ops view_home_ops = {
	.name = "Home",
	.scope = SCOPE_HOME,
	.open = home_open,
	.close = home_close,
	.build = home_build,
	.load_more = home_load_more,
	.draw_header = home_draw_header,
	.draw_row = home_draw_row,
	.draw_note = home_draw_note,
	.handle = home_handle,
	.status_changed = home_status_changed,
};
