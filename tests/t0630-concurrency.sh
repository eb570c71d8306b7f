#!/bin/sh
test_description='concurrency: the app, CLI records, a watch, a served sync and readers on one Home at once; replicas editing and syncing at once converge'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/replicas.sh"
. "$HEARTH_SOURCE_DIR/tests/lib/watch-lib.sh"
# The app is one of the actors when tmux can run it; the rest of the test
# stands without it (app-lib.sh would skip the whole file).
if command -v tmux >/dev/null 2>&1; then
	. "$HEARTH_SOURCE_DIR/tests/lib/app-lib.sh"
	have_app=yes
	# Each library set its own exit trap, app-lib's replacing watch-lib's:
	# whatever fails, neither the watch nor the app outlives the test.
	trap 'watch_stop_all; app_stop' EXIT
else
	have_app=
fi

# How long the actors run, and how many replicas the second test has. CI
# runs the defaults; tests/RELIABILITY.md records a long run by hand
# (HEARTH_CONCURRENCY_SECONDS=300 HEARTH_CONCURRENCY_REPLICAS=20).
SECONDS_BUSY=${HEARTH_CONCURRENCY_SECONDS:-20}
REPLICAS=${HEARTH_CONCURRENCY_REPLICAS:-6}
# A reader still running after this long hangs (a bound on a hang, not a
# speed goal: speed is perf/'s).
READER_BOUND_S=${HEARTH_CONCURRENCY_READER_S:-300}

# The served side is a `hearth serve` of its own, reached as over ssh.
HEARTH_SSH="sh $HEARTH_SOURCE_DIR/tests/lib/fake-ssh"
HEARTH_REMOTE_COMMAND=$HEARTH_BIN
export HEARTH_SSH HEARTH_REMOTE_COMMAND

# An actor: runs its step (a shell function) until the file stop exists,
# each step's outcome appended to NAME.steps ("ok", or the status and
# output of a failure), the step number in $step.
actor() {
	_name=$1 _function=$2
	step=0
	while [ ! -f "$TEST_ROOT/stop" ]; do
		step=$((step + 1))
		if $_function >"$TEST_ROOT/$_name.out" 2>&1; then
			echo ok >>"$TEST_ROOT/$_name.steps"
		else
			echo "step $step failed ($?): $(tr '\n' ' ' <"$TEST_ROOT/$_name.out")" \
			    >>"$TEST_ROOT/$_name.steps"
		fi
	done
}

# Milliseconds since the epoch.
now_ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# Fails, showing them, if an actor's steps include a failure or none
# succeeded; prints "NAME: N steps".
actor_clean() {
	_steps=$TEST_ROOT/$1.steps
	[ -s "$_steps" ] || { echo "$1 never ran a step"; return 1; }
	if grep -v '^ok$' "$_steps"; then
		echo "$1 failed (above)"; return 1
	fi
	echo "$1: $(wc -l <"$_steps") steps"
}

# ---- one Home, every kind of actor at once ------------------------------------

test_expect_success 'setup: a Home with a version, a replica of it, a watch' '
	: >app.files && hearth init home >/dev/null && mkdir -p home/docs home/cli home/app &&
	echo base >home/docs/base.txt && echo shared >home/docs/shared.txt &&
	(cd home && hearth record -m base >/dev/null) &&
	hearth clone home peer >/dev/null &&
	(cd home && watch_start main) &&
	watch_wait main "^current"
'

# Writers queue on the lock rather than give up: each waits up to a minute
# (the default is 3 s, after which a writer fails with status 3), so every
# write step below must succeed.
HEARTH_LOCK_WAIT_MS=60000
export HEARTH_LOCK_WAIT_MS

# CLI records: a new file and an edit each time. The app or another writer
# may have recorded them first: then "Nothing to record", also a success.
cli_step() {
	echo "cli $step" >"$TEST_ROOT/home/cli/cli-$step.txt" &&
	echo "shared, cli step $step" >"$TEST_ROOT/home/docs/shared.txt" &&
	(cd "$TEST_ROOT/home" && hearth record -m "cli record $step") >"$TEST_ROOT/cli.last" &&
	grep -Eq "^(Recorded|Nothing to record)" "$TEST_ROOT/cli.last" &&
	echo "cli-$step.txt" >>"$TEST_ROOT/cli.files"
}

# The replica records its own work and syncs with the Home, which serves it
# (a `hearth serve` taking the Home's lock to write what it receives).
peer_step() {
	echo "peer $step" >"$TEST_ROOT/peer/docs/peer-$step.txt" &&
	(cd "$TEST_ROOT/peer" && hearth record -m "peer record $step" >/dev/null &&
	    hearth sync "ssh://here$TEST_ROOT/home" >/dev/null) &&
	echo "peer record $step" >>"$TEST_ROOT/peer.synced"
}

