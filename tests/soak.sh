#!/bin/sh
# The crash soak: SOAK_ITERATIONS times (default 60), a random command of
# record, checkout (back to an older version, or forward to head), sync
# (the pulling side or the serving side) and reconcile (the walk of watch
# --once, in pages of two entries) is killed with SIGKILL at a random
# point, on a fresh copy of its fixture: either at a random write-class
# call (HEARTH_KILL, backend/io/io.c: every distinct state the disk can be
# left in between two calls) or at a random time from outside (timeout -s
# KILL: anywhere, even inside a call). After each kill:
#
#   - every Home's fsck is clean, and its history is as before or as after;
#   - every working-tree file has its old or its new content (never a mix,
#     a truncation, or gone: tree_between in tests/lib/fault-lib.sh; one a
#     checkout had moved aside may wait in .hearth/staging, put back by the
#     next command that takes the lock, and that next command is the rerun);
#   - the command, run again, completes: the tree and history are those of
#     a run never killed.
#
# `make soak SOAK_ITERATIONS=5000` runs it long; CI runs it at its default
# count as tests/t0610-crash-soak.sh. SOAK_SEED=N replays a run (the seed is
# printed first); TAP on stdout, one line per kill, naming what was killed
# and where.
test_description='crash soak: SIGKILL at random points of record, checkout and sync'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/fault-lib.sh"

