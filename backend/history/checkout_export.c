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

static int
export_node(struct hearth *home, struct tree *tree, struct tree_node *node, int dir_fd,
    struct hearth_error *error)
{
	const char *path = tree_path(tree, node);

	if (node->kind == NODE_DIR) {
		struct checkout_parent parent;
		if (checkout_open_parent(dir_fd, path, &parent) != 0)
			return checkout_unreachable(error, "make", path);
		int status = io_mkdir(parent.folder, parent.name, 0755);
		int saved = errno;
		close(parent.folder);
		errno = saved;
		return status == 0 ? 0 : hearth_fail_errno(error, "cannot make %s", path);
	}
	return checkout_write_content(home, dir_fd, path, node, false, error);
}

static bool
path_inside(const char *path, const char *folder)
{
	size_t length = strlen(folder);
	return strncmp(path, folder, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

int
hearth_export(hearth *home, const char *version, const char *dir,
    const struct hearth_progress *progress, struct hearth_error *error)
{
	struct vv vv;
	char id_hex[HASH_HEX], absolute[4096];
	struct tree tree;
	int status;

	hearth_error_clear(error);
	if (io_mkdir(AT_FDCWD, dir, 0755) != 0 && errno != EEXIST)
		return hearth_fail_errno(error, "cannot make %s", dir);
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return hearth_fail_errno(error, "cannot open %s", dir);
	DIR *listing = fdopendir(dup(dir_fd));
	struct dirent *dirent;
	bool empty = true;
	while (listing != NULL && (dirent = readdir(listing)) != NULL)
		if (strcmp(dirent->d_name, ".") != 0 && strcmp(dirent->d_name, "..") != 0)
			empty = false;
	if (listing != NULL)
		closedir(listing);
	if (!empty) {
		close(dir_fd);
		return hearth_fail(error, HEARTH_USAGE, "%s is not empty; export writes only into an "
		    "empty or new folder", dir);
	}
	if (realpath(dir, absolute) != NULL) {
		for (size_t i = 0; i < home->root_count; i++) {
			if (path_inside(absolute, home->roots[i].path)) {
				close(dir_fd);
				return hearth_fail(error, HEARTH_USAGE,
				    "%s is inside the Home; export writes outside it", dir);
			}
		}
	}
	vv_init(&vv);
	status = checkout_target(home, version, &vv, id_hex, error);
	if (status == 0)
		status = tree_load(home, &vv, &tree, error);
	vv_free(&vv);
	if (status != 0) {
		close(dir_fd);
		return status;
	}
	struct tree_node **order = malloc((tree.count + 1) * sizeof *order);
	for (size_t i = 0; i < tree.count; i++) {
		order[i] = &tree.nodes[i];
		tree_path(&tree, order[i]);
	}
	qsort(order, tree.count, sizeof *order, checkout_compare_nodes_by_depth);
	for (size_t i = 0; status == 0 && i < tree.count; i++) {
		if (progress && progress->cancel && atomic_load(progress->cancel))
			status = hearth_fail(error, HEARTH_CANCELLED, "export cancelled");
		else
			status = export_node(home, &tree, order[i], dir_fd, error);
		if (progress && progress->report && (i % 256 == 0 || i + 1 == tree.count)) {
			struct hearth_progress_report report = {
				.phase = "exporting", .done = i + 1, .total = tree.count,
				.path = order[i]->path,
			};
			progress->report(progress->context, &report);
		}
	}
	if (status == 0 && config_durability_rules(home->config->durability).sync_folders &&
	    io_syncfs(dir_fd) != 0)
		status = hearth_fail_errno(error, "cannot flush %s", dir);
	free(order);
	tree_free(&tree);
	close(dir_fd);
	return status;
}
