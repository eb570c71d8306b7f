/* Writing configs: the effective config as YAML that reads back the same
 * (config_print), and the small config `hearth init` writes for a
 * single-root Home, put in place by a rename so no reader sees half a file. */
#include "config/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The length of the UTF-8 sequence at text (1 to 4) with its code point in
 * *code_point, or 0 when the bytes there are not valid UTF-8. */
static size_t
config_utf8_decode(const unsigned char *text, uint32_t *code_point)
{
	size_t length;
	uint32_t value, least;

	if (text[0] < 0x80) {
		*code_point = text[0];
		return 1;
	}
	if (text[0] >= 0xc2 && text[0] <= 0xdf) {
		length = 2, value = text[0] & 0x1f, least = 0x80;
	} else if (text[0] >= 0xe0 && text[0] <= 0xef) {
		length = 3, value = text[0] & 0x0f, least = 0x800;
	} else if (text[0] >= 0xf0 && text[0] <= 0xf4) {
		length = 4, value = text[0] & 0x07, least = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < length; i++) {
		if ((text[i] & 0xc0) != 0x80)
			return 0;
		value = (value << 6) | (text[i] & 0x3f);
	}
	if (value < least || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
		return 0;
	*code_point = value;
	return length;
}

static bool
config_utf8_is_valid(const char *text)
{
	const unsigned char *at = (const unsigned char *)text;
	uint32_t code_point;

	while (*at != '\0') {
		size_t length = config_utf8_decode(at, &code_point);
		if (length == 0)
			return false;
		at += length;
	}
	return true;
}

/* What YAML lets stand unescaped inside double quotes: its printable set
 * minus the characters it reads as line breaks or a byte order mark. */
static bool
config_yaml_may_show(uint32_t code_point)
{
	if (code_point == 0x2028 || code_point == 0x2029 || code_point == 0xfeff)
		return false;
	return (code_point >= 0x20 && code_point <= 0x7e) ||
	    (code_point >= 0xa0 && code_point <= 0xd7ff) ||
	    (code_point >= 0xe000 && code_point <= 0xfffd) ||
	    (code_point >= 0x10000 && code_point <= 0x10ffff);
}

static void
config_print_escape(FILE *out, uint32_t code_point)
{
	switch (code_point) {
	case '"': fputs("\\\"", out); return;
	case '\\': fputs("\\\\", out); return;
	case '\n': fputs("\\n", out); return;
	case '\t': fputs("\\t", out); return;
	case '\r': fputs("\\r", out); return;
	case 0x85: fputs("\\N", out); return;
	case 0x2028: fputs("\\L", out); return;
	case 0x2029: fputs("\\P", out); return;
	default: break;
	}
	if (code_point <= 0xff)
		fprintf(out, "\\x%02X", (unsigned)code_point);
	else
		fprintf(out, "\\u%04X", (unsigned)code_point);
}

void
config_print_quoted(FILE *out, const char *text)
{
	const unsigned char *at = (const unsigned char *)text;

	fputc('"', out);
	while (*at != '\0') {
		uint32_t code_point;
		size_t length = config_utf8_decode(at, &code_point);
		/* YAML holds text, not bytes: a byte that is not UTF-8 is written
		 * as the character with its value, the nearest YAML can say. */
		if (length == 0) {
			config_print_escape(out, *at);
			at++;
			continue;
		}
		if (code_point != '"' && code_point != '\\' && config_yaml_may_show(code_point))
			fwrite(at, 1, length, out);
		else
			config_print_escape(out, code_point);
		at += length;
	}
	fputc('"', out);
}

void
config_print(const struct config *config, FILE *out)
{
	fprintf(out, "# The effective hearth config");
	if (config->source_path != NULL) {
		fprintf(out, ": ");
		/* A path with a newline must not end the comment early. */
		for (const char *at = config->source_path; *at != '\0'; at++)
			fputc(*at == '\n' || *at == '\r' ? '?' : *at, out);
		fprintf(out, " over the defaults");
	} else {
		fprintf(out, ": the built-in defaults");
	}
	fprintf(out, ". See hearth.yaml(5).\n");
	for (size_t option = 0; option < config_option_count; option++)
		config_option_print(config, option, out);
}

/* ---- config_write_single_root -------------------------------------------------- */

static int
config_write_fail(char *error, size_t error_size, const char *path, const char *what,
    const char *detail)
{
	if (error != NULL && error_size > 0)
		snprintf(error, error_size, "%s: %s%s%s", path, what, detail ? ": " : "",
		    detail ? detail : "");
	return -1;
}

static char *
config_single_root_text(const char *top, const char *state, const struct config_peer *origin,
    size_t *length)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, length);

	if (out == NULL)
		return NULL;
	fprintf(out,
	    "# hearth config for a Home with one root, written by `hearth init`.\n"
	    "# Keys left out keep their defaults; hearth.yaml(5) lists them all.\n"
	    "\n"
	    "# The folder this Home versions. A joined Home lists more roots, each\n"
	    "# with its own name and path.\n"
	    "roots:\n"
	    "  - name: main\n"
	    "    path: ");
	config_print_quoted(out, top);
	fprintf(out,
	    "\n"
	    "\n"
	    "# Where the store (history, content, index) lives.\n"
	    "state: ");
	config_print_quoted(out, state);
	fprintf(out, "\n");
	if (origin != NULL) {
		fprintf(out,
		    "\n"
		    "# The replica this one was cloned from: `hearth sync origin`.\n"
		    "peers:\n"
		    "  - name: origin\n"
		    "    url: ");
		config_print_quoted(out, origin->url);
		fprintf(out, "\n");
		/* What the clone needed to reach it, kept for every later sync. */
		if (origin->remote_command != NULL) {
			fprintf(out, "    remote_command: ");
			config_print_quoted(out, origin->remote_command);
			fprintf(out, "\n");
		}
		if (origin->ssh_command != NULL) {
			fprintf(out, "    ssh_command: ");
			config_print_quoted(out, origin->ssh_command);
			fprintf(out, "\n");
		}
	}
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static bool
config_write_all(int fd, const char *text, size_t length)
{
	while (length > 0) {
		ssize_t wrote = write(fd, text, length);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote < 0)
			return false;
		text += wrote;
		length -= (size_t)wrote;
	}
	return true;
}

