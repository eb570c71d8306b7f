#!/bin/sh
test_description='the app: History and the status line say what head is, and the mark is where the tree is'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"


test_expect_success 'setup: b takes a push from a while it has work of its own' '
	hearth init a >/dev/null && echo base >a/base && (cd a && hearth record -m base >/dev/null) &&
	hearth clone a b >/dev/null &&
	echo own >b/own && (cd b && hearth record -m "own work on b" >/dev/null) &&
	echo pushed >a/pushed && (cd a && hearth record -m "pushed from a" >/dev/null) &&
	(cd a && hearth sync --push ../b >/dev/null) &&
	(cd b && hearth checkout >/dev/null) &&
	(cd b && hearth status --porcelain) | grep "^# unnamed [1-9]"
'

test_expect_success 'an unnamed head state is the first row, marked, and the status line says so' '
	cd b && app_start &&
	app_wait "The head state:" && app_wait " | head: " &&
	app_screen >"$TEST_ROOT/screen.unnamed" &&
	head_row=$(grep -n "The head state:" "$TEST_ROOT/screen.unnamed" | cut -d: -f1) &&
	own_row=$(grep -n "own work on b" "$TEST_ROOT/screen.unnamed" | cut -d: -f1) &&
	pushed_row=$(grep -n "pushed from a" "$TEST_ROOT/screen.unnamed" | cut -d: -f1) &&
	test "$head_row" -lt "$own_row" && test "$head_row" -lt "$pushed_row" &&
	sed -n "${head_row}p" "$TEST_ROOT/screen.unnamed" | grep "^ *[▶>]" &&
	! sed -n "${own_row}p" "$TEST_ROOT/screen.unnamed" | grep "^ *[▶>]" &&
	! sed -n "${pushed_row}p" "$TEST_ROOT/screen.unnamed" | grep "^ *[▶>]" &&
	grep "head: [0-9]* ops past" "$TEST_ROOT/screen.unnamed" &&
	app_quit
'

test_expect_success 'after a sync that names it, the merge version is head and marked once checked out' '
	echo more >a/more && (cd a && hearth record -m "more on a" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	(cd b && hearth log --oneline) | head -n 1 | grep "Merge" &&
	cd b && app_start &&
	app_wait "Merge 1 version" && app_wait " | head " &&
	app_screen >"$TEST_ROOT/screen" &&
	! grep "The head state:" "$TEST_ROOT/screen" &&
	merge_row=$(grep -n "Merge 1 version" "$TEST_ROOT/screen" | cut -d: -f1) &&
	sed -n "${merge_row}p" "$TEST_ROOT/screen" | grep "^ *[▶>]" &&
	grep "head [0-9a-f]\{8\}" "$TEST_ROOT/screen" &&
	app_quit
'

app_stop
test_done
