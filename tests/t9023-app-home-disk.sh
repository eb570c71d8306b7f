#!/bin/sh
test_description='the app: the Home view filters over the whole Home, and a changed path shows its size and time on the disk'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

test_expect_success 'a Home with a version, deep folders never opened, then changes' '
	hearth init home &&
	cd home &&
	mkdir -p docs/deep/far other &&
	printf "found me\n" >docs/deep/far/needle.txt &&
	printf "hay\n" >docs/deep/hay.txt &&
	printf "bb\n" >b.txt &&
	printf "short\n" >edited.txt &&
	printf "x\n" >other/x.txt &&
	hearth record -m "start" >/dev/null &&
	mv b.txt moved.txt && touch -d "2021-05-06 07:08" moved.txt &&
	printf "twenty bytes here.\n" >new.txt && touch -d "2021-06-07 08:09" new.txt &&
	printf "now a good deal longer than it was\n" >edited.txt &&
	touch -d "2022-01-02 03:04" edited.txt &&
	printf "new needle\n" >other/new-needle.md
'

test_expect_success 'a changed path shows its size and time on the disk; a moved file none where it left, and each of its rows the other end' '
	cd home &&
	app_start &&
	app_wait "start" &&
	app_keys 3 &&
	app_wait "new.txt" 20 &&
	app_wait "4 changed" 20 &&
	app_screen >"$TEST_ROOT/columns" &&
	grep -E "^ +new\.txt +19 2021-06-07 08:09 +A *$" "$TEST_ROOT/columns" &&
	grep -E "^ +edited\.txt +35 2022-01-02 03:04 +M *$" "$TEST_ROOT/columns" &&
	grep -E "^ +moved\.txt ← b\.txt +3 2021-05-06 07:08 +R *$" "$TEST_ROOT/columns" &&
	grep -E "^ +b\.txt → moved\.txt +R *$" "$TEST_ROOT/columns"
'

test_expect_success 'a file edited again while the app shows it: the size follows the disk' '
	printf "longer still, and then some more\n" >>home/edited.txt &&
	touch -d "2023-03-04 05:06" home/edited.txt &&
	app_wait "2023-03-04 05:06" 20 &&
	app_screen | grep -E "^ +edited\.txt +68 2023-03-04 05:06 +M *$"
'

test_expect_success 'the filter finds names in folders never opened, recorded and new' '
	app_screen >"$TEST_ROOT/closed" &&
	! grep "needle" "$TEST_ROOT/closed" &&
	app_keys f &&
	app_wait "Filter" &&
	app_type "NEEDLE" &&
	app_keys Enter &&
	app_wait "filter: NEEDLE" &&
	app_wait "needle.txt" &&
	app_wait "new-needle.md" &&
	app_screen >"$TEST_ROOT/found" &&
	grep -E "^ +. far/" "$TEST_ROOT/found" &&
	grep -E "^ +new-needle\.md +11 .* A *$" "$TEST_ROOT/found" &&
	! grep "hay.txt" "$TEST_ROOT/found" &&
	! grep "x.txt" "$TEST_ROOT/found"
'

test_expect_success 'Esc clears it: the folders it opened close again' '
	app_keys Escape &&
	app_wait "Filter cleared" &&
	app_wait_gone "needle.txt" &&
	app_screen | grep "edited.txt"
'

test_expect_success 'a name nowhere in the Home: the view says so' '
	app_keys f &&
	app_type "nowhere-at-all" &&
	app_keys Enter &&
	app_wait "No name in the Home contains the filter" &&
	app_keys Escape &&
	app_wait "edited.txt" &&
	app_quit
'

test_done
