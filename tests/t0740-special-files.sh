#!/bin/sh
test_description='nothing blocks on a special file: FIFOs, sockets and devices are left out and said so once; a file that turns into a FIFO mid-record fails that record, never hangs it; a config path must be a regular file'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# Every command here runs under a hang bound: a blocking open of a FIFO
# no one writes waits forever, so a hang is the failure looked for.
bounded() { timeout 120 "$@"; }

test_lazy_prereq MKNOD 'mknod probe-device c 1 3 && test -c probe-device'
test_lazy_prereq SOCKETS 'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"probe.sock\")"'

test_expect_success 'setup: a Home with a version' '
	hearth init home >/dev/null &&
	mkdir home/docs && echo one >home/docs/a.txt &&
	(cd home && hearth record -m first >/dev/null)
'

test_expect_success 'a FIFO in the Home: status and record name it once as left out and record the rest' '
	mkfifo home/docs/pipe &&
	echo two >home/docs/b.txt &&
	(cd home && bounded "$HEARTH_BIN" status) >out &&
	grep -x "Note: docs/pipe: a FIFO, not content, left out." out &&
	test "$(grep -c pipe out)" = 1 &&
	(cd home && bounded "$HEARTH_BIN" status --porcelain) >porcelain &&
	grep -x "# note docs/pipe: a FIFO, not content, left out" porcelain && ! grep "^[A-Z] .*pipe" porcelain &&
	(cd home && bounded "$HEARTH_BIN" record -m second) >out &&
	grep "^Recorded" out && grep -x " A docs/b.txt" out &&
	grep -x "Note: docs/pipe: a FIFO, not content, left out." out &&
	test "$(grep -c pipe out)" = 1 &&
	(cd home && hearth ls head docs) >ls && ! grep pipe ls && grep b.txt ls
'

test_expect_success 'with nothing else to record, record still says what it left out' '
	(cd home && bounded "$HEARTH_BIN" record -m third) >out &&
	grep "^Nothing to record" out &&
	grep -x "Note: docs/pipe: a FIFO, not content, left out." out
'

test_expect_success SOCKETS 'a socket is skipped the same way' '
	(cd home/docs && python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"s.sock\")") &&
	test -S home/docs/s.sock &&
	(cd home && bounded "$HEARTH_BIN" status) >out &&
	grep -x "Note: docs/s.sock: a socket, not content, left out." out &&
	(cd home && bounded "$HEARTH_BIN" status --porcelain) >porcelain &&
	grep -x "# note docs/s.sock: a socket, not content, left out" porcelain &&
	rm home/docs/s.sock
'

test_expect_success MKNOD 'a device is skipped the same way, and never opened' '
	mknod home/docs/null-device c 1 3 &&
	(cd home && bounded "$HEARTH_BIN" status) >out &&
	grep -x "Note: docs/null-device: a device, not content, left out." out &&
	(cd home && bounded "$HEARTH_BIN" record -m device) >out &&
	grep -x "Note: docs/null-device: a device, not content, left out." out &&
	rm home/docs/null-device
'

test_expect_success 'an ignored FIFO is not listed at all' '
	printf "ignore:\n  - \"*.fifo\"\n" >>home/.hearth/config.yaml &&
	mkfifo home/docs/quiet.fifo &&
	(cd home && bounded "$HEARTH_BIN" status) >out &&
	! grep quiet.fifo out &&
	rm home/docs/quiet.fifo
'

test_expect_success 'a file that becomes a FIFO between the scan and its read: the record fails, naming it, and does not hang' '
	echo "edited" >home/docs/a.txt &&
	test_expect_code 1 bounded "$HEARTH_TEST_TOOL" record-fifo home docs/a.txt >out 2>err &&
	cat out err &&
	grep "^failed: .*/docs/a.txt changed into something else while being recorded; record again" out &&
	test -p home/docs/a.txt &&
	(cd home && hearth log --oneline) >log && ! grep swapped log &&
	(cd home && hearth fsck) >out && grep "no problems" out
'

test_expect_success 'the lock is free afterwards and the next record leaves the FIFO out' '
	(cd home && bounded "$HEARTH_BIN" record -m after) >out &&
	grep -x "Note: docs/a.txt: a FIFO, not content, left out." out &&
	rm home/docs/a.txt && mv home/docs/a.txt.moved-away home/docs/a.txt
'

test_expect_success 'a FIFO named as a folder marker (.hearth-id) never hangs a walk' '
	mkdir home/odd && echo x >home/odd/f &&
	(cd home && hearth record -m odd >/dev/null) &&
	mv home/odd home/moved &&
	rm -f home/moved/.hearth-id && mkfifo home/moved/.hearth-id &&
	(cd home && bounded "$HEARTH_BIN" status) >out &&
	(cd home && bounded "$HEARTH_BIN" record -m odd-again) >out &&
	rm -f home/moved/.hearth-id
'

test_expect_success 'a config path (-c) must be a regular file: a FIFO is refused at once' '
	mkfifo config.fifo &&
	test_must_fail bounded "$HEARTH_BIN" -c config.fifo status 2>err &&
	grep "config.fifo: a FIFO, not a regular file" err
'

test_expect_success 'HEARTH_CONFIG naming a FIFO is refused the same way' '
	test_must_fail env HEARTH_CONFIG="$PWD/config.fifo" timeout 120 "$HEARTH_BIN" status 2>err &&
	grep "config.fifo: a FIFO, not a regular file" err
'

test_expect_success 'a folder as the config is refused too' '
	mkdir config.dir &&
	test_must_fail bounded "$HEARTH_BIN" -c config.dir status 2>err &&
	grep "config.dir: a folder, not a regular file" err
'

test_done
