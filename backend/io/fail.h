/* The one error type below the API: every room of the backend reports a
 * failure by filling a struct hearth_error (hearth.h) through these
 * helpers, so a message travels up unchanged from the layer that saw it. */
#ifndef HEARTH_BACKEND_FAIL_H
#define HEARTH_BACKEND_FAIL_H

#include <stdarg.h>

#include "backend/hearth.h"

/* Fills error with code and the message and returns code (so callers can
 * `return hearth_fail(...)`). The message may quote error->message itself
 * ("%s: %s", path, error->message): it is formatted aside first. */
int hearth_fail(struct hearth_error *error, enum hearth_code code, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with ": strerror(errno)" appended (a full disk names its device). */
int hearth_fail_errno(struct hearth_error *error, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
void hearth_error_clear(struct hearth_error *error);

/* For the store, packs, content and the wire, whose functions return -1 on
 * failure: fills error as HEARTH_FAILED with the message (nothing when
 * error is NULL, so a caller may pass none) and returns -1. */
int hearth_error_put(struct hearth_error *error, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
int hearth_error_vput(struct hearth_error *error, const char *format, va_list args)
	__attribute__((format(printf, 2, 0)));

#endif
