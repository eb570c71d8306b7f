/* The Home at a glance (for the app's status line and `hearth stats`):
 * identity, where things are, head, and the store's cost counters. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/disk/scan.h"
#include "backend/history/blob.h"
#include "backend/history/history.h"
#include "backend/history/integrate.h"

int
hearth_summary(hearth *home, struct hearth_summary *out, struct hearth_error *error)
{
	char head[HASH_HEX];

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	hex_encode(home->home_id, ID_BYTES, out->home_id);
	replica_id_hex(home->replica, out->replica);
	snprintf(out->top, sizeof out->top, "%s", home->roots[0].path);
	snprintf(out->state, sizeof out->state, "%s", home->location.state_path);
	out->durability = config_durability_name(home->config->durability);
	history_head_id(home, head);
	if (head[0] != '\0')
		history_short_id(home, head, out->head_short);
	out->versions = history_version_count(home);
	out->ops = store_op_count(&home->store);
	out->root_count = home->root_count;
	/* As the roots are now: a disk may have gone or come back since open. */
	struct hearth_error problem;
	home_require_roots(home, &problem);
	snprintf(out->root_problem, sizeof out->root_problem, "%s", home->root_problem.message);
	for (size_t i = 0; i < home->root_count && out->problem_root[0] == '\0'; i++) {
		if (home->roots[i].fd >= 0)
			continue;
		snprintf(out->problem_root, sizeof out->problem_root, "%s", home->roots[i].name);
		snprintf(out->problem_root_path, sizeof out->problem_root_path, "%s",
		    home->roots[i].path);
	}
	return 0;
}

static uint64_t
meta_value(struct hearth *home, const char *key)
{
	int64_t value = 0;
	store_meta_get_int(&home->store, key, &value);
	return (uint64_t)value;
}

static uint64_t
file_size(const char *path)
{
	struct stat status;
	return stat(path, &status) == 0 ? (uint64_t)status.st_size : 0;
}

int
hearth_stats(hearth *home, struct hearth_stats *out, struct hearth_error *error)
{
	char path[8192];

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	out->ops = store_op_count(&home->store);
	out->versions = history_version_count(home);
	out->nodes = integrate_node_count(home);
	out->entries = scan_entry_count(home);
	blob_stats(home, out);
	out->bytes_written = meta_value(home, "bytes_written");
	out->content_bytes_written = meta_value(home, "content_bytes_written");
	out->packs_created = meta_value(home, "packs_created");
	out->transactions = meta_value(home, "transactions");
	snprintf(path, sizeof path, "%s/store.db", home->location.state_path);
	out->database_bytes = file_size(path);
	snprintf(path, sizeof path, "%s/store.db-wal", home->location.state_path);
	out->database_bytes += file_size(path);
	return 0;
}
