/* The clone's prefill (prefill.h): a list of blobs and the state of each
 * one's file in the first root's staging folder, looked up by blob id
 * once the sync is over. */
#include "backend/disk/prefill.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/disk/scan.h"
#include "backend/io/io.h"
#include "backend/store/hash.h"
#include "model/array.h"

/* Files are open one at a time (the receiving side closes each at its
 * last byte); this bounds the names waiting in staging and the list. */
#define PREFILL_FILES_MAX 4096

enum prefill_state {
	PREFILL_WRITING,
	PREFILL_READY,
	PREFILL_GONE,		/* taken, or removed */
};

struct prefill_file {
	struct hash blob;
	enum prefill_state state;
};

struct prefill {
	int staging;
	struct prefill_file *files;
	size_t count, capacity;
	bool sorted;
	uint64_t taken;
};

struct prefill *
prefill_new(struct hearth *home)
{
	const char *path = HOME_DIR_NAME "/" HOME_STAGING_NAME;

	if (home->root_count == 0 || (io_mkdir(home->roots[0].fd, path, 0700) != 0 &&
					     errno != EEXIST))
		return NULL;
	int staging = scan_open_folder(home->roots[0].fd, path);
	if (staging < 0)
		return NULL;
	/* What a clone killed before its checkout left (the clone runs again
	 * on the same folder). */
	int listing = dup(staging);
	DIR *dir = listing >= 0 ? fdopendir(listing) : NULL;
	struct dirent *dirent;
	while (dir != NULL && (dirent = readdir(dir)) != NULL)
		if (prefill_is_name(dirent->d_name))
			io_unlink(staging, dirent->d_name);
	if (dir != NULL)
		closedir(dir);
	else if (listing >= 0)
		close(listing);
	struct prefill *prefill = array_zeroed(1, sizeof *prefill);
	prefill->staging = staging;
	return prefill;
}

static void
prefill_name(const struct hash *blob, char name[HASH_HEX + sizeof PREFILL_SUFFIX])
{
	char hex[HASH_HEX];
	hash_hex(blob, hex);
	snprintf(name, HASH_HEX + sizeof PREFILL_SUFFIX, "%s%s", hex, PREFILL_SUFFIX);
}

static int
compare_files(const void *a, const void *b)
{
	const struct prefill_file *x = a, *y = b;
	return memcmp(x->blob.bytes, y->blob.bytes, HASH_BYTES);
}

/* The blob's entry, in a list sorted at the first look once the writing
 * is over; before that (a finish) the last entry added is the one. */
static struct prefill_file *
prefill_find(struct prefill *prefill, const struct hash *blob)
{
	if (!prefill->sorted) {
		for (size_t i = prefill->count; i-- > 0;)
			if (hash_equal(&prefill->files[i].blob, blob))
				return &prefill->files[i];
		return NULL;
	}
	struct prefill_file key = { .blob = *blob };
	return bsearch(&key, prefill->files, prefill->count, sizeof key, compare_files);
}

int
prefill_start(struct prefill *prefill, const struct hash *blob)
{
	char name[HASH_HEX + sizeof PREFILL_SUFFIX];

	if (prefill->sorted || prefill->count >= PREFILL_FILES_MAX ||
	    prefill_find(prefill, blob) != NULL)
		return -1;
	prefill_name(blob, name);
	int fd = io_open(prefill->staging, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	prefill->files = array_grow(prefill->files, &prefill->capacity, prefill->count + 1,
	    sizeof *prefill->files);
	prefill->files[prefill->count++] = (struct prefill_file){ .blob = *blob,
		.state = PREFILL_WRITING };
	return fd;
}

static void
prefill_remove(struct prefill *prefill, struct prefill_file *file)
{
	char name[HASH_HEX + sizeof PREFILL_SUFFIX];

	prefill_name(&file->blob, name);
	io_unlink(prefill->staging, name);
	file->state = PREFILL_GONE;
}

void
prefill_finish(struct prefill *prefill, const struct hash *blob, bool whole)
{
	struct prefill_file *file = prefill_find(prefill, blob);

	if (file == NULL || file->state != PREFILL_WRITING)
		return;
	if (whole)
		file->state = PREFILL_READY;
	else
		prefill_remove(prefill, file);
}

bool
prefill_take(struct prefill *prefill, const struct hash *blob, uint64_t size, int folder,
    const char *name)
{
	char staged[HASH_HEX + sizeof PREFILL_SUFFIX];
	struct stat held;

	if (prefill->count == 0)
		return false;
	if (!prefill->sorted) {
		array_sort(prefill->files, prefill->count, sizeof *prefill->files, compare_files);
		prefill->sorted = true;
	}
	struct prefill_file *file = prefill_find(prefill, blob);
	if (file == NULL || file->state != PREFILL_READY)
		return false;
	prefill_name(blob, staged);
	/* Its size says no one cut it short since it was checked. */
	if (fstatat(prefill->staging, staged, &held, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(held.st_mode) || (uint64_t)held.st_size != size)
		return false;
	if (io_rename_noreplace(prefill->staging, staged, folder, name) != 0)
		return false;
	file->state = PREFILL_GONE;
	prefill->taken++;
	return true;
}

uint64_t
prefill_taken(const struct prefill *prefill)
{
	return prefill != NULL ? prefill->taken : 0;
}

bool
prefill_is_name(const char *name)
{
	size_t length = strlen(name), suffix = strlen(PREFILL_SUFFIX);
	return length > suffix && strcmp(name + length - suffix, PREFILL_SUFFIX) == 0;
}

void
prefill_free(struct prefill *prefill)
{
	if (prefill == NULL)
		return;
	for (size_t i = 0; i < prefill->count; i++)
		if (prefill->files[i].state != PREFILL_GONE)
			prefill_remove(prefill, &prefill->files[i]);
	close(prefill->staging);
	free(prefill->files);
	free(prefill);
}
