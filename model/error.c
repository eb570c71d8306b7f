/* The error-text helper (see error.h). */
#include "model/error.h"

#include <stdio.h>

int
error_vput(char *error, size_t error_size, const char *format, va_list args)
{
	if (error != NULL && error_size > 0)
		vsnprintf(error, error_size, format, args);
	return -1;
}

int
error_put(char *error, size_t error_size, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	error_vput(error, error_size, format, args);
	va_end(args);
	return -1;
}
