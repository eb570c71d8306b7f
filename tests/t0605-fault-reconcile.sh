#!/bin/sh
test_description='the reconcile walk (watch --once) fails cleanly at every write-class call, and is killed at each: the marks it leaves are never fewer than a clean walk makes'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

# The walk writes only the store: folder stamps, the marks of folders that
# differ from the index, its cursor. A fault or a kill may leave a page
# uncommitted, never a mark missing: a folder the index wrongly thinks
# unchanged is a change the next status or record under a watch would not
# see. So after a fault (or a kill) and the rerun, every folder a clean walk
# marks is marked (more may be: a folder touched within the last 2 s is
# marked until a later walk trusts it, backend/disk/reconcile.c).
#
# Pages of two entries (HEARTH_RECONCILE_PAGE): the walk commits several
# times, so faults and kills land between pages as well as in them.
HEARTH_RECONCILE_PAGE=2
export HEARTH_RECONCILE_PAGE
WALK_HOMES=home
WALK_TREE=home
walk_run() {
	(cd home && hearth watch --once)
}
walk_again() {
	walk_run && (cd home && test_tool marks .) >"$TEST_ROOT/marks.now" &&
	while read -r folder; do
		grep -qxF "$folder" "$TEST_ROOT/marks.now" ||
			{ echo "not marked after the rerun: $folder"; return 1; }
	done <"$TEST_ROOT/marks.clean"
}

test_expect_success 'setup: a Home with a version, then every kind of change; a clean walk' '
	fixture_record template &&
	# Dated well before now, so no stamp the walk takes is racy (rather
	# than waiting 2 s for them to age).
	find template/home -path template/home/.hearth -prune -o -exec touch -h -d "2020-01-01 00:00:00" {} + &&
	cp -a template clean &&
	(cd clean/home && hearth watch --once >/dev/null && test_tool marks .) >marks.clean &&
	cat marks.clean && grep -qxF docs marks.clean && grep -qxF photos marks.clean
'

test_expect_success 'watch --once: every write-class call fails once, three ways' '
	fault_walk client
'

test_expect_success 'watch --once: killed at every write-class call, then run again' '
	kinds=$(fault_count client) && calls=${#kinds} && test "$calls" -gt 0 &&
	n=1 && : >kills &&
	while [ $n -le $calls ]; do
		status=0
		walk_in client $n KILL || status=$?
		test $status -eq 137 || { echo "call $n: status $status, not killed"; cat walk.err; exit 1; }
		walk_marks now.marks && test_cmp before.marks now.marks &&
		walk_rerun || { echo "after a kill at call $n of $calls ($kinds)"; exit 1; }
		echo $n >>kills
		n=$((n + 1))
	done &&
	echo "kill: $calls write-class calls ($kinds), $(wc -l <kills) kills" >>walk.summary
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
