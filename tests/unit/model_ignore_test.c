/* Unit tests of model/ignore: git's pattern semantics, table-driven, the
 * compile errors, single globs, and hostile patterns that would take
 * exponential time with a recursive matcher. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/ignore.h"
#include "tests/unit/tap.h"

#define PATTERNS_MAX 4

struct match_case {
	const char *patterns[PATTERNS_MAX];
	const char *path;
	bool is_dir;
	bool ignored;
};

static const struct match_case match_cases[] = {
	/* no '/': a name at any depth */
	{ { "*.swp" }, "a.swp", false, true },
	{ { "*.swp" }, "deep/er/a.swp", false, true },
	{ { "*.swp" }, "a.swpx", false, false },
	{ { "*~" }, "notes.txt~", false, true },
	{ { "frotz" }, "a/frotz", false, true },
	{ { "frotz" }, "a/frotz/inside", false, true },
	{ { "*" }, "anything/at/all", false, true },
	{ { "*" }, ".hidden", false, true },
	/* trailing '/': folders only, and what is inside them */
	{ { ".cache/" }, ".cache", true, true },
	{ { ".cache/" }, ".cache", false, false },
	{ { ".cache/" }, "x/.cache/y", false, true },
	{ { "a/b/" }, "a/b", true, true },
	{ { "a/b/" }, "a/b", false, false },
	/* leading '/' or a '/' inside: anchored */
	{ { "/build" }, "build", true, true },
	{ { "/build" }, "build/x.o", false, true },
	{ { "/build" }, "src/build", true, false },
	{ { "doc/frotz" }, "doc/frotz", false, true },
	{ { "doc/frotz" }, "a/doc/frotz", false, false },
	{ { "doc/*.txt" }, "doc/a.txt", false, true },
	{ { "doc/*.txt" }, "doc/sub/a.txt", false, false },
	/* "**" */
	{ { "docs/**" }, "docs", true, false },
	{ { "docs/**" }, "docs/a", false, true },
	{ { "docs/**" }, "docs/a/b", false, true },
	{ { "docs/**" }, "x/docs/a", false, false },
	{ { "**/foo" }, "foo", false, true },
	{ { "**/foo" }, "a/b/foo", false, true },
	{ { "**/foo/bar" }, "x/foo/bar", false, true },
	{ { "**/foo/bar" }, "x/foo/baz", false, false },
	{ { "a/**/b" }, "a/b", false, true },
	{ { "a/**/b" }, "a/x/y/b", false, true },
	{ { "a/**/b" }, "a/x/c", false, false },
	{ { "a/**/**/b" }, "a/x/b", false, true },
	{ { "a/**/" }, "a/b", true, true },
	{ { "a/**/" }, "a/b", false, false },
	{ { "a/**/" }, "a/b/c", false, true },
	{ { "/**" }, "x", false, true },
	{ { "**" }, "x/y", false, true },
	{ { "a**b" }, "axxb", false, true },
	{ { "a**b" }, "a/b", false, false },
	/* '!' and the last match */
	{ { "*.swp", "!keep.swp" }, "keep.swp", false, false },
	{ { "*.swp", "!keep.swp" }, "drop.swp", false, true },
	{ { "!keep.swp", "*.swp" }, "keep.swp", false, true },
	{ { "build/", "!build/keep" }, "build/keep", false, true },
	{ { "build/*", "!build/keep" }, "build/keep", false, false },
	{ { "build/*", "!build/keep" }, "build/other", false, true },
	{ { "*", "!*/" }, "dir", true, false },
	{ { "*", "!*/" }, "dir/file", false, true },
	/* ? [] and escapes, within one name */
	{ { "?.c" }, "a.c", false, true },
	{ { "?.c" }, "ab.c", false, false },
	{ { "a?b" }, "a/b", false, false },
	{ { "a*b" }, "a/b", false, false },
	{ { "[abc].c" }, "b.c", false, true },
	{ { "[abc].c" }, "d.c", false, false },
	{ { "[!abc].c" }, "d.c", false, true },
	{ { "[!abc].c" }, "a.c", false, false },
	{ { "[^a]" }, "b", false, true },
	{ { "[a-c]x" }, "bx", false, true },
	{ { "[a-c]x" }, "dx", false, false },
	{ { "[]]" }, "]", false, true },
	{ { "[a-]" }, "-", false, true },
	{ { "[z-a]" }, "m", false, false },
	{ { "[\\]]" }, "]", false, true },
	{ { "[[:digit:]]*" }, "9lives", false, true },
	{ { "[[:digit:]]*" }, "x9", false, false },
	{ { "[[:upper:][:space:]]" }, " ", false, true },
	{ { "\\*" }, "*", false, true },
	{ { "\\*" }, "a", false, false },
	{ { "\\!important" }, "!important", false, true },
	{ { "#literal" }, "#literal", false, true },
	{ { "trailing " }, "trailing ", false, true },
	{ { "trailing " }, "trailing", false, false },
	/* bytes, not characters */
	{ { "caf\xc3\xa9*" }, "caf\xc3\xa9s", false, true },
	{ { "?" }, "\xff", false, true },
	{ { "?" }, "\xc3\xa9", false, false },
	{ { "[\x80-\xff]" }, "\xe9", false, true },
	/* the top and odd paths */
	{ { "*" }, "", true, false },
	{ { "a" }, "a/", true, true },
	{ { "a" }, "b//a", false, true },
};

