/* One helper binary that reaches the backend's internals from the shell
 * tests, in the manner of git's t/helper/test-tool: a table of subcommands,
 * each a few lines over an internal API. Never installed. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend/hash.h"

static int
tool_hash(int argc, char **argv)
{
	struct hash digest;
	uint64_t size;
	char hex[HASH_HEX];

	if (argc != 2) {
		fputs("usage: hearth-test-tool hash FILE\n", stderr);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	struct hash_state *state = hash_begin();
	uint8_t block[65536];
	ssize_t n;
	size = 0;
	while ((n = read(fd, block, sizeof block)) > 0) {
		hash_update(state, block, (size_t)n);
		size += (uint64_t)n;
	}
	hash_finish(state, &digest);
	close(fd);
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	hash_hex(&digest, hex);
	printf("%s %llu\n", hex, (unsigned long long)size);
	return 0;
}

static const struct tool_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} tool_commands[] = {
	{ "hash", tool_hash, "hash FILE: print the blob id and size" },
};

int
main(int argc, char **argv)
{
	size_t count = sizeof tool_commands / sizeof *tool_commands;

	for (size_t i = 0; argc > 1 && i < count; i++)
		if (strcmp(argv[1], tool_commands[i].name) == 0)
			return tool_commands[i].run(argc - 1, argv + 1);
	fputs("usage: hearth-test-tool COMMAND ...\n", stderr);
	for (size_t i = 0; i < count; i++)
		fprintf(stderr, "  %s\n", tool_commands[i].help);
	return 2;
}