# Readers: each answers, however busy the writers are. How long they took
# is reported, never asserted (a loaded machine is slow, not wrong); that
# readers never wait for the lock is t0080's test, and READER_BOUND_S only
# catches a hang.
reader_step() {
	for command in "status" "log --oneline" "ls docs" "peers" "fsck"; do
		start=$(now_ms)
		(cd "$TEST_ROOT/home" && timeout "$READER_BOUND_S" "$HEARTH_BIN" $command >/dev/null) ||
			{ echo "hearth $command failed ($?)"; return 1; }
		echo $(( $(now_ms) - start )) >>"$TEST_ROOT/reader.ms"
	done
}

# The app records from its dialog: a file of its own, r, a message, Enter;
# the version it made must then be in the log. Another writer may take the
# file first, leaving nothing to record (the app says so); a dialog that
# did not open is closed and the step tried again.
app_step() {
	echo "app $step" >"$TEST_ROOT/home/app/app-$step.txt"
	echo "app-$step.txt" >>"$TEST_ROOT/app.files"
	app_keys Escape r
	APP_QUIET=1 app_wait "Record every change" 20 || { app_keys Escape; return 0; }
	app_type "app record $step" && app_keys Enter
	test_wait_quiet=t test_wait_for 'app_recorded || app_screen | grep -F -q "Nothing to record"' 120 ||
		{ echo "the app did not record:"; app_screen; return 1; }
	app_recorded || return 0
	echo "app record $step" >>"$TEST_ROOT/app.recorded"
}

# The app's record of this step is in the log.
app_recorded() {
	(cd "$TEST_ROOT/home" && hearth log --oneline) | grep -q "app record $step$"
}

# Runs the actors (started by the caller, their pids in $pids) for
# SECONDS_BUSY, and on until the event $1 holds: a loaded machine makes less
# progress in the same time, so what the checks after need is waited for,
# not assumed (the bound only ends a hang). Then stops them.
rush_until() {
	sleep "$SECONDS_BUSY"
	test_wait_for "$1" 600 || { touch stop; wait $pids; return 1; }
	touch stop && wait $pids
}

# Each named actor has made a step that succeeded, or one has failed (its
# failure is then shown by actor_clean).
actors_progressed() {
	for _name; do
		grep -q -v "^ok$" "$TEST_ROOT/$_name.steps" 2>/dev/null && return 0
	done
	for _name; do
		grep -q "^ok$" "$TEST_ROOT/$_name.steps" 2>/dev/null || return 1
	done
}

test_expect_success "for ${SECONDS_BUSY} s: the app, CLI records, a served sync, readers and the watch at once" '
	rm -f stop
	if [ -n "$have_app" ]; then
		(cd home && app_start HEARTH_LOCK_WAIT_MS=60000)
		app_wait "base" 20 && app_keys 3 && app_wait "docs/" 20
	fi
	actor cli cli_step &
	pids=$!
	actor peer peer_step &
	pids="$pids $!"
	actor reader reader_step &
	pids="$pids $!"
	if [ -n "$have_app" ]; then
		actor app app_step &
		pids="$pids $!"
	fi
	if [ -n "$have_app" ]; then
		rush_until "actors_progressed cli peer reader app && test -s app.recorded"
	else
		rush_until "actors_progressed cli peer reader"
	fi &&
	actor_clean cli && actor_clean peer && actor_clean reader &&
	if [ -n "$have_app" ]; then
		actor_clean app && test -s app.recorded && app_quit
	fi
'
for name in cli peer reader app; do
	[ ! -s "$name.steps" ] || echo "# $name: $(wc -l <"$name.steps") steps"
done
[ ! -s app.recorded ] || echo "# the app recorded $(wc -l <app.recorded) versions"
[ ! -s reader.ms ] ||
	echo "# readers: $(wc -l <reader.ms) answers, the slowest $(sort -n reader.ms | tail -1) ms"

# Asked twice in a row, the watched index gives the same answer: the watch
# has taken in every event of the rush.
test_expect_success 'the watch kept up: its index gives the status a walk gives' '
	cd home &&
	test_wait_for "hearth status >../human && grep -q \"From the watched index\" ../human &&
	    hearth status --porcelain >../watched &&
	    hearth status --porcelain >../again && cmp -s ../watched ../again" &&
	watch_stop main &&
	hearth status --porcelain >../walked &&
	test_cmp ../walked ../watched
'

test_expect_success 'fsck is clean on both, and the history holds every write that succeeded' '
	(cd home && hearth fsck) && (cd peer && hearth fsck) &&
	(cd home && hearth log --oneline) >log &&
	grep -c "cli record" log && grep -c "peer record" log &&
	for file in peer.synced app.recorded; do
		[ -f $file ] || continue
		while read -r message; do
			grep -q "$message$" log || { echo "lost: $message"; exit 1; }
		done <$file
	done
'

