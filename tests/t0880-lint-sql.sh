#!/bin/sh
test_description='the SQL lint refuses SQL that names a table outside the table owner file'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

lint=$HEARTH_SOURCE_DIR/tests/lib/lint-sql.pl

# A copy of backend/ the test can spoil without touching the source tree.
test_expect_success 'the backend as it is passes' '
	cp -R "$HEARTH_SOURCE_DIR/backend" backend &&
	perl "$lint" backend >out 2>err &&
	! test -s err
'

test_expect_success 'a statement naming the peer table outside sync/peer.c fails, naming file, line and owner' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/history/record.c\" backend/history/record.c" &&
	printf "static const char bad[] = \"SELECT name \"\n    \"FROM peer WHERE name = ?1\";\n" \
	    >>backend/history/record.c &&
	test_must_fail perl "$lint" backend 2>err &&
	lines=$(wc -l <"$HEARTH_SOURCE_DIR/backend/history/record.c") &&
	grep "^backend/history/record.c:$((lines + 1)): SQL of table peer outside its owner (backend/sync/peer.c)" err
'

test_expect_success 'an insert, an update and a join are found too, in a file at the top' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/replica.c\" backend/replica.c" &&
	cat >>backend/replica.c <<-\EOC &&
	static const char a[] = "INSERT INTO watch(pid) VALUES (?1)";
	static const char b[] = "UPDATE dirty SET verified = 1";
	static const char c[] = "SELECT 1 FROM replica JOIN folder ON 1";
	EOC
	test_must_fail perl "$lint" backend 2>err &&
	grep "SQL of table watch outside" err && grep "SQL of table dirty outside" err &&
	grep "SQL of table folder outside" err
'

test_expect_success 'a table named in a comment or in a message is not SQL; the owner may' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/sync/wire.c\" backend/sync/wire.c" &&
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/sync/peer.c\" backend/sync/peer.c" &&
	cat >>backend/sync/wire.c <<-\EOC &&
	/* SELECT * FROM peer was read here once */
	static const char why[] = "cannot update peer records";
	EOC
	printf "static const char ok[] = \"DELETE FROM peer\";\n" >>backend/sync/peer.c &&
	perl "$lint" backend 2>err &&
	! test -s err
'

test_expect_success 'a join in an owner may read another owner'"'"'s table, never write it' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/history/head.c\" backend/history/head.c" &&
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/history/record.c\" backend/history/record.c" &&
	printf "static const char reads[] = \"SELECT n.id FROM node n JOIN peer p ON 1\";\n" \
	    >>backend/history/head.c &&
	perl "$lint" backend 2>err &&
	! test -s err &&
	printf "static const char writes[] = \"UPDATE peer SET url = (SELECT 1 FROM node)\";\n" \
	    >>backend/history/head.c &&
	test_must_fail perl "$lint" backend 2>err &&
	grep "SQL of table peer outside its owner (backend/sync/peer.c): .*never writes it" err &&
	printf "static const char joins[] = \"SELECT 1 FROM folder JOIN peer ON 1\";\n" \
	    >>backend/history/record.c &&
	test_must_fail perl "$lint" backend 2>err &&
	grep "record.c:.*SQL of table folder outside" err && grep "record.c:.*SQL of table peer outside" err
'

test_expect_success 'a join in a macro continued over lines reads whole, as the owner'"'"'s' '
	test_when_finished "cp \"$HEARTH_SOURCE_DIR/backend/history/head.c\" backend/history/head.c" &&
	printf "#define ROWS \"SELECT n.id FROM node n \" \\\\\n    \"JOIN peer p ON 1 \"\n" \
	    >>backend/history/head.c &&
	printf "static const char rows[] = ROWS \"WHERE 1\";\n" >>backend/history/head.c &&
	perl "$lint" backend 2>err &&
	! test -s err
'

test_done
