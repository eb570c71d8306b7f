/* Loading a config: the built-in defaults (config/default.yaml compiled in)
 * first, then the user's file over them, key by key through the option
 * table. A key given in a file replaces its default whole, lists too. */
#include "config/internal.h"

#include <stdlib.h>
#include <string.h>

/* Generated from config/default.yaml by tests/lib/embed.sh. */
extern const char config_default_yaml[];
extern const size_t config_default_yaml_length;

static const char config_default_name[] = "config/default.yaml (built in)";

static bool
config_apply_field(struct config_yaml *yaml, size_t option, yaml_node_t *key,
    yaml_node_t *value, void *context)
{
	return config_option_apply(context, option, value);
}

/* Applies one YAML text over config; on error config is half-changed and
 * the caller frees it. */
static bool
config_apply_text(struct config *config, const char *text, size_t length, const char *name,
    const char *base_dir, char *error, size_t error_size)
{
	const struct config_yaml_fields top = {
		config_option_names, config_option_count, "key", "",
	};
	struct config_load load = { .config = config, .base_dir = base_dir };

	if (!config_yaml_open(&load.yaml, text, length, name, error, error_size))
		return false;
	yaml_node_t *root = config_yaml_root(&load.yaml);
	bool ok = true;
	if (root != NULL && root->type != YAML_MAPPING_NODE)
		ok = config_yaml_fail(&load.yaml, root,
		    "the top level must be a map of keys (roots:, state:, ...), found %s",
		    config_yaml_kind(root));
	else if (root != NULL)
		ok = config_yaml_each_field(&load.yaml, root, &top, config_apply_field, &load) &&
		    config_options_check(&load);
	config_yaml_close(&load.yaml);
	return ok;
}

static struct config *
config_new_default(char *error, size_t error_size)
{
	struct config *config = calloc(1, sizeof *config);

	if (config == NULL) {
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	if (!config_apply_text(config, config_default_yaml, config_default_yaml_length,
	    config_default_name, "/", error, error_size)) {
		config_free(config);
		return NULL;
	}
	return config;
}

struct config *
config_default(void)
{
	char error[1024];
	struct config *config = config_new_default(error, sizeof error);

	/* The defaults are compiled in and tested; failing here is a broken
	 * build or no memory at all, and the contract is never NULL. */
	if (config == NULL) {
		fprintf(stderr, "hearth: built-in config defaults: %s\n", error);
		abort();
	}
	return config;
}

/* Writes to a caller's buffer that may be NULL or empty. */
static void
config_error(char *error, size_t error_size, const char *name, const char *message)
{
	if (error != NULL && error_size > 0)
		snprintf(error, error_size, "%s: %s", name, message);
}

struct config *
config_parse(const char *text, size_t length, const char *name, const char *base_dir,
    char *error, size_t error_size)
{
	char scratch[1];

	if (error == NULL || error_size == 0) {
		error = scratch;
		error_size = sizeof scratch;
	}
	if (name == NULL)
		name = "(config)";
	if (text == NULL && length > 0) {
		config_error(error, error_size, name, "no text to parse");
		return NULL;
	}
	char *base = config_path_absolute(base_dir);
	if (base == NULL) {
		config_error(error, error_size, name, "cannot find the folder to resolve paths against");
		return NULL;
	}
	struct config *config = config_new_default(error, error_size);
	if (config != NULL &&
	    !config_apply_text(config, text ? text : "", length, name, base, error, error_size)) {
		config_free(config);
		config = NULL;
	}
	free(base);
	return config;
}

struct config *
config_load(const char *path, char *error, size_t error_size)
{
	char *text;
	size_t length;

	if (path == NULL || path[0] == '\0') {
		config_error(error, error_size, "(config)", "no config file named");
		return NULL;
	}
	if (!config_yaml_read_file(path, &text, &length, error, error_size))
		return NULL;
	char *folder = config_path_folder_of(path);
	char *absolute = config_path_absolute(path);
	struct config *config = NULL;
	if (folder == NULL || absolute == NULL)
		config_error(error, error_size, path, "cannot find the current folder");
	else
		config = config_parse(text, length, path, folder, error, error_size);
	if (config != NULL) {
		config->source_path = absolute;
		absolute = NULL;
	}
	free(absolute);
	free(folder);
	free(text);
	return config;
}

void
config_free(struct config *config)
{
	if (config == NULL)
		return;
	free(config->source_path);
	config_free_roots(config->roots, config->root_count);
	free(config->state);
	free(config->theme);
	config_free_peers(config->peers, config->peer_count);
	config_free_strings(config->ignore, config->ignore_count);
	config_free_strings(config->never_merge, config->never_merge_count);
	config_free_strings(config->always_merge, config->always_merge_count);
	config_free_place(config->place, config->place_count);
	free(config->ssh_command);
	free(config->author);
	config_free_bindings(config->bindings, config->binding_count);
	free(config);
}
