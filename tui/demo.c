/* Builds the demo Home (see demo.h): names in UTF-8 and one invalid byte,
 * six versions that add, modify, move and delete; a second replica (the
 * "laptop") that edits, moves and names things at once with the Home, so
 * the sync between them leaves a content, a move and a name conflict; then
 * a few changes left unrecorded so the Home view has marks to show. */
#include "tui/demo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
fail(struct hearth_error *error, const char *format, ...)
{
	va_list args;

	error->code = HEARTH_FAILED;
	va_start(args, format);
	vsnprintf(error->message, sizeof error->message, format, args);
	va_end(args);
	return HEARTH_FAILED;
}

static int
join(char *out, size_t size, const char *home, const char *name, struct hearth_error *error)
{
	int length = snprintf(out, size, "%s/%s", home, name);

	if (length < 0 || (size_t)length >= size)
		return fail(error, "path too long: %s/%s", home, name);
	return HEARTH_OK;
}

/* mkdir -p for the folders above path's last component. */
static int
make_parents(const char *path, struct hearth_error *error)
{
	char copy[4096];

	snprintf(copy, sizeof copy, "%s", path);
	for (char *slash = strchr(copy + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST)
			return fail(error, "cannot make %s: %s", copy, strerror(errno));
		*slash = '/';
	}
	return HEARTH_OK;
}

static int
write_file(const char *home, const char *name, const void *bytes, size_t length,
    struct hearth_error *error)
{
	char path[4096];

	if (join(path, sizeof path, home, name, error) || make_parents(path, error))
		return error->code;
	FILE *file = fopen(path, "wb");
	if (file == NULL)
		return fail(error, "cannot write %s: %s", path, strerror(errno));
	size_t written = fwrite(bytes, 1, length, file);
	if (fclose(file) != 0 || written != length)
		return fail(error, "cannot write %s", path);
	return HEARTH_OK;
}

static int
write_text(const char *home, const char *name, const char *text, struct hearth_error *error)
{
	return write_file(home, name, text, strlen(text), error);
}

static int
move_file(const char *home, const char *from, const char *to, struct hearth_error *error)
{
	char old_path[4096], new_path[4096];

	if (join(old_path, sizeof old_path, home, from, error) ||
	    join(new_path, sizeof new_path, home, to, error) || make_parents(new_path, error))
		return error->code;
	if (rename(old_path, new_path) != 0)
		return fail(error, "cannot move %s: %s", old_path, strerror(errno));
	return HEARTH_OK;
}

static int
remove_file(const char *home, const char *name, struct hearth_error *error)
{
	char path[4096];

	if (join(path, sizeof path, home, name, error))
		return error->code;
	if (unlink(path) != 0)
		return fail(error, "cannot remove %s: %s", path, strerror(errno));
	return HEARTH_OK;
}

static int
record(hearth *home, const char *message, struct hearth_error *error)
{
	struct hearth_record_options options = { .message = message, .allow_deletes = true };
	struct hearth_record_result result;

	int code = hearth_record(home, &options, NULL, &result, error);
	if (code == HEARTH_OK)
		hearth_record_result_free(&result);
	return code;
}

static int
first_version(const char *dir, struct hearth_error *error)
{
	static const unsigned char photo[] = { 0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F', 'I', 'F',
		0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9 };

	if (write_text(dir, ".bashrc", "export EDITOR=vi\nalias ll='ls -l'\n", error) ||
	    write_text(dir, "notes/todo.txt", "- water the plants\n- call the bank\n", error) ||
	    write_text(dir, "notes/ideas.md", "# Ideas\n\n* a tool that versions my Home\n", error) ||
	    write_text(dir, "projects/hearth/README.md", "hearth keeps my Home's history.\n",
	    error) ||
	    write_text(dir, "Documents/caf\xc3\xa9 menu.txt", "cr\xc3\xaape 4.50\n", error) ||
	    write_text(dir, "Documents/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt",
	    "\xe3\x81\x93\xe3\x82\x93\xe3\x81\xab\xe3\x81\xa1\xe3\x81\xaf\n", error) ||
	    write_text(dir, "Documents/odd-\xff-name.txt", "a name that is not UTF-8\n", error))
		return error->code;
	return write_file(dir, "photos/cat.jpg", photo, sizeof photo, error);
}

static int
later_versions(hearth *home, const char *dir, struct hearth_error *error)
{
	if (record(home, "Start keeping my Home", error) ||
	    write_text(dir, "notes/todo.txt", "- water the plants\n- call the bank\n"
	    "- book the train\n", error) ||
	    write_text(dir, "notes/week.md", "Mon: gym\nTue: piano\n", error) ||
	    record(home, "Plan the week\n\nA longer message: the todo list grows by one.", error) ||
	    move_file(dir, "notes/ideas.md", "projects/ideas.md", error) ||
	    remove_file(dir, "notes/week.md", error) ||
	    record(home, "Tidy up notes", error))
		return error->code;
	for (int i = 1; i <= 40; i++) {
		char name[64], text[64];
		snprintf(name, sizeof name, "photos/2026/img-%03d.txt", i);
		snprintf(text, sizeof text, "picture %d\n", i);
		if (write_text(dir, name, text, error))
			return error->code;
	}
	if (record(home, "Add this year's photos", error) ||
	    write_text(dir, ".bashrc", "export EDITOR=vim\nalias ll='ls -l'\n", error) ||
	    record(home, "Switch to vim", error))
		return error->code;
	return HEARTH_OK;
}

