#!/bin/sh
test_description='the everyday commands read the rows they need, never a whole table (HEARTH_SQL_SCANS)'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A query meant for an index that reads every row instead (a WHERE the
# planner cannot match to a partial index, a column no index leads with)
# costs nothing in a small Home and a second in one of a million files.
# HEARTH_SQL_SCANS notes each statement run that stepped through a whole
# table or index ("STEPS<TAB>SQL"); here a Home of 600 files and 30
# versions runs each everyday command, and no statement may step 60 times
# or more. The commands that compare whole trees by design (show, diff,
# checkout, fsck, stats) are not among them.

FILES=600
LIMIT=60

# scans NAME COMMAND...: runs COMMAND with the notes on; fails, listing
# them, when a statement stepped LIMIT times or more (unless its SQL
# matches the extended regular expression ALLOWED).
scans() {
	name=$1
	shift
	: >"$TEST_ROOT/scans" &&
	HEARTH_SQL_SCANS=$TEST_ROOT/scans "$@" >/dev/null 2>"$TEST_ROOT/scans.err" ||
	    { echo "$name failed:"; cat "$TEST_ROOT/scans.err"; return 1; }
	awk -F '\t' -v limit=$LIMIT -v allowed="${ALLOWED:-}" \
	    '$1 >= limit && (allowed == "" || $2 !~ allowed)' "$TEST_ROOT/scans" >"$TEST_ROOT/wide"
	if test -s "$TEST_ROOT/wide"; then
		echo "$name read whole tables:"
		cat "$TEST_ROOT/wide"
		return 1
	fi
}

test_expect_success 'a Home of 600 files in 30 versions, and a clone of it' '
	mkdir main &&
	for folder in a b c d e f; do
		mkdir -p main/$folder/deep || return 1
		for i in $(seq 1 $((FILES / 6))); do
			echo "$folder $i" >main/$folder/deep/f$i.txt || return 1
		done
	done &&
	(cd main && hearth init . >/dev/null && hearth record -m first >/dev/null) &&
	for round in $(seq 2 30); do
		echo "round $round" >>main/a/deep/f$round.txt &&
		(cd main && hearth record -m "round $round" >/dev/null) || return 1
	done &&
	hearth clone main peer >/dev/null
'

test_expect_success 'the notes catch a whole-table read (a command that makes one)' '
	(cd main && scans stats hearth stats) >out 2>&1 && return 1
	grep "FROM chunk" out
'

test_expect_success 'status of a clean tree' '
	(cd main && scans status hearth status)
'

test_expect_success 'status and status --porcelain with an edit, a new file and a delete' '
	echo edit >>main/b/deep/f1.txt &&
	echo new >main/c/new.txt &&
	rm main/d/deep/f2.txt &&
	(cd main && scans status hearth status) &&
	(cd main && scans "status --porcelain" hearth status --porcelain)
'

test_expect_success 'record of those changes, and a record of nothing' '
	(cd main && scans record hearth record -m changes) &&
	(cd main && scans "record of nothing" hearth record -m nothing)
'

test_expect_success 'ls, log -n 1, peers, conflicts' '
	(cd main && scans ls hearth ls) &&
	(cd main && scans "ls FOLDER" hearth ls b/deep) &&
	(cd main && scans "log -n 1" hearth log -n 1) &&
	(cd main && scans peers hearth peers) &&
	(cd main && scans conflicts hearth conflicts)
'

# A checkout compares head with the index, each read whole in node order
# (checkout.c): those two statements are its design, and nothing else.
test_expect_success 'a sync that brings one edit and checks it out, one that brings nothing, and status after' '
	echo "from the peer" >>peer/e/deep/f3.txt &&
	(cd peer && hearth record -m "peer edit" >/dev/null) &&
	(cd main && ALLOWED="^SELECT .* FROM (node WHERE live = 1 ORDER BY id|entry ORDER BY node)\$" \
	    scans "sync --checkout" hearth sync --checkout ../peer) &&
	grep -q "from the peer" main/e/deep/f3.txt &&
	(cd main && scans "sync of nothing" hearth sync ../peer) &&
	(cd main && scans "status after sync" hearth status)
'

test_done
