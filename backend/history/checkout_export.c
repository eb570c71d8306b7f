/* export: a version's tree written into a new or empty folder outside the
 * Home, by the same path writing as checkout (checkout_write.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/history/checkout_parts.h"
#include "backend/io/io.h"
#include "model/array.h"

static int
export_folder(struct tree *tree, struct tree_node *node, int dir_fd, struct hearth_error *error)
{
	const char *path = tree_path(tree, node);
	struct checkout_parent parent;

	if (checkout_open_parent(dir_fd, path, &parent) != 0)
		return checkout_unreachable(error, "make", path);
	int status = io_mkdir(parent.folder, parent.name, 0755);
	int saved = errno;
	close(parent.folder);
	errno = saved;
	return status == 0 ? 0 : hearth_fail_errno(error, "cannot make %s", path);
}

/* Folders first, shallowest first, so each has its parent; then files and
 * links in pack order, carrying no node id. */
static int
export_nodes(struct hearth *home, struct tree *tree, int dir_fd,
    const struct hearth_progress *progress, struct hearth_error *error)
{
	struct tree_node **folders = array_alloc(tree->count + 1, sizeof *folders);
	struct checkout_placed *files = array_alloc(tree->count + 1, sizeof *files);
	size_t folder_count = 0, file_count = 0;
	struct checkout_folder_cache cache;
	int status = 0;

	checkout_folder_cache_init(&cache);
	for (size_t i = 0; status == 0 && i < tree->count; i++) {
		struct tree_node *node = &tree->nodes[i];
		tree_path(tree, node);
		if (node->kind == NODE_DIR)
			folders[folder_count++] = node;
		else
			files[file_count++] = (struct checkout_placed){ .node = node };
	}
	if (status == 0) {
		qsort(folders, folder_count, sizeof *folders, checkout_compare_nodes_by_depth);
		checkout_place_and_sort(home, files, file_count);
	}
	uint64_t bytes = 0;
	for (size_t i = 0; i < file_count; i++)
		bytes += files[i].node->size;
	struct meter meter;
	meter_init(&meter, progress);
	meter_phase(&meter, "exporting", tree->count, bytes);
	struct checkout_write_how how = { .folders = &cache, .meter = &meter,
		.writeback = config_durability_rules(home->config->durability).sync_folders };
	checkout_process_umask(&how);
	for (size_t i = 0; status == 0 && i < folder_count + file_count; i++) {
		bool folder = i < folder_count;
		struct tree_node *node = folder ? folders[i] : files[i - folder_count].node;
		how.place = folder ? NULL : &files[i - folder_count].place;
		status = meter_cancelled(&meter) ? HEARTH_CANCELLED
		    : folder ? export_folder(tree, node, dir_fd, error)
		    : checkout_write_content(home, dir_fd, node->path, node, &how, error);
		if (status == HEARTH_CANCELLED)
			status = hearth_fail(error, HEARTH_CANCELLED, "export cancelled");
		meter_add(&meter, 1, 0, node->path);
	}
	checkout_folder_cache_close(&cache);
	meter_flush(&meter);
	free(folders);
	free(files);
	return status;
}

static bool
path_inside(const char *path, const char *folder)
{
	size_t length = strlen(folder);
	return strncmp(path, folder, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

/* hearth_export once dir is made and open. */
static int
export_into(hearth *home, const char *version, const char *dir, int dir_fd,
    const struct hearth_progress *progress, struct hearth_error *error)
{
	struct vv vv;
	char id_hex[HASH_HEX], absolute[4096];
	struct tree tree;
	int status;

	DIR *listing = fdopendir(dup(dir_fd));
	struct dirent *dirent;
	bool empty = true;
	while (listing != NULL && (dirent = readdir(listing)) != NULL)
		if (strcmp(dirent->d_name, ".") != 0 && strcmp(dirent->d_name, "..") != 0)
			empty = false;
	if (listing != NULL)
		closedir(listing);
	if (!empty)
		return hearth_fail(error, HEARTH_USAGE, "%s is not empty; export writes only into an "
		    "empty or new folder", dir);
	if (realpath(dir, absolute) != NULL) {
		for (size_t i = 0; i < home->root_count; i++)
			if (path_inside(absolute, home->roots[i].path))
				return hearth_fail(error, HEARTH_USAGE,
				    "%s is inside the Home; export writes outside it", dir);
	}
	/* One read snapshot for the tree and every file's chunk lookups:
	 * outside a transaction each lookup takes and drops SQLite's lock. */
	store_begin_read(&home->store);
	vv_init(&vv);
	status = checkout_target(home, version, &vv, id_hex, error);
	if (status == 0)
		status = tree_load(home, &vv, &tree, error);
	vv_free(&vv);
	if (status == 0) {
		status = export_nodes(home, &tree, dir_fd, progress, error);
		tree_free(&tree);
	}
	store_end_read(&home->store);
	if (status == 0 && config_durability_rules(home->config->durability).sync_folders &&
	    io_syncfs(dir_fd) != 0)
		status = hearth_fail_errno(error, "cannot flush %s", dir);
	return status;
}

int
hearth_export(hearth *home, const char *version, const char *dir,
    const struct hearth_progress *progress, struct hearth_error *error)
{
	hearth_error_clear(error);
	bool made = io_mkdir(AT_FDCWD, dir, 0755) == 0;
	if (!made && errno != EEXIST)
		return hearth_fail_errno(error, "cannot make %s", dir);
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return hearth_fail_errno(error, "cannot open %s", dir);
	int status = export_into(home, version, dir, dir_fd, progress, error);
	close(dir_fd);
	/* A folder this export made and wrote nothing into goes again: a
	 * refused export (a version that does not resolve, a damaged op, a
	 * folder inside the Home) leaves no trace. */
	if (status != 0 && made)
		(void)io_rmdir(AT_FDCWD, dir);
	return status;
}