test_expect_success 'every file a writer made is recorded, with its content' '
	(cd home && hearth record -m "after the rush" >/dev/null && hearth status) >status &&
	grep "Nothing changed" status &&
	while read -r file; do
		step=${file#cli-} && echo "cli ${step%.txt}" >expected &&
		(cd home && hearth show --cat head "cli/$file") >content &&
		test_cmp expected content || exit 1
	done <cli.files &&
	(cd home && hearth ls head app) >app.listed &&
	while read -r file; do
		grep -qxF "$file" app.listed || { echo "lost: app/$file"; exit 1; }
	done <app.files
'

test_expect_success 'one more sync: the Home and its replica agree' '
	sync_pair peer home && settle peer && settle home &&
	converged home peer && same_trees home peer
'

# ---- replicas editing and syncing at once -----------------------------------

unset HEARTH_LOCK_WAIT_MS

# Replica $1's step: a file of its own, an edit of the shared file (a
# content conflict with everyone's), a record, then a sync with another
# replica, a different one each time. Two replicas syncing with each other
# at once each hold their own lock and wait for the other's, so one of them
# gives up after the default 3 s (status 3 for its own lock, 1 when the
# serving side gave up): that, and only that, is an acceptable failure,
# counted.
replica_step() {
	_r=$TEST_ROOT/r$replica
	_peer=$(( (replica + 1 + step % (REPLICAS - 1)) % REPLICAS ))
	echo "replica $replica step $step" >"$_r/own/r$replica-$step.txt" &&
	echo "shared, replica $replica step $step" >"$_r/shared.txt" || return 1
	(cd "$_r" && hearth record -m "replica $replica step $step") >"$_r.record" 2>&1 ||
		{ _status=$?; cat "$_r.record"; return $_status; }
	echo "own/r$replica-$step.txt" >>"$TEST_ROOT/replica.files"
	(cd "$_r" && hearth sync "../r$_peer") >"$_r.sync" 2>&1 ||
		{ _status=$?; cat "$_r.sync"; return $_status; }
	echo "$replica $_peer" >>"$TEST_ROOT/replica.syncs"
}

# A failure that is a lock wait given up: exit status 3 naming the lock.
only_lock_waits() {
	grep -v "^ok$" "$1" >failures || return 0
	grep -v "failed ([13]): .*another hearth is writing" failures && return 1
	echo "$(wc -l <failures) steps gave up waiting for a lock"
}

# As many syncs completed as there are replicas, or a step failed for
# another reason than a lock wait given up (only_lock_waits then shows it).
replicas_progressed() {
	[ "$(cat "$TEST_ROOT"/replica.syncs 2>/dev/null | wc -l)" -ge "$REPLICAS" ] && return 0
	cat "$TEST_ROOT"/replica*.steps 2>/dev/null | grep -v "^ok$" |
	    grep -q -v "failed ([13]): .*another hearth is writing"
}

test_expect_success "setup: $REPLICAS replicas of one Home" '
	hearth init r0 >/dev/null && mkdir r0/own && echo keep >r0/own/.keep && echo base >r0/shared.txt &&
	(cd r0 && hearth record -m base >/dev/null) &&
	i=1 &&
	while [ $i -lt $REPLICAS ]; do make_replica r$i r0 || exit 1; i=$((i + 1)); done
'

test_expect_success "for ${SECONDS_BUSY} s: $REPLICAS replicas record and sync with each other at once" '
	rm -f stop
	pids=
	replica=0
	while [ $replica -lt $REPLICAS ]; do
		actor replica$replica replica_step &
		pids="$pids $!"
		replica=$((replica + 1))
	done
	rush_until replicas_progressed &&
	replica=0 &&
	while [ $replica -lt $REPLICAS ]; do
		only_lock_waits replica$replica.steps || exit 1
		replica=$((replica + 1))
	done &&
	echo "$(wc -l <replica.syncs) syncs completed" &&
	test "$(wc -l <replica.syncs)" -ge $REPLICAS
'
[ ! -s replica.syncs ] || echo "# $REPLICAS replicas: $(cat replica*.steps | wc -l) steps, $(wc -l <replica.syncs) syncs completed, $(cat replica*.steps | grep -vc '^ok$') gave up waiting for a lock"

heads_agree() {
	i=0 && : >heads &&
	while [ $i -lt $REPLICAS ]; do
		(cd r$i && hearth log --oneline | head -1) >>heads || return 1
		i=$((i + 1))
	done &&
	test $(sort -u heads | wc -l) = 1
}

test_expect_success 'quiet again, two rounds of syncs through one replica converge them all' '
	for pass in 1 2; do
		i=1
		while [ $i -lt $REPLICAS ]; do sync_pair r$i r0 || exit 1; i=$((i + 1)); done
	done &&
	heads_agree && cat heads &&
	i=0 &&
	while [ $i -lt $REPLICAS ]; do
		settle r$i && (cd r$i && hearth fsck >/dev/null) || exit 1
		i=$((i + 1))
	done &&
	i=1 &&
	while [ $i -lt $REPLICAS ]; do converged r0 r$i && same_trees r0 r$i || exit 1; i=$((i + 1)); done
'

test_expect_success 'every recorded file of every replica is in the converged tree' '
	test -s replica.files &&
	while read -r file; do
		test -f "r0/$file" || { echo "lost: $file"; exit 1; }
	done <replica.files &&
	(cd r0 && hearth conflicts --porcelain) >conflicts &&
	grep " content shared.txt" conflicts
'

[ -z "$have_app" ] || app_stop
test_done
