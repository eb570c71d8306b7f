#!/bin/sh
test_description='a batch of ops that fails to integrate fails the record, the store as it was'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# A record integrates its ops in batches of 4096 (backend/history/author.c); a
# first record of 2100 files makes 4200 ops and so crosses one batch
# boundary. HEARTH_FAULT_BATCH=N fails the Nth batch as a failed write of
# it would: 1 is the batch that filled mid-record, 2 the rest at the end.

# What a Home holds: its history, its counts and a clean fsck.
store_state() {
	(cd home && hearth log --oneline; hearth stats | grep -E "^(ops|versions|nodes|entries) ")
}

test_expect_success 'setup: a Home with one version and 2100 new files' '
	hearth init home >/dev/null &&
	echo first >home/first && (cd home && hearth record -m first >/dev/null) &&
	mkdir home/many && i=0 &&
	while [ $i -lt 2100 ]; do echo "file $i" >home/many/f$i; i=$((i + 1)); done &&
	store_state >before
'

for batch in 1 2; do
	test_expect_success "batch $batch fails: the record fails and nothing of it is kept" '
		test_expect_code 1 env HEARTH_FAULT_BATCH='$batch' sh -c "cd home && \"\$HEARTH_BIN\" record -m many" \
		    >out 2>err &&
		grep "cannot integrate a batch of [0-9]* ops: Input/output error" err &&
		! grep "^Recorded" out &&
		store_state >after && test_cmp before after &&
		(cd home && hearth fsck) >fsck && grep "no problems" fsck &&
		(cd home && hearth status --porcelain) >status && grep -c "^A " status >added &&
		test "$(cat added)" = 2101
	'
done

test_expect_success 'the same record without the fault keeps every file' '
	(cd home && hearth record -m many) >out && grep "^Recorded" out &&
	(cd home && hearth ls many | wc -l) >count && test "$(cat count)" = 2100 &&
	(cd home && hearth show --cat head many/f2099) >f && test "$(cat f)" = "file 2099" &&
	(cd home && hearth fsck) >fsck && grep "no problems" fsck
'

test_done
