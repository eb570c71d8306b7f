#!/bin/sh
test_description='two writers never run at once; the second says who holds the lock'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

# Holds the Home's lock in the background until ../release exists (or
# test_wait_for's bound ends a test that never releases it), writing
# "pid 999" into it; returns once the lock is held (../held exists).
hold_lock() {
	rm -f ../held ../release
	(flock 9 && echo "pid 999, hearth test" >.hearth/lock && : >../held &&
	    test_wait_for "test -e ../release") 9>>.hearth/lock &
	test_wait_for "test -e ../held || ! kill -0 $!" && test -e ../held
}

test_expect_success 'a held lock makes a writer wait, then fail with exit status 3' '
	echo x >file &&
	hold_lock &&
	test_when_finished ": >../release; wait" &&
	HEARTH_LOCK_WAIT_MS=500 test_expect_code 3 hearth record -m blocked 2>../err &&
	grep "another hearth is writing" ../err && grep "pid 999" ../err
'

test_expect_success 'readers do not wait for the lock' '
	hold_lock &&
	test_when_finished ": >../release; wait" &&
	hearth status >../out && grep "added" ../out &&
	hearth log >/dev/null
'

test_expect_success 'once the lock is free the writer proceeds' '
	hearth record -m unblocked >../out && grep "^Recorded" ../out
'

test_done
