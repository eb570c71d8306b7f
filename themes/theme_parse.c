/* Reading a theme file (format: the comment atop themes/default.yaml) into
 * a struct theme, over a base theme that supplies the roles the file leaves
 * out and each role's monochrome attributes. */
#include "themes/theme_parse.h"

#include <stdlib.h>
#include <string.h>

#include "config/yaml_tree.h"
#include "themes/colour.h"

static const char *const theme_top_names[] = { "roles" };
static const struct config_yaml_fields theme_top_fields = {
	theme_top_names, 1, "key", "",
};

static const struct config_yaml_fields theme_role_fields = {
	theme_role_names, THEME_ROLE_COUNT, "role", "",
};

enum theme_field { THEME_FG, THEME_BG, THEME_FG8, THEME_BG8, THEME_ATTRS, THEME_MONO };
static const char *const theme_field_names[] = { "fg", "bg", "fg8", "bg8", "attrs", "mono" };
static const struct config_yaml_fields theme_style_fields = {
	theme_field_names, 6, "key", " in a role",
};

static const char *const theme_attribute_names[] = {
	"bold", "underline", "reverse", "dim", "italic",
};
static const unsigned theme_attribute_bits[] = {
	THEME_BOLD, THEME_UNDERLINE, THEME_REVERSE, THEME_DIM_ATTR, THEME_ITALIC,
};

struct theme_reader {
	struct config_yaml yaml;
	struct theme *theme;
	const struct theme *base;
};

static void
theme_quote(const yaml_node_t *node, char *out, size_t out_size)
{
	config_yaml_quote((const char *)node->data.scalar.value, node->data.scalar.length, out,
	    out_size);
}

/* A colour for fg or bg (basic_only false) or for fg8 or bg8. */
static bool
theme_read_colour(struct theme_reader *reader, yaml_node_t *node, const char *field,
    bool basic_only, short *colour)
{
	const char *text = config_yaml_text(node);
	char quoted[256];

	if (text == NULL || config_yaml_is_null(node))
		return config_yaml_fail(&reader->yaml, node, "%s must be a colour, found %s", field,
		    config_yaml_kind(node));
	theme_quote(node, quoted, sizeof quoted);
	if (!theme_colour_read(text, colour)) {
		bool number = text[0] >= '0' && text[0] <= '9';
		const char *nearest = number ? NULL :
		    config_nearest_word(text, theme_colour_names, theme_colour_name_count);
		if (number)
			return config_yaml_fail(&reader->yaml, node,
			    "colour '%s' is not a colour name or a number from 0 to 255", quoted);
		if (nearest != NULL)
			return config_yaml_fail(&reader->yaml, node,
			    "unknown colour '%s'; did you mean '%s'?", quoted, nearest);
		return config_yaml_fail(&reader->yaml, node,
		    "unknown colour '%s' (expected default, black, red, green, yellow, blue, "
		    "magenta, cyan, white, bright-NAME or 0..255)", quoted);
	}
	if (basic_only && *colour > 7)
		return config_yaml_fail(&reader->yaml, node,
		    "%s takes default, one of the 8 basic colours or 0..7, found '%s'", field, quoted);
	return true;
}

static bool
theme_read_attribute(struct theme_reader *reader, yaml_node_t *node, unsigned *bits)
{
	const char *text = config_yaml_text(node);
	size_t count = sizeof theme_attribute_names / sizeof *theme_attribute_names;
	char quoted[256];

	if (text == NULL || config_yaml_is_null(node))
		return config_yaml_fail(&reader->yaml, node, "expected an attribute, found %s",
		    config_yaml_kind(node));
	for (size_t i = 0; i < count; i++) {
		if (strcmp(text, theme_attribute_names[i]) == 0) {
			*bits |= theme_attribute_bits[i];
			return true;
		}
	}
	theme_quote(node, quoted, sizeof quoted);
	const char *nearest = config_nearest_word(text, theme_attribute_names, count);
	if (nearest != NULL)
		return config_yaml_fail(&reader->yaml, node,
		    "unknown attribute '%s'; did you mean '%s'?", quoted, nearest);
	return config_yaml_fail(&reader->yaml, node,
	    "unknown attribute '%s' (expected bold, underline, reverse, dim or italic)", quoted);
}

/* attrs and mono: a list of attribute names, or one name alone. */
static bool
theme_read_attributes(struct theme_reader *reader, yaml_node_t *node, unsigned *bits)
{
	*bits = 0;
	if (node->type != YAML_SEQUENCE_NODE)
		return theme_read_attribute(reader, node, bits);
	for (yaml_node_item_t *item = node->data.sequence.items.start;
	    item < node->data.sequence.items.top; item++) {
		yaml_node_t *attribute = config_yaml_node(&reader->yaml, *item);
		if (attribute == NULL)
			return config_yaml_fail(&reader->yaml, node, "a list item is missing");
		if (!theme_read_attribute(reader, attribute, bits))
			return false;
	}
	return true;
}

