/* gitignore-style patterns, compiled once into per-folder segments of
 * tokens. Matching never recurses: a segment against one name uses the
 * two-pointer wildcard algorithm (backtracking only to the last star), and
 * a pattern against a path runs its segments as a small automaton over the
 * path's names, which also yields the verdict for every parent folder in
 * the same pass. Hostile patterns cost at most O(pattern x path). */
#include "model/ignore.h"
#include "model/array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/arena.h"

#define NO_STAR SIZE_MAX

enum ignore_token_type {
	TOKEN_LITERAL,
	TOKEN_ANY,	/* ? */
	TOKEN_CLASS,	/* [...] */
	TOKEN_STAR,	/* * within one name */
};

struct ignore_token {
	enum ignore_token_type type;
	uint8_t byte;
	const uint8_t *class_bits;	/* 256 bits, for TOKEN_CLASS */
};

/* What a segment's tokens make, for the shapes most patterns have
 * ("name", "*.ext"), which need no wildcard matching. */
enum ignore_shape {
	SHAPE_ANY_TOKENS,
	SHAPE_LITERAL,		/* bytes alone: the name is them */
	SHAPE_STAR_LITERAL,	/* '*' then bytes: the name ends with them */
};

/* One folder level of a pattern; "**" alone is a segment matching any
 * number of levels. */
struct ignore_segment {
	bool any_depth;
	enum ignore_shape shape;
	struct ignore_token *tokens;
	size_t token_count;
};

struct ignore_pattern {
	bool negate;
	bool folders_only;	/* written with a trailing '/' */
	bool anchored;		/* matched against the whole path */
	struct ignore_segment *segments;
	size_t segment_count;
};

struct ignore_set {
	struct arena arena;
	struct ignore_pattern *patterns;
	size_t count;
};

/* ---- compiling ---------------------------------------------------------- */

struct ignore_parser {
	const uint8_t *text;
	size_t position;
	struct arena *arena;
	const char *error;
};

static void
class_set(uint8_t *bits, unsigned byte)
{
	bits[byte >> 3] |= (uint8_t)(1u << (byte & 7));
}

static bool
class_has(const uint8_t *bits, uint8_t byte)
{
	return bits[byte >> 3] & (1u << (byte & 7));
}

/* POSIX classes in the C locale: patterns must not change meaning with the
 * user's locale, or two replicas would ignore different files. */
static bool
class_named_member(const char *name, size_t length, unsigned c)
{
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9';
	bool graph = c > ' ' && c < 0x7f;

#define CLASS_IS(text) (length == sizeof(text) - 1 && memcmp(name, text, length) == 0)
	if (CLASS_IS("alpha"))
		return upper || lower;
	if (CLASS_IS("digit"))
		return digit;
	if (CLASS_IS("alnum"))
		return upper || lower || digit;
	if (CLASS_IS("upper"))
		return upper;
	if (CLASS_IS("lower"))
		return lower;
	if (CLASS_IS("space"))
		return c == ' ' || (c >= '\t' && c <= '\r');
	if (CLASS_IS("blank"))
		return c == ' ' || c == '\t';
	if (CLASS_IS("punct"))
		return graph && !upper && !lower && !digit;
	if (CLASS_IS("graph"))
		return graph;
	if (CLASS_IS("print"))
		return graph || c == ' ';
	if (CLASS_IS("cntrl"))
		return c < ' ' || c == 0x7f;
	if (CLASS_IS("xdigit"))
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
#undef CLASS_IS
	return false;
}

static bool
class_name_known(const char *name, size_t length)
{
	static const char *const names[] = { "alpha", "digit", "alnum", "upper", "lower",
		"space", "blank", "punct", "graph", "print", "cntrl", "xdigit" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strlen(names[i]) == length && memcmp(names[i], name, length) == 0)
			return true;
	return false;
}

static bool
parser_fail(struct ignore_parser *parser, const char *error)
{
	parser->error = error;
	return false;
}

/* "[:name:]" inside a class; *handled stays false when it is not one. The
 * look-ahead is bounded (the longest name is 6 bytes) so a pattern full of
 * "[:" cannot make compiling quadratic. */
static bool
parse_class_name(struct ignore_parser *parser, uint8_t *bits, bool *handled)
{
	const uint8_t *start = parser->text + parser->position + 2;
	size_t length = 0;

	*handled = false;
	while (length < 16 && start[length] != '\0' && start[length] != ']')
		length++;
	if (length < 2 || start[length] != ']' || start[length - 1] != ':')
		return true;
	length--;
	if (!class_name_known((const char *)start, length))
		return parser_fail(parser, "unknown character class");
	for (unsigned c = 0; c < 256; c++)
		if (class_named_member((const char *)start, length, c))
			class_set(bits, c);
	parser->position += 2 + length + 2;
	*handled = true;
	return true;
}

