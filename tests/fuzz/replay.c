/* A main for the fuzz targets without libFuzzer: runs each file named, or
 * every file in each folder named, through LLVMFuzzerTestOneInput once.
 * `make all` links each target with it, so every seed and every saved
 * crash of tests/fuzz/corpus is a regression test of `make check` (under
 * ASan and UBSan in its second pass), on any compiler. */
#include <dirent.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static bool
replay_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, capacity = 0;

	if (file == NULL) {
		perror(path);
		return false;
	}
	for (;;) {
		if (size == capacity) {
			capacity = capacity ? capacity * 2 : 65536;
			uint8_t *grown = realloc(data, capacity);
			fuzz_check(grown != NULL, "memory");
			data = grown;
		}
		size_t got = fread(data + size, 1, capacity - size, file);
		if (got == 0)
			break;
		size += got;
	}
	bool read_error = ferror(file) != 0;
	fclose(file);
	if (read_error) {
		perror(path);
		free(data);
		return false;
	}
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return true;
}

static int
replay_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a folder, in name order, so runs repeat. */
static bool
replay_folder(const char *folder, size_t *count)
{
	DIR *dir = opendir(folder);
	char **names = NULL;
	size_t name_count = 0, capacity = 0;
	struct dirent *dirent;
	bool good = true;

	if (dir == NULL) {
		perror(folder);
		return false;
	}
	while ((dirent = readdir(dir)) != NULL) {
		if (dirent->d_name[0] == '.')
			continue;
		if (name_count == capacity) {
			capacity = capacity ? capacity * 2 : 64;
			char **grown = realloc(names, capacity * sizeof *names);
			fuzz_check(grown != NULL, "memory");
			names = grown;
		}
		names[name_count++] = strdup(dirent->d_name);
	}
	closedir(dir);
	if (name_count > 1)
		qsort(names, name_count, sizeof *names, replay_compare);
	for (size_t i = 0; i < name_count; i++) {
		char path[4096];
		struct stat status;
		snprintf(path, sizeof path, "%s/%s", folder, names[i]);
		if (stat(path, &status) == 0 && S_ISREG(status.st_mode)) {
			good = replay_file(path) && good;
			(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return good;
}

int
main(int argc, char **argv)
{
	size_t count = 0;
	bool good = true;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat status;
		if (stat(argv[i], &status) == 0 && S_ISDIR(status.st_mode)) {
			good = replay_folder(argv[i], &count) && good;
		} else {
			good = replay_file(argv[i]) && good;
			count++;
		}
	}
	printf("%s: replayed %zu input%s\n", argv[0], count, count == 1 ? "" : "s");
	return good ? 0 : 1;
}
