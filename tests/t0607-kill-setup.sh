#!/bin/sh
test_description='init and clone killed at every write-class call, or failing part way, leave nothing or what the same command finishes'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

# kill_walk: the command of walk_run killed (SIGKILL, HEARTH_KILL) at every
# KILL_STRIDE-th write-class call on a fresh copy of the template; after
# each kill the same command, run again, succeeds and leaves what a run
# that was never killed leaves (walk_rerun), and then walk_after holds.
: "${KILL_STRIDE:=1}"
kill_walk() {
	kinds=$(fault_count client) || { echo "$kinds"; return 1; }
	calls=${#kinds}
	test "$calls" -gt 0 || { echo "no write-class calls counted"; return 1; }
	cases=0 failed=0
	n=1
	while [ $n -le $calls ]; do
		status=0
		walk_in client $n KILL || status=$?
		cases=$((cases + 1))
		if ! { walk_rerun && walk_after; } >check.out 2>&1; then
			echo "FAILED: killed at write-class call $n ($(printf '%s' "$kinds" | cut -c$n))" \
			    "of $calls, status $status; the calls: $kinds"
			sed 's/^/  /' walk.err check.out
			failed=$((failed + 1))
			[ $failed -lt 3 ] || return 1
		fi
		n=$((n + KILL_STRIDE))
	done
	echo "$calls write-class calls, $cases kills" >>"$TEST_ROOT/walk.summary"
	[ $failed -eq 0 ]
}

# done_or_again COMMAND...: runs it; a kill after the command had done all
# its work (its store's last checkpoint, say) leaves a whole Home, which
# the command then refuses as one: that counts when the Home works.
done_or_again() {
	"$@" 2>again.err && return 0
	cat again.err >&2
	grep -q "a Home already" again.err && walk_usable
}

test_expect_success 'init DIR killed at every call: running it again makes the Home' '
	mkdir template && echo mine >template/file.txt &&
	walk_run() { hearth init d; } &&
	walk_again() { done_or_again hearth init d; } &&
	walk_usable() { (cd d && hearth status >/dev/null); } &&
	walk_after() { (cd work/d && hearth status) >after.out && grep "No versions yet" after.out; } &&
	mkdir -p template/d && echo kept >template/d/kept.txt &&
	WALK_HOMES= && WALK_TREE=d && kill_walk
'

test_expect_success 'a joined init killed at every call: running it again makes the Home' '
	rm -rf template && mkdir template &&
	printf "roots:\n  - name: a\n    path: %s/work/ra\n  - name: b\n    path: %s/work/rb\nstate: %s/work/state\n" \
	    "$TEST_ROOT" "$TEST_ROOT" "$TEST_ROOT" >template/j.yaml &&
	mkdir template/ra && echo a >template/ra/a.txt &&
	walk_run() { hearth -c j.yaml init; } &&
	walk_again() { done_or_again hearth -c j.yaml init; } &&
	walk_usable() { hearth -c j.yaml status >/dev/null; } &&
	walk_after() { (cd work && hearth -c j.yaml status) >after.out &&
	    grep "No versions yet" after.out &&
	    test -f work/ra/.hearth/root && test -f work/rb/.hearth/root; } &&
	WALK_HOMES= && WALK_TREE=ra && kill_walk
'

test_expect_success 'a joined init whose second root cannot be made: fixed, the same init finishes' '
	rm -rf fail && mkdir fail && cd fail &&
	printf "roots:\n  - name: a\n    path: %s/fail/ra\n  - name: b\n    path: %s/fail/blocked/rb\nstate: %s/fail/state\n" \
	    "$TEST_ROOT" "$TEST_ROOT" "$TEST_ROOT" >j.yaml &&
	echo "a file, not a folder" >blocked &&
	test_expect_code 1 hearth -c j.yaml init 2>err && grep "cannot make root .b." err &&
	test_expect_code 1 hearth -c j.yaml status 2>err && grep "did not finish" err &&
	rm blocked && mkdir blocked && hearth -c j.yaml init >out && grep "Made" out &&
	hearth -c j.yaml status >out && grep "No versions yet" out
'

test_expect_success 'clone killed at every call: running it again completes it' '
	cd "$TEST_ROOT" && rm -rf template && mkdir template && cd template &&
	hearth init a >/dev/null && mkdir -p a/docs && echo one >a/docs/one.txt &&
	head -c 100000 /dev/urandom >a/docs/big.bin && (cd a && hearth record -m base >/dev/null) &&
	mkdir b && echo mine >b/mine.txt && cd "$TEST_ROOT" &&
	walk_run() { hearth clone "$(walk_ssh_url a)" b; } &&
	walk_again() { done_or_again hearth clone "$(walk_ssh_url a)" b; } &&
	walk_usable() { (cd b && hearth status >/dev/null); } &&
	walk_after() { (cd work/b && hearth fsck >/dev/null && hearth log --oneline) >after.out &&
	    grep base after.out && test "$(cat work/b/mine.txt)" = mine; } &&
	WALK_HOMES=a && WALK_TREE=b && KILL_STRIDE=5 && kill_walk
'

test_expect_success 'clone into an empty folder with a big file, killed at every call: rerun completes it, no prefilled file left' '
	cd "$TEST_ROOT" && rm -rf template && mkdir template && cd template &&
	hearth init a >/dev/null && seq 1 300000 >a/lines.txt &&
	head -c 1500000 /dev/urandom >a/random.bin && (cd a && hearth record -m base >/dev/null) &&
	mkdir b && cd "$TEST_ROOT" &&
	walk_run() { hearth clone "$(walk_ssh_url a)" b; } &&
	walk_again() { done_or_again hearth clone "$(walk_ssh_url a)" b; } &&
	walk_usable() { (cd b && hearth status >/dev/null); } &&
	walk_after() { (cd work/b && hearth fsck >/dev/null && hearth log --oneline) >after.out &&
	    grep base after.out && cmp work/a/random.bin work/b/random.bin &&
	    cmp work/a/lines.txt work/b/lines.txt &&
	    ! ls -A work/b/.hearth/staging | grep prefill; } &&
	WALK_HOMES=a && WALK_TREE=b && KILL_STRIDE=3 && kill_walk
'

cat walk.summary 2>/dev/null | sed "s/^/# /"
test_done
