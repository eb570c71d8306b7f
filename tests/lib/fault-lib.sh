# The fault walk (tests/t060x-fault-*.sh), sourced after test-lib.sh. A
# command is run once with HEARTH_FAULT=count to learn how many write-class
# calls N it makes (backend/io/io.c prints it at exit), then once per n in
# 1..N and per kind (EIO, ENOSPC, SHORT) with the nth call failing, each
# time on a fresh copy of the same fixture. After each faulted run:
#
#   - it failed with a non-zero status (never a signal) and a message that
#     names the fault, or it succeeded and its outcome is the full one;
#   - every Home's fsck is clean and its history is as before or as after
#     the command (its version and op counts);
#   - every working-tree entry holds its old or its new content, and none
#     that both states have is gone (tree_between);
#   - the same command, run again without the fault, succeeds, and leaves
#     the same tree and history as a run that never met a fault.
#
# A test defines:
#   walk_run        runs the command from $TEST_ROOT/work (the current
#                   folder); fault settings come in the environment
#   WALK_HOMES      the Homes under work/ to check, e.g. "a b"
#   WALK_TREE       the Home whose working tree the command may change
#   walk_again      (optional) what completes the command after a fault;
#                   default walk_run, the same command again
#   WALK_NORMALIZE  (optional) a sed script over tree_manifest's lines
# and fills $TEST_ROOT/template, then calls `fault_walk client` (the fault
# in the process the test starts) or `fault_walk serve` (in the `hearth
# serve` it reaches through tests/lib/fake-ssh, see walk_ssh_url).
#
# FAULT_STRIDE (default 1; 6 under the sanitizers, so the ASan pass keeps
# CI inside its 20 minutes; a test may set more for a command with many
# calls) walks every stride-th call, starting at a different offset per
# kind. At stride 3 the kinds together reach every call (SHORT falls back
# to EIO where the call does not write); the sanitized pass reaches every
# other one, and the plain pass every call with every kind.

: "${FAULT_KINDS:=EIO ENOSPC SHORT}"
if [ -z "${FAULT_STRIDE:-}" ]; then
	if [ -n "${HEARTH_SANITIZED:-}" ]; then FAULT_STRIDE=6; else FAULT_STRIDE=1; fi
fi
# Short writes at every FAULT_DATABASE_STRIDE-th database write.
: "${FAULT_DATABASE_STRIDE:=4}"
# A message that names the fault: errno's words, or SQLite's for them.
FAULT_MESSAGE='Input/output error|No space left on device|no space left on|disk I/O error|database or disk is full'

walk_again() {
	walk_run
}


# The URL under which walk_run reaches a Home of work/ through the fake ssh.
walk_ssh_url() {
	echo "ssh://here$TEST_ROOT/work/$1"
}
HEARTH_SSH="sh $HEARTH_SOURCE_DIR/tests/lib/fake-ssh"
HEARTH_REMOTE_COMMAND=$HEARTH_BIN
export HEARTH_SSH HEARTH_REMOTE_COMMAND

# One line per entry of a working tree (hearth's .hearth folder and .hearth-id
# markers aside), the path second: "D path", "L path -> target", or
# "sha1 path" (sha1sum's own line). WALK_NORMALIZE, a sed script, may
# rewrite names that differ from run to run.
tree_manifest() {
	(cd "$1" && find . -path ./.hearth -prune -o -name .hearth-id -o \
	    -type d -printf 'D %p\n' -o -type l -printf 'L %p -> %l\n' -o \
	    -type f -exec sha1sum {} +) | sed "${WALK_NORMALIZE:-}" | LC_ALL=C sort
}

