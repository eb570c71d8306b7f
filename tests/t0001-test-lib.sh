#!/bin/sh
test_description='the test library itself: cleanups, known breakages, prerequisites, -v, -i, --run'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# Writes a small test script named $1 whose tests are read from stdin, and
# runs it with the remaining arguments; its TAP goes to $1.out, its status
# to $1.status, its failures' logs to $1.failures. The inner script gets its own TMPDIR so that kept scratch
# folders can be counted.
run_inner() {
	_name=$1
	shift
	{
		echo '#!/bin/sh'
		echo '. "$HEARTH_SOURCE_DIR/tests/lib/test-lib.sh"'
		cat
		echo 'test_done'
	} >"$_name.sh"
	mkdir -p "$_name.tmp"
	set +e
	HEARTH_FAILURE_LOG=$PWD/$_name.failures TMPDIR=$PWD/$_name.tmp sh "$_name.sh" "$@" \
	    >"$_name.out" 2>&1
	echo $? >"$_name.status"
	set -e
}

test_expect_success 'a passing and a failing test: TAP lines, status 1, scratch kept' '
	run_inner two <<-\EOF &&
	test_expect_success "passes" "true"
	test_expect_success "fails" "echo the-output-of-a-failure; false"
	EOF
	grep -x "ok 1 - passes" two.out &&
	grep -x "not ok 2 - fails" two.out &&
	grep -x "#   the-output-of-a-failure" two.out &&
	grep -x "1..2" two.out &&
	test "$(cat two.status)" = 1 &&
	test "$(ls two.tmp | wc -l)" = 1 &&
	# What make check prints again after prove: the failure alone, with its log.
	grep "two.sh: not ok 2 - fails" two.failures &&
	grep -x "#   the-output-of-a-failure" two.failures &&
	! grep "passes" two.failures
'

test_expect_success 'test_done runs the hooks a library adds, before the scratch goes' '
	HOOK_OUT=$PWD/hooked.ran && export HOOK_OUT &&
	run_inner hooked <<-\EOF &&
	at_done() { test -d "$TEST_ROOT" && echo scratch-still-there >>"$HOOK_OUT"; }
	test_done_hooks="$test_done_hooks at_done"
	test_expect_success "passes" "true"
	EOF
	test "$(cat hooked.status)" = 0 &&
	test "$(cat hooked.ran)" = scratch-still-there &&
	test "$(ls hooked.tmp | wc -l)" = 0
'

test_expect_success 'test_when_finished runs after a pass and after a failure, last first' '
	run_inner finished <<-EOF &&
	test_expect_success "passes" "test_when_finished \"echo one >>$PWD/ran\" &&
		test_when_finished \"echo two >>$PWD/ran\" && true"
	test_expect_success "fails" "test_when_finished \"echo three >>$PWD/ran\" && false"
	EOF
	printf "two\none\nthree\n" >expect &&
	test_cmp expect ran &&
	grep -x "ok 1 - passes" finished.out && grep -x "not ok 2 - fails" finished.out
'

test_expect_success 'a failing cleanup fails a passing test' '
	run_inner badclean <<-\EOF &&
	test_expect_success "its cleanup fails" "test_when_finished false && true"
	EOF
	grep -x "not ok 1 - its cleanup fails" badclean.out &&
	grep "a cleanup failed" badclean.out
'

test_expect_success 'test_expect_failure: a known breakage is TODO and does not fail the file' '
	run_inner broken <<-\EOF &&
	test_expect_failure "still broken" "false"
	test_expect_failure "fixed since" "true"
	EOF
	grep -x "not ok 1 - still broken # TODO known breakage" broken.out &&
	grep -x "ok 2 - fixed since # TODO known breakage vanished" broken.out &&
	grep "1 known breakage(s) vanished" broken.out &&
	test "$(cat broken.status)" = 0
'

