/* The config's keys: in the app (see keys.c). */
#ifndef HEARTH_TUI_KEYS_H
#define HEARTH_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

struct config;

/* Binds each action the config's keys: names to its keys. On an unknown
 * action or key writes "FILE:LINE:COLUMN: keys: what is wrong" to error
 * and returns false; the bindings before it stay applied. */
bool keys_apply(const struct config *config, char *error, size_t size);

#endif
