#!/bin/sh
test_description='hearth show derives what a version changed from the scope of the nodes it touched (backend/history/path_scope.h): the same list as the whole trees give, through folder deletes and revives, move cycles and name clashes between replicas'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

record() {
	(cd "$1" && hearth record -m "$2" >/dev/null)
}

# Every version's show from its scope equals the whole trees'; prints
# how many versions the scope decided alone.
scopes_agree() {
	test_tool show-versions "$1" >"$TEST_ROOT/scopes" && cat "$TEST_ROOT/scopes" &&
	grep " 0 differ\$" "$TEST_ROOT/scopes"
}

test_expect_success 'setup: folders, files, a move, a rename, a deleted folder beside the work' '
	hearth init home >/dev/null && mkdir -p home/docs/deep home/old home/music &&
	echo a >home/docs/notes.txt && echo d >home/docs/deep/plan.txt &&
	echo o >home/old/gone.txt && echo m >home/music/song.txt && record home one &&
	echo b >>home/docs/notes.txt && record home "edit notes" &&
	rm -r home/old && record home "delete old" &&
	mv home/docs/deep home/music/deep && record home "move deep" &&
	mv home/docs/notes.txt home/docs/list.txt && record home "rename notes" &&
	echo c >>home/music/song.txt && record home "edit song"
'

test_expect_success 'show lists exactly what the version beside a deleted folder did' '
	(cd home && hearth show head) >out && cat out &&
	grep "^M music/song.txt$" out && test "$(grep -c "^[AMDR] " out)" = 1 &&
	(cd home && hearth show head~3) >out && grep "^D old/gone.txt$" out && grep "^D old$" out
'

test_expect_success 'every version from its scope, each decided alone (the deleted folder joins it)' '
	scopes_agree home &&
	grep "^6 versions and head, 7 from their scope" "$TEST_ROOT/scopes"
'

test_expect_success 'show PATH: a path the version left alone is known, one never there is not' '
	(cd home && hearth show head docs/list.txt) >out &&
	! grep "^[AMDR] " out &&
	(cd home && test_expect_code 2 hearth show head nowhere.txt 2>../err) &&
	grep "no path nowhere.txt" err
'

test_expect_success 'two replicas: a folder deleted on one while a file deep in it is edited on the other' '
	mkdir home/music/deep/sub && echo y >home/music/deep/sub/y.txt && record home "add y" &&
	make_replica laptop home &&
	rm -r home/music/deep && record home "delete deep" &&
	echo more >>laptop/music/deep/sub/y.txt && record laptop "edit y" &&
	sync_pair home laptop && sync_pair laptop home &&
	scopes_agree home && scopes_agree laptop
'

test_expect_success 'then a file added beside the one that revived the folder shows as one add' '
	settle laptop && test -f laptop/music/deep/sub/y.txt && ! test -e laptop/music/deep/plan.txt &&
	echo new >laptop/music/deep/new.txt && record laptop "add new" &&
	(cd laptop && hearth show head) >out && cat out &&
	grep "^A music/deep/new.txt$" out && test "$(grep -c "^[AMDR] " out)" = 1 &&
	scopes_agree laptop
'

test_expect_success 'two replicas: folders moved into each other (a cycle) and the same new name' '
	settle home && settle laptop &&
	mkdir home/p home/q && record home "p and q" && sync_pair laptop home && settle laptop &&
	mv home/p home/q/p && record home "p into q" &&
	mv laptop/q laptop/p/q && record laptop "q into p" &&
	echo one >home/same.txt && record home "same name here" &&
	echo two >laptop/same.txt && record laptop "same name there" &&
	sync_pair home laptop && sync_pair laptop home &&
	(cd home && hearth conflicts) >conflicts && cat conflicts &&
	scopes_agree home && scopes_agree laptop
'

test_expect_success 'a version that holds most of a long log is shown from the whole log, the same' '
	hearth init big >/dev/null && mkdir big/many big/few && echo x >big/few/x &&
	for i in $(seq 1 600); do echo $i >big/many/f$i; done && record big "600 files" &&
	echo edit >>big/few/x && record big "one edit" &&
	(cd big && hearth show head~1) >out && test "$(grep -c "^A many/f" out)" = 600 &&
	scopes_agree big && grep "^2 versions and head, 2 from their scope" "$TEST_ROOT/scopes"
'

test_done
