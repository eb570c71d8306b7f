/* The version string the CLI and the app show. */
#include "backend/hearth.h"

const char *
hearth_version_string(void)
{
	return HEARTH_VERSION;
}
