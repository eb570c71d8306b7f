#!/bin/sh
test_description='two writers never run at once; the second says who holds the lock'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

test_expect_success 'a held lock makes a writer wait, then fail with exit status 3' '
	echo x >file &&
	flock .hearth/lock sh -c "echo \"pid 999, hearth test\" >.hearth/lock; sleep 3" &
	sleep 0.5 &&
	HEARTH_LOCK_WAIT_MS=500 test_expect_code 3 hearth record -m blocked 2>../err &&
	grep "another hearth is writing" ../err && grep "pid 999" ../err &&
	wait
'

test_expect_success 'readers do not wait for the lock' '
	flock .hearth/lock sleep 2 &
	sleep 0.3 &&
	hearth status >../out && grep "added" ../out &&
	hearth log >/dev/null &&
	wait
'

test_expect_success 'once the lock is free the writer proceeds' '
	hearth record -m unblocked >../out && grep "^Recorded" ../out
'

test_done