/* ignore_match_in for path, from its folder's state. */
static bool
match_in_folder(const struct ignore_set *set, const char *path, bool is_dir)
{
	char folder_path[256];
	const char *slash = strrchr(path, '/');
	size_t folder_length = slash != NULL ? (size_t)(slash - path) : 0;
	const char *name = slash != NULL ? slash + 1 : path;
	struct ignore_folder folder;

	snprintf(folder_path, sizeof folder_path, "%.*s", (int)folder_length, path);
	ignore_folder_open(set, folder_path, &folder);
	bool ignored = ignore_match_in(set, &folder, name, strlen(name), is_dir);
	ignore_folder_close(&folder);
	return ignored;
}

static void
test_match_table(void)
{
	for (size_t i = 0; i < sizeof match_cases / sizeof *match_cases; i++) {
		const struct match_case *test = &match_cases[i];
		size_t count = 0;
		char error[256] = "";
		while (count < PATTERNS_MAX && test->patterns[count] != NULL)
			count++;
		struct ignore_set *set = ignore_compile(test->patterns, count, error, sizeof error);
		if (!ok(set != NULL, "case %zu compiles %s", i, error))
			continue;
		ok(ignore_match(set, test->path, test->is_dir) == test->ignored,
		    "case %zu: \"%s\"%s %s \"%s%s\"", i, test->patterns[0], count > 1 ? " ..." : "",
		    test->ignored ? "ignores" : "keeps", test->path, test->is_dir ? "/" : "");
		if (test->path[0] != '\0' && strstr(test->path, "//") == NULL &&
		    test->path[strlen(test->path) - 1] != '/')
			ok(match_in_folder(set, test->path, test->is_dir) == test->ignored,
			    "case %zu by its folder: %s \"%s\"", i,
			    test->ignored ? "ignores" : "keeps", test->path);
		ignore_free(set);
	}
	ok(!ignore_match(NULL, "a", false), "no set ignores nothing");
}

