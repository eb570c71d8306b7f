#!/bin/sh
test_description='the app: the Home tree, marks and recording from a dialog'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

test_expect_success 'a Home with a version and unrecorded changes' '
	hearth init home &&
	cd home &&
	mkdir -p docs/deep &&
	printf "a\n" >docs/deep/a.txt &&
	printf "b\n" >b.txt &&
	printf "c\n" >c.txt &&
	hearth record -m "start" &&
	printf "b changed\n" >b.txt &&
	printf "c changed\n" >c.txt
'

test_expect_success '3 shows the Home tree with status marks' '
	cd home &&
	app_start &&
	app_wait "start" &&
	app_keys 3 &&
	app_wait "docs/" &&
	app_wait "2 changed" 20 &&
	app_screen | grep -E "b\.txt .* M *$" &&
	app_screen | grep -E "c\.txt .* M *$"
'

test_expect_success 'Enter opens a folder lazily, h closes it' '
	app_keys G Enter &&
	app_wait "deep/" &&
	app_keys j Enter &&
	app_wait "a.txt" &&
	app_keys h h &&
	app_wait_gone "a.txt"
'

test_expect_success 'the filter shows matching names only' '
	app_keys f &&
	app_wait "Filter" &&
	app_type "c.t" &&
	app_wait_gone "b.txt" &&
	app_keys Enter &&
	app_wait "filter: c.t" &&
	app_keys f C-u Enter &&
	app_wait "b.txt"
'

test_expect_success 'Esc clears the filter, and closes nothing' '
	app_keys f &&
	app_type "c.t" &&
	app_keys Enter &&
	app_wait "filter: c.t" &&
	app_wait_gone "b.txt" &&
	app_keys Escape &&
	app_wait "Filter cleared" &&
	app_wait "b.txt" &&
	app_wait_gone "filter: c.t" &&
	app_screen | grep "3 Home"
'

test_expect_success 'space marks a path and r records only the marked one' '
	app_keys g &&
	app_keys Space &&
	app_keys r &&
	app_wait "Record the 1 marked path (b.txt)" &&
	app_type "only b" &&
	app_keys Enter &&
	app_wait "Recorded" 20 &&
	app_wait "1 changed" 20
'

test_expect_success 'r with no marks records every change, the message edited in the dialog' '
	app_keys r &&
	app_wait "Record every change" &&
	app_type "junk" &&
	app_keys C-u &&
	app_type "rom the aXpp" &&
	app_keys Left Left BSpace Home &&
	app_type "f" &&
	app_keys Enter &&
	app_wait "Recorded" 20 &&
	app_wait "0 changed" 20 &&
	app_quit
'

test_expect_success 'hearth log shows both versions, status nothing' '
	cd home &&
	hearth log >log &&
	grep "only b" log &&
	grep "from the app" log &&
	hearth status >status &&
	! grep -E "^ *M " status
'

test_expect_success 'Esc in the dialog records nothing' '
	cd home &&
	printf "again\n" >b.txt &&
	app_start &&
	app_wait "from the app" &&
	app_keys 3 r &&
	app_wait "Record every change" &&
	app_type "never" &&
	app_keys Escape &&
	app_wait "Record cancelled" &&
	app_quit &&
	hearth log >log &&
	! grep never log
'

test_expect_success 'an empty message asks first: n goes back to it, y records without one' '
	cd home &&
	printf "once more\n" >c.txt &&
	app_start &&
	app_wait "from the app" &&
	app_keys 3 r &&
	app_wait "Record every change" &&
	app_type "  " &&
	app_keys Enter &&
	app_wait "The message is empty" &&
	app_keys n &&
	app_wait "Record every change" &&
	hearth log -n 1 --oneline >log && ! grep -v "from the app" log &&
	app_keys Enter &&
	app_wait "The message is empty" &&
	app_keys y &&
	app_wait "Recorded" 20 &&
	app_quit &&
	hearth log -n 1 >log && grep "(no message)" log
'

test_expect_success 'a record that would empty the Home asks (naming no --yes, which the app cannot take); n keeps it, y records the deletes' '
	cd home &&
	hearth record -m "all in" >/dev/null &&
	rm -r docs b.txt c.txt &&
	app_start &&
	app_wait "all in" &&
	app_keys 3 r &&
	app_wait "Record every change" &&
	app_type "emptied" &&
	app_keys Enter &&
	app_wait "Delete many files?" 20 &&
	app_wait "would delete 3 of the 5 files" &&
	! app_screen | grep -F -e "--yes" &&
	app_keys n &&
	app_wait "Record not done" &&
	app_keys r &&
	app_wait "Record every change" &&
	app_type "emptied" &&
	app_keys Enter &&
	app_wait "Delete many files?" 20 &&
	app_keys y &&
	app_wait "Recorded" 20 &&
	app_quit &&
	hearth log --oneline >log && grep emptied log
'

test_done
