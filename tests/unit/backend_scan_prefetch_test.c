/* Listing folders, and listing them ahead of the walk on a second thread
 * (backend/disk/scan_prefetch.c): what a listing holds, which listings a
 * take finds, and which folders stay open for the walk. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/disk/scan_prefetch.h"
#include "tests/unit/tap.h"

static void
write_file(const char *path)
{
	FILE *file = fopen(path, "w");
	if (file != NULL) {
		fputs("x\n", file);
		fclose(file);
	}
}

/* The listed entry called name, or NULL. */
static const struct scan_listed *
find(const struct scan_listing *listing, const char *name)
{
	for (size_t i = 0; i < listing->count; i++)
		if (strcmp(listing->names + listing->entries[i].name, name) == 0)
			return &listing->entries[i];
	return NULL;
}

/* Two roots: one/ holds a/ (files, a folder, another Home's state, a
 * marker file), b/ and c/ (plain files), and d/e/; two/ holds a/ too. */
static void
make_roots(const char *top, char one[], char two[], size_t size)
{
	char path[4096];

	snprintf(one, size, "%s/one", top);
	snprintf(two, size, "%s/two", top);
	const char *folders[] = { "one", "one/a", "one/a/plain", "one/a/stash", "one/b", "one/c",
		"one/d", "one/d/e", "two", "two/a" };
	for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
		snprintf(path, sizeof path, "%s/%s", top, folders[i]);
		mkdir(path, 0755);
	}
	const char *files[] = { "one/a/f1", "one/a/f2", "one/a/stash/store.db", "one/a/.hearth-id",
		"one/b/g", "one/c/h", "one/d/e/i", "two/a/j" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", top, files[i]);
		write_file(path);
	}
}

static void
test_listing(const char *one)
{
	_Alignas(struct dirent64) uint8_t dirents[SCAN_DIRENT_BUFFER];
	struct scan_listing listing;
	int root = open(one, O_PATH | O_DIRECTORY | O_CLOEXEC);

	scan_listing_read(root, "a", dirents, &listing);
	ok(listing.opened && listing.fd >= 0, "a folder that opens is listed open");
	check_uint(listing.count, 5);
	const struct scan_listed *plain = find(&listing, "plain"), *stash = find(&listing, "stash");
	const struct scan_listed *file = find(&listing, "f1"), *marker = find(&listing, ".hearth-id");
	ok(plain && stash && file && marker && find(&listing, "f2"), "every name is listed");
	ok(plain && plain->error == 0 && S_ISDIR(plain->status.st_mode) && !plain->may_be_home_state,
	    "a plain folder: its lstat, and surely no Home's state");
	ok(stash && stash->may_be_home_state, "a folder holding a store.db may be a Home's state");
	ok(file && file->error == 0 && S_ISREG(file->status.st_mode) && file->status.st_size == 2,
	    "a file: its lstat");
	ok(!find(&listing, ".") && !find(&listing, ".."), ". and .. are not listed");
	scan_listing_free(&listing);
	ok(listing.fd == -1 && listing.count == 0, "freed: closed and empty");

	scan_listing_read(root, "missing", dirents, &listing);
	ok(!listing.opened && listing.open_error == ENOENT && listing.fd == -1,
	    "a missing folder: not opened, and why");
	scan_listing_free(&listing);
	close(root);
}

static void
test_ahead(const char *one, const char *two)
{
	struct home_root roots[2] = {
		{ .name = "one", .path = one, .fd = open(one, O_PATH | O_DIRECTORY | O_CLOEXEC) },
		{ .name = "two", .path = two, .fd = open(two, O_PATH | O_DIRECTORY | O_CLOEXEC) },
	};
	struct hearth home;
	struct scan_listing got[2];

	memset(&home, 0, sizeof home);
	home.roots = roots;
	home.root_count = 2;
	struct scan_prefetch *prefetch = scan_prefetch_start(&home);
	ok(prefetch != NULL, "the thread starts");
	if (prefetch == NULL)
		return;

	const char *first[] = { "a", "b", "c", "d" };
	scan_prefetch_ask(prefetch, "", first, 4);
	scan_prefetch_settle(prefetch);
	ok(scan_prefetch_take(prefetch, "a", got), "a folder listed ahead is taken");
	check_uint(got[0].count, 5);
	ok(got[0].fd >= 0, "kept open: it holds a marker and a folder that may be a Home's state");
	ok(got[1].opened && got[1].count == 1 && find(&got[1], "j"), "each root listed");
	scan_listing_free(&got[0]);
	scan_listing_free(&got[1]);

	ok(scan_prefetch_take(prefetch, "b", got), "b, the next folder");
	ok(got[0].fd == -1 && got[0].opened, "closed by the thread: nothing in it needs it");
	ok(!got[1].opened && got[1].open_error == ENOENT, "a root without it: not opened");
	scan_listing_free(&got[0]);
	scan_listing_free(&got[1]);
	/* Into b's subtree (as if b held these), which the walk then leaves
	 * for c without taking them. */
	const char *below[] = { "x", "y" };
	scan_prefetch_ask(prefetch, "b", below, 2);
	scan_prefetch_settle(prefetch);
	ok(scan_prefetch_take(prefetch, "c", got), "c, asked before b's subtree");
	scan_listing_free(&got[0]);
	scan_listing_free(&got[1]);
	ok(!scan_prefetch_take(prefetch, "b/x", got), "b's subtree was given up when c was taken");
	ok(!scan_prefetch_take(prefetch, "d/e", got), "a folder never asked for is not there");
	/* d stays untaken: stop frees it. */
	scan_prefetch_stop(prefetch);
	close(roots[0].fd);
	close(roots[1].fd);
}

int
main(void)
{
	char one[4096], two[4096];

	tap_hang_bound(60, "the prefetch thread");
	make_roots(tap_scratch_dir(), one, two, sizeof one);
	test_listing(one);
	test_ahead(one, two);
	return tap_done();
}