/* One byte of a class, honouring a backslash escape. */
static bool
parse_class_byte(struct ignore_parser *parser, uint8_t *out)
{
	uint8_t c = parser->text[parser->position];

	if (c == '\\') {
		c = parser->text[++parser->position];
		if (c == '\0')
			return parser_fail(parser, "unterminated [");
	}
	if (c == '/')
		return parser_fail(parser, "'/' inside [...]");
	*out = c;
	parser->position++;
	return true;
}

/* At '['; leaves position after the closing ']'. */
static bool
parse_class(struct ignore_parser *parser, struct ignore_token *token)
{
	uint8_t *bits = arena_alloc(parser->arena, 32);
	bool negate = false;

	memset(bits, 0, 32);
	parser->position++;
	if (parser->text[parser->position] == '!' || parser->text[parser->position] == '^') {
		negate = true;
		parser->position++;
	}
	for (bool first = true;; first = false) {
		uint8_t c = parser->text[parser->position], low, high;
		if (c == '\0')
			return parser_fail(parser, "unterminated [");
		if (c == ']' && !first) {
			parser->position++;
			break;
		}
		if (c == '[' && parser->text[parser->position + 1] == ':') {
			bool handled;
			if (!parse_class_name(parser, bits, &handled))
				return false;
			if (handled)
				continue;
		}
		if (!parse_class_byte(parser, &low))
			return false;
		high = low;
		if (parser->text[parser->position] == '-' && parser->text[parser->position + 1] != ']' &&
		    parser->text[parser->position + 1] != '\0') {
			parser->position++;
			if (!parse_class_byte(parser, &high))
				return false;
		}
		for (unsigned byte = low; byte <= high; byte++)
			class_set(bits, byte);
	}
	if (negate)
		for (int i = 0; i < 32; i++)
			bits[i] = (uint8_t)~bits[i];
	token->type = TOKEN_CLASS;
	token->class_bits = bits;
	return true;
}

/* Tokens of the segment [start, end) of the text; stars collapse. */
static enum ignore_shape
shape_of(const struct ignore_token *tokens, size_t count)
{
	size_t first = count > 0 && tokens[0].type == TOKEN_STAR ? 1 : 0;

	for (size_t i = first; i < count; i++)
		if (tokens[i].type != TOKEN_LITERAL)
			return SHAPE_ANY_TOKENS;
	return first ? SHAPE_STAR_LITERAL : SHAPE_LITERAL;
}

static bool
parse_segment(struct ignore_parser *parser, size_t end, struct ignore_segment *segment)
{
	size_t start = parser->position, count = 0;

	segment->tokens = arena_alloc(parser->arena, (end - start) * sizeof *segment->tokens);
	while (parser->position < end) {
		struct ignore_token *token = &segment->tokens[count];
		uint8_t c = parser->text[parser->position];
		if (c == '*') {
			parser->position++;
			if (count > 0 && segment->tokens[count - 1].type == TOKEN_STAR)
				continue;
			token->type = TOKEN_STAR;
		} else if (c == '?') {
			parser->position++;
			token->type = TOKEN_ANY;
		} else if (c == '[') {
			if (!parse_class(parser, token))
				return false;
		} else {
			if (c == '\\') {
				if (parser->position + 1 >= end)
					return parser_fail(parser, "trailing backslash");
				c = parser->text[++parser->position];
			}
			parser->position++;
			token->type = TOKEN_LITERAL;
			token->byte = c;
		}
		count++;
	}
	segment->token_count = count;
	segment->any_depth = end - start == 2 && memcmp(parser->text + start, "**", 2) == 0;
	segment->shape = shape_of(segment->tokens, count);
	return true;
}

/* End of the segment that starts at position: the next '/' that is not
 * escaped and not inside [...] (a '/' there is an error found later). */
static size_t
segment_end(const struct ignore_parser *parser, size_t length)
{
	size_t at = parser->position;

	while (at < length && parser->text[at] != '/') {
		if (parser->text[at] == '\\' && at + 1 < length)
			at++;
		else if (parser->text[at] == '[')
			while (at + 1 < length && parser->text[at + 1] != ']' && parser->text[at + 1] != '/')
				at++;
		at++;
	}
	return at;
}

/* A trailing "**" must match at least one level (what is inside a folder,
 * not the folder itself, as in git), so it becomes "*" then "**". */
