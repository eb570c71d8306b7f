#!/bin/sh
test_description='a record killed midway leaves a clean store; the next one succeeds'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

hearth init home >/dev/null
cd home

test_expect_success 'a tree big enough to kill a record in the middle of' '
	mkdir -p many &&
	i=0; while [ $i -lt 1500 ]; do echo "file $i" >many/f$i; i=$((i + 1)); done &&
	head -c 40000000 /dev/urandom >big.bin &&
	hearth record -m base many >/dev/null
'

# The delay only picks where the kill lands; every outcome is held to the
# same checks, so a slow machine moves the kill, never the verdict (t0610
# kills at each write-class call instead).
for delay in 0.05 0.1 0.2 0.4; do
	test_expect_success "SIGKILL after ${delay}s leaves a store fsck finds clean" '
		i=0; while [ $i -lt 300 ]; do echo "edit $delay $i" >many/f$i; i=$((i + 1)); done &&
		head -c 1000000 /dev/urandom >>big.bin &&
		"$HEARTH_BIN" record -m "killed" >/dev/null 2>&1 &
		pid=$! &&
		sleep '"$delay"' &&
		kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true;
		hearth fsck >../out &&
		grep "no problems" ../out
	'
done

test_expect_success 'the next record succeeds and records everything' '
	hearth record -m "after the crashes" >/dev/null &&
	hearth status --porcelain >../out && ! grep -v "^#" ../out &&
	hearth show --cat head big.bin | cmp - big.bin &&
	hearth fsck >../out && grep "no problems" ../out
'

test_expect_success 'no pack is left behind by the killed records' '
	ls .hearth/packs | wc -l >../count &&
	hearth stats | grep "^packs " | grep -q " $(cat ../count)$"
'

test_done
