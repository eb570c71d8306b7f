/* hearth's entry point: with no command it opens the full-screen app,
 * otherwise it runs one line-mode command (cli.c). */
#include <locale.h>

#include "tui/cli.h"

int
main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	return cli_run(argc, argv);
}
