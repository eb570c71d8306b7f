#!/bin/sh
test_description='power loss at every step: full and group keep every success, none keeps the store whole'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

# The machine dies (HEARTH_POWERLOSS: every change no flush made durable is
# undone, backend/io/io_powerloss.c) at write-class calls of record, checkout
# and sync (either side), and right after each ends; see powerloss_walk in
# tests/lib/fault-lib.sh for what is checked after each death. group, the
# default, is walked at every call; full and none at every fourth. Under
# the sanitizers, six times sparser.
STRIDE_SCALE=1
[ -z "${HEARTH_SANITIZED:-}" ] || STRIDE_SCALE=6

record_run() { (cd home && hearth record -m "the record the power cut"); }
checkout_run() { (cd home && hearth checkout head~1); }
sync_run() { (cd b && hearth sync "$(walk_ssh_url a)"); }

test_expect_success 'setup: the fixtures, in each durability mode' '
	fixture_record record && fixture_checkout checkout && fixture_sync sync &&
	for mode in full group none; do
		cp -a record record.$mode && WALK_HOMES=home set_durability record.$mode $mode &&
		cp -a checkout checkout.$mode && WALK_HOMES=home set_durability checkout.$mode $mode &&
		cp -a sync sync.$mode && WALK_HOMES="a b" set_durability sync.$mode $mode || exit 1
	done
'

for mode in group full none; do
	if [ $mode = group ]; then stride=1; else stride=4; fi
	test_expect_success "record, durability $mode: power lost at every ${stride}th call" '
		TEMPLATE=record.'$mode' WALK_HOMES=home WALK_TREE=home
		walk_run() { record_run; }
		POWERLOSS_STRIDE=$(('$stride' * STRIDE_SCALE)) powerloss_walk client '$mode'
	'
	test_expect_success "checkout, durability $mode: power lost at every ${stride}th call" '
		TEMPLATE=checkout.'$mode' WALK_HOMES=home WALK_TREE=home
		walk_run() { checkout_run; }
		POWERLOSS_STRIDE=$(('$stride' * STRIDE_SCALE)) powerloss_walk client '$mode'
	'
	[ $mode != group ] || stride=2
	for side in client serve; do
		test_expect_success "sync, durability $mode, $side side: power lost at every ${stride}th call" '
			TEMPLATE=sync.'$mode' WALK_HOMES="a b" WALK_TREE=b
			walk_run() { sync_run; }
			POWERLOSS_STRIDE=$(('$stride' * STRIDE_SCALE)) powerloss_walk '$side' '$mode'
		'
	done
done

# A clone into an empty folder writes its big files as their bytes arrive
# (backend/disk/prefill.h): after a death the rerun completes it, and a
# clone that reported success has every file whole.
test_expect_success "clone of big files into an empty folder: power lost at every 3rd call" '
	mkdir -p clone && (cd clone && hearth init a >/dev/null && seq 1 300000 >a/lines.txt &&
	    head -c 1500000 /dev/urandom >a/random.bin && (cd a && hearth record -m base >/dev/null) &&
	    mkdir b) &&
	TEMPLATE=clone WALK_HOMES=a WALK_TREE=b
	walk_run() { hearth clone "$(walk_ssh_url a)" b; }
	walk_again() { hearth clone "$(walk_ssh_url a)" b 2>again.err ||
	    { grep -q "a Home already" again.err && (cd b && hearth status >/dev/null); }; }
	POWERLOSS_STRIDE=$((3 * STRIDE_SCALE)) powerloss_walk client group
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
