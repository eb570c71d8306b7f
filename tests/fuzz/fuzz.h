/* What the fuzz targets share: the libFuzzer entry point each one defines
 * (built with clang -fsanitize=fuzzer by `make fuzz`, or with a plain
 * compiler and replay.c's main by `make all`, which runs every saved seed
 * as a regression test), and the check that turns a broken promise of the
 * code under test into a crash the fuzzer reports. */
#ifndef HEARTH_TESTS_FUZZ_H
#define HEARTH_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test, not of the input: abort loudly. */
#define fuzz_check(condition, what)                                                    \
	do {                                                                           \
		if (!(condition)) {                                                    \
			fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", __FILE__, \
			    __LINE__, what);                                           \
			abort();                                                       \
		}                                                                      \
	} while (0)

#endif
