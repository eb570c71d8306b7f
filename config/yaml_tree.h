/* Walking a libyaml document the way config/ and themes/ both need it: load
 * one document from memory, report "FILE:LINE:COLUMN: message" at a node,
 * visit a map's keys against a table of known names (unknown keys get a
 * suggestion, duplicates are refused) and describe what a node is. */
#ifndef HEARTH_CONFIG_YAML_TREE_H
#define HEARTH_CONFIG_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* Files larger than this are refused before parsing: a config or a theme is
 * a few kilobytes, and the parser keeps the whole document in memory. */
#define CONFIG_YAML_MAX_FILE (1024 * 1024)

/* Deeper nesting is refused before the document is built; a config needs
 * three levels and a theme four. */
#define CONFIG_YAML_MAX_DEPTH 32

/* A map may be checked against at most this many known names. */
#define CONFIG_YAML_MAX_FIELDS 64

struct config_yaml {
	yaml_document_t document;
	bool loaded;
	const char *name;	/* the file name in messages; not owned */
	char *error;		/* the caller's buffer; may be NULL */
	size_t error_size;
};

/* Parses text, which must hold at most one YAML document. On failure writes
 * the message (with libyaml's position) and returns false; yaml needs no
 * close then. On success call config_yaml_close. */
bool config_yaml_open(struct config_yaml *yaml, const char *text, size_t length,
    const char *name, char *error, size_t error_size);
void config_yaml_close(struct config_yaml *yaml);

/* The document's top node; NULL when the text holds nothing but comments,
 * or an empty document ("---" alone). */
yaml_node_t *config_yaml_root(struct config_yaml *yaml);
yaml_node_t *config_yaml_node(struct config_yaml *yaml, yaml_node_item_t item);

/* Writes "NAME:LINE:COLUMN: " and the message (line and column 1-based, of
 * node's first character; "NAME: " when node is NULL). Returns false so a
 * caller can write `return config_yaml_fail(...)`. */
bool config_yaml_fail(struct config_yaml *yaml, const yaml_node_t *node,
    const char *format, ...) __attribute__((format(printf, 3, 4)));

/* "a string", "a number", "a boolean", "an empty value", "a list", "a map":
 * the words used in "expected X, found Y". */
const char *config_yaml_kind(const yaml_node_t *node);

/* A plain empty, "~" or "null" scalar: YAML's null. */
bool config_yaml_is_null(const yaml_node_t *node);

/* True for an unquoted scalar (true, 5, 50%), false for a quoted one. */
bool config_yaml_is_plain(const yaml_node_t *node);

/* A scalar's text, NUL-terminated by libyaml. NULL for a list or a map, and
 * for a scalar holding a NUL character (it could not be a C string). */
const char *config_yaml_text(const yaml_node_t *node);

/* Writes text into out for a message: control characters escaped, cut to
 * about 60 bytes with "...", so no input can flood or garble a terminal. */
void config_yaml_quote(const char *text, size_t length, char *out, size_t out_size);

/* The names a map may hold, for config_yaml_each_field. */
struct config_yaml_fields {
	const char *const *names;
	size_t count;		/* at most CONFIG_YAML_MAX_FIELDS */
	const char *noun;	/* "key", "role": "unknown role 'x'" */
	const char *where;	/* "" or " in a root": "unknown key 'x' in a root" */
};

/* Called for each key of a map, in file order, with the key's place in
 * fields->names. Returns false (after config_yaml_fail) to stop the walk. */
typedef bool (*config_yaml_field_fn)(struct config_yaml *yaml, size_t field,
    yaml_node_t *key, yaml_node_t *value, void *context);

/* Visits map's keys. A key that is not a string, not in fields (the message
 * suggests the nearest name) or given twice is an error at that key. */
bool config_yaml_each_field(struct config_yaml *yaml, yaml_node_t *map,
    const struct config_yaml_fields *fields, config_yaml_field_fn visit, void *context);

/* Collects a small map's values by field: values[i] is the value of
 * fields->names[i], or NULL when the map does not have it. */
bool config_yaml_collect(struct config_yaml *yaml, yaml_node_t *map,
    const struct config_yaml_fields *fields, yaml_node_t **values);

/* The candidate nearest to word by edit distance (ignoring case), when near
 * enough to be a likely misspelling; or the one candidate word begins; or
 * NULL. */
const char *config_nearest_word(const char *word, const char *const *candidates,
    size_t count);

/* Reads a whole file of at most CONFIG_YAML_MAX_FILE bytes into a new
 * NUL-terminated buffer the caller frees. On failure writes
 * "PATH: what went wrong" and returns false. */
bool config_yaml_read_file(const char *path, char **text, size_t *length,
    char *error, size_t error_size);

#endif
