/* Fuzz target: the config parser (config/), YAML text from a buffer as
 * config_load reads it from a file. Bad text must be refused with a
 * message; good text must print (config_print) as YAML that parses back
 * to a config that prints the same. */
#include <stdbool.h>
#include <string.h>

#include "config/config.h"
#include "tests/fuzz/fuzz.h"

/* The config as config_print writes it; malloc'ed, NUL-terminated. */
static char *
config_fuzz_print(const struct config *config, size_t *length)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, length);

	fuzz_check(out != NULL, "open_memstream");
	config_print(config, out);
	fclose(out);
	return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char error[1024] = "";
	struct config *config = config_parse((const char *)data, size, "fuzz.yaml", "/fuzz", error,
	    sizeof error);

	if (config == NULL) {
		fuzz_check(strncmp(error, "fuzz.yaml", 9) == 0, "an error names the file");
		return 0;
	}
	size_t length, again_length;
	char *printed = config_fuzz_print(config, &length);
	struct config *again = config_parse(printed, length, "printed.yaml", "/fuzz", error,
	    sizeof error);
	if (again == NULL)
		fprintf(stderr, "printed config:\n%s\nrefused: %s\n", printed, error);
	fuzz_check(again != NULL, "what config_print writes, config_parse accepts");
	char *reprinted = config_fuzz_print(again, &again_length);
	if (length != again_length || memcmp(printed, reprinted, length) != 0)
		fprintf(stderr, "printed:\n%s\nprinted again:\n%s\n", printed, reprinted);
	fuzz_check(length == again_length && memcmp(printed, reprinted, length) == 0,
	    "a printed config prints the same once parsed");
	free(printed);
	free(reprinted);
	config_free(again);
	config_free(config);
	return 0;
}
