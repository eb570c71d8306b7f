#!/bin/sh
test_description='head means the head state: every name of the newest gives every op held, in every view'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/manifest.sh"

# The tree a name gives in each view must be one: export, ls of every
# folder and show --cat of every file, and checkout into the working tree.
views_agree() {	# HOME NAME
	rm -rf "$TEST_ROOT/out" &&
	(cd "$1" && hearth export "$2" "$TEST_ROOT/out" >/dev/null) &&
	tree_manifest "$TEST_ROOT/out" >"$TEST_ROOT/export.m" &&
	(cd "$TEST_ROOT/out" && find . -mindepth 1 | sed "s|^\./||" | LC_ALL=C sort) >"$TEST_ROOT/export.paths" &&
	ls_walk "$1" "$2" "" | LC_ALL=C sort >"$TEST_ROOT/ls.paths" &&
	test_cmp "$TEST_ROOT/export.paths" "$TEST_ROOT/ls.paths" &&
	while read -r path kind mode sum; do
		test "$kind" = f || continue
		got=$(cd "$1" && hearth show --cat "$2" "$path" | sha256sum | cut -d" " -f1)
		test "$got" = "$sum" || { echo "show --cat $2 $path: $got, export: $sum"; return 1; }
	done <"$TEST_ROOT/export.m" &&
	(cd "$1" && hearth checkout "$2" >/dev/null) &&
	tree_manifest "$1" >"$TEST_ROOT/tree.m" &&
	test_cmp "$TEST_ROOT/export.m" "$TEST_ROOT/tree.m"
}

# Every path under FOLDER of version NAME, by `hearth ls`, folder by folder.
ls_walk() {	# HOME NAME FOLDER
	(cd "$1" && hearth ls "$2" "${3:-.}") | while read -r entry; do
		case $entry in
		*/) echo "$3${entry%/}"; ls_walk "$1" "$2" "$3$entry" ;;
		*) echo "$3$entry" ;;
		esac
	done
}

test_expect_success 'setup: two replicas edit different files, then sync' '
	hearth init a >/dev/null && echo base >a/base && (cd a && hearth record -m base >/dev/null) &&
	hearth clone a b >/dev/null &&
	echo "from a" >a/from-a && (cd a && hearth record -m "on a" >/dev/null) &&
	echo "from b" >b/from-b && (cd b && hearth record -m "on b" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null)
'

test_expect_success 'the sync records a merge version that names the head state' '
	(cd b && hearth log --oneline) >log &&
	head -n 1 log | grep "Merge 1 version from origin" &&
	(cd b && hearth status) >status && grep "^At version .*; head is " status &&
	(cd b && hearth ls head) >ls && grep "^from-a$" ls && grep "^from-b$" ls &&
	(cd b && hearth show head) >show && grep "^A from-a$" show
'

test_expect_success 'head, head~0, the merge id and no name all give both replicas'"'"' work' '
	id=$(cd b && hearth log | sed -n "1s/^version //p") &&
	(cd b && hearth checkout >/dev/null) && tree_manifest b >plain.m &&
	grep "^from-a " plain.m && grep "^from-b " plain.m &&
	for name in head head~0 HEAD "$id" "$(echo "$id" | cut -c1-10)"; do
		views_agree b "$name" && test_cmp plain.m tree.m || exit 1
	done &&
	(cd b && hearth status) >status && grep "^At version .* (head)\.$" status
'

test_expect_success 'the peer that receives the merge has the same head, and its views agree' '
	(cd a && hearth log --oneline) | head -n 1 >a.first && (cd b && hearth log --oneline) | head -n 1 >b.first &&
	test_cmp a.first b.first &&
	views_agree a head && cp tree.m a.m && test_cmp plain.m a.m
'

test_expect_success 'a record after a checkout of head keeps the peer'"'"'s work' '
	echo "a again" >a/from-a && (cd a && hearth record -m "a again" >/dev/null) &&
	# More ops on b, so that its version is the newest in total order.
	for i in 1 2 3 4 5 6; do echo $i >b/b$i; done && (cd b && hearth record -m "six on b" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout head >/dev/null) &&
	test "$(cat b/from-a)" = "a again" &&
	echo more >b/more && (cd b && hearth record -m more) >record &&
	! grep "^ [DM] from-a" record &&
	(cd b && hearth show --cat head from-a) >now && test "$(cat now)" = "a again" &&
	(cd b && hearth status) >status && ! grep "restore" status
'

test_expect_success 'a record while the tree is behind head: status says what it lacks, without contradiction' '
	echo "a once more" >a/from-a && (cd a && hearth record -m "a once more" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null) &&
	echo behind >b/behind && (cd b && hearth record -m "recorded behind" >/dev/null) &&
	(cd b && hearth status) >status &&
	grep "^At version [0-9a-f]* (head), but the working tree lacks 1 of its changes" status &&
	! grep "^Head has" status &&
	(cd b && hearth show --cat head from-a) >now && test "$(cat now)" = "a once more" &&
	(cd b && hearth checkout >/dev/null && hearth status) >status &&
	grep "^At version [0-9a-f]* (head)\.$" status && test "$(cat b/from-a)" = "a once more"
'

