# Shell test library in the manner of git's t/test-lib.sh: each test file
# sources it, runs test_expect_success blocks and ends with test_done; the
# output is TAP for prove. Each body runs in a subshell from the folder the
# script is in (so a top-level cd carries over and one inside a test does
# not). Every file gets a fresh HOME and scratch folder,
# removed afterwards unless it failed (then its path is printed).
# tests/README says how to write and run tests.
#
#   test_expect_success [PREREQ] 'what it checks' 'commands'
#   test_expect_failure [PREREQ] 'a known breakage' 'commands'
#   test_when_finished 'commands'      cleanup that runs when this test ends, even failing
#   test_expect_code N command...      fails unless command exits with N
#   test_must_fail command...          fails unless command fails (by exit, not by signal)
#   test_cmp expected actual           diff -u, fails on any difference
#   test_wait_for 'condition' [SECONDS]  polls until condition holds; fails after
#                                      SECONDS (60) times HEARTH_TEST_WAIT_SCALE (3)
#   test_set_prereq NAME               NAME holds from here on
#   test_lazy_prereq NAME 'commands'   NAME holds if commands succeed (run once, when asked)
#   test_have_prereq NAME[,NAME...]    true if each holds (!NAME: if NAME does not)
#   test_skip_all 'reason'             when a prerequisite of the whole file is missing
#
# Options, given to the script (`sh tests/t0010-init.sh -v -i`, or through
# prove: `prove tests/t0010-init.sh :: -v`), or as HEARTH_TEST_OPTS:
#   -v, --verbose    show every test's body and output, not only a failing one's
#   -i, --immediate  stop at the first failure, keeping the scratch folder
#   -x               trace each body's commands (set -x)
#   --run=LIST       run only these tests: 3, 3-5, 7-, !2 (not 2), comma-separated

set -u
: "${HEARTH_SOURCE_DIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${HEARTH_BIN:=$HEARTH_SOURCE_DIR/hearth}"
: "${HEARTH_TEST_TOOL:=$HEARTH_SOURCE_DIR/build/release/tests/hearth-test-tool}"
export HEARTH_SOURCE_DIR HEARTH_BIN HEARTH_TEST_TOOL

test_verbose=
test_immediate=
test_trace=
test_run_list=
for _arg in ${HEARTH_TEST_OPTS:-} "$@"; do
	case $_arg in
	-v | --verbose) test_verbose=t ;;
	-i | --immediate) test_immediate=t ;;
	-x) test_trace=t ;;
	--run=*) test_run_list=${_arg#--run=} ;;
	-h | --help)
		sed -n '/^# Options/,/^$/s/^#//p' "$HEARTH_SOURCE_DIR/tests/lib/test-lib.sh"
		exit 0 ;;
	*) echo "Bail out! $0: unknown option '$_arg' (see tests/README)"; exit 1 ;;
	esac
done
unset _arg

test_count=0
test_failures=0
test_broken=0
test_fixed=0
test_prereqs=' '
test_lazy_prereqs=
test_name=$(basename "$0" .sh)
TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/hearth-$test_name.XXXXXX")
export HOME="$TEST_ROOT/home"
export XDG_CONFIG_HOME="$HOME/.config"
export XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$HOME"
unset HEARTH_CONFIG HEARTH_SSH HEARTH_FAULT NO_COLOR 2>/dev/null || true
export LC_ALL=C.UTF-8 TZ=UTC
cd "$TEST_ROOT" || exit 1

hearth() { "$HEARTH_BIN" "$@"; }
test_tool() { "$HEARTH_TEST_TOOL" "$@"; }

# ---- prerequisites -------------------------------------------------------

test_set_prereq() {
	test_prereqs="$test_prereqs$1 "
}

test_lazy_prereq() {
	test_lazy_prereqs="$test_lazy_prereqs$1 "
	eval "test_lazy_prereq_script_$1=\$2"
}

# One name: set, lazily decided (once), or missing.
test_have_one_prereq() {
	case $test_prereqs in *" $1 "*) return 0 ;; esac
	case " $test_lazy_prereqs" in *" $1 "*) ;; *) return 1 ;; esac
	case ${test_missing_prereqs:-} in *" $1 "*) return 1 ;; esac
	eval "_script=\$test_lazy_prereq_script_$1"
	if (cd "$TEST_ROOT" && eval "$_script") >/dev/null 2>&1; then
		test_set_prereq "$1"
		return 0
	fi
	test_missing_prereqs="${test_missing_prereqs:- }$1 "
	return 1
}

