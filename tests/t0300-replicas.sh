#!/bin/sh
test_description='replicas edit offline, sync, and converge; every conflict is listed and resolvable'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

test_expect_success 'setup: replica a with a small Home, and replica b of it' '
	hearth init a >/dev/null &&
	mkdir -p a/docs/old a/music &&
	echo "shopping list" >a/docs/list.txt &&
	printf "line 1\nline 2\nline 3\n" >a/docs/notes.txt &&
	echo tune >a/music/tune.ogg &&
	(cd a && hearth record -m base >/dev/null) &&
	make_replica b a &&
	same_trees a b
'

test_expect_success 'concurrent edits of one file: a content conflict, both versions kept' '
	echo "edited on a" >a/docs/list.txt && (cd a && hearth record -m "a edits" >/dev/null) &&
	echo "edited on b" >b/docs/list.txt && (cd b && hearth record -m "b edits" >/dev/null) &&
	sync_pair b a &&
	(cd a && hearth conflicts --porcelain) >out &&
	grep "^c[0-9a-f]* content docs/list.txt$" out &&
	test $(grep -c "^  " out) = 2 &&
	converged a b
'

test_expect_success 'resolving it on one side settles it on both' '
	settle a && settle b &&
	test "$(cat a/docs/list.txt)" = "$(cat b/docs/list.txt)" &&
	(cd b && hearth resolve --mine docs/list.txt >/dev/null) &&
	test "$(cat b/docs/list.txt)" = "edited on b" &&
	(cd b && hearth log -n 1 --oneline) >out &&
	grep " Resolve docs/list.txt: keep mine$" out &&
	sync_pair a b && settle a &&
	test "$(cat a/docs/list.txt)" = "edited on b" &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out &&
	converged a b && same_trees a b
'

test_expect_success 'resolving before checking out leaves nothing for checkout to do' '
	echo "a again" >a/docs/list.txt && (cd a && hearth record -m "a again" >/dev/null) &&
	echo "b again" >b/docs/list.txt && (cd b && hearth record -m "b again" >/dev/null) &&
	sync_pair b a &&
	(cd b && hearth status --porcelain) >out && grep "^# ahead [1-9]" out &&
	(cd b && hearth resolve --mine docs/list.txt >/dev/null) &&
	(cd b && hearth status --porcelain) >out && grep "^# changes 0$" out &&
	(cd b && hearth log -n 1 --oneline) >out && grep " Resolve docs/list.txt: keep mine$" out &&
	(cd b && hearth status) >out && ! grep "^Head has" out &&
	sync_pair a b && settle a && same_trees a b
'

test_expect_success 'a rename on one side and an edit on the other merge with no conflict' '
	mv a/docs/notes.txt a/docs/notes-2026.txt && (cd a && hearth record -m rename >/dev/null) &&
	echo "line 4" >>b/docs/notes.txt && (cd b && hearth record -m edit >/dev/null) &&
	sync_pair b a && settle a && settle b &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out &&
	test ! -e a/docs/notes.txt && grep "line 4" a/docs/notes-2026.txt &&
	same_trees a b && converged a b
'

test_expect_success 'delete against edit: the file is revived and listed' '
	rm a/music/tune.ogg && (cd a && hearth record -m "delete tune" >/dev/null) &&
	echo "better tune" >b/music/tune.ogg && (cd b && hearth record -m "edit tune" >/dev/null) &&
	sync_pair b a && settle a && settle b &&
	test "$(cat a/music/tune.ogg)" = "better tune" &&
	(cd a && hearth conflicts --porcelain) >out && grep " edit-revived music/tune.ogg$" out &&
	same_trees a b && converged a b
'

test_expect_success 'keeping the delete (mine on the deleting side) removes it everywhere' '
	(cd a && hearth resolve --mine music/tune.ogg >/dev/null) &&
	test ! -e a/music/tune.ogg &&
	sync_pair b a && settle b && test ! -e b/music/tune.ogg &&
	same_trees a b && converged a b
'

test_expect_success 'a folder moved into its own child on the other side: a cycle, nothing lost' '
	mkdir -p a/x/inner b/tmp && echo keep >a/x/inner/file && (cd a && hearth record -m x >/dev/null) &&
	sync_pair b a && settle b &&
	mv a/x a/docs/x && (cd a && hearth record -m "x into docs" >/dev/null) &&
	mv b/docs b/x/inner/docs && (cd b && hearth record -m "docs into x" >/dev/null) &&
	sync_pair b a && settle a && settle b &&
	(cd a && hearth conflicts --porcelain) >out && grep " cycle " out &&
	find a -name file | grep -q . && find a -name list.txt | grep -q . &&
	same_trees a b && converged a b
