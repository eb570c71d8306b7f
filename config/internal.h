/* What the files of config/ share and nobody else sees: the loading context,
 * the option table's entry points, path resolution and YAML string output.
 * Only the files of config/ include this; other modules use config/config.h. */
#ifndef HEARTH_CONFIG_INTERNAL_H
#define HEARTH_CONFIG_INTERNAL_H

#include "config/config.h"
#include "config/yaml_tree.h"

/* One file being applied over a config. */
struct config_load {
	struct config_yaml yaml;
	struct config *config;		/* borrowed; the loader owns it */
	const char *base_dir;		/* absolute; relative paths resolve here */
	yaml_node_t *place_node;	/* place: given in this file, checked last */
};

extern const char *const config_option_names[];
extern const size_t config_option_count;

/* Parses value as option number option and replaces that field of
 * load->config. On error writes the message and leaves the field as it was. */
bool config_option_apply(struct config_load *load, size_t option, yaml_node_t *value);

/* Checks that need the whole file: every place rule names a root. */
bool config_options_check(struct config_load *load);

/* Writes option number option as a line (or block) of YAML. */
void config_option_print(const struct config *config, size_t option, FILE *out);

/* The resolved form of a path in the config: "~" and "~/" expanded from
 * $HOME, made absolute against base_dir, "." and ".." removed lexically, no
 * trailing slash. Returns a new string, or NULL with *problem set to a
 * sentence fragment for the message ("is empty", ...). */
char *config_path_resolve(const char *path, const char *base_dir, const char **problem);

/* The folder holding path, absolute (against the current folder). NULL if
 * the current folder cannot be found or memory runs out. */
char *config_path_folder_of(const char *path);

/* base made absolute against the current folder; NULL base means it. */
char *config_path_absolute(const char *base);

/* Free the lists of a config; each accepts NULL with a count of 0. */
void config_free_roots(struct config_root *roots, size_t count);
void config_free_peers(struct config_peer *peers, size_t count);
void config_free_place(struct config_place_rule *place, size_t count);
void config_free_strings(char **strings, size_t count);
void config_free_bindings(struct config_binding *bindings, size_t count);

/* Writes text as a double-quoted YAML scalar that reads back byte for byte
 * (for any valid UTF-8 without NUL). */
void config_print_quoted(FILE *out, const char *text);

#endif
