/* Filling the one error type (fail.h): each helper formats its message
 * aside and then copies it in, so a message may quote the one it replaces. */
#include "backend/io/fail.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/io/space.h"
#include "model/error.h"

static void
fail_vformat(struct hearth_error *error, enum hearth_code code, const char *format,
    va_list args)
{
	char message[sizeof error->message];

	error_vput(message, sizeof message, format, args);
	error->code = code;
	memcpy(error->message, message, strlen(message) + 1);
}

int
hearth_fail(struct hearth_error *error, enum hearth_code code, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	fail_vformat(error, code, format, args);
	va_end(args);
	return code;
}

int
hearth_fail_errno(struct hearth_error *error, const char *format, ...)
{
	int saved = errno;
	va_list args;

	va_start(args, format);
	fail_vformat(error, HEARTH_FAILED, format, args);
	va_end(args);
	size_t length = strlen(error->message);
	char reason[HEARTH_ERROR_MAX / 2];
	/* A full disk names its device and where the write failed. */
	if (saved == ENOSPC && space_noted_path()[0] != '\0')
		space_message(space_noted_path(), reason, sizeof reason);
	else
		snprintf(reason, sizeof reason, "%s", strerror(saved));
	snprintf(error->message + length, sizeof error->message - length, ": %s", reason);
	return HEARTH_FAILED;
}

void
hearth_error_clear(struct hearth_error *error)
{
	error->code = HEARTH_OK;
	error->message[0] = '\0';
}

int
hearth_error_vput(struct hearth_error *error, const char *format, va_list args)
{
	if (error != NULL)
		fail_vformat(error, HEARTH_FAILED, format, args);
	return -1;
}

int
hearth_error_put(struct hearth_error *error, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	hearth_error_vput(error, format, args);
	va_end(args);
	return -1;
}
