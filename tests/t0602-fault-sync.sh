#!/bin/sh
test_description='sync fails cleanly at every write-class call, on the pulling side and on the serving side'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

# b syncs with a (both ways) through the fake ssh, so the serving side is a
# process of its own: its faults are its own (HEARTH_SERVE_FAULT).
WALK_HOMES="a b"
WALK_TREE=b
walk_run() {
	(cd b && hearth sync "$(walk_ssh_url a)")
}

test_expect_success 'setup: two replicas, each with versions the other lacks' '
	fixture_sync template
'

test_expect_success 'sync, the pulling side (and its push) faulted at every call' '
	fault_walk client
'

test_expect_success 'sync, the serving side faulted at every call' '
	fault_walk serve
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