# tree_between OLD NEW NOW [ASIDE]: each entry of NOW is as OLD or NEW has
# it; no path both OLD and NEW have is missing from NOW; and no file's bytes
# that both OLD and NEW hold (at any path: a moved file) are missing from
# NOW or ASIDE (what a killed checkout had moved aside, see staged_aside).
# So a file holds its old or its new bytes, never a mix, a truncation or
# nothing, and one on its way to a new place is at its old place or there.
tree_between() {
	awk '
	function content(line) { return line ~ /^[0-9a-f]+ / ? $1 : "" }
	FILENAME == ARGV[1] { old[$0] = 1; old_path[$2] = 1; if (content($0) != "") old_bytes[$1] = $2; next }
	FILENAME == ARGV[2] { new[$0] = 1; new_path[$2] = 1; if (content($0) != "") new_bytes[$1] = 1; next }
	FILENAME == ARGV[4] { now_bytes[$1] = 1; next }
	{
		now_path[$2] = 1
		if (content($0) != "") now_bytes[$1] = 1
		if (!($0 in old) && !($0 in new)) { print "neither old nor new: " $0; bad = 1 }
	}
	END {
		for (path in old_path)
			if ((path in new_path) && !(path in now_path)) { print "lost: " path; bad = 1 }
		for (bytes in old_bytes)
			if ((bytes in new_bytes) && !(bytes in now_bytes)) {
				print "lost: the bytes of " old_bytes[bytes]; bad = 1
			}
		exit bad
	}' "$1" "$2" "$3" "${4:-/dev/null}"
}

# The bytes of what a checkout killed mid-way had moved aside: they wait in
# the root's .hearth/staging as NODE.moved, and the next command that takes
# the Home's lock puts them back before it reads the tree (home.c,
# put_back_moved). Lines as tree_manifest's.
staged_aside() {
	find "$1/.hearth/staging" -path '*.moved*' -type f -exec sha1sum {} + 2>/dev/null | sort
}

# Checks a Home with fsck and prints its history as far as a walk compares
# it: "HOME OPS VERSIONS", from fsck's "checked N ops, M versions, ...".
history_mark() {
	(cd "$1" && hearth fsck) >"$TEST_ROOT/fsck.out" 2>&1 ||
		{ echo "fsck of $1 is not clean:" >&2; cat "$TEST_ROOT/fsck.out" >&2; return 1; }
	sed -n "s|^checked \([0-9]*\) ops, \([0-9]*\) versions,.*|$1 \1 \2|p" "$TEST_ROOT/fsck.out"
}

# A fresh copy of the fixture (TEMPLATE, default template) as work/.
fresh_work() {
	cd "$TEST_ROOT" && rm -rf work && cp -a "${TEMPLATE:-template}" work
}

# walk_in SIDE SETTING [WHAT]: runs walk_run on a fresh copy with
# HEARTH_WHAT (client) or HEARTH_SERVE_WHAT (serve) set to SETTING; WHAT is
# FAULT (default), KILL or POWERLOSS. Stdout, stderr to walk.out, walk.err
# (with SETTING count on the serve side, the serving process's stderr);
# returns the status.
walk_in() {
	fresh_work && : >walk.err
	if [ "$1" = serve ] && [ "$2" = count ]; then
		(cd work && export HEARTH_SERVE_FAULT=count HEARTH_SERVE_STDERR="$TEST_ROOT/walk.err" &&
		    walk_run) >walk.out 2>walk.client-err
	elif [ "$1" = serve ]; then
		(cd work && export "HEARTH_SERVE_${3:-FAULT}=$2" && walk_run) >walk.out 2>walk.err
	else
		(cd work && export "HEARTH_${3:-FAULT}=$2" && walk_run) >walk.out 2>walk.err
	fi
}

# Every Home of work/ checked clean, and its history mark, into FILE.
walk_marks() {
	for home in $WALK_HOMES; do
		history_mark "work/$home" || return 1
	done >"$1"
}

