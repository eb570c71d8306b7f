#!/bin/sh
test_description='checkout fails cleanly at every write-class call; the working tree keeps every file'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

WALK_HOMES=home
WALK_TREE=home

test_expect_success 'setup: a Home at its newer of two versions' '
	fixture_checkout template
'

walk_run() {
	(cd home && hearth checkout head~1)
}
test_expect_success 'checkout of the older version: every call fails once, three ways' '
	fault_walk client
'

test_expect_success 'setup: the same Home at the older version' '
	(cd template/home && hearth checkout head~1 >/dev/null)
'

walk_run() {
	(cd home && hearth checkout)
}
test_expect_success 'checkout of head from the older version: every call fails once' '
	fault_walk client
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
