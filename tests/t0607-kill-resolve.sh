#!/bin/sh
test_description='a resolve killed at any write leaves a Home whose next record makes no bogus conflict'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# Resolve records the resolution, then writes it into the tree. Killed in
# between (or while writing), the index still held the rows from before
# the resolution; the next record then saw the written files as edits on
# top of the old heads and listed one "content" conflict per path, both
# sides this replica with one hash. The resolution now keeps its paths as
# pending in its own transaction and the next record or resolve writes
# them first.

test_expect_success 'setup: replica b with content conflicts on three files' '
	mkdir template && cd template && hearth init a >/dev/null && mkdir a/docs &&
	for f in one two three; do echo "base $f" >a/docs/$f.txt; done &&
	(cd a && hearth record -m base >/dev/null) && hearth clone a b >/dev/null &&
	for f in one two three; do echo "a edits $f" >a/docs/$f.txt; done &&
	(cd a && hearth record -m "on a" >/dev/null) &&
	for f in one two three; do echo "b edits $f" >b/docs/$f.txt; done &&
	(cd b && hearth record -m "on b" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	(cd b && hearth conflicts --porcelain) >../conflicts.before && test $(grep -c " content docs/" ../conflicts.before) = 3 &&
	(cd b && hearth conflicts) >../sides &&
	# Resolve for the side the tree does not show, so every file is rewritten.
	if grep -q "^ *\* .*(this replica)" ../sides; then echo --theirs; else echo --mine; fi >../side &&
	if test "$(cat ../side)" = --theirs; then echo "a edits"; else echo "b edits"; fi >../kept
'

test_expect_success 'the resolve unfaulted: its writes counted, the outcome known' '
	rm -rf run && cp -a template run &&
	(cd run/b && HEARTH_FAULT=count hearth resolve "$(cat ../../side)" "docs/*") >/dev/null 2>count.err &&
	sed -n "s/^hearth: io: \([0-9]*\) write-class calls.*/\1/p" count.err >calls &&
	test "$(cat calls)" -gt 10 &&
	for f in one two three; do test "$(cat run/b/docs/$f.txt)" = "$(cat kept) $f" || exit 1; done
'

test_expect_success 'killed at every write: the next record finishes it, with no bogus conflict' '
	n=1 && calls=$(cat calls) && : >outcomes &&
	while [ $n -le $calls ]; do
		rm -rf run && cp -a template run &&
		status=0; (cd run/b && HEARTH_KILL=$n hearth resolve "$(cat ../../side)" "docs/*" >/dev/null 2>&1) || status=$?
		test $status -ne 0 || { echo "kill $n: resolve exited 0"; exit 1; }
		(cd run/b && hearth status) >status.out 2>&1 || { echo "kill $n: status failed"; cat status.out; exit 1; }
		(cd run/b && hearth record -m after >/dev/null 2>record.err) ||
		    { echo "kill $n: record failed"; cat record.err; exit 1; }
		(cd run/b && hearth conflicts --porcelain) >conflicts.now &&
		if test -s conflicts.now; then
			# Not resolved (killed before the resolution committed): the
			# conflicts are the ones there were, no more.
			test_cmp conflicts.before conflicts.now || { echo "kill $n"; exit 1; }
			echo "$n before" >>outcomes
		else
			for f in one two three; do
				test "$(cat run/b/docs/$f.txt)" = "$(cat kept) $f" ||
				    { echo "kill $n: docs/$f.txt holds $(cat run/b/docs/$f.txt)"; exit 1; }
			done
			(cd run/b && hearth status --porcelain) >porcelain &&
			grep "^# changes 0$" porcelain && ! grep -v "^#" porcelain ||
			    { echo "kill $n: the tree is not at head"; cat porcelain; exit 1; }
			echo "$n after" >>outcomes
		fi
		(cd run/b && hearth fsck) >fsck.out && grep -q "no problems" fsck.out ||
		    { echo "kill $n: fsck"; cat fsck.out; exit 1; }
		n=$((n + 1))
	done &&
	grep -q " before$" outcomes && grep -q " after$" outcomes
'

test_expect_success 'killed while writing the tree: status tells, and a resolve finishes it too' '
	last=$(sed -n "s/ after$//p" outcomes | head -n 1) &&
	rm -rf run && cp -a template run &&
	(cd run/b && HEARTH_KILL=$last hearth resolve "$(cat ../../side)" "docs/*" >/dev/null 2>&1) || true &&
	(cd run/b && hearth conflicts --porcelain) >conflicts.now && test ! -s conflicts.now &&
	(cd run/b && hearth resolve --mine docs/one.txt) >resolve.out 2>&1 || true &&
	for f in one two three; do test "$(cat run/b/docs/$f.txt)" = "$(cat kept) $f" || exit 1; done &&
	(cd run/b && hearth status --porcelain) >porcelain && grep "^# changes 0$" porcelain
'

cat outcomes 2>/dev/null | awk '{ n[$2]++ } END { printf "# kills: %d before the resolution, %d after\n", n["before"], n["after"] }'
test_done