static void
pattern_finish_segments(struct ignore_parser *parser, struct ignore_pattern *pattern,
    size_t count)
{
	size_t kept = 0;

	for (size_t i = 0; i < count; i++) {
		if (kept > 0 && pattern->segments[i].any_depth && pattern->segments[kept - 1].any_depth)
			continue;
		pattern->segments[kept++] = pattern->segments[i];
	}
	if (pattern->anchored && pattern->segments[kept - 1].any_depth) {
		struct ignore_token *star = arena_alloc(parser->arena, sizeof *star);
		star->type = TOKEN_STAR;
		pattern->segments[kept - 1] = (struct ignore_segment){ .tokens = star, .token_count = 1,
			.shape = SHAPE_STAR_LITERAL };
		pattern->segments[kept++] = (struct ignore_segment){ .any_depth = true };
	}
	pattern->segment_count = kept;
}

static bool
parse_pattern(struct ignore_parser *parser, bool allow_negate, struct ignore_pattern *pattern)
{
	size_t length = strlen((const char *)parser->text);

	memset(pattern, 0, sizeof *pattern);
	if (allow_negate && parser->text[0] == '!') {
		pattern->negate = true;
		parser->position = 1;
	}
	while (length > parser->position && parser->text[length - 1] == '/' &&
	    (length < 2 || parser->text[length - 2] != '\\')) {
		pattern->folders_only = true;
		length--;
	}
	if (parser->position < length && parser->text[parser->position] == '/') {
		pattern->anchored = true;
		parser->position++;
	}
	if (parser->position >= length)
		return parser_fail(parser, "empty pattern");

	/* A segment per '/', plus one for a trailing "**" split in two. */
	size_t capacity = 2;
	for (size_t i = parser->position; i < length; i++)
		capacity += parser->text[i] == '/';
	pattern->segments = arena_alloc(parser->arena, capacity * sizeof *pattern->segments);
	size_t count = 0;
	while (parser->position <= length) {
		size_t end = segment_end(parser, length);
		if (end == parser->position)
			return parser_fail(parser, "empty folder name (\"//\")");
		if (!parse_segment(parser, end, &pattern->segments[count++]))
			return false;
		parser->position = end + 1;
	}
	pattern->anchored |= count > 1;
	pattern_finish_segments(parser, pattern, count);
	return true;
}

static bool
compile_one(struct arena *arena, const char *text, bool allow_negate,
    struct ignore_pattern *pattern, const char **error)
{
	struct ignore_parser parser = { .text = (const uint8_t *)text, .arena = arena };

	if (!parse_pattern(&parser, allow_negate, pattern)) {
		*error = parser.error;
		return false;
	}
	return true;
}

struct ignore_set *
ignore_compile(const char *const *patterns, size_t count, char *error, size_t error_size)
{
	struct arena arena;
	const char *reason = NULL;

	arena_init(&arena, 0);
	struct ignore_set *set = arena_alloc(&arena, sizeof *set);
	set->patterns = arena_alloc(&arena, count * sizeof *set->patterns);
	set->count = count;
	for (size_t i = 0; i < count; i++) {
		if (patterns[i] == NULL || !compile_one(&arena, patterns[i], true, &set->patterns[i], &reason)) {
			snprintf(error, error_size, "ignore pattern %zu \"%s\": %s", i + 1,
			    patterns[i] ? patterns[i] : "(null)", reason ? reason : "missing");
			arena_free(&arena);
			return NULL;
		}
	}
	set->arena = arena;
	return set;
}

void
ignore_free(struct ignore_set *set)
{
	if (set == NULL)
		return;
	struct arena arena = set->arena;
	arena_free(&arena);
}

/* ---- matching ----------------------------------------------------------- */

static bool
token_matches(const struct ignore_token *token, uint8_t byte)
{
	switch (token->type) {
	case TOKEN_LITERAL:
		return token->byte == byte;
	case TOKEN_ANY:
		return true;
	case TOKEN_CLASS:
		return class_has(token->class_bits, byte);
	case TOKEN_STAR:
		break;
	}
	return false;
}

/* One segment against one name: on a mismatch, the last star takes one
 * more byte and matching resumes after it. */
/* The name is the literal tokens from first on, or ends with them. */
static bool
literals_match(const struct ignore_token *tokens, size_t count, const uint8_t *bytes)
{
	for (size_t i = 0; i < count; i++)
		if (tokens[i].byte != bytes[i])
			return false;
	return true;
}