test_have_prereq() {
	_list=$1
	_old_ifs=$IFS
	IFS=,
	set -- $_list
	IFS=$_old_ifs
	for _prereq in "$@"; do
		case $_prereq in
		!*) ! test_have_one_prereq "${_prereq#!}" || return 1 ;;
		*) test_have_one_prereq "$_prereq" || return 1 ;;
		esac
	done
	return 0
}

[ "$(id -u)" != 0 ] || test_set_prereq ROOT
[ -z "${HEARTH_SANITIZED:-}" ] || test_set_prereq SANITIZED
test_lazy_prereq XATTR '
	: >xattr-probe && setfattr -n user.hearth-probe -v 1 xattr-probe &&
	getfattr -n user.hearth-probe xattr-probe
'
test_lazy_prereq TMPFS_MOUNT '
	test "$(id -u)" = 0 && mkdir -p tmpfs-probe &&
	mount -t tmpfs -o size=1m tmpfs tmpfs-probe && umount tmpfs-probe
'

# ---- selecting tests (--run) ---------------------------------------------

# Whether test number $1 is in --run's list.
test_selected() {
	[ -n "$test_run_list" ] || return 0
	_old_ifs=$IFS
	IFS=,
	set -- "$1" $test_run_list
	IFS=$_old_ifs
	_number=$1
	shift
	_selected=
	case $1 in !*) _selected=t ;; esac
	for _range in "$@"; do
		_negate=
		case $_range in !*) _negate=t; _range=${_range#!} ;; esac
		case $_range in
		*-*) _low=${_range%-*}; _high=${_range#*-} ;;
		*) _low=$_range; _high=$_range ;;
		esac
		[ -n "$_low" ] || _low=1
		[ -n "$_high" ] || _high=$_number
		if [ "$_number" -ge "$_low" ] && [ "$_number" -le "$_high" ]; then
			if [ -n "$_negate" ]; then _selected=; else _selected=t; fi
		fi
	done
	[ -n "$_selected" ]
}

# ---- running one test ----------------------------------------------------

# Inside a body: run these commands when the test ends, passing or failing,
# the last registered first, in the body's own shell (so `wait` reaps what
# the body started). A cleanup that fails fails the test.
test_when_finished() {
	test_cleanup="{ $*
} || test_cleanup_failed=t
$test_cleanup"
}

# Runs the body in a subshell with set -e; its output goes to .log. The
# cleanups registered with test_when_finished run at the subshell's exit.
test_run_body() {
	(
		test_cleanup=
		test_cleanup_failed=
		trap 'test_run_cleanup' EXIT
		[ -z "$test_trace" ] || set -x
		eval "set -e; $1"
	) >"$TEST_ROOT/.log" 2>&1
}

test_run_cleanup() {
	_status=$?
	set +e +x
	eval "$test_cleanup"
	if [ -n "$test_cleanup_failed" ] && [ $_status -eq 0 ]; then
		echo "test_when_finished: a cleanup failed"
		exit 1
	fi
	exit $_status
}

test_show_log() {
	sed -e 's/^/#   /' "$TEST_ROOT/.log"
}

