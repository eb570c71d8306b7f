/* Naming the device a full disk is on (space.h): the mount whose device
 * number is the path's, from /proc/self/mountinfo. */
#include "backend/io/space.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char noted[4096];

/* The nearest existing path at or above path (a file not made yet is on
 * its folder's device). */
static int
stat_nearest(const char *path, struct stat *status)
{
	char probe[4096];

	snprintf(probe, sizeof probe, "%s", path);
	while (stat(probe, status) != 0) {
		char *slash = strrchr(probe, '/');
		if (slash == NULL || slash == probe)
			return stat("/", status);
		*slash = '\0';
	}
	return 0;
}

/* mountinfo: "id parent MAJOR:MINOR root MOUNTPOINT options... - type SOURCE ...". */
static int
mount_of(dev_t device, char *out, size_t size)
{
	FILE *table = fopen("/proc/self/mountinfo", "r");
	char line[8192];
	int found = -1;

	if (table == NULL)
		return -1;
	while (found != 0 && fgets(line, sizeof line, table) != NULL) {
		unsigned major_number, minor_number;
		char mount_point[4096], source[4096];
		const char *tail = strstr(line, " - ");
		if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &major_number, &minor_number,
			mount_point) != 3 || tail == NULL ||
		    sscanf(tail, " - %*s %4095s", source) != 1)
			continue;
		if (makedev(major_number, minor_number) != device)
			continue;
		snprintf(out, size, "%s", source[0] == '/' ? source : mount_point);
		found = 0;
	}
	fclose(table);
	return found;
}

void
space_message(const char *path, char *out, size_t size)
{
	struct stat status;
	char device[4096];

	if (stat_nearest(path, &status) == 0 && mount_of(status.st_dev, device, sizeof device) == 0)
		snprintf(out, size, "no space left on %s (%s)", device, path);
	else
		snprintf(out, size, "no space left (%s)", path);
}

void
space_note_path(const char *path)
{
	snprintf(noted, sizeof noted, "%s", path);
}

void
space_note_fd(int fd)
{
	char link[64], target[4096];

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t length = readlink(link, target, sizeof target - 1);
	if (length <= 0)
		return;
	target[length] = '\0';
	space_note_path(target);
}

const char *
space_noted_path(void)
{
	return noted;
}

const char *
space_strerror(int error_number)
{
	static char text[8192];

	if (error_number != ENOSPC || noted[0] == '\0')
		return strerror(error_number);
	space_message(noted, text, sizeof text);
	return text;
}
