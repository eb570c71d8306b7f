#!/bin/sh
test_description='the memory lint refuses an allocation in backend/ that goes around model/array.h'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

lint=$HEARTH_SOURCE_DIR/tests/lib/lint-memory.sh

# A copy of backend/ the test can spoil without touching the source tree.
test_expect_success 'the backend as it is passes' '
	cp -R "$HEARTH_SOURCE_DIR/backend" backend &&
	sh "$lint" backend >out 2>err &&
	! test -s err
'

test_expect_success 'a raw realloc in a room fails, naming file and line' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/store/chunk.c\" backend/store/chunk.c" &&
	printf "static void *grow(void *p) { return realloc(p, 64); }\n" >>backend/store/chunk.c &&
	test_must_fail sh "$lint" backend 2>err &&
	lines=$(wc -l <"$HEARTH_SOURCE_DIR/backend/store/chunk.c") &&
	grep "^backend/store/chunk.c:$((lines + 1)): allocates around model/array.h" err
'

test_expect_success 'malloc, calloc and strdup fail too, at the top of backend/ as in a room' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/fsck.c\" backend/fsck.c" &&
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/sync/wire.c\" backend/sync/wire.c" &&
	printf "static char *a(void) { return malloc (8); }\n" >>backend/fsck.c &&
	printf "static int *b(void) { return calloc(1, 4); }\nstatic char *c(const char *s) { return strdup(s); }\n" \
	    >>backend/sync/wire.c &&
	test_must_fail sh "$lint" backend 2>err &&
	test $(grep -c "allocates around model/array.h" err) = 3 &&
	grep "^backend/fsck.c:" err && grep -c "^backend/sync/wire.c:" err
'

test_expect_success 'a name in a comment, a string or a longer identifier is not a call' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/store/hash.c\" backend/store/hash.c" &&
	cat >>backend/store/hash.c <<-\EOC &&
	/* realloc(p, n) doubled here once; now array_grow */
	static const char *const why = "malloc(";
	static void *via(void *p) { return sqlite3_realloc(p, 8); }
	EOC
	sh "$lint" backend 2>err &&
	! test -s err
'

test_done