/* The 8-colour form of a colour the file did not give one for. */
static void
theme_derive_fallback(struct theme_style *style, bool foreground8_given,
    bool background8_given)
{
	if (!foreground8_given)
		style->foreground8 = theme_colour_nearest_basic(style->foreground);
	if (!background8_given)
		style->background8 = theme_colour_nearest_basic(style->background);
	/* Two 256-colour shades can fall on one basic colour (dark grey on
	 * black); text must stay readable, so the derived foreground gives way. */
	if (!foreground8_given && style->foreground8 >= 0 &&
	    style->foreground8 == style->background8 && style->foreground != style->background)
		style->foreground8 = theme_colour_is_dark(style->background8) ? 7 : 0;
}

static bool
theme_read_style(struct theme_reader *reader, enum theme_role role, yaml_node_t *node)
{
	struct theme_style style = {
		.foreground = -1, .background = -1,
		.mono_attributes = reader->base->styles[role].mono_attributes,
	};
	yaml_node_t *values[6] = { 0 };

	if (node->type != YAML_MAPPING_NODE && !config_yaml_is_null(node))
		return config_yaml_fail(&reader->yaml, node,
		    "expected a map such as {fg: black, bg: cyan}, found %s", config_yaml_kind(node));
	if (node->type == YAML_MAPPING_NODE &&
	    !config_yaml_collect(&reader->yaml, node, &theme_style_fields, values))
		return false;
	if ((values[THEME_FG] &&
	     !theme_read_colour(reader, values[THEME_FG], "fg", false, &style.foreground)) ||
	    (values[THEME_BG] &&
	     !theme_read_colour(reader, values[THEME_BG], "bg", false, &style.background)) ||
	    (values[THEME_FG8] &&
	     !theme_read_colour(reader, values[THEME_FG8], "fg8", true, &style.foreground8)) ||
	    (values[THEME_BG8] &&
	     !theme_read_colour(reader, values[THEME_BG8], "bg8", true, &style.background8)) ||
	    (values[THEME_ATTRS] &&
	     !theme_read_attributes(reader, values[THEME_ATTRS], &style.attributes)) ||
	    (values[THEME_MONO] &&
	     !theme_read_attributes(reader, values[THEME_MONO], &style.mono_attributes)))
		return false;
	theme_derive_fallback(&style, values[THEME_FG8] != NULL, values[THEME_BG8] != NULL);
	reader->theme->styles[role] = style;
	reader->theme->role_given[role] = true;
	return true;
}

static bool
theme_visit_role(struct config_yaml *yaml, size_t role, yaml_node_t *key, yaml_node_t *value,
    void *context)
{
	return theme_read_style(context, (enum theme_role)role, value);
}

static bool
theme_visit_top(struct config_yaml *yaml, size_t field, yaml_node_t *key, yaml_node_t *value,
    void *context)
{
	if (config_yaml_is_null(value))
		return true;
	if (value->type != YAML_MAPPING_NODE)
		return config_yaml_fail(yaml, value, "expected a map of roles, found %s",
		    config_yaml_kind(value));
	return config_yaml_each_field(yaml, value, &theme_role_fields, theme_visit_role, context);
}

/* "themes/light.yaml" names the theme "light". */
static char *
theme_name_from_source(const char *source)
{
	const char *slash = strrchr(source, '/');
	const char *name = slash ? slash + 1 : source;
	size_t length = strlen(name);

	if (length > 5 && strcmp(name + length - 5, ".yaml") == 0)
		length -= 5;
	return strndup(name, length);
}

struct theme *
theme_parse_over(const struct theme *base, const char *text, size_t length,
    const char *source, char *error, size_t error_size)
{
	struct theme_reader reader = { .base = base };
	struct theme *theme = calloc(1, sizeof *theme);

	if (theme != NULL)
		theme->name = theme_name_from_source(source);
	if (theme == NULL || theme->name == NULL) {
		if (error != NULL && error_size > 0)
			snprintf(error, error_size, "%s: out of memory", source);
		theme_free(theme);
		return NULL;
	}
	memcpy(theme->styles, base->styles, sizeof theme->styles);
	reader.theme = theme;
	if (!config_yaml_open(&reader.yaml, text, length, source, error, error_size)) {
		theme_free(theme);
		return NULL;
	}
	yaml_node_t *root = config_yaml_root(&reader.yaml);
	bool ok = true;
	if (root != NULL && root->type != YAML_MAPPING_NODE)
		ok = config_yaml_fail(&reader.yaml, root,
		    "the top level must be a map holding roles:, found %s", config_yaml_kind(root));
	else if (root != NULL)
		ok = config_yaml_each_field(&reader.yaml, root, &theme_top_fields, theme_visit_top,
		    &reader);
	config_yaml_close(&reader.yaml);
	if (!ok) {
		theme_free(theme);
		return NULL;
	}
	return theme;
}