test_expect_success 'prerequisites: set, lazy (decided once), negated, listed' '
	run_inner prereq <<-EOF &&
	test_set_prereq HAVE
	test_lazy_prereq LAZY_YES "echo asked >>$PWD/asked; true"
	test_lazy_prereq LAZY_NO "false"
	test_expect_success HAVE "set" "true"
	test_expect_success MISSING "never set" "false"
	test_expect_success LAZY_YES "lazy true" "true"
	test_expect_success LAZY_YES,HAVE "both" "true"
	test_expect_success LAZY_NO "lazy false" "false"
	test_expect_success !LAZY_NO "negated" "true"
	test_expect_success HAVE,!HAVE "contradiction" "false"
	EOF
	grep -x "ok 1 - set" prereq.out &&
	grep -x "ok 2 # skip never set (missing MISSING)" prereq.out &&
	grep -x "ok 3 - lazy true" prereq.out &&
	grep -x "ok 4 - both" prereq.out &&
	grep -x "ok 5 # skip lazy false (missing LAZY_NO)" prereq.out &&
	grep -x "ok 6 - negated" prereq.out &&
	grep -x "ok 7 # skip contradiction (missing HAVE,!HAVE)" prereq.out &&
	test "$(wc -l <asked)" = 1 &&
	test "$(cat prereq.status)" = 0
'

test_expect_success '--run picks tests by number, range and negation' '
	cat >five <<-\EOF &&
	test_expect_success "one" "true"
	test_expect_success "two" "true"
	test_expect_success "three" "true"
	test_expect_success "four" "true"
	test_expect_success "five" "true"
	EOF
	run_inner run <five --run=2,4- &&
	grep -x "ok 1 # skip one (--run)" run.out && grep -x "ok 2 - two" run.out &&
	grep -x "ok 3 # skip three (--run)" run.out && grep -x "ok 5 - five" run.out &&
	run_inner notrun <five --run=!3 &&
	grep -x "ok 3 # skip three (--run)" notrun.out && grep -x "ok 4 - four" notrun.out &&
	HEARTH_TEST_OPTS=--run=1 run_inner env <five &&
	grep -x "ok 1 - one" env.out && grep -x "ok 2 # skip two (--run)" env.out
'

test_expect_success '-i stops at the first failure; -v shows a passing body and its output' '
	cat >three <<-\EOF &&
	test_expect_success "passes" "echo shown-when-verbose"
	test_expect_success "fails" "false"
	test_expect_success "never reached" "true"
	EOF
	run_inner immediate <three -i &&
	grep -x "not ok 2 - fails" immediate.out && ! grep "never reached" immediate.out &&
	test "$(cat immediate.status)" = 1 &&
	! grep shown-when-verbose immediate.out &&
	run_inner verbose <three -v &&
	grep -x "#   shown-when-verbose" verbose.out &&
	grep "^# expecting success: echo shown-when-verbose" verbose.out &&
	grep -x "ok 3 - never reached" verbose.out
'

test_expect_success 'an unknown option bails out' '
	run_inner unknown <five --frobnicate &&
	grep "^Bail out!.*--frobnicate" unknown.out && test "$(cat unknown.status)" = 1
'

test_expect_success 'test_must_fail: a failure passes; a success or a signal does not' '
	test_must_fail false &&
	! test_must_fail true 2>err && grep succeeded err &&
	! test_must_fail sh -c "kill -9 \$\$" 2>err && grep "died with status" err
'

test_expect_success 'test_wait_for waits for an event and gives up at its bound' '
	(: >arrived.tmp && mv arrived.tmp arrived) &
	test_wait_for "test -e arrived" && wait &&
	! test_wait_scale=1 test_wait_for false 1 2>err &&
	grep "did not hold within 1 s" err
'

test_expect_success 'every test script can be run by itself (its exec bit is set)' '
	for script in "$HEARTH_SOURCE_DIR"/tests/t[0-9]*.sh; do
		test -x "$script" || { echo "not executable: $script"; exit 1; }
	done
'

test_done
