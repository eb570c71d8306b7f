/* The YAML helpers shared by the config and theme loaders (see yaml_tree.h).
 * Everything here treats the document as hostile: aliases may make cycles,
 * scalars may hold NULs and control characters, maps may repeat keys. */
#include "config/yaml_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Candidates longer than this never come from our own tables of names. */
#define CONFIG_NEAREST_MAX 64

static void
config_yaml_write(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void
config_yaml_write(char *error, size_t error_size, const char *format, ...)
{
	va_list args;

	if (error == NULL || error_size == 0)
		return;
	va_start(args, format);
	vsnprintf(error, error_size, format, args);
	va_end(args);
}

/* libyaml's reader reports a byte offset, not a mark; lines and columns are
 * counted as libyaml counts them (characters, not bytes). */
static void
config_yaml_offset_position(const char *text, size_t length, size_t offset,
    size_t *line, size_t *column)
{
	*line = 1;
	*column = 1;
	for (size_t i = 0; i < offset && i < length; i++) {
		unsigned char byte = (unsigned char)text[i];
		if (byte == '\n') {
			(*line)++;
			*column = 1;
		} else if ((byte & 0xc0) != 0x80) {
			(*column)++;
		}
	}
}

static void
config_yaml_parser_error(struct config_yaml *yaml, const yaml_parser_t *parser,
    const char *text, size_t length)
{
	const char *problem = parser->problem ? parser->problem : "not valid YAML";
	size_t line, column;

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		config_yaml_write(yaml->error, yaml->error_size, "%s: out of memory reading YAML",
		    yaml->name);
		return;
	case YAML_READER_ERROR:
		config_yaml_offset_position(text, length, parser->problem_offset, &line, &column);
		if (parser->problem_value != -1)
			config_yaml_write(yaml->error, yaml->error_size, "%s:%zu:%zu: %s (0x%X)",
			    yaml->name, line, column, problem, (unsigned)parser->problem_value);
		else
			config_yaml_write(yaml->error, yaml->error_size, "%s:%zu:%zu: %s",
			    yaml->name, line, column, problem);
		return;
	default:
		break;
	}
	line = parser->problem_mark.line + 1;
	column = parser->problem_mark.column + 1;
	if (parser->context != NULL)
		config_yaml_write(yaml->error, yaml->error_size,
		    "%s:%zu:%zu: %s (%s at line %zu, column %zu)", yaml->name, line, column,
		    problem, parser->context, parser->context_mark.line + 1,
		    parser->context_mark.column + 1);
	else
		config_yaml_write(yaml->error, yaml->error_size, "%s:%zu:%zu: %s", yaml->name,
		    line, column, problem);
}

/* A config is one document; a second one is almost always a paste gone
 * wrong, and silently ignoring it would hide keys the user meant. */
static bool
config_yaml_refuse_second_document(struct config_yaml *yaml, yaml_parser_t *parser,
    const char *text, size_t length)
{
	yaml_document_t next;

	if (!yaml_parser_load(parser, &next)) {
		config_yaml_parser_error(yaml, parser, text, length);
		return false;
	}
	yaml_node_t *root = yaml_document_get_root_node(&next);
	bool refused = root != NULL && !config_yaml_is_null(root);
	if (refused)
		config_yaml_write(yaml->error, yaml->error_size,
		    "%s:%zu:%zu: a second YAML document begins here; the file must hold one",
		    yaml->name, root->start_mark.line + 1, root->start_mark.column + 1);
	yaml_document_delete(&next);
	return !refused;
}

/* libyaml's scanner does work proportional to the nesting depth for every
 * token, so "[[[[..." a megabyte deep takes minutes to refuse. Walking the
 * events first and stopping at a depth no config needs keeps every input
 * cheap; the scanner only runs as far as the parser pulls it. */
