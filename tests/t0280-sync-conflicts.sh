#!/bin/sh
test_description='a sync says how many new conflicts it brought, of which kinds, and where to see them'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

field() {	# FILE KEY: the value of one porcelain line
	sed -n "s/^$2 //p" "$1"
}

test_expect_success 'two replicas; both edit one line of notes.txt and both make same.txt' '
	hearth init a >/dev/null &&
	printf "one\ntwo\nthree\n" >a/notes.txt &&
	(cd a && hearth record -m base >/dev/null) &&
	hearth clone a b >/dev/null &&
	printf "one\nTWO from a\nthree\n" >a/notes.txt && echo "made on a" >a/same.txt &&
	(cd a && hearth record -m "a edits" >/dev/null) &&
	printf "one\ntwo from b\nthree\n" >b/notes.txt && echo "made on b" >b/same.txt &&
	(cd b && hearth record -m "b edits" >/dev/null)
'

test_expect_success 'the sync that brings them counts them by kind and names the commands' '
	(cd b && hearth sync ../a) >out &&
	grep "^Synced with" out &&
	grep -F "The sync brought 2 new conflicts (1 content, 1 name): \`hearth conflicts\` lists them, \`hearth resolve\` settles them." out &&
	(cd b && hearth conflicts --porcelain) >listed &&
	test $(grep -c "^[a-z][0-9a-f]* " listed) = 2
'

test_expect_success 'the next sync brings none: conflicts already listed are not new' '
	(cd b && hearth sync ../a) >out &&
	! grep "new conflict" out &&
	(cd b && hearth sync --porcelain ../a) >porcelain &&
	test "$(field porcelain conflicts_new)" = 0 &&
	! grep "^conflicts_new_" porcelain
'

test_expect_success 'porcelain gives the count and each kind with any' '
	hearth clone a c >/dev/null &&
	printf "one\ntwo from c\nthree\n" >c/notes.txt &&
	(cd c && hearth record -m "c edits" >/dev/null) &&
	printf "one\nTWO again on a\nthree\n" >a/notes.txt &&
	(cd a && hearth record -m "a again" >/dev/null) &&
	(cd c && hearth sync --porcelain ../a) >porcelain &&
	test "$(field porcelain status)" = ok &&
	test "$(field porcelain conflicts_new)" = 1 &&
	test "$(field porcelain conflicts_new_content)" = 1 &&
	! grep "^conflicts_new_name" porcelain
'

test_expect_success 'edits a line merge settles are no conflict, and none is counted' '
	printf "1\n2\n3\n4\n5\n" >a/list.txt && (cd a && hearth record -m list >/dev/null) &&
	hearth clone a d >/dev/null &&
	printf "1 on d\n2\n3\n4\n5\n" >d/list.txt && (cd d && hearth record -m "d first" >/dev/null) &&
	printf "1\n2\n3\n4\n5 on a\n" >a/list.txt && (cd a && hearth record -m "a last" >/dev/null) &&
	(cd d && hearth sync --porcelain ../a) >porcelain &&
	test "$(field porcelain files_merged)" = 1 &&
	test "$(field porcelain conflicts_new)" = 0
'

test_done
