/* Paths in the config: "~" expansion, absolute against the config file's
 * folder, lexical normalisation. Lexical on purpose: the roots may be
 * unmounted when the config is read, so nothing here touches the disk. */
#include "config/internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Joins head and tail with one '/', in a new string. */
static char *
config_path_join(const char *head, const char *tail)
{
	size_t head_length = strlen(head), tail_length = strlen(tail);
	char *joined = malloc(head_length + 1 + tail_length + 1);

	if (joined == NULL)
		return NULL;
	memcpy(joined, head, head_length);
	joined[head_length] = '/';
	memcpy(joined + head_length + 1, tail, tail_length + 1);
	return joined;
}

/* Rewrites an absolute path in place: components "" and "." dropped, ".."
 * drops the one before it (never above "/"), no trailing slash. */
static void
config_path_normalise(char *path)
{
	size_t out = 0;
	const char *in = path;

	while (*in != '\0') {
		while (*in == '/')
			in++;
		const char *end = strchr(in, '/');
		size_t length = end ? (size_t)(end - in) : strlen(in);
		if (length == 0 || (length == 1 && in[0] == '.')) {
			in += length;
			continue;
		}
		if (length == 2 && in[0] == '.' && in[1] == '.') {
			while (out > 0 && path[out - 1] != '/')
				out--;
			if (out > 0)
				out--;
			in += length;
			continue;
		}
		/* out never passes in, so moving the component down is safe. */
		path[out++] = '/';
		memmove(path + out, in, length);
		out += length;
		in += length;
	}
	if (out == 0)
		path[out++] = '/';
	path[out] = '\0';
}

static char *
config_path_expand_home(const char *path, const char **problem)
{
	const char *home = getenv("HOME");

	if (path[1] != '\0' && path[1] != '/') {
		*problem = "starts with '~USER'; only '~' and '~/' are expanded";
		return NULL;
	}
	if (home == NULL || home[0] == '\0') {
		*problem = "starts with '~' but HOME is not set";
		return NULL;
	}
	if (home[0] != '/') {
		*problem = "starts with '~' but HOME is not an absolute path";
		return NULL;
	}
	char *expanded = config_path_join(home, path[1] == '/' ? path + 2 : "");
	if (expanded == NULL)
		*problem = "could not be resolved: out of memory";
	return expanded;
}

char *
config_path_resolve(const char *path, const char *base_dir, const char **problem)
{
	char *resolved;

	if (path[0] == '\0') {
		*problem = "is empty";
		return NULL;
	}
	if (path[0] == '~')
		resolved = config_path_expand_home(path, problem);
	else if (path[0] == '/')
		resolved = strdup(path);
	else
		resolved = config_path_join(base_dir, path);
	if (resolved == NULL) {
		if (path[0] != '~')
			*problem = "could not be resolved: out of memory";
		return NULL;
	}
	config_path_normalise(resolved);
	return resolved;
}

char *
config_path_absolute(const char *base)
{
	char *current;

	if (base != NULL && base[0] == '/') {
		char *copy = strdup(base);
		if (copy != NULL)
			config_path_normalise(copy);
		return copy;
	}
	current = getcwd(NULL, 0);
	if (current == NULL || base == NULL)
		return current;
	char *joined = config_path_join(current, base);
	free(current);
	if (joined != NULL)
		config_path_normalise(joined);
	return joined;
}

char *
config_path_folder_of(const char *path)
{
	char *absolute = config_path_absolute(path);

	if (absolute == NULL)
		return NULL;
	char *slash = strrchr(absolute, '/');
	if (slash == absolute)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	return absolute;
}
