#!/bin/sh
test_description='record and checkout that would empty a root ask on a terminal, else refuse until --yes'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# versions HOME: how many versions its log lists.
versions() {
	(cd "$1" && hearth log --oneline) | wc -l
}

# on_terminal ANSWER COMMAND: runs COMMAND (a shell line, from the current
# folder) with a terminal for its standard input, answering ANSWER.
on_terminal() {
	printf '%s\n' "$1" | script -qec "$2" /dev/null
}

test_expect_success 'setup: a Home of four files' '
	hearth init a >/dev/null && mkdir a/docs &&
	for n in 1 2 3 4; do echo $n >a/docs/$n.txt; done &&
	(cd a && hearth record -m four >/dev/null)
'

test_expect_success 'deleting a few records without a word' '
	rm a/docs/1.txt && (cd a && hearth record -m one-less) >out &&
	grep "^Recorded" out && test $(versions a) = 2
'

test_expect_success 'emptying the Home is refused off a terminal, naming --yes; nothing recorded' '
	rm -r a/docs &&
	test_expect_code 1 sh -c "cd a && \"$HEARTH_BIN\" record -m gone </dev/null" 2>err &&
	grep "would delete 3 of the 3 files" err && grep -- "--yes" err &&
	test $(versions a) = 2 &&
	(cd a && hearth status --porcelain) | grep -c "^D" >deletes && test $(cat deletes) = 4
'

test_expect_success 'more than max_delete of a root is refused too' '
	(cd a && hearth checkout --yes >/dev/null 2>&1 || hearth checkout >/dev/null) &&
	test -f a/docs/2.txt &&
	rm a/docs/2.txt a/docs/3.txt &&
	test_expect_code 1 sh -c "cd a && \"$HEARTH_BIN\" record -m two-less </dev/null" 2>err &&
	grep "would delete 2 of the 3 files" err && grep "more than max_delete, 50%" err
'

test_expect_success 'record --yes records the deletes' '
	(cd a && hearth record --yes -m two-less) >out && grep "^Recorded" out &&
	test $(versions a) = 3
'

test_expect_success 'every file of a root asks even at max_delete: 100%' '
	echo "max_delete: 100%" >>a/.hearth/config.yaml &&
	rm a/docs/4.txt &&
	test_expect_code 1 sh -c "cd a && \"$HEARTH_BIN\" record </dev/null" 2>err &&
	grep "every file" err && test $(versions a) = 3
'

test_expect_success 'on a terminal record asks: no refuses, yes records' '
	on_terminal n "cd a && \"$HEARTH_BIN\" record -m asked" >out 2>&1 || : &&
	grep "Record these deletes anyway" out && test $(versions a) = 3 &&
	on_terminal y "cd a && \"$HEARTH_BIN\" record -m asked" >out 2>&1 &&
	grep "Recorded" out && test $(versions a) = 4
'

test_expect_success 'a peer'"'"'s plain checkout that would empty it is refused until --yes' '
	hearth init p >/dev/null && mkdir p/docs &&
	for n in 1 2 3; do echo $n >p/docs/$n.txt; done &&
	(cd p && hearth record -m three >/dev/null) && hearth clone p q >/dev/null &&
	rm -r p/docs && (cd p && hearth record --yes -m emptied >/dev/null) &&
	(cd q && hearth sync --no-checkout ../p >/dev/null) &&
	test_expect_code 1 sh -c "cd q && \"$HEARTH_BIN\" checkout </dev/null" 2>err &&
	grep "would delete 3 of the 3 files" err && grep -- "--yes" err && test -f q/docs/1.txt &&
	(cd q && hearth checkout --yes) >out && test ! -e q/docs/1.txt
'

test_expect_success 'on a terminal checkout asks too: no changes nothing, yes deletes' '
	echo back >p/back.txt && (cd p && hearth record -m back >/dev/null) &&
	(cd q && hearth sync --checkout ../p >/dev/null) && test -f q/back.txt &&
	rm p/back.txt && (cd p && hearth record --yes -m "gone again" >/dev/null) &&
	(cd q && hearth sync --no-checkout ../p >/dev/null) &&
	on_terminal n "cd q && \"$HEARTH_BIN\" checkout" >out 2>&1 || : &&
	grep "Delete them anyway" out && test -f q/back.txt &&
	on_terminal y "cd q && \"$HEARTH_BIN\" checkout" >out 2>&1 &&
	grep "At version" out && test ! -e q/back.txt
'

test_expect_success 'sync --checkout past max_delete names --yes' '
	echo three >p/three.txt && echo four >p/four.txt && (cd p && hearth record -m new >/dev/null) &&
	(cd q && hearth sync --checkout ../p >/dev/null) && test -f q/three.txt &&
	rm p/three.txt p/four.txt && (cd p && hearth record --yes -m "none again" >/dev/null) &&
	test_expect_code 1 sh -c "cd q && \"$HEARTH_BIN\" sync --checkout ../p" >out 2>err &&
	grep -- "--yes" err && test -f q/three.txt
'

test_expect_success 'in a joined Home, emptying one root is refused, naming it' '
	printf "roots:\n  - name: ssd\n    path: %s/ssd\n  - name: hdd\n    path: %s/hdd\nstate: %s/jstate\n" \
	    "$TEST_ROOT" "$TEST_ROOT" "$TEST_ROOT" >j.yaml &&
	hearth -c j.yaml init >/dev/null &&
	for n in 1 2 3 4 5 6; do echo $n >ssd/s$n.txt; done && echo h >hdd/h.txt &&
	hearth -c j.yaml record -m both >/dev/null && rm hdd/h.txt &&
	test_expect_code 1 hearth -c j.yaml record </dev/null 2>err &&
	grep "root .hdd." err && grep "every file" err
'

test_done