/* Makes a new file beside path with a name no one else uses; its mode
 * follows the umask, as any file the user makes would. */
static int
config_open_temporary(const char *path, char *temporary, size_t temporary_size)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		snprintf(temporary, temporary_size, "%s.tmp-%ld-%u", path, (long)getpid(), attempt);
		int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* So the rename itself survives a crash. */
static bool
config_sync_folder(const char *path)
{
	char *folder = config_path_folder_of(path);

	if (folder == NULL)
		return false;
	int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(folder);
	if (fd < 0)
		return false;
	bool synced = fsync(fd) == 0;
	close(fd);
	return synced;
}

static int
config_replace_file(const char *path, const char *text, size_t length, char *error,
    size_t error_size)
{
	char temporary[4096 + 64];
	int fd = config_open_temporary(path, temporary, sizeof temporary);

	if (fd < 0)
		return config_write_fail(error, error_size, path, "cannot write", strerror(errno));
	bool written = config_write_all(fd, text, length) && fsync(fd) == 0;
	int saved_errno = errno;
	if (close(fd) != 0 && written) {
		written = false;
		saved_errno = errno;
	}
	if (written && rename(temporary, path) != 0) {
		written = false;
		saved_errno = errno;
	}
	if (!written) {
		unlink(temporary);
		return config_write_fail(error, error_size, path, "cannot write",
		    strerror(saved_errno));
	}
	if (!config_sync_folder(path))
		return config_write_fail(error, error_size, path, "written, but its folder could not be synced",
		    strerror(errno));
	return 0;
}

char *
config_format_single_root(const char *path, const char *top, const char *state,
    const struct config_peer *origin, size_t *length, char *error, size_t error_size)
{
	if (path == NULL || path[0] == '\0') {
		config_write_fail(error, error_size, "(config)", "no file named", NULL);
		return NULL;
	}
	if (top == NULL || top[0] == '\0' || state == NULL || state[0] == '\0') {
		config_write_fail(error, error_size, path, "the root and the state need paths", NULL);
		return NULL;
	}
	/* Relative paths are written as given: they mean the config's folder,
	 * as when it is read, so a Home that moves keeps working. */
	char *folder = config_path_folder_of(path);
	char *text = NULL;
	*length = 0;
	if (folder == NULL)
		config_write_fail(error, error_size, path, "out of memory", NULL);
	else if (!config_utf8_is_valid(top) || !config_utf8_is_valid(state) ||
	    (origin != NULL && (!config_utf8_is_valid(origin->url) ||
		(origin->remote_command != NULL && !config_utf8_is_valid(origin->remote_command)) ||
		(origin->ssh_command != NULL && !config_utf8_is_valid(origin->ssh_command)))))
		config_write_fail(error, error_size, path,
		    "the root, state and peer paths must be valid UTF-8 to be written as YAML", NULL);
	else if ((text = config_single_root_text(top, state, origin, length)) == NULL)
		config_write_fail(error, error_size, path, "out of memory", NULL);
	else {
		/* Never write a config that hearth would then refuse to read. */
		struct config *check = config_parse(text, *length, path, folder, error, error_size);
		if (check == NULL) {
			free(text);
			text = NULL;
		}
		config_free(check);
	}
	free(folder);
	return text;
}

int
config_write_single_root(const char *path, const char *top, const char *state,
    const struct config_peer *origin, char *error, size_t error_size)
{
	size_t length;
	char *text = config_format_single_root(path, top, state, origin, &length, error,
	    error_size);

	if (text == NULL)
		return -1;
	int result = config_replace_file(path, text, length, error, error_size);
	free(text);
	return result;
}
