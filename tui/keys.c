/* The config's keys: put into the action table when the app opens a Home:
 * each action named takes the keys given instead of its own. The names are
 * checked here, where the actions are known, with the file's line and
 * column, as the config's own errors give them. */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/yaml_tree.h"
#include "tui/action.h"
#include "tui/cli.h"
#include "tui/keys.h"

/* "FILE:LINE:COLUMN: keys: " before a message about one binding. */
static int
where(const struct config *config, const struct config_binding *binding, char *error,
    size_t size)
{
	return snprintf(error, size, "%s:%u:%u: keys: ",
	    config->source_path ? config->source_path : "the config", binding->line,
	    binding->column);
}

static bool
unknown_action(const struct config *config, const struct config_binding *binding, char *error,
    size_t size)
{
	const char *names[ACTION_COUNT];
	size_t count = 0;

	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++)
		names[count++] = action_info((enum action)action)->name;
	const char *near = config_nearest_word(binding->action, names, count);
	int used = where(config, binding, error, size);
	if (used >= 0 && (size_t)used < size)
		snprintf(error + used, size - (size_t)used, "unknown action '%s'%s%s%s (`?` in the app "
		    "lists them)", binding->action, near ? "; did you mean '" : "", near ? near : "",
		    near ? "'?" : "");
	return false;
}

bool
keys_apply(const struct config *config, char *error, size_t size)
{
	/* From the defaults each time: a binding gone from the config is gone. */
	action_reset_bindings();
	for (size_t i = 0; i < config->binding_count; i++) {
		const struct config_binding *binding = &config->bindings[i];
		enum action action = action_by_name(binding->action);
		int keys[CONFIG_MAX_BINDING_KEYS];
		if (action == ACTION_NONE)
			return unknown_action(config, binding, error, size);
		for (size_t k = 0; k < binding->key_count; k++) {
			keys[k] = action_parse_key(binding->keys[k]);
			if (keys[k] != 0)
				continue;
			int used = where(config, binding, error, size);
			if (used >= 0 && (size_t)used < size)
				snprintf(error + used, size - (size_t)used, "'%s' for %s is not a key; write "
				    "keys as the help does: r, R, Ctrl-r, Enter, Space, Tab, Esc, Up, PgDn, F5",
				    binding->keys[k], binding->action);
			return false;
		}
		if (!action_bind(action, keys, binding->key_count)) {
			int used = where(config, binding, error, size);
			if (used >= 0 && (size_t)used < size)
				snprintf(error + used, size - (size_t)used, "%s takes at most %d keys",
				    binding->action, ACTION_KEYS_MAX);
			return false;
		}
	}
	return true;
}
