# Drives the full-screen app for the t9 tests, in the manner of tmux's
# regress/ and tig's libtest.sh: the app runs in a pane of a private tmux
# server (its own socket, no user config) with a known size; tests type with
# app_keys, wait for text with app_wait (polling with a timeout, never a
# fixed sleep) and read the screen with app_screen. Source it after
# test-lib.sh: test_done stops every server it started before it removes
# the scratch folder holding their sockets; a script that dies, at exit.
#
#   app_start [VAR=value...]   run hearth in the current folder, in a shell
#   app_keys KEY...            tmux send-keys names: j Enter Escape C-d ...
#   app_type TEXT              literal text
#   app_wait TEXT [SECONDS]    until the screen shows TEXT (fixed string)
#   app_wait_gone TEXT [SECONDS]
#   app_screen [-e]            the screen now (-e: with attributes)
#   app_quit                   q until the shell prompt is back
#   app_stop                   kill every tmux server this test started

command -v tmux >/dev/null 2>&1 || test_skip_all 'tmux is not installed (make deps)'

APP_WIDTH=${APP_WIDTH:-100}
APP_HEIGHT=${APP_HEIGHT:-30}
APP_PROMPT='shell-ready> '
# Sockets live in the test's scratch folder, so stopping every server this
# test made cannot touch anyone else's. Test bodies run in subshells: the
# current server's name is kept in a file, not a variable.
TMUX_TMPDIR=$TEST_ROOT
export TMUX_TMPDIR

app_tmux() {
	tmux -L "$(cat "$TEST_ROOT/.app-socket" 2>/dev/null || echo none)" -f /dev/null "$@"
}

app_stop() {
	for _socket in "$TMUX_TMPDIR"/tmux-*/*; do
		[ -S "$_socket" ] && tmux -S "$_socket" kill-server >/dev/null 2>&1
	done
	return 0
}
trap app_stop EXIT
test_done_hooks="$test_done_hooks app_stop"

# A plain shell in the pane runs hearth, so a test can see what is left of
# the terminal when the app ends (its prompt, stty, the exit status). Each
# start gets a new server: a killed one may take a moment to go away.
app_start() {
	app_stop
	_starts=$(( $(cat "$TEST_ROOT/.app-starts" 2>/dev/null || echo 0) + 1 ))
	echo "$_starts" >"$TEST_ROOT/.app-starts"
	echo "app-$_starts" >"$TEST_ROOT/.app-socket"
	app_tmux new-session -d -x "$APP_WIDTH" -y "$APP_HEIGHT" -c "$PWD" \
	    "env PS1='$APP_PROMPT' TERM=tmux-256color sh" || return 1
	app_wait 'shell-ready>' || return 1
	app_tmux send-keys -l "stty -g >'$TEST_ROOT/stty.before'; env $* '$HEARTH_BIN'; echo app-exit=\$?"
	app_tmux send-keys Enter
}

app_keys() {
	app_tmux send-keys "$@"
}

app_type() {
	app_tmux send-keys -l "$1"
}

app_screen() {
	app_tmux capture-pane -p "$@"
}

# Polls the screen until TEXT shows (test_wait_for's bound, on the clock);
# on a timeout shows what was there instead (unless APP_QUIET is set).
app_wait() {
	_text=$1
	test_wait_quiet=t test_wait_for 'app_screen | grep -F -q -- "$_text"' "${2:-10}" && return 0
	if [ -z "${APP_QUIET:-}" ]; then
		echo "app_wait: '$_text' never showed; the screen was:" >&2
		app_screen >&2
	fi
	return 1
}

app_wait_gone() {
	_text=$1
	test_wait_quiet=t test_wait_for '! app_screen | grep -F -q -- "$_text"' "${2:-10}" && return 0
	echo "app_wait_gone: '$_text' stayed; the screen was:" >&2
	app_screen >&2
	return 1
}

# Quits (each q closes a pane first) until the shell reports the status.
# Each q is a probe: 2 s unstretched, since no exit yet is expected.
app_quit() {
	for _i in 1 2 3; do
		app_keys q
		APP_QUIET=1
		test_wait_scale=1 app_wait 'app-exit=' 2 && break
	done
	APP_QUIET=
	app_wait 'app-exit=0' 10
}

# Until line LINE of the screen (1 is the top) shows TEXT.
app_wait_line() {
	_line=$1
	_text=$2
	test_wait_quiet=t test_wait_for \
	    'app_screen | sed -n "${_line}p" | grep -F -q -- "$_text"' "${3:-10}" && return 0
	echo "app_wait_line: line $_line never showed '$_text'; the screen was:" >&2
	app_screen >&2
	return 1
}

# The pid of the program the pane's shell runs (hearth, while it runs).
app_pid() {
	pgrep -P "$(app_tmux display-message -p '#{pane_pid}')" | head -n 1
}
