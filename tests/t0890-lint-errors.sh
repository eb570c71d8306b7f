#!/bin/sh
test_description='the error lint refuses a (char *error, size_t) pair in backend/'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

lint=$HEARTH_SOURCE_DIR/tests/lib/lint-errors.sh

# A copy of backend/ the test can spoil without touching the source tree.
test_expect_success 'the backend as it is passes' '
	cp -R "$HEARTH_SOURCE_DIR/backend" backend &&
	sh "$lint" backend >out 2>err &&
	! test -s err
'

test_expect_success 'a new pair in a room fails, naming file and line' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/sync/wire.c\" backend/sync/wire.c" &&
	printf "int wire_odd(int x, char *error,\n    size_t error_size);\n" >>backend/sync/wire.c &&
	test_must_fail sh "$lint" backend 2>err &&
	lines=$(wc -l <"$HEARTH_SOURCE_DIR/backend/sync/wire.c") &&
	grep "^backend/sync/wire.c:$((lines + 1)): takes a (char \*error, size_t) pair" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'at the top of backend/ too, whatever the names' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/fsck.c\" backend/fsck.c" &&
	printf "static int odd(char* err, size_t n) { return 0; }\n" >>backend/fsck.c &&
	test_must_fail sh "$lint" backend 2>err &&
	grep "^backend/fsck.c:[0-9]*: takes a" err
'

test_expect_success 'a pair in a comment is no parameter' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/store/hash.c\" backend/store/hash.c" &&
	printf "/* once: f(char *error, size_t error_size) */\n// g(char *error, size_t n)\n" \
	    >>backend/store/hash.c &&
	sh "$lint" backend 2>err &&
	! test -s err
'

test_done
