#!/bin/sh
test_description='the app: the Sides pane of every conflict kind shows what each side holds (both files of a name clash, the edit that revived a deleted file, what kept a deleted folder, the move a skipped one looped with)'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"

# One pane's screen, after waiting for its title.
sides_of() {
	app_wait "$1" 20 &&
	app_screen >"$TEST_ROOT/screen"
}

# b records more before the changes made at once, so each of its ops that
# follow comes after a's in the total order (docs/DESIGN.md §4): b's edit
# shows, a's file keeps the name n.txt, b's folder move is the one skipped.
test_expect_success 'two replicas, each with its own author, of one Home' '
	hearth init a >/dev/null &&
	mkdir -p a/music a/x/inner a/docs a/dir &&
	echo tune >a/music/tune.ogg &&
	printf "one\ntwo\n" >a/notes.txt &&
	echo keep >a/x/inner/file &&
	echo list >a/docs/list.txt &&
	echo f >a/dir/f &&
	(cd a && USER=ann hearth record -m base >/dev/null) &&
	hearth init b >/dev/null &&
	test_tool join-home b a &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	mkdir b/warm && for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		echo "$i" >b/warm/$i.txt || return 1
	done &&
	(cd b && USER=bob hearth record -m "b warms up: its next ops come after a'"'"'s" >/dev/null)
'

test_expect_success 'a and b do things at once: every kind of conflict' '
	printf "one\nTWO a\n" >a/notes.txt && printf "one\ntwo b\n" >b/notes.txt &&
	echo "made on a" >a/n.txt && echo "made on b, longer" >b/n.txt &&
	rm a/music/tune.ogg && echo "a better tune" >b/music/tune.ogg &&
	mv a/x a/docs/x && mv b/docs b/x/inner/docs &&
	rm -r a/dir && echo "new on b" >b/dir/new.txt && echo "f from b" >b/dir/f &&
	(cd a && USER=ann hearth record -m "a side" >/dev/null) &&
	(cd b && USER=bob hearth record -m "b side" >/dev/null &&
	    hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	(cd b && hearth conflicts --porcelain) >listed &&
	for kind in revived cycle edit-revived content name; do
		grep "^[a-z][0-9a-f]* $kind " listed || return 1
	done &&
	loser=$(sed -n "s/^n[0-9a-f]* name \(n~[0-9a-f]*\.txt\)$/\1/p" listed) &&
	test -n "$loser" && echo "$loser" >loser &&
	test "$(cat b/n.txt)" = "made on a" && test "$(cat "b/$loser")" = "made on b, longer"
'

test_expect_success 'the CLI lists both files of the name clash and the edit of the revived file' '
	(cd b && hearth conflicts) >out &&
	grep -E "^    \* name +[0-9a-f]{8}/[0-9]+ ann@.*, 10 bytes, [0-9a-f]{12} -> n\.txt$" out &&
	grep -E "^      name +[0-9a-f]{8}/[0-9]+ \(this replica\) bob@.*, 18 bytes, [0-9a-f]{12} -> n\.txt, shown as $(cat loser)$" out &&
	grep -E "^    \* edit +[0-9a-f]{8}/[0-9]+ \(this replica\) bob@.*, 14 bytes, [0-9a-f]{12}$" out &&
	grep -E "^      add +[0-9a-f]{8}/[0-9]+ \(this replica\) bob@.*, 9 bytes, [0-9a-f]{12} -> dir/new\.txt$" out &&
	grep -E "^    \* edit +[0-9a-f]{8}/[0-9]+ \(this replica\) bob@.*, 9 bytes, [0-9a-f]{12} of dir/f$" out &&
	grep -E "^    \* move +[0-9a-f]{8}/[0-9]+ ann@.* -> docs/x$" out &&
	grep -A2 "^edit-revived " out >revived &&
	grep "delete .* ann@" revived && grep "edit .* bob@" revived
'

test_expect_success 'the revived folder: the delete and what b put in it' '
	cd b &&
	app_start &&
	app_wait "1 History" &&
	app_keys 2 &&
	app_wait "notes.txt" 20 &&
	app_keys g Enter &&
	sides_of "revived conflict at dir" &&
	grep -E "theirs +replica [0-9a-f]{8}, op [0-9]+, by ann@" "$TEST_ROOT/screen" &&
	grep -E "^ +delete$" "$TEST_ROOT/screen" &&
	grep -E "mine +replica [0-9a-f]{8} \(this one\), op [0-9]+, by bob@" "$TEST_ROOT/screen" &&
	grep -E "puts dir/new\.txt in it, 9 bytes, content [0-9a-f]{12}$" "$TEST_ROOT/screen" &&
	grep -E "edit of dir/f, 9 bytes, content [0-9a-f]{12}; head shows this side" "$TEST_ROOT/screen"
'

test_expect_success 'the cycle: the skipped move and the move it would have looped with' '
	app_keys l &&
	sides_of "edit-revived conflict at dir/f" &&
	app_keys l &&
	sides_of "cycle conflict at docs" &&
	grep -E "move to docs/x/inner/docs$" "$TEST_ROOT/screen" &&
	grep -E "by ann@" "$TEST_ROOT/screen" &&
	grep -E "move to docs/x; head shows this side" "$TEST_ROOT/screen"
'

test_expect_success 'edit-revived: the delete and the edit, with its author, size and content' '
	app_keys l &&
	sides_of "edit-revived conflict at music/tune.ogg" &&
	grep -E "theirs +replica [0-9a-f]{8}, op [0-9]+, by ann@" "$TEST_ROOT/screen" &&
	grep -E "mine +replica [0-9a-f]{8} \(this one\), op [0-9]+, by bob@" "$TEST_ROOT/screen" &&
	grep -E "edit, 14 bytes, content [0-9a-f]{12}; head shows this side" "$TEST_ROOT/screen" &&
	grep -E "^ +delete$" "$TEST_ROOT/screen"
'

test_expect_success 'content: each edit with its size and content' '
	app_keys l &&
	sides_of "content conflict at notes.txt" &&
	test $(grep -c "edit, 10 bytes, content [0-9a-f]\{12\}" "$TEST_ROOT/screen") = 2
'

test_expect_success 'name: both files, the one keeping the name and the renamed one, each with its size and content' '
	app_keys l &&
	sides_of "name conflict at $(cat "$TEST_ROOT/loser")" &&
	grep -E "by bob@" "$TEST_ROOT/screen" && grep -E "by ann@" "$TEST_ROOT/screen" &&
	grep -E "named n\.txt \(keeps the name\), 10 bytes, content [0-9a-f]{12}; head shows this side" \
	    "$TEST_ROOT/screen" &&
	grep -E "named n\.txt, shown as $(cat "$TEST_ROOT/loser"), 18 bytes, content [0-9a-f]{12}$" \
	    "$TEST_ROOT/screen" &&
	app_quit
'

test_done
