/* hearth's entry point: with no command it opens the full-screen app,
 * otherwise it runs one line-mode command (see cli.c). */
#include <stdio.h>
#include <string.h>

#include "backend/hearth.h"

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "version") == 0) {
		printf("hearth %s\n", hearth_version_string());
		return 0;
	}
	fprintf(stderr, "hearth: usage: hearth version\n");
	return 2;
}
