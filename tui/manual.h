/* hearth(1) inside the program, so the help and the page are one text:
 * the build renders man/hearth.1 with mandoc and compiles the result in
 * (like config/default.yaml), and `hearth help CMD` prints CMD's entry of
 * its COMMANDS section. Also the hidden `hearth --dump-docs` list that the
 * docs tests and the shell completions read. */
#ifndef HEARTH_TUI_MANUAL_H
#define HEARTH_TUI_MANUAL_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the entry of hearth(1) for command name as the page shows it,
 * with its synopsis lines as "usage: hearth ..." and its text under them.
 * Returns false, writing nothing, when the page has no entry for name (or
 * hearth was built without mandoc). */
bool manual_print_command(const char *name, FILE *out);
/* Only the entry's synopsis lines, "usage: hearth ...", for usage errors. */
bool manual_print_usage(const char *name, FILE *out);

/* `hearth --dump-docs`: what the program accepts, one record a line, tab
 * separated, first field the record's kind:
 *   command  NAME  USAGE  SUMMARY          the CLI's command table
 *   option   COMMAND  OPTION  DESCRIPTION  "-m, --message MSG"
 *   key      NAME  TYPE  DEFAULT           the config's option table
 *   role     NAME  DESCRIPTION             the theme roles
 *   binding  VIEWS  KEYS  ACTION  DESCRIPTION   the app's action table,
 *            VIEWS named as the help overlay's section titles
 * Returns the exit status. */
int manual_dump_docs(FILE *out);

#endif
