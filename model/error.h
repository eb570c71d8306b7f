/* Error text: the one helper that formats an error message into a
 * caller's buffer. model/ and config/ fill their (char *error, size_t
 * error_size) pairs with it; the backend's rooms fill a struct
 * hearth_error through it (backend/io/fail.h). */
#ifndef HEARTH_MODEL_ERROR_H
#define HEARTH_MODEL_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into error (nothing when error is NULL or error_size 0, so a
 * caller may pass no buffer) and returns -1, what those layers' functions
 * return on failure. */
int error_put(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int error_vput(char *error, size_t error_size, const char *format, va_list args)
    __attribute__((format(printf, 3, 0)));

#endif
