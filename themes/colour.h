/* Colour names and numbers in theme files, and the fallback from xterm's
 * 256 colours to the 8 basic ones for terminals that have no more. Used by
 * the theme loader only. */
#ifndef HEARTH_THEMES_COLOUR_H
#define HEARTH_THEMES_COLOUR_H

#include <stdbool.h>
#include <stddef.h>

/* "default", then the 16 names of xterm's first colours in order. */
extern const char *const theme_colour_names[];
extern const size_t theme_colour_name_count;

/* A name or a number 0..255 as a colour (-1 for default). Returns false
 * when text is neither. */
bool theme_colour_read(const char *text, short *colour);

/* The nearest of the 8 basic colours (0..7) by xterm's RGB values; -1 stays
 * -1 and a bright colour 8..15 becomes its basic colour. */
short theme_colour_nearest_basic(short colour);

/* Black, red, blue and magenta read as dark: light text shows on them. */
bool theme_colour_is_dark(short basic_colour);

#endif
