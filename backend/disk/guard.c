/* The guard on emptying (guard.h): a disk that vanished, or an `rm -rf *`,
 * must not become a version that empties every other replica unasked
 * (Unison's confirmbigdel). */
#include "backend/disk/guard.h"

#include <stdio.h>
#include <string.h>

static bool
over_limit(const struct guard_count *count, uint32_t percent)
{
	if (count->files == 0 || count->deleting == 0)
		return false;
	return count->deleting >= count->files || count->deleting * 100 > (uint64_t)percent * count->files;
}

uint64_t
guard_files_enough(const struct hearth *home, uint64_t deleting)
{
	uint64_t percent = home->config->max_delete_percent;

	if (percent == 0)
		return 0;
	/* Within the limit: files > deleting and deleting * 100 <= percent * files. */
	uint64_t by_share = (deleting * 100 + percent - 1) / percent;
	return by_share > deleting ? by_share : deleting + 1;
}

int
guard_check(const struct hearth *home, const char *command, const struct guard_count *roots,
    struct hearth_delete_guard *out, struct hearth_error *error)
{
	uint32_t percent = home->config->max_delete_percent;
	char where[4400], why[64];

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < home->root_count; i++) {
		const struct guard_count *count = &roots[i];
		if (!over_limit(count, percent))
			continue;
		out->refused = true;
		snprintf(out->root, sizeof out->root, "%s", home->roots[i].name);
		snprintf(out->root_path, sizeof out->root_path, "%s", home->roots[i].path);
		out->deleting = count->deleting;
		out->files = count->files;
		out->recording = strcmp(command, "record") == 0;
		out->every_file = count->deleting >= count->files;
		out->max_delete_percent = percent;
		if (home->root_count == 1)
			snprintf(where, sizeof where, "%s", home->roots[i].path);
		else
			snprintf(where, sizeof where, "root '%s' (%s)", home->roots[i].name,
			    home->roots[i].path);
		if (count->deleting >= count->files)
			snprintf(why, sizeof why, "every file");
		else
			snprintf(why, sizeof why, "more than max_delete, %u%%", percent);
		return hearth_fail(error, HEARTH_REFUSED, "%s would delete %llu of the %llu files in %s "
		    "(%s); nothing was %s. If that is meant, run it again with --yes", command,
		    (unsigned long long)count->deleting, (unsigned long long)count->files, where, why,
		    strcmp(command, "record") == 0 ? "recorded" : "changed");
	}
	return 0;
}