# fault_count SIDE: the write-class calls the command makes on SIDE, one
# letter per call (enum io_call in backend/io/io.h: w a write, W a database
# write, s a sync...), and the state a run without faults leaves
# (expected.*).
fault_count() {
	fresh_work && walk_marks before.marks && tree_manifest "work/$WALK_TREE" >before.tree &&
	walk_in "$1" count || { echo "the command fails with no fault:"; cat walk.err; return 1; }
	walk_marks expected.marks && tree_manifest "work/$WALK_TREE" >expected.tree &&
	sed -n 's/^hearth: io: [0-9]* write-class calls: \([a-zA-Z]*\)$/\1/p' walk.err |
	    tail -n 1
}

# Checks after a faulted run that ended with status $1.
walk_check() {
	if [ "$1" -ge 128 ]; then
		echo "killed by a signal ($1):"; cat walk.err; return 1
	fi
	if grep -E 'Sanitizer|runtime error|Assertion|hearth: bug' walk.err; then
		return 1
	fi
	if [ "$1" -ne 0 ] && ! grep -Eq "$FAULT_MESSAGE" walk.err; then
		echo "failed ($1) without naming the fault:"; cat walk.err; return 1
	fi
	tree_manifest "work/$WALK_TREE" >now.tree
	if [ "$1" -eq 0 ]; then
		test_cmp expected.tree now.tree || { echo "succeeded, but not fully"; return 1; }
	else
		tree_between before.tree expected.tree now.tree || return 1
	fi
	walk_marks now.marks || return 1
	if [ "$1" -eq 0 ]; then
		test_cmp expected.marks now.marks || { echo "succeeded, but not fully"; return 1; }
	fi
	while read -r mark; do
		if ! grep -qxF "$mark" before.marks && ! grep -qxF "$mark" expected.marks; then
			echo "history neither before nor after: $mark"
			cat before.marks expected.marks
			return 1
		fi
	done <now.marks
}

# The same command without the fault: it succeeds, and leaves the tree and
# history a run that never met a fault leaves. (Run with HEARTH_FAULT=count:
# no fault, and flushes only counted, so the walk is not bound by the disk.)
walk_rerun() {
	(cd work && export HEARTH_FAULT=count && walk_again) >rerun.out 2>rerun.err ||
		{ echo "the rerun failed:"; cat rerun.err; return 1; }
	tree_manifest "work/$WALK_TREE" >now.tree &&
	test_cmp expected.tree now.tree || { echo "the rerun left another tree"; return 1; }
	walk_marks now.marks &&
	test_cmp expected.marks now.marks || { echo "the rerun left another history"; return 1; }
}

