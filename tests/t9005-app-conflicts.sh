#!/bin/sh
test_description='the app: the Conflicts view lists what two replicas did at once, shows each side, and settles them from the keyboard'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

test_expect_success 'two replicas of one Home: b joins a, syncs and checks out' '
	hearth init a >/dev/null &&
	printf "one\ntwo\nthree\n" >a/notes.txt &&
	(cd a && hearth record -m base >/dev/null) &&
	hearth init b >/dev/null &&
	test_tool join-home b a &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	test_cmp a/notes.txt b/notes.txt
'

test_expect_success 'both edit notes.txt and both make same.txt: a content and a name conflict' '
	printf "one\nTWO from a\nthree\n" >a/notes.txt &&
	echo "made on a" >a/same.txt &&
	(cd a && hearth record -m "a edits" >/dev/null) &&
	printf "one\ntwo from b\nthree\n" >b/notes.txt &&
	echo "made on b" >b/same.txt &&
	(cd b && hearth record -m "b edits" >/dev/null &&
	    hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	(cd b && hearth conflicts --porcelain) >out &&
	grep "^c[0-9a-f]* content notes.txt$" out &&
	grep "^n[0-9a-f]* name same~[0-9a-f]*\.txt$" out &&
	test $(grep -c "^  " out) = 4 &&
	(cd b && cat same.txt same~*.txt) >names-before
'

test_expect_success '2 lists both, and the status line counts them' '
	cd b &&
	app_start &&
	app_wait "1 History" &&
	app_wait "2 conflicts" 20 &&
	app_keys 2 &&
	app_wait "notes.txt" &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "^  content +2 +notes\.txt +(mine edit, theirs edit|theirs edit, mine edit)" "$TEST_ROOT/screen" &&
	grep -E "^  name +2 +same~[0-9a-f]+\.txt +(mine|theirs) name" "$TEST_ROOT/screen" &&
	grep "Enter sides  m mine  t theirs  b both  x markers  l later" "$TEST_ROOT/screen"
'

test_expect_success 'Enter shows each side of the content conflict and a diff of the two texts' '
	app_keys g Enter &&
	app_wait "content conflict at notes.txt" &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "mine +replica [0-9a-f]{8} \(this one\), op [0-9]+, by " "$TEST_ROOT/screen" &&
	grep -E "theirs +replica [0-9a-f]{8}, op [0-9]+, by " "$TEST_ROOT/screen" &&
	test $(grep -c "edit, 21 bytes, content [0-9a-f]\{12\}" "$TEST_ROOT/screen") = 2 &&
	test $(grep -c "head shows this side" "$TEST_ROOT/screen") = 1 &&
	grep -- "--- mine/notes.txt" "$TEST_ROOT/screen" &&
	grep -- "-two from b" "$TEST_ROOT/screen" &&
	grep -- "+TWO from a" "$TEST_ROOT/screen"
'

test_expect_success 'l leaves it for later: the pane shows the name conflict, h goes back' '
	app_keys l &&
	app_wait "name conflict at same~" &&
	app_screen >"$TEST_ROOT/screen" &&
	grep -E "named same\.txt \(keeps the name\), 10 bytes, content [0-9a-f]{12}; head shows this side" \
	    "$TEST_ROOT/screen" &&
	grep -E "named same\.txt, shown as same~[0-9a-f]+\.txt, 10 bytes, content [0-9a-f]{12}$" \
	    "$TEST_ROOT/screen" &&
	app_keys h &&
	app_wait "Enter sides"
'

test_expect_success 't in the pane keeps theirs, recorded at once; the pane moves on' '
	app_keys g Enter &&
	app_wait "content conflict at notes.txt" &&
	app_keys t &&
	app_wait "name conflict at same~" &&
	app_wait "Settled notes.txt keeping theirs: recorded as version" 20
'

test_expect_success 'in the list, space marks the name conflict and b keeps both, after asking' '
	app_keys h &&
	app_wait_gone "notes.txt" 20 &&
	app_keys g Space &&
	app_screen | grep -E "^. name +2 +same~" &&
	app_keys b &&
	app_wait "Settle the marked conflict same~" &&
	app_wait "keeping both?" &&
	app_keys n &&
	app_wait "Nothing settled; the marks stay" &&
	(cd "$TEST_ROOT/b" && hearth conflicts --porcelain) | grep " name same~" &&
	app_screen | grep -E "^. name +2 +same~" &&
	app_keys b &&
	app_wait "Settle the marked conflict same~" &&
	app_keys y &&
	app_wait "Settled same~" 20 &&
	app_wait "No conflicts." 20 &&
	app_keys j &&
	app_wait "0 changed | group" 20 &&
	app_quit
'

test_expect_success 'from the shell: no conflicts, the files as chosen, fsck clean' '
	cd b &&
	hearth conflicts >"$TEST_ROOT/out" &&
	grep "No conflicts" "$TEST_ROOT/out" &&
	printf "one\nTWO from a\nthree\n" >"$TEST_ROOT/expected" &&
	test_cmp "$TEST_ROOT/expected" notes.txt &&
	cat same.txt same~*.txt >"$TEST_ROOT/names-after" &&
	test_cmp "$TEST_ROOT/names-before" "$TEST_ROOT/names-after" &&
	hearth status >"$TEST_ROOT/status" &&
	grep "Nothing changed" "$TEST_ROOT/status" &&
	hearth log --oneline >"$TEST_ROOT/log" &&
	grep " Resolve notes.txt: keep theirs$" "$TEST_ROOT/log" &&
	grep " Resolve same~[0-9a-f]*\.txt: keep both$" "$TEST_ROOT/log" &&
	hearth fsck
'

test_expect_success 'after a sync, a has no conflicts either, and its tree is the same' '
	(cd b && hearth sync ../a >/dev/null) &&
	(cd a && hearth conflicts) >out &&
	grep "No conflicts" out &&
	(cd a && hearth checkout >/dev/null && hearth fsck >/dev/null) &&
	test_cmp b/notes.txt a/notes.txt &&
	test_cmp b/same.txt a/same.txt &&
	(cd a && cat same~*.txt) >a-other &&
	(cd b && cat same~*.txt) >b-other &&
	test_cmp b-other a-other
'

test_expect_success 'with nothing to settle the view says what it will list' '
	cd b &&
	app_start &&
	app_wait "1 History" &&
	app_keys 2 &&
	app_wait "No conflicts." &&
	app_wait "When two replicas change the same thing" &&
	app_keys m &&
	app_wait "No conflict to settle" &&
	app_quit
'

test_expect_success 'the same line edited on both: the pane shows base, mine and theirs, x merges with markers' '
	printf "one\nTWO from a\nthree\nfour\nfive\n" >a/notes.txt && (cd a && hearth record -m lines >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	printf "one\nTWO from a\nthree, said a\nfour\nfive\n" >a/notes.txt && (cd a && hearth record -m "a 3" >/dev/null) &&
	printf "one\nTWO from a\nthree, said b\nfour\nfive, b too\n" >b/notes.txt &&
	(cd b && hearth record -m "b 3" >/dev/null && hearth sync ../a >/dev/null) &&
	cd b &&
	app_start &&
	app_wait "1 History" &&
	app_keys 2 &&
	app_wait "notes.txt" &&
	app_keys g Enter &&
	app_wait "content conflict at notes.txt" &&
	app_keys G &&
	app_wait "1 overlap against their base" &&
	app_screen >"$TEST_ROOT/screen" &&
	grep "@@ base line 3, 1 line" "$TEST_ROOT/screen" &&
	grep -A1 "^      base:" "$TEST_ROOT/screen" | grep "| three$" &&
	grep -A1 "^      mine (" "$TEST_ROOT/screen" | grep "| three, said b$" &&
	grep -A1 "^      theirs (" "$TEST_ROOT/screen" | grep "| three, said a$" &&
	grep "x  merges mine and theirs by line" "$TEST_ROOT/screen" &&
	app_keys x &&
	app_wait "Merged notes.txt with markers (listed until recorded without them)" 20 &&
	app_quit &&
	grep -x "<<<<<<< mine (.*)" notes.txt && grep -x "three, said b" notes.txt &&
	grep -x "three, said a" notes.txt && grep -x "five, b too" notes.txt &&
	hearth conflicts --porcelain >"$TEST_ROOT/out" && grep " content notes.txt$" "$TEST_ROOT/out"
'

test_done
