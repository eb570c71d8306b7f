#!/bin/sh
test_description='every fuzz seed and every saved crash (tests/fuzz/corpus) runs through its target without a fault: the fuzzers regression tests, on any compiler'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

: "${HEARTH_UNIT_DIR:=$HEARTH_SOURCE_DIR/build/release/tests}"
corpus=$HEARTH_SOURCE_DIR/tests/fuzz/corpus

for name in wire pack config ignore op; do
	test_expect_success "the $name target replays its corpus" '
		test -x "$HEARTH_UNIT_DIR/fuzz/${name}_replay" &&
		test "$(ls "$corpus/$name" | wc -l)" -gt 0 &&
		"$HEARTH_UNIT_DIR/fuzz/${name}_replay" "$corpus/$name" >out &&
		grep "replayed $(ls "$corpus/$name" | wc -l) inputs" out
	'
done

test_expect_success 'an input the replay cannot read fails it (the harness can fail)' '
	printf "x" >not-an-op &&
	"$HEARTH_UNIT_DIR/fuzz/op_replay" not-an-op >out &&
	! "$HEARTH_UNIT_DIR/fuzz/op_replay" no-such-file 2>err && grep "no-such-file" err
'

test_done
