#!/bin/sh
test_description='the app: History and the status line say what head is, the mark is where the tree is, versions in log'"'"'s order with those a sync brought marked'
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

# As t0270: three versions on p, then (once the clock has passed them) one
# on q, a clone that has not seen them; in total order q's comes below
# them, by time above them.
test_expect_success 'History lists versions in log order, newest by time first; those a sync brought are marked' '
	hearth init p >/dev/null && echo base >p/base && (cd p && hearth record -m "p base" >/dev/null) &&
	hearth clone p q >/dev/null &&
	for n in 1 2 3; do
		echo $n >p/p$n && (cd p && hearth record -m "p $n" >/dev/null) || exit 1
	done &&
	last=$(date +%s) &&
	test_wait_for "test \$(date +%s) -gt $last" 5 &&
	echo q >q/q && (cd q && hearth record -m "q later" >/dev/null) &&
	(cd p && hearth sync ../q >/dev/null) &&
	(cd p && hearth log --oneline) | sed "s/^[^ ]* //; s/^\(Merge 1 version\).*/\1/" >expect &&
	printf "Merge 1 version\nq later\np 3\np 2\np 1\np base\n" >expect.t0270 &&
	test_cmp expect.t0270 expect &&
	cd p && app_start &&
	app_wait "p base" &&
	app_screen >"$TEST_ROOT/order-screen" &&
	while read -r message; do
		grep -n -F "$message" "$TEST_ROOT/order-screen" | head -n 1 | cut -d: -f1 || exit 1
	done <"$TEST_ROOT/expect" >"$TEST_ROOT/rows" &&
	test $(wc -l <"$TEST_ROOT/rows") -eq 6 &&
	sort -n "$TEST_ROOT/rows" | test_cmp "$TEST_ROOT/rows" - &&
	grep -E "[↓v][0-9a-f]{8} [0-9]{4}-.*q later" "$TEST_ROOT/order-screen" &&
	! grep -E "[↓v][0-9a-f]{8} [0-9]{4}-.*(p [123]|p base|Merge 1 version)" \
	    "$TEST_ROOT/order-screen" &&
	app_quit
'

test_done
