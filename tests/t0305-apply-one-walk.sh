#!/bin/sh
test_description='sync --checkout and checkout --force walk the tree once after their record: the checkout takes the walk of the record before it, and what changed since that walk is never overwritten'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# The checkout after the record plans from the index the record just left
# and looks at the disk only where its plan changes it
# (backend/history/checkout.c, plan_after_record). Each test below changes
# the tree while that record is held (HEARTH_HOLD, once it has stored its
# first bytes), after its walk and before the checkout: an edit, a new
# file, a delete, each where the checkout is about to write. Each must come
# out as the walk of the old way would have had it.

# settle_stamps HOME: HOME's files made an hour old and their stamps taken
# again. A stamp taken within 2 s of the file's last write is not trusted:
# a record would read such a file only after the hold below, and see the
# change a test makes there.
settle_stamps() {
	find $1 -path $1/.hearth -prune -o -type f \
	    -exec touch -d @$(( $(date +%s) - 3600 )) {} + &&
	(cd $1 && hearth record -m stamps >/dev/null)
}

# held HOME COMMAND...: runs hearth COMMAND in HOME, held inside the
# record it makes once that record has stored its first bytes; returns
# once the hold is reached ($client is the command's pid).
held() {
	home=$1 && shift &&
	rm -f "$TEST_ROOT/held" || return 1
	# On a line of its own: a chain ending in & would run whole in the
	# background.
	(cd $home && HEARTH_HOLD=storing:1:"$TEST_ROOT/held" exec "$HEARTH_BIN" "$@" \
	    >../out 2>../err) &
	client=$!
	test_wait_for "test -s \"$TEST_ROOT/held\""
}

# held_sync NAME: `hearth sync --checkout ../a` in b, held once its record
# has stored a new file, local-NAME.bin.
held_sync() {
	settle_stamps b && head -c 65536 /dev/urandom >b/local-$1.bin &&
	held b sync --checkout ../a
}

release_held='rm -f "$TEST_ROOT/held"; wait; true'

test_expect_success 'setup: a Home and its clone' '
	hearth init a >/dev/null && mkdir a/docs &&
	for n in 1 2 3 4 5 6; do echo "line $n" >a/docs/$n.txt; done &&
	(cd a && hearth record -m six >/dev/null) &&
	hearth clone a b >/dev/null 2>&1 &&
	test_cmp a/docs/1.txt b/docs/1.txt
'

test_expect_success 'with nothing changed since the walk, every change of the peer is written' '
	echo "line 1, again" >a/docs/1.txt && mv a/docs/2.txt a/docs/two.txt &&
	rm a/docs/3.txt && echo new >a/docs/new.txt &&
	(cd a && hearth record -m "four changes" >/dev/null) &&
	echo mine >b/mine.txt &&
	(cd b && hearth sync --checkout ../a) >out &&
	grep "^Recorded local changes first as" out &&
	grep "^Checked out .*: 2 written, 1 removed, 1 moved" out &&
	for f in 1.txt two.txt new.txt 4.txt; do test_cmp a/docs/$f b/docs/$f || return 1; done &&
	! test -e b/docs/2.txt && ! test -e b/docs/3.txt && test "$(cat b/mine.txt)" = mine &&
	(cd b && hearth status --porcelain) >status && ! grep -v "^#" status
'

test_expect_success 'a file edited after the walk, where the checkout would write: refused, the edit kept' '
	echo "line 4, from a" >a/docs/4.txt && (cd a && hearth record -m four >/dev/null) &&
	test_when_finished "$release_held"
	held_sync edit &&
	echo "line 4, edited meanwhile" >b/docs/4.txt &&
	rm "$TEST_ROOT/held" &&
	! wait $client &&
	grep "would overwrite 1 unrecorded change" err &&
	test "$(cat b/docs/4.txt)" = "line 4, edited meanwhile" &&
	(cd b && hearth status --porcelain) | grep "^M docs/4.txt$" &&
	(cd b && hearth record -m mine >/dev/null && hearth sync --checkout ../a >/dev/null) &&
	(cd b && hearth conflicts) | grep "docs/4.txt"
