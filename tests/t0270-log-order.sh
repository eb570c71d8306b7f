#!/bin/sh
test_description='history is newest first by time, ties in total order, the same in log, head~N and the app; versions from a sync are marked'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# messages DIR: the first line of each version's message, as log lists them.
messages() {
	(cd "$1" && hearth log --oneline) | sed "s/^[^ ]* //"
}

# Four versions on a, then (once the clock has passed the last of them) one
# on b, which has seen none of the four: in total order b's comes below
# them (fewer ops before it), by time above them.
test_expect_success 'a records four versions; b, a clone that has not seen them, records later' '
	hearth init a >/dev/null &&
	echo base >a/base.txt && (cd a && hearth record -m base >/dev/null) &&
	hearth clone a b >/dev/null &&
	for n in 1 2 3 4; do
		echo $n >a/a$n.txt && (cd a && hearth record -m "a $n" >/dev/null) || exit 1
	done &&
	last=$(date +%s) &&
	test_wait_for "test \$(date +%s) -gt $last" 5 &&
	echo b >b/b.txt && (cd b && hearth record -m "b later" >/dev/null) &&
	(cd a && hearth sync ../b >/dev/null)
'

test_expect_success 'log lists the later version from b above the four of a, the merge first' '
	messages a >order &&
	cat >expect <<-EOF &&
	Merge 1 version from $TEST_ROOT/b
	b later
	a 4
	a 3
	a 2
	a 1
	base
	EOF
	test_cmp expect order
'

test_expect_success 'the version that came by the sync is marked; a own are not' '
	(cd a && hearth log) >log &&
	grep -B4 "^    b later$" log | grep "^Replica: [0-9a-f]* (arrived by sync)  Changes: " &&
	grep -B4 "^    a 4$" log | grep "^Replica: " >mine &&
	! grep "arrived by sync" mine &&
	(cd b && hearth log) >log.b &&
	grep -B4 "^    a 4$" log.b | grep "(arrived by sync)" &&
	grep -B4 "^    b later$" log.b | grep "^Replica: " >mine.b &&
	! grep "arrived by sync" mine.b
'

test_expect_success 'head~N counts lines of that order: head~1 is b, head~2 the fourth of a' '
	(cd a && hearth log --oneline) >lines &&
	one=$(sed -n "2s/ .*//p" lines) && two=$(sed -n "3s/ .*//p" lines) &&
	(cd a && hearth ls head~1) >ls.1 && (cd a && hearth ls "$one") >ls.one &&
	test_cmp ls.one ls.1 && grep "^b.txt$" ls.1 && ! grep "^a4.txt$" ls.1 &&
	(cd a && hearth ls head~2) >ls.2 && (cd a && hearth ls "$two") >ls.two &&
	test_cmp ls.two ls.2 && grep "^a4.txt$" ls.2 && ! grep "^b.txt$" ls.2
'

test_done