static void
test_errors(void)
{
	static const struct {
		const char *pattern;
		const char *reason;
	} cases[] = {
		{ "", "empty pattern" },
		{ "!", "empty pattern" },
		{ "/", "empty pattern" },
		{ "!/", "empty pattern" },
		{ "a//b", "//" },
		{ "[abc", "unterminated [" },
		{ "a[/]", "'/' inside" },
		{ "[[:nope:]]", "unknown character class" },
		{ "abc\\", "trailing backslash" },
		{ "[a\\", "unterminated [" },
		{ "[[:alpha:]", "unterminated [" },
	};
	char error[256];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *patterns[2] = { "*.ok", cases[i].pattern };
		struct ignore_set *set = ignore_compile(patterns, 2, error, sizeof error);
		ok(set == NULL && strstr(error, cases[i].reason) != NULL && strstr(error, "pattern 2") != NULL,
		    "\"%s\" is refused: %s", cases[i].pattern, set ? "(compiled)" : error);
		ignore_free(set);
	}
	const char *null_pattern[1] = { NULL };
	ok(ignore_compile(null_pattern, 1, error, sizeof error) == NULL, "a NULL pattern is refused");
	struct ignore_set *empty = ignore_compile(NULL, 0, error, sizeof error);
	ok(empty != NULL && !ignore_match(empty, "a", false), "no patterns ignore nothing");
	ignore_free(empty);
	ignore_free(NULL);
}