'

test_expect_success 'a file made after the walk where the checkout would make one: refused, the file kept' '
	echo "from a" >a/docs/made.txt && (cd a && hearth record -m made >/dev/null) &&
	test_when_finished "$release_held"
	held_sync made &&
	echo "made in b meanwhile" >b/docs/made.txt &&
	rm "$TEST_ROOT/held" &&
	! wait $client &&
	grep "would overwrite 1 unrecorded change" err &&
	test "$(cat b/docs/made.txt)" = "made in b meanwhile"
'

test_expect_success 'a file deleted after the walk where the checkout would write: written, nothing lost' '
	rm b/docs/made.txt &&
	echo "line 5, from a" >a/docs/5.txt && (cd a && hearth record -m five >/dev/null) &&
	test_when_finished "$release_held"
	held_sync deleted &&
	rm b/docs/5.txt &&
	rm "$TEST_ROOT/held" &&
	wait $client &&
	test_cmp a/docs/5.txt b/docs/5.txt && test_cmp a/docs/made.txt b/docs/made.txt
'

test_expect_success 'a file moved after the walk, whose place the checkout would fill: refused, kept' '
	mv a/docs/6.txt a/docs/six.txt && (cd a && hearth record -m six >/dev/null) &&
	test_when_finished "$release_held"
	held_sync moved &&
	echo "six of b" >b/docs/six.txt &&
	rm "$TEST_ROOT/held" &&
	! wait $client &&
	grep "would overwrite 1 unrecorded change" err &&
	test "$(cat b/docs/six.txt)" = "six of b" && test -f b/docs/6.txt
'

test_expect_success 'a folder swapped for a link after the walk: nothing written through it' '
	mkdir a/sub && echo s >a/sub/s.txt && (cd a && hearth record -m sub >/dev/null) &&
	(cd b && hearth sync --checkout ../a >/dev/null) && test -f b/sub/s.txt &&
	echo n >a/sub/n.txt && (cd a && hearth record -m n >/dev/null) &&
	mkdir outside &&
	test_when_finished "$release_held"
	held_sync link &&
	mv b/sub b/sub-real && ln -s ../outside b/sub &&
	rm "$TEST_ROOT/held" &&
	{ wait $client; true; } &&
	! test -e outside/n.txt && test -z "$(ls outside)" && test -h b/sub &&
	test "$(cat b/sub-real/s.txt)" = s
'

test_expect_success 'checkout --force: a file edited after the walk of its record is not overwritten' '
	hearth init c >/dev/null && echo 1 >c/x && echo 1 >c/y &&
	(cd c && hearth record -m one >/dev/null) &&
	echo 2 >c/x && echo 2 >c/y && (cd c && hearth record -m two >/dev/null) &&
	settle_stamps c && echo 3 >c/x &&
	test_when_finished "$release_held"
	held c checkout --force head~1 &&
	echo mine >c/y &&
	rm "$TEST_ROOT/held" &&
	! wait $client &&
	grep "would overwrite 1 unrecorded change" err &&
	test "$(cat c/y)" = mine && test "$(cat c/x)" = 3 &&
	(cd c && hearth log --oneline) | grep "Unrecorded changes, recorded by checkout --force"
'

test_expect_success 'checkout --force with nothing changed after its record checks the version out' '
	(cd c && hearth record -m "y, mine" >/dev/null) && echo 4 >c/x &&
	(cd c && hearth checkout --force head~3) >out &&
	grep "^Recorded the unrecorded changes first as" out && grep "^At version .*: 2 written" out &&
	test "$(cat c/x)" = 1 && test "$(cat c/y)" = 1 &&
	(cd c && hearth show --cat head x) >x && test "$(cat x)" = 4
'

test_done
