#!/bin/sh
test_description='the backend rooms lint refuses an include that runs against the rooms order'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

lint=$HEARTH_SOURCE_DIR/tests/lib/lint-rooms.sh

# A copy of backend/ the test can spoil without touching the source tree.
test_expect_success 'the backend as it is passes' '
	cp -R "$HEARTH_SOURCE_DIR/backend" backend &&
	sh "$lint" backend >out &&
	! test -s out
'

test_expect_success 'a lower room including a higher room fails, naming file, line and rooms' '
	printf "#include \"backend/sync/sync.h\"\n" >>backend/store/pack_crc.c &&
	test_must_fail sh "$lint" backend >out &&
	grep "backend/store/pack_crc.c:[0-9]*: room store includes backend/sync/sync.h of room sync" out &&
	cp "$HEARTH_SOURCE_DIR/backend/store/pack_crc.c" backend/store/pack_crc.c
'

test_expect_success 'a room including an API file of the top level fails' '
	printf "#include \"backend/fsck.h\"\n" >>backend/disk/scan.h &&
	test_must_fail sh "$lint" backend >out &&
	grep "backend/disk/scan.h:[0-9]*: room disk includes backend/fsck.h" out &&
	cp "$HEARTH_SOURCE_DIR/backend/disk/scan.h" backend/disk/scan.h
'

test_expect_success 'a folder that is not a room fails' '
	mkdir backend/misc &&
	printf "int x;\n" >backend/misc/x.c &&
	test_must_fail sh "$lint" backend >out &&
	grep "backend/misc/: not a room" out &&
	rm -r backend/misc
'

test_expect_success 'an include of an earlier room, or of hearth.h, passes' '
	printf "#include \"backend/io/io.h\"\n#include \"backend/hearth.h\"\n" >>backend/sync/wire.c &&
	sh "$lint" backend >out &&
	! test -s out
'

test_done
