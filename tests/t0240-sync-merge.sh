#!/bin/sh
test_description='concurrent edits of one text file merge by line at sync, the same on every replica; only real overlaps stay conflicts'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"

# notes.txt: 40 numbered lines.
lines() {
	i=1
	while [ $i -le 40 ]; do echo "line $i"; i=$((i + 1)); done
}

# edit_line DIR FILE N TEXT: line N of DIR/FILE becomes TEXT.
edit_line() {
	awk -v n="$3" -v text="$4" 'NR == n { print text; next } { print }' "$1/$2" >"$1/$2.new" &&
	mv "$1/$2.new" "$1/$2"
}

record() {
	(cd "$1" && hearth record -m "$2" >/dev/null)
}

no_conflicts() {
	(cd "$1" && hearth conflicts) >"$TEST_ROOT/c.out" && grep "^No conflicts" "$TEST_ROOT/c.out"
}

content_conflict() {
	(cd "$1" && hearth conflicts --porcelain) >"$TEST_ROOT/c.out" &&
	grep "^c[0-9a-f]* content $2$" "$TEST_ROOT/c.out"
}

test_expect_success 'setup: replica a with notes, replica b of it' '
	hearth init a >/dev/null && mkdir a/docs &&
	lines >a/docs/notes.txt && record a base &&
	make_replica b a && same_trees a b
'

test_expect_success 'different lines edited on both, b syncs a: merged, no conflict on either' '
	edit_line a docs/notes.txt 2 "line 2, edited on a" && record a "a edits" &&
	edit_line b docs/notes.txt 30 "line 30, edited on b" && record b "b edits" &&
	(cd b && hearth sync ../a) >out &&
	grep "^Merged concurrent edits of 1 file by line" out &&
	no_conflicts a && no_conflicts b &&
	(cd b && hearth log --oneline -n 1) >log && grep " merged: edits from " log &&
	settle a && settle b && same_trees a b &&
	grep -x "line 2, edited on a" b/docs/notes.txt &&
	grep -x "line 30, edited on b" a/docs/notes.txt &&
	test "$(wc -l <a/docs/notes.txt)" = 40 &&
	converged a b
'

test_expect_success 'show marks the merged file; show -p shows what each side brought' '
	(cd b && hearth show head) >show && grep "^M docs/notes.txt  (merged: edits from " show &&
	(cd a && hearth show -p head) >patch &&
	test "$(grep -c "^edits from " patch)" = 2 &&
	grep "^+line 2, edited on a$" patch && grep "^+line 30, edited on b$" patch &&
	grep "^-line 2$" patch && grep "^-line 30$" patch &&
	grep "^--- a/docs/notes.txt (base)$" patch
'

test_expect_success 'resolve takes a merged file back to either side, on every replica' '
	(cd b && hearth resolve --theirs docs/notes.txt >/dev/null) &&
	grep -x "line 2, edited on a" b/docs/notes.txt && grep -x "line 30" b/docs/notes.txt &&
	sync_pair b a && settle a && same_trees a b && no_conflicts a &&
	(cd b && test_expect_code 2 hearth resolve --mine docs/notes.txt 2>../err) &&
	grep "no conflict matches docs/notes.txt" err &&
	edit_line a docs/notes.txt 30 "line 30, edited on b" && record a "b again, by a" &&
	edit_line b docs/notes.txt 2 "line 2" && edit_line b docs/notes.txt 3 "line 3 from b" &&
	record b "b undoes 2, edits 3" &&
	sync_pair b a && settle b && grep -x "line 3 from b" b/docs/notes.txt &&
	grep -x "line 30, edited on b" b/docs/notes.txt &&
	(cd b && hearth resolve --mine docs/notes.txt >/dev/null) &&
	grep -x "line 30" b/docs/notes.txt && grep -x "line 3 from b" b/docs/notes.txt &&
	sync_pair b a && settle a && same_trees a b && converged a b &&
	edit_line a docs/notes.txt 30 "line 30, edited on b" && record a "again" &&
	sync_pair b a && settle b && same_trees a b
