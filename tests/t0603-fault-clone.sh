#!/bin/sh
test_description='clone fails cleanly at every write-class call, on either side; run again, it completes'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

# The new replica's folder already holds a copy of one file (adopted) and a
# file of its own (recorded as the replica's first change): a failed clone
# must leave both as they were, and leave no Home behind to refuse the rerun.
WALK_HOMES=a
WALK_TREE=b
# A clone is init, sync, checkout and record (each walked call by call in
# t0600-t0602): some 300 calls, so every third, each kind at its own offset.
FAULT_STRIDE=$((FAULT_STRIDE * 3))
walk_run() {
	hearth clone "$(walk_ssh_url a)" b
}

test_expect_success 'setup: a Home, and a folder that holds a little already' '
	mkdir template && cd template && hearth init a >/dev/null &&
	mkdir -p a/docs a/photos && echo one >a/docs/one.txt && echo two >a/docs/two.txt &&
	head -c 150000 /dev/urandom >a/photos/p.bin && ln -s docs/one.txt a/link &&
	(cd a && hearth record -m base >/dev/null) &&
	mkdir -p b/docs && cp a/docs/one.txt b/docs/one.txt && echo mine >b/mine.txt
'

test_expect_success 'clone, the new replica faulted at every call' '
	fault_walk client
'

test_expect_success 'clone, the serving side faulted at every call' '
	fault_walk serve
'

# Into an empty folder a clone writes each big file as its bytes arrive
# (backend/disk/prefill.h), in the sync; a fault there or in the
# checkout that takes the file leaves no prefilled file behind the rerun.
test_expect_success 'clone into an empty folder with a big file, faulted at every call' '
	rm -rf template && mkdir template && cd template && hearth init a >/dev/null &&
	seq 1 300000 >a/lines.txt && head -c 1500000 /dev/urandom >a/random.bin &&
	chmod 750 a/random.bin && echo small >a/small.txt &&
	(cd a && hearth record -m base >/dev/null) && mkdir b && cd "$TEST_ROOT" &&
	walk_again() { walk_run && ! ls -A b/.hearth/staging | grep prefill; } &&
	FAULT_STRIDE=$((FAULT_STRIDE * 2)) && fault_walk client
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
