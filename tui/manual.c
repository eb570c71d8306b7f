/* hearth(1) compiled in (see manual.h): finding one command's entry in the
 * page as mandoc rendered it at build time, and the --dump-docs list the
 * docs tests check the pages against. */
#include "tui/manual.h"

#include <string.h>

#include "config/config.h"
#include "themes/theme.h"
#include "tui/action.h"
#include "tui/cli.h"

/* man/hearth.1 as `mandoc -Tascii` renders it (GNUmakefile); empty when
 * hearth was built without mandoc. */
extern const char manual_hearth_1[];
extern const size_t manual_hearth_1_length;

#define MANUAL_INDENT 5		/* where mandoc puts a section's text */
#define MANUAL_LINE_MAX 1024

struct manual_reader {
	const char *next, *end;
	char line[MANUAL_LINE_MAX];
};

/* The next line of the page without mandoc's overstrikes ("c\bc" is bold,
 * "_\bc" underlined); false at the end. */
static bool
manual_next_line(struct manual_reader *reader)
{
	size_t length = 0;

	if (reader->next >= reader->end)
		return false;
	const char *newline = memchr(reader->next, '\n', (size_t)(reader->end - reader->next));
	const char *stop = newline != NULL ? newline : reader->end;
	for (const char *at = reader->next; at < stop; at++) {
		if (at + 1 < stop && at[1] == '\b') {
			at++;
			continue;
		}
		if (length + 1 < sizeof reader->line)
			reader->line[length++] = *at;
	}
	reader->line[length] = '\0';
	reader->next = newline != NULL ? newline + 1 : reader->end;
	return true;
}

/* A synopsis line of an entry: the section's indent, then "hearth NAME".
 * Sets name to the command it names. */
static bool
manual_is_head(const char *line, const char **name, size_t *name_length)
{
	static const char prefix[] = "     hearth ";

	if (strncmp(line, prefix, sizeof prefix - 1) != 0)
		return false;
	*name = line + sizeof prefix - 1;
	*name_length = strcspn(*name, " ");
	return *name_length > 0;
}

/* line without the section's indent. */
static const char *
manual_dedent(const char *line)
{
	for (int i = 0; i < MANUAL_INDENT && *line == ' '; i++)
		line++;
	return line;
}

/* Writes name's entry, or only its synopsis lines when heads_only. */
static bool
manual_print_entry(const char *name, bool heads_only, FILE *out)
{
	struct manual_reader reader = {
		.next = manual_hearth_1, .end = manual_hearth_1 + manual_hearth_1_length,
	};
	bool in_section = false, in_entry = false, in_heads = false, head_open = false;
	size_t blank_lines = 0;

	while (manual_next_line(&reader)) {
		const char *line = reader.line, *head;
		size_t head_length;

		/* A synopsis too long for one line goes on, deeper indented, on
		 * the next: it joins its line again. */
		const char *rest = line + strspn(line, " ");
		if (head_open && rest > line + MANUAL_INDENT && (*rest == '[' || *rest == '|')) {
			fprintf(out, " %s", rest);
			continue;
		}
		if (head_open)
			fputc('\n', out);
		head_open = false;
		if (!in_section) {
			in_section = strcmp(line, "COMMANDS") == 0;
			continue;
		}
		if (line[0] != ' ' && line[0] != '\0')
			break;	/* the next section */
		if (manual_is_head(line, &head, &head_length)) {
			bool ours = head_length == strlen(name) && strncmp(head, name, head_length) == 0;
			if (in_entry && !ours)
				break;
			if (ours) {
				/* Synopsis lines stay together, under "usage:". */
				fprintf(out, "%s%s", in_entry ? "       " : "usage: ", manual_dedent(line));
				in_entry = in_heads = head_open = true;
				blank_lines = 0;
				continue;
			}
		}
		if (!in_entry)
			continue;
		if (heads_only && line[0] != '\0')
			break;
		if (line[0] == '\0') {
			blank_lines++;
			continue;
		}
		if (in_heads)
			blank_lines = 1;
		in_heads = false;
		for (; blank_lines > 0; blank_lines--)
			fputc('\n', out);
		fprintf(out, "%s\n", manual_dedent(line));
	}
	if (head_open)
		fputc('\n', out);
	return in_entry;
}

bool
manual_print_command(const char *name, FILE *out)
{
	return manual_print_entry(name, false, out);
}

bool
manual_print_usage(const char *name, FILE *out)
{
	return manual_print_entry(name, true, out);
}

int
manual_dump_docs(FILE *out)
{
	size_t key_count;
	const struct config_key_info *keys = config_keys(&key_count);

	for (size_t i = 0; i < cli_command_count; i++) {
		const struct cli_command *command = cli_commands[i];
		fprintf(out, "command\t%s\t%s\t%s\n", command->name, command->usage, command->summary);
		for (const struct cli_option *option = command->options; option->flags; option++) {
			char text[128];
			cli_option_text(option, text, sizeof text);
			fprintf(out, "option\t%s\t%s\t%s\n", command->name, text, option->help);
		}
	}
	for (size_t i = 0; i < key_count; i++)
		fprintf(out, "key\t%s\t%s\t%s\n", keys[i].name, keys[i].type, keys[i].default_text);
	for (int role = 0; role < THEME_ROLE_COUNT; role++)
		fprintf(out, "role\t%s\t%s\n", theme_role_name((enum theme_role)role),
		    theme_role_description((enum theme_role)role));
	for (int action = ACTION_NONE + 1; action < ACTION_COUNT; action++) {
		const struct action_info *info = action_info((enum action)action);
		char views[128], bound[96];
		fprintf(out, "binding\t%s\t%s\t%s\t%s\n",
		    action_scope_name(info->scope, views, sizeof views),
		    action_keys_text((enum action)action, bound, sizeof bound), info->name,
		    info->description);
	}
	return 0;
}