'

test_expect_success 'the other way round: a syncs b, merged, converged' '
	edit_line a docs/notes.txt 5 "line 5 by a" && record a "a again" &&
	edit_line b docs/notes.txt 35 "line 35 by b" && record b "b again" &&
	(cd a && hearth sync --porcelain ../b) >out && grep "^files_merged 1$" out &&
	no_conflicts a && no_conflicts b &&
	settle a && settle b && same_trees a b &&
	grep -x "line 5 by a" b/docs/notes.txt && grep -x "line 35 by b" a/docs/notes.txt &&
	converged a b
'

test_expect_success 'a pull, then a push: the merge travels with the push' '
	edit_line a docs/notes.txt 7 "line 7 by a" && record a "a 7" &&
	edit_line b docs/notes.txt 27 "line 27 by b" && record b "b 27" &&
	(cd b && hearth sync --pull ../a >/dev/null) && no_conflicts b &&
	(cd b && hearth sync --push ../a >/dev/null) && no_conflicts a &&
	settle a && settle b && same_trees a b && converged a b
'

test_expect_success 'two replicas merge the same edits apart: one content, no conflict' '
	make_replica c a &&
	edit_line a docs/notes.txt 10 "line 10 by a" && record a "a 10" &&
	edit_line b docs/notes.txt 20 "line 20 by b" && record b "b 20" &&
	(cd c && hearth sync --pull ../a >/dev/null && hearth sync --pull ../b) >out &&
	grep "^Merged concurrent edits of 1 file" out &&
	(cd a && hearth sync --pull ../b) >out && grep "^Merged concurrent edits of 1 file" out &&
	sync_pair c a && sync_pair c b && sync_pair a b &&
	no_conflicts a && no_conflicts b && no_conflicts c &&
	(cd a && hearth log --oneline) >log && test "$(grep -c " merged: " log)" -ge 2 &&
	settle a && settle b && settle c && same_trees a b && same_trees a c &&
	converged a b && converged a c
'

test_expect_success 'after a merge each replica edits on: merged again' '
	edit_line a docs/notes.txt 12 "line 12 by a" && record a "a 12" &&
	edit_line c docs/notes.txt 14 "line 14 by c" && record c "c 14" &&
	edit_line b docs/notes.txt 16 "line 16 by b" && record b "b 16" &&
	sync_pair a b && sync_pair c a && sync_pair b a &&
	no_conflicts a && no_conflicts b && no_conflicts c &&
	settle a && settle b && settle c && same_trees a b && same_trees a c &&
	grep -x "line 12 by a" c/docs/notes.txt && grep -x "line 14 by c" b/docs/notes.txt &&
	grep -x "line 16 by b" a/docs/notes.txt &&
	converged a b && converged b c
'

# overlap N TAG: a and b both edit line N of notes.txt; b syncs a.
overlap() {
	edit_line a docs/notes.txt "$1" "line $1: a says $2" && record a "a $2" &&
	edit_line b docs/notes.txt "$1" "line $1: b says $2" && record b "b $2" &&
	sync_pair b a && content_conflict a docs/notes.txt && content_conflict b docs/notes.txt
}

test_expect_success 'the same line edited on both: a conflict shown with its base, mine and theirs' '
	overlap 8 first &&
	(cd b && hearth conflicts -v) >v &&
	grep "^    1 overlap against their base:$" v && grep "^    @@ base lines 8-8$" v &&
	grep -A1 "^      base:$" v | grep "^        | line 8$" &&
	grep -A1 "^      mine (" v | grep "^        | line 8: b says first$" &&
	grep -A1 "^      theirs (" v | grep "^        | line 8: a says first$" &&
	(cd a && hearth conflicts -v) >v &&
	grep -A1 "^      mine (" v | grep "^        | line 8: a says first$"