/* The same three things done two ways, one on each replica. */
static int
concurrent_changes(hearth *home, const char *dir, const char *label, const char *todo,
    const char *ideas_to, const char *plan, struct hearth_error *error)
{
	char message[128];

	snprintf(message, sizeof message, "%s: the todo list, the ideas and a plan", label);
	if (write_text(dir, "notes/todo.txt", todo, error) ||
	    move_file(dir, "projects/ideas.md", ideas_to, error) ||
	    write_text(dir, "Documents/plan.txt", plan, error))
		return error->code;
	return record(home, message, error);
}

static int
laptop_replica(const char *laptop_dir, const char *home_dir, struct hearth_error *error)
{
	struct hearth_clone_options clone = { .source = home_dir, .dir = laptop_dir };
	struct hearth_clone_result cloned;
	hearth *laptop;

	if (hearth_clone(&clone, NULL, &cloned, error) != HEARTH_OK)
		return error->code;
	struct hearth_open_options here = { .start_dir = laptop_dir };
	if (hearth_open(&laptop, &here, error) != HEARTH_OK)
		return error->code;
	int code = concurrent_changes(laptop, laptop_dir, "On the laptop",
	    "- water the plants\n- call the bank\n- book the train\n- pack for the trip\n",
	    "notes/ideas.md", "Trip: train at 9, hotel by the lake\n", error);
	hearth_close(laptop);
	return code;
}

/* The Home meets the laptop: both sides' changes arrive, the tree is
 * brought to head, and three conflicts wait in the Conflicts view. */
static int
sync_with_laptop(hearth *home, const char *dir, const char *laptop_dir,
    struct hearth_error *error)
{
	struct hearth_sync_options sync = { .peer = laptop_dir };
	struct hearth_sync_result synced;
	struct hearth_checkout_options checkout = { .allow_deletes = true };
	struct hearth_checkout_result checked_out;

	if (concurrent_changes(home, dir, "At home",
	    "- water the plants\n- call the bank\n- book the train\n- renew the passport\n",
	    "Documents/ideas.md", "Garden: plant the tulips in October\n", error) ||
	    hearth_sync(home, &sync, NULL, &synced, error))
		return error->code;
	if (hearth_checkout(home, &checkout, NULL, &checked_out, error) != HEARTH_OK)
		return error->code;
	hearth_checkout_result_free(&checked_out);
	return HEARTH_OK;
}

/* Left unrecorded, for the Home view's marks. */
static int
unrecorded_changes(const char *dir, struct hearth_error *error)
{
	if (write_text(dir, ".bashrc", "export EDITOR=vim\nalias ll='ls -la'\n", error) ||
	    write_text(dir, "notes/draft.txt", "an unrecorded draft\n", error))
		return error->code;
	return HEARTH_OK;
}

int
demo_build(char *home_dir, size_t size, struct hearth_error *error)
{
	const char *temporary = getenv("TMPDIR");
	char dir[4096];
	struct hearth_location location;

	memset(error, 0, sizeof *error);
	snprintf(dir, sizeof dir, "%s/hearth-demo-%lu/home",
	    temporary && temporary[0] ? temporary : "/tmp", (unsigned long)getuid());
	snprintf(home_dir, size, "%s", dir);
	struct hearth_open_options here = { .start_dir = dir };
	if (hearth_locate(&here, &location, error) == HEARTH_OK &&
	    strcmp(location.found_by, "marker") == 0)
		return HEARTH_OK;
	memset(error, 0, sizeof *error);
	char probe[4200];
	snprintf(probe, sizeof probe, "%s/.", dir);
	if (make_parents(probe, error) != HEARTH_OK || first_version(dir, error) != HEARTH_OK)
		return error->code;
	struct hearth_init_options init = { .dir = dir };
	if (hearth_init(&init, error) != HEARTH_OK)
		return error->code;
	hearth *home;
	if (hearth_open(&home, &here, error) != HEARTH_OK)
		return error->code;
	char laptop_dir[4200];
	snprintf(laptop_dir, sizeof laptop_dir, "%.*s/laptop", (int)(strrchr(dir, '/') - dir), dir);
	int code = later_versions(home, dir, error);
	if (code == HEARTH_OK)
		code = laptop_replica(laptop_dir, dir, error);
	if (code == HEARTH_OK)
		code = sync_with_laptop(home, dir, laptop_dir, error);
	if (code == HEARTH_OK)
		code = unrecorded_changes(dir, error);
	hearth_close(home);
	return code;
}
