# Helpers for tests that run `hearth watch` in the background. Sourced
# after test-lib.sh. Each watch is named; its output goes to NAME.log in
# $TEST_ROOT and its pid to a folder beside it (which test_done leaves),
# so every watch still running when the script ends is stopped.
#
#   watch_start NAME [hearth options...]   starts `hearth [options] watch` from here
#   watch_wait NAME PATTERN [SECONDS [COUNT]]  until COUNT (1) lines of its output
#                                          match PATTERN (an ERE)
#   watch_stop NAME                        SIGTERM, then until it is gone
#   watch_gone NAME [SECONDS]              until it has exited by itself
#   status_from_watch FILE [options...]    `hearth status` into FILE, until it
#                                          answers from the watched index
#   old_times PATH...                      files and folders dated 2020, so a
#                                          stamp taken now is trusted at once
#   tree_ids [FOLDER]                      "ID PATH" for every entry of the index

WATCH_PIDS=$TEST_ROOT-pids
mkdir -p "$WATCH_PIDS"

watch_start() {
	_name=$1
	shift
	watch_stop "$_name"
	# Emptied here, not by the redirection of the command below: that
	# runs in the background child, maybe after the caller's watch_wait
	# has read the last watch's "current" from the old log.
	: >"$TEST_ROOT/$_name.log"
	"$HEARTH_BIN" "$@" watch >>"$TEST_ROOT/$_name.log" 2>&1 &
	echo $! >"$WATCH_PIDS/$_name"
}

# Bounds are test_wait_for's: on the clock, stretched, only a hang reaches them.
watch_wait() {
	_log=$TEST_ROOT/$1.log
	_pattern=$2
	_count=${4:-1}
	test_wait_quiet=t test_wait_for \
	    '[ "$(grep -Ec "$_pattern" "$_log" 2>/dev/null)" -ge "$_count" ]' "${3:-20}" && return 0
	echo "watch $1: no line matching '$2' in time; its output:" >&2
	cat "$_log" >&2
	return 1
}

watch_gone() {
	_pid=$(cat "$WATCH_PIDS/$1")
	test_wait_quiet=t test_wait_for '! kill -0 "$_pid" 2>/dev/null' "${2:-10}" && return 0
	echo "watch $1 (pid $_pid) still runs" >&2
	return 1
}

watch_stop() {
	[ -f "$WATCH_PIDS/$1" ] || return 0
	kill -TERM "$(cat "$WATCH_PIDS/$1")" 2>/dev/null || true
	watch_gone "$1"
	rm -f "$WATCH_PIDS/$1"
}

watch_stop_all() {
	for _file in "$WATCH_PIDS"/*; do
		[ -f "$_file" ] || continue
		kill -TERM "$(cat "$_file")" 2>/dev/null || true
	done
	rm -rf "$WATCH_PIDS"
}
trap watch_stop_all EXIT

# A status waits 2 s for the watch to answer its cookie, then walks, which
# is right, but says nothing of the index: on a loaded machine the watch
# can miss that wait. What is tested is that the watch answers, so ask
# again until it does (test_wait_for's bound).
status_from_watch() {
	_out=$1
	shift
	_status_args="$*"
	test_wait_quiet=t test_wait_for \
	    'hearth $_status_args status >"$_out" && grep -q "From the watched index" "$_out"' 30 &&
	    return 0
	echo "status never answered from the watched index; the last answer:" >&2
	cat "$_out" >&2
	return 1
}

old_times() {
	touch -h -d '2020-01-01 00:00:00' "$@"
}

# Every entry of the working-tree index, "ID PATH" a line (folders end in
# /), top down: what "the same ids" is checked against.
tree_ids() {
	local prefix="${1:-}" id name
	hearth ls --tree -i ${prefix:+"$prefix"} | while read -r id name; do
		case $name in
		*/)
			echo "$id $prefix${prefix:+/}$name"
			tree_ids "$prefix${prefix:+/}${name%/}"
			;;
		*) echo "$id $prefix${prefix:+/}$name" ;;
		esac
	done
}