'

test_expect_success 'settled by mine, by theirs, by both' '
	(cd b && hearth resolve --mine docs/notes.txt >/dev/null) && sync_pair b a &&
	no_conflicts a && settle a && grep -x "line 8: b says first" a/docs/notes.txt &&
	same_trees a b &&
	overlap 9 second && (cd a && hearth resolve --theirs docs/notes.txt >/dev/null) &&
	sync_pair a b && no_conflicts b && settle b && grep -x "line 9: b says second" b/docs/notes.txt &&
	same_trees a b &&
	overlap 11 third && (cd b && hearth resolve --both docs/notes.txt >/dev/null) &&
	sync_pair b a && no_conflicts a && settle a &&
	grep -x "line 11: b says third" a/docs/notes.txt &&
	grep -x "line 11: a says third" a/docs/notes~*.txt && same_trees a b && converged a b &&
	rm a/docs/notes~*.txt && record a "drop the copy" && sync_pair b a && settle b && same_trees a b
'

test_expect_success 'merge with markers: listed until the file is recorded without them' '
	overlap 13 fourth &&
	edit_line a docs/notes.txt 22 "line 22 by a" && record a "a 22" && sync_pair b a &&
	content_conflict b docs/notes.txt &&
	(cd b && hearth resolve --markers docs/notes.txt) >out && grep "^Resolved 1" out &&
	grep -x "<<<<<<< mine (.*)" b/docs/notes.txt && grep -x "line 13: b says fourth" b/docs/notes.txt &&
	grep -x "||||||| base" b/docs/notes.txt && grep -x "line 13" b/docs/notes.txt &&
	grep -x "=======" b/docs/notes.txt && grep -x "line 13: a says fourth" b/docs/notes.txt &&
	grep -x ">>>>>>> theirs (.*)" b/docs/notes.txt && grep -x "line 22 by a" b/docs/notes.txt &&
	content_conflict b docs/notes.txt &&
	edit_line b docs/notes.txt 1 "line 1, while the markers are in" && record b "markers still" &&
	content_conflict b docs/notes.txt && sync_pair b a && content_conflict a docs/notes.txt &&
	(cd a && hearth conflicts -v) >v && grep "not merged by line: a side holds conflict markers" v &&
	awk "/^<<<<<<< /{skip=1; print \"line 13: both say fourth\"; next} /^>>>>>>> /{skip=0; next} !skip" \
	    b/docs/notes.txt >b/docs/notes.new && mv b/docs/notes.new b/docs/notes.txt &&
	! grep "=======" b/docs/notes.txt && record b "markers gone" &&
	no_conflicts b && sync_pair b a && no_conflicts a && settle a && same_trees a b &&
	grep -x "line 13: both say fourth" a/docs/notes.txt && converged a b
'

test_expect_success 'markers need a text file: a binary conflict is refused, changing nothing' '
	printf "x\n\000\n" >a/docs/two.bin && record a "two" && sync_pair b a && settle b &&
	printf "y\n\000\n" >a/docs/two.bin && record a "a two" &&
	printf "z\n\000\n" >b/docs/two.bin && record b "b two" && sync_pair b a &&
	(cd b && test_expect_code 2 hearth resolve --markers docs/two.bin 2>../err) &&
	grep "cannot be merged with markers: it is binary" err &&
	(cd b && hearth conflicts -v) >v && grep "not merged by line: it is binary" v &&
	(cd b && hearth resolve --mine docs/two.bin >/dev/null) && sync_pair b a && settle a
'