static bool
segment_matches(const struct ignore_segment *segment, const uint8_t *name, size_t length)
{
	const struct ignore_token *tokens = segment->tokens;
	size_t token = 0, at = 0, star = NO_STAR, star_at = 0;

	if (segment->shape == SHAPE_LITERAL)
		return length == segment->token_count &&
		    literals_match(tokens, segment->token_count, name);
	if (segment->shape == SHAPE_STAR_LITERAL) {
		size_t tail = segment->token_count - 1;
		return length >= tail && literals_match(tokens + 1, tail, name + length - tail);
	}

	while (at < length) {
		if (token < segment->token_count && tokens[token].type == TOKEN_STAR) {
			star = token++;
			star_at = at;
		} else if (token < segment->token_count && token_matches(&tokens[token], name[at])) {
			token++;
			at++;
		} else if (star != NO_STAR) {
			token = star + 1;
			at = ++star_at;
		} else {
			return false;
		}
	}
	while (token < segment->token_count && tokens[token].type == TOKEN_STAR)
		token++;
	return token == segment->token_count;
}

static size_t
name_end(const uint8_t *path, size_t length, size_t start)
{
	const uint8_t *slash = memchr(path + start, '/', length - start);
	return slash ? (size_t)(slash - path) : length;
}

/* Adds the states reachable without reading a name: past each "**". */
static void
states_close(const struct ignore_pattern *pattern, uint8_t *states)
{
	for (size_t i = 0; i < pattern->segment_count; i++)
		if (states[i] && pattern->segments[i].any_depth)
			states[i + 1] = 1;
}

/* Reads one name: a "**" keeps its state, a segment that matches the name
 * moves to the next. false when no state is left. */
static bool
states_step(const struct ignore_pattern *pattern, const uint8_t *current, uint8_t *next,
    const uint8_t *name, size_t length)
{
	bool alive = false;

	memset(next, 0, pattern->segment_count + 1);
	for (size_t i = 0; i < pattern->segment_count; i++) {
		if (!current[i])
			continue;
		if (pattern->segments[i].any_depth)
			next[i] = 1;
		else if (segment_matches(&pattern->segments[i], name, length))
			next[i + 1] = 1;
		alive |= next[i] || next[i + 1];
	}
	states_close(pattern, next);
	return alive;
}

/* What a caller of the matchers provides: the verdict per depth and room
 * for one pattern's states. */
struct ignore_scratch {
	int32_t *decider;	/* per depth: the last pattern matching that prefix, or -1 */
	uint8_t *states;	/* 2 x (segments + 1) */
};

static bool
pattern_applies(const struct ignore_pattern *pattern, size_t depth, size_t total, bool is_dir)
{
	return !pattern->folders_only || depth < total || is_dir;
}

/* Marks every prefix of the path (every depth) that the pattern matches:
 * an anchored pattern runs as a small automaton over the path's names,
 * one pass for all prefixes, so the cost is names x segments. */
static void
pattern_mark(const struct ignore_pattern *pattern, int32_t index, const uint8_t *path,
    size_t length, size_t total, bool is_dir, struct ignore_scratch *scratch)
{
	uint8_t *current = scratch->states, *next = scratch->states + pattern->segment_count + 1;
	size_t depth = 0;

	memset(current, 0, pattern->segment_count + 1);
	current[0] = 1;
	states_close(pattern, current);
	for (size_t at = 0; at <= length; depth++) {
		size_t end = name_end(path, length, at);
		bool matched, alive = true;
		if (!pattern->anchored) {
			matched = segment_matches(&pattern->segments[0], path + at, end - at);
		} else {
			alive = states_step(pattern, current, next, path + at, end - at);
			uint8_t *swap = current;
			current = next;
			next = swap;
			matched = current[pattern->segment_count];
		}
		if (matched && pattern_applies(pattern, depth + 1, total, is_dir))
			scratch->decider[depth] = index;
		if (!alive)
			return;
		at = end + 1;
	}
}

static size_t
path_depth(const uint8_t *path, size_t length)
{
	size_t depth = 1;
	for (size_t i = 0; i < length; i++)
		depth += path[i] == '/';
	return depth;
}

static size_t
patterns_max_segments(const struct ignore_pattern *patterns, size_t count)
{
	size_t most = 1;
	for (size_t i = 0; i < count; i++)
		if (patterns[i].segment_count > most)
			most = patterns[i].segment_count;
	return most;
}

/* A prefix (a parent folder, or the path) is ignored when the last pattern
 * matching it is not a '!'; the path is ignored when any prefix is, since
 * as in git nothing inside an ignored folder can be re-included. Small
 * paths and patterns use the stack; others one allocation. */
