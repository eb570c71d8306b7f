#!/bin/sh
test_description='resolve fails cleanly at every write-class call: the version and the tree, or neither'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

WALK_HOMES=b
WALK_TREE=b

# Resolve records the resolution (one transaction), then writes it into the
# tree (a checkout of those paths). A fault in the second step leaves the
# resolution recorded and the tree behind head, and says so: what completes
# it then is `hearth checkout`, as after a sync. Resolving again finds
# nothing left to settle.
walk_again() {
	if grep -q "hearth checkout. finishes it" "$TEST_ROOT/walk.err"; then
		(cd b && hearth checkout)
	else
		walk_run
	fi
}

test_expect_success 'setup: replica b with a content conflict' '
	mkdir template && cd template && hearth init a >/dev/null &&
	mkdir a/docs && echo base >a/docs/list.txt && echo other >a/docs/other.txt &&
	(cd a && hearth record -m base >/dev/null) && hearth clone a b >/dev/null &&
	echo "edited on a" >a/docs/list.txt && (cd a && hearth record -m "on a" >/dev/null) &&
	echo "edited on b" >b/docs/list.txt && (cd b && hearth record -m "on b" >/dev/null) &&
	(cd b && hearth sync ../a >/dev/null && hearth checkout >/dev/null) &&
	(cd b && hearth conflicts --porcelain) >../conflicts && grep " content docs/list.txt" ../conflicts &&
	(cd b && hearth conflicts) >../sides &&
	# The side the tree shows follows the replica ids: resolve for the other.
	if grep -q "^ *\* .*(this replica)" ../sides; then echo --theirs; else echo --mine; fi >../rewrite
'

# Keeping the side the tree does not show rewrites the file; keeping both
# writes the other side beside it under a new name.
walk_run() {
	(cd b && hearth resolve "$(cat "$TEST_ROOT/rewrite")" docs/list.txt)
}
test_expect_success 'resolve for the side not shown: every call fails once, three ways' '
	fault_walk client
'

walk_run() {
	(cd b && hearth resolve --both docs/list.txt)
}
# The copy kept beside it is named for its new node's id, made afresh by
# each run (name~<8 hex>.txt, docs/DESIGN.md §4.4).
WALK_NORMALIZE='s/~[0-9a-f]\{8\}\./~ID./'

test_expect_success 'resolve --both: every call fails once, three ways' '
	fault_walk client
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
