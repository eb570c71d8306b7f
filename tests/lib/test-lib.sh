# Shell test library in the manner of git's t/test-lib.sh: each test file
# sources it, runs test_expect_success blocks and ends with test_done; the
# output is TAP for prove. Each body runs in a subshell from the folder the
# script is in (so a top-level cd carries over and one inside a test does
# not). Every file gets a fresh HOME and scratch folder,
# removed afterwards unless it failed (then its path is printed).
#
#   test_expect_success 'what it checks' 'commands'
#   test_expect_code N command...      fails unless command exits with N
#   test_cmp expected actual           diff -u, fails on any difference
#   test_skip_all 'reason'             when a prerequisite is missing

set -u
: "${HEARTH_SOURCE_DIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${HEARTH_BIN:=$HEARTH_SOURCE_DIR/hearth}"
: "${HEARTH_TEST_TOOL:=$HEARTH_SOURCE_DIR/build/release/tests/hearth-test-tool}"
export HEARTH_SOURCE_DIR HEARTH_BIN HEARTH_TEST_TOOL

test_count=0
test_failures=0
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

test_expect_success() {
	test_count=$((test_count + 1))
	_desc=$1
	_body=$2
	(eval "set -e; $_body") >"$TEST_ROOT/.log" 2>&1
	_status=$?
	if [ $_status -eq 0 ]; then
		echo "ok $test_count - $_desc"
	else
		test_failures=$((test_failures + 1))
		echo "not ok $test_count - $_desc"
		sed -e 's/^/#   /' "$TEST_ROOT/.log"
		echo "#   exit status $_status in $TEST_ROOT"
	fi
}

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

test_cmp() {
	diff -u "$1" "$2"
}

test_skip_all() {
	echo "1..0 # SKIP $1"
	rm -rf "$TEST_ROOT"
	exit 0
}

test_done() {
	echo "1..$test_count"
	if [ $test_failures -eq 0 ]; then
		cd / && rm -rf "$TEST_ROOT"
		exit 0
	fi
	echo "# $test_failures of $test_count failed; scratch kept in $TEST_ROOT"
	exit 1
}