'

test_expect_success 'settling the skipped move leaves the folder where it is shown' '
	cycle=$(sed -n "s/^\(y[0-9a-f]*\) cycle .*/\1/p" out) &&
	(cd b && hearth resolve --mine "$cycle" >/dev/null) &&
	sync_pair a b && settle a && settle b &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out &&
	same_trees a b && converged a b
'

test_expect_success 'same-name creates keep both files, deterministically named' '
	echo "from a" >a/same.txt && (cd a && hearth record -m "a same" >/dev/null) &&
	echo "from b" >b/same.txt && (cd b && hearth record -m "b same" >/dev/null) &&
	sync_pair b a && settle a && settle b &&
	ls a | grep -c "^same" >count && test "$(cat count)" = 2 &&
	ls a | grep "^same~[0-9a-f]*\.txt$" &&
	(cd a && hearth conflicts --porcelain) >out && grep " name same~" out &&
	same_trees a b && converged a b
'

test_expect_success 'keep both of a name clash makes both names real' '
	(cd b && hearth resolve --both "same*" >/dev/null) &&
	(cd b && hearth log -n 1 --oneline) >out &&
	grep " Resolve same~[0-9a-f]*\.txt: keep both$" out &&
	sync_pair a b && settle a &&
	(cd a && hearth conflicts) >out && grep "No conflicts" out &&
	ls a | grep -c "^same" >count && test "$(cat count)" = 2 &&
	same_trees a b && converged a b
'

test_expect_success 'keep both of a content conflict writes the other side beside it' '
	echo "a version" >a/docs/both.txt && (cd a && hearth record -m both >/dev/null) &&
	sync_pair b a && settle b &&
	echo "a changes it" >a/docs/both.txt && (cd a && hearth record -m "a" >/dev/null) &&
	echo "b changes it" >b/docs/both.txt && (cd b && hearth record -m "b" >/dev/null) &&
	sync_pair b a &&
	(cd b && hearth checkout >/dev/null && hearth resolve --both docs/both.txt >/dev/null) &&
	ls b/docs | grep "^both~[0-9a-f]*\.txt$" >beside &&
	test "$(cat b/docs/both.txt)" = "b changes it" &&
	test "$(cat "b/docs/$(cat beside)")" = "a changes it" &&
	sync_pair a b && settle a && same_trees a b && converged a b
'

test_expect_success 'a third replica joins, edits offline, and all three converge' '
	make_replica c a &&
	echo "from c" >c/docs/from-c.txt && (cd c && hearth record -m c >/dev/null) &&
	echo "from a again" >a/docs/from-a.txt && (cd a && hearth record -m a >/dev/null) &&
	sync_pair c b && sync_pair b a && sync_pair c a && sync_pair b a &&
	settle a && settle b && settle c &&
	same_trees a b && same_trees a c && converged a b && converged a c
'

test_expect_success 'sync --checkout records local changes first, then brings head in' '
	echo "new on a" >a/docs/auto.txt && (cd a && hearth record -m auto >/dev/null) &&
	echo "unrecorded on b" >b/local.txt &&
	(cd b && hearth sync --checkout ../a) >out &&
	grep "^Recorded local changes first" out && grep "^Checked out" out &&
	test "$(cat b/docs/auto.txt)" = "new on a" && test "$(cat b/local.txt)" = "unrecorded on b" &&
	(cd b && hearth status --porcelain) >status && ! grep -v "^#" status &&
	(cd b && hearth log --oneline -n 1) >log && grep "Local changes, recorded before applying a sync" log
'

test_expect_success 'auto_checkout in the config stops at max_delete, and --yes goes past it' '
	printf "auto_checkout: true\nmax_delete: 10%%\n" >>b/.hearth/config.yaml &&
	(cd a && hearth sync ../b >/dev/null && hearth checkout >/dev/null) &&
	rm -r a/docs && (cd a && hearth record --yes -m "no more docs" >/dev/null) &&
	test_expect_code 1 sh -c "cd b && \"$HEARTH_BIN\" sync ../a" >out 2>err &&
	grep "max_delete" err && test -d b/docs &&
	(cd b && hearth sync --no-checkout ../a) >out && ! grep "Checked out" out && test -d b/docs &&
	(cd b && hearth sync --yes ../a) >out && grep "^Checked out" out && test ! -e b/docs &&
	(cd b && hearth sync ../a) >out && ! grep "Checked out" out
'

test_done
