#!/bin/sh
test_description='the app: History, a version'"'"'s changes and diff, search, checkout'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

# The short id of the version whose message is $1, as the History shows it.
short_id_on_screen() {
	app_screen | grep -F -- "$1" | sed -e 's/^[^0-9a-f]*//' | cut -d' ' -f1
}

test_expect_success 'a Home with three versions' '
	hearth init home &&
	cd home &&
	printf "one\n" >notes.txt &&
	printf "cat\n" >pets.txt &&
	hearth record -m "first version" &&
	printf "one\ntwo\n" >notes.txt &&
	hearth record -m "second version" &&
	rm pets.txt &&
	mkdir -p docs && printf "hello\n" >docs/readme.txt &&
	hearth record -m "third version" &&
	hearth log >log && grep "third version" log
'

test_expect_success 'the app opens on History, newest first' '
	cd home &&
	app_start &&
	app_wait "third version" &&
	app_screen >screen &&
	grep "1 History" screen &&
	third=$(grep -n "third version" screen | cut -d: -f1) &&
	first=$(grep -n "first version" screen | cut -d: -f1) &&
	test "$third" -lt "$first"
'

test_expect_success 'Enter shows what the selected version changed' '
	app_keys j &&
	app_keys Enter &&
	app_wait "Version " &&
	app_wait "second version" &&
	app_wait "1 path changed" &&
	app_screen | grep -E "^ *M .*notes.txt"
'

test_expect_success 'Enter on a changed file shows its diff' '
	app_keys Enter &&
	app_wait "+two" &&
	app_keys Enter &&
	app_wait_gone "+two"
'

test_expect_success 'q closes the changes and j moves on to an older version' '
	app_keys q &&
	app_wait "Enter changes" &&
	app_keys j Enter &&
	app_wait "2 paths changed" &&
	app_screen | grep -E "^ *A .*pets.txt" &&
	app_keys q &&
	app_wait "Enter changes"
'

test_expect_success '/ finds a version by its message; n goes round the end to it again' '
	app_keys g / &&
	app_wait "Search" &&
	app_type "SECOND" &&
	app_keys Enter &&
	app_keys Enter &&
	app_wait "1 path changed" &&
	app_keys q &&
	app_wait "Enter changes" &&
	app_keys n &&
	app_wait "Search went on from the newest version" &&
	app_keys Enter &&
	app_wait "1 path changed" &&
	app_keys q &&
	app_wait "Enter changes"
'

test_expect_success 'N goes round the other end; a search with no match says so' '
	app_keys / &&
	app_wait "Search" &&
	app_type "version" &&
	app_keys Enter G N &&
	app_wait "first version" &&
	app_keys g N &&
	app_wait "Search went on from the oldest version" &&
	app_keys Enter &&
	app_wait "2 paths changed" &&
	app_keys q &&
	app_wait "Enter changes" &&
	app_keys / &&
	app_type "no such words" &&
	app_keys Enter &&
	app_wait "No version" &&
	app_wait "contains \"no such words\""
'

test_expect_success 'reopening / starts empty, not with the last text' '
	app_keys / &&
	app_wait "Versions whose message contains" &&
	! app_screen | grep -F "no such words" &&
	app_type "third" &&
	app_screen | grep -F "third" | grep -v -F "no such" >/dev/null &&
	app_keys Escape &&
	app_wait_gone "Versions whose message contains"
'

test_expect_success 'in a version'"'"'s changes, / finds a path and n goes round to the next' '
	app_keys g j Enter &&
	app_wait "1 path changed" &&
	app_keys / &&
	app_wait "Lines holding" &&
	app_type "notes.txt" &&
	app_keys Enter &&
	app_keys Enter &&
	app_wait "+two" &&
	app_keys / &&
	app_type "+two" &&
	app_keys Enter n &&
	app_wait "Search went on from the top" &&
	app_keys q &&
	app_wait "Enter changes"
'

test_expect_success 'in the help, / finds a binding' '
	app_keys "?" &&
	app_wait "Help: every key binding" &&
	app_keys / &&
	app_type "checkout" &&
	app_keys Enter &&
	APP_QUIET=1 app_wait "Check out the selected version" &&
	app_keys n &&
	app_wait "Search went on from the top" &&
	app_keys q &&
	app_wait "Enter changes"
'

test_expect_success 'c checks out a version after asking' '
	short=$(short_id_on_screen "first version") &&
	test -n "$short" &&
	echo "$short" >first-short &&
	app_keys G c &&
	app_wait "Check out version $short" &&
	app_keys y &&
	app_wait "Checked out $short" 20 &&
	app_quit
'

test_expect_success 'the tree is then at that version' '
	short=$(cat first-short) &&
	cd home &&
	hearth status >status &&
	grep -F "$short" status &&
	test -f pets.txt &&
	test "$(cat notes.txt)" = one &&
	! test -e docs/readme.txt
'

test_done