# Splits "[PREREQ] desc body" into test_prereq, test_desc and test_body.
test_parse_args() {
	test_prereq=
	if [ $# -eq 3 ]; then
		test_prereq=$1
		shift
	fi
	if [ $# -ne 2 ]; then
		echo "Bail out! $0: a test takes [PREREQ] 'description' 'body', got $# arguments"
		exit 1
	fi
	test_desc=$1
	test_body=$2
}

# Whether test $test_count should run; prints the skip line if not.
test_should_run() {
	if ! test_selected "$test_count"; then
		echo "ok $test_count # skip $test_desc (--run)"
		return 1
	fi
	if [ -n "$test_prereq" ] && ! test_have_prereq "$test_prereq"; then
		echo "ok $test_count # skip $test_desc (missing $test_prereq)"
		return 1
	fi
	[ -z "$test_verbose" ] || printf '# expecting %s: %s\n' "$1" "$test_body" | sed -e '2,$s/^/#   /'
	return 0
}

test_expect_success() {
	test_parse_args "$@"
	test_count=$((test_count + 1))
	test_should_run success || return 0
	test_run_body "$test_body"
	_status=$?
	if [ $_status -eq 0 ]; then
		[ -z "$test_verbose" ] || test_show_log
		echo "ok $test_count - $test_desc"
		return 0
	fi
	test_failures=$((test_failures + 1))
	echo "not ok $test_count - $test_desc"
	test_show_log
	echo "#   exit status $_status in $TEST_ROOT"
	# Kept for `make check` to print again at its end (HEARTH_FAILURE_LOG):
	# prove hides a failure's log unless verbose, and a failure seen once
	# in CI must carry its own explanation.
	[ -z "${HEARTH_FAILURE_LOG:-}" ] ||
		{ echo "# $0: not ok $test_count - $test_desc"; test_show_log
		  echo "#   exit status $_status in $TEST_ROOT"; } >>"$HEARTH_FAILURE_LOG"
	[ -z "$test_immediate" ] || test_stop_here
}

# A known breakage: TAP's TODO directive, so prove lists it and a fix shows
# as "unexpectedly succeeded" without failing the file.
test_expect_failure() {
	test_parse_args "$@"
	test_count=$((test_count + 1))
	test_should_run failure || return 0
	test_run_body "$test_body"
	_status=$?
	[ -z "$test_verbose" ] || test_show_log
	if [ $_status -eq 0 ]; then
		test_fixed=$((test_fixed + 1))
		echo "ok $test_count - $test_desc # TODO known breakage vanished"
	else
		test_broken=$((test_broken + 1))
		echo "not ok $test_count - $test_desc # TODO known breakage"
	fi
}

# -i: the first failure ends the file, its scratch folder kept.
test_stop_here() {
	echo "1..$test_count"
	echo "# stopped at the first failure (-i); scratch kept in $TEST_ROOT"
	exit 1
}

# ---- assertions ----------------------------------------------------------

test_expect_code() {
	_want=$1
	shift
	set +e
	"$@"
	_got=$?
	set -e
	if [ "$_got" != "$_want" ]; then
		echo "test_expect_code: '$*' exited $_got, want $_want" >&2
		return 1
	fi
	return 0
}

# A command that must fail with an error of its own: a success, a signal
# (status above 128) or a command not found (126, 127) is a test failure.
test_must_fail() {
	set +e
	"$@"
	_got=$?
	set -e
	if [ $_got -eq 0 ]; then
		echo "test_must_fail: '$*' succeeded" >&2
		return 1
	fi
	if [ $_got -gt 125 ]; then
		echo "test_must_fail: '$*' died with status $_got" >&2
		return 1
	fi
	return 0
}

test_cmp() {
	diff -u "$1" "$2"
}

# Waits for an event, never for a time: the bound only catches a hang, so
# it is generous and measured on the clock (a loaded machine polls slower).
# HEARTH_TEST_WAIT_SCALE stretches every bound (3 by default); a probe
# whose timeout is expected sets test_wait_scale=1 around its call.
test_wait_for() {
	_bound=$(( ${2:-60} * ${test_wait_scale:-${HEARTH_TEST_WAIT_SCALE:-3}} ))
	_deadline=$(( $(date +%s) + _bound ))
	until eval "$1"; do
		if [ "$(date +%s)" -ge "$_deadline" ]; then
			[ -n "${test_wait_quiet:-}" ] || echo "test_wait_for: '$1' did not hold within $_bound s" >&2
			return 1
		fi
		sleep 0.1
	done
	return 0
}

test_skip_all() {
	echo "1..0 # SKIP $1"
	cd / && rm -rf "$TEST_ROOT"
	exit 0
}

# Commands test_done runs first, while the scratch folder still exists (a
# library adds its own: app-lib.sh stops its tmux servers, whose sockets
# live there).
test_done_hooks=

test_done() {
	for _hook in $test_done_hooks; do
		$_hook
	done
	echo "1..$test_count"
	[ $test_broken -eq 0 ] || echo "# $test_broken known breakage(s)"
	[ $test_fixed -eq 0 ] || echo "# $test_fixed known breakage(s) vanished: make them test_expect_success"
	if [ $test_failures -eq 0 ]; then
		cd / && rm -rf "$TEST_ROOT"
		exit 0
	fi
	echo "# $test_failures of $test_count failed; scratch kept in $TEST_ROOT"
	exit 1
}