test_expect_success 'a binary file, a file over 4 MiB and a never_merge file stay content conflicts' '
	printf "one\n\000two\nthree\nfour\n" >a/docs/data.bin &&
	lines >a/docs/yarn.lock &&
	awk "BEGIN { for (i = 0; i < 100000; i++) printf \"line %d of a long file ----------------------\\n\", i }" \
	    >a/docs/big.txt && test "$(wc -c <a/docs/big.txt)" -gt 4194304 &&
	record a "three files" && sync_pair b a && settle b &&
	printf "ONE\n\000two\nthree\nfour\n" >a/docs/data.bin &&
	printf "one\n\000two\nthree\nFOUR\n" >b/docs/data.bin &&
	edit_line a docs/yarn.lock 1 "first by a" && edit_line b docs/yarn.lock 40 "last by b" &&
	edit_line a docs/big.txt 1 "first by a" && edit_line b docs/big.txt 79999 "near the end by b" &&
	record a "a edits three" && record b "b edits three" &&
	(cd b && hearth sync --porcelain ../a) >out && grep "^files_merged 0$" out &&
	content_conflict b docs/data.bin && content_conflict b docs/yarn.lock &&
	content_conflict b docs/big.txt && content_conflict a docs/data.bin
'

test_expect_success 'always_merge merges a file with NUL bytes' '
	(cd b && hearth resolve --mine docs/data.bin docs/yarn.lock docs/big.txt >/dev/null) &&
	sync_pair b a && settle a && settle b &&
	echo "always_merge: [\"*.bin\"]" >>b/.hearth/config.yaml &&
	printf "one\n\000two\nthree\nFOUR\n" >want && cmp want a/docs/data.bin &&
	printf "ONE\n\000two\nthree\nFOUR\n" >a/docs/data.bin && record a "a bin" &&
	printf "one\n\000two\nTHREE\nFOUR\n" >b/docs/data.bin && record b "b bin" &&
	(cd b && hearth sync --porcelain ../a) >out && grep "^files_merged 1$" out &&
	no_conflicts a && settle a && printf "ONE\n\000two\nTHREE\nFOUR\n" >want &&
	cmp want a/docs/data.bin
'

test_expect_success 'a joined Home merges too' '
	cat >joined.yaml <<-EOF &&
	roots:
	  - name: ssd
	    path: $TEST_ROOT/ssd
	  - name: hdd
	    path: $TEST_ROOT/hdd
	state: $TEST_ROOT/jstate
	place:
	  - pattern: "archive/**"
	    root: hdd
	EOF
	hearth -c joined.yaml init >/dev/null && mkdir -p ssd/archive hdd/archive &&
	lines >hdd/archive/old.txt && lines >ssd/top.txt &&
	(cd ssd && HEARTH_CONFIG=$TEST_ROOT/joined.yaml hearth record -m joined >/dev/null) &&
	hearth clone "$TEST_ROOT/joined.yaml" jb >/dev/null &&
	edit_line hdd archive/old.txt 4 "four, on the joined Home" &&
	edit_line ssd top.txt 1 "one, on the joined Home" &&
	(cd ssd && HEARTH_CONFIG=$TEST_ROOT/joined.yaml hearth record -m "joined edits" >/dev/null) &&
	edit_line jb archive/old.txt 36 "thirty-six, on the clone" &&
	edit_line jb top.txt 40 "forty, on the clone" && record jb "clone edits" &&
	(cd jb && hearth sync "$TEST_ROOT/joined.yaml") >out &&
	grep "^Merged concurrent edits of 2 files" out &&
	(cd ssd && HEARTH_CONFIG=$TEST_ROOT/joined.yaml hearth checkout >/dev/null &&
	    HEARTH_CONFIG=$TEST_ROOT/joined.yaml hearth conflicts) >c.out && grep "^No conflicts" c.out &&
	grep -x "thirty-six, on the clone" hdd/archive/old.txt && grep -x "four, on the joined Home" hdd/archive/old.txt &&
	test ! -e ssd/archive/old.txt && grep -x "forty, on the clone" ssd/top.txt &&
	settle jb && cmp hdd/archive/old.txt jb/archive/old.txt && cmp ssd/top.txt jb/top.txt
'

test_done
