/* Allocation for the app: out of memory is fatal in a front end, so these
 * never return NULL. Before dying they run a hook (the app's restores the
 * terminal), so a failed allocation never leaves the shell in curses mode. */
#ifndef HEARTH_TUI_MEMORY_H
#define HEARTH_TUI_MEMORY_H

#include <stddef.h>

/* Zeroed memory for count objects of size bytes. */
void *memory_alloc(size_t count, size_t size);
/* Grows (or shrinks) pointer to count objects of size bytes. */
void *memory_resize(void *pointer, size_t count, size_t size);
char *memory_strdup(const char *text);
char *memory_strndup(const char *text, size_t length);
char *memory_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Runs before a fatal exit; NULL for none. */
void memory_set_die_hook(void (*hook)(void));
/* Prints "hearth: message" after the hook and exits with status 1. */
_Noreturn void memory_die(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