static bool
patterns_ignore_path(const struct ignore_pattern *patterns, size_t count, const char *text,
    bool is_dir)
{
	const uint8_t *path = (const uint8_t *)text;
	size_t length = strlen(text);
	int32_t decider_small[64];
	uint8_t states_small[2 * 64];
	struct ignore_scratch scratch = { decider_small, states_small };
	void *allocated = NULL;
	bool ignored = false;

	if (length == 0 || count == 0)
		return false;
	size_t depth = path_depth(path, length);
	size_t states = 2 * (patterns_max_segments(patterns, count) + 1);
	if (depth > 64 || states > sizeof states_small) {
		allocated = array_alloc(1, depth * sizeof *scratch.decider + states);
		scratch.decider = allocated;
		scratch.states = (uint8_t *)(scratch.decider + depth);
	}
	for (size_t i = 0; i < depth; i++)
		scratch.decider[i] = -1;
	for (size_t i = 0; i < count; i++)
		pattern_mark(&patterns[i], (int32_t)i, path, length, depth, is_dir, &scratch);
	for (size_t i = 0; i < depth && !ignored; i++)
		ignored = scratch.decider[i] >= 0 && !patterns[scratch.decider[i]].negate;
	free(allocated);
	return ignored;
}

bool
ignore_match(const struct ignore_set *set, const char *path, bool is_dir)
{
	if (set == NULL)
		return false;
	return patterns_ignore_path(set->patterns, set->count, path, is_dir);
}

/* Where pattern i's states start in a folder's states: patterns in
 * order, segment_count + 1 each. */
static size_t
states_offset(const struct ignore_set *set, size_t pattern)
{
	size_t offset = 0;
	for (size_t i = 0; i < pattern; i++)
		offset += set->patterns[i].segment_count + 1;
	return offset;
}

void
ignore_folder_open(const struct ignore_set *set, const char *folder_path,
    struct ignore_folder *out)
{
	memset(out, 0, sizeof *out);
	if (set == NULL || set->count == 0)
		return;
	out->ignored = patterns_ignore_path(set->patterns, set->count, folder_path, true);
	size_t total = states_offset(set, set->count);
	out->states = array_alloc(total, 1);
	out->scratch = array_alloc(patterns_max_segments(set->patterns, set->count) + 1, 1);
	const uint8_t *path = (const uint8_t *)folder_path;
	size_t length = strlen(folder_path);
	for (size_t i = 0; i < set->count; i++) {
		const struct ignore_pattern *pattern = &set->patterns[i];
		uint8_t *current = out->states + states_offset(set, i);
		memset(current, 0, pattern->segment_count + 1);
		current[0] = 1;
		states_close(pattern, current);
		if (!pattern->anchored)
			continue;
		/* Each name of the folder's path, as pattern_mark reads them. */
		for (size_t at = 0; length > 0 && at <= length;) {
			size_t end = name_end(path, length, at);
			bool alive = states_step(pattern, current, out->scratch, path + at, end - at);
			memcpy(current, out->scratch, pattern->segment_count + 1);
			if (!alive)
				break;
			at = end + 1;
		}
	}
}

bool
ignore_match_in(const struct ignore_set *set, const struct ignore_folder *folder,
    const char *name, size_t length, bool is_dir)
{
	if (set == NULL || set->count == 0)
		return false;
	if (folder->ignored)
		return true;
	const uint8_t *bytes = (const uint8_t *)name;
	int32_t decider = -1;
	size_t offset = 0;
	for (size_t i = 0; i < set->count; i++) {
		const struct ignore_pattern *pattern = &set->patterns[i];
		bool matched;
		if (!pattern->anchored) {
			matched = segment_matches(&pattern->segments[0], bytes, length);
		} else {
			states_step(pattern, folder->states + offset, folder->scratch, bytes, length);
			matched = folder->scratch[pattern->segment_count];
		}
		offset += pattern->segment_count + 1;
		if (matched && (!pattern->folders_only || is_dir))
			decider = (int32_t)i;
	}
	return decider >= 0 && !set->patterns[decider].negate;
}

void
ignore_folder_close(struct ignore_folder *folder)
{
	free(folder->states);
	free(folder->scratch);
	memset(folder, 0, sizeof *folder);
}

bool
ignore_glob_match(const char *pattern, const char *path)
{
	struct ignore_pattern compiled;
	struct arena arena;
	const char *error;
	bool matched = false;

	arena_init(&arena, 4096);
	if (compile_one(&arena, pattern, false, &compiled, &error))
		matched = patterns_ignore_path(&compiled, 1, path, false);
	arena_free(&arena);
	return matched;
}
