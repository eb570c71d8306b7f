#!/bin/sh
test_description='record fails cleanly at every write-class call: EIO, ENOSPC and short writes'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

WALK_HOMES=home
WALK_TREE=home
walk_run() {
	(cd home && hearth record -m "the walked record")
}

test_expect_success 'setup: a Home with a version, then every kind of change' '
	fixture_record template
'

test_expect_success 'record: every write-class call fails once, three ways' '
	fault_walk client
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