test_expect_success 'a ring of five replicas: checkout and checkout head write the same tree' '
	for r in r1 r2 r3 r4; do hearth clone a $r >/dev/null || exit 1; done &&
	for r in a r1 r2 r3 r4; do
		mkdir -p $r/$r && echo "$r one" >$r/$r/one && echo "$r two" >$r/$r/two &&
		(cd $r && hearth record -m "work of $r" >/dev/null) || exit 1
	done &&
	(cd r1 && hearth sync ../a >/dev/null) && (cd r2 && hearth sync ../r1 >/dev/null) &&
	(cd r3 && hearth sync ../r2 >/dev/null) && (cd r4 && hearth sync ../r3 >/dev/null) &&
	(cd r4 && hearth checkout >/dev/null) && tree_manifest r4 >plain.m &&
	for r in a r1 r2 r3 r4; do grep -q "^$r/two " plain.m || exit 1; done &&
	views_agree r4 head && test_cmp plain.m tree.m &&
	(cd r4 && hearth status --porcelain) >status && grep "^# unnamed 0$" status
'

test_expect_success 'name conflicts: every view of head holds the losers with their own bytes' '
	for r in a r1 r2; do echo "n of $r" >$r/n.txt && (cd $r && hearth record -m "n on $r" >/dev/null) || exit 1; done &&
	(cd r1 && hearth sync ../a >/dev/null && hearth sync ../r2 >/dev/null && hearth checkout >/dev/null) &&
	ls r1 | grep "^n" >names && test $(wc -l <names) = 3 &&
	for name in $(cat names); do
		(cd r1 && hearth show --cat head "$name") >bytes && cmp bytes "r1/$name" || exit 1
	done &&
	tree_manifest r1 >plain.m && views_agree r1 head && test_cmp plain.m tree.m &&
	(cd r1 && hearth ls head) | grep "^n" >ls.names && test_cmp names ls.names
'

test_expect_success 'name conflicts: an older version by its id gives the tree its checkout gives' '
	(cd r1 && hearth checkout >/dev/null) && echo later >r1/later &&
	(cd r1 && hearth record -m later >/dev/null) &&
	old=$(cd r1 && hearth log | sed -n "s/^version //p" | sed -n 2p) &&
	views_agree r1 "$old" && grep -c "^n" tree.m >count && test "$(cat count)" = 3 &&
	! grep "^later " tree.m
'

# The pushed version is recorded a clock second after the receiver's own,
# so log lists it first though the total order puts the receiver's own
# last: head~1, status, show head, diff and checkout must all mean log's first.
test_expect_success 'a push leaves the receiver an unnamed head state: head is that state' '
	echo own >r4/own && (cd r4 && hearth record -m own >/dev/null) &&
	recorded=$(date +%s) && test_wait_for "test \$(date +%s) -gt $recorded" 5 &&
	echo pushed >r3/pushed && (cd r3 && hearth record -m pushed >/dev/null) &&
	(cd r3 && hearth sync --push ../r4 >/dev/null) &&
	(cd r4 && hearth log --oneline) >log && head -n 1 log | grep "^head The head state: " &&
	(cd r4 && hearth status) >status && grep "^Head is the head state: " status &&
	(cd r4 && hearth ls head) >ls && grep "^pushed$" ls && grep "^own$" ls &&
	# The newest version (r4'"'"'s own or the pushed one) lacks the other.
	newest=$(sed -n "2s/ .*//p" log) && (cd r4 && hearth ls "$newest") >old.ls &&
	if grep "^own$" old.ls; then lacks=pushed; else lacks=own; fi && ! grep "^$lacks$" old.ls &&
	(cd r4 && hearth show head) | grep "^A $lacks$" &&
	(cd r4 && hearth diff head~1 head) >diff && grep "^+++ b/$lacks$" diff &&
	test $(grep -c "^diff " diff) = 1 &&
	(cd r4 && hearth ls head~1) >old1.ls && test_cmp old.ls old1.ls &&
	(cd r4 && hearth checkout >/dev/null) && tree_manifest r4 >plain.m && grep "^pushed " plain.m &&
	views_agree r4 head && test_cmp plain.m tree.m &&
	(cd r4 && hearth status) >status && grep "^The working tree is at head\.$" status &&
	echo r4 >r4/after && (cd r4 && hearth record -m after >/dev/null) &&
	(cd r4 && hearth show --cat head pushed) >pushed && test "$(cat pushed)" = pushed &&
	(cd r4 && hearth status --porcelain) >status && grep "^# unnamed 0$" status
'

test_expect_success 'the next sync of the receiver names it with a merge version' '
	echo more >r3/pushed && (cd r3 && hearth record -m "push more" >/dev/null) &&
	(cd r3 && hearth sync --push ../r4 >/dev/null) &&
	(cd r4 && hearth status --porcelain) >status && ! grep "^# unnamed 0$" status &&
	echo later >r3/later && (cd r3 && hearth record -m later >/dev/null) &&
	(cd r4 && hearth sync ../r3 >/dev/null) &&
	(cd r4 && hearth log --oneline) | head -n 1 | grep "Merge" &&
	(cd r4 && hearth status --porcelain) >status && grep "^# unnamed 0$" status
'

test_done
