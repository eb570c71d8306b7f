#!/bin/sh
test_description='a copied or restored state folder gets its own replica id before it makes an op, so copies converge'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

replica_of() { test_tool probe "$TEST_ROOT/$1" | cut -d" " -f2; }

test_expect_success 'setup: a Home with two versions' '
	hearth init a >/dev/null &&
	echo one >a/one && (cd a && hearth record -m one >/dev/null) &&
	mkdir a/docs && echo notes >a/docs/notes && (cd a && hearth record -m docs >/dev/null) &&
	replica_of a >replica.a && test -s replica.a
'

test_expect_success 'cp -a of a Home, records in both: the copy takes a new id at its first write' '
	cp -a a b &&
	echo "from a" >a/from-a && (cd a && hearth record -m "in a" >/dev/null 2>../err.a) &&
	test ! -s err.a && replica_of a >now.a && test_cmp replica.a now.a &&
	echo "from b" >b/from-b && echo "b edits" >b/one &&
	(cd b && hearth record -m "in b" >/dev/null 2>../err.b) &&
	grep "b/.hearth is a copy (or was moved to another file system): it is now replica" err.b &&
	grep "no longer $(cut -c1-8 replica.a)" err.b &&
	replica_of b >replica.b && ! test_cmp replica.a replica.b
'

test_expect_success 'they sync and converge with nothing lost' '
	sync_pair b a && settle a && settle b &&
	same_trees a b && converged a b &&
	test "$(cat a/from-b)" = "from b" && test "$(cat b/from-a)" = "from a" &&
	test "$(cat a/one)" = "b edits" &&
	(cd a && hearth log --oneline) >log && grep " in a$" log && grep " in b$" log &&
	grep " docs$" log && grep " one$" log
'

test_expect_success 'a restored backup of a replica that synced since takes a new id, and catches up' '
	cp -a a backup &&
	echo later >a/later && (cd a && hearth record -m later >/dev/null) && sync_pair a b &&
	mv a gone && mv backup a &&
	echo "after the restore" >a/restored && (cd a && hearth record -m restored >/dev/null 2>../err) &&
	grep "a/.hearth is a copy" err && ! replica_of a | grep -q "$(cat replica.a)" &&
	sync_pair a b && settle a && settle b && same_trees a b && converged a b &&
	test "$(cat a/later)" = later && test "$(cat b/restored)" = "after the restore"
'

test_expect_success 'a Home moved within its file system keeps its id' '
	replica_of a >before && mv a moved && echo m >moved/m &&
	(cd moved && hearth record -m moved >/dev/null 2>../err) && test ! -s err &&
	replica_of moved >after && test_cmp before after && mv moved a
'

test_expect_success 'reading commands leave a copy as it is; the first write renews it once' '
	cp -a a c && replica_of a >replica.now &&
	(cd c && hearth status >/dev/null 2>../err && hearth log >/dev/null 2>>../err) && test ! -s err &&
	replica_of c >c.before && test_cmp replica.now c.before &&
	(cd c && hearth sync ../b >/dev/null 2>../err) && grep "is a copy" err &&
	(cd c && hearth sync ../b >/dev/null 2>../err) && test ! -s err &&
	replica_of c >c.after && ! test_cmp replica.now c.after
'

# A copy an earlier hearth made kept no note of its folder: both copies
# record under one id. reid cannot part what was made before it; sync finds
# the two histories of that id and says what to do, and doing it loses
# nothing.
test_expect_success 'an old copy that recorded under one id: reid and sync refuse, naming the way out' '
	cp -a a old && test_tool meta-delete old/.hearth/store.db state_stamp &&
	echo "kept in a" >a/kept && (cd a && hearth record -m "kept in a" >/dev/null) &&
	echo "made in old" >old/made && (cd old && hearth record -m "made in old" >/dev/null 2>../err) &&
	test ! -s err &&
	replica_of a | cut -c1-8 >shared &&
	(cd old && test_expect_code 1 hearth sync ../a 2>../err) &&
	grep "hold different ops as replica $(cat shared)" err && ! grep "reid" err &&
	(cd old && hearth reid >/dev/null) &&
	(cd a && hearth log --oneline) >log.before &&
	(cd old && test_expect_code 1 hearth sync ../a 2>../err) &&
	grep "hold different ops as replica $(cat shared)" err &&
	grep "nothing was exchanged" err && grep "hearth clone" err &&
	(cd a && hearth log --oneline) >log.after && test_cmp log.before log.after
'

test_expect_success 'following the refusal: the old copy'"'"'s work comes over as a new replica'"'"'s' '
	mkdir saved && cp old/made saved/ && mv old old.aside &&
	hearth clone a old >/dev/null && cp saved/made old/ &&
	(cd old && hearth record -m "made in old, brought over" >/dev/null) &&
	sync_pair old a && settle a && settle old && same_trees a old && converged a old &&
	test "$(cat a/made)" = "made in old" && test "$(cat old/kept)" = "kept in a"
'

test_done
