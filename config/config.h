/* The YAML config of a Home (hearth.yaml(5)): one option table gives every
 * key its type, bounds, default and help text; the loader maps YAML nodes
 * onto it, so errors, `hearth config check` and the man page agree. */
#ifndef HEARTH_CONFIG_CONFIG_H
#define HEARTH_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest lists a config may hold; checks between entries are quadratic
 * and no Home needs more. */
#define CONFIG_MAX_ROOTS 64
#define CONFIG_MAX_PEERS 256
#define CONFIG_MAX_PLACE 1024
#define CONFIG_MAX_IGNORE 10000
#define CONFIG_MAX_BINDINGS 256
#define CONFIG_MAX_BINDING_KEYS 4

enum config_durability {
	DURABILITY_FULL,
	DURABILITY_GROUP,
	DURABILITY_NONE,
};

struct config_root {
	char *name;	/* [A-Za-z0-9_-]{1,64}, unique */
	char *path;	/* absolute, normalised */
};

struct config_peer {
	char *name;
	char *url;	/* a path or ssh://[user@]host[:port]/path */
	/* ssh peers: the program to run there in place of `hearth`, and the
	 * ssh command for this peer alone; NULL when not set. */
	char *remote_command;
	char *ssh_command;
};

/* One line of keys: (an action of the app and the keys it takes instead of
 * its own); the app checks the names, so the config needs no list of them. */
struct config_binding {
	char *action;		/* "record", as hearth(1) names the app's actions */
	char **keys;		/* as the help writes keys: "r", "Ctrl-r", "F5", "Enter" */
	size_t key_count;
	unsigned line, column;	/* of the action's name in the file, for messages */
};

struct config_place_rule {
	char *pattern;	/* glob, matched like ignore patterns */
	char *root;	/* a root name */
};

struct config {
	char *source_path;	/* the file loaded; NULL for built-in defaults */
	struct config_root *roots;
	size_t root_count;
	char *state;		/* absolute; the store and packs live here */
	uint32_t poll_interval_ms;
	enum config_durability durability;
	char *theme;		/* a theme name or a path to a theme file */
	struct config_peer *peers;
	size_t peer_count;
	char **ignore;
	size_t ignore_count;
	char **never_merge;	/* patterns: never merged by line */
	size_t never_merge_count;
	char **always_merge;	/* patterns: merged even with NUL bytes */
	size_t always_merge_count;
	struct config_place_rule *place;
	size_t place_count;
	bool auto_checkout;
	uint32_t max_delete_percent;
	char *ssh_command;
	char *author;		/* "" means user@host, filled in by the backend */
	struct config_binding *bindings;	/* keys: */
	size_t binding_count;
};

/* Built-in defaults (compiled from config/default.yaml), with no roots and
 * no state. Never NULL; free with config_free. */
struct config *config_default(void);

/* Loads path over the defaults: a key it gives replaces that default whole
 * (lists too). Relative paths in it are resolved against the folder holding
 * the file, "~" and "~/" against $HOME. On error returns NULL and writes to
 * error a message of the form "FILE:LINE:COLUMN: what is wrong" (with "did
 * you mean 'KEY'?" for an unknown key); error may be NULL. */
struct config *config_load(const char *path, char *error, size_t error_size);

/* Same, from a string; name stands in for the file name in messages and
 * base_dir resolves relative paths (NULL: the current folder). The result's
 * source_path is NULL; config_load sets it to the file's absolute path. */
struct config *config_parse(const char *text, size_t length, const char *name,
    const char *base_dir, char *error, size_t error_size);

void config_free(struct config *config);

/* Writes the effective config as YAML that config_parse accepts. */
void config_print(const struct config *config, FILE *out);

/* Writes a config file for a single-root Home (its root named "main") at
 * top with state at state, and with origin (a URL or absolute path; NULL
 * for none) as its one peer, "origin". Relative paths are written as given
 * and so are taken from the config's folder when it is read. Written to a
 * temporary file and renamed over path, so a reader sees the old file or
 * the new one. Returns 0, or -1 with error filled. */
int config_write_single_root(const char *path, const char *top, const char *state,
    const struct config_peer *origin, char *error, size_t error_size);
/* The text config_write_single_root writes there, checked to load back, for
 * a caller that puts the file in place itself (hearth init does, through
 * the backend's I/O seam). Returns it (the caller frees it) with its length
 * in *length, or NULL with error filled. */
char *config_format_single_root(const char *path, const char *top, const char *state,
    const struct config_peer *origin, size_t *length, char *error, size_t error_size);

const char *config_durability_name(enum config_durability durability);

/* What a durability mode means for each kind of thing the backend writes:
 * the one place that decides it (hearth.yaml(5) says it in prose). Every
 * flush the backend makes or skips asks this, never the mode itself. */
struct config_durability_rules {
	bool sync_each_file;	/* each file written into a root is flushed before it counts */
	bool sync_folders;	/* the folders (file systems) a command changed, once per command */
	bool sync_packs;	/* a pack at sealing, and the packs folder after new packs */
	bool sync_database;	/* the database commits with full synchronisation */
};
struct config_durability_rules config_durability_rules(enum config_durability durability);

/* One row per key, for `hearth config check`, the docs tests and help. */
struct config_key_info {
	const char *name;
	const char *type;	/* "list of roots", "duration", "enum", ... */
	const char *default_text;
	const char *description;
};
const struct config_key_info *config_keys(size_t *count);

/* The nearest key for a misspelling (edit distance), or NULL. */
const char *config_suggest_key(const char *unknown);

#endif