# fault_walk SIDE: the walk. A short write is tried only where the call
# writes: at every write of hearth's own (w), and at every
# FAULT_DATABASE_STRIDE-th database write (W): SQLite reports a short
# write to hearth as it reports ENOSPC (SQLITE_FULL), which the walk tries
# at each of them, and what it leaves in the WAL is for SQLite to ignore
# (the power-loss and crash tests leave torn WALs too). Prints a summary
# line to walk.summary.
fault_walk() {
	kinds=$(fault_count "$1") || { echo "$kinds"; return 1; }
	calls=${#kinds}
	test "$calls" -gt 0 || { echo "no write-class calls counted"; cat walk.err; return 1; }
	cases=0 failed=0 offset=0 succeeded=0 database_writes=0
	for kind in $FAULT_KINDS; do
		n=$((1 + offset % FAULT_STRIDE))
		while [ $n -le $calls ]; do
			call=$(printf '%s' "$kinds" | cut -c$n)
			fault=$kind
			if [ $kind = SHORT ] && [ $FAULT_STRIDE -gt 1 ] && [ "$call" != w ] &&
			    [ "$call" != W ]; then
				fault=EIO	# so the kinds together still reach every call
			elif [ $kind = SHORT ] && [ $FAULT_STRIDE -eq 1 ] && { [ "$call" != w ] &&
			    [ "$call" != W ] ||
			    { [ "$call" = W ] && [ $((database_writes += 1)) -ne 1 ]; }; }; then
				[ $database_writes -lt $FAULT_DATABASE_STRIDE ] || database_writes=0
				n=$((n + 1))
				continue
			fi
			status=0
			walk_in "$1" "$n:$fault" || status=$?
			cases=$((cases + 1))
			[ $status -ne 0 ] || succeeded=$((succeeded + 1))
			if ! walk_check $status >check.out 2>&1 ||
			    { [ $status -ne 0 ] && ! walk_rerun >>check.out 2>&1; }; then
				echo "FAILED at write-class call $n ($call) of $calls, $fault, $1 side," \
				    "status $status; the calls: $kinds"
				sed 's/^/  /' walk.err check.out
				failed=$((failed + 1))
				[ $failed -lt 3 ] || return 1
			fi
			n=$((n + FAULT_STRIDE))
		done
		offset=$((offset + 1))
	done
	echo "$1: $calls write-class calls ($kinds), $cases faulted runs, $succeeded" \
	    "succeeded (the fault hit a call whose failure changes nothing)" >>"$TEST_ROOT/walk.summary"
	[ $failed -eq 0 ]
}

# ---- fixtures the fault, crash and power-loss tests share ----------------------

# DIR/home: one version, then every kind of change unrecorded (edits, a
# deleted folder, a file and a folder moved, new folders, files and a link).
fixture_record() {
	mkdir -p "$1" && hearth init "$1/home" >/dev/null && (cd "$1/home" &&
	mkdir -p docs/old photos gone && echo one >docs/a.txt && echo two >docs/b.txt &&
	echo old >docs/old/n.txt && echo bye >gone/x && head -c 70000 /dev/urandom >photos/p.bin &&
	hearth record -m base >/dev/null &&
	echo "one, edited" >docs/a.txt && rm -r gone && mv docs/b.txt photos/b.txt &&
	mv docs/old docs/renamed && mkdir -p new/deeper && echo fresh >new/deeper/f.txt &&
	head -c 300000 /dev/urandom >new/big.bin && ln -s ../docs/a.txt new/link &&
	chmod 600 docs/renamed/n.txt)
}

# DIR/home at the newer of two versions far apart: checking out the older
# removes, re-creates, moves back and rewrites, in files, links and folders.
fixture_checkout() {
	mkdir -p "$1" && hearth init "$1/home" >/dev/null && (cd "$1/home" &&
	mkdir -p docs/old photos gone && echo one >docs/a.txt && echo two >docs/b.txt &&
	echo old >docs/old/n.txt && echo bye >gone/x && head -c 70000 /dev/urandom >photos/p.bin &&
	ln -s docs/a.txt top-link && hearth record -m base >/dev/null &&
	echo "one, edited" >docs/a.txt && rm -r gone top-link && mv docs/b.txt photos/b.txt &&
	mv docs/old docs/renamed && mkdir -p new/deeper && echo fresh >new/deeper/f.txt &&
	head -c 300000 /dev/urandom >new/big.bin && ln -s ../docs/a.txt new/link &&
	chmod 600 docs/renamed/n.txt && hearth record -m newer >/dev/null)
}

# DIR/a and DIR/b, replicas of one Home, each with versions the other lacks.
fixture_sync() {
	mkdir -p "$1" && (cd "$1" && hearth init a >/dev/null &&
	mkdir -p a/docs && echo one >a/docs/one.txt && (cd a && hearth record -m base >/dev/null) &&
	hearth clone a b >/dev/null &&
	echo "from a" >a/docs/a.txt && head -c 200000 /dev/urandom >a/docs/a.bin &&
	(cd a && hearth record -m "on a" >/dev/null) &&
	echo "from b" >b/docs/b.txt && mkdir b/photos && head -c 90000 /dev/urandom >b/photos/b.bin &&
	echo "edited on b" >b/docs/one.txt && (cd b && hearth record -m "on b" >/dev/null))
}

# ---- the power-loss walk (tests/t0620-powerloss.sh) ---------------------------

# Sets durability MODE in the config of every Home of the template.
set_durability() {
	for home in $WALK_HOMES; do
		echo "durability: $2" >>"$1/$home/.hearth/config.yaml" || return 1
	done
}

# powerloss_walk SIDE MODE: the machine of SIDE dies at every
# POWERLOSS_STRIDE-th write-class call of the command, and once right after
# it ends (HEARTH_POWERLOSS, backend/io/io_powerloss.c: what no flush made
# durable is undone). After each death: fsck clean, history before or
# after, every tree file old or new; in full and group (MODE) a command
# that reported success has all its effect; and the command then
# completes. Summary line to walk.summary.
powerloss_walk() {
	kinds=$(fault_count "$1") || { echo "$kinds"; return 1; }
	calls=${#kinds}
	test "$calls" -gt 0 || { echo "no write-class calls counted"; cat walk.err walk.out; return 1; }
	export HEARTH_POWERLOSS_STASH="$TEST_ROOT/stash"
	mkdir -p "$HEARTH_POWERLOSS_STASH"
	[ "$1" != serve ] || export HEARTH_SERVE_STDERR="$TEST_ROOT/serve.err"
	cases=0 failed=0 survived=0
	n=1
	while :; do
		if [ $n -gt $calls ]; then point=exit; else point=$n; fi
		status=0
		rm -f serve.err
		walk_in "$1" "$point" POWERLOSS || status=$?
		# The serving side's own report, which its client need not show.
		[ ! -f serve.err ] || cat serve.err >>walk.err
		cases=$((cases + 1))
		if ! powerloss_check "$2" $status >check.out 2>&1 ||
		    ! walk_rerun >>check.out 2>&1; then
			echo "FAILED: power lost at $point of $calls ($2, $1 side), status $status;" \
			    "the calls: $kinds"
			sed 's/^/  /' walk.err check.out
			failed=$((failed + 1))
			[ $failed -lt 3 ] || return 1
		fi
		[ $point != exit ] || break
		n=$((n + POWERLOSS_STRIDE))
	done
	unset HEARTH_SERVE_STDERR
	echo "$2, $1 side: $calls write-class calls, $cases power losses (every" \
	    "${POWERLOSS_STRIDE}th call and at the end); $survived ended with a success that" \
	    "survived whole" >>"$TEST_ROOT/walk.summary"
	[ $failed -eq 0 ]
}

# Checks after a death; $1 the durability mode, $2 the status.
powerloss_check() {
	if [ "$2" -eq 98 ] || grep -E 'cannot undo|cannot restore|cannot cut|cannot go on' walk.err; then
		echo "the simulation itself failed:"; cat walk.err; return 1
	fi
	if grep -E 'Sanitizer|runtime error|Assertion|hearth: bug' walk.err; then
		return 1
	fi
	grep -q "^hearth: io: power lost" walk.err ||
		{ echo "no power loss happened ($2):"; cat walk.err; return 1; }
	tree_manifest "work/$WALK_TREE" >now.tree
	staged_aside "work/$WALK_TREE" >aside.tree
	tree_between before.tree expected.tree now.tree aside.tree || return 1
	walk_marks now.marks || return 1
	# A command that said it succeeded, in a mode that flushes: all of it.
	if [ "$1" != none ] && grep -q "power lost after the command ended (status 0)" walk.err; then
		survived=$((survived + 1))
		test_cmp expected.marks now.marks && test_cmp expected.tree now.tree ||
			{ echo "reported success, and lost it"; return 1; }
	fi
	while read -r mark; do
		grep -qxF "$mark" before.marks || grep -qxF "$mark" expected.marks || {
			echo "history neither before nor after: $mark"; cat before.marks expected.marks
			return 1
		}
	done <now.marks
}