static void
test_glob(void)
{
	static const struct {
		const char *pattern;
		const char *path;
		bool matches;
	} cases[] = {
		{ "Videos/**", "Videos/a.mkv", true },
		{ "Videos/**", "Videos/deep/a.mkv", true },
		{ "Videos/**", "Videos", false },
		{ "Videos/**", "Music/a.mkv", false },
		{ "*.iso", "a/b/c.iso", true },
		{ "/top/*", "top/a", true },
		{ "/top/*", "x/top/a", false },
		{ "Videos/", "Videos/a.mkv", true },
		{ "Videos/", "Videos", false },
		{ "!x", "!x", true },
		{ "[", "[", false },
		{ "", "a", false },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ok(ignore_glob_match(cases[i].pattern, cases[i].path) == cases[i].matches,
		    "glob \"%s\" %s \"%s\"", cases[i].pattern, cases[i].matches ? "matches" : "misses",
		    cases[i].path);
}

static void
repeat(char *out, size_t size, const char *unit, size_t count, const char *tail)
{
	size_t length = 0, unit_length = strlen(unit);

	for (size_t i = 0; i < count && length + unit_length + 1 < size; i++) {
		memcpy(out + length, unit, unit_length);
		length += unit_length;
	}
	snprintf(out + length, size - length, "%s", tail);
}

/* Inputs that make backtracking matchers exponential: the automaton
 * answers them right, and at all (a backtracking one would not end
 * before the hang bound; speed itself is perf/'s question). */
static void
test_hostile(void)
{
	static char pattern[16384], path[16384];
	char error[256];

	tap_hang_bound(300, "hostile patterns");

	repeat(pattern, sizeof pattern, "*", 40, "x");
	repeat(path, sizeof path, "a", 4000, "");
	ok(!ignore_glob_match(pattern, path), "40 stars against 4000 bytes");

	repeat(pattern, sizeof pattern, "*a", 40, "b");
	ok(!ignore_glob_match(pattern, path), "*a*a...*b against a long run of a");

	repeat(pattern, sizeof pattern, "**/a/", 40, "b");
	repeat(path, sizeof path, "a/", 2000, "a");
	ok(!ignore_glob_match(pattern, path), "**/a/**/a/.../b against 2000 folders");

	repeat(pattern, sizeof pattern, "**/", 40, "a");
	ok(ignore_glob_match(pattern, path), "**/**/.../a against 2000 folders");

	repeat(pattern, sizeof pattern, "[[:", 3000, "");
	const char *hostile[3] = { "a*a*a*a*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*b/**", pattern };
	ok(ignore_compile(hostile + 2, 1, error, sizeof error) == NULL, "[[:[[:... is refused");
	struct ignore_set *set = ignore_compile(hostile, 2, error, sizeof error);
	repeat(path, sizeof path, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", 400, "a");
	ok(set != NULL && !ignore_match(set, path, false), "several hostile patterns, deep path");
	ignore_free(set);

	tap_hang_bound(0, NULL);
}

/* Every byte string as a pattern compiles or fails cleanly, and matching
 * it never crashes: a tiny deterministic fuzz over short strings. */
static void
test_fuzz(void)
{
	static const char alphabet[] = "*?[]!^-/\\:a.";
	uint64_t state = 12345;
	char pattern[12], error[128];
	size_t compiled = 0;

	for (int round = 0; round < 20000; round++) {
		size_t length = 0;
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		for (uint64_t bits = state; length < 1 + (state >> 60) % 11; bits >>= 4)
			pattern[length++] = alphabet[(bits & 0xf) % (sizeof alphabet - 1)];
		pattern[length] = '\0';
		const char *patterns[1] = { pattern };
		struct ignore_set *set = ignore_compile(patterns, 1, error, sizeof error);
		if (set != NULL) {
			compiled++;
			ignore_match(set, "a/.a/a.a/:", false);
			ignore_match(set, "a", true);
		}
		ignore_glob_match(pattern, "a/b");
		ignore_free(set);
	}
	ok(compiled > 1000, "random patterns compile or fail cleanly (%zu compiled)", compiled);
}

/* The folder's state gives every path the verdict the whole path gets:
 * random sets of up to three patterns (anchored, "**", '!', trailing '/')
 * against random paths up to five names deep. */
static void
test_folder_state_equal(void)
{
	static const char *const pieces[] = { "a", "b", "*", "?", "a*", "**", "[ab]", "x.swp",
		"*.swp", "c" };
	static const char *const names[] = { "a", "b", "c", "x.swp", "ab", "ba", ".c" };
	uint64_t state = 777;
	size_t compared = 0, differ = 0;

	for (int round = 0; round < 3000; round++) {
		char texts[3][64];
		const char *patterns[3];
		size_t count = 1 + round % 3;
		for (size_t p = 0; p < count; p++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t bits = state >> 8;
			size_t at = 0;
			if (bits & 1)
				texts[p][at++] = '!';
			bits >>= 1;
			if (bits & 1)
				texts[p][at++] = '/';
			bits >>= 1;
			size_t levels = 1 + bits % 3;
			bits >>= 2;
			for (size_t l = 0; l < levels; l++, bits >>= 4) {
				at += (size_t)snprintf(texts[p] + at, sizeof texts[p] - at, "%s%s",
				    l ? "/" : "", pieces[bits % 10]);
			}
			if (bits & 1)
				texts[p][at++] = '/';
			texts[p][at] = '\0';
			patterns[p] = texts[p];
		}
		char error[128];
		struct ignore_set *set = ignore_compile(patterns, count, error, sizeof error);
		if (set == NULL)
			continue;
		for (int walk = 0; walk < 8; walk++) {
			char path[128] = "";
			size_t at = 0;
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t bits = state >> 8;
			size_t depth = 1 + bits % 5;
			bits >>= 3;
			for (size_t d = 0; d < depth; d++, bits >>= 3)
				at += (size_t)snprintf(path + at, sizeof path - at, "%s%s", d ? "/" : "",
				    names[bits % 7]);
			bool is_dir = bits & 1;
			compared++;
			if (ignore_match(set, path, is_dir) != match_in_folder(set, path, is_dir) &&
			    differ++ == 0)
				tap_diag("first difference: %s%s%s%s against \"%s%s\"", patterns[0],
				    count > 1 ? ", " : "", count > 1 ? patterns[1] : "",
				    count > 2 ? ", ..." : "", path, is_dir ? "/" : "");
		}
		ignore_free(set);
	}
	ok(compared > 10000 && differ == 0, "a folder's state gives each path the whole path's "
	    "verdict (%zu paths, %zu differ)", compared, differ);
}

int
main(void)
{
	test_match_table();
	test_errors();
	test_glob();
	test_hostile();
	test_fuzz();
	test_folder_state_equal();
	return tap_done();
}