static bool
config_yaml_check_depth(struct config_yaml *yaml, const char *text, size_t length)
{
	yaml_parser_t parser;
	yaml_event_t event;
	size_t depth = 0;
	bool ok = true, done = false;

	if (!yaml_parser_initialize(&parser)) {
		config_yaml_write(yaml->error, yaml->error_size, "%s: out of memory reading YAML",
		    yaml->name);
		return false;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
	while (ok && !done) {
		if (!yaml_parser_parse(&parser, &event)) {
			config_yaml_parser_error(yaml, &parser, text, length);
			ok = false;
			break;
		}
		if (event.type == YAML_SEQUENCE_START_EVENT || event.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (event.type == YAML_SEQUENCE_END_EVENT || event.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > CONFIG_YAML_MAX_DEPTH) {
			config_yaml_write(yaml->error, yaml->error_size,
			    "%s:%zu:%zu: nested deeper than %d levels", yaml->name,
			    event.start_mark.line + 1, event.start_mark.column + 1,
			    CONFIG_YAML_MAX_DEPTH);
			ok = false;
		}
		done = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
	return ok;
}

bool
config_yaml_open(struct config_yaml *yaml, const char *text, size_t length,
    const char *name, char *error, size_t error_size)
{
	yaml_parser_t parser;

	memset(yaml, 0, sizeof *yaml);
	yaml->name = name;
	yaml->error = error;
	yaml->error_size = error_size;
	if (!config_yaml_check_depth(yaml, text, length))
		return false;
	if (!yaml_parser_initialize(&parser)) {
		config_yaml_write(error, error_size, "%s: out of memory reading YAML", name);
		return false;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
	if (!yaml_parser_load(&parser, &yaml->document)) {
		config_yaml_parser_error(yaml, &parser, text, length);
		yaml_parser_delete(&parser);
		return false;
	}
	yaml->loaded = true;
	/* A document with no root node is the end of the stream. */
	if (yaml_document_get_root_node(&yaml->document) != NULL &&
	    !config_yaml_refuse_second_document(yaml, &parser, text, length)) {
		yaml_parser_delete(&parser);
		config_yaml_close(yaml);
		return false;
	}
	yaml_parser_delete(&parser);
	return true;
}

void
config_yaml_close(struct config_yaml *yaml)
{
	if (yaml->loaded)
		yaml_document_delete(&yaml->document);
	yaml->loaded = false;
}

yaml_node_t *
config_yaml_root(struct config_yaml *yaml)
{
	yaml_node_t *root = yaml_document_get_root_node(&yaml->document);

	if (root == NULL || config_yaml_is_null(root))
		return NULL;
	return root;
}

yaml_node_t *
config_yaml_node(struct config_yaml *yaml, yaml_node_item_t item)
{
	return yaml_document_get_node(&yaml->document, item);
}

bool
config_yaml_fail(struct config_yaml *yaml, const yaml_node_t *node, const char *format, ...)
{
	char message[1024];
	va_list args;

	va_start(args, format);
	vsnprintf(message, sizeof message, format, args);
	va_end(args);
	if (node == NULL)
		config_yaml_write(yaml->error, yaml->error_size, "%s: %s", yaml->name, message);
	else
		config_yaml_write(yaml->error, yaml->error_size, "%s:%zu:%zu: %s", yaml->name,
		    node->start_mark.line + 1, node->start_mark.column + 1, message);
	return false;
}

bool
config_yaml_is_plain(const yaml_node_t *node)
{
	return node->type == YAML_SCALAR_NODE &&
	    (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
	     node->data.scalar.style == YAML_ANY_SCALAR_STYLE);
}

bool
config_yaml_is_null(const yaml_node_t *node)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (!config_yaml_is_plain(node))
		return false;
	for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
		if (strcmp((const char *)node->data.scalar.value, nulls[i]) == 0)
			return true;
	return false;
}

static bool
config_yaml_looks_like_number(const char *text)
{
	if (*text == '-' || *text == '+')
		text++;
	if (*text == '\0')
		return false;
	for (; *text != '\0'; text++)
		if ((*text < '0' || *text > '9') && *text != '.')
			return false;
	return true;
}

const char *
config_yaml_kind(const yaml_node_t *node)
{
	if (node->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (node->type == YAML_MAPPING_NODE)
		return "a map";
	if (node->type != YAML_SCALAR_NODE)
		return "nothing";
	if (config_yaml_is_null(node))
		return "an empty value";
	if (!config_yaml_is_plain(node))
		return "a string";
	const char *text = (const char *)node->data.scalar.value;
	if (config_yaml_looks_like_number(text))
		return "a number";
	if (strcasecmp(text, "true") == 0 || strcasecmp(text, "false") == 0)
		return "a boolean";
	return "a string";
}

const char *
config_yaml_text(const yaml_node_t *node)
{
	if (node->type != YAML_SCALAR_NODE)
		return NULL;
	const char *text = (const char *)node->data.scalar.value;
	if (strlen(text) != node->data.scalar.length)
		return NULL;
	return text;
}

void
config_yaml_quote(const char *text, size_t length, char *out, size_t out_size)
{
	static const size_t shown = 60;
	size_t used = 0;

	if (out_size == 0)
		return;
	for (size_t i = 0; i < length; i++) {
		unsigned char byte = (unsigned char)text[i];
		char piece[8];
		/* Stop at a character boundary so a cut never splits UTF-8. */
		if (used >= shown && (byte & 0xc0) != 0x80) {
			snprintf(piece, sizeof piece, "...");
			i = length;
		} else if (byte < 0x20 || byte == 0x7f || byte == '\'' || byte == '\\') {
			snprintf(piece, sizeof piece, "\\x%02x", byte);
		} else {
			piece[0] = (char)byte;
			piece[1] = '\0';
		}
		size_t piece_length = strlen(piece);
		if (used + piece_length + 1 > out_size)
			break;
		memcpy(out + used, piece, piece_length);
		used += piece_length;
	}
	out[used] = '\0';
}

static size_t
config_yaml_field_of(const struct config_yaml_fields *fields, const char *name)
{
	if (name == NULL)
		return fields->count;
	for (size_t i = 0; i < fields->count; i++)
		if (strcmp(fields->names[i], name) == 0)
			return i;
	return fields->count;
}

static bool
config_yaml_unknown_field(struct config_yaml *yaml, const yaml_node_t *key,
    const struct config_yaml_fields *fields)
{
	char quoted[256];
	const char *name = config_yaml_text(key);
	const char *nearest = name ? config_nearest_word(name, fields->names, fields->count) : NULL;

	config_yaml_quote((const char *)key->data.scalar.value, key->data.scalar.length, quoted,
	    sizeof quoted);
	if (nearest != NULL)
		return config_yaml_fail(yaml, key, "unknown %s '%s'%s; did you mean '%s'?",
		    fields->noun, quoted, fields->where, nearest);
	/* A short list of choices is worth showing in full. */
	if (fields->count <= 6) {
		char choices[256] = "";
		for (size_t i = 0; i < fields->count; i++) {
			size_t used = strlen(choices);
			snprintf(choices + used, sizeof choices - used, "%s%s", i ? ", " : "",
			    fields->names[i]);
		}
		return config_yaml_fail(yaml, key, "unknown %s '%s'%s (expected %s)",
		    fields->noun, quoted, fields->where, choices);
	}
	return config_yaml_fail(yaml, key, "unknown %s '%s'%s", fields->noun, quoted,
	    fields->where);
}

bool
config_yaml_each_field(struct config_yaml *yaml, yaml_node_t *map,
    const struct config_yaml_fields *fields, config_yaml_field_fn visit, void *context)
{
	const yaml_node_t *seen[CONFIG_YAML_MAX_FIELDS] = { 0 };

	if (fields->count > CONFIG_YAML_MAX_FIELDS)
		return config_yaml_fail(yaml, map, "internal error: too many names to check");
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	    pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = config_yaml_node(yaml, pair->key);
		yaml_node_t *value = config_yaml_node(yaml, pair->value);
		if (key == NULL || value == NULL)
			return config_yaml_fail(yaml, map, "a map entry has no key or value");
		if (key->type != YAML_SCALAR_NODE)
			return config_yaml_fail(yaml, key, "a %s must be a string, found %s",
			    fields->noun, config_yaml_kind(key));
		size_t field = config_yaml_field_of(fields, config_yaml_text(key));
		if (field == fields->count)
			return config_yaml_unknown_field(yaml, key, fields);
		if (seen[field] != NULL)
			return config_yaml_fail(yaml, key,
			    "duplicate %s '%s'%s (first given at line %zu)", fields->noun,
			    fields->names[field], fields->where, seen[field]->start_mark.line + 1);
		seen[field] = key;
		if (!visit(yaml, field, key, value, context))
			return false;
	}
	return true;
}

static bool
config_yaml_collect_one(struct config_yaml *yaml, size_t field, yaml_node_t *key,
    yaml_node_t *value, void *context)
{
	yaml_node_t **values = context;

	values[field] = value;
	return true;
}

bool
config_yaml_collect(struct config_yaml *yaml, yaml_node_t *map,
    const struct config_yaml_fields *fields, yaml_node_t **values)
{
	for (size_t i = 0; i < fields->count; i++)
		values[i] = NULL;
	return config_yaml_each_field(yaml, map, fields, config_yaml_collect_one, values);
}

static int
config_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of neighbours each cost one, so "durabilty" is one from
 * "durability" and "tehme" one from "theme". */
static size_t
config_edit_distance(const char *word, const char *candidate)
{
	size_t before[CONFIG_NEAREST_MAX + 1], previous[CONFIG_NEAREST_MAX + 1];
	size_t current[CONFIG_NEAREST_MAX + 1];
	size_t width = strlen(candidate);

	for (size_t j = 0; j <= width; j++)
		previous[j] = j;
	memset(before, 0, sizeof before);
	for (size_t i = 1; word[i - 1] != '\0'; i++) {
		current[0] = i;
		for (size_t j = 1; j <= width; j++) {
			int a = config_lower((unsigned char)word[i - 1]);
			int b = config_lower((unsigned char)candidate[j - 1]);
			size_t best = previous[j - 1] + (a != b);
			if (previous[j] + 1 < best)
				best = previous[j] + 1;
			if (current[j - 1] + 1 < best)
				best = current[j - 1] + 1;
			if (i > 1 && j > 1 && a == config_lower((unsigned char)candidate[j - 2]) &&
			    config_lower((unsigned char)word[i - 2]) == b && before[j - 2] + 1 < best)
				best = before[j - 2] + 1;
			current[j] = best;
		}
		memcpy(before, previous, sizeof previous);
		memcpy(previous, current, sizeof current);
	}
	return previous[width];
}

static bool
config_starts_with_ignoring_case(const char *text, const char *prefix)
{
	return strncasecmp(text, prefix, strlen(prefix)) == 0;
}

const char *
config_nearest_word(const char *word, const char *const *candidates, size_t count)
{
	size_t word_length = strlen(word);
	const char *nearest = NULL;
	size_t nearest_distance = (size_t)-1;

	for (size_t i = 0; i < count; i++) {
		size_t length = strlen(candidates[i]);
		size_t longer = length > word_length ? length : word_length;
		size_t allowed = (longer + 2) / 4;
		if (allowed == 0)
			allowed = 1;
		if (length > CONFIG_NEAREST_MAX || word_length > length + allowed ||
		    length > word_length + allowed)
			continue;
		size_t distance = config_edit_distance(word, candidates[i]);
		if (distance <= allowed && distance < length && distance < nearest_distance) {
			nearest = candidates[i];
			nearest_distance = distance;
		}
	}
	if (nearest != NULL || word_length < 3)
		return nearest;
	/* "poll" for "poll_interval": a word that begins exactly one name. */
	for (size_t i = 0; i < count; i++) {
		if (!config_starts_with_ignoring_case(candidates[i], word))
			continue;
		if (nearest != NULL)
			return NULL;
		nearest = candidates[i];
	}
	return nearest;
}

/* Reads until end of file or one byte past the limit, so an oversized file
 * is known without reading all of it. Returns false with errno set. */
static bool
config_yaml_read_all(int fd, char *buffer, size_t limit, size_t *used)
{
	*used = 0;
	for (;;) {
		ssize_t got = read(fd, buffer + *used, limit + 1 - *used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return false;
		*used += (size_t)got;
		if (got == 0 || *used > limit)
			return true;
	}
}

/* What a path that is not a regular file is, for messages. */
static const char *
config_yaml_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return "something else";
}

bool
config_yaml_read_file(const char *path, char **text, size_t *length, char *error,
    size_t error_size)
{
	struct stat status;
	size_t used = 0;
	/* Non-blocking: a FIFO named as the config opens at once (and is then
	 * refused) instead of waiting for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	*text = NULL;
	*length = 0;
	if (fd < 0) {
		config_yaml_write(error, error_size, "%s: cannot open: %s", path, strerror(errno));
		return false;
	}
	if (fstat(fd, &status) != 0) {
		config_yaml_write(error, error_size, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return false;
	}
	if (!S_ISREG(status.st_mode)) {
		config_yaml_write(error, error_size, "%s: %s, not a regular file", path,
		    config_yaml_file_kind(status.st_mode));
		close(fd);
		return false;
	}
	char *buffer = malloc(CONFIG_YAML_MAX_FILE + 1);
	if (buffer == NULL) {
		config_yaml_write(error, error_size, "%s: out of memory", path);
		close(fd);
		return false;
	}
	bool read_ok = config_yaml_read_all(fd, buffer, CONFIG_YAML_MAX_FILE, &used);
	int read_errno = errno;
	close(fd);
	if (!read_ok) {
		config_yaml_write(error, error_size, "%s: cannot read: %s", path,
		    strerror(read_errno));
		free(buffer);
		return false;
	}
	if (used > CONFIG_YAML_MAX_FILE) {
		config_yaml_write(error, error_size, "%s: larger than %d bytes, too large to load",
		    path, CONFIG_YAML_MAX_FILE);
		free(buffer);
		return false;
	}
	buffer[used] = '\0';
	*text = buffer;
	*length = used;
	return true;
}
