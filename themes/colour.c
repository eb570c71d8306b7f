/* Colour names and the 256-to-8 fallback (see colour.h). The RGB values are
 * xterm's defaults, the palette most terminals copy; "nearest" is plain
 * squared distance in RGB, which is all eight colours can honour. */
#include "themes/colour.h"

#include <string.h>

const char *const theme_colour_names[] = {
	"default",
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright-black", "bright-red", "bright-green", "bright-yellow",
	"bright-blue", "bright-magenta", "bright-cyan", "bright-white",
};

const size_t theme_colour_name_count = sizeof theme_colour_names / sizeof *theme_colour_names;

bool
theme_colour_read(const char *text, short *colour)
{
	for (size_t i = 0; i < theme_colour_name_count; i++) {
		if (strcmp(text, theme_colour_names[i]) == 0) {
			*colour = (short)((int)i - 1);
			return true;
		}
	}
	if (text[0] < '0' || text[0] > '9' || strlen(text) > 3)
		return false;
	int value = 0;
	for (; *text != '\0'; text++) {
		if (*text < '0' || *text > '9')
			return false;
		value = value * 10 + (*text - '0');
	}
	if (value > 255)
		return false;
	*colour = (short)value;
	return true;
}

static void
theme_colour_rgb(short colour, int rgb[3])
{
	static const unsigned char first16[16][3] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
		{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
		{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
		{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
	};
	static const int cube_levels[6] = { 0, 95, 135, 175, 215, 255 };

	if (colour < 16) {
		for (int i = 0; i < 3; i++)
			rgb[i] = first16[colour][i];
	} else if (colour < 232) {
		int cube = colour - 16;
		rgb[0] = cube_levels[cube / 36];
		rgb[1] = cube_levels[(cube / 6) % 6];
		rgb[2] = cube_levels[cube % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (colour - 232);
	}
}

short
theme_colour_nearest_basic(short colour)
{
	int target[3], candidate[3];
	short nearest = 0;
	long nearest_distance = -1;

	if (colour < 0 || colour > 255)
		return -1;
	if (colour < 16)
		return (short)(colour % 8);
	theme_colour_rgb(colour, target);
	for (short basic = 0; basic < 8; basic++) {
		theme_colour_rgb(basic, candidate);
		long distance = 0;
		for (int i = 0; i < 3; i++)
			distance += (long)(target[i] - candidate[i]) * (target[i] - candidate[i]);
		if (nearest_distance < 0 || distance < nearest_distance) {
			nearest = basic;
			nearest_distance = distance;
		}
	}
	return nearest;
}

bool
theme_colour_is_dark(short basic_colour)
{
	return basic_colour == 0 || basic_colour == 1 || basic_colour == 4 || basic_colour == 5;
}
