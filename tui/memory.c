/* The app's allocation wrappers (see memory.h). One hook restores the
 * terminal before a fatal exit; everything else just allocates. */
#include "tui/memory.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*die_hook)(void);

void
memory_set_die_hook(void (*hook)(void))
{
	die_hook = hook;
}

void
memory_die(const char *format, ...)
{
	va_list args;

	if (die_hook != NULL) {
		void (*hook)(void) = die_hook;
		die_hook = NULL;	/* a failure inside the hook must not loop */
		hook();
	}
	fputs("hearth: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	exit(1);
}

void *
memory_alloc(size_t count, size_t size)
{
	void *pointer = calloc(count ? count : 1, size ? size : 1);

	if (pointer == NULL)
		memory_die("out of memory (%zu × %zu bytes)", count, size);
	return pointer;
}

void *
memory_resize(void *pointer, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		memory_die("allocation too large (%zu × %zu bytes)", count, size);
	size_t bytes = count * size;
	void *grown = realloc(pointer, bytes != 0 ? bytes : 1);
	if (grown == NULL)
		memory_die("out of memory (%zu × %zu bytes)", count, size);
	return grown;
}

char *
memory_strndup(const char *text, size_t length)
{
	char *copy = memory_alloc(length + 1, 1);

	memcpy(copy, text, length);
	return copy;
}

char *
memory_strdup(const char *text)
{
	return memory_strndup(text, strlen(text));
}

char *
memory_printf(const char *format, ...)
{
	va_list args;
	char *text;

	va_start(args, format);
	int length = vasprintf(&text, format, args);
	va_end(args);
	if (length < 0)
		memory_die("out of memory formatting a message");
	return text;
}