SOAK_ITERATIONS=${SOAK_ITERATIONS:-60}
SOAK_SEED=${SOAK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
SOAK_STATE=$((SOAK_SEED % 2147483648))
echo "# SOAK_SEED=$SOAK_SEED SOAK_ITERATIONS=$SOAK_ITERATIONS"

# A pseudo-random number in 0..$1-1, in $RANDOM_VALUE (a linear
# congruential generator, so a seed replays a run in any POSIX shell).
soak_random() {
	SOAK_STATE=$(( (SOAK_STATE * 1103515245 + 12345) % 2147483648 ))
	RANDOM_VALUE=$(( (SOAK_STATE / 65536) % $1 ))
}

# ---- the scenarios: each sets TEMPLATE, SIDE, WALK_HOMES, WALK_TREE, walk_run

scenario_record() {
	TEMPLATE=template.record SIDE=client WALK_HOMES=home WALK_TREE=home
	walk_run() { (cd home && hearth record -m "the soaked record"); }
}
scenario_checkout_back() {
	TEMPLATE=template.checkout SIDE=client WALK_HOMES=home WALK_TREE=home
	walk_run() { (cd home && hearth checkout head~1); }
}
scenario_checkout_forward() {
	TEMPLATE=template.checkout-old SIDE=client WALK_HOMES=home WALK_TREE=home
	walk_run() { (cd home && hearth checkout); }
}
scenario_sync_client() {
	TEMPLATE=template.sync SIDE=client WALK_HOMES="a b" WALK_TREE=b
	walk_run() { (cd b && hearth sync "$(walk_ssh_url a)"); }
}
scenario_sync_serve() {
	scenario_sync_client
	SIDE=serve
}
# The walk commits a page at a time; small pages put kills between them.
scenario_reconcile() {
	TEMPLATE=template.record SIDE=client WALK_HOMES=home WALK_TREE=home
	walk_run() { (cd home && export HEARTH_RECONCILE_PAGE=2 && hearth watch --once); }
}
SCENARIOS="record checkout_back checkout_forward sync_client sync_serve reconcile"

# Learns a scenario's calls, its duration and its before and after states
# (kept as SCENARIO.* for the kills to compare with).
learn() {
	scenario_$1
	kinds=$(fault_count $SIDE) && test -n "$kinds" || { echo "$kinds"; return 1; }
	echo "$kinds" >"$1.kinds"
	for file in before.tree before.marks expected.tree expected.marks; do
		cp "$file" "$1.$file" || return 1
	done
	# How long a run takes, for the timed kills: the slowest of three.
	slowest=0
	for try in 1 2 3; do
		fresh_work
		start=$(date +%s%N)
		(cd work && walk_run) >/dev/null 2>&1 || return 1
		took=$(( ($(date +%s%N) - start) / 1000000 ))
		[ $took -le $slowest ] || slowest=$took
	done
	echo "$slowest" >"$1.milliseconds"
	echo "# $1: ${#kinds} write-class calls, $slowest ms"
}

test_expect_success 'setup: the fixtures, and what each command does to them' '
	fixture_record template.record && fixture_checkout template.checkout &&
	cp -a template.checkout template.checkout-old &&
	(cd template.checkout-old/home && hearth checkout head~1 >/dev/null) &&
	fixture_sync template.sync &&
	for scenario in $SCENARIOS; do learn $scenario || exit 1; done >learned &&
	cat learned
'
sed -n 's/^# /# /p' learned 2>/dev/null

# Waits (up to 20 s) for the serving process a kill left behind to end:
# killed or not, it must be gone before the Homes are looked at.
wait_for_serve() {
	[ -s serve.pid ] || return 0
	tries=0
	while kill -0 "$(cat serve.pid)" 2>/dev/null; do
		tries=$((tries + 1))
		[ $tries -lt 2000 ] || { echo "the serving process does not end"; return 1; }
		sleep 0.01
	done
	rm -f serve.pid
}

# crash_once SCENARIO MODE POINT: MODE call kills at write-class call
# POINT, MODE timed POINT seconds after the start.
crash_once() {
	scenario_$1
	for file in before.tree before.marks expected.tree expected.marks; do
		cp "$1.$file" "$file"
	done
	rm -f serve.pid
	export HEARTH_SERVE_PIDFILE="$TEST_ROOT/serve.pid"
	status=0
	if [ $2 = call ]; then
		walk_in $SIDE "$3" KILL || status=$?
	elif [ $SIDE = serve ]; then
		fresh_work
		(cd work && export HEARTH_SERVE_KILL_AFTER="$3" && walk_run) >walk.out 2>walk.err ||
			status=$?
	else
		fresh_work
		(cd work && hearth() { timeout -s KILL "$3" "$HEARTH_BIN" "$@"; } && walk_run) \
		    >walk.out 2>walk.err || status=$?
	fi
	wait_for_serve || return 1
	if grep -E 'Sanitizer|runtime error|Assertion|hearth: bug' walk.err; then
		return 1
	fi
	tree_manifest "work/$WALK_TREE" >now.tree
	staged_aside "work/$WALK_TREE" >aside.tree
	tree_between before.tree expected.tree now.tree aside.tree || return 1
	walk_marks now.marks || return 1
	while read -r mark; do
		grep -qxF "$mark" before.marks || grep -qxF "$mark" expected.marks || {
			echo "history neither before nor after: $mark"; cat before.marks expected.marks
			return 1
		}
	done <now.marks
	walk_rerun
	wait_for_serve
}

iteration=0
while [ $iteration -lt "$SOAK_ITERATIONS" ]; do
	iteration=$((iteration + 1))
	set -- $SCENARIOS
	soak_random $#
	shift $RANDOM_VALUE
	scenario=$1
	kinds=$(cat "$scenario.kinds" 2>/dev/null) || kinds=x
	soak_random 2
	if [ $RANDOM_VALUE -eq 0 ]; then
		mode=call
		soak_random ${#kinds}
		point=$((RANDOM_VALUE + 1))
		where="at write-class call $point ($(printf '%s' "$kinds" | cut -c$point)) of ${#kinds}"
	else
		mode=timed
		# Anywhere from the start to a little past the slowest run.
		milliseconds=$(cat "$scenario.milliseconds" 2>/dev/null || echo 100)
		soak_random $((milliseconds * 6 / 5 + 1))
		point=$((RANDOM_VALUE + 1))	# ms; timeout takes 0 as never
		point=$((point / 1000)).$(printf '%03d' $((point % 1000)))
		where="after $point s"
	fi
	test_expect_success "$scenario killed $where" "crash_once $scenario $mode $point"
done

test_done
